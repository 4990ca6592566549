"""Rules-engine benchmark: waits, scoring and replay speed.

    python bench/rules.py [--quick]

The last line reads ``rules waits_us_median=X score_us_median=Y replay_hands_per_s=Z``
(targets: waits <= 50 us, replay >= 2000 hands/s). Medians are per call (perf_counter); the
replay rate is hands per second of this process's CPU time over the sample logs and
tests/data/tenhou (the wall-clock rate is printed on the line before).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.rules import tiles as T  # noqa: E402
from controller.rules.melds import parse_meld  # noqa: E402
from controller.rules.replay import replay_game  # noqa: E402
from controller.rules.scoring import score_win  # noqa: E402
from controller.rules.tenhou import load_log  # noqa: E402
from controller.rules.waits import waits  # noqa: E402

LOG_DIRS = [ROOT.parent / "shared" / "samples" / "tenhou", ROOT / "tests" / "data" / "tenhou"]


def _random_hands(n: int, rng: random.Random) -> list[list[str]]:
    """Near-tenpai 13-tile hands: a complete 14-tile hand minus one tile, plus random ones."""
    out = []
    pool = [k for k in T.KINDS_34 for _ in range(4)]
    while len(out) < n:
        if rng.random() < 0.5:
            rng.shuffle(pool)
            out.append(pool[:13])
            continue
        suit = rng.choice("mps")
        hand: list[str] = []
        for _ in range(4):
            if rng.random() < 0.6:
                s = rng.randint(1, 7)
                hand += [f"{s}{suit}", f"{s + 1}{suit}", f"{s + 2}{suit}"]
            else:
                hand += [f"{rng.randint(1, 9)}{suit}"] * 3
        hand += [f"{rng.randint(1, 9)}{suit}"] * 2
        counts = T.counts_34(hand)
        if max(counts) > 4:
            continue
        hand.pop(rng.randrange(14))
        out.append(hand)
    return out


def bench_waits(quick: bool) -> float:
    rng = random.Random(7)
    hands = _random_hands(300 if quick else 2000, rng)
    times = []
    for h in hands:
        t = time.perf_counter()
        waits(h)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def bench_score(quick: bool) -> float:
    cases = [
        (T.parse("234789m12345666p"), "6p", (), dict(is_tsumo=True, is_riichi=True)),
        (T.parse("123m456p789s22233z"), "3z", (), dict(is_riichi=True, dora_indicators=["4p"])),
        (T.parse("11123777888999m"), "1m", (), dict(is_tsumo=True)),
        (T.parse("111222333m99p"), "9p", ("chi:789s",), dict(is_tsumo=True)),
        (T.parse("1133557799m1122p"), "2p", (), dict()),
        (T.parse("19m19p19s12345677z"), "7z", (), dict()),
    ]
    times = []
    for _ in range(20 if quick else 200):
        for hand, win, melds, kw in cases:
            ms = [parse_meld(m) for m in melds]
            t = time.perf_counter()
            score_win(hand, win, ms, seat_wind="2z", **kw)
            times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def bench_replay(quick: bool) -> tuple[float, float]:
    """Hands replayed (JSON decode, parse, replay, scoring) per second of this process's CPU time,
    and per second of wall time. The CPU figure is the one reported: on a machine shared with
    other jobs the wall figure measures the neighbours as much as the engine."""
    texts = [(p.name, p.read_text()) for d in LOG_DIRS if d.is_dir() for p in sorted(d.glob("*.json"))]
    if not texts:
        return 0.0, 0.0
    hands = 0
    budget = 3.0 if quick else 15.0
    start = time.perf_counter()
    cpu = time.process_time()
    while time.process_time() - cpu < budget:
        for name, text in texts:
            game = load_log(text, name)
            hands += len(replay_game(game))
    return hands / (time.process_time() - cpu), hands / (time.perf_counter() - start)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="a short run (under a minute)")
    a = p.parse_args()
    w = bench_waits(a.quick)
    s = bench_score(a.quick)
    r, r_wall = bench_replay(a.quick)
    print(f"replay: {r:.0f} hands per CPU second, {r_wall:.0f} per wall second (shared machine)")
    print(f"rules waits_us_median={w:.1f} score_us_median={s:.1f} replay_hands_per_s={r:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
