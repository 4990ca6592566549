"""``tablectl classify FILE [FILE ...] --json``: classify tile pictures with the shipped ONNX model.

``--set SET_FILE`` classifies with a tile set made by ``tablectl enrol`` (``vision/enrol.py``); a set
file that is missing, damaged or of another model version is refused (exit status 2).

The output follows ``shared/contracts/classify.md``: one JSON object per file, in input order,
``{"file", "tile", "confidence", "rotation"}`` (rotation omitted for ``none``), or
``{"file", "error"}`` for a file that cannot be read; exit status 1 if any file could not be
read, else 0. Without ``--json`` the same answers are printed as plain text.

A picture (any size, one tile roughly centred and filling most of it) is classified with
test-time voting: the picture turned 0/90/180/270 degrees, as it is and with a grey border,
the class probabilities averaged (see ``OnnxTileClassifier.classify_voted``).
"""

from __future__ import annotations

import argparse
import json
import sys

from vision.pictures import read_image


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tablectl classify",
                                 description="Classify tile pictures (one tile per picture) with the ONNX model.")
    ap.add_argument("files", nargs="+", metavar="FILE", help="PNG or JPEG pictures, one tile each")
    ap.add_argument("--json", action="store_true", help="one JSON object per line (the contract's format)")
    ap.add_argument("--model", default=None, help="ONNX model file (default: the shipped vision/models/tiles.onnx)")
    ap.add_argument("--min-confidence", type=float, default=None,
                    help="answer 'none' below this probability (default 0.4)")
    ap.add_argument("--no-vote", action="store_true", help="one pass per picture, no test-time voting")
    ap.add_argument("--set", default=None, metavar="SET_FILE",
                    help="a tile set made with 'tablectl enrol' (the classifier adapted to that set)")
    return ap


def main(command: str, argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from vision.classifier import DEFAULT_MODEL, ClassifierError, OnnxTileClassifier
    from vision.decode import MIN_CONFIDENCE

    try:
        clf = OnnxTileClassifier(args.model or DEFAULT_MODEL,
                                 min_confidence=MIN_CONFIDENCE if args.min_confidence is None else args.min_confidence)
        if args.set is not None:
            from vision.enrol import EnrolledClassifier, TileSet, model_sha256

            clf = EnrolledClassifier(clf, TileSet.load(args.set, model_sha256=model_sha256(clf.model_path)))
    except (ClassifierError, ValueError) as err:
        print(f"tablectl {command}: {err}", file=sys.stderr)
        return 2
    failed = False
    for path in args.files:
        try:
            img = read_image(path)
        except OSError as err:
            failed = True
            _emit(args.json, {"file": path, "error": f"cannot read image: {err}"})
            continue
        guess = (clf.classify([img]) if args.no_vote else clf.classify_voted([img]))[0]
        _emit(args.json, {"file": path, **guess.to_json()})
    return 1 if failed else 0


def _emit(as_json: bool, record: dict) -> None:
    if as_json:
        print(json.dumps(record), flush=True)
    elif "error" in record:
        print(f"{record['file']}: error: {record['error']}", flush=True)
    else:
        rot = f" rotation {record['rotation']}" if "rotation" in record else ""
        print(f"{record['file']}: {record['tile']} ({record['confidence']:.3f}){rot}", flush=True)
