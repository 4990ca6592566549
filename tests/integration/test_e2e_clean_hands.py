"""No alert at all over 200 clean simulated hands (issue 7), the game tracker fed by the test oracle.

Every recorded game of ``../shared/samples/tenhou/`` is acted out by the simulated table's own
driving thread (``SimTablePart._drive``: the table, the seat buttons on gpiozero mock pins, the
camera's frames voted on, the tracker), with three different dice rolls each (so other walls and
break points), into the daemon's ``Core`` (game tracker + table view). The MCU process is left
out here to play hundreds of hands quickly: the walls and dice the table sets up are reported
back as the MCU would. This is the tracker's check over many walls and dice; the product's own
path (the world met by the daemon's firmware, GPIO and camera parts, and a camera erring in some
frames) is played end to end in ``test_e2e_demo.py`` and ``test_e2e_world.py``.
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path

import pytest

from controller import events as ev
from controller.daemon import Core
from hardware.sim.table import SimTable
from hardware.sim.table_part import SimTablePart
from tests.integration.test_e2e_demo import SAMPLES, recorded

SEEDS = (0, 1, 2)


def play_in_core(path: Path, seed: int, *, camera_errors: float = 0.0) -> tuple[dict[int, dict], list[dict], int, int]:
    """Play ``path`` into a Core; return the view after each hand, every alert, the hands played and
    the frames the camera got wrong."""
    part = SimTablePart(path, speed=0, camera="perfect", seed=seed)
    part.misread_rate = camera_errors
    events: queue.Queue[ev.Event] = queue.Queue()
    part._post = lambda _source, event: events.put(event)
    part._setup_buttons()
    part.table = table = SimTable(part.script, press=part._press)
    core = Core("t1", "tenhou")
    h0 = part.script.hands[0]
    events.put(ev.StartGame(ruleset="tenhou", players=tuple(part.script.players), start_round=h0.round,
                            start_honba=h0.honba, start_sticks=h0.sticks, start_scores=tuple(h0.scores)))
    driver = threading.Thread(target=part._drive, daemon=True)
    driver.start()
    after: dict[int, dict] = {}
    alerts: list[dict] = []
    try:
        while driver.is_alive() or not events.empty():
            try:
                event = events.get(timeout=0.05)
            except queue.Empty:
                continue
            for command in core.apply(event):
                if isinstance(command, ev.Show):
                    part.handle(command)          # the display the simulated players look at
                if isinstance(command, ev.RaiseAlert):
                    alerts.append(ev.to_record(command.alert))
                elif isinstance(command, ev.Lift):
                    hand = table.prepare_lift()
                    if hand is not None:
                        counts = tuple(table.lift_counts(hand)[1])
                        events.put(ev.LiftDone(counts=counts))
                        table.on_lift_done(counts)
                elif isinstance(command, ev.RollDice):
                    dice = table.prepare_roll(command.seat, command.count)
                    events.put(ev.DiceResult(seat=command.seat, dice=dice))
                    table.on_dice(dice)
            last = core.game_state.last_result if hasattr(core.game_state, "last_result") else None
            if last is not None and last["hand"] not in after:
                after[last["hand"]] = core.view()
    finally:
        part._stop.set()
        driver.join(10)
        for button in part.buttons:
            button.close()
    assert not part.error, part.error
    return after, alerts, table.hand_index, part.misread_frames


def check_games(camera_errors: float) -> tuple[int, int]:
    hands = misread = 0
    for path in sorted(SAMPLES.glob("*.json")):
        expected, _final = recorded(path)
        for seed in SEEDS:
            after, alerts, played, wrong = play_in_core(path, seed, camera_errors=camera_errors)
            assert alerts == [], (path.name, seed, alerts)
            assert played == len(expected), (path.name, seed)
            for k, scores in enumerate(expected):
                assert after[k]["last_result"]["scores_after"] == scores, (path.name, seed, k)
            hands += played
            misread += wrong
    return hands, misread


def test_no_alert_over_200_clean_simulated_hands():
    if not SAMPLES.is_dir():
        pytest.fail(f"the recorded games {SAMPLES} are missing")
    hands, misread = check_games(0.0)
    assert hands >= 200 and misread == 0
