"""The panel's routes.

Public, read-only (no token): ``/`` the table display, ``/staff`` the staff page (its
actions need the token), ``/static/...``, ``GET /api/state`` (contracts/table-api.md) and the
WebSocket ``/ws`` that pushes ``{"type": "state", "version", "seq", "t_wall", "state"}`` on
every change (anything a client sends on it is ignored).

Staff, behind ``Authorization: Bearer TOKEN`` (or ``X-Staff-Token``), compared in constant
time; a client with too many failures in the window gets 429 for every staff request until
the window has passed, the right token included; past ``GLOBAL_FACTOR`` times that many
failures from all clients together, every client gets 429 until the window has passed (so
guesses spread over many addresses are bounded too). Each action becomes one staff event,
submitted to the daemon's loop (committed, applied, then answered):

    POST /api/staff/start_game  {"ruleset", "players": [4 names], "seating": "as_seated"|"random",
                                 "replace_game": "E3 hand 2"}  (only to replace a game in progress)
    POST /api/staff/confirm     {"hand_index"}  (the hand being shown: else 409)
    POST /api/staff/correct     {"what", "reason", "data": {...}}
    POST /api/staff/declare     {"seat", "action", "reason"}
    POST /api/staff/void_hand   {"reason"}
    POST /api/staff/reset       {"reason"}
    GET  /api/staff/status      machine status, faults, parts
    GET  /api/staff/calibration.jpg   the camera's current picture
    GET  /api/staff/evidence/NAME     an alert's evidence frame

Bodies are parsed strictly (``controller.bodies``: at most 64 KiB, 8 levels deep, finite
numbers, no duplicate keys, only the fields the action takes). A malformed request (bad JSON,
unknown or missing field, wrong type, bad tile, index out of range) gets 400 (413 too big);
one that cannot apply now (a ``start_game`` over a game in progress without its
``replace_game``, a ``confirm`` of another hand) gets 409; either changes nothing.
"""

from __future__ import annotations

import hmac
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
from controller.bodies import (
    BodyError,
    fields,
    integer,
    plain_data,
    read_body,
    text,
)
from controller.config import TableError
from controller.panel.enrol_routes import enrol_routes
from controller.storage import StorageFull

if TYPE_CHECKING:
    from controller.panel.facade import Table

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
PROFILES = Path(__file__).resolve().parent.parent / "rules" / "profiles"
SEATINGS = ("as_seated", "random")
GLOBAL_FACTOR = 4          # failures from all clients together, as a multiple of the per-client limit
BadRequest = BodyError     # the name the handlers use: message and HTTP status (4xx)


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
        self._all: deque[float] = deque()
        self.max_total = GLOBAL_FACTOR * max_failures

    def _prune(self, q: deque[float]) -> deque[float]:
        cutoff = self.clock() - self.window_s
        while q and q[0] < cutoff:
            q.popleft()
        return q

    def _recent(self, client: str) -> deque[float]:
        if len(self._failures) > 4096:      # forget clients whose failures have all expired
            for key in [k for k, q in self._failures.items() if not self._prune(q)]:
                del self._failures[key]
        return self._prune(self._failures.setdefault(client, deque()))

    def check(self, request: Request) -> Response | None:
        """None when the request carries the token; else the refusal to send."""
        client = request.client.host if request.client else "?"
        recent = self._recent(client)
        everyone = self._prune(self._all)
        for q, limit, who in ((recent, self.max_failures, "from this address"),
                              (everyone, self.max_total, "from all addresses")):
            if len(q) >= limit:
                retry = max(1, int(q[-limit] + self.window_s - self.clock()) + 1)
                return JSONResponse({"error": f"too many failed staff logins {who}; try again later"},
                                    status_code=429, headers={"Retry-After": str(retry)})
        given = request.headers.get("x-staff-token", "")
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        if self._token and hmac.compare_digest(given.encode("utf-8"), self._token):
            return None
        recent.append(self.clock())
        everyone.append(self.clock())
        log.warning("staff request refused: %s token from %s", "wrong" if given else "no", client)
        return JSONResponse({"error": "staff token missing or wrong"}, status_code=401,
                            headers={"WWW-Authenticate": "Bearer"})


_json_body = read_body      # the body as one strict JSON object (controller.bodies)


_fields = fields


def _reason(body: dict[str, Any]) -> str:
    if not isinstance(body.get("reason"), str) or not body["reason"].strip():
        raise BadRequest("field 'reason' must be a non-empty text saying why")
    return text(body, "reason", max_len=500)


def game_label(view: dict[str, Any]) -> str | None:
    """The name of the game in progress in a table view ("E3 hand 2"), or None when there is none."""
    if view.get("finished") or view.get("phase") in (None, "idle", "ended"):
        return None
    return f"{view.get('round', '?')} hand {view.get('hand_index', 0)}"


def check_applies(action: str, body: dict[str, Any], view: dict[str, Any]) -> None:
    """Refuse (409) a well-formed action that cannot apply to the table as it is now."""
    if action == "start_game":
        running = game_label(view)
        given = body.get("replace_game")
        if running is not None and given != running:
            players = ", ".join(str(seat.get("name", "")) for seat in view.get("seats") or [])
            raise BadRequest(f"a game is in progress ({running}; {players}); to replace it, send "
                             f"\"replace_game\": \"{running}\" with the new game", 409,
                             detail={"replace_game": running})
        if running is None and given is not None:
            raise BadRequest("field 'replace_game': no game is in progress to replace", 409)
    elif action == "confirm":
        current = view.get("hand_index", 0)
        if body["hand_index"] != current:
            raise BadRequest(f"field 'hand_index' is {body['hand_index']}: the hand shown is {current}", 409)


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
        _fields(body, ("ruleset", "players"), ("seating", "replace_game"))
        if "replace_game" in body:
            text(body, "replace_game", max_len=40)
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
        integer(body, "hand_index", lo=0, hi=10_000)
        return _build({"kind": "staff.confirm_result", "now": now, "hand_index": body["hand_index"]})
    if action == "correct":
        _fields(body, ("what", "reason"), ("data",))
        data = body.get("data", {})
        if not isinstance(data, dict):
            raise BadRequest("field 'data' must be a JSON object")
        plain_data(data, "data")
        if not isinstance(body["what"], str) or not body["what"]:
            raise BadRequest("field 'what' must name what is corrected")
        text(body, "what", max_len=40)
        return _build({"kind": "staff.correction", "now": now, "what": body["what"], "reason": _reason(body),
                       "data": data})
    if action == "declare":
        _fields(body, ("seat", "action", "reason"))
        text(body, "action", max_len=40)
        return _build({"kind": "staff.declare", "now": now, "seat": body["seat"], "action": body["action"],
                       "reason": _reason(body)})
    if action == "void_hand":
        _fields(body, ("reason",))
        return _build({"kind": "staff.void_hand", "now": now, "reason": _reason(body)})
    if action == "reset":
        _fields(body, ("reason",))
        return _build({"kind": "staff.reset", "now": now, "reason": _reason(body)})
    raise BadRequest(f"unknown staff action {action!r}", 404)


def create_app(table: Table, *, token: str | None = None) -> Starlette:
    """The panel's web app over the daemon's narrow door (:class:`controller.panel.facade.Table`)."""
    cfg = table.panel
    gate = StaffGate(cfg.token if token is None else token, max_failures=cfg.max_failures,
                     window_s=cfg.failure_window_s)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def staff_page(request: Request) -> Response:
        return FileResponse(STATIC / "staff.html")

    async def api_state(request: Request) -> Response:
        return JSONResponse(table.snapshot())

    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        import asyncio
        sender = asyncio.create_task(table.hub.serve(ws.send_text))
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
            event = staff_event(action, body, table=table.table_name, now=table.now())
            why_not = table.why_not(event)   # the action's meaning, on a copy of the game (the tracker's words)
            if why_not is not None:
                raise BadRequest(why_not, 409)
            check_applies(action, body, table.snapshot())
        except BadRequest as err:    # one that cannot apply is not stored
            return JSONResponse({"error": str(err), **err.detail}, status_code=err.status)
        refusal = table.refusal()
        if refusal:
            return JSONResponse({"error": refusal}, status_code=503, headers={"Retry-After": "5"})
        try:
            seq = await table.submit(event)
        except StorageFull as err:
            return JSONResponse({"error": str(err)}, status_code=503, headers={"Retry-After": "5"})
        except (TableError, ValueError, TypeError) as err:
            return JSONResponse({"error": f"the table cannot take this {action}: {err}"}, status_code=400)
        log.info("staff %s accepted", action, extra={"seq": seq, "client": request.client.host
                                                     if request.client else "?"})
        return JSONResponse({"ok": True, "seq": seq, "state": table.snapshot()})

    async def staff_status(request: Request) -> Response:
        refused = gate.check(request)
        if refused is not None:
            return refused
        return JSONResponse({**table.status(), "rulesets": rulesets()})

    async def calibration(request: Request) -> Response:
        refused = gate.check(request)
        if refused is not None:
            return refused
        jpeg = table.picture()
        if jpeg:
            return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})
        return JSONResponse({"error": "no camera picture yet"}, status_code=404)

    async def evidence(request: Request) -> Response:
        refused = gate.check(request)
        if refused is not None:
            return refused
        name = request.path_params["name"]
        path = table.evidence_path(name) if "/" not in name and ".." not in name else None
        if path is None:
            return JSONResponse({"error": f"no evidence frame {name!r} (unknown or rotated)"}, status_code=404)
        cut = table.evidence_cut(path, request.query_params.get("alert"))   # cut to the alert's place
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
        *enrol_routes(table, gate),      # the tile-set enrolment page (controller/panel/enrol_routes.py)
        Route("/api/staff/{action}", staff_action, methods=["POST"]),
        WebSocketRoute("/ws", websocket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)
