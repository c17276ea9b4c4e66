"""Protocols on top: the layers below the registry (`crates/fctlab-core/src/protocol/`) name no
protocol. They reach a protocol only through the registry's types (`Controller`, `CcConfig`,
`RateLaw`, `RateConfig`, the window hooks, the ECN echoes), never through
`protocol::<name>`, a protocol's type or its name in a string; comments and `#[cfg(test)]`
modules aside."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "crates" / "fctlab-core" / "src"
_PROTOCOLS = sorted(p.name for p in (SRC / "protocol").iterdir() if p.is_dir())
_TYPES = ("Rcp", "Xcp", "JetMax", "Piqi", "PFabric", "Hpcc", "Dctcp", "Rc3", "Cubic", "NewReno", "Rtcp")
_NAMED = re.compile(
    r"\bprotocol::(?:" + "|".join(_PROTOCOLS) + r")\b"
    r"|\b(?:" + "|".join(_TYPES) + r")\w*"
    r'|"[^"\n]*\b(?:' + "|".join(p for p in _PROTOCOLS if p != "tcp") + r')\b[^"\n]*"'
)


def _names_in(folder: str) -> list[str]:
    """Where the Rust files under `src/<folder>` name a protocol: `file:line: what`, comments and
    `#[cfg(test)]` modules left out."""
    found = []
    for path in sorted((SRC / folder).rglob("*.rs")):
        text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), path.read_text(), flags=re.S)
        lines = [re.sub(r"//.*", "", line) for line in text.splitlines()]
        skip_depth = None  # brace depth inside a #[cfg(test)] module
        armed = False
        for number, line in enumerate(lines, 1):
            if skip_depth is None and re.search(r"#\[cfg\(test\)\]", line):
                armed = True
            if armed and re.search(r"\bmod\s+\w+\s*\{", line):
                skip_depth, armed = 0, False
            if skip_depth is not None:
                skip_depth += line.count("{") - line.count("}")
                if skip_depth <= 0 and "}" in line:
                    skip_depth = None
                continue
            if armed and line.strip() and not line.strip().startswith("#["):
                armed = False  # #[cfg(test)] on an item other than a module: checked as code
            for m in _NAMED.finditer(line):
                found.append(f"{path.relative_to(SRC)}:{number}: {m.group()}")
    return found


def test_transport_world_and_plugins_name_no_protocol():
    named = [hit for folder in ("transport", "world", "plugin") for hit in _names_in(folder)]
    assert not named, "named below the registry:\n" + "\n".join(named)
