"""Paper against fctlab: the numbers an experiment is judged by, and its status.

An analysis states its verdict as data, not prose: each `Check` is one number the paper gives
(a value, or a range such as "below 2" or "close to PS", 1.0 - 1.15) beside fctlab's value for
it, computed by the analysis from the runs. The framework (`framework.run_experiment`) appends
them to the report as a "Paper against fctlab" table and writes them to `checks.json` beside it;
`fctlab reproduce all` and `fctlab reproduce index` gather every experiment's file into one
table of every figure of every paper (`reproduce/index.py`).

A check's status, from the relative distance d between fctlab's value and the paper's (0 inside
a range; else |fctlab - bound| / |bound| to the nearer bound):

- **match**: d <= `tolerance` (default 10%);
- **partial**: d <= `partial` (default 30%);
- **miss**: farther, or fctlab has no value.

An experiment matches when every check matches, misses when none matches, and is partial in
between; one without checks is an investigation (`Experiment.investigation`: fctlab's own look
at a figure, no paper number of its own) or has not declared its numbers yet ("not declared").
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

#: The file of an experiment's checks, beside its README.
CHECKS_FILE = "checks.json"

MATCH = "match"
PARTIAL = "partial"
MISS = "miss"
#: An experiment that is not one of the paper's figures but fctlab's own look at one (a
#: difference taken apart, a setting the paper does not run: `Experiment.investigation`), with
#: no number of the paper to check.
INVESTIGATION = "investigation"
#: An experiment whose analysis declares no checks.
UNDECLARED = "not declared"
#: The statuses from best to worst.
ORDER = (MATCH, PARTIAL, MISS, INVESTIGATION, UNDECLARED)

#: A paper's number: a value, or a range (low, high) where either end may be None (open).
PaperValue = float | tuple[float | None, float | None]


@dataclass(frozen=True)
class Check:
    """One number of a paper, and fctlab's value for it."""

    #: The figure, table or section the paper gives it in ("Fig. 3.3", "sec. 4.2.1").
    figure: str
    #: What is measured, with its unit ("group A's rate, Mb/s").
    quantity: str
    #: The paper's number, or a range (low, high) with None for an open end.
    paper: PaperValue
    #: fctlab's number; None when the runs could not give one (a miss).
    fctlab: float | None
    #: Relative distance that still counts as a match.
    tolerance: float = 0.10
    #: Relative distance that counts as a partial match.
    partial: float = 0.30

    def __post_init__(self) -> None:
        if not 0 <= self.tolerance <= self.partial:
            raise ValueError(
                f"check {self.quantity!r}: expected 0 <= tolerance <= partial, got {self.tolerance}, {self.partial}"
            )
        low, high = self.bounds
        if low is None and high is None:
            raise ValueError(f"check {self.quantity!r}: the paper's range has no end")
        if low is not None and high is not None and low > high:
            raise ValueError(f"check {self.quantity!r}: the paper's range ({low}, {high}) is reversed")

    @property
    def bounds(self) -> tuple[float | None, float | None]:
        """The paper's number as a range (a value v is the range (v, v))."""
        if isinstance(self.paper, tuple):
            return self.paper
        return float(self.paper), float(self.paper)

    @property
    def distance(self) -> float:
        """Relative distance of fctlab's value from the paper's (0 inside its range; inf without a value)."""
        if self.fctlab is None or not math.isfinite(self.fctlab):
            return math.inf
        low, high = self.bounds
        if low is not None and self.fctlab < low:
            return _relative(self.fctlab, low)
        if high is not None and self.fctlab > high:
            return _relative(self.fctlab, high)
        return 0.0

    @property
    def status(self) -> str:
        d = self.distance
        return MATCH if d <= self.tolerance else PARTIAL if d <= self.partial else MISS

    def paper_text(self) -> str:
        """The paper's number as the report shows it."""
        low, high = self.bounds
        if low == high:
            return _num(low)
        if low is None:
            return f"<= {_num(high)}"
        if high is None:
            return f">= {_num(low)}"
        return f"{_num(low)} - {_num(high)}"

    def fctlab_text(self) -> str:
        return "-" if self.fctlab is None else _num(self.fctlab)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["paper"] = list(self.paper) if isinstance(self.paper, tuple) else self.paper
        # 12 significant digits: a mean that a multi-threaded aggregation sums in another order
        # differs in its last bits only, and the file stays the same bytes from run to run.
        d["fctlab"] = None if self.fctlab is None else float(f"{self.fctlab:.12g}")
        d["status"] = self.status
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Check:
        paper = d["paper"]
        return cls(
            figure=d["figure"],
            quantity=d["quantity"],
            paper=tuple(paper) if isinstance(paper, list) else paper,
            fctlab=d.get("fctlab"),
            tolerance=d.get("tolerance", 0.10),
            partial=d.get("partial", 0.30),
        )


def _relative(value: float, bound: float) -> float:
    scale = abs(bound)
    return abs(value - bound) / scale if scale > 0 else (0.0 if value == bound else math.inf)


def _num(x: float | None) -> str:
    """Three significant digits, no exponent for everyday magnitudes."""
    if x is None:
        return "-"
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e6:
        digits = max(0, 2 - math.floor(math.log10(abs(x))))
        return f"{x:,.{digits}f}"
    return f"{x:.3g}"


def ratio(a: float | None, b: float | None) -> float | None:
    """a / b, the usual fctlab value of a check; None when either is missing or b is 0."""
    return None if a is None or not b else a / b


def experiment_status(checks: Sequence[Check], investigation: bool = False) -> str:
    """match if every check matches, miss if none does, partial in between; without checks,
    "investigation" for an investigation and "not declared" for the rest."""
    if not checks:
        return INVESTIGATION if investigation else UNDECLARED
    statuses = [c.status for c in checks]
    if all(s == MATCH for s in statuses):
        return MATCH
    if all(s == MISS for s in statuses):
        return MISS
    return PARTIAL


def write(path: Path, checks: Sequence[Check]) -> None:
    """`checks.json`: the checks and the experiment's status."""
    from fctlab.atomic import write_text

    doc = {"status": experiment_status(checks), "checks": [c.to_json() for c in checks]}
    write_text(path, json.dumps(doc, indent=2, sort_keys=True) + "\n")


def read(path: Path) -> list[Check]:
    """The checks an experiment's `checks.json` holds (none if it has no such file)."""
    if not path.is_file():
        return []
    return [Check.from_json(d) for d in json.loads(path.read_text())["checks"]]
