"""``tablectl read FRAME --calibration FILE [--annotate OUT.png] [--profile riichi4] [--ruleset NAME] [--set SET_FILE]``.

Reads one table picture with the calibration and the shipped ONNX model and prints the table
view as one JSON object (walls: tiles per stack from stack 1 at each wall owner's right end;
indicators; rivers in order with sideways flags; melds with kind and source; revealed hands;
flowers; every tile with its confidence). ``--annotate`` draws what was read on the frame.
Without options a tile is read as from any set; ``--ruleset`` weighs each kind by its copies in
that rule set's tile set and ``--set`` uses a set file made by ``tablectl enrol``, as the daemon
does with ``[game] ruleset`` and ``[camera] tile_set``: so staff read a frame exactly as the table
does. Exit status 0, 1 for a picture, calibration, rule set or set file that cannot be used (the
message says why), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys

import cv2
import numpy as np

from vision.calibration import Calibration, CalibrationError
from vision.layout import Layout, ProfileError, VisionError, load_profile
from vision.reader import TableReader, TableView


def annotate(frame: np.ndarray, view: TableView, reader: TableReader) -> np.ndarray:
    """The frame with the stack counts on every wall slot and the tile names on what was read."""
    out = frame.copy()
    cam = reader.camera
    lay: Layout = reader.layout
    T = reader.profile.tile.thickness_mm

    def label(xy, z, text, colour):
        u, v = cam.project_xy(np.asarray(xy, float), z)
        cv2.putText(out, text, (int(u) - 7, int(v) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, text, (int(u) - 7, int(v) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)

    for wall, counts in view.walls.items():
        for i, n in enumerate(counts, start=1):
            label(lay.wall_slot(wall, i).centre, n * T, str(n), (0, 255, 255) if n else (0, 0, 255))
    for ind in view.indicators:
        label(lay.wall_slot(ind.wall, ind.stack).centre, 2 * T + 5, ind.tile.tile, (255, 0, 255))
    for seat, river in view.rivers.items():
        per = reader.profile.river.per_row
        for row in range(0, len(river), per):
            chunk = river[row:row + per]
            rects = lay.lay_row(lay.river_strip(seat, row // per), [t.is_sideways for t in chunk])
            for rc, t in zip(rects, chunk, strict=True):
                label(rc.centre, T, t.tile + ("*" if t.is_sideways else ""), (0, 255, 0))
    y = 20
    for seat, melds in view.melds.items():
        for m in melds:
            text = f"seat {seat}: {m.kind} {' '.join(t.tile for t in m.tiles)} from {m.source}"
            cv2.putText(out, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
            y += 18
    for seat, tiles in view.revealed.items():
        text = f"seat {seat} revealed: {' '.join(t.tile for t in tiles)}"
        cv2.putText(out, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
        y += 18
    return out


def _census(ruleset: str | None) -> dict[str, int] | None:
    """The tile census of the rule set ``ruleset`` (None: none given). Raises ValueError naming it."""
    if ruleset is None:
        return None
    from controller.rules.ruleset import RuleSetError, load
    from controller.rules.tilesets import TileSetError, census_for

    try:
        return census_for(load(ruleset))
    except (RuleSetError, TileSetError) as err:
        raise ValueError(f"--ruleset: {err}") from err


def main(command: str, argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog=f"tablectl {command}", description="Read one table picture as JSON.")
    ap.add_argument("frame", help="a picture taken by the calibrated table camera")
    ap.add_argument("--calibration", required=True, help="the file written by 'tablectl calibrate'")
    ap.add_argument("--profile", default=None, help="table profile (default: the one the calibration names)")
    ap.add_argument("--annotate", default=None, help="write the frame with what was read drawn on it")
    ap.add_argument("--model", default=None, help="ONNX model (default: the shipped vision/models/tiles.onnx)")
    ap.add_argument("--ruleset", default=None, metavar="NAME",
                    help="read as a table of this rule set does (each kind weighed by its copies in the set)")
    ap.add_argument("--set", default=None, metavar="SET_FILE", help="a tile set made with 'tablectl enrol'")
    args = ap.parse_args(argv)
    try:
        cal = Calibration.load(args.calibration)
        profile = load_profile(args.profile or cal.profile)
        frame = cv2.imread(args.frame, cv2.IMREAD_COLOR)
        if frame is None:
            print(f"tablectl {command}: cannot read the picture {args.frame}", file=sys.stderr)
            return 1
        from vision.classifier import DEFAULT_MODEL, ClassifierError, OnnxTileClassifier

        try:
            clf = OnnxTileClassifier(args.model or DEFAULT_MODEL)
            clf.play_set(_census(args.ruleset))
            if args.set is not None:
                from vision.enrol import EnrolledClassifier, TileSet, model_sha256

                clf = EnrolledClassifier(clf, TileSet.load(args.set, model_sha256=model_sha256(clf.model_path)))
        except (ClassifierError, ValueError) as err:
            print(f"tablectl {command}: {err}", file=sys.stderr)
            return 1
        reader = TableReader(profile, cal, clf)
        view = reader.read(frame)
    except (CalibrationError, ProfileError, VisionError) as err:
        print(f"tablectl {command}: {err}", file=sys.stderr)
        return 1
    print(json.dumps(view.to_json()))
    if args.annotate:
        cv2.imwrite(args.annotate, annotate(frame, view, reader))
    return 0
