"""XCP's equilibrium with a flow it cannot hold (Katabi et al.'s controllers, in rates): what
Fig. 6's departure from max-min and Fig. 10's miss in the three-flow phase both come from."""

from __future__ import annotations


def xcp_free_rate(capacity: float, held: float, flows: int, alpha: float, gamma: float) -> float:
    """XCP's equilibrium rate of the one flow a link of `capacity` alone limits, when it shares
    the link with `flows` - 1 others whose total rate `held` another link sets (bit/s; no
    standing queue). Katabi et al.'s controllers, in rates: the link hands out positive feedback
    h + alpha S equally per flow and negative feedback h in proportion to rate, with S = capacity
    - y the spare capacity, y = x + held, and shuffling h = max(0, gamma y - alpha S); the free
    flow x is steady where (h + alpha S) / flows = h x / y, while the held flows cannot use their
    share, so the link keeps spare capacity. Bisection on (0, capacity - held]."""

    def surplus(x: float) -> float:
        y = x + held
        spare = capacity - y
        h = max(0.0, gamma * y - alpha * spare)
        return (h + alpha * spare) / flows - h * x / y

    lo, hi = 0.0, capacity - held
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if surplus(mid) > 0 else (lo, mid)
    return (lo + hi) / 2
