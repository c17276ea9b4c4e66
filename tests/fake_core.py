"""A stand-in for the compiled `fctlab._core`, with the same contract and made-up numbers.

Deterministic per seed. It understands a tiny scenario: `seed`, `duration`, `[[workload]]`
with `load` (refused unless 0 < load < 1, like the real core), `transport.protocol`
("rc3" gives shorter FCTs), and a test-only `[fake]` table (`flows`, `crash`).
Every attempt to build a Simulation and every `run_until` target is recorded in `CALLS`.
"""

from __future__ import annotations

import json
import random
import time

from fctlab._core import COLUMNS  # the real core's column list: the fake's tables follow it
from fctlab.errors import ScenarioError
from fctlab.quantity import parse_time

CALLS: dict[str, list] = {"built": [], "run_until": []}


def column_names(table: str) -> list[str]:
    """The columns of a result table, in order, as the core lists them."""
    return [name for name, _, _ in COLUMNS[table]]


_KNOWN = {"seed", "duration", "topology", "workload", "transport", "fake"}
_SIZES = [1460, 2920, 14600, 146000]


class Simulation:
    """Builds a fake world from JSON; refuses what the real core would."""

    def __init__(self, scenario_json: str, base_dir: str) -> None:
        spec = json.loads(scenario_json)
        CALLS["built"].append(spec)  # every attempt, refused ones included
        for key in spec:
            if key not in _KNOWN:
                raise ScenarioError(f"field `{key}`: unknown field, expected one of {', '.join(sorted(_KNOWN))}")
        for i, w in enumerate(spec.get("workload", [])):
            load = w.get("load", 0.3)
            if not 0 < load < 1:
                raise ScenarioError(f"field `workload[{i}].load`: expected 0 < load < 1, got {load}")
        self._spec = spec
        self._seed = int(spec.get("seed", 0))
        self.horizon = parse_time(spec.get("duration", 1.0), "duration")
        self.now = 0.0
        self._t0 = time.perf_counter()
        fake = spec.get("fake", {})
        self._crash = bool(fake.get("crash", False))
        self._flows = self._make_flows(int(fake.get("flows", 50)))
        self._taken = 0  # rows handed over by take_flows
        finishes = [f for f in self._flows["finish_s"] if f is not None]
        self._end = max([self.horizon, *finishes])

    def _make_flows(self, n: int) -> dict[str, list]:
        rng = random.Random(self._seed)
        proto = self._spec.get("transport", {}).get("protocol", "tcp")
        load = (self._spec.get("workload") or [{}])[0].get("load", 0.3)
        speed = 0.6 if proto == "rc3" else 1.0
        cols: dict[str, list] = {name: [] for name in column_names("flows")}
        for i in range(n + 1):
            long_lived = i == n
            size = -1 if long_lived else rng.choice(_SIZES)
            start = 0.0 if long_lived else rng.uniform(0, self.horizon)
            ideal = 0.0 if long_lived else 0.02 + size * 8 / 1e9
            fct = None if long_lived else ideal * (1 + load * 4 * rng.random()) * speed + 0.001
            row = {
                "id": i,
                "src": f"h{i % 4}",
                "dst": f"h{(i + 1) % 4}",
                "size_bytes": size,
                "start_s": start,
                "finish_s": None if fct is None else start + fct,
                "fct_s": fct,
                "acked_s": None if fct is None else start + fct + 0.01,
                "rtt_prop_s": 0.02,
                "ideal_fct_s": ideal,
                "first_write_s": None,
                "delivered_bytes": 10**6 if long_lived else size,
                "retx_bytes": 0,
                "timeouts": 0,
                "protocol": proto,
                "mss_bytes": 1460,
                "header_bytes": 40,
                "workload": "long" if long_lived else "w0",
                "measured": start >= 0.2 * self.horizon,
                "path": [0],
            }
            assert list(row) == list(cols), "the fake's rows follow the core's column list"
            for k, v in row.items():
                cols[k].append(v)
        return cols

    def run_until(self, t: float) -> bool:
        """Advances to t (capped at the drained end); True once finished."""
        CALLS["run_until"].append(t)
        if self._crash and t > self.horizon / 2:
            raise RuntimeError("fake core crashed")
        self.now = min(t, self._end)
        return self.now >= self._end

    def take_flows(self) -> dict | None:
        """The rows that became final since the last call, as the core hands them over: those
        after the last piece up to the first flow not finished by now; every row left once the
        run is over. None if there are none."""
        finish = self._flows["finish_s"]
        end = self._taken
        if self.now >= self._end:
            end = len(finish)
        while end < len(finish) and finish[end] is not None and finish[end] <= self.now:
            end += 1
        if end == self._taken:
            return None
        piece = {k: v[self._taken : end] for k, v in self._flows.items()}
        self._taken = end
        return piece

    def results(self) -> dict:
        """The contract's dict of columns (the flows not yet handed over by take_flows)."""
        links = {
            "id": [0, 1],
            "name": ["bottleneck", "bottleneck_rev"],
            "src": ["rl", "rr"],
            "dst": ["rr", "rl"],
            "rate_bps": [10**9, 10**9],
            "delay_s": [0.01, 0.01],
            "pkts_sent": [100, 50],
            "bytes_sent": [150000, 2000],
            "drops_pkts": [1, 0],
            "drops_bytes": [1500, 0],
            "utilization": [0.5, 0.01],
            "queue_avg_bytes": [1200, 0],  # ints on purpose: the Result must coerce them to floats
            "queue_max_bytes": [30000, 40],
        }
        series = {
            "time_s": [0.0, 0.5],
            "metric": ["queue_bytes"] * 2,
            "target": ["bottleneck"] * 2,
            "value": [0, 1500.0],
        }
        assert list(links) == column_names("links") and list(series) == column_names("series")
        done = sum(f is not None for f in self._flows["finish_s"])
        meta = {
            "seed": self._seed,
            "sim_time_s": self.now,
            "wall_s": time.perf_counter() - self._t0,
            "events": 1234,
            "packet_hops": 5678,
            "flows_started": len(self._flows["id"]),
            "flows_completed": done,
            "version": "fake",
        }
        flows = {k: v[self._taken :] for k, v in self._flows.items()}
        return {"flows": flows, "links": links, "series": series, "meta": meta}
