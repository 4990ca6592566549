"""The table's panel: an ASGI app (starlette) with a WebSocket, served by the daemon.

``view.py`` turns the daemon's state into the public JSON (``GET /api/state``,
contracts/table-api.md); ``hub.py`` fans it out to WebSocket clients; ``app.py`` holds the
routes (public read-only, staff behind a token); ``server.py`` runs uvicorn in the daemon's
loop. Static HTML/JS/CSS and the tile pictures live in ``static/``.
"""
