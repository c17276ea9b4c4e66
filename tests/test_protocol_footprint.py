"""Each built-in protocol's code stays in its folder: the files outside `protocol/` that name it
(`scripts/protocol_footprint.py`, read from the working tree) may only shrink.

The goal is none: a protocol is its folder and its row in the registry's table
(`protocol/registry.rs`). What still names one outside is listed here with the reason, so that
a new place that names a protocol fails, and a place that stops naming it must be struck off.
"""

from __future__ import annotations

import importlib.util

from realcore import REPO

#: The files outside `protocol/` that still name a protocol, and why (docs/protocols.md).
STILL_OUTSIDE: dict[str, list[str]] = {}


def _footprint():
    spec = importlib.util.spec_from_file_location("protocol_footprint", REPO / "scripts" / "protocol_footprint.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_builtin_protocol_is_counted():
    """The script knows all the registry's protocols (by folder)."""
    folders = {p.name for p in (REPO / "crates" / "fctlab-core" / "src" / "protocol").iterdir() if p.is_dir()}
    assert {folder for _, folder in _footprint().PROTOCOLS.values()} == folders


def test_no_protocol_is_named_outside_its_folder_beyond_the_known_places():
    found = _footprint().footprint(None)
    for name, (_, _, outside) in found.items():
        assert sorted(outside) == sorted(STILL_OUTSIDE.get(name, [])), (
            f"{name} is named outside protocol/ in {outside}; known: {STILL_OUTSIDE.get(name, [])}"
        )


def test_the_count_sees_a_protocol_named_outside(tmp_path, monkeypatch):
    """The count can fail: a lower-layer file naming RCP's law shows up as outside."""
    mod = _footprint()
    texts = {"crates/fctlab-core/src/net/link.rs": "use crate::protocol::rcp::RcpLaw;\n"}
    monkeypatch.setattr(mod, "ROOT", tmp_path)
    for rel, text in texts.items():
        (tmp_path / rel).parent.mkdir(parents=True)
        (tmp_path / rel).write_text(text)
    assert mod.footprint(None)["RCP"][2] == ["net/link.rs"]
