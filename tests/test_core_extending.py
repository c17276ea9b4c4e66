"""docs/extending.md runs as written: its files (blocks whose first line is `# file: PATH` or
`// file: PATH`) are written into a folder laid out as an fctlab checkout, and its commands
(the `fctlab ...` lines of its `sh` blocks) are run there, in order, each expected to succeed.
Then what the page says of the results is checked: the Python and Rust Vegas give the same FCTs."""

from __future__ import annotations

import shlex

from realcore import REPO, cli, fake  # noqa: F401  (fake: the compiled core)
from test_core_docs import fenced_blocks

DOC = REPO / "docs" / "extending.md"


def files() -> dict[str, str]:
    out = {}
    for lang in ("python", "toml", "rust"):
        for _, text in fenced_blocks(DOC, lang):
            first, _, rest = text.partition("\n")
            for mark in ("# file: ", "// file: "):
                if first.startswith(mark):
                    out[first.removeprefix(mark).strip()] = rest if lang != "rust" else text
    return out


def commands() -> list[list[str]]:
    out = []
    for _, text in fenced_blocks(DOC, "sh"):
        for line in text.splitlines():
            words = shlex.split(line, comments=True)
            if words:
                assert words[0] == "fctlab", f"not an fctlab command: {line}"
                out.append(words[1:])
    return out


def test_the_page_has_its_files_and_commands():
    """Guards the extraction: a renamed fence must not turn the tutorial's test into a no-op."""
    assert {"vegas.py", "vegas-vs-cubic.toml", "my_vegas/Cargo.toml", "my_vegas/src/lib.rs"} <= set(files())
    assert [c[0] for c in commands()] == ["run", "run", "compare", "run", "check", "plugin", "run", "compare"]


def test_the_tutorial_runs_as_written(tmp_path):
    (tmp_path / "docs").symlink_to(REPO / "docs")
    (tmp_path / "crates").symlink_to(REPO / "crates")
    for path, text in files().items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    outputs = {}
    for args in commands():
        done = cli(*args, cwd=tmp_path, timeout=600)
        assert done.returncode == 0, f"fctlab {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
        outputs[" ".join(args)] = done.stdout
    same = outputs["compare out/vegas out/vegas-rs"]
    reductions = [line.split()[-1] for line in same.splitlines() if line.startswith(("over flows", "over bytes"))]
    assert reductions == ["+0.00%", "+0.00%"], same
    checked = outputs["check python:vegas.py:Vegas"]
    assert "FAIL" not in checked and checked.count("pass") == 8, checked
    import polars as pl

    labels = set(pl.read_parquet(tmp_path / "out/mixed/flows.parquet")["protocol"].to_list())
    assert labels == {"tcp-cubic-iw10", "vegas"}
