"""One run of a sweep: what it is (`RunSpec`), what became of it (`Outcome`), the record its
`done.json` keeps, and the build it ran on. What a sweep run in this process
(`fctlab.tools.sweep`) and one run by a Dask worker (`fctlab.tools.cluster`) share; it imports
neither of them.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The summary numbers copied into done.json and the sweep index.
KEY_NUMBERS = (
    "flows_started",
    "flows_completed",
    "measured",
    "measured_incomplete",
    "mean_fct_s",
    "mean_fct_bytes_weighted_s",
    "p50_fct_s",
    "p99_fct_s",
    "mean_slowdown",
)


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: a name, the overrides it applies, a seed."""

    name: str
    overrides: dict[str, Any]
    seed: int

    @property
    def relpath(self) -> str:
        """Its directory under the sweep's output directory."""
        return f"{self.name}/seed{self.seed}"


@dataclass
class Outcome:
    """What happened to one run: "done" (now or earlier) or "failed"."""

    run: RunSpec
    status: str
    skipped: bool = False
    error: str | None = None
    record: dict[str, Any] = field(default_factory=dict)


def build_id() -> str:
    """This build: the package version and a hash of the compiled core module in use (hashed once
    per core file: a process whose core changes, as the tests' stand-in core does, gets the new
    one's)."""
    from fctlab.run import core

    return _build_of(getattr(core(), "__file__", None))


@functools.cache
def _build_of(path: str | None) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        package = version("fctlab")
    except PackageNotFoundError:
        package = "0+unknown"
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16] if path else "unknown"
    return f"{package}+core.{digest}"


def done_record(
    spec: RunSpec, fingerprint: str | None, result: Any, emulation: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """What `done.json` holds: the run, its fingerprint, its key numbers."""
    record = {
        "run": spec.name,
        "seed": spec.seed,
        "overrides": spec.overrides,
        "fingerprint": fingerprint,
        "summary": {k: result.summary.get(k) for k in KEY_NUMBERS},
        "meta": {k: result.meta.get(k) for k in ("sim_time_s", "wall_s", "events", "packet_hops")},
    }
    if emulation is not None:
        emu = result.meta.get("emulation") or {}
        record["emulation"] = {k: emu.get(k) for k in ("mode", "time_scale", "warnings")}
    return record
