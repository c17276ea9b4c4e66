"""Each built-in protocol's code stays in its folder: no file outside `protocol/` names one
(`scripts/protocol_footprint.py`, read from the working tree).

A protocol is its folder and its row in the registry's table (`protocol/registry.rs`); what the
table generates elsewhere (the queue kinds of `scenario/queues.rs`, say) is written once for
every row and names none. A place outside `protocol/` that names a protocol fails here.
"""

from __future__ import annotations

import importlib.util
import re

from realcore import REPO


def _footprint():
    spec = importlib.util.spec_from_file_location("protocol_footprint", REPO / "scripts" / "protocol_footprint.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_builtin_protocol_is_counted():
    """The script knows all the registry's protocols (by folder)."""
    folders = {p.name for p in (REPO / "crates" / "fctlab-core" / "src" / "protocol").iterdir() if p.is_dir()}
    assert {folder for _, folder in _footprint().PROTOCOLS.values()} == folders


def test_no_protocol_is_named_outside_its_folder():
    found = _footprint().footprint(None)
    outside = {name: files for name, (_, _, files) in found.items() if files}
    assert outside == {}, f"protocols named outside protocol/ (the registry aside): {outside}"


def test_the_count_sees_a_protocol_named_outside(tmp_path, monkeypatch):
    """The count can fail: a lower-layer file naming RCP's law shows up as outside."""
    mod = _footprint()
    texts = {"crates/fctlab-core/src/net/link.rs": "use crate::protocol::rcp::RcpLaw;\n"}
    monkeypatch.setattr(mod, "ROOT", tmp_path)
    for rel, text in texts.items():
        (tmp_path / rel).parent.mkdir(parents=True)
        (tmp_path / rel).write_text(text)
    assert mod.footprint(None)["RCP"][2] == ["net/link.rs"]


LOSS_BASED = {"NewReno", "CUBIC"}


def _named_in(text: str) -> set[str]:
    """The protocols the code of `text` names: by its types and paths, or by its folder's
    name as a string (`"dctcp"`)."""
    mod = _footprint()
    code = mod.code(text)
    return {
        name
        for name, (pattern, folder) in mod.PROTOCOLS.items()
        if re.search(rf'{pattern}|\bprotocol::{folder}\b|"{folder}"', code)
    }


def test_protocol_tcp_names_only_the_loss_based_windows():
    """`protocol = "tcp"`'s keys (`protocol/tcp.rs`, `protocol/tcp_cc.rs`) name NewReno and CUBIC
    at most: the other windows `cc = "..."` chooses are the table's `tcp_cc` column."""
    src = REPO / "crates" / "fctlab-core" / "src" / "protocol"
    for rel in ("tcp.rs", "tcp_cc.rs"):
        assert _named_in((src / rel).read_text()) <= LOSS_BASED, rel


def test_the_tcp_check_sees_a_window_named_by_hand():
    """The check can fail: a variant or a spelling of DCTCP by hand shows up."""
    assert _named_in("enum CcChoice { Dctcp }\n") == {"DCTCP"}
    assert _named_in('match s { "pfabric" => 1, _ => 0 }\n') == {"pFabric"}
    assert _named_in("// DCTCP and PFabricConfig in a comment\nfn f() {}\n") == set()
