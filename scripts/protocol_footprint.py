#!/usr/bin/env python3
"""How many source files each built-in protocol touches, at a git revision.

A file touches a protocol when its code (comments left out) names one of the protocol's
types or constants. Only `crates/*/src/**/*.rs` count (not tests/). Prints a Markdown table:
the files in all, those in the protocol's folder and the registry (`protocol/mod.rs`,
`protocol/keys.rs`, `protocol/tcp.rs`), and the files outside `protocol/`, which a change to
the protocol may still have to edit (other protocols' folders that use it are counted in all,
not outside).

    python3 scripts/protocol_footprint.py [REV ...]     # default: HEAD (tests/test_protocol_footprint.py
                                                        # reads the working tree)
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# What names each protocol's code: its types (by prefix), constants, and paths into its folder.
PROTOCOLS = {
    "NewReno": (r"\bNewReno\b", "newreno"),
    "CUBIC": (r"\bCubic\w*", "cubic"),
    "DCTCP": (r"\bDctcp\w*", "dctcp"),
    "pFabric": (r"\bPFabric\w*", "pfabric"),
    "HPCC": (r"\bHpcc\w*|\bHPCC_\w+|\bIntHop\b|\bIntStack\b", "hpcc"),
    "RC3": (r"\bRc3\w*|\bRlpLoop\b|\.rc3\b|\brc3\s*:", "rc3"),
    "RCP": (r"\bRcp\w*|\bRCP_HEADER\b", "rcp"),
    "R-TCP": (r"\bRtcp\w*", "rtcp"),
    "XCP": (r"\bXcp\w*|\bXCP_HEADER\b", "xcp"),
    "JetMax": (r"\bJet[Mm]ax\w*|\bJETMAX_\w+", "jetmax"),
    "PIQI-RCP": (r"\bPiqi\w*|\bPIQI_\w+", "piqi"),
    "Swift": (r"\bSwift\w*", "swift"),
    "DCQCN": (r"\bDcqcn\w*", "dcqcn"),
    "TIMELY": (r"\bTimely\w*", "timely"),
}
# The registry: the table of protocols and the files that expand it or list the modules.
REGISTRY = ("protocol/registry.rs", "protocol/mod.rs", "protocol/keys.rs", "protocol/tcp.rs")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True, cwd=ROOT).stdout


def code(text: str) -> str:
    """The text without `//` comments (line and doc comments) and without its unit tests
    (the `#[cfg(test)]` module at the end of a file)."""
    text = re.split(r"#\[cfg\(test\)\]\s*(?:pub(?:\(\w+\))?\s+)?mod tests", text)[0]
    return "\n".join(re.sub(r"//.*", "", line) for line in text.splitlines())


def short(path: str) -> str:
    """A path relative to the core's src/, or to crates/ for the other crates."""
    return path.split("/src/", 1)[1] if "fctlab-core/src/" in path else path.removeprefix("crates/")


def footprint(rev: str | None) -> dict[str, tuple[int, int, list[str]]]:
    """Per protocol: (files naming it, of which in its folder or the registry, the files outside
    `protocol/` naming it), at git revision `rev`, or in the working tree for None."""
    if rev is None:
        files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "crates").glob("*/src/**/*.rs"))
        texts = {f: code((ROOT / f).read_text()) for f in files}
    else:
        tree = git("ls-tree", "-r", "--name-only", rev, "crates").split()
        files = [f for f in tree if "/src/" in f and f.endswith(".rs")]
        texts = {f: code(git("show", f"{rev}:{f}")) for f in files}
    out = {}
    for name, (pattern, folder) in PROTOCOLS.items():
        names = rf"{pattern}|\bprotocol::{folder}\b"
        hits = sorted(f for f, t in texts.items() if re.search(names, t))
        inside = [f for f in hits if f"/protocol/{folder}/" in f or f.endswith(REGISTRY)]
        # Other protocols' folders that use this one (XCP's reaction to loss is NewReno's)
        # are not places a change to it must edit.
        users = [f for f in hits if "/protocol/" in f and f not in inside]
        outside = [short(f) for f in hits if f not in inside and f not in users]
        out[name] = (len(hits), len(inside), outside)
    return out


def main() -> None:
    revs = sys.argv[1:] or ["HEAD"]
    results = {rev: footprint(rev) for rev in revs}
    head = " | ".join(f"{rev}: files (in folder + registry)" for rev in revs)
    print(f"| protocol | {head} | {revs[-1]}: outside `protocol/` |")
    print("|---|" + "---|" * len(revs) + "---|")
    for name in PROTOCOLS:
        cells = " | ".join(f"{results[r][name][0]} ({results[r][name][1]})" for r in revs)
        outside = results[revs[-1]][name][2]
        listed = f": {', '.join(f'`{o}`' for o in outside)}" if outside else ""
        print(f"| {name} | {cells} | {len(outside)}{listed} |")


if __name__ == "__main__":
    main()
