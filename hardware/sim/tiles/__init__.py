"""Tile artwork (FluffyStuff riichi set, CC0), 120x160 RGBA copies; a package so wheels carry them."""
