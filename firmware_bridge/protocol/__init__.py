"""The wire protocol to the table MCU: pure frame codec (bytes in, objects out).

Implements ``hardware/PROTOCOL.md`` exactly; read that first. In short, a frame on the wire is
``COBS(type, seq, body..., crc32c LE) 0x00``. CRC-32C (Castagnoli): poly 0x1EDC6F41
(reflected 0x82F63B78), init 0xFFFFFFFF, refin/refout true, xorout 0xFFFFFFFF, check value
of ASCII ``123456789`` = 0xE3069283.

No I/O, no clock, no logging. Everything raised here is a ``ProtocolError`` subclass:

>>> frame = encode(Lift(job=17, walls=0x0F), seq=3)
>>> frame.hex()
'04110311060fa322931b00'
>>> decode_frame(frame[:-1])
Frame(seq=3, msg=Lift(job=17, walls=15))
>>> crc32c(b"123456789") == CHECK_VALUE
True

Modules: :mod:`~firmware_bridge.protocol.wire` (errors, CRC-32C, COBS),
:mod:`~firmware_bridge.protocol.kinds` (field wire forms), :mod:`~firmware_bridge.protocol.commands`
(the ``Message`` base and host -> MCU commands), :mod:`~firmware_bridge.protocol.replies`
(MCU -> host replies and events), :mod:`~firmware_bridge.protocol.frames` (encode, decode,
the stream decoder). Every name is importable from ``firmware_bridge.protocol``.
"""

from __future__ import annotations

from firmware_bridge.protocol import commands, frames, kinds, replies, wire
from firmware_bridge.protocol.commands import *  # noqa: F403
from firmware_bridge.protocol.frames import *  # noqa: F403
from firmware_bridge.protocol.kinds import *  # noqa: F403
from firmware_bridge.protocol.replies import *  # noqa: F403
from firmware_bridge.protocol.wire import *  # noqa: F403

__all__ = [*wire.__all__, *kinds.__all__, *commands.__all__, *replies.__all__, *frames.__all__]
