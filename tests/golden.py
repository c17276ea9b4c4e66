"""Golden outputs: reference results of fixed scenarios, compared byte for byte by test_golden.py.

Each golden scenario (the two benchmark scenarios of `examples/`, and one small scenario per
protocol and queue discipline in `tests/golden/scenarios/`) has its expected results checked in
under `tests/golden/expected/<name>/`, as text:

- `flows.csv`: every column of the flow table (FCTs, sizes, retransmitted bytes, timeouts, paths);
- `summary.json`: the FCT summary (`Result.summary`);
- `links.csv`: the link counters;
- `series.csv`: the time series, for scenarios that ask for them;
- `meta.json`: the run's counters (events, packet-hops, simulated time; not the wall-clock time).

Floats are written with `repr`, which round-trips exactly, so "the same text" means "the same
numbers", bit for bit. A large table is stored gzip-compressed (`.csv.gz`, written with a fixed
timestamp so the same table gives the same bytes); a very large one (Internet-2's 70,000 flows)
only as the SHA-256 digest of its text and its line count (`.csv.sha256`): a change is still
caught byte for byte, and `python tests/golden.py NAME --dump DIR` at two commits writes the
full tables to compare row by row.

Regenerate only on an intended change of behaviour, and say in the commit which outputs changed
and why:

    python tests/golden.py --update            # every scenario
    python tests/golden.py --update tcp-cubic  # some
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import math
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden"
EXPECTED = GOLDEN / "expected"

#: The benchmark scenarios (`fctlab bench`'s defaults), by golden name.
BENCHMARKS = {
    "dumbbell-pareto": REPO / "examples" / "dumbbell-pareto.toml",
    "internet2-rc3-tcp": REPO / "examples" / "internet2-rc3.toml",
}

#: Tables larger than this many bytes of text are stored compressed...
COMPRESS_ABOVE = 200_000
#: ...and larger than this, as a digest only (the repository stays small).
DIGEST_ABOVE = 3_000_000

#: meta.json keys that depend on the machine or the wall clock, not on the scenario.
UNSTABLE_META = ("wall_s", "build_s", "fctlab_version", "version", "python", "platform")


def scenarios() -> dict[str, Path]:
    """Every golden scenario by name: the benchmarks, then tests/golden/scenarios/*.toml."""
    out = dict(BENCHMARKS)
    for path in sorted((GOLDEN / "scenarios").glob("*.toml")):
        out[path.stem] = path
    return out


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    if isinstance(v, list):
        return " ".join(_cell(x) for x in v)
    return str(v)


def table_text(df: Any) -> str:
    """A DataFrame as CSV text: a header row, then one line per row, floats by `repr`."""
    lines = [",".join(df.columns)]
    lines.extend(",".join(_cell(v) for v in row) for row in df.iter_rows())
    return "\n".join(lines) + "\n"


def _json(obj: Any) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, allow_nan=True) + "\n"


def render(result: Any) -> dict[str, str]:
    """The golden files of one run's Result, by file name."""
    files = {
        "flows.csv": table_text(result.flows),
        "links.csv": table_text(result.links),
        "summary.json": _json(result.summary),
        "meta.json": _json({k: v for k, v in result.meta.items() if k not in UNSTABLE_META}),
    }
    if result.series.height:
        files["series.csv"] = table_text(result.series)
    return files


def stored_name(name: str, text: str) -> str:
    """The file name a rendered table is stored under (compressed when large, a digest when huge)."""
    if len(text) > DIGEST_ABOVE:
        return name + ".sha256"
    return name + ".gz" if len(text) > COMPRESS_ABOVE else name


def digest(text: str) -> str:
    """What a `.sha256` golden file holds for a table: its digest and its line count."""
    return f"{hashlib.sha256(text.encode()).hexdigest()}  {text.count(chr(10))} lines\n"


def comparable(expected: dict[str, str], got: dict[str, str]) -> dict[str, str]:
    """`got` with each table that is stored as a digest in `expected` replaced by its digest."""
    return {
        f: digest(t) if expected.get(f, "").endswith(" lines\n") and len(t) > DIGEST_ABOVE else t
        for f, t in got.items()
    }


def read_expected(directory: Path) -> dict[str, str]:
    """The checked-in golden files of one scenario, decompressed, by rendered file name."""
    out = {}
    for path in sorted(directory.iterdir()):
        if path.suffix == ".gz":
            out[path.name[:-3]] = gzip.decompress(path.read_bytes()).decode()
        elif path.suffix == ".sha256":
            out[path.name[:-7]] = path.read_text()
        else:
            out[path.name] = path.read_text()
    return out


def write_expected(directory: Path, files: dict[str, str]) -> None:
    """Replaces the golden files of one scenario."""
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.iterdir():
        old.unlink()
    for name, text in files.items():
        target = directory / stored_name(name, text)
        if target.suffix == ".sha256":
            target.write_text(digest(text))
        elif target.suffix == ".gz":
            buf = io.BytesIO()
            with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
                gz.write(text.encode())
            target.write_bytes(buf.getvalue())
        else:
            target.write_text(text)


def first_difference(name: str, expected: str, got: str) -> str:
    """Where two versions of a golden file first differ, as a message."""
    a, b = expected.splitlines(), got.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            header = a[0] if name.endswith(".csv") else ""
            return f"{name} line {i + 1} differs:\n  columns:  {header}\n  expected: {x}\n  got:      {y}"
    return f"{name}: expected {len(a)} lines, got {len(b)}"


def run(name: str) -> dict[str, str]:
    """Runs one golden scenario and renders its results."""
    import fctlab

    return render(fctlab.run(scenarios()[name]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check or regenerate the golden outputs.")
    parser.add_argument("names", nargs="*", help="golden scenarios (default: all)")
    parser.add_argument("--update", action="store_true", help="rewrite the expected outputs")
    parser.add_argument("--dump", metavar="DIR", help="also write the full rendered tables to DIR/NAME/")
    args = parser.parse_args(argv)
    known = scenarios()
    names = args.names or list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        print(f"error: unknown golden scenario(s) {unknown}; expected some of {sorted(known)}", file=sys.stderr)
        return 2
    status = 0
    for name in names:
        got = run(name)
        directory = EXPECTED / name
        if args.dump:
            (Path(args.dump) / name).mkdir(parents=True, exist_ok=True)
            for file, text in got.items():
                (Path(args.dump) / name / file).write_text(text)
        if args.update:
            write_expected(directory, got)
            print(f"{name}: written")
            continue
        expected = read_expected(directory) if directory.is_dir() else {}
        got = comparable(expected, got)
        diffs = [first_difference(f, expected.get(f, ""), got.get(f, "")) for f in sorted(set(expected) | set(got))]
        diffs = [d for f, d in zip(sorted(set(expected) | set(got)), diffs) if expected.get(f) != got.get(f)]
        print(f"{name}: {'same' if not diffs else 'DIFFERS'}")
        for d in diffs:
            print("  " + d.replace("\n", "\n  "))
        status |= bool(diffs)
    return status


if __name__ == "__main__":
    sys.exit(main())
