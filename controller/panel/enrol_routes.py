"""The staff enrolment page: teach the classifier this table's tile set, see how well it reads.

``/staff/enrol`` (``static/enrol.html``). Staff routes, behind the staff token like the others:

    GET  /api/staff/enrol/status        the set in use, the job's progress, confirmed crops per
                                        kind, per-kind reading confidence per day
    POST /api/staff/enrol/capture       take the camera's picture of the enrolment mat, cut its
                                        places, read them with the shipped model (a job)
    GET  /api/staff/enrol/crop/{i}      place i's crop of the last capture (PNG)
    POST /api/staff/enrol/save          {"labels": [one label per place, "" to leave a place out]}:
                                        make the set, save it in the data folder, use it from now on
    POST /api/staff/enrol/add_confirmed add the crops confirmed in play to the set in use (a job)

The set is saved as ``[camera] tile_set`` names it in the data folder (``tile_set.json`` when
the key is empty: set the key to keep it in use after a restart; the page says so) and the
camera's reader switches to it at once.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

if TYPE_CHECKING:
    from controller.panel.facade import Table

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"


class EnrolJobs:
    """One enrolment job at a time, run on its own thread; its progress for the page."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.lock = threading.Lock()
        self.job: dict[str, Any] = {"state": "idle", "step": "", "done": 0, "total": 0, "message": ""}
        self.places: list[tuple[str, Any]] = []      # the last capture: (mat label, crop)
        self.reads: list[dict] = []

    # -- where things are
    def camera(self) -> Any | None:
        return self.table.camera()

    def data_dir(self) -> Path:
        return self.table.data_dir()

    def set_path(self) -> Path:
        return self.data_dir() / (self.table.tile_set_name or "tile_set.json")

    def base_classifier(self) -> Any:
        clf = self.camera().reader.classifier
        return getattr(clf, "base", clf)

    # -- jobs
    def start(self, name: str, work) -> bool:
        with self.lock:
            if self.job["state"] == "running":
                return False
            self.job = {"state": "running", "name": name, "step": "starting", "done": 0, "total": 0, "message": ""}
        threading.Thread(target=self._run, args=(work,), name=f"enrol-{name}", daemon=True).start()
        return True

    def _run(self, work) -> None:
        try:
            message = work()
            self._set(state="done", step="done", message=message)
        except Exception as err:  # noqa: BLE001 - the page shows why the job failed
            log.warning("enrolment job failed: %s", err)
            self._set(state="failed", message=str(err))

    def _set(self, **kw) -> None:
        with self.lock:
            self.job.update(kw)

    def progress(self, step: str):
        def show(done: int, total: int) -> None:
            self._set(step=step, done=done, total=total)
        return show

    def capture(self) -> str:
        import numpy as np

        from vision.enrol_mat import cut_places, find_mat

        self._set(step="taking the camera's picture")
        jpeg = self.camera().latest_jpeg()
        if not jpeg:
            raise RuntimeError("no camera picture yet")
        frame = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        self._set(step="finding the mat")
        places = cut_places(frame, find_mat(frame))
        self._set(step="reading the places", done=0, total=len(places))
        guesses = self.base_classifier().classify_voted([c for _k, c in places])
        self.places = places
        self.reads = [{"place": i + 1, "label": k, "read": g.tile, "confidence": round(g.confidence, 3)}
                      for i, ((k, _c), g) in enumerate(zip(places, guesses, strict=True))]
        odd = sum(r["read"] != r["label"] for r in self.reads)
        return f"{len(places)} places cut; {odd} read otherwise by the shipped model: check them"

    def save(self, labels: list[str]) -> str:
        from vision.enrol import build
        samples = [(lab, crop) for lab, (_k, crop) in zip(labels, self.places, strict=True) if lab]
        self._set(step="embedding", done=0, total=len(samples))
        ts = build(self.base_classifier(), samples, progress=self.progress("embedding"), source="staff page, mat")
        # the mat's pictures kept beside the set: it is made again from them after a model update
        return self._use(ts, samples, "the mat's pictures")

    def add_confirmed(self) -> str:
        from vision.confirmed import ConfirmedStore
        from vision.enrol import TileSet, build, model_sha256
        clf = self.base_classifier()
        samples = ConfirmedStore(self.data_dir() / "confirmed").samples()
        if not samples:
            raise RuntimeError("no confirmed crops kept yet")
        path = self.set_path()
        base = TileSet.load(path, model_sha256=model_sha256(clf.model_path)) if path.exists() else None
        ts = build(clf, samples, progress=self.progress("embedding"), source="confirmed crops", base=base)
        # beside the mat's: the set made again after a model update holds them too
        return self._use(ts, samples if base is not None else None, "the added pictures", base_path=path)

    def _use(self, ts, samples, what: str, *, base_path: Path | None = None) -> str:
        from vision.enrol import EnrolledClassifier, save_set
        saved = save_set(ts, self.set_path(), samples, base_path=base_path)
        part = self.camera()
        part.reader.classifier = EnrolledClassifier(self.base_classifier(), ts)
        if hasattr(part.reader, "_crop_cache"):
            part.reader._crop_cache.clear()   # answers of the old classifier must not be reused
        part.tile_set = f"{saved.path}: {ts.describe()}"
        keep = "" if self.table.tile_set_name else \
            f"; set [camera] tile_set = \"{saved.path.name}\" to keep it after a restart"
        used = f"saved {saved.path} and in use: {ts.describe()}{keep}"
        return f"{used}; {what} were not kept: {saved.not_kept}" if saved.not_kept else used


def enrol_routes(table: Table, gate) -> list[Route]:
    """The enrolment page's routes; mount them before the catch-all ``/api/staff/{action}``."""
    jobs = EnrolJobs(table)

    def refused(request: Request) -> Response | None:
        no = gate.check(request)
        if no is not None:
            return no
        if jobs.camera() is None:
            return JSONResponse({"error": "no camera on this table (camera source is off or simulated)"},
                                status_code=409)
        return None

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "enrol.html")

    async def status(request: Request) -> Response:
        no = gate.check(request)
        if no is not None:
            return no
        from vision.confirmed import ConfirmedStore
        part = jobs.camera()
        store = ConfirmedStore(jobs.data_dir() / "confirmed")
        with jobs.lock:
            job = dict(jobs.job)
        return JSONResponse({"tile_set": getattr(part, "tile_set", "") if part else "no camera",
                             "set_file": str(jobs.set_path()), "job": job, "places": jobs.reads,
                             "confirmed": store.counts(), "history": store.history()})

    async def capture(request: Request) -> Response:
        no = refused(request)
        if no is not None:
            return no
        if not jobs.start("capture", jobs.capture):
            return JSONResponse({"error": "an enrolment job is running"}, status_code=409)
        return JSONResponse({"ok": True})

    async def crop(request: Request) -> Response:
        no = gate.check(request)
        if no is not None:
            return no
        i = request.path_params["i"]
        if not 0 <= i < len(jobs.places):
            return JSONResponse({"error": f"no place {i} in the last capture"}, status_code=404)
        ok, png = cv2.imencode(".png", jobs.places[i][1])
        return Response(png.tobytes(), media_type="image/png", headers={"Cache-Control": "no-store"})

    async def save(request: Request) -> Response:
        no = refused(request)
        if no is not None:
            return no
        from controller.bodies import BodyError as BadRequest
        from controller.bodies import fields as _fields
        from controller.bodies import read_body as _json_body
        from vision.enrol import ENROL_KINDS
        try:
            body = await _json_body(request)
            _fields(body, ("labels",))
            labels = body["labels"]
            if not isinstance(labels, list) or len(labels) != len(jobs.places) or not jobs.places:
                raise BadRequest(f"field 'labels' must list one label per place of the last capture "
                                 f"({len(jobs.places)})")
            bad = [(i + 1, lab) for i, lab in enumerate(labels) if lab != "" and lab not in ENROL_KINDS]
            if bad:
                raise BadRequest(f"place {bad[0][0]}: unknown label {bad[0][1]!r}")
            if not any(labels):
                raise BadRequest("every place is left out: nothing to enrol")
        except BadRequest as err:
            return JSONResponse({"error": str(err)}, status_code=err.status)
        if not jobs.start("save", lambda: jobs.save(labels)):
            return JSONResponse({"error": "an enrolment job is running"}, status_code=409)
        return JSONResponse({"ok": True})

    async def add_confirmed(request: Request) -> Response:
        no = refused(request)
        if no is not None:
            return no
        if not jobs.start("add_confirmed", jobs.add_confirmed):
            return JSONResponse({"error": "an enrolment job is running"}, status_code=409)
        return JSONResponse({"ok": True})

    return [
        Route("/staff/enrol", page),
        Route("/api/staff/enrol/status", status),
        Route("/api/staff/enrol/capture", capture, methods=["POST"]),
        Route("/api/staff/enrol/crop/{i:int}", crop),
        Route("/api/staff/enrol/save", save, methods=["POST"]),
        Route("/api/staff/enrol/add_confirmed", add_confirmed, methods=["POST"]),
    ]
