"""The heartbeat keeper: a small process that feeds the MCU's deadman while the host is busy.

The link's heartbeat runs in a thread of the daemon, so it needs the daemon's GIL: one long
C call that holds it (a sort, a garbage-collector pass, a camera frame on a loaded Pi) starves
it, and 500 ms without a frame trips the deadman although the host is alive. The keeper is a
separate process, so it does not share the GIL:

- the link hands it the serial port's file descriptor (``SCM_RIGHTS`` over a socket pair, again
  after each reopen) and a *lease* byte with every frame it writes;
- while leases come, the keeper sends nothing;
- when none has come for ``takeover_s`` (two heartbeats: no frame went out for that long), it writes a ``ping`` (the host seq
  reserved for it, ``KEEPER_SEQ``; the link ignores its ``pong``) every ``period_s``, for
  ``grace_s`` (3 s) after the last lease, and on to ``busy_grace_s`` (10 s) only while the host
  process is *busy*: its CPU time (``/proc/PID/stat``) went on growing within the last
  ``grace_s``. A host that is stopped or hung without running is covered for ``grace_s``, a
  busy one for ``busy_grace_s``; after that the deadman acts;
- the moment the daemon is gone (killed, crashed, closed), its end of the socket pair closes and
  the keeper exits at once, sending nothing more: the deadman then stops the motors within
  ``deadman_ms`` of the last frame, as before.

Each write is one ``write()`` of one whole frame: the tty layer serialises writes, so the
keeper's frames never interleave with the link's. Run by path with ``python -I`` (stdlib only,
no package imports: it starts in a few tens of milliseconds).
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import time

KEEPER_SEQ = 255          # host seq the link never allocates (PROTOCOL.md §8)
LEASE, PORT_FD, PORT_CLOSED, READY = b"L", b"F", b"C", b"R"


class Keeper:
    """The link's side: ``spawn``, then ``lease()``, ``port(fd)``, ``port_closed()``, ``stop()``."""

    def __init__(self, proc: subprocess.Popen, sock: socket.socket) -> None:
        self.proc, self.sock = proc, sock
        self.is_ready = False

    def wait_ready(self, timeout_s: float) -> bool:
        """Wait until the keeper process runs its loop (it starts in tens of ms, longer when loaded)."""
        deadline = time.monotonic() + timeout_s
        while not self.is_ready:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                return False
            ready, _, _ = select.select([self.sock], [], [], left)
            if ready:
                try:
                    self.is_ready = READY in self.sock.recv(16)
                except (BlockingIOError, OSError):
                    return False
        return True

    @classmethod
    def spawn(cls, ping_frame: bytes, *, period_s: float, takeover_s: float, grace_s: float,
              busy_grace_s: float) -> Keeper:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            proc = subprocess.Popen(
                [sys.executable, "-I", os.path.abspath(__file__), str(theirs.fileno()), ping_frame.hex(),
                 repr(period_s), repr(takeover_s), repr(grace_s), repr(busy_grace_s), str(os.getpid())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        finally:
            theirs.close()
        ours.setblocking(False)
        return cls(proc, ours)

    def _send(self, data: bytes, fds: tuple[int, ...] = ()) -> None:
        try:
            if fds:
                socket.send_fds(self.sock, [data], list(fds))
            else:
                self.sock.send(data)
        except (BlockingIOError, OSError):
            pass                  # a keeper that is not reading (or gone) is no reason to block

    def lease(self) -> None:
        self._send(LEASE)

    def port(self, fd: int) -> None:
        self._send(PORT_FD, (fd,))

    def port_closed(self) -> None:
        self._send(PORT_CLOSED)

    def stop(self) -> None:
        """Close our end (the keeper exits on it) and wait for it: after this it sends nothing."""
        self.sock.close()
        try:
            self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=2.0)


def cpu_time(pid: int) -> int | None:
    """User + system CPU time of ``pid`` in clock ticks (Linux ``/proc``), None where unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


class _Busy:
    """Does the host process run? Its CPU time, sampled once per ``period_s``."""

    def __init__(self, pid: int, period_s: float) -> None:
        self.pid, self.period_s = pid, period_s
        self.last, self.advanced_at, self.sampled_at = cpu_time(pid), time.monotonic(), 0.0

    def since(self, now: float) -> float:
        """Seconds since the host's CPU time last grew (infinite where it cannot be read)."""
        if now - self.sampled_at >= self.period_s:
            self.sampled_at = now
            value = cpu_time(self.pid)
            if value is None:
                return float("inf")
            if self.last is None or value > self.last:
                self.advanced_at = now
            self.last = value
        return now - self.advanced_at


def covers(quiet: float, busy_since: float, *, takeover_s: float, grace_s: float, busy_grace_s: float) -> bool:
    """Does the keeper ping, ``quiet`` s after the last lease, the host busy ``busy_since`` s ago?

    >>> [covers(q, 0.0, takeover_s=0.2, grace_s=3, busy_grace_s=10) for q in (0.1, 1, 5, 11)]
    [False, True, True, False]
    >>> covers(5, 4.0, takeover_s=0.2, grace_s=3, busy_grace_s=10)
    False
    """
    if quiet < takeover_s:
        return False
    return quiet <= grace_s or (quiet <= busy_grace_s and busy_since <= grace_s)


def run(sock_fd: int, ping: bytes, period_s: float, takeover_s: float, grace_s: float, busy_grace_s: float,
        host_pid: int) -> int:
    """The keeper's loop (in its own process)."""
    sock = socket.socket(fileno=sock_fd)
    port_fd: int | None = None
    last_lease = time.monotonic()
    last_ping = 0.0
    busy = _Busy(host_pid, period_s)
    limits = {"takeover_s": takeover_s, "grace_s": grace_s, "busy_grace_s": busy_grace_s}
    sock.send(READY)
    while True:
        now = time.monotonic()
        quiet = now - last_lease
        if port_fd is not None and takeover_s <= quiet <= busy_grace_s:
            wait = max(0.0, last_ping + period_s - now)
        elif quiet < takeover_s:
            wait = takeover_s - quiet
        else:
            wait = 1.0
        ready, _, _ = select.select([sock], [], [], wait)
        if ready:
            try:
                data, fds, _flags, _addr = socket.recv_fds(sock, 4096, 4)
            except OSError:
                return 0
            if not data:
                return 0              # the daemon is gone (or closed the link): never send again
            for fd in fds:
                if port_fd is not None:
                    os.close(port_fd)
                port_fd = fd
            if PORT_CLOSED in data and not fds and port_fd is not None:
                os.close(port_fd)
                port_fd = None
            last_lease = time.monotonic()
            continue
        now = time.monotonic()
        if (port_fd is not None and now - last_ping >= period_s
                and covers(now - last_lease, busy.since(now), **limits)):
            try:
                os.write(port_fd, ping)
            except OSError:
                pass                  # buffer full or port gone: the link sees to the port
            last_ping = now


if __name__ == "__main__":
    _fd, _ping, _period, _takeover, _grace, _busy_grace, _pid = sys.argv[1:8]
    sys.exit(run(int(_fd), bytes.fromhex(_ping), float(_period), float(_takeover), float(_grace),
                 float(_busy_grace), int(_pid)))
