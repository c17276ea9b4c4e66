"""`fctlab emulate` writes the same capture as `fctlab run` (`[output.pcap]`, docs/pcap.md): the
router process captures what its emulated links deliver, as Ethernet/IPv4/TCP frames with the
shim, stamped with the emulation's run clock. Runs on loopback (a second of wall time)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict

from realcore import fake  # noqa: F401  (fake: the compiled core)
from test_core_pcap import tshark
from test_emulate import single_flows


def test_an_emulation_captures_its_bottleneck_with_the_shim(tmp_path):
    spec = single_flows("rcp", [1, 30])
    spec["output"] = {"pcap": {"links": ["bottleneck", "bottleneck_rev"]}}
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(spec))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "fctlab.cli", "emulate", str(scenario), "-o", str(out), "--mode", "loopback", "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    cap = out / "capture.pcapng"
    assert cap.is_file(), sorted(x.name for x in out.iterdir())
    assert tshark(cap, "_ws.malformed || _ws.expert.severity == error", ["frame.number"]) == []

    import fctlab

    r = fctlab.load(out)
    per_if = defaultdict(int)
    for (i,) in tshark(cap, "frame", ["frame.interface_id"]):
        per_if[int(i)] += 1
    sent = dict(zip(r.links["name"], r.links["pkts_sent"]))
    assert per_if == {0: sent["bottleneck"], 1: sent["bottleneck_rev"]}
    # Both flows' bytes crossed the bottleneck once each (no loss at this load).
    payload = sum(int(n) for (n,) in tshark(cap, "frame.interface_id == 0 && tcp.len > 0", ["tcp.len"]))
    assert payload == r.flows["size_bytes"].sum() + r.flows["retx_bytes"].sum()
    # The RCP header rides in the shim both ways, and its rate is the 10 Mb/s bottleneck's or
    # less once the router has set it.
    rates = tshark(cap, "fctlab.rcp.rate", ["fctlab.tag", "fctlab.rcp.rate"], lua=True)
    tags = {t for t, _ in rates}
    assert tags == {"1", "2"}, tags
    assert all(int(v) <= 10_000 for t, v in rates if t == "2"), "echoed rates are the bottleneck's"
    # Timestamps are the run clock's: the first SYN reaches the far end of the 10 ms bottleneck
    # about 10 ms into the run.
    (t,) = tshark(cap, "frame.number == 1", ["frame.time_epoch"])[0]
    assert 0.010 <= float(t) < 0.050, t
