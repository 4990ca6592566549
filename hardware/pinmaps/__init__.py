"""Pin maps (data): which GPIO line is which, per board revision."""
