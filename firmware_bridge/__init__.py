"""Serial protocol to the table MCU, and the Pi's GPIO lines.

- ``protocol``: pure frame codec (COBS + CRC-32C), message classes, fault and reject codes;
- ``link``: ``Link`` (pyserial, reader + timer threads, retransmission, heartbeat,
  reconnection); posts ``LinkUp`` / ``LinkLost`` / ``McuEvent`` to a sink;
- ``mcu``: ``Mcu``, jobs with completions in an asyncio loop; ``table.SerialTable`` builds
  one object per part: ``wall_lift``, ``shuffler``, ``centre``, ``dice``, ``display``,
  ``stopper``, ``dealer``;
- ``gpio`` / ``pinmap``: ``TableGpio`` (gpiozero) and the pin maps in ``hardware/pinmaps/``;
- ``daemon_part``: ``TablePart``, all of it as one daemon part speaking ``controller.events``;
- ``errors``: ``TableError`` → ``BridgeError`` → ``LinkTimeout``, ``CommandRejected``, ...

The wire protocol is ``hardware/PROTOCOL.md``; the simulated MCU is ``hardware/sim/mcu.py``.
"""
