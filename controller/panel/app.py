"""The panel's routes.

Public, read-only (no token): ``/`` the table display, ``/staff`` the staff page (its
actions need the token), ``/static/...``, ``GET /api/state`` (contracts/table-api.md) and the
WebSocket ``/ws`` that pushes ``{"type": "state", "version", "seq", "t_wall", "state"}`` on
every change (anything a client sends on it is ignored).

Staff, behind ``Authorization: Bearer TOKEN`` (or ``X-Staff-Token``), compared in constant
time; a client with too many failures in the window gets 429 for every staff request until
the window has passed, the right token included. Each action becomes one staff event,
submitted to the daemon's loop (committed, applied, then answered):

    POST /api/staff/start_game  {"ruleset", "players": [4 names], "seating": "as_seated"|"random"}
    POST /api/staff/confirm     {"hand_index"}
    POST /api/staff/correct     {"what", "reason", "data": {...}}
    POST /api/staff/declare     {"seat", "action", "reason"}
    POST /api/staff/void_hand   {"reason"}
    POST /api/staff/reset       {"reason"}
    GET  /api/staff/status      machine status, faults, parts
    GET  /api/staff/calibration.jpg   the camera's current picture
    GET  /api/staff/evidence/NAME     an alert's evidence frame

A malformed request (bad JSON, unknown or missing field, wrong type, bad tile) gets 400 and
changes nothing.
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from controller import events as ev
from controller import staff_actions as STAFF
from controller.panel.evidence import evidence_for_alert
from controller.panel.staff_view import staff_extras

if TYPE_CHECKING:
    from controller.daemon import Daemon

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
PROFILES = Path(__file__).resolve().parent.parent / "rules" / "profiles"
MAX_BODY_BYTES = 64 * 1024
SEATINGS = ("as_seated", "random")


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def rulesets() -> list[str]:
    """Ruleset profiles this build knows (``controller/rules/profiles/*.toml``)."""
    return sorted(p.stem for p in PROFILES.glob("*.toml")) if PROFILES.is_dir() else []


class StaffGate:
    """Token check in constant time, with a per-client failure limit."""

    def __init__(self, token: str, *, max_failures: int, window_s: float,
                 clock=time.monotonic) -> None:
        self._token = token.encode("utf-8")
        self.max_failures, self.window_s, self.clock = max_failures, window_s, clock
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, client: str) -> deque[float]:
        q = self._failures.setdefault(client, deque())
        cutoff = self.clock() - self.window_s
        while q and q[0] < cutoff:
            q.popleft()
        return q

    def check(self, request: Request) -> Response | None:
        """None when the request carries the token; else the refusal to send."""
        client = request.client.host if request.client else "?"
        recent = self._recent(client)
        if len(recent) >= self.max_failures:
            retry = max(1, int(recent[0] + self.window_s - self.clock()) + 1)
            return JSONResponse({"error": "too many failed staff logins; try again later"}, status_code=429,
                                headers={"Retry-After": str(retry)})
        given = request.headers.get("x-staff-token", "")
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        if self._token and hmac.compare_digest(given.encode("utf-8"), self._token):
            return None
        recent.append(self.clock())
        log.warning("staff request refused: %s token from %s", "wrong" if given else "no", client)
        return JSONResponse({"error": "staff token missing or wrong"}, status_code=401,
                            headers={"WWW-Authenticate": "Bearer"})


async def _json_body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise BadRequest(f"request body is {len(raw)} bytes, at most {MAX_BODY_BYTES}", 413)
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError) as err:
        raise BadRequest(f"request body is not JSON: {err}") from err
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    return body


def _fields(body: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    unknown = sorted(set(body) - set(required) - set(optional))
    if unknown:
        raise BadRequest(f"unknown field {unknown[0]!r}")
    for name in required:
        if name not in body:
            raise BadRequest(f"missing field {name!r}")


def _reason(body: dict[str, Any]) -> str:
    reason = body.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise BadRequest("field 'reason' must be a non-empty text saying why")
    if len(reason) > 500:
        raise BadRequest("field 'reason' is longer than 500 characters")
    return reason.strip()


def _build(record: dict[str, Any]) -> ev.Event:
    try:
        event = ev.from_record(record)
    except ev.EventError as err:
        raise BadRequest(str(err)) from err
    assert isinstance(event, ev.Event)
    return event


def staff_event(action: str, body: dict[str, Any], *, table: str, now: float) -> ev.Event:
    """The staff event for one panel action; raises BadRequest (nothing built) when malformed."""
    if action == "start_game":
        _fields(body, ("ruleset", "players"), ("seating",))
        known = rulesets()
        if not isinstance(body["ruleset"], str) or (known and body["ruleset"] not in known):
            raise BadRequest(f"ruleset {body['ruleset']!r} is not one of {', '.join(known)}")
        players = body["players"]
        if (not isinstance(players, list) or len(players) != 4
                or not all(isinstance(p, str) and len(p) <= 40 for p in players)):
            raise BadRequest("field 'players' must be 4 names (text, at most 40 characters each)")
        seating = body.get("seating", "as_seated")
        if seating not in SEATINGS:
            raise BadRequest(f"seating {seating!r} is not one of {', '.join(SEATINGS)}")
        if seating == "random":
            players = list(players)
            secrets.SystemRandom().shuffle(players)
        return _build({"kind": "staff.start_game", "now": now, "ruleset": body["ruleset"],
                       "players": players, "table": table})
    if action == "confirm":
        _fields(body, ("hand_index",))
        return _build({"kind": "staff.confirm_result", "now": now, "hand_index": body["hand_index"]})
    if action == "correct":
        _fields(body, ("what", "reason"), ("data",))
        data = body.get("data", {})
        if not isinstance(data, dict):
            raise BadRequest("field 'data' must be a JSON object")
        if not isinstance(body["what"], str) or not body["what"]:
            raise BadRequest("field 'what' must name what is corrected")
        return _build({"kind": "staff.correction", "now": now, "what": body["what"], "reason": _reason(body),
                       "data": data})
    if action == "declare":
        _fields(body, ("seat", "action", "reason"))
        return _build({"kind": "staff.declare", "now": now, "seat": body["seat"], "action": body["action"],
                       "reason": _reason(body)})
    if action == "void_hand":
        _fields(body, ("reason",))
        return _build({"kind": "staff.void_hand", "now": now, "reason": _reason(body)})
    if action == "reset":
        _fields(body, ("reason",))
        return _build({"kind": "staff.reset", "now": now, "reason": _reason(body)})
    raise BadRequest(f"unknown staff action {action!r}", 404)


def create_app(daemon: Daemon, *, token: str | None = None) -> Starlette:
    cfg = daemon.cfg.panel
    daemon.core.language = getattr(cfg, "language", "en")
    gate = StaffGate(cfg.token if token is None else token, max_failures=cfg.max_failures,
                     window_s=cfg.failure_window_s)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def staff_page(request: Request) -> Response:
        return FileResponse(STATIC / "staff.html")

    async def api_state(request: Request) -> Response:
        return JSONResponse(daemon.hub.state or daemon.core.view())

    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        import asyncio
        sender = asyncio.create_task(daemon.hub.serve(ws.send_text))
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            sender.cancel()

    async def staff_action(request: Request) -> Response:
        refused = gate.check(request)
        if refused is not None:
            return refused
        action = request.path_params["action"]
        try:
            body = await _json_body(request)
            event = staff_event(action, body, table=daemon.cfg.table.name, now=daemon.now())
        except BadRequest as err:
            return JSONResponse({"error": str(err)}, status_code=err.status)
        try:    # the action's meaning, on a copy of the game: one that cannot apply is not stored
            STAFF.check(daemon.core.game_state, event, daemon.now(), daemon.core.machine)
        except STAFF.Refused as err:
            return JSONResponse({"error": str(err)}, status_code=409)
        seq = await daemon.submit("panel", event)
        log.info("staff %s accepted", action, extra={"seq": seq, "client": request.client.host
                                                     if request.client else "?"})
        return JSONResponse({"ok": True, "seq": seq, "state": daemon.hub.state})

    async def staff_status(request: Request) -> Response:
        refused = gate.check(request)
        if refused is not None:
            return refused
        parts = {}
        for part in daemon.parts:
            try:
                parts[part.name] = part.status()
            except Exception as err:  # noqa: BLE001 - a status call must not break the staff view
                parts[part.name] = {"error": str(err)}
        return JSONResponse({
            "table": daemon.cfg.table.name, "backend": daemon.cfg.table.backend,
            "machine": daemon.core.machine, "parts": parts, "tracker_errors": daemon.core.errors,
            "part_errors": daemon.part_errors,
            "events": daemon.store.last_seq, "head_hash": daemon.store.head_hash,
            "rulesets": rulesets(), "evidence": {str(k): v for k, v in daemon.hub.evidence.items()},
            **staff_extras(daemon),
            "uptime_s": round(time.time() - daemon.started_at, 1), "clients": daemon.hub.n_clients,
        })

    async def calibration(request: Request) -> Response:
        refused = gate.check(request)
        if refused is not None:
            return refused
        for part in daemon.parts:
            picture = getattr(part, "calibration_jpeg", None) or getattr(part, "latest_jpeg", None)
            if picture is not None:
                jpeg = picture()
                if jpeg:
                    return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})
        return JSONResponse({"error": "no camera picture yet"}, status_code=404)

    async def evidence(request: Request) -> Response:
        refused = gate.check(request)
        if refused is not None:
            return refused
        name = request.path_params["name"]
        path = daemon.store.evidence_path(name) if "/" not in name and ".." not in name else None
        if path is None:
            return JSONResponse({"error": f"no evidence frame {name!r} (unknown or rotated)"}, status_code=404)
        cut = evidence_for_alert(daemon, path, request.query_params.get("alert"))   # cut to the place
        if cut is not None:
            return Response(cut, media_type="image/jpeg")
        return FileResponse(path, media_type="image/jpeg")

    routes = [
        Route("/", index),
        Route("/staff", staff_page),
        Route("/api/state", api_state),
        Route("/api/staff/status", staff_status),
        Route("/api/staff/calibration.jpg", calibration),
        Route("/api/staff/evidence/{name}", evidence),
        Route("/api/staff/{action}", staff_action, methods=["POST"]),
        WebSocketRoute("/ws", websocket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)
