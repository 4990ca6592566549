"""The rules engine: pure code, no I/O and no clock."""
