"""The simulated table: an MCU on a pty, a scene renderer, scripted players."""
