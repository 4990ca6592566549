"""Physical table profiles (data): tile size, walls, rivers, meld/reveal areas, corner markers.

Read with ``vision.layout.load_profile(name)``; a package only so that the TOML files ship.
"""
