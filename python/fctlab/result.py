"""One run's results as tables: per-flow, per-link and time series, plus meta and scenario.

The column order and dtypes are the contract every downstream script reads. They come from the
core's one list of result columns (`_core.COLUMNS`, defined in the Rust crate's
`metrics/tables.rs`); the core's `results()` dict is coerced into them. The compiled core hands
each table over as Arrow arrays built in Rust (`_core.ArrowTable`, read by `pl.DataFrame(table)`
without copying a value); a stand-in core may hand over plain lists per column instead.

A results directory holds flows.parquet, links.parquet, series.parquet, summary.json,
scenario.json (the resolved scenario) and meta.json, written together and atomically (all six
under temporary names, then renamed: `fctlab.atomic`). Writing is deterministic: the same
Result gives byte-identical Parquet files (one chunk, fixed row-group size, fixed compression
level); the only wall-clock number, `wall_s`, lives in meta.json.

What the run's build found worth telling that is not an error (`.notices`, e.g. equal-cost
paths that single-path routing left unused) is kept in meta.json under `notices` when there is
any, and read back into `.notices`, not `.meta`.

A run written as it goes (`fctlab.run.run_to`, what `fctlab run -o` does) streams its flows
table to Parquet instead of holding it (`fctlab.stream`): its Result has the flows table as that
file, read back when `.flows` is first asked for, and its summary scans it.

A run whose scenario asks for a packet capture (`[output.pcap]`, `docs/pcap.md`) has it as
`.capture_file`, a pcapng file the core wrote as the run went; `write` puts it into the results
directory as `capture.pcapng`, with the other files (all or none).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property, partial
from pathlib import Path
from typing import Any

import polars as pl

from fctlab.atomic import Writer, temp_name, write_files
from fctlab.errors import ScenarioError

#: The tables' types as the core's column list spells them (`_core.COLUMNS`).
_DTYPES: dict[str, pl.DataType] = {
    "i64": pl.Int64,
    "f64": pl.Float64,
    "str": pl.String,
    "bool": pl.Boolean,
    "list[i64]": pl.List(pl.Int64),
}


def _schemas() -> dict[str, dict[str, pl.DataType]]:
    """{table: {column: dtype}} from the core's one list of result columns."""
    try:
        from fctlab._core import COLUMNS
    except ImportError:  # the core is not built: tables are read as they are
        return {"flows": {}, "links": {}, "series": {}}
    return {table: {name: _DTYPES[dtype] for name, dtype, _ in cols} for table, cols in COLUMNS.items()}


#: The packet capture's file name in a results directory (`[output.pcap]`).
CAPTURE_NAME = "capture.pcapng"
#: The name a failed run keeps the packets it captured under.
CAPTURE_PARTIAL_NAME = "capture.partial.pcapng"
#: The PFC frames of a lossless fabric's run (`[fabric]`), as HPCC's simulator writes them.
PFC_LOG_NAME = "pfc.txt"

#: Column order and dtypes of each table, derived from the core.
TABLES = _schemas()
FLOW_SCHEMA = TABLES["flows"]
LINK_SCHEMA = TABLES["links"]
SERIES_SCHEMA = TABLES["series"]


# Fixed so that the file layout does not depend on how the frame happens to be chunked. A row
# group is also what a streamed table (fctlab.stream) holds before writing it: 2^17 rows, about
# 25 MB of a flows table, lets the writer keep up with the run.
_ROW_GROUP_ROWS = 1 << 17
_ZSTD_LEVEL = 3


class Result:
    """A finished run: `.flows`, `.links`, `.series` (DataFrames), `.meta`, `.scenario`, `.summary`,
    and `.notices` (what the core's build had to say that is not an error, one sentence each).

    `flows` may be given as the path of its Parquet file (a streamed run, `fctlab.stream`): it is
    then read when `.flows` is first asked for.
    """

    def __init__(
        self,
        flows: pl.DataFrame | os.PathLike,
        links: pl.DataFrame,
        series: pl.DataFrame,
        meta: Mapping[str, Any],
        scenario: Mapping[str, Any],
        notices: Sequence[str] = (),
    ) -> None:
        self._flows: pl.DataFrame | None = None
        self._flows_file: Path | None = None
        #: The run's packet capture (pcapng), if its scenario asked for one.
        self.capture_file: Path | None = None
        #: A lossless fabric's PFC frames, one line each as HPCC's `pfc.txt` (None without a
        #: `[fabric]`); `write` puts them in `pfc.txt`.
        self.pfc_log: list[str] | None = None
        if isinstance(flows, pl.DataFrame):
            self.flows = flows
        else:
            self._flows_file = Path(flows)
        self.links = conform(links, LINK_SCHEMA, "links")
        self.series = conform(series, SERIES_SCHEMA, "series")
        self.meta = dict(meta)
        self.scenario = dict(scenario)
        self.notices = [str(n) for n in notices]

    @property
    def flows(self) -> pl.DataFrame:
        """One row per flow (read from its file first, for a streamed run)."""
        if self._flows is None:
            assert self._flows_file is not None
            self._flows = conform(_read(self._flows_file, pl.read_parquet), FLOW_SCHEMA, "flows")
        return self._flows

    @flows.setter
    def flows(self, df: pl.DataFrame) -> None:
        self._flows = conform(df, FLOW_SCHEMA, "flows")
        self._flows_file = None

    @classmethod
    def from_core(
        cls, raw: Mapping[str, Any], scenario: Mapping[str, Any], flows_file: os.PathLike | None = None
    ) -> Result:
        """Builds a Result from the dict `_core.Simulation.results()` returns (its flows table read
        from `flows_file` instead, if given)."""
        frames = {name: frame_of(raw.get(name), schema, name) for name, schema in TABLES.items() if name != "flows"}
        flows = flows_file if flows_file is not None else frame_of(raw.get("flows"), FLOW_SCHEMA, "flows")
        meta, notices = raw.get("meta") or {}, raw.get("notices") or ()
        result = cls(flows, frames["links"], frames["series"], meta, scenario, notices)
        result.pfc_log = raw.get("pfc_log")
        return result

    @property
    def estimated_by(self) -> str | None:
        """The method of `fctlab estimate` that made these results (`meta.json`'s `estimate`), or
        None for a packet-level run."""
        est = self.meta.get("estimate")
        return est.get("method") if isinstance(est, dict) else None

    @cached_property
    def summary(self) -> dict[str, Any]:
        """FCT statistics over the measured flows (see `fctlab.analysis.summarize`)."""
        from fctlab.analysis import summarize

        if self._flows is None and self._flows_file is not None:
            # A streamed table: scanned, never whole in memory.
            return _read(self._flows_file, lambda p: summarize(pl.scan_parquet(p)))
        return summarize(self.flows)

    def write(self, outdir: str | os.PathLike) -> Path:
        """Writes the six result files into `outdir` (created if needed); returns its path."""
        out = Path(outdir)
        if not str(outdir).strip():
            raise ScenarioError("results directory: expected a path, got an empty string")
        out.mkdir(parents=True, exist_ok=True)
        # All six or none: each goes to a temporary name, then all are renamed into place.
        files: list[tuple[Path, Writer]] = []
        prewritten: list[Path] = []
        for name in TABLES:
            target = out / f"{name}.parquet"
            if name == "flows" and self._flows is None and self._flows_file is not None:
                # A streamed table: already written under the target's temporary name, or a copy.
                if self._flows_file == temp_name(target):
                    prewritten.append(target)
                else:
                    files.append((target, partial(shutil.copyfile, self._flows_file)))
                continue
            files.append((target, partial(write_parquet, getattr(self, name))))
        capture = out / CAPTURE_NAME
        if self.capture_file is not None:
            if self.capture_file == temp_name(capture):
                prewritten.append(capture)
            else:
                files.append((capture, partial(shutil.copyfile, self.capture_file)))
        if self.pfc_log is not None:
            text = "".join(f"{line}\n" for line in self.pfc_log)
            files.append((out / PFC_LOG_NAME, lambda p, text=text: p.write_text(text)))
        meta = {**self.meta, "notices": self.notices} if self.notices else self.meta
        for name, obj in (("summary", self.summary), ("scenario", self.scenario), ("meta", meta)):
            files.append((out / f"{name}.json", lambda p, obj=obj: _write_json(p, obj)))
        write_files(files, prewritten)
        if self._flows_file is not None and temp_name(out / "flows.parquet") == self._flows_file:
            self._flows_file = out / "flows.parquet"
        if self.capture_file is not None:
            self.capture_file = capture
        return out

    def _repr_html_(self) -> str:
        """How a notebook shows a Result: its summary table and FCT CDF (`fctlab.html.summary`)."""
        from fctlab.html.summary import run_html

        return run_html(str(self.scenario.get("name") or "run"), self.flows, self.summary, self.scenario)

    def __repr__(self) -> str:
        done = self.flows["finish_s"].is_not_null().sum()
        sim = self.meta.get("sim_time_s")
        return f"<Result: {self.flows.height} flows ({done} completed), {self.links.height} links, sim_time_s={sim}>"


def load(outdir: str | os.PathLike) -> Result:
    """Reads a results directory written by `Result.write`."""
    out = Path(outdir)
    if not out.is_dir():
        raise FileNotFoundError(f"results directory not found: {out}")
    missing = [f for f in (*[f"{t}.parquet" for t in TABLES], "scenario.json", "meta.json") if not (out / f).is_file()]
    if missing:
        raise FileNotFoundError(f"{out} is not a results directory (missing {', '.join(missing)})")
    frames = {name: _read(out / f"{name}.parquet", pl.read_parquet) for name in TABLES}
    meta = _read(out / "meta.json", lambda p: json.loads(p.read_text()))
    notices = meta.pop("notices", []) if isinstance(meta, dict) else []
    result = Result(
        frames["flows"],
        frames["links"],
        frames["series"],
        meta,
        _read(out / "scenario.json", lambda p: json.loads(p.read_text())),
        notices,
    )
    if (out / CAPTURE_NAME).is_file():
        result.capture_file = out / CAPTURE_NAME
    return result


def _read(path: Path, reader: Callable[[Path], Any]) -> Any:
    """`reader(path)`, with a damaged file (truncated, not Parquet or JSON) as one ScenarioError."""
    try:
        return reader(path)
    except (pl.exceptions.PolarsError, ValueError, UnicodeDecodeError) as e:
        reason = " ".join(str(e).split())
        raise ScenarioError(f"{path} is damaged or not a result file ({reason}); run it again") from None


def write_parquet(df: pl.DataFrame, path: Path) -> None:
    """Writes one table with settings that make the bytes depend only on the data."""
    df.rechunk().write_parquet(
        path, compression="zstd", compression_level=_ZSTD_LEVEL, statistics=True, row_group_size=_ROW_GROUP_ROWS
    )


def frame_of(table: Any, schema: Mapping[str, pl.DataType], name: str) -> pl.DataFrame:
    """A table as the core hands it over (Arrow arrays, or {column: list}) as a DataFrame."""
    if hasattr(table, "__arrow_c_array__"):
        return pl.DataFrame(table)
    return frame_from_columns(table or {}, schema, name)


def frame_from_columns(columns: Mapping[str, list], schema: Mapping[str, pl.DataType], table: str) -> pl.DataFrame:
    """A DataFrame from {column: list} with each known column coerced to its schema dtype."""
    missing = [c for c in schema if c not in columns]
    if columns and missing:
        raise ValueError(f"core results: table `{table}` lacks columns {missing}")
    series = []
    for name in [*schema, *sorted(c for c in columns if c not in schema)]:
        values = list(columns.get(name, []))
        dtype = schema.get(name)
        series.append(
            pl.Series(name, coerce_values(values, dtype), dtype=dtype, strict=True)
            if dtype
            else pl.Series(name, values)
        )
    return pl.DataFrame(series)


def conform(df: pl.DataFrame, schema: Mapping[str, pl.DataType], table: str) -> pl.DataFrame:
    """`df` with the schema's columns first, in order, cast to their dtypes; extras after, sorted."""
    missing = [c for c in schema if c not in df.columns]
    if missing and df.width:
        raise ValueError(f"table `{table}` lacks columns {missing}")
    if not df.width:
        return pl.DataFrame(schema=dict(schema))
    if list(df.schema.items()) == list(schema.items()):
        return df  # already so (the core's Arrow tables): no cast to plan
    extras = sorted(c for c in df.columns if c not in schema)
    return df.select([pl.col(c).cast(t) for c, t in schema.items()] + extras)


def coerce_values(values: list, dtype: pl.DataType) -> list:
    """Python values converted to the type a polars dtype wants (None stays null)."""
    # The core may hand an integral float an int (and vice versa in JSON); polars' strict mode
    # refuses mixed Python types, so convert per dtype, keeping None as null.
    conv = {pl.Float64: float, pl.Int64: int, pl.String: str, pl.Boolean: bool}.get(dtype)
    if conv is None:
        return values
    return [None if v is None else conv(v) for v in values]


def _write_json(path: Path, obj: Any) -> None:
    # allow_nan=False: a NaN here is a bug upstream, and NaN is not JSON.
    path.write_text(json.dumps(obj, indent=2, sort_keys=True, allow_nan=False) + "\n")
