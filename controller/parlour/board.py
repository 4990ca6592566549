"""The parlour board's web app (Starlette): pages in Japanese, Chinese and English, and a JSON API.

Pages (no token to read): ``/`` every table live, ``/table/NAME`` one table's history and
statistics, ``/counter`` the visits (its actions need the counter token). ``?lang=ja|zh|en``
picks the language (else the browser's). The pages poll ``GET /api/board?version=V``, which
answers at once when the store changed since ``V``, else after up to 10 s.

    GET  /api/board                  {"version", "parlour", "tables": [...], "visits": [...]}
    GET  /api/tables/NAME            history: events, alerts, faults, games, stats
    GET  /api/stats                  per table: build_cycle_s, faults_per_day, hands, games
    GET  /api/games                  finished games (players, scores, settlement, tenhou.net/6 record)
    GET  /api/games.jsonl            the tenhou.net/6 records, one per line
    GET  /api/evidence/NAME/SEQ.jpg  an alert's evidence picture
    POST /api/visits                 {"name"|"member", "table", "chair"}  check in (token)
    POST /api/visits/ID/seat         {"table", "chair"}                    a seat change (token)
    POST /api/visits/ID/close        {}                                    the bill; the visit ends (token)
    GET  /api/visits/ID              the bill so far
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from controller.panel.app import StaffGate
from controller.parlour import views
from controller.parlour.counter import Counter
from controller.parlour.store import ParlourError, ParlourStore

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 16 * 1024


def create_app(store: ParlourStore, counter: Counter, *, parlour: str, token: str, status=None) -> Starlette:
    gate = StaffGate(token, max_failures=5, window_s=60.0)

    def read(fn, *args, **kwargs):
        c = store.reader()
        try:
            return fn(c, *args, **kwargs)
        finally:
            c.close()

    async def page(request: Request) -> Response:
        name = {"/": "board.html", "/counter": "counter.html"}.get(request.url.path, "table.html")
        return FileResponse(STATIC / name, headers={"Cache-Control": "no-store"})

    async def api_board(request: Request) -> Response:
        try:
            since = int(request.query_params.get("version", "-1"))
        except ValueError:
            return JSONResponse({"error": "version must be an integer"}, status_code=400)
        deadline = time.monotonic() + 10.0
        while store.version == since and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        version = store.version
        tables = await asyncio.to_thread(read, views.board)
        visits = await asyncio.to_thread(counter.open_visits)
        link = status() if status is not None else {}
        return JSONResponse({"version": version, "parlour": parlour, "now": time.time(), "link": link,
                             "tables": tables, "visits": visits})

    async def api_table(request: Request) -> Response:
        history = await asyncio.to_thread(read, views.table_history, request.path_params["name"])
        if history is None:
            return JSONResponse({"error": f"no table {request.path_params['name']!r}"}, status_code=404)
        return JSONResponse(history)

    async def api_stats(request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(read, views.stats))

    async def api_games(request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(read, views.games))

    async def api_games_jsonl(request: Request) -> Response:
        games = await asyncio.to_thread(read, views.games)
        text = "".join(json.dumps(g["record"], ensure_ascii=False) + "\n" for g in games if g["record"])
        return PlainTextResponse(text, media_type="application/x-ndjson")

    async def api_evidence(request: Request) -> Response:
        try:
            seq = int(request.path_params["seq"])
        except ValueError:
            return JSONResponse({"error": "bad sequence number"}, status_code=400)
        row = await asyncio.to_thread(read, lambda c: c.execute(
            "SELECT jpeg FROM evidence WHERE tbl=? AND event_seq=?", (request.path_params["name"], seq)).fetchone())
        if row is None:
            return JSONResponse({"error": "no such evidence"}, status_code=404)
        return Response(bytes(row[0]), media_type="image/jpeg")

    async def body_of(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise ParlourError(f"request body is {len(raw)} bytes, at most {MAX_BODY}")
        try:
            body = json.loads(raw or b"{}")
        except (ValueError, UnicodeDecodeError) as err:
            raise ParlourError(f"request body is not JSON: {err}") from err
        if not isinstance(body, dict):
            raise ParlourError("request body must be a JSON object")
        return body

    def fields(body: dict[str, Any], allowed: tuple[str, ...]) -> None:
        unknown = sorted(set(body) - set(allowed))
        if unknown:
            raise ParlourError(f"unknown field {unknown[0]!r}")

    async def counter_action(request: Request) -> Response:
        refused = gate.check(request)
        if refused is not None:
            return refused
        try:
            body = await body_of(request)
            action = request.path_params.get("action")
            if "id" not in request.path_params:
                fields(body, ("name", "member", "table", "chair"))
                visit = await asyncio.to_thread(counter.check_in, name=str(body.get("name") or ""),
                                                member=str(body.get("member") or ""), table=body.get("table"),
                                                chair=body.get("chair"))
                return JSONResponse(counter.bill(visit), status_code=201)
            visit = int(request.path_params["id"])
            if action == "seat":
                fields(body, ("table", "chair"))
                await asyncio.to_thread(counter.move, visit, table=body.get("table"), chair=body.get("chair"))
                return JSONResponse(counter.bill(visit))
            if action == "close":
                fields(body, ())
                return JSONResponse(await asyncio.to_thread(counter.close, visit))
            return JSONResponse({"error": f"unknown action {action!r}"}, status_code=404)
        except ParlourError as err:
            return JSONResponse({"error": str(err)}, status_code=400)

    async def api_bill(request: Request) -> Response:
        try:
            return JSONResponse(counter.bill(int(request.path_params["id"])))
        except (ParlourError, ValueError) as err:
            return JSONResponse({"error": str(err)}, status_code=404)

    routes = [
        Route("/", page), Route("/counter", page), Route("/table/{name}", page),
        Route("/api/board", api_board), Route("/api/tables/{name}", api_table), Route("/api/stats", api_stats),
        Route("/api/games", api_games), Route("/api/games.jsonl", api_games_jsonl),
        Route("/api/evidence/{name}/{seq}.jpg", api_evidence),
        Route("/api/visits", counter_action, methods=["POST"]),
        Route("/api/visits/{id:int}", api_bill),
        Route("/api/visits/{id:int}/{action}", counter_action, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)
