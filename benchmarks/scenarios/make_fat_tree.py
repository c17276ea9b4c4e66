"""Writes the fat-tree scaling scenarios of the benchmark: `fat-tree-k32-n{N}.toml` and its flow list.

A k = 32 fat tree (8,192 hosts, 100 Mb/s ports, 100-packet buffers, ECMP) carrying N CUBIC flows
between random host pairs, each writing 1,024 B every 0.8 ms for 10 s (10 Mb/s). The cost of a
packet-hop should not depend on N: these files measure it at N = 64, 512 and 4,096.

Usage: python benchmarks/scenarios/make_fat_tree.py [N ...]   (default: 64 512 4096)
The flow lists are drawn from a fixed seed, so the files are the same on every machine.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

K = 32
HOSTS = K**3 // 4
WRITE = 1024
INTERVAL_S = 0.8e-3
DURATION_S = 10.0
#: 12,500 writes of 1,024 B: the application's last write is at 9.9992 s.
SIZE = WRITE * round(DURATION_S / INTERVAL_S)

SCENARIO = """\
# Benchmark: a k = 32 fat tree with {n} CUBIC flows between random host pairs, each writing
# 1,024 B every 0.8 ms for 10 s. Written by benchmarks/scenarios/make_fat_tree.py.
name = "fat-tree-k32-n{n}"
seed = 1
duration = "10s"

[topology]
kind = "fat_tree"
k = {k}
rate = "100Mbps"
delay = "1us"

[routing]
ecmp = true

[queues.router]
kind = "droptail"
limit_packets = 100

[transport]
cc = "cubic"
app = {{ kind = "scheduled", initial = {w}, chunk = {w}, interval = "0.8ms" }}

[[workload]]
kind = "list"
file = "fat-tree-k32-n{n}.csv"
"""


def flows(n: int) -> list[tuple[float, int, int]]:
    """N (start, src, dst): distinct random hosts, starts spread over the first write interval."""
    rng = random.Random(20 + n)
    out = []
    for _ in range(n):
        src = rng.randrange(HOSTS)
        dst = rng.randrange(HOSTS - 1)
        dst += dst >= src
        out.append((rng.random() * INTERVAL_S, src, dst))
    return sorted(out)


def write(n: int, folder: Path) -> None:
    (folder / f"fat-tree-k32-n{n}.toml").write_text(SCENARIO.format(n=n, k=K, w=WRITE))
    lines = ["start,src,dst,size"] + [f"{s:.9f},h{a},h{b},{SIZE}" for s, a, b in flows(n)]
    (folder / f"fat-tree-k32-n{n}.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    for n in [int(a) for a in sys.argv[1:]] or [64, 512, 4096]:
        write(n, here)
