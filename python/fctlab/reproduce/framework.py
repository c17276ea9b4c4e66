"""The machinery behind `fctlab reproduce`: experiments as runs of a base scenario under named
overrides and seeds, executed as restartable sweeps, then analysed into a README per experiment.

An experiment's raw results (Parquet per run) go to a cache directory (default
`experiments/.runs/`, not versioned); re-running reuses a finished run only if its scenario and
the build are unchanged (`sweep.run_fingerprint`), and the report's footer says how many runs
were reused. Its report - a README.md
with "paper | fctlab" tables, plus plots, and an index.html of the same with interactive plots of
the runs (`fctlab.html.experiments`) - goes to `experiments/<paper>/<experiment>/`. `--quick`
uses fewer seeds and shorter runs and writes everything under `results/quick/` instead, so a
quick look never overwrites the full reproduction.

An experiment with `emulate` set also runs each of its points (or those of `emulated_points`) as
a real-time emulation (`fctlab.emulate.emulate`) under the name `<point>.emu`, after the
simulations: one at a time in this process whatever `--jobs` says (an emulation measures
wall-clock time), `emulate_seeds` repetitions each (quick mode: one), cached like the simulated
runs with the emulation's settings in the fingerprint.

An experiment without a base scenario (`analysis_only`) is an analytic model: no runs; its
analysis computes everything (quick mode: on coarser grids) and the footer gives its run time.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from fctlab.analysis import fct_sample
from fctlab.atomic import write_text
from fctlab.quantity import parse_time
from fctlab.reproduce import checks as paper_checks
from fctlab.reproduce.checks import Check, PaperValue
from fctlab.scenario import read_scenario, with_overrides
from fctlab.tools.sweep import Sweep, run_sweep


@dataclass
class Experiment:
    """One figure or table of a paper, as runs plus an analysis."""

    name: str
    title: str
    #: Base scenario file, relative to the paper's experiment directory; None for an analytic
    #: model, which has no points.
    base: str | None
    #: (run name, overrides) pairs.
    points: list[tuple[str, dict[str, Any]]]
    #: Seeds of the full reproduction (1..seeds).
    seeds: int
    #: Builds the README body from the runs; may save plots into `ctx.out`.
    analyze: Callable[[Runs, Context], str]
    #: Seeds in quick mode.
    quick_seeds: int = 1
    #: Overrides added to every run in quick mode (shorter runs), or a function of a run's
    #: (name, overrides) giving them (for runs of different lengths).
    quick: dict[str, Any] | Callable[[str, dict[str, Any]], dict[str, Any]] = field(default_factory=dict)
    #: Full-mode seed counts of particular runs (the rest use `seeds`).
    point_seeds: dict[str, int] = field(default_factory=dict)
    #: The names of the points quick mode runs (None: all of them), for large sweeps.
    quick_points: list[str] | None = None
    #: Keyword arguments of `fctlab.emulate.emulate` (time_scale, mode) to also emulate points
    #: (run `<point>.emu` beside `<point>`); None: simulation only.
    emulate: dict[str, Any] | None = None
    #: The points to emulate (None: all of them).
    emulated_points: list[str] | None = None
    #: Points that only run as emulations (`<name>.emu`), never simulated: a kernel TCP stack
    #: (`stack = "linux"`) exists only for real. Their overrides go through `quick` as points do.
    emulated_only: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: Repetitions of each emulation in full mode (seeds 1..n): unlike a simulation, no two are alike.
    emulate_seeds: int = 1
    #: Not one of the paper's figures but fctlab's own look at one (a difference taken apart, a
    #: setting the paper does not run): without checks, the index lists it as an investigation
    #: rather than as a figure whose numbers are not declared yet (`reproduce.checks`).
    investigation: bool = False


#: The suffix of an emulated point's run name.
EMU = ".emu"


def analysis_only(name: str, title: str, analyze: Callable[[Runs, Context], str]) -> Experiment:
    """An experiment without simulation runs: `analyze` computes its whole report."""
    return Experiment(name=name, title=title, base=None, points=[], seeds=0, analyze=analyze, quick_seeds=0)


@dataclass
class Context:
    """Where an analysis writes, in which mode it runs, and the paper's numbers it checks."""

    out: Path
    quick: bool
    seeds: list[int]
    #: The paper's numbers against fctlab's (`check`), reported after the analysis's text.
    checks: list[Check] = field(default_factory=list)

    def check(
        self,
        figure: str,
        quantity: str,
        paper: PaperValue,
        fctlab: float | None,
        *,
        tolerance: float = 0.10,
        partial: float = 0.30,
    ) -> Check:
        """Declares one of the paper's numbers and fctlab's value for it (`reproduce.checks`)."""
        c = Check(figure, quantity, paper, fctlab, tolerance=tolerance, partial=partial)
        self.checks.append(c)
        return c


class Runs:
    """Finished runs of one experiment: flows tables by run name and seed."""

    def __init__(self, root: Path, names: list[str], seeds: list[int], per_name: dict[str, list[int]] | None = None):
        self.root = root
        self.names = names
        #: Seeds every run has.
        self.seeds = seeds
        self._per_name = per_name or {}
        self._cache: dict[tuple[str, int], pl.DataFrame] = {}

    def seeds_of(self, *names: str) -> list[int]:
        """Seeds that every one of `names` was run with."""
        sets = [set(self._per_name.get(n, self.seeds)) for n in names]
        return sorted(set.intersection(*sets)) if sets else list(self.seeds)

    def flows(self, name: str, seed: int) -> pl.DataFrame:
        """The flows table of one run."""
        key = (name, seed)
        if key not in self._cache:
            self._cache[key] = pl.read_parquet(self.root / name / f"seed{seed}" / "flows.parquet")
        return self._cache[key]

    def sample(self, name: str, seed: int) -> pl.DataFrame:
        """Measured, completed, finite flows of one run."""
        return fct_sample(self.flows(name, seed))

    def meta(self, name: str, seed: int) -> dict[str, Any]:
        """The core's metadata of one run."""
        return json.loads((self.root / name / f"seed{seed}" / "meta.json").read_text())

    def links(self, name: str, seed: int) -> pl.DataFrame:
        """The links table of one run."""
        return pl.read_parquet(self.root / name / f"seed{seed}" / "links.parquet")

    def series(self, name: str, seed: int) -> pl.DataFrame:
        """The time series of one run."""
        return pl.read_parquet(self.root / name / f"seed{seed}" / "series.parquet")

    def wide_series(self, name: str, seed: int) -> pl.DataFrame:
        """The time series of one run as one row per sample time and one column per
        `<target>_<metric>` (e.g. `bottleneck_rcp_rate_bps`, `flow0_send_rate_bps`)."""
        s = self.series(name, seed)
        if s.height == 0:
            return pl.DataFrame(schema={"time_s": pl.Float64})
        s = s.with_columns(key=pl.col("target") + "_" + pl.col("metric"))
        return s.pivot("key", index="time_s", values="value").sort("time_s")

    def scenario(self, name: str, seed: int) -> dict[str, Any]:
        """The scenario of one run as the core saw it (overrides applied)."""
        return json.loads((self.root / name / f"seed{seed}" / "scenario.json").read_text())

    def window(self, name: str, seed: int) -> tuple[float, float]:
        """(measure_from, duration) of one run, in seconds: the span its measured flows start in."""
        s = self.scenario(name, seed)
        return parse_time(s.get("measure_from", 0), "measure_from"), parse_time(s["duration"], "duration")


def window_stat(wide: pl.DataFrame, column: str, start: float, end: float, how: str = "mean") -> float | None:
    """`how` ("mean", "max" or "min") of a `Runs.wide_series` column over samples in
    (start, end] s; None if the column is absent or has no sample there."""
    if column not in wide.columns:
        return None
    v = getattr(wide.filter((pl.col("time_s") > start) & (pl.col("time_s") <= end))[column], how)()
    return None if v is None else float(v)


def mean_fct(sample: pl.DataFrame) -> tuple[float, float]:
    """(mean FCT over flows, mean FCT over bytes) of a sample, in seconds."""
    s = sample.select(
        flows=pl.col("fct_s").mean(),
        bytes=(pl.col("fct_s") * pl.col("size_bytes")).sum() / pl.col("size_bytes").sum(),
    ).row(0)
    return float(s[0]), float(s[1])


def reduction(a: float, b: float) -> float:
    """(a - b) / a in percent."""
    return (a - b) / a * 100.0


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table."""

    def cell(x: Any) -> str:
        return x if isinstance(x, str) else ("-" if x is None else f"{x}")

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def checks_table(checks: Iterable[Check]) -> str:
    """The report's "Paper against fctlab" table."""
    rows = [[c.figure, c.quantity, c.paper_text(), c.fctlab_text(), c.status] for c in checks]
    return md_table(["figure", "quantity", "paper", "fctlab", "status"], rows)


def fmt(x: float | None, spec: str, scale: float = 1.0) -> str:
    """`x / scale` formatted with `spec`, or "-" for a missing value (None or NaN)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x / scale, spec)


def mean_std(values: list[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for one value)."""
    n = len(values)
    m = sum(values) / n
    if n < 2:
        return m, 0.0
    return m, (sum((v - m) ** 2 for v in values) / (n - 1)) ** 0.5


def pm(values: list[float], fmt: str = ".2f") -> str:
    """`mean ± std` of values (just the mean for one value)."""
    m, s = mean_std(values)
    return format(m, fmt) if len(values) < 2 else f"{format(m, fmt)} ± {format(s, fmt)}"


def plt():
    """matplotlib.pyplot with a non-interactive backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    return pyplot


@contextmanager
def figure(
    ctx: Context, file: str, nrows: int = 1, ncols: int = 1, *, dpi: int = 110, **subplots: Any
) -> Iterator[Any]:
    """A plot of the report: yields (fig, axes) as `pyplot.subplots(nrows, ncols, **subplots)`
    gives them; on leaving the block, lays the figure out, saves it as `ctx.out / file` and
    closes it (also when the block raises, saving nothing then).

        with figure(ctx, "fig3-3.png", 1, 2, figsize=(10, 3.5)) as (fig, axes):
            axes[0].plot(...)
    """
    pyplot = plt()
    fig, axes = pyplot.subplots(nrows, ncols, **subplots)
    try:
        yield fig, axes
        fig.tight_layout()
        fig.savefig(ctx.out / file, dpi=dpi)
    finally:
        pyplot.close(fig)


def run_experiment(
    exp: Experiment,
    paper_dir: Path,
    cache: Path,
    out_root: Path,
    *,
    quick: bool,
    jobs: int | None,
    say: Callable[[str], None],
    time_scale: float | None = None,
) -> dict[str, Any]:
    """Runs (or reuses) every run of `exp`, then writes its README; returns a summary record.

    `time_scale` (tests only) multiplies every run's duration, warm-up and hard stop on top of
    quick mode's settings: a smoke run of the whole pipeline, whose numbers mean nothing.
    """
    if exp.base is None:
        return _run_analysis(exp, paper_dir, out_root, quick=quick, say=say)
    seeds = list(range(1, (exp.quick_seeds if quick else exp.seeds) + 1))

    def shortened(n: str, o: dict[str, Any]) -> dict[str, Any]:
        return (exp.quick(n, o) if callable(exp.quick) else exp.quick) if quick else {}

    chosen = (
        exp.points if not quick or exp.quick_points is None else [p for p in exp.points if p[0] in exp.quick_points]
    )
    points = [(n, {**o, **shortened(n, o)}) for n, o in chosen]
    only = [(n, {**o, **shortened(n, o)}) for n, o in exp.emulated_only]
    if time_scale is not None:
        base, _ = read_scenario(paper_dir / exp.base)
        points = [(n, {**o, **_scaled_times(with_overrides(base, o), time_scale)}) for n, o in points]
        only = [(n, {**o, **_scaled_times(with_overrides(base, o), time_scale)}) for n, o in only]
    per_name = {n: (seeds if quick else list(range(1, exp.point_seeds.get(n, exp.seeds) + 1))) for n, _ in points}
    emulated = [
        (n + EMU, o)
        for n, o in points
        if exp.emulate is not None and (exp.emulated_points is None or n in exp.emulated_points)
    ] + [(n + EMU, o) for n, o in only]
    per_name.update({n: list(range(1, (1 if quick else exp.emulate_seeds) + 1)) for n, _ in emulated})
    root = cache / exp.name
    t0 = time.perf_counter()
    say(
        f"[{exp.name}] {len(points)} configurations x {len(seeds)} seeds"
        + ("" if quick or not exp.point_seeds else f" ({', '.join(f'{k}: {v}' for k, v in exp.point_seeds.items())})")
        + (f", {len(emulated)} emulated x {len(per_name[emulated[0][0]])}, one at a time" if emulated else "")
    )
    outcomes = []
    for count in sorted({len(v) for v in per_name.values()}):
        group = [(n, o) for n, o in points if len(per_name[n]) == count]
        sweep = Sweep(scenario=paper_dir / exp.base, seeds=list(range(1, count + 1)), points=group)
        outcomes += run_sweep(sweep, root, jobs=jobs, progress=os.isatty(2), report=say)
    if emulated:
        count = len(per_name[emulated[0][0]])
        sweep = Sweep(paper_dir / exp.base, list(range(1, count + 1)), emulated, emulation=dict(exp.emulate or {}))
        outcomes += run_sweep(sweep, root, jobs=1, progress=os.isatty(2), report=say)
    failed = [o for o in outcomes if o.status != "done"]
    out = out_root / exp.name
    out.mkdir(parents=True, exist_ok=True)
    if failed:
        msg = "; ".join(f"{o.run.relpath}: {o.error}" for o in failed[:5])
        _write_report(out, exp, f"Not reproduced: {len(failed)} runs failed ({msg}).", "", [])
        return {"experiment": exp.name, "status": "failed", "error": msg}
    common = sorted(set.intersection(*(set(v) for v in per_name.values()))) if per_name else seeds
    names = [n for n, _ in points + emulated]
    runs = Runs(root, names, common, per_name)
    ctx = Context(out, quick, common)
    body = exp.analyze(runs, ctx)
    simulated = [o for o in outcomes if not o.run.name.endswith(EMU)]
    wall = sum((o.record.get("meta") or {}).get("wall_s") or 0.0 for o in simulated)
    emu_wall = sum((o.record.get("meta") or {}).get("wall_s") or 0.0 for o in outcomes if o.run.name.endswith(EMU))
    mode = "quick (shortened runs, fewer seeds: not comparable to the paper)" if quick else "full"
    reused = sum(o.skipped for o in outcomes)
    counts = sorted({len(v) for v in per_name.values()}) or [len(seeds)]
    seed_text = " or ".join(f"1..{c}" for c in counts)
    footer = (
        f"\n\n---\nMode: {mode}. Seeds: {seed_text} (per configuration). Runs: {len(outcomes)} "
        f"({len(outcomes) - reused} run now, {reused} reused from the run cache with the same scenario and build), "
        f"simulation time {wall:.0f} s of one core"
        + (f", emulation {emu_wall:.0f} s of wall-clock time" if emulated else "")
        + f". Base scenario: `experiments/{paper_dir.name}/{exp.base}`; "
        f"regenerate with `fctlab reproduce {paper_dir.name} --only {exp.name}{' --quick' if quick else ''}`.\n"
    )
    _write_report(out, exp, body, footer, ctx.checks, runs)
    say(f"[{exp.name}] done in {time.perf_counter() - t0:.0f} s -> {out / 'README.md'}")
    return {"experiment": exp.name, "status": "done", "title": exp.title}


def _write_report(
    out: Path, exp: Experiment, body: str, footer: str, checks: list[Check], runs: Runs | None = None
) -> None:
    """The README (the analysis's text, then its checks against the paper, then the footer),
    `checks.json` beside it (removed when the analysis declares none, so no stale verdict stays),
    then index.html (the README as HTML, with plots of the runs when given: `fctlab.html.experiments`)."""
    from fctlab.html.experiments import write_index

    text = body.strip()
    if checks:
        n = sum(c.status == paper_checks.MATCH for c in checks)
        text += (
            f"\n\n## Paper against fctlab\n\nStatus: **{paper_checks.experiment_status(checks)}** "
            f"({n} of {len(checks)} numbers within their tolerance; `fctlab.reproduce.checks` says how a "
            "status is decided).\n\n" + checks_table(checks)
        )
        paper_checks.write(out / paper_checks.CHECKS_FILE, checks)
    else:
        (out / paper_checks.CHECKS_FILE).unlink(missing_ok=True)
    write_text(out / "README.md", f"# {exp.title}\n\n{text}\n{footer}")
    write_index(out, first_seed_flows(runs) if runs is not None else ())


def first_seed_flows(runs: Runs) -> list[tuple[str, pl.DataFrame]]:
    """The flows table of each run name's first seed (the runs index.html plots)."""
    flows = []
    for name in runs.names:
        seeds = runs.seeds_of(name)
        if seeds:
            flows.append((name, runs.flows(name, seeds[0])))
    return flows


def _run_analysis(
    exp: Experiment, paper_dir: Path, out_root: Path, *, quick: bool, say: Callable[[str], None]
) -> dict[str, Any]:
    """Writes the README of an experiment without runs; returns its summary record."""
    out = out_root / exp.name
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    ctx = Context(out, quick, [])
    body = exp.analyze(Runs(out, [], []), ctx)
    wall = time.perf_counter() - t0
    mode = "quick (coarser grids, shorter horizons: not comparable to the paper)" if quick else "full"
    footer = (
        f"\n\n---\nMode: {mode}. No simulation runs: computed in Python in {wall:.0f} s of one core; "
        f"regenerate with `fctlab reproduce {paper_dir.name} --only {exp.name}{' --quick' if quick else ''}`.\n"
    )
    _write_report(out, exp, body, footer, ctx.checks)
    say(f"[{exp.name}] computed in {wall:.0f} s -> {out / 'README.md'}")
    return {"experiment": exp.name, "status": "done", "title": exp.title}


def _scaled_times(spec: Mapping[str, Any], factor: float) -> dict[str, Any]:
    """Overrides that multiply a scenario's duration, measure_from and max_time by `factor`. A
    long-lived flow without `stop` that would then start at or after the shortened duration (a
    scenario refuses it) gets a stop past its start, as a flow the shortened run ends before."""
    out = {k: parse_time(spec[k], k) * factor for k in ("duration", "measure_from", "max_time") if k in spec}
    if "duration" not in out:
        return out
    end = out["duration"]
    for i, entry in enumerate(spec.get("workload", [])):
        if not isinstance(entry, Mapping) or entry.get("kind") != "long_lived":
            continue
        flows = entry.get("flows")
        if not isinstance(flows, list) or not all(isinstance(f, Mapping) for f in flows):
            continue
        starts = [parse_time(f.get("start", 0), f"workload[{i}].flows.start") for f in flows]
        if all("stop" in f or t < end for f, t in zip(flows, starts)):
            continue
        out[f"workload.{i}.flows"] = [
            f if "stop" in f or t < end else {**f, "stop": 2 * t + 1} for f, t in zip(flows, starts)
        ]
    return out


def run_paper(
    paper: str,
    experiments: list[Experiment],
    repo: Path,
    *,
    quick: bool,
    only: list[str] | None,
    jobs: int | None,
    cache: Path | None,
    say: Callable[[str], None],
) -> int:
    """Runs the chosen experiments of a paper; returns the number that failed."""
    paper_dir = repo / "experiments" / paper
    chosen = [e for e in experiments if not only or e.name in only]
    unknown = sorted(set(only or []) - {e.name for e in experiments})
    if unknown:
        names = ", ".join(e.name for e in experiments)
        raise ValueError(f"unknown experiment(s) {', '.join(unknown)} for {paper}; known: {names}")
    out_root = (repo / "results" / "quick" / paper) if quick else paper_dir
    cache = cache or (repo / ("results/quick/.runs" if quick else "experiments/.runs") / paper)
    records = [run_experiment(e, paper_dir, cache, out_root, quick=quick, jobs=jobs, say=say) for e in chosen]
    return sum(r["status"] != "done" for r in records)


def overrides_of(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """A plain dict copy of overrides (for readability at call sites)."""
    return dict(mapping)
