"""Does the rendered camera follow a recorded game? Frame by frame against the error-free reader.

    python -m hardware.sim.table_check [--model PATH] [--max-fails N] [--save DIR] GAME.json ...

plays each game on :class:`~hardware.sim.table.SimTable` (no MCU, no daemon: the walls and dice
are taken as the script says) and, at every point where ``tablectl demo`` takes frames, reads
the table twice: ``perfect_view`` of its state, and frames drawn by ``SceneRenderer`` read by
``TableReader`` with the tile model (voted as the demo votes: ``look_until_agreed``). Each
reading feeds its own :class:`~hardware.sim.table_eyes.ViewTracker`; the events must be the
same. A difference is printed (hand, action, events only the perfect reader saw, events only
the rendered one saw), the rendered tracker is put back in step, and the game goes on. The last
line: ``games=N clean=K frames=F fails=X``. Exit status 1 when any game differs.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields
from pathlib import Path

from hardware.sim import script as sim_script
from hardware.sim.table import VISIBLE_OPS, SimTable
from hardware.sim.table_eyes import ViewTracker, look_until_agreed, perfect_view
from hardware.sim.table_part import LOOKS, frame_breaks


def _key(event) -> tuple:
    return (type(event).__name__,) + tuple((f.name, getattr(event, f.name)) for f in fields(event) if f.name != "now")


class RenderedCheck:
    """One renderer and reader (one calibration) for any number of games."""

    def __init__(self, model: str | None = None) -> None:
        from hardware.sim.scene import SceneRenderer, TableState
        from vision.calibration import calibrate
        from vision.classifier import DEFAULT_MODEL, OnnxTileClassifier
        from vision.layout import load_profile
        from vision.reader import TableReader
        self.renderer = SceneRenderer(load_profile("riichi4"))
        calibration = calibrate(self.renderer.render(TableState(), seed=0), self.renderer.profile)
        self.reader = TableReader(self.renderer.profile, calibration,
                                  OnnxTileClassifier(model or DEFAULT_MODEL, threads=1))
        self.frames = 0

    def run(self, path: str | Path, *, max_fails: int = 3, save: Path | None = None) -> tuple[int, list[tuple]]:
        """Play ``path``; returns (looks, differences)."""
        table = SimTable(sim_script.load_script(str(path)))
        truth, seen = ViewTracker(), ViewTracker()
        fails: list[tuple] = []
        looks = 0

        def look() -> None:
            nonlocal looks
            state = table.snapshot()
            want = [_key(e) for e in truth.update(perfect_view(state))]
            frames: list = []

            def read():
                frames.append(self.renderer.render(state, seed=looks * 7 + len(frames)))
                return self.reader.read(frames[-1])

            got = [_key(e) for e in seen.update(look_until_agreed(read, LOOKS))]
            self.frames += len(frames)
            looks += 1
            if want != got:
                fails.append((table.hand_index, table.op_index, [e for e in want if e not in got],
                              [e for e in got if e not in want]))
                if save is not None:
                    import cv2
                    cv2.imwrite(str(save / f"{Path(path).stem}_{looks}.png"), frames[-1])
                # back in step with what the table did, so that one misreading is reported once
                seen.prev, seen.declared = truth.prev, set(truth.declared)
                seen.called = {k: list(v) for k, v in truth.called.items()}

        pending: list[dict] = []
        while not table.finished and len(fails) < max_fails:
            nxt = table.next_op()
            if nxt is not None and frame_breaks(pending, nxt):
                look()
                pending = []
                continue
            if table.waiting_for() == "lift_done":
                table.on_lift_done(tuple(table.lift_counts(table.prepare_lift())[1]))
            elif table.waiting_for() == "dice_result":
                table.on_dice(table.prepare_roll(0, 2))
            op = table.step()
            if op is None:
                continue
            if op["op"] == "press":
                truth.on_button(op["seat"], op["action"])
                seen.on_button(op["seat"], op["action"])
            if op["op"] in VISIBLE_OPS:
                pending.append(op)
            if op["op"] == "lift":
                look()
                pending = []
        if pending and len(fails) < max_fails:
            look()
        return looks, fails


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hardware.sim.table_check", description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="+", help="tenhou.net/6 JSON logs")
    ap.add_argument("--model", help="tile model (.onnx); default: the shipped one")
    ap.add_argument("--max-fails", type=int, default=3, help="differences per game before it stops (default 3)")
    ap.add_argument("--save", type=Path, help="folder for the frames that differed")
    args = ap.parse_args(argv)
    check = RenderedCheck(args.model)
    clean = fails_total = 0
    for game in args.games:
        t0 = time.monotonic()
        looks, fails = check.run(game, max_fails=args.max_fails, save=args.save)
        clean += not fails
        fails_total += len(fails)
        print(f"{Path(game).name}: looks={looks} fails={len(fails)} {time.monotonic() - t0:.1f}s", flush=True)
        for hand, action, only_perfect, only_rendered in fails:
            print(f"    hand {hand} action {action}: perfect {only_perfect} rendered {only_rendered}", flush=True)
    print(f"games={len(args.games)} clean={clean} frames={check.frames} fails={fails_total}")
    return 0 if clean == len(args.games) else 1


if __name__ == "__main__":
    sys.exit(main())
