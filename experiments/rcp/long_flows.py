"""The RCP thesis's chapter 5 packet simulations on one link (`ch5-long-flows.toml`; Figs. 5.3,
5.10 - 5.13, and Fig. 7.1): groups of long-lived flows that start and stop together, and a run's
name by its gains (alpha, beta), as Figs. 5.3, 5.10 - 5.13 and 5.14 - 5.15 name their points.
"""

from __future__ import annotations

from typing import Any


def long_flows(starts_stops: list[tuple[int, float, float | None]]) -> list[dict[str, Any]]:
    """`count` flows l0 -> r0 per (count, start, stop) entry (stop None: until the end)."""
    out = []
    for count, start, stop in starts_stops:
        f: dict[str, Any] = {"src": "l0", "dst": "r0", "start": start}
        if stop is not None:
            f["stop"] = stop
        out += [dict(f) for _ in range(count)]
    return out


def ab(a: float, b: float) -> str:
    """A run's name by its gains alpha and beta ("a0.5-b0.5")."""
    return f"a{a:.1f}-b{b:.1f}"
