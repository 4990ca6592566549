import dataclasses

import pytest

from controller.rules import ruleset
from controller.rules.ruleset import RuleSetError, from_toml, load


@pytest.mark.parametrize("name", ruleset.PROFILE_NAMES)
def test_every_profile_loads(name):
    rs = load(name)
    assert rs.name == name
    assert len(rs.uma) == rs.players or rs.family != "riichi"


def test_tenhou_and_seed002_differ_where_the_rulings_say():
    t, s = load("tenhou"), load("seed002")
    assert t.pao_yakuman == ("daisangen", "daisuushii")
    assert s.pao_yakuman == ("daisangen", "daisuushii", "suukantsu")
    assert (t.pao_other_yakuman, s.pao_other_yakuman) == ("all", "own")
    assert t.has_open_tanyao and not t.has_kiriage and not t.has_double_yakuman and t.has_multiple_yakuman
    assert t.red_fives == (1, 1, 1)


def test_sanma_numbers():
    rs = load("sanma")
    assert (rs.players, rs.start_points, rs.extension_target, rs.noten_total, rs.honba_ron) == (
        3, 35000, 40000, 2000, 200)
    assert rs.uma[1] == 0 and rs.uma[0] == -rs.uma[2]
    assert rs.north == "nukidora"


def test_unknown_key_is_refused_with_its_name():
    with pytest.raises(RuleSetError, match="'has_blue_dora'"):
        from_toml("[riichi]\nhas_blue_dora = true\n", "x")
    with pytest.raises(RuleSetError, match="'bogus'"):
        from_toml("[bogus]\na = 1\n", "x")


@pytest.mark.parametrize(("text", "needle"), [
    ("[riichi]\nkuikae = 'sometimes'\n", "kuikae"),
    ("[riichi]\nhas_kiriage = 1\n", "has_kiriage"),
    ("[settlement]\numa = [10, 5, -5, -5]\n", "uma"),
    ("[game]\nplayers = 5\n", "players"),
    ("[riichi]\nred_fives = [1, 1]\n", "red_fives"),
    ("not toml [", "TOML"),
])
def test_bad_values_are_refused(text, needle):
    with pytest.raises(RuleSetError, match=needle):
        from_toml(text, "x")


def test_unknown_profile():
    with pytest.raises(RuleSetError, match="unknown ruleset"):
        load("nope")


def test_extends_keeps_base_values_and_foreign_tables_are_kept():
    rs = from_toml('extends = "tenhou"\n[riichi]\nhas_kiriage = true\n[procedures]\n', "x")
    assert rs.has_kiriage and rs.has_open_tanyao
    assert rs.procedures is not None


def test_ruleset_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        load("tenhou").has_kiriage = True
