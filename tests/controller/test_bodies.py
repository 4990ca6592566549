"""The strict body parser (controller.bodies): what it refuses, and that it never raises anything else."""

import json
import random

import pytest

from controller.bodies import BodyError, choice, fields, integer, nesting_depth, parse_body, plain_data, text


@pytest.mark.parametrize("raw, words, status", [
    (b'{"x": NaN}', "NaN is not allowed", 400),
    (b'{"x": -Infinity}', "-Infinity is not allowed", 400),
    (b'{"x": 1e999}', "out of range", 400),
    (b'{"a": 1, "a": 2}', "appears twice", 400),
    (b"[" * 9 + b"]" * 9, "nests 9 levels", 400),
    (b"[" * 60000, "nests 60000 levels", 400),
    (b'{"x": "' + b"a" * 70000 + b'"}', "at most 65536", 413),
    (b"\xff\xfe{}", "not UTF-8", 400),
    (b"[1, 2]", "must be a JSON object, not list", 400),
    (b'{"x": 1', "not JSON", 400),
])
def test_refusals_name_the_problem(raw, words, status):
    with pytest.raises(BodyError) as info:
        parse_body(raw)
    assert words in str(info.value) and info.value.status == status


def test_brackets_inside_strings_do_not_count_as_nesting():
    raw = json.dumps({"reason": "[[[[[[[[[[{{{{{{{{ \\\" ]]]"}).encode()
    assert nesting_depth(raw) == 1
    assert parse_body(raw)["reason"].startswith("[[[[")


def test_empty_body_is_an_empty_object_and_good_bodies_pass():
    assert parse_body(b"") == {}
    assert parse_body(b'{"hand_index": 3, "data": {"scores": [1.5, -2]}}') == {
        "hand_index": 3, "data": {"scores": [1.5, -2]}}


def test_field_validators():
    body = {"seat": 2, "what": "  discard ", "flag": True, "n": 2.0}
    fields(body, ("seat",), ("what", "flag", "n"))
    with pytest.raises(BodyError, match="unknown field 'flag'"):
        fields(body, ("seat",), ("what", "n"))
    with pytest.raises(BodyError, match="missing field 'reason'"):
        fields(body, ("seat", "reason"), ("what", "flag", "n"))
    assert integer(body, "seat", lo=0, hi=3) == 2
    for name in ("flag", "n", "what"):
        with pytest.raises(BodyError, match="whole number"):
            integer(body, name, lo=0, hi=3)
    with pytest.raises(BodyError, match="is -1, must be 0..3"):
        integer({"seat": -1}, "seat", lo=0, hi=3)
    assert text(body, "what") == "discard"
    with pytest.raises(BodyError, match="longer than 3"):
        text(body, "what", max_len=3)
    assert choice({"s": "random"}, "s", ("as_seated", "random")) == "random"
    with pytest.raises(BodyError, match="not one of"):
        choice({"s": "x"}, "s", ("as_seated", "random"))
    with pytest.raises(BodyError, match="not finite"):
        plain_data({"scores": [1, float("nan")]}, "data")
    with pytest.raises(BodyError, match="deeper than 4"):
        plain_data({"a": {"b": {"c": {"d": {"e": 1}}}}}, "data")


def test_random_mutations_raise_only_body_error():
    rng = random.Random(13)
    seeds = [b'{"hand_index": 0}', b'{"what": "scores", "reason": "r", "data": {"scores": [1, 2, 3, 4]}}',
             b'{"ruleset": "tenhou", "players": ["a", "b", "c", "d"]}']
    for _ in range(20000):
        raw = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 4)):
            op = rng.randrange(3)
            pos = rng.randrange(len(raw) + 1)
            if op == 0 and raw:
                raw[min(pos, len(raw) - 1)] = rng.randrange(256)
            elif op == 1:
                raw[pos:pos] = rng.choice([b"[", b"{", b"1e999", b"NaN", b'"', b"\\", b"\x00", b"-"])
            elif raw:
                del raw[min(pos, len(raw) - 1)]
        try:
            body = parse_body(bytes(raw))
        except BodyError as err:
            assert 400 <= err.status < 500
        else:
            assert isinstance(body, dict)
            json.dumps(body, allow_nan=False)   # whatever passes is storable


@pytest.mark.parametrize("command", ["replay", "demo"])
def test_a_deeply_nested_log_file_is_refused_without_a_traceback(tmp_path, command):
    import subprocess
    import sys
    path = tmp_path / "deep.json"
    path.write_text('{"log": ' + "[" * 200000 + "]" * 200000 + "}")
    args = [command, str(path)] if command == "replay" else [command, "--script", str(path)]
    proc = subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert str(path) in proc.stderr
