"""The scripted long-lived flows of the RCP thesis's Figs. 3.2 and 3.3 (sec. 3.2.1): flows given as
(source, destination, start, stop) on the captions' time line, scaled in time, and the scale of the
quick mode.
"""

from __future__ import annotations

from typing import Any

#: Quick mode runs the same script 4 times faster.
QUICK_SCALE = 0.25


def scaled_long_lived(flows: list[tuple[str, str, float, float]], scale: float) -> list[dict[str, Any]]:
    """Long-lived flow entries from (src, dst, start, stop), their times multiplied by `scale`."""
    return [{"src": s, "dst": d, "start": a * scale, "stop": b * scale} for s, d, a, b in flows]
