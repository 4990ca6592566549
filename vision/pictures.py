"""Reading one picture from disk, for the commands and the enrolment folder reader."""

from __future__ import annotations

import os

import cv2
import numpy as np


def read_image(path: str) -> np.ndarray:
    """Read a picture as BGR uint8 (EXIF orientation applied). Raises OSError naming the problem."""
    if not os.path.exists(path):
        raise OSError("file not found")
    if os.path.isdir(path):
        raise OSError("is a directory, not an image")
    if not os.access(path, os.R_OK):
        raise OSError("permission denied")
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        # cv2.imread cannot open some paths (non-ASCII on some builds): try the bytes
        try:
            data = np.fromfile(path, np.uint8)
        except OSError as err:
            raise OSError(f"cannot read file: {err.strerror or err}") from err
        img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None or img.size == 0:
        raise OSError("not a readable image (expected PNG or JPEG)")
    return img
