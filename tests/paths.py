"""Where the tests find the repository and the shared reference folder beside it.

CI runs in a fresh clone with ``shared/`` copied beside it, so nothing may name an
absolute path. ``JANTAKU_SHARED`` overrides the location (development only).
"""

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("JANTAKU_SHARED", REPO.parent / "shared"))
TENHOU_SAMPLES = SHARED / "samples" / "tenhou"

if not TENHOU_SAMPLES.is_dir():  # a missing reference folder must fail loudly, never skip tests silently
    raise RuntimeError(f"shared reference folder not found at {SHARED} (set JANTAKU_SHARED)")

SAMPLE_LOGS = sorted(TENHOU_SAMPLES.glob("*.json"))


def load_sample(path: Path):
    """Parse one recorded game (tenhou.net/6 JSON) into the rules engine's ``LogGame``."""
    import json

    from controller.rules import tenhou

    return tenhou.parse_log(json.loads(path.read_text()), str(path))
