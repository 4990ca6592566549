"""The [procedures] table: defaults, every profile, and refusals that name the key."""

import pytest

from controller.rules import ruleset
from controller.rules.procedures import ProcedureError, ProcedureRules


def test_profiles_carry_their_procedures():
    expect = {
        "tenhou": ("136", 17, 7, "one_roll", "one_each", "ends_down"),
        "seed002": ("136", 17, 7, "one_roll", "one_each", "ends_down"),
        "sanma": ("108", 18, 9, "sanma", "one_each", "ends_down"),
        "hk": ("144", 18, 7, "hk_three_then_two", "jump", "two_down"),
        "chinese": ("136", 17, 10, "two_rolls_summed", "jump", "all_down"),
        "competition": ("144", 18, 7, "two_rolls_summed", "jump", "all_down"),
    }
    for name, values in expect.items():
        p = ruleset.load(name).procedures
        assert isinstance(p, ProcedureRules), name
        assert (p.tile_set, p.stacks_per_side, p.dead_wall_stacks, p.break_method, p.dealing,
                p.closed_kan_display) == values, name
    assert ruleset.load("chinese").procedures.dead_wall_stacks_after_kan == 7
    assert ruleset.load("competition").procedures.dead_wall_stacks_after_kan == 0
    assert ruleset.load("hk").procedures.refill_after == ("kan", "flower")
    assert ruleset.load("competition").procedures.hands_stay_standing


def test_defaults_are_the_riichi_table():
    p = ProcedureRules.from_table({})
    assert (p.n_tiles, p.walls, p.replacement_stacks, p.has_dora_indicator) == (136, 4, 2, True)


@pytest.mark.parametrize(
    ("table", "fragment"),
    [
        ({"stacks": 17}, "unknown key 'stacks'"),
        ({"break_method": "three_rolls"}, "'break_method' is 'three_rolls'"),
        ({"stacks_per_side": 18}, "144 tiles, but tile set '136' has 136"),
        ({"stacks_per_side": "17"}, "must be a whole number"),
        ({"has_dora_indicator": 1}, "true or false"),
        ({"refill_after": ["kan", "riichi"]}, "'refill_after' has 'riichi'"),
        ({"tile_set": "144", "stacks_per_side": 18}, "has flowers"),
        ({"walls": 3, "tile_set": "108", "stacks_per_side": 18}, "does not fit 3 walls"),
        ({"replacement_stacks": 7}, "no dead-wall stack is left for the dora indicator"),
        ({"dead_wall_stacks": 10, "dead_wall_stacks_after_kan": 7, "replacement_stacks": 7}, "shrinks"),
        ({"red_set": "aka7"}, "unknown red-five set"),
    ],
)
def test_bad_tables_are_refused_naming_the_problem(table, fragment):
    with pytest.raises(ProcedureError, match=fragment):
        ProcedureRules.from_table(table)


def test_a_bad_profile_fails_at_load():
    with pytest.raises(ProcedureError, match="unknown key 'dice'"):
        ruleset.from_toml('[procedures]\ndice = "one"\n', "bad")
