"""docs/extending.md runs as written, and its numbers are the runs' own.

The page's blocks are taken in order, in a folder laid out as an fctlab checkout (its `docs/`):
a file block (first line `# file: PATH` or `// file: PATH`) is written, each `fctlab ...` line of
an `sh` block is run and must succeed, and a `text` block that starts with `$ fctlab ...` is a
command shown failing, run and expected to exit 1. Then what the page says of the results is
computed from them: `compare`'s output, the tables of the bottleneck and of the mixed run, the
share `check` reports, the failing command's message. A stale number fails the test, which
prints the page as the runs give it; `python tests/test_core_extending.py --update` runs the
tutorial and rewrites those parts of the page. The words around them are checked too, as
claims on the same runs (Vegas slower, its queue shorter on average, both filling the buffer).
"""

from __future__ import annotations

import difflib
import re
import shlex
import sys
import tempfile
from pathlib import Path

import polars as pl

from realcore import REPO, cli, fake  # noqa: F401  (fake: the compiled core)

DOC = REPO / "docs" / "extending.md"

#: Where the page says the tutorial ran (the test's own folder is shown as this).
SHOWN_FOLDER = "/home/me/fctlab"

#: The mistake of section 3: vegas.py's line, and the same line in vegas_bug.py.
VEGAS_LINE = "diff = w.cwnd / w.mss * (1 - self.base_rtt / self.round_rtt)"
BUG_LINE = "diff = w.cwnd / w.mss * self.base_rtt / (self.round_rtt - self.base_rtt)"

FILE_MARKS = ("# file: ", "// file: ")


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, text) of every fenced block of a Markdown text, in order."""
    out, lang, lines = [], None, []
    for line in text.splitlines():
        if lang is None and line.startswith("```"):
            lang, lines = line[3:].strip(), []
        elif lang is not None and line.strip() == "```":
            out.append((lang, "\n".join(lines) + "\n"))
            lang = None
        elif lang is not None:
            lines.append(line)
    return out


def steps(text: str) -> list[tuple[str, object]]:
    """The page's steps in order: ("file", (path, text)), ("run", args) for a command that must
    succeed, ("fails", args) for one shown failing."""
    out: list[tuple[str, object]] = []
    for lang, body in blocks(text):
        first, _, rest = body.partition("\n")
        mark = next((m for m in FILE_MARKS if first.startswith(m)), None)
        if lang in ("python", "toml", "rust") and mark:
            out.append(("file", (first.removeprefix(mark).strip(), body if lang == "rust" else rest)))
        elif lang == "sh":
            for line in body.splitlines():
                words = shlex.split(line, comments=True)
                if words:
                    assert words[0] == "fctlab", f"not an fctlab command: {line}"
                    out.append(("run", words[1:]))
        elif lang == "text" and first.startswith("$ fctlab "):
            out.append(("fails", shlex.split(first.removeprefix("$ fctlab "))))
    return out


def run_tutorial(folder: Path) -> dict[str, str]:
    """Runs the page's steps in `folder`; returns each command's output (stdout, or stderr for
    one shown failing), by its arguments."""
    (folder / "docs").symlink_to(REPO / "docs")
    outputs = {}
    for kind, what in steps(DOC.read_text()):
        if kind == "file":
            path, text = what
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_text(text)
            if path == "vegas.py":
                assert VEGAS_LINE in text
                (folder / "vegas_bug.py").write_text(text.replace(VEGAS_LINE, BUG_LINE))
            continue
        done = cli(*what, cwd=folder, timeout=600)
        shown = " ".join(what)
        if kind == "run":
            assert done.returncode == 0, f"fctlab {shown}:\n{done.stdout}\n{done.stderr}"
            outputs[shown] = done.stdout
        else:
            assert done.returncode == 1, f"fctlab {shown} was to fail:\n{done.stdout}\n{done.stderr}"
            outputs[shown] = done.stderr.replace(str(folder), SHOWN_FOLDER)
    return outputs


# ------------------------------------------------------------------------------------------------
# The page's numbers, from the runs.


def _bottleneck(out: Path) -> dict:
    return pl.read_parquet(out / "links.parquet").filter(pl.col("name") == "bottleneck").row(0, named=True)


def _measured_mean_fct_ms(flows: pl.DataFrame) -> float:
    return flows.filter(pl.col("measured"))["fct_s"].mean() * 1e3


def _mb(b: float) -> str:
    return f"{b / 1e6:.2f} MB"


def alone_table(folder: Path) -> tuple[str, dict]:
    """The table of the quickstart run with CUBIC and with Vegas, and its figures."""
    fig = {}
    for name in ("cubic", "vegas"):
        out = folder / "out" / name
        flows = pl.read_parquet(out / "flows.parquet")
        link = _bottleneck(out)
        fig[name] = {
            "fct_ms": _measured_mean_fct_ms(flows),
            "queue_avg": link["queue_avg_bytes"],
            "queue_max": link["queue_max_bytes"],
            "drops": link["drops_pkts"],
            "retx": flows["retx_bytes"].sum(),
        }
    c, v = fig["cubic"], fig["vegas"]
    rows = [
        ("mean FCT (the measured flows)", f"{c['fct_ms']:.1f} ms", f"{v['fct_ms']:.1f} ms"),
        ("bottleneck queue, mean", f"{c['queue_avg'] / 1e3:.0f} KB", f"{v['queue_avg'] / 1e3:.0f} KB"),
        ("bottleneck queue, largest (the buffer: 2.5 MB)", _mb(c["queue_max"]), _mb(v["queue_max"])),
        (
            "packets dropped at the bottleneck",
            f"{c['drops']:,}",
            f"{v['drops']:,} ({v['drops'] / c['drops']:.1f}x CUBIC's)",
        ),
        ("bytes retransmitted", _mb(c["retx"]), f"{_mb(v['retx'])} ({v['retx'] / c['retx']:.1f}x CUBIC's)"),
    ]
    head = "| quickstart, 5 s of arrivals | CUBIC (`out/cubic`) | Vegas (`out/vegas`) |\n|---|---|---|\n"
    return head + "".join(f"| {a} | {b} | {c} |\n" for a, b, c in rows), fig


def mixed_table(folder: Path) -> tuple[str, dict]:
    """The table of vegas-vs-cubic.toml, by transport, and its figures."""
    out = folder / "out" / "mixed"
    flows = pl.read_parquet(out / "flows.parquet")
    link = _bottleneck(out)
    fig = {}
    for label, name in (("tcp-cubic-iw10", "cubic"), ("vegas", "vegas")):
        mine = flows.filter(pl.col("protocol") == label)
        measured = mine.filter(pl.col("measured"))
        fig[name] = {
            "flows": measured.height,
            "fct_ms": measured["fct_s"].mean() * 1e3,
            "slowdown": (measured["fct_s"] / measured["ideal_fct_s"]).mean(),
            "retx": mine["retx_bytes"].sum(),
        }
    c, v = fig["cubic"], fig["vegas"]
    rows = [
        ("measured flows", f"{c['flows']}", f"{v['flows']}"),
        ("mean FCT", f"{c['fct_ms']:.1f} ms", f"{v['fct_ms']:.1f} ms"),
        ("mean slowdown (FCT / ideal FCT)", f"{c['slowdown']:.2f}", f"{v['slowdown']:.2f}"),
        ("bytes retransmitted", _mb(c["retx"]), f"{_mb(v['retx'])} ({v['retx'] / c['retx']:.0f}x CUBIC's)"),
    ]
    head = "| vegas-vs-cubic.toml | CUBIC's flows | Vegas's flows |\n|---|---|---|\n"
    fig["bottleneck"] = {"queue_max": link["queue_max_bytes"]}
    return head + "".join(f"| {a} | {b} | {c} |\n" for a, b, c in rows), fig


def size_bins(compare: str) -> list[tuple[str, int, float]]:
    """(bin, flows, reduction %) of each size bin `fctlab compare` prints."""
    rows = re.findall(r"^(\d+(?:-\d+)? seg)\s+(\d+)\s+\d+\s+[\d.]+\s+[\d.]+\s+([+-][\d.]+)%$", compare, re.M)
    return [(label, int(n), float(r)) for label, n, r in rows]


def page_as_run(page: str, folder: Path, outputs: dict[str, str]) -> str:
    """The page with every part the runs give replaced by what they gave."""
    compare = outputs["compare out/cubic out/vegas"].rstrip("\n")
    share = re.search(
        r"beside TCP\s+report\s+(\d+)% of the bottleneck against NewReno's (\d+)%",
        outputs["check python:vegas.py:Vegas"],
    )
    assert share, outputs["check python:vegas.py:Vegas"]
    (bug,) = [(args, text) for args, text in outputs.items() if "-o out/bug" in args]
    parts = [
        (r"```text\nA = out/cubic, B = out/vegas[^`]*?```", f"```text\n{compare}\n```"),
        (r"^\| quickstart, 5 s of arrivals \|.*?(?=\n\n)", alone_table(folder)[0].rstrip("\n")),
        (r"^\| vegas-vs-cubic.toml \|.*?(?=\n\n)", mixed_table(folder)[0].rstrip("\n")),
        (
            r"about \d+% of the bottleneck against NewReno's \d+%",
            f"about {share[1]}% of the bottleneck against NewReno's {share[2]}%",
        ),
        (r"```text\n\$ fctlab [^\n]*-o out/bug[^`]*?```", f"```text\n$ fctlab {bug[0]}\n{bug[1].rstrip()}\n```"),
    ]
    for pattern, text in parts:
        page, n = re.subn(pattern, lambda _m, text=text: text, page, count=1, flags=re.S | re.M)
        assert n == 1, f"docs/extending.md has no part matching {pattern!r}"
    return page


# ------------------------------------------------------------------------------------------------
# The tests.


def test_the_page_has_its_files_and_commands():
    """Guards the extraction: a renamed fence must not turn the tutorial's test into a no-op."""
    page = steps(DOC.read_text())
    files = {what[0] for kind, what in page if kind == "file"}
    assert {"vegas.py", "vegas-vs-cubic.toml", "my_vegas/src/lib.rs"} <= files
    commands = [what[0] if what[0] != "plugin" else f"plugin {what[1]}" for kind, what in page if kind != "file"]
    assert commands == ["run", "run", "compare", "run", "check", "run", "plugin new", "plugin build", "run", "compare"]
    assert [kind for kind, _ in page].count("fails") == 1
    assert f"`{BUG_LINE}`" in DOC.read_text(), "the page shows the mistake the test makes"


def test_the_tutorial_runs_as_written_and_its_numbers_are_the_runs(tmp_path):
    """Every command of the page succeeds (or fails as shown) in a folder outside the repository
    (so the Rust crate builds there against the API crate by absolute path), and every number
    the page quotes is what the runs give."""
    outputs = run_tutorial(tmp_path)
    same = outputs["compare out/vegas out/vegas-rs"]
    reductions = [line.split()[-1] for line in same.splitlines() if line.startswith(("over flows", "over bytes"))]
    assert reductions == ["+0.00%", "+0.00%"], same
    checked = outputs["check python:vegas.py:Vegas"]
    assert "FAIL" not in checked and checked.count("pass") == 8, checked
    labels = set(pl.read_parquet(tmp_path / "out/mixed/flows.parquet")["protocol"].to_list())
    assert labels == {"tcp-cubic-iw10", "vegas"}
    rust = pl.read_parquet(tmp_path / "out/vegas-rs/flows.parquet")["protocol"].unique().to_list()
    assert rust == ["tcp-rs-vegas-iw10"], "labelled by the name the crate exports"

    # The claims of the words around the numbers.
    _, alone = alone_table(tmp_path)
    c, v = alone["cubic"], alone["vegas"]
    assert v["fct_ms"] > c["fct_ms"], "Vegas is slower over all flows"
    assert v["queue_avg"] < c["queue_avg"], "Vegas's queue is shorter on average"
    assert min(c["queue_max"], v["queue_max"]) > 0.99 * 2.5e6, "both fill the 2.5 MB buffer"
    assert v["drops"] > 5 * c["drops"] and v["retx"] > 5 * c["retx"], "Vegas drops and retransmits more"
    bins = size_bins(outputs["compare out/cubic out/vegas"])
    assert len(bins) > 10
    assert sum(abs(r) <= 5 for _, _, r in bins) > len(bins) / 2, "most bins within 5% of CUBIC"
    much_slower = [(label, n) for label, n, r in bins if r < -20]
    assert much_slower and all(int(label.split("-")[0]) >= 512 and n < 20 for label, n in much_slower), (
        "Vegas is much slower only in bins of large flows, each of a handful of flows"
    )
    _, mixed = mixed_table(tmp_path)
    assert mixed["vegas"]["retx"] > 10 * mixed["cubic"]["retx"], "beside CUBIC, Vegas's flows retransmit more"
    assert mixed["bottleneck"]["queue_max"] > 0.99 * 2.5e6, "the mixed run fills the buffer"

    page = DOC.read_text()
    expected = page_as_run(page, tmp_path, outputs)
    if expected != page:
        diff = "".join(difflib.unified_diff(page.splitlines(True), expected.splitlines(True), "page", "runs"))
        raise AssertionError(
            "docs/extending.md quotes numbers its runs no longer give; `python tests/test_core_extending.py "
            f"--update` rewrites them (then read the words around them):\n{diff}"
        )


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_core_extending.py --update   (runs the tutorial, rewrites its numbers)")
    with tempfile.TemporaryDirectory() as d:
        outputs = run_tutorial(Path(d))
        DOC.write_text(page_as_run(DOC.read_text(), Path(d), outputs))
    print(f"rewrote the numbers of {DOC}; check the words around them")
