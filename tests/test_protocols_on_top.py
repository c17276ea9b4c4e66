"""The protocols sit on top: the core's lower layers name no protocol.

A protocol lives in its folder (`crates/fctlab-core/src/protocol/<name>/`) and reaches the rest
through the registry's generated types (`CongestionHeader`, `Law`, `ProtocolQueue`,
`Controller`, `CcConfig`, `RateLaw`, `RateConfig`, `Hook`, `EcnEcho`, ...). The layers below it
(the packet and the link, the queue disciplines, the capture, the event queue, the routes, the
metrics, the transport, the world, the plug-in host) name no protocol's module path
(`protocol::rcp`), no protocol's type (`RcpLaw`, `PFabricQueue`, ...) and no protocol's name in a
string in their code; comments and `#[cfg(test)]` modules may (a test builds a real header to
carry). The emulator's wire format goes through the registry's wire functions.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "crates" / "fctlab-core" / "src"

# The lower layers: folders and single files under the core's `src/`.
LOWER = ["net", "qdisc", "capture", "sched", "routing.rs", "metrics", "transport", "world", "plugin"]
# The protocols' folders, and the prefixes of their type names.
FOLDERS = ["newreno", "cubic", "dctcp", "pfabric", "hpcc", "rc3", "rcp", "rtcp", "xcp", "jetmax", "piqi", "swift"]
TYPE_PREFIXES = ["Rcp", "Xcp", "JetMax", "Piqi", "PFabric", "Hpcc", "Dctcp", "Rc3", "Cubic", "NewReno", "Rtcp", "Swift"]

FOLDER_PATH = r"\bprotocol::(?:" + "|".join(FOLDERS) + r")\b"
TYPE_NAME = r"\b(?:" + "|".join(TYPE_PREFIXES) + r")\w*"
# A protocol's name in a string literal ("tcp" is the transport's own name, not a protocol's).
IN_STRING = r'"[^"\n]*\b(?:' + "|".join(FOLDERS) + r')\b[^"\n]*"'
NAMING = re.compile(FOLDER_PATH + "|" + TYPE_NAME + "|" + IN_STRING)


def _rust_code():
    spec = importlib.util.spec_from_file_location("import_cycles", ROOT / "scripts" / "import_cycles.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.rust_code


def lower_files() -> list[Path]:
    out = []
    for part in LOWER:
        p = SRC / part
        out += sorted(p.rglob("*.rs")) if p.is_dir() else [p]
    return out


def protocol_names(text: str) -> list[str]:
    """Each line of `text`'s code (no comments, no test modules) that names a protocol."""
    code = _rust_code()(text)
    return [line.strip() for line in code.splitlines() if NAMING.search(line)]


def test_the_check_sees_a_protocol_named_in_code_and_not_in_comments_or_tests():
    text = (
        "use crate::protocol::rcp::RcpTcpQueue;\n"
        "// RcpLaw in a comment\n"
        "fn f(x: Option<PFabricQueue>) {}\n"
        "#[cfg(test)]\nmod tests {\n    use crate::protocol::xcp::XcpHeader;\n}\n"
    )
    assert protocol_names(text) == ["use crate::protocol::rcp::RcpTcpQueue;", "fn f(x: Option<PFabricQueue>) {}"]
    assert protocol_names("let l = Law::Xcp(x);\nCongestionHeader::Hpcc(s)\n") == [
        "let l = Law::Xcp(x);",
        "CongestionHeader::Hpcc(s)",
    ]
    assert protocol_names("use crate::protocol::header::CongestionHeader;\nlet r = rate_kbps;\n") == []
    assert protocol_names('let l = format!("rc3-{kind}");\nlet t = "tcp";\n') == ['let l = format!("rc3-{kind}");']


def test_lower_layers_name_no_protocol():
    assert lower_files(), "no lower-layer files found"
    found = []
    for f in lower_files():
        for line in protocol_names(f.read_text()):
            found.append(f"{f.relative_to(ROOT)}: {line}")
    assert not found, "protocols named below the registry:\n" + "\n".join(found)


def test_the_emulators_wire_format_goes_through_the_registry():
    text = (ROOT / "crates" / "fctlab-emu" / "src" / "wire.rs").read_text()
    assert protocol_names(text) == [], protocol_names(text)
