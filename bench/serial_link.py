"""Serial link benchmark: round trips to the simulated MCU over a pty with a noisy line.

    python bench/serial_link.py --quick

Starts the simulator process (``hardware/sim``) with 1 % of bytes corrupted and 1 % dropped in
each direction, sends N job commands one after the other through ``firmware_bridge.link.Link``
(real pyserial on the pty), and measures command -> final ack times. Afterwards the simulator
reports how often it executed each job:

- lost: a job the host saw done that the simulator never executed, or that never completed;
- duplicated: a job the simulator executed more than once.

The last line is ``serial rtt_median_ms=X rtt_p99_ms=Y commands=N lost=L duplicated=D``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge import protocol as p  # noqa: E402
from firmware_bridge.errors import BridgeError  # noqa: E402
from firmware_bridge.link import Link  # noqa: E402
from hardware.sim.mcu_process import SimMcuProcess  # noqa: E402


def run(commands: int, drop: float, corrupt: float, seed: int) -> str:
    with tempfile.TemporaryDirectory(prefix="jantaku-bench-") as tmp:
        sim = SimMcuProcess.start(tmp, time_scale=0.01, extra=[
            "--drop", str(drop), "--corrupt", str(corrupt), "--seed", str(seed)])
        link = Link(sim.port, reply_timeout_s=2.0)      # the product defaults otherwise
        link.start()
        rtts: list[float] = []
        done: set[int] = set()
        failed = 0
        try:
            link.wait_up(10.0)
            for i in range(commands):
                job = link.next_job()
                msg = p.Display(job=job, seat=i % 4, text=str(i % 100))
                t0 = time.perf_counter()
                try:
                    ack = link.request(msg).result()
                except BridgeError:
                    failed += 1
                    continue
                rtts.append((time.perf_counter() - t0) * 1000)
                if isinstance(ack, p.Ack) and ack.status == p.ACK_DONE:
                    done.add(job)
                else:
                    failed += 1
            stats = link.stats()
        finally:
            link.close()
            sim_stats = sim.stop()
    executed = {int(j): n for j, n in sim_stats.get("executed", {}).items()}
    lost = failed + sum(1 for job in done if executed.get(job, 0) == 0)
    duplicated = sum(1 for n in executed.values() if n > 1)
    print(f"host: {stats.sent_frames} frames sent, {stats.retransmits} retransmits, "
          f"{stats.rx_errors} bad frames received, rto {stats.rto_ms:.2f} ms; sim line: "
          f"rx {sim_stats.get('rx_line')}, tx {sim_stats.get('tx_line')}", file=sys.stderr)
    rtts.sort()
    median = statistics.median(rtts) if rtts else float("nan")
    p99 = rtts[min(len(rtts) - 1, int(0.99 * len(rtts)))] if rtts else float("nan")
    return (f"serial rtt_median_ms={median:.3f} rtt_p99_ms={p99:.3f} commands={commands} "
            f"lost={lost} duplicated={duplicated}")


def main(argv: list[str] | None = None) -> int:
    sys.stderr.flush()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2000 commands (the CI figure)")
    ap.add_argument("--commands", type=int, default=None)
    ap.add_argument("--drop", type=float, default=0.01)
    ap.add_argument("--corrupt", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    n = args.commands or (2000 if args.quick else 10000)
    print(run(n, args.drop, args.corrupt, args.seed), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
