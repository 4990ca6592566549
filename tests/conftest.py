"""Shared fixtures live in tests/fixtures/, one module per area, registered here."""

pytest_plugins = [
    "tests.fixtures.pins",      # gpiozero's mock pin factory
    "tests.fixtures.sim",       # the simulated MCU process on a pty
    "tests.fixtures.frames",    # rendered camera frames
    "tests.fixtures.browser",   # headless Chromium through Playwright
]
