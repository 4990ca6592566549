import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.payments import WinPayment, nagashi_deltas, ron_amount, tsumo_payments, win_deltas
from controller.rules.ruleset import load
from controller.rules.scoring import base_points

TENHOU = load("tenhou")
SANMA = load("sanma")


def test_worked_payments_of_seed_002():
    # 70 fu 2 han non-dealer tsumo: 1200 · 2300
    assert tsumo_payments(base_points(2, 70, TENHOU)[0], winner=1, dealer=0, rules=TENHOU) == [-2300, 4700, -1200, -1200]
    # dealer tsumo 40 fu 4 han -> mangan: 4000 all
    assert tsumo_payments(base_points(4, 40, TENHOU)[0], winner=0, dealer=0, rules=TENHOU) == [12000, -4000, -4000, -4000]
    # non-dealer ron 9 han: 16000; dealer ron 15 han: 48000
    assert ron_amount(base_points(9, 30, TENHOU)[0], is_dealer=False) == 16000
    assert ron_amount(base_points(15, 30, TENHOU)[0], is_dealer=True) == 48000


def test_honba_examples():
    # 11600 at 1 honba is 11900; 3900 all at 3 honba is 4200 all; 2000·4000 at 2 honba is 2200·4200
    d = win_deltas([WinPayment(0, base_points(4, 30, TENHOU)[0] - 0, 2)], dealer=0, rules=TENHOU, honba=1)
    assert d[2] == -(11600 + 300)
    d = tsumo_payments(base_points(4, 30, TENHOU)[0], winner=0, dealer=0, rules=TENHOU, honba=3)
    assert d[1:] == [-4200, -4200, -4200]
    d = tsumo_payments(2000, winner=2, dealer=0, rules=TENHOU, honba=2)
    assert (d[0], d[1], d[3]) == (-4200, -2200, -2200)


def test_double_ron_sticks_and_honba_go_to_the_first_winner():
    d = win_deltas([WinPayment(2, 2000, 1), WinPayment(0, 640, 1)], dealer=3, rules=TENHOU, honba=1, sticks=2)
    # seat 2 is first counter-clockwise from discarder 1
    assert d == [2600, -(8000 + 300 + 2600), 8000 + 300 + 2000, 0]


def test_head_bump():
    rules = dataclasses.replace(TENHOU, double_ron="head_bump")
    d = win_deltas([WinPayment(2, 2000, 1), WinPayment(0, 640, 1)], dealer=3, rules=rules)
    assert d == [0, -8000, 8000, 0]


def test_pao_tsumo_liable_pays_all():
    # daisangen tsumo by seat 0 (non-dealer), seat 2 gave the third dragon
    d = win_deltas([WinPayment(0, 8000, None, pao_seat=2, pao_base=8000)], dealer=1, rules=TENHOU, honba=1)
    assert d == [32300, 0, -32300, 0]


def test_pao_ron_by_a_third_player_splits_half_and_half():
    d = win_deltas([WinPayment(0, 8000, 3, pao_seat=2, pao_base=8000)], dealer=1, rules=TENHOU, honba=1)
    assert d == [32300, 0, -16300, -16000]


def test_pao_own_share_only_under_seed002():
    # double yakuman (daisangen + tsuuiisou), ron by seat 3, seat 2 liable for daisangen only
    d = win_deltas([WinPayment(0, 16000, 3, pao_seat=2, pao_base=8000)], dealer=1, rules=load("seed002"))
    assert d == [64000, 0, -16000, -48000]


def test_nagashi_mangan_no_honba():
    assert nagashi_deltas([1], dealer=1, rules=TENHOU) == [-4000, 12000, -4000, -4000]
    assert nagashi_deltas([0, 2], dealer=1, rules=TENHOU) == [8000 - 2000, -4000 - 4000, -2000 + 8000, -2000 - 2000]


def test_sanma_without_tsumo_loss_splits_the_north_share():
    # non-dealer mangan tsumo: a + a/2 = 3000 and 2a + a/2 = 5000
    assert tsumo_payments(2000, winner=1, dealer=0, rules=SANMA) == [-5000, 8000, -3000]
    assert tsumo_payments(2000, winner=0, dealer=0, rules=SANMA) == [12000, -6000, -6000]
    with_loss = dataclasses.replace(SANMA, has_tsumo_loss=True)
    assert tsumo_payments(2000, winner=1, dealer=0, rules=with_loss) == [-4000, 6000, -2000]


@settings(deadline=None)
@given(st.integers(1, 13), st.sampled_from([20, 25, 30, 40, 50, 70, 110]), st.integers(0, 3),
       st.integers(0, 3), st.integers(0, 8), st.integers(0, 6), st.booleans())
def test_payments_balance_with_the_sticks(han, fu, winner, dealer, honba, sticks, tsumo):
    base = base_points(han, fu, TENHOU)[0]
    discarder = None if tsumo else (winner + 1) % 4
    d = win_deltas([WinPayment(winner, base, discarder)], dealer=dealer, rules=TENHOU, honba=honba, sticks=sticks)
    assert sum(d) == sticks * 1000
    assert d[winner] > 0 and all(x % 100 == 0 for x in d)


@settings(deadline=None)
@given(st.integers(1, 12), st.integers(1, 12))
def test_points_never_drop_as_han_rises(h1, h2):
    lo, hi = sorted((h1, h2))
    assert base_points(lo, 30, TENHOU)[0] <= base_points(hi, 30, TENHOU)[0]


def test_pao_liability_rulings_examples():
    from controller.rules.melds import Meld
    from controller.rules.replay import pao_liability

    dragons = [Meld("pon", ("5z",) * 3, "5z", 0), Meld("kan", ("7z",) * 4, "7z", 2)]
    assert pao_liability(dragons + [Meld("pon", ("6z",) * 3, "6z", 3)], TENHOU) == ("daisangen", 3)
    winds = [Meld("pon", (w,) * 3, w, 1) for w in ("1z", "2z", "3z")]
    assert pao_liability(winds + [Meld("pon", ("4z",) * 3, "4z", 2)], TENHOU) == ("daisuushii", 2)
    assert pao_liability(winds, TENHOU) is None
    kans = [Meld("ankan", ("1m",) * 4), Meld("ankan", ("2m",) * 4), Meld("kan", ("3m",) * 4, "3m", 0)]
    fourth = kans + [Meld("kan", ("4m",) * 4, "4m", 1)]
    assert pao_liability(fourth, TENHOU) is None
    assert pao_liability(fourth, load("seed002")) == ("suukantsu", 1)


@settings(deadline=None)
@given(st.integers(0, 3), st.lists(st.sampled_from([1000, 2000, 3000, 8000, 16000]), min_size=1, max_size=3),
       st.integers(0, 5), st.integers(0, 4), st.integers(0, 3), st.booleans())
def test_multiple_rons_with_pao_balance_with_the_sticks(discarder, bases, honba, sticks, dealer, head_bump):
    rules = dataclasses.replace(TENHOU, double_ron="head_bump" if head_bump else "all")
    winners = [(discarder + 1 + i) % 4 for i in range(len(bases))]
    wins = [WinPayment(w, b, discarder, pao_seat=(w + 1) % 4 if b >= 8000 and (w + 1) % 4 != w else None,
                       pao_base=b if b >= 8000 else 0) for w, b in zip(winners, bases, strict=True)]
    d = win_deltas(wins, dealer=dealer, rules=rules, honba=honba, sticks=sticks)
    assert sum(d) == sticks * 1000
    assert all(x % 100 == 0 for x in d)
    first = winners[0]
    assert d[first] >= sticks * 1000
