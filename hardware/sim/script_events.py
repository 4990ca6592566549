"""The events a perfect firmware link and camera would report for a script (``events_of``), which
is how the game tracker is tested without the camera."""

from __future__ import annotations

from controller import events as ev
from hardware.sim.script_model import Script, ScriptError


def events_of(script: Script, *, start_now: float = 0.0, step_s: float = 0.5,
              ruleset: str | None = None) -> list[ev.Event]:
    """The events the firmware link and a perfect camera tracker would report for ``script``.

    Starts with the staff's StartGame (from the first hand's round, honba, sticks and scores).
    """
    out: list[ev.Event] = []
    now = start_now
    first = script.hands[0]
    out.append(ev.StartGame(ruleset=ruleset or script.ruleset, players=tuple(script.players), now=now,
                            red_fives=tuple(script.red_fives),
                            start_round=first.round, start_honba=first.honba, start_sticks=first.sticks,
                            start_scores=tuple(first.scores)))
    for hand in script.hands:
        heights: dict[tuple[int, int], int] = {}
        for slot, tile in hand.walls.items():
            heights[slot.stack_pos] = heights.get(slot.stack_pos, 0) + (tile is not None)
        standing = _Standing()
        for a in hand.actions:
            now += step_s
            out.extend(_events_of_action(a, heights, now))
            out.extend(standing.after(a, now))
    return out


class _Standing:
    """Each seat's standing tiles as the camera counts them from above; a seat whose hand fell short
    (``drop``) is reported (``HandCount``) whenever its count does not fit its melds."""

    def __init__(self) -> None:
        self.n = [0, 0, 0, 0]
        self.melds = [0, 0, 0, 0]
        self.dropped: set[int] = set()
        self.shown: set[int] = set()

    def after(self, a: dict, now: float) -> list[ev.Event]:
        op, seat = a["op"], a.get("seat")
        if seat is None or seat in self.shown:
            return []
        if op in ("take", "take_back"):
            self.n[seat] += 1
        elif op in ("discard", "drop", "flower", "nuki"):
            self.n[seat] -= 1
        elif op == "meld":
            kind = a["meld_kind"]
            self.n[seat] -= {"chi": 2, "pon": 2, "daiminkan": 3, "ankan": 4, "kakan": 1}.get(kind, 0)
            self.melds[seat] += kind != "kakan"
        elif op == "reveal":
            self.shown.add(seat)
            return []
        else:
            return []
        if op == "drop":
            self.dropped.add(seat)
        if seat in self.dropped and self.n[seat] + 3 * self.melds[seat] not in (13, 14):
            return [ev.HandCount(seat=seat, count=self.n[seat], now=now)]
        return []


def _events_of_action(a: dict, heights: dict[tuple[int, int], int], now: float) -> list[ev.Event]:
    op = a["op"]
    if op == "lift":
        out: list[ev.Event] = [ev.LiftDone(counts=tuple(a["counts"]), now=now)]
        out += [ev.WallBack(wall=b["wall"], stack=b["stack"], colour="other", now=now) for b in a["odd_backs"]]
        return out
    if op == "press":
        return [ev.Button(seat=a["seat"], action=a["action"], now=now)]
    if op == "dice":
        return [ev.DiceResult(seat=a["seat"], dice=tuple(a["dice"]), now=now)]
    if op in ("take", "refill"):
        pos = (a["wall"], a["stack"])
        heights[pos] -= 1
        return [ev.WallStackTaken(wall=a["wall"], stack=a["stack"], tiles_left=heights[pos], now=now)]
    if op == "discard":
        return [ev.Discard(seat=a["seat"], tile=a["tile"], is_riichi=a["is_riichi"],
                           is_tsumogiri=a["is_tsumogiri"], now=now)]
    if op == "take_back":
        return [ev.DiscardRemoved(seat=a["seat"], index=a["index"], tile=a["tile"], now=now)]
    if op == "meld":
        return [ev.Meld(seat=a["seat"], meld_kind=a["meld_kind"], tiles=tuple(a["tiles"]), called=a["called"],
                        source=a["source"], now=now)]
    if op == "stick":
        return [ev.RiichiStick(seat=a["seat"], now=now)]
    if op in ("flip", "swap_indicator"):
        return [ev.IndicatorRevealed(wall=a["wall"], stack=a["stack"], tile=a["tile"],
                                     is_ura=bool(a.get("is_ura", False)), now=now)]
    if op == "reveal":
        return [ev.HandRevealed(seat=a["seat"], tiles=tuple(a["tiles"]), win_tile=a["win_tile"], now=now)]
    if op == "drop":
        return []          # a tile fallen off a standing hand: only the count shows it (_Standing)
    if op == "flower":
        return [ev.FlowerSetAside(seat=a["seat"], tile=a["tile"], now=now)]
    if op == "nuki":
        return [ev.Meld(seat=a["seat"], meld_kind="nuki", tiles=(a["tile"],), now=now)]
    if op == "keep":
        return []          # a tile put in a pocket: nothing the firmware or the camera reports
    if op == "stacked":
        return [ev.StackReady(counts=tuple(a["counts"]), now=now)]
    raise ScriptError(f"unknown script action {op!r}")
