import json

import pytest

from controller.rules import tiles as T
from controller.rules.cli import main
from tests.paths import TENHOU_SAMPLES

SAMPLE = str(TENHOU_SAMPLES / "mjai-reviewer__double_ron.json")


def test_score_text_and_json(capsys):
    assert main("score", ["123m456p789s11z22z", "--win", "2z", "--tsumo", "--seat-wind", "S", "--dora", "1z",
                          "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["han"], out["fu"], out["payment"]) == (5, 40, "2000 / 4000")
    assert ["seat_wind_south", 1] in out["yaku"]


def test_score_with_melds(capsys):
    assert main("score", ["111222333m9p", "--win", "9p", "--meld", "chi:789s", "--tsumo", "--seat-wind", "W"]) == 0
    assert "2 han 40 fu" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["1112223334445m99p", "--win", "9p"],           # 15 tiles
    ["11111m2345678p9p", "--win", "9p"],             # a fifth copy
    ["123m456p789s11z22z", "--win", "8z"],           # unknown tile
    ["123m456p789s11z2x", "--win", "2z"],
    ["123m456p789s11z22z", "--win", "2z", "--rules", "nope"],
    ["123m456p789s11z22z", "--win", "2z", "--rules", "hk"],
    ["123m456p789s11z22z", "--win", "2z", "--ippatsu"],      # ippatsu without riichi
    ["123m456p789s11z22z", "--win", "2z", "--meld", "pon:123m"],
    ["123m456p789s11z22z"],                          # --win missing: argparse error
])
def test_score_bad_input_exits_2_with_one_line(argv, capsys):
    assert main("score", argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_waits(capsys):
    assert main("waits", ["6667m123p456s111z", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["waits"] == ["5m", "7m", "8m"]
    assert main("waits", ["7m123p456s111z", "--meld", "ankan:6666m"]) == 0
    assert capsys.readouterr().out.strip() == "waits: 7m"
    assert main("waits", ["1112345678999m99p"]) == 2
    assert main("waits", ["1112345678999m9p", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["discards"]["9p"] == T.parse("123456789m")


def test_settle(capsys):
    assert main("settle", ["54300", "29000", "19700", "-3000", "--rules", "seed002"]) == 0
    assert capsys.readouterr().out.strip() == "+52.3 +3.0 -14.3 -41.0"
    assert main("settle", ["1", "x"]) == 2


def test_replay_contract_lines(capsys):
    assert main("replay", [SAMPLE, "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    row = json.loads(lines[0])
    assert set(row) == {"hand", "round", "honba", "outcome", "deltas", "scores_after", "dora_indicators", "dora",
                        "wins"}
    assert row["deltas"] == [13000, 0, 2000, -14000]
    assert set(row["wins"][0]) == {"seat", "from", "han", "fu", "yakuman", "yaku", "points"}


def test_replay_malformed_exits_2_naming_file_and_hand(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    data = json.loads(open(SAMPLE).read())
    data["log"][0][5][0] = 99
    bad.write_text(json.dumps(data))
    assert main("replay", [str(bad), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line = captured.err.strip()
    assert len(line.splitlines()) == 1 and "bad.json" in line and "hand 0" in line and "99" in line
    (tmp_path / "x.json").write_text("{not json")
    assert main("replay", [str(tmp_path / "x.json"), "--json"]) == 2
    assert main("replay", [str(tmp_path / "missing.json")]) == 2
