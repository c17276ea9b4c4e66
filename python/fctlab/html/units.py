"""Numbers as a person reads them: a quantity with the SI prefix that puts it between 1 and 1000
("10 Gb/s", "250 µs", "45.2 kB"), and never in exponent notation.

The reports' tables use it; `plot.js` formats the plots' ticks and readouts by the same rules.
"""

from __future__ import annotations

import math

PREFIXES = {-12: "p", -9: "n", -6: "µ", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P"}
#: The prefixes (powers of ten) each unit takes: no millibytes, no kiloseconds.
UNITS = {"s": (-12, 0), "B": (0, 15), "b/s": (0, 15)}


def number(x: float, digits: int = 4) -> str:
    """`x` to `digits` significant digits in positional notation: "12340", "0.0003688", "1.5"."""
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else str(x)
    rounded = float(f"{x:.{digits}g}")
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(rounded))))
    text = f"{rounded:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def quantity(x: float, unit: str, digits: int = 4) -> str:
    """`x` base units ("s", "B", "b/s") with the prefix that puts the number between 1 and 1000.

    A mean below one byte (a queue empty all but a few nanoseconds of the run) reads "< 1 B".
    """
    if not unit:
        return number(x, digits)
    if unit == "B" and 0 < x < 1:
        return "< 1 B"
    low, high = UNITS.get(unit, (0, 0))
    power = 0
    if x != 0 and math.isfinite(x):
        power = min(high, max(low, 3 * math.floor(math.log10(abs(x) * (1 + 1e-9)) / 3)))
        # 999.96 kB rounds to "1000 kB": one prefix up reads "1 MB".
        if abs(float(f"{x / 10**power:.{digits}g}")) >= 1000 and power + 3 <= high:
            power += 3
    return f"{number(x / 10**power, digits)} {PREFIXES[power]}{unit}"
