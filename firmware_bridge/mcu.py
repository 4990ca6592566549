"""Async access to the table MCU: jobs with completions, timeouts and clear errors.

``Mcu`` sits on a ``Link`` inside the caller's asyncio loop. Each job command gets a fresh
job id, is checked against the host interlock (motion only), sent, and awaited until its ack
and, for motion, its completion event (``lift_done``, ``shuffle_done``, ``dice_result``,
``done``) or its ``fault``. The part modules (``wall_lift``, ``shuffler``, ...) are thin
typed wrappers over ``Mcu.run``.

Every event (link up/lost, each MCU event) is also handed to ``on_event`` in the loop, so the
daemon's machine cycle sees ``lift_done`` and ``fault`` exactly once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol, TypeVar

from firmware_bridge import protocol as p
from firmware_bridge.errors import BridgeError, CommandRejected, InterlockError, LinkTimeout, TableFault
from firmware_bridge.link import Link, LinkLost, LinkUp, McuEvent

log = logging.getLogger(__name__)
E = TypeVar("E", bound=p.Event)


class Interlock(Protocol):
    """Says whether motion is allowed now. ``firmware_bridge.gpio.TableGpio`` implements it."""

    def motion_refusal(self) -> str | None:
        """None when motion is allowed, else the reason (``"e-stop pressed"``, ``"lid open"``)."""
        ...


class Mcu:
    """The table MCU as seen from one asyncio loop. Construct anywhere; ``await start()`` in the loop."""

    def __init__(self, link: Link, *, interlock: Interlock | None = None,
                 on_event: Callable[[object], None] | None = None, ack_timeout_s: float = 1.0) -> None:
        self.link = link
        self.interlock = interlock
        self.on_event = on_event
        self.ack_timeout_s = ack_timeout_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._jobs: dict[int, asyncio.Future] = {}
        self._done: dict[int, p.Event] = {}

    @property
    def name(self) -> str:
        return f"{self.link.name} {self.link.port}"

    async def start(self, *, timeout_s: float = 3.0) -> p.Identify:
        """Start the link and wait until the MCU identified itself (``LinkTimeout`` otherwise)."""
        self._loop = asyncio.get_running_loop()
        loop = self._loop
        self.link.sink = lambda ev: loop.call_soon_threadsafe(self._dispatch, ev)
        self.link.start()
        return await self.wait_up(timeout_s)

    async def wait_up(self, timeout_s: float) -> p.Identify:
        return await asyncio.to_thread(self.link.wait_up, timeout_s)

    async def close(self) -> None:
        await asyncio.to_thread(self.link.close)
        for fut in self._jobs.values():
            if not fut.done():
                fut.set_exception(BridgeError(f"{self.name}: link closed"))
        self._jobs.clear()

    # ------------------------------------------------------------------ events (in the loop)
    def _dispatch(self, ev: object) -> None:
        if isinstance(ev, McuEvent):
            msg = ev.msg
            job = getattr(msg, "job", 0)
            if job and job in self._jobs:
                fut = self._jobs.pop(job)
                if not fut.done():
                    fut.set_result(msg)
                self._remember(job, msg)
            elif job and job in self._done:
                return          # a re-sent completion of a job already finished: seen once only
            elif job:
                self._remember(job, msg)
        elif isinstance(ev, LinkUp) and ev.rebooted:
            for job, fut in list(self._jobs.items()):
                if not fut.done():
                    fut.set_exception(BridgeError(f"{self.name}: MCU rebooted during job {job}"))
            self._jobs.clear()
        if self.on_event is not None:
            self.on_event(ev)

    def _remember(self, job: int, msg: p.Event) -> None:
        self._done[job] = msg
        while len(self._done) > 256:
            self._done.pop(next(iter(self._done)))

    # ------------------------------------------------------------------ requests
    async def request(self, msg: p.Command, *, timeout_s: float | None = None) -> p.Reply:
        """Send one command, return its reply (retransmitted by the link until answered)."""
        fut = self.link.request(msg, timeout_s=timeout_s or self.ack_timeout_s)
        return await asyncio.wrap_future(fut)

    async def identify(self) -> p.Identify:
        reply = await self.request(p.Hello(session=self.link.session))
        assert isinstance(reply, p.Identify)
        return reply

    async def status(self) -> p.Status:
        reply = await self.request(p.GetStatus())
        assert isinstance(reply, p.Status)
        return reply

    async def run(self, make: Callable[[int], p.JobCommand], *, part: str,
                  timeout_s: float) -> p.Event | None:
        """Run one job: ``make(job_id)`` builds the command.

        Returns the completion event (None for commands acked ``done``). Raises
        ``InterlockError`` (motion refused on the host), ``CommandRejected``, ``TableFault``,
        ``LinkTimeout`` (no ack, or no completion within ``timeout_s``), each naming the part.
        """
        msg = make(self.link.next_job())
        if msg.IS_MOTION and self.interlock is not None:
            reason = self.interlock.motion_refusal()
            if reason:
                raise InterlockError(f"{part}: '{msg.NAME}' refused: {reason}")
        loop = asyncio.get_running_loop()
        completion: asyncio.Future | None = None
        if msg.HAS_EVENT:
            completion = loop.create_future()
            self._jobs[msg.job] = completion
        try:
            ack = await self.request(msg)
            assert isinstance(ack, p.Ack)
            if ack.status == p.ACK_REJECTED:
                reason = p.REJECT_NAMES.get(ack.code, f"code {ack.code}")
                raise CommandRejected(f"{part}: MCU rejected '{msg.NAME}' (job {msg.job}): {reason}",
                                      reason=reason, job=msg.job)
            if completion is None or ack.status == p.ACK_DONE:
                return None
            if msg.job in self._done and not completion.done():
                completion.set_result(self._done[msg.job])
            try:
                event = await asyncio.wait_for(asyncio.shield(completion), timeout_s)
            except TimeoutError:
                raise LinkTimeout(f"{part}: '{msg.NAME}' (job {msg.job}) not finished after {timeout_s} s") \
                    from None
        finally:
            if completion is not None and not completion.done():
                self._jobs.pop(msg.job, None)
                completion.cancel()
        if isinstance(event, p.Fault):
            raise TableFault(f"{part}: '{msg.NAME}' (job {msg.job}) failed: {event.describe()}",
                             fault=event.fault_name, job=msg.job,
                             detail=None if event.detail == p.NO_DETAIL else event.detail,
                             value=event.value, latched=bool(event.latched))
        return event

    def stop_now(self) -> None:
        """Send ``stop`` at once from any thread (the e-stop handler); does not wait."""
        try:
            self.link.request(p.Stop(job=self.link.next_job()), timeout_s=2.0)
        except BridgeError as err:
            log.error("%s: could not send stop: %s", self.name, err)


def expect(event: p.Event | None, kind: type[E], part: str) -> E:
    """The completion as the type the part expects (a mismatch is an MCU bug, reported as such)."""
    if not isinstance(event, kind):
        raise BridgeError(f"{part}: expected '{kind.NAME}', MCU sent {event!r}")
    return event


__all__ = ["Interlock", "Mcu", "LinkLost", "LinkUp", "McuEvent", "expect"]
