"""Writes the hand-made tenhou.net/6 logs of this folder (run once; the JSON files are committed).

Each log covers a case the recorded samples lack. The expected figures are worked out by
hand in tests/controller/rules/test_replay.py, not produced by the engine.
"""

import json
from pathlib import Path

HERE = Path(__file__).parent


def write(name, hand, rule=None):
    data = {"title": ["jantaku", name], "name": ["A", "B", "C", "D"],
            "rule": rule or {"disp": "般南喰赤", "aka": 1}, "log": [hand]}
    (HERE / f"{name}.json").write_text(json.dumps(data, ensure_ascii=False) + "\n")


def main() -> None:
    # pao on ron: seat 1 pons haku (from 0), hatsu (from 2), chun (from 3: liable), then rons 1m from seat 2
    write("pao_ron", [
        [0, 2, 0], [25000, 25000, 25000, 25000], [29], [],
        [45, 11, 11, 14, 15, 16, 22, 23, 24, 32, 33, 34, 38], [17], [45],
        [45, 45, 46, 46, 47, 47, 12, 13, 21, 21, 39, 29, 31], ["p454545", "4646p46", "47p4747"], [39, 29, 31],
        [46, 11, 18, 18, 25, 26, 27, 35, 36, 37, 42, 42, 43], [19, 28, 44], [46, 60, 11],
        [47, 31, 31, 33, 33, 35, 36, 37, 41, 41, 43, 44, 44], [16], [47],
        ["和了", [0, 32600, -16000, -16600], [1, 2, 3, "役満32000点", "大三元(役満)"]],
    ])

    # kokushi robbing a closed kan: the dealer declares 1111m, seat 2 waits on 1m with thirteen orphans
    write("kokushi_closed_kan", [
        [0, 0, 0], [25000, 25000, 25000, 25000], [22], [],
        [11, 11, 11, 11, 23, 24, 25, 33, 34, 35, 36, 37, 38], [26], ["111111a11"],
        [12, 13, 14, 15, 16, 17, 18, 23, 24, 25, 32, 32, 32], [], [],
        [19, 19, 21, 29, 31, 39, 41, 42, 43, 44, 45, 46, 47], [], [],
        [12, 13, 14, 15, 16, 17, 18, 26, 27, 28, 33, 34, 35], [], [],
        ["和了", [-32000, 0, 32000, 0], [2, 0, 2, "役満32000点", "国士無双(役満)"]],
    ])

    # triple ron on the dealer's first discard (5m): seats 1, 2, 3 all win; honba 1, one stick on the table
    write("triple_ron", [
        [0, 1, 1], [24000, 25000, 25000, 25000], [41], [],
        [11, 19, 21, 29, 31, 39, 41, 42, 43, 44, 45, 46, 47], [15], [60],
        [14, 16, 22, 23, 24, 25, 26, 27, 36, 37, 38, 33, 33], [], [],
        [13, 14, 22, 22, 22, 24, 25, 26, 33, 34, 35, 37, 37], [], [],
        [16, 17, 23, 24, 25, 34, 35, 36, 36, 37, 38, 12, 12], [], [],
        ["和了", [-4900, 2600, 1300, 2000], [1, 0, 1, "40符1飜1300点", "断幺九(1飜)"],
         [0, 0, 0, 0], [2, 0, 2, "40符1飜1300点", "断幺九(1飜)"],
         [0, 0, 0, 0], [3, 0, 3, "30符2飜2000点", "平和(1飜)", "断幺九(1飜)"]],
    ])


    def nagashi():
        """Seat 2 discards only terminals and honours, none called; everyone else discards simples."""
        th = [c for c in range(11, 48) if (c % 10 in (1, 9) and c < 40) or c > 40 for _ in range(4)]
        th = [c for c in th if c % 10 != 0]
        simples = [s * 10 + n for s in (1, 2, 3) for n in range(2, 9) for _ in range(4)]
        assert len(th) == 52 and len(simples) == 84
        seat2_hp, th = th[:13], th[13:]
        seat2_dr, th = th[:17], th[17:]
        draws = {0: simples[:18], 1: simples[18:36], 3: simples[36:53]}
        rest = simples[53:] + th  # 31 simples + 22 terminals/honours for the other hands and the dead wall
        hps = {0: rest[:13], 1: rest[13:26], 3: rest[26:39]}
        dead = rest[39:]
        assert len(dead) == 14
        seats = []
        for s in range(4):
            if s == 2:
                seats += [seat2_hp, seat2_dr, [60] * 17]
            else:
                seats += [hps[s], draws[s], [60] * len(draws[s])]
        return [[0, 1, 1], [24000, 25000, 25000, 25000], [dead[0]], [], *seats,
                ["流し満貫", [-4000, -2000, 8000, -2000]]]


    write("nagashi_honba", nagashi())

    # sanma: the dealer sets a north aside (nukidora) and wins on the replacement tile
    write("sanma_nuki_rinshan", [
        [0, 0, 0], [35000, 35000, 35000, 0], [42], [],
        [44, 41, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 31], [39, 39, 31], [41, "f44"],
        [11, 11, 19, 19, 32, 33, 34, 35, 36, 37, 38, 45, 46], [47], [60],
        [22, 22, 23, 23, 24, 25, 26, 27, 28, 42, 43, 45, 46], [47], [60],
        [], [], [],
        ["和了", [8000, -4000, -4000, 0], [0, 0, 0, "満貫4000点∀", "嶺上開花(1飜)", "門前清自摸和(1飜)",
                                          "一気通貫(2飜)", "抜きドラ(1飜)"]],
    ], rule={"disp": "三般南喰", "aka": 0})

    # sanma, two hands: (1) the dealer robs a north set aside (a plain ron, no chankan);
    # (2) seat 0 pons haku from seat 2, which Tenhou writes as "across" on its four-seat table
    write("sanma_ron_on_north_and_pon", [
        [0, 0, 0], [35000, 35000, 35000, 0], [39], [],
        [21, 21, 22, 22, 23, 23, 35, 35, 37, 37, 39, 39, 44], [41], [60],
        [11, 11, 19, 19, 24, 24, 26, 26, 31, 31, 32, 32, 46], [47], [60],
        [27, 27, 28, 28, 33, 33, 34, 34, 36, 36, 38, 38, 45], [44], ["f44"],
        [], [], [],
        ["和了", [2400, 0, -2400, 0], [0, 2, 0, "25符2飜2400点", "七対子(2飜)"]],
    ], rule={"disp": "三般南喰赤", "aka": 0})
    _first = json.loads((HERE / "sanma_ron_on_north_and_pon.json").read_text())
    _first["log"].append([
        [0, 1, 0], [37400, 35000, 32600, 0], [43], [],
        [45, 45, 21, 22, 23, 24, 25, 26, 37, 38, 39, 31, 29], [19, "45p4545", 31], [29, 19],
        [11, 11, 19, 19, 32, 32, 36, 36, 41, 41, 42, 42, 43], [33, 34], [60, 60],
        [27, 27, 28, 28, 33, 33, 35, 35, 46, 46, 47, 47, 43], [45, 35], [60, 60],
        [], [], [],
        ["和了", [1200, -600, -600, 0], [0, 0, 0, "30符1飜500点∀", "役牌 白(1飜)"]],
    ])
    (HERE / "sanma_ron_on_north_and_pon.json").write_text(json.dumps(_first, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
