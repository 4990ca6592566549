"""Serial protocol to the table MCU, and the Pi's GPIO lines."""
