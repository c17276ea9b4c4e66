"""Scenario quantities with units, read on the Python side ("40ms", "10Gbps", "5MB").

The core parses quantities itself (crates/fctlab-core/src/quantity.rs); Python needs the values
only where it computes with them before the core sees the scenario (topohub delay scaling).
Same conventions: plain numbers are base units (seconds, bits/s, bytes), decimal prefixes,
`KiB`/`MiB`/`GiB` binary.
"""

from __future__ import annotations

import math
import re

from fctlab.errors import field_error

_NUMBER_UNIT = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z]*)\s*$")

TIME_UNITS = {"": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}
RATE_UNITS = {"": 1.0, "bps": 1.0, "Kbps": 1e3, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12}
BYTE_UNITS = {
    "": 1.0,
    "B": 1.0,
    "KB": 1e3,
    "kB": 1e3,
    "MB": 1e6,
    "GB": 1e9,
    "KiB": 1024.0,
    "MiB": 1048576.0,
    "GiB": 1073741824.0,
}


def parse_time(value: object, field: str) -> float:
    """A duration in seconds from `"40ms"` or a number of seconds; must be >= 0."""
    return _parse(value, field, 'a duration like "40ms"', TIME_UNITS, allow_zero=True)


def parse_rate(value: object, field: str) -> float:
    """A rate in bits/s from `"10Gbps"` or a number of bits/s; must be > 0."""
    return _parse(value, field, 'a rate like "10Gbps"', RATE_UNITS, allow_zero=False)


def parse_bytes(value: object, field: str) -> int:
    """A size in bytes from `"5MB"` or a number of bytes; must be >= 0."""
    return round(_parse(value, field, 'a size like "5MB"', BYTE_UNITS, allow_zero=True))


def _parse(value: object, field: str, what: str, units: dict[str, float], allow_zero: bool) -> float:
    # bool is an int in Python; `true` is never a quantity.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        v = float(value)
    elif isinstance(value, str):
        m = _NUMBER_UNIT.match(value)
        if m is None:
            raise field_error(field, what, value)
        num, unit = m.groups()
        if unit not in units:
            known = ", ".join(u for u in units if u)
            raise field_error(field, f"{what} (units: {known})", value)
        v = float(num) * units[unit]
    else:
        raise field_error(field, what, value)
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise field_error(field, f"{what} {'>= 0' if allow_zero else '> 0'}", value)
    return v
