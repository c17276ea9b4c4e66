"""The HPCC paper's fat tree (Li et al., SIGCOMM 2019, sec. 5.1: "16 core switches, 20 aggregation
switches, 20 ToRs and 320 servers (16 in each rack)"; 100 Gb/s servers, 400 Gb/s between switches),
as the authors' simulator describes it (`mix/fat.txt`): node ids 0-319 the servers, 320-339 the
ToRs, 340-359 the aggregation switches, 360-375 the cores, every link 1 us.

- Server s hangs from ToR 320 + s // 16.
- Five pods of four ToRs and four aggregation switches; each ToR joins the four of its pod.
- Aggregation switch a of a pod (a = 0..3) joins cores 360 + 4a to 360 + 4a + 3.

Nodes are named `n<id>`, as `fctlab hpcc run` names the nodes of an HPCC topology file, so the
authors' flow files (by node id) and fct.txt line up. `python topology.py` writes
`fat-tree-320.json`, the `graph` file of the base scenario; a test checks that file is this.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SERVERS, RACK, PODS, PER_POD, CORES = 320, 16, 5, 4, 16
TORS = SERVERS // RACK
TOR0, AGG0, CORE0 = SERVERS, SERVERS + TORS, SERVERS + 2 * TORS
HOST_RATE, FABRIC_RATE, DELAY = "100Gbps", "400Gbps", "1us"
FILE = Path(__file__).with_name("fat-tree-320.json")


def links() -> list[tuple[int, int, str]]:
    """(a, b, rate) of every link, in the order of the authors' file."""
    out = [(s, TOR0 + s // RACK, HOST_RATE) for s in range(SERVERS)]
    for t in range(TORS):
        pod = t // PER_POD
        out += [(TOR0 + t, AGG0 + PER_POD * pod + a, FABRIC_RATE) for a in range(PER_POD)]
    for g in range(PODS * PER_POD):
        a = g % PER_POD
        out += [(AGG0 + g, CORE0 + PER_POD * a + c, FABRIC_RATE) for c in range(CORES // PER_POD)]
    return out


def graph() -> dict[str, Any]:
    """The fat tree as a `kind = "graph"` file's contents."""
    n = CORE0 + CORES
    nodes = [{"name": f"n{i}", "kind": "host" if i < SERVERS else "router"} for i in range(n)]
    return {
        "nodes": nodes,
        "links": [{"a": f"n{a}", "b": f"n{b}", "rate": rate, "delay": DELAY} for a, b, rate in links()],
    }


def text() -> str:
    """The graph file's text (one node or link per line)."""
    g = graph()
    lines = ['{"nodes": [']
    lines += [json.dumps(x) + ("," if i < len(g["nodes"]) - 1 else "") for i, x in enumerate(g["nodes"])]
    lines.append('], "links": [')
    lines += [json.dumps(x) + ("," if i < len(g["links"]) - 1 else "") for i, x in enumerate(g["links"])]
    lines.append("]}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    FILE.write_text(text())
    print(f"wrote {FILE}")
