"""docs/protocols.md's tutorial builds as written: a protocol is its folder and one row.

The page's tutorial section adds Scalable TCP to a copy of the crates: each block whose first
line is `// file: PATH` is written, the block starting `// row of PATH` is the protocol's row,
put at the end of the registry's table, and the block starting `// line of PATH` is the
folder's `mod` line, put among the others in order. Nothing else of the copy changes. Then the
page's `cargo` commands run in the copy and must pass, running every test the page's files
declare (the law's arithmetic, the paper's recovery time, a whole scenario that picks the
protocol by `protocol = "stcp"` and compares it with NewReno). A closed list that a new
protocol still had to edit by hand would fail the build or the scenario.

The copy builds in a target directory of its own (`target/protocols-tutorial`), so that it
never waits on the lock of the checkout's, and keeps it between runs.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from test_core_extending import blocks

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "protocols.md"
SECTION = "## Tutorial"
TARGET = REPO / "target" / "protocols-tutorial"


def tutorial() -> str:
    """The page's tutorial section."""
    text = DOC.read_text()
    assert SECTION in text, f"{DOC} has no {SECTION!r} section"
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end >= 0 else len(text)]


def edits(section: str) -> tuple[dict[str, str], list[tuple[str, str]], list[tuple[str, str]], list[list[str]]]:
    """The section's files (path -> text), rows (path, text), mod lines (path, text) and commands."""
    files, rows, lines, commands = {}, [], [], []
    for lang, body in blocks(section):
        first, _, rest = body.partition("\n")
        if lang == "rust" and first.startswith("// file: "):
            files[first.removeprefix("// file: ").strip()] = body
        elif lang == "rust" and first.startswith("// row of "):
            rows.append((first.removeprefix("// row of ").strip(), rest))
        elif lang == "rust" and first.startswith("// line of "):
            lines.append((first.removeprefix("// line of ").strip(), rest))
        elif lang == "sh":
            commands += [shlex.split(line, comments=True) for line in body.splitlines() if line.strip()]
    return files, rows, lines, commands


def add_row(registry: str, row: str) -> str:
    """`registry` with `row` as the table's last row."""
    end = registry.rindex("        }\n    };\n}")
    return registry[:end] + row + registry[end:]


def add_mod_line(module: str, line: str) -> str:
    """`module` with `line` (`pub mod NAME;`) among its `pub mod` lines, in order."""
    mods = [m for m in re.finditer(r"^pub mod (\w+);\n", module, re.M)]
    assert mods, "no `pub mod` line to put it beside"
    name = re.fullmatch(r"pub mod (\w+);\n", line).group(1)
    after = [m for m in mods if m.group(1) > name]
    at = after[0].start() if after else mods[-1].end()
    return module[:at] + line + module[at:]


def copy_crates(to: Path) -> None:
    """The workspace's manifests and crates (sources only) in `to`."""
    for name in ("Cargo.toml", "Cargo.lock", "rustfmt.toml"):
        shutil.copy(REPO / name, to / name)
    shutil.copytree(REPO / "crates", to / "crates", ignore=shutil.ignore_patterns("target"))


def test_the_section_is_a_folder_a_row_and_a_mod_line():
    files, rows, lines, commands = edits(tutorial())
    folder = "crates/fctlab-core/src/protocol/stcp/"
    assert files and all(p.startswith(folder) for p in files), sorted(files)
    assert [p for p, _ in rows] == ["crates/fctlab-core/src/protocol/registry.rs"]
    assert [(p, t) for p, t in lines] == [("crates/fctlab-core/src/protocol/mod.rs", "pub mod stcp;\n")]
    assert commands and all(c[0] == "cargo" for c in commands), commands
    # The row has the table's columns, in the table's order.
    table = (REPO / rows[0][0]).read_text()
    first_row = re.search(r"\n            (\w+) \{\n(.*?)\n            \}", table, re.S).group(2)
    keys = lambda text: re.findall(r"^\s+(\w+):", text, re.M)  # noqa: E731
    assert keys(rows[0][1]) == keys(first_row)


def test_the_tutorial_builds_and_its_tests_pass():
    files, rows, lines, commands = edits(tutorial())
    declared = sum(text.count("#[test]") for text in files.values())
    assert declared >= 3, "the page's files declare the tests the commands run"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        copy_crates(root)
        for path, text in files.items():
            assert not (root / path).exists(), f"{path} is already in the crate"
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        for path, row in rows:
            (root / path).write_text(add_row((root / path).read_text(), row))
        for path, line in lines:
            (root / path).write_text(add_mod_line((root / path).read_text(), line))
        changed = sorted(
            str(p.relative_to(root))
            for p in (root / "crates").rglob("*.rs")
            if not (REPO / p.relative_to(root)).exists() or (REPO / p.relative_to(root)).read_text() != p.read_text()
        )
        assert changed == sorted([*files, *(p for p, _ in rows), *(p for p, _ in lines)]), changed
        fmt = subprocess.run(
            ["rustfmt", "--check", "--edition", "2021", *(str(root / p) for p in files)],
            cwd=root,
            capture_output=True,
            text=True,
        )
        assert fmt.returncode == 0, f"the page's Rust is not formatted as rustfmt would:\n{fmt.stdout}{fmt.stderr}"
        ran = 0
        for cmd in commands:
            done = subprocess.run(
                cmd,
                cwd=root,
                capture_output=True,
                text=True,
                timeout=1800,
                env={**os.environ, "CARGO_TARGET_DIR": str(TARGET)},
            )
            assert done.returncode == 0, f"{shlex.join(cmd)}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
            ran += sum(int(n) for n in re.findall(r"test result: ok\. (\d+) passed", done.stdout))
        assert ran == declared, f"the commands ran {ran} tests, the page's files declare {declared}"
