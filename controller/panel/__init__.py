"""The table's panel: an ASGI app (starlette) with a WebSocket, served by the daemon.

The panel never imports the daemon: it reaches it through ``facade.py`` (``Table``:
``snapshot()``, ``submit(event)``, ``status()``, and the ``ReadModel`` the daemon publishes
after each applied event); ``hub.py`` fans the read model out to WebSocket clients; ``app.py``
holds the routes (public read-only, staff behind a token); ``server.py`` runs uvicorn in the
daemon's loop. Static HTML/JS/CSS and the tile pictures live in ``static/``.
"""
