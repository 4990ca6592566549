"""The simulated table performing a scripted game physically.

``hardware.sim.script`` turns a tenhou.net/6 log into per-hand scripts of physical actions
(``lift``, ``press``, ``dice``, ``take``, ``refill``, ``discard``, ``take_back``, ``meld``,
``stick``, ``flip``, ``swap_indicator``, ``reveal``; ``flower`` and ``nuki``, a tile set aside
face up; for injected faults also ``keep``, a tile kept back after the hand, ``drop``, a standing
tile fallen off the table, and ``stacked``, the lane counts of the set built again).
:class:`SimTable` owns the physical table and applies those actions one at a time:

- what lies on the table is kept in a ``hardware.sim.scene.TableState`` (walls with 2/1/0
  tiles a stack, face-up indicators, rivers with sideways riichi tiles, melds with the called
  tile sideways, standing and revealed hands), which the rendered camera draws;
- what the MCU does (raising the walls with their per-wall counts, the dice it shows) is set
  on the simulated MCU through its simulator-only control hooks (``lift_counts``, ``dice``;
  hardware/PROTOCOL.md "Simulator control") just before the host's command reaches it, and the
  table waits for the MCU's completion (``lift_done``, ``dice_result``) as a real table would;
- declarations are made on the seat buttons (``press(seat, action)``: gpiozero mock pins).

The table never talks to the daemon: the daemon learns what happened from the MCU link, the
buttons and the camera only. Seats are table positions and the log's seat order alike (the
first dealer sits at position 0); wall stacks are 1-based in the script (``controller.rules.walls``)
and in the scene's indicators and other backs (a wall's ``counts`` list is indexed from 0).

Threading: one thread drives :meth:`step`; :meth:`snapshot` (the camera) and the MCU hooks
(:meth:`prepare_lift`, :meth:`prepare_roll`, :meth:`on_lift_done`, :meth:`on_dice`) may be
called from other threads.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.rules.ruleset import RuleSetError
from controller.rules.ruleset import load as load_rules
from hardware.sim.scene import MeldShape, TableState
from hardware.sim.script import HandScript, Script
from vision.layout import sideways_index_for

log = logging.getLogger(__name__)

STACKS = 17
OTHER_BACK = "yellow"     # the back colour of the other set (the table's own set is blue)
OPS = ("lift", "press", "dice", "take", "refill", "discard", "take_back", "meld", "stick", "flip",
       "swap_indicator", "reveal", "keep", "stacked", "drop", "flower", "nuki")
# Actions the camera sees (the others are buttons or MCU motion).
VISIBLE_OPS = frozenset({"lift", "take", "refill", "discard", "take_back", "meld", "flip", "swap_indicator",
                         "reveal", "drop", "flower", "nuki"})


class SimTableError(RuntimeError):
    """The table cannot perform the script (an action that does not fit what lies on the table)."""


@dataclass
class _SeatTable:
    """What one seat has in front of it (kept beside the scene for the melds' bookkeeping)."""

    melds: list[dict] = field(default_factory=list)      # {"kind", "tiles" (scene order), "sideways", "added"}
    called: list[bool] = field(default_factory=list)     # per discard made: taken by a call (left the river)
    riichi_called: bool = False                           # its sideways riichi tile was called: mark the next one


class SimTable:
    """Performs ``script`` physically, one action per :meth:`step`.

    ``control(cmd, **args)``: the simulated MCU's control hook (``SimMcuProcess.control``), or
    None to run without an MCU (tests of the table alone). ``press(seat, action)``: presses and
    releases a seat button (the mock pins), or None.
    """

    def __init__(self, script: Script, *, control: Callable[..., dict] | None = None,
                 press: Callable[[int, str], None] | None = None, stacks: int | None = None) -> None:
        if not script.hands:
            raise SimTableError(f"{script.source}: the script has no hands")
        n_walls = 4
        try:      # the walls of the script's rules (17 stacks; 18 for a set with flowers; three in sanma)
            procedures = load_rules(script.ruleset).procedures
            n_walls = procedures.walls
            stacks = procedures.stacks_per_side if stacks is None else stacks
        except RuleSetError:
            stacks = STACKS if stacks is None else stacks
        self.script = script
        self.control = control
        self.press = press
        self.stacks = stacks
        self.n_walls = n_walls
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self.scene = TableState()
        self.hand_index = 0
        self.op_index = 0
        self.seats = [_SeatTable() for _ in range(4)]
        self.lifts_prepared = 0       # hands whose walls were set on the MCU
        self.lifts_done = 0           # lift_done reports seen
        self.rolls_done = 0           # dice results seen (one roll per hand in riichi, two in hk and chinese)
        self.dice_stepped = 0         # the script's dice actions performed
        self._rolls = [tuple(a["dice"]) for h in script.hands for a in h.actions if a["op"] == "dice"]
        self.last_dice: tuple[int, ...] | None = None
        self.last_lift: tuple[int, ...] | None = None
        self.applied = 0
        self.declared: set[int] = set()   # seats that pressed tsumo/ron in this hand
        self.odd_backs: set[tuple[int, int]] = set()   # (wall, stack 1-based) showing the other set's back
        self.kept: list[tuple[int, int, str]] = []      # (hand, seat, tile) kept back off the table after a hand
        self.stacked: list[tuple[int, tuple[int, ...]]] = []   # (hand, lane counts) of the sets built again
        self.dropped: list[tuple[int, int, str]] = []   # (hand, seat, tile) fallen off a standing hand

    # ------------------------------------------------------------------ progress
    @property
    def hand(self) -> HandScript:
        return self.script.hands[self.hand_index]

    @property
    def finished(self) -> bool:
        return self.hand_index >= len(self.script.hands)

    def next_op(self) -> dict | None:
        """The action :meth:`step` performs next (None once the script is done)."""
        if self.finished:
            return None
        return self.hand.actions[self.op_index]

    def waiting_for(self) -> str | None:
        """What the next action waits for from the MCU (``"lift_done"``, ``"dice_result"``), or None."""
        with self._lock:
            return self._waiting_locked()

    def wait_ready(self, timeout_s: float) -> bool:
        """Block until the next action is not waiting for the MCU (True), or ``timeout_s`` passed."""
        with self._cond:
            return self._cond.wait_for(lambda: self._waiting_locked() is None, timeout=timeout_s)

    def _waiting_locked(self) -> str | None:
        if self.finished:
            return None
        op = self.hand.actions[self.op_index]
        if op["op"] == "lift" and self.lifts_done <= self.hand_index:
            return "lift_done"
        if op["op"] == "dice" and self.rolls_done <= self.dice_stepped:
            return "dice_result"
        return None

    def step(self) -> dict | None:
        """Perform the next action and return it; None when the script is done or the MCU is awaited."""
        if self.finished or self.waiting_for() is not None:
            return None
        op = self.hand.actions[self.op_index]
        self._apply(op)
        self.applied += 1
        self.op_index += 1
        if self.op_index >= len(self.hand.actions):
            self.hand_index += 1
            self.op_index = 0
        return op

    def snapshot(self) -> TableState:
        """A copy of what lies on the table now (for the camera)."""
        with self._lock:
            return self.scene.copy()

    # ------------------------------------------------------------------ MCU side (any thread)
    def lift_counts(self, hand: int) -> tuple[list[int], list[int]]:
        """Stacks and tiles per wall that the MCU counts when it raises ``hand``'s walls."""
        h = self.script.hands[hand]
        stacks, tiles = [0] * self.n_walls, [0] * self.n_walls
        for seat in range(self.n_walls):
            # a wall may rise with a stack too many (an injected stack_count): the MCU counts it too
            last = max([self.stacks] + [slot.stack for slot, tile in h.walls.items()
                                        if slot.seat == seat and tile is not None])
            for k in range(1, last + 1):
                n = sum(1 for layer in (WL.UPPER, WL.LOWER) if h.walls.get(WL.WallSlot(seat, k, layer)) is not None)
                tiles[seat] += n
                stacks[seat] += n > 0
        lift = h.actions[0] if h.actions and h.actions[0]["op"] == "lift" else None
        if lift is not None and list(lift["counts"]) != tiles:
            log.warning("sim table: hand %d lift counts %s differ from its walls %s", hand, lift["counts"], tiles)
        return stacks, tiles

    def prepare_lift(self) -> int | None:
        """Before the host's ``lift`` reaches the MCU: set the counts of the next hand's walls.

        Returns the hand prepared (None when the script has no hand left)."""
        with self._lock:
            hand = self.lifts_prepared
            if hand >= len(self.script.hands):
                return None
            self.lifts_prepared += 1
        stacks, tiles = self.lift_counts(hand)
        if self.control is not None:
            self.control("lift_counts", stacks=stacks, tiles=tiles)
        return hand

    def prepare_roll(self, seat: int, count: int) -> tuple[int, ...] | None:
        """Before the host's ``roll_dice`` reaches the MCU: queue the values the script's roll shows."""
        with self._lock:
            done = self.rolls_done
        if done >= len(self._rolls):
            return None
        dice = self._rolls[done]
        if dice is None or len(dice) != count:
            return None
        if self.control is not None:
            self.control("dice", values=[list(dice)])
        return dice

    def on_lift_done(self, tiles: tuple[int, ...]) -> None:
        """The MCU reported the walls up (any thread)."""
        with self._cond:
            if self.lifts_done < len(self.script.hands) and self.lifts_done < self.lifts_prepared:
                self.lifts_done += 1
            self.last_lift = tuple(tiles)
            self._cond.notify_all()

    def on_dice(self, dice: tuple[int, ...]) -> None:
        """The MCU reported a dice result (any thread)."""
        with self._cond:
            self.rolls_done += 1
            self.last_dice = tuple(dice)
            self._cond.notify_all()

    # ------------------------------------------------------------------ actions
    def _apply(self, op: dict) -> None:
        kind = op.get("op")
        fn = getattr(self, f"_op_{kind}", None)
        if kind not in OPS or fn is None:
            raise SimTableError(f"hand {self.hand_index}: unknown action {kind!r}")
        if kind in VISIBLE_OPS:
            with self._lock:
                fn(op)
        else:
            fn(op)

    def _where(self) -> str:
        return f"hand {self.hand_index} action {self.op_index}"

    def _op_lift(self, op: dict) -> None:
        """The old hand is pushed into the centre; the new walls stand as the MCU raised them."""
        h = self.hand
        walls: dict[int, list[int]] = {}
        for seat in range(self.n_walls):
            # the camera's wall slots: a stack too many (an injected stack_count) stands past them,
            # untouched all hand; the MCU's lift count has it (lift_counts)
            walls[seat] = [sum(1 for layer in (WL.UPPER, WL.LOWER)
                               if h.walls.get(WL.WallSlot(seat, k, layer)) is not None)
                           for k in range(1, self.stacks + 1)]
        # tiles of the other set standing in the walls show the other set's back colour
        self.odd_backs = {(b["wall"], b["stack"]) for b in op.get("odd_backs", ())}
        self.scene = TableState(walls=walls, back_colour=self.scene.back_colour,
                                other_backs={slot: OTHER_BACK for slot in self.odd_backs})
        self.seats = [_SeatTable() for _ in range(4)]
        self.declared = set()

    def _op_press(self, op: dict) -> None:
        if op["action"] in ("tsumo", "ron"):
            self.declared.add(op["seat"])
        if self.press is not None:
            self.press(op["seat"], op["action"])

    def _op_dice(self, op: dict) -> None:
        self.dice_stepped += 1
        if self.last_dice is not None and tuple(op["dice"]) != self.last_dice:
            raise SimTableError(f"{self._where()}: the MCU showed dice {self.last_dice}, the script rolls "
                                f"{tuple(op['dice'])}")

    def _take_from(self, wall: int, stack: int) -> None:
        counts = self.scene.walls.get(wall)
        if counts is None or not 1 <= stack <= len(counts) or counts[stack - 1] <= 0:
            raise SimTableError(f"{self._where()}: no tile left at wall {wall} stack {stack}")
        counts[stack - 1] -= 1
        if counts[stack - 1] == 0:
            self.scene.indicators.pop((wall, stack), None)
            self.scene.other_backs.pop((wall, stack), None)

    def _op_take(self, op: dict) -> None:
        self._take_from(op["wall"], op["stack"])
        seat = op["seat"]
        self.scene.standing[seat] = self.scene.standing.get(seat, 0) + 1

    def _op_refill(self, op: dict) -> None:
        self._take_from(op["wall"], op["stack"])

    def _op_discard(self, op: dict) -> None:
        seat = op["seat"]
        table = self.seats[seat]
        sideways = bool(op["is_riichi"]) or table.riichi_called
        table.riichi_called = False
        self.scene.rivers.setdefault(seat, []).append((op["tile"], sideways))
        table.called.append(False)
        self.scene.standing[seat] = max(0, self.scene.standing.get(seat, 0) - 1)

    def _op_take_back(self, op: dict) -> None:
        seat, index = op["seat"], op["index"]      # index: among all the seat's discards, called ones too
        table = self.seats[seat]
        river = self.scene.rivers.get(seat, [])
        place = index - sum(table.called[:index]) if 0 <= index < len(table.called) else -1
        if place < 0 or table.called[index] or place >= len(river) or T.plain(river[place][0]) != T.plain(op["tile"]):
            raise SimTableError(f"{self._where()}: seat {seat} has no {op['tile']} as its discard {index}")
        river.pop(place)
        table.called.pop(index)
        self.scene.standing[seat] = self.scene.standing.get(seat, 0) + 1

    def _op_meld(self, op: dict) -> None:
        seat, kind, tiles = op["seat"], op["meld_kind"], list(op["tiles"])
        table = self.seats[seat]
        standing = self.scene.standing.get(seat, 0)
        if kind in ("chi", "pon", "daiminkan"):
            src, called = op["source"], op["called"]
            river = self.scene.rivers.get(src, [])
            if not river or river[-1][0] != called:
                raise SimTableError(f"{self._where()}: seat {seat} calls {called} but seat {src}'s last discard is "
                                    f"{river[-1][0] if river else 'none'}")
            _tile, was_sideways = river.pop()
            src_called = self.seats[src].called
            src_called[max(i for i, c in enumerate(src_called) if not c)] = True
            if was_sideways:
                self.seats[src].riichi_called = True
            rest = list(tiles)
            rest.remove(called)
            rest = T.sorted_tiles(rest) if kind == "chi" else rest
            side = sideways_index_for(seat, src, len(tiles), self.n_walls)
            shown = rest[:side] + [called] + rest[side:]
            table.melds.append({"kind": kind, "tiles": shown, "sideways": side, "added": None})
            standing -= len(tiles) - 1
        elif kind == "ankan":
            inner = sorted(tiles, key=lambda t: not T.is_red(t))    # a red five shows face up
            shown = ["back", inner[0], inner[1], "back"]
            table.melds.append({"kind": kind, "tiles": shown, "sideways": None, "added": None})
            standing -= 4
        elif kind == "kakan":
            added = op["called"]
            meld = next((m for m in table.melds if m["kind"] == "pon"
                         and T.plain(m["tiles"][0]) == T.plain(added)), None)
            if meld is None:
                raise SimTableError(f"{self._where()}: seat {seat} adds {added} to a pon it has not laid out")
            meld["kind"], meld["added"] = "kakan", added
            standing -= 1
        else:
            raise SimTableError(f"{self._where()}: unknown meld kind {kind!r}")
        self.scene.standing[seat] = max(0, standing)
        self.scene.melds[seat] = [MeldShape(tuple(m["tiles"]), m["sideways"], m["added"]) for m in table.melds]

    def _op_keep(self, op: dict) -> None:
        """After the hand a player keeps a tile back instead of pushing it into the centre (a
        standing tile, or one of its hand laid down): the set goes back one short."""
        with self._lock:
            seat, tile = op["seat"], op["tile"]
            shown = self.scene.revealed.get(seat)
            if shown and tile in shown:
                shown.remove(tile)
            elif self.scene.standing.get(seat, 0) > 0:
                self.scene.standing[seat] -= 1
            else:
                raise SimTableError(f"{self._where()}: seat {seat} has no {tile} to keep back")
            self.kept.append((self.hand_index, seat, tile))

    def _op_stacked(self, op: dict) -> None:
        """The machine built the returned set again (in the background): its lane counts. The MCU's
        own shuffle reports them (a count off by one is its ``lane_count`` fault, hardware/PROTOCOL.md);
        the table only notes what the set came back as."""
        with self._lock:
            self.stacked.append((self.hand_index, tuple(op["counts"])))

    def _op_stick(self, op: dict) -> None:
        """The riichi stick goes down at the seat's stick place (the game settles deposits from the
        declaration; the camera sees the stick)."""
        with self._lock:
            self.scene.sticks.add(op["seat"])

    def _op_flip(self, op: dict) -> None:
        wall, stack = op["wall"], op["stack"]
        counts = self.scene.walls.get(wall)
        if counts is None or counts[stack - 1] <= 0:
            raise SimTableError(f"{self._where()}: nothing to turn at wall {wall} stack {stack}")
        # an ura indicator: the dora indicator is lifted aside and the tile below turned in its place
        self.scene.indicators[(wall, stack)] = op["tile"]

    def _op_swap_indicator(self, op: dict) -> None:
        key = (op["wall"], op["stack"])
        if key not in self.scene.indicators:
            raise SimTableError(f"{self._where()}: no indicator at wall {op['wall']} stack {op['stack']} to swap")
        self.scene.indicators[key] = op["tile"]

    def _op_reveal(self, op: dict) -> None:
        seat = op["seat"]
        tiles = list(op["tiles"])
        win = op.get("win_tile")
        if win is not None and win in tiles:
            tiles.remove(win)
            tiles = T.sorted_tiles(tiles) + [win]     # the winning tile set apart at the right end
            self.scene.win_apart.add(seat)
        else:
            tiles = T.sorted_tiles(tiles)
        self.scene.revealed[seat] = tiles
        self.scene.standing.pop(seat, None)

    def _op_drop(self, op: dict) -> None:
        """A standing tile falls off the table (a wrong-size hand: 12 stand where 13 belong)."""
        seat = op["seat"]
        if self.scene.standing.get(seat, 0) <= 0:
            raise SimTableError(f"{self._where()}: seat {seat} has no standing tile to drop")
        self.scene.standing[seat] -= 1
        self.dropped.append((self.hand_index, seat, op["tile"]))

    def _op_flower(self, op: dict) -> None:
        """A flower or season (or, in three-player, a north: ``nuki``) taken out of the standing
        hand and set aside face up in the seat's flower place."""
        seat = op["seat"]
        if self.scene.standing.get(seat, 0) <= 0:
            raise SimTableError(f"{self._where()}: seat {seat} has no standing tile to set aside")
        self.scene.standing[seat] -= 1
        self.scene.flowers.setdefault(seat, []).append(op["tile"])

    _op_nuki = _op_flower


def frame_breaks(pending: list[dict], nxt: dict) -> bool:
    """Whether the camera must take a frame before ``nxt`` is done (``pending``: visible actions since
    the last frame). Several takes share a frame (the deal), and a draw with its discard; anything
    else gets a frame of its own so that the tracker sees each change in order."""
    if not pending:
        return False
    if nxt["op"] not in VISIBLE_OPS:
        return True
    if nxt["op"] == "take":
        return not all(p["op"] == "take" for p in pending)
    if nxt["op"] == "discard":
        return not (len(pending) == 1 and pending[0]["op"] == "take" and pending[0]["seat"] == nxt["seat"])
    return True
