"""``tablectl enrol``: teach the classifier one tile set (``shared/contracts/classify.md``, "Enrolment").

    tablectl enrol DIR --out SET_FILE [--model M]
    tablectl enrol --camera DEVICE | --frame PICTURE [--out SET_FILE] [--sheet GRID.png] [--yes]
    tablectl enrol --add-confirmed [--set SET_FILE] [--out SET_FILE]
    (both: [--config TABLE.toml | --data DATA_DIR])

``DIR`` holds ``labels.csv`` (header ``file,label``) and the pictures it names. A missing or
malformed ``labels.csv``, an unknown label or an unreadable picture stops with a message naming
the file and line, exit status 2, and no set file written.

``--camera``/``--frame``: one picture of the enrolment mat (``tablectl markers`` prints it) with
a tile of each kind in its place; each place is cut out, a grid of the crops with their labels
is written (``--sheet``) for the staff to check, and after a yes (or ``--yes``) the set is saved
(default: the data folder's file ``[camera] tile_set`` names, else ``tile_set.json``; point the
key at it); the mat's pictures are kept beside it (``<set>_pictures/``, a ``DIR``: the daemon makes
the set again from them after a model update, ``vision.enrol.with_tile_set``). ``--add-confirmed`` adds
the crops the staff confirmed in play (``<data>/confirmed``) to the set in use and saves it again; where
the set kept its pictures, the added crops are kept with them.
Progress goes to standard error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vision.pictures import read_image

DEFAULT_SET_NAME = "tile_set.json"


class _Stop(ValueError):
    """Bad input: print the message and exit 2."""


def _progress(what: str, unit: str = ""):
    def show(done: int, total: int) -> None:
        print(f"enrol: {what} {done}/{total}{unit}", file=sys.stderr, flush=True)
    return show


def _from_dir(args, clf) -> tuple[list, str]:
    from vision.enrol import read_folder

    return read_folder(args.dir, _progress("read", " pictures")), f"enrol {Path(args.dir)}"


def _from_mat(args, clf) -> tuple[list, str]:
    import cv2

    from vision.enrol_mat import MatError, contact_sheet, cut_places, find_mat

    if args.frame:
        try:
            frame = read_image(args.frame)
        except OSError as err:
            raise _Stop(f"{args.frame}: {err}") from err
        source = f"mat picture {args.frame}"
    else:
        from vision.calibration_cli import _grab

        print(f"enrol: taking a picture with camera {args.camera}", file=sys.stderr, flush=True)
        frame = _grab(args.camera)
        if frame is None:
            raise _Stop(f"camera {args.camera} gave no frame")
        source = f"mat on camera {args.camera}"
    print("enrol: finding the mat", file=sys.stderr, flush=True)
    try:
        samples = cut_places(frame, find_mat(frame))
    except MatError as err:
        raise _Stop(str(err)) from err
    print(f"enrol: cut {len(samples)} places; reading them with the shipped model", file=sys.stderr, flush=True)
    guesses = clf.classify_voted([c for _k, c in samples])
    notes = [("" if g.tile == k else f"model: {g.tile}") for (k, _c), g in zip(samples, guesses, strict=True)]
    sheet = Path(args.sheet) if args.sheet else Path(args.out).with_name(Path(args.out).stem + "_sheet.png")
    cv2.imwrite(str(sheet), contact_sheet(samples, notes=notes))
    odd = [f"{i + 1} {k} ({n})" for i, ((k, _c), n) in enumerate(zip(samples, notes, strict=True)) if n]
    print(f"wrote {sheet}: check that each place holds the tile its label names"
          + (f"; the shipped model reads these otherwise: {', '.join(odd)}" if odd else ""))
    if not args.yes:
        try:
            answer = input("save the set with these labels? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            raise _Stop("not saved (answer yes, or pass --yes)")
    return samples, source


def _from_confirmed(args, clf) -> tuple[list, str]:
    from vision.confirmed import ConfirmedStore

    store = ConfirmedStore(Path(args.data) / "confirmed")
    samples = store.samples(per_kind=args.per_kind)
    if not samples:
        raise _Stop(f"{store.root}: no confirmed crops kept yet")
    print(f"enrol: {len(samples)} confirmed crops of {len({k for k, _ in samples})} kinds", file=sys.stderr)
    return samples, f"confirmed crops {store.root}"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tablectl enrol", description="Teach the classifier one tile set.")
    ap.add_argument("dir", nargs="?", metavar="DIR", help="folder with labels.csv and the pictures it names")
    ap.add_argument("--out", default=None, help="the set file to write (default with --camera/--frame/"
                    "--add-confirmed: DATA/tile_set.json)")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--camera", default=None, metavar="DEVICE", help="take one picture of the enrolment mat")
    src.add_argument("--frame", default=None, metavar="PICTURE", help="a picture of the enrolment mat")
    src.add_argument("--add-confirmed", action="store_true", help="add the crops staff confirmed in play")
    ap.add_argument("--set", default=None, help="with --add-confirmed: the set to add to (default: --out if it exists)")
    ap.add_argument("--per-kind", type=int, default=8, help="with --add-confirmed: newest crops per kind (default 8)")
    ap.add_argument("--data", default=None, help="the table's data folder (default: the one --config names)")
    ap.add_argument("--config", default=None, help="the table's config file, for its data folder and "
                    "[camera] tile_set (default: the embedded default config)")
    ap.add_argument("--sheet", default=None, help="the grid picture of the mat's crops (default OUT_sheet.png)")
    ap.add_argument("--yes", action="store_true", help="save without asking")
    ap.add_argument("--model", default=None, help="ONNX model file (default: the shipped model)")
    return ap


def main(command: str, argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from vision.classifier import DEFAULT_MODEL, ClassifierError, OnnxTileClassifier
    from vision.enrol import TileSet, TileSetError, build, model_sha256, save_set

    modes = sum(bool(x) for x in (args.dir, args.camera, args.frame, args.add_confirmed))
    if modes != 1:
        print(f"tablectl {command}: give DIR, or one of --camera, --frame, --add-confirmed", file=sys.stderr)
        return 2
    if args.dir and not args.out:
        print(f"tablectl {command}: --out SET_FILE is required with DIR", file=sys.stderr)
        return 2
    try:
        if args.data is None or (not args.out and not args.dir):
            from controller import config as config_mod
            cfg = config_mod.load(args.config)
            args.data = args.data or str(config_mod.data_dir(cfg))
            args.out = args.out or str(Path(args.data) / (cfg.camera.tile_set or DEFAULT_SET_NAME))
        args.out = args.out or str(Path(args.data) / DEFAULT_SET_NAME)
        clf = OnnxTileClassifier(args.model or DEFAULT_MODEL)
        base = base_path = None
        if args.dir:
            samples, source = _from_dir(args, clf)
        elif args.add_confirmed:
            base_path = Path(args.set or args.out)
            if base_path.exists():
                base = TileSet.load(base_path, model_sha256=model_sha256(clf.model_path))
            samples, source = _from_confirmed(args, clf)
        else:
            samples, source = _from_mat(args, clf)
        print(f"enrol: embedding {len(samples)} pictures", file=sys.stderr, flush=True)
        tile_set = build(clf, samples, progress=_progress("embedded"), source=source, base=base)
        # a folder keeps its pictures already; the added ones go beside the base's, where it kept them
        keep = None if args.dir or (args.add_confirmed and base is None) else samples
        saved = save_set(tile_set, args.out, keep, base_path=base_path)
        if saved.pictures is not None:
            print(f"kept the pictures in {saved.pictures} (the set is made again from them after a model update)")
        elif saved.not_kept:     # the set is saved; only the way to remake it without the mat is lost
            print(f"tablectl {command}: the pictures were not kept: {saved.not_kept}", file=sys.stderr)
    except (ClassifierError, TileSetError, OSError, ValueError) as err:
        print(f"tablectl {command}: {err}", file=sys.stderr)
        return 2
    print(f"wrote {saved.path}: {tile_set.describe()}")
    return 0
