"""The conformance kit: `fctlab check PROTOCOL` runs a protocol through a battery of small
scenarios and says what it passes, before anyone trusts its numbers.

Each check is a scenario on a dumbbell (2 hosts per side, 10 Mb/s x 5 ms bottleneck, 100 Mb/s
access links) with every router port the protocol's own queue (its router law) where it has
one, and a verdict:

- `conserves packets`: with drops (1% random loss on the bottleneck, a 20-packet buffer, Poisson
  arrivals at 90% load), every packet sent is delivered or dropped, and none is left in the
  network once the run drained.
- `completes, lossless`: three 100 KB flows on an unlimited buffer all complete, every byte
  delivered.
- `completes, 1% loss`: the same under 1% random loss on the bottleneck.
- `completes, 1-packet buffer`: the same through a buffer of one packet.
- `no FCT below the flow alone`: under load, no flow completes faster than it would alone on the
  empty network (`ideal_fct_s`). A protocol may serve one flow faster than its fair share, so
  processor sharing bounds only a flow alone, which is the bound checked.
- `same seed, same bytes`: two runs of one scenario write byte-identical flows and links tables.
- `two flows converge`: two 10 MB flows, the second starting 1 s after the first (neither can
  finish in the 4 s run), share the bottleneck (a buffer of about one bandwidth-delay product,
  12 packets) with Jain's index >= 0.9 over the last second sampled. How much of the bottleneck
  they use is printed, not judged: the explicit protocols' routers start from their laws'
  initial estimates (RCP: an average RTT of 200 ms), which a 10 Mb/s link corrects slowly.
- `beside TCP`: reported, not failed: the share of the bottleneck one 10 MB flow of the protocol
  gets against one NewReno flow through the same queue.
- `garbage headers refused`: every wire tag of the protocol's congestion header (and tag 0, and
  two tags no protocol uses: the first free one and 127) with garbage words (all ones, NaN and
  infinite floats in each word, seeded random words) is either refused with the field named,
  or accepted and encoded back to the same bytes; nothing else (no other exception, no
  silently changed value). Plug-ins' own tags (128-255) carry any words: the plug-in reads
  them.

A protocol is a built-in's name or a host law plug-in (`rust:PATH`, `python:FILE:CLASS`, run
under fctlab's TCP); `--router KIND` puts another router law on the router ports (a queue kind or
a router law plug-in), e.g. `fctlab check rcp --router rust:libmy_rcp.so`.

A check that cannot run (the scenario is refused) fails with the error as its detail; so does a
check whose run a plug-in stopped, and one whose run stalled (nothing could happen any more while
flows were open: the detail counts the flows stalled and completed, and names the first). A check
left with no flow to look at fails saying so, never with "0 of 0".
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fctlab.errors import PluginError, ScenarioError, StallError

#: Verdicts.
PASS, FAIL, REPORT = "pass", "FAIL", "report"

#: Keys a queue kind cannot do without, for the checks' 10 Mb/s dumbbell (a bandwidth-delay
#: product of 10 packets): a step marker's K, at the DCTCP paper's 1 Gb/s value (20 packets,
#: above its K > C x RTT / 7 guideline); a pFabric port's small buffer (about two BDPs); RED as
#: DCQCN's switch marks (the instantaneous queue, each arrival with p alone), Kmin 2 and Kmax
#: 10 packets (one BDP), Pmax 0.2 (HPCC's simulator's).
QUEUE_KEYS: dict[str, dict[str, Any]] = {
    "step": {"k_packets": 20},
    "pfabric": {"limit_packets": 24},
    "red": {"min_packets": 2, "max_packets": 10, "max_p": 0.2, "w_q": 1.0, "gentle": False, "spread": False},
}

#: Transport keys a protocol cannot do without, for the same dumbbell: HPCC's, DCQCN's and
#: TIMELY's NIC rate (their flows start at it), the hosts' 100 Mb/s. DCQCN's and TIMELY's
#: constants are for microsecond round trips at 10-100 Gb/s; here the round trip is 12 ms at
#: 10 Mb/s: their timers, thresholds and steps scaled to it. Swift's base target delay must
#: exceed the path's RTT (about 13.5 ms here: 12 ms of propagation and a 1,500-byte packet's
#: serialization; its default, 25 us, is a datacenter's): 16 ms leaves about two packets of
#: queue at 10 Mb/s.
TRANSPORT_KEYS: dict[str, dict[str, Any]] = {
    "hpcc": {"line_rate": "100Mbps"},
    "swift": {"swift_base_target": "16ms"},
    "dcqcn": {
        "line_rate": "100Mbps",
        "min_rate": "0.1Mbps",
        "timer": "12ms",
        "alpha_timer": "12ms",
        "cnp_interval": "12ms",
        "byte_counter": "150KB",
        "rate_ai": "0.2Mbps",
        "rate_hai": "2Mbps",
    },
    "timely": {
        "line_rate": "100Mbps",
        "min_rate": "0.1Mbps",
        "t_low": "14ms",
        "t_high": "20ms",
        "min_rtt": "12ms",
        "delta": "0.2Mbps",
    },
}


@dataclass(frozen=True)
class Verdict:
    check: str
    status: str
    detail: str


def protocols() -> list[dict]:
    """The built-in protocols, from the core's registry."""
    from fctlab.run import core

    return list(core().PROTOCOLS)


def is_plugin(name: str) -> bool:
    """True if `name` spells a plug-in (`rust:PATH` or `python:FILE:CLASS`)."""
    return name.startswith(("rust:", "python:"))


def absolute(spec: str) -> str:
    """A plug-in spelling with its file made absolute (the checks' scenarios have no folder)."""
    kind, _, rest = spec.partition(":")
    if kind == "python":
        file, _, cls = rest.rpartition(":")
        return f"python:{Path(file).resolve()}:{cls}"
    return f"rust:{Path(rest).resolve()}"


def protocol(name: str, router: str | None = None) -> dict:
    """The registry entry of `name` (a host law plug-in: an entry for it under fctlab's TCP),
    with `router` on the router ports if given; a ScenarioError naming the known ones."""
    if router is not None:
        return {**protocol(name), "queue": absolute(router) if is_plugin(router) else router}
    if is_plugin(name):
        return {"name": absolute(name), "host_key": "transport.cc", "queue": None, "wire_tags": []}
    known = protocols()
    for p in known:
        if p["name"] == name:
            return p
    names = ", ".join(p["name"] for p in known)
    raise ScenarioError(f"protocol: expected one of {names}, got {name!r}")


def _base(p: dict, workload: list, *, limit: dict | None = None, duration: str = "1s", **top: Any) -> dict:
    """A dumbbell scenario running every flow with protocol `p` (its queue on every router port)."""
    section, key = p["host_key"].split(".")
    queue: dict[str, Any] = {"kind": p["queue"] or "droptail", **QUEUE_KEYS.get(p["queue"], {})}
    queue.update(limit or {})
    spec = {
        "name": f"check-{p['name']}",
        "seed": 1,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "hosts_per_side": 2,
            "bottleneck_rate": "10Mbps",
            "bottleneck_delay": "5ms",
            "access_rate": "100Mbps",
            "access_delay": "0.5ms",
        },
        "queues": {"router": queue},
        section: {key: p["name"], **TRANSPORT_KEYS.get(p["name"], {})},
        "workload": workload,
    }
    spec.update(top)
    return spec


def _three_flows() -> list:
    flows = [{"src": f"l{i % 2}", "dst": f"r{i % 2}", "start": 0.05 * i, "size": 100_000} for i in range(3)]
    return [{"kind": "flows", "flows": flows}]


def _poisson(load: float) -> list:
    sizes = {"kind": "pareto", "shape": 1.5, "mean": 30_000, "round_to": 1460}
    return [{"kind": "poisson", "load": load, "load_on": "bottleneck", "sizes": sizes}]


def _run(spec: dict):
    import fctlab

    return fctlab.run(spec)


def _all_complete(spec: dict) -> tuple[bool, str]:
    r = _run(spec)
    f = r.flows
    done = f.filter(f["finish_s"].is_not_null() & (f["delivered_bytes"] == f["size_bytes"])).height
    return done == f.height, f"{done} of {f.height} flows complete"


def check_conserves(p: dict) -> tuple[bool, str]:
    loss = [{"link": "bottleneck", "p": 0.01}]
    r = _run(_base(p, _poisson(0.9), limit={"limit_packets": 20}, loss=loss))
    m = r.meta
    balance = m["sent_pkts"] - m["delivered_pkts"] - m["dropped_pkts"]
    ok = balance == 0 and m["in_network_pkts"] == 0 and m["dropped_pkts"] > 0
    counts = f"sent {m['sent_pkts']}, delivered {m['delivered_pkts']}, dropped {m['dropped_pkts']}"
    return ok, f"{counts}, left {m['in_network_pkts']}"


def check_lossless(p: dict) -> tuple[bool, str]:
    return _all_complete(_base(p, _three_flows()))


def check_random_loss(p: dict) -> tuple[bool, str]:
    return _all_complete(_base(p, _three_flows(), loss=[{"link": "bottleneck", "p": 0.01}]))


def check_one_packet_buffer(p: dict) -> tuple[bool, str]:
    return _all_complete(_base(p, _three_flows(), limit={"limit_packets": 1}))


def check_not_below_alone(p: dict) -> tuple[bool, str]:
    flows = _run(_base(p, _poisson(0.7))).flows
    f = flows.drop_nulls("fct_s")
    if f.height == 0:
        return False, f"no flow completed ({flows.height} started, none finished): no FCT to compare"
    below = f.filter(f["fct_s"] < f["ideal_fct_s"] * (1 - 1e-9))
    return below.height == 0, f"{below.height} of {f.height} flows below their FCT alone"


def check_same_bytes(p: dict) -> tuple[bool, str]:
    import fctlab

    spec = _base(p, _poisson(0.7), limit={"limit_packets": 20})
    with tempfile.TemporaryDirectory() as d:
        fctlab.run_to(spec, Path(d) / "a")
        fctlab.run_to(copy.deepcopy(spec), Path(d) / "b")
        differ = [
            n
            for n in ("flows.parquet", "links.parquet")
            if (Path(d) / "a" / n).read_bytes() != (Path(d) / "b" / n).read_bytes()
        ]
    return not differ, "identical" if not differ else f"{', '.join(differ)} differ"


def _last_second_rates(spec: dict, flows: int) -> list[float]:
    """Each flow's acknowledged bits per second over the last second of samples."""
    series = _run(spec).series
    acked = series.filter(series["metric"] == "acked_bytes")
    end = max(acked["time_s"].to_list())
    rates = []
    for i in range(flows):
        mine = acked.filter(acked["target"] == f"flow{i}")
        at = dict(zip(mine["time_s"].round(6).to_list(), mine["value"].to_list(), strict=True))
        rates.append(8 * (at.get(round(end, 6), 0.0) - at.get(round(end - 1, 6), 0.0)))
    return rates


#: The dumbbell's bottleneck rate, bit/s.
_BOTTLENECK_BPS = 10e6
#: The two long flows share a buffer of about the bottleneck's bandwidth-delay product
#: (10 Mb/s x 12 ms), so that a window-based sender meets loss instead of an endless queue.
_BDP_BUFFER = {"limit_packets": 12}
_SERIES = {"series": {"interval": "0.5s", "flows": [0, 1]}}


#: A flow too large to finish in a 4 s run at 10 Mb/s (a finite size, so that every sender,
#: RC3's low-priority loop included, can hold its write).
_LONG = 10_000_000


def check_converge(p: dict) -> tuple[bool, str]:
    flows = [
        {"src": "l0", "dst": "r0", "start": 0, "size": _LONG},
        {"src": "l1", "dst": "r1", "start": 1, "size": _LONG},
    ]
    workload = [{"kind": "flows", "flows": flows}]
    spec = _base(p, workload, limit=_BDP_BUFFER, duration="4s", drain=False, output=_SERIES)
    a, b = _last_second_rates(spec, 2)
    jain = (a + b) ** 2 / (2 * (a * a + b * b)) if a + b > 0 else 0.0
    used = (a + b) / _BOTTLENECK_BPS
    return jain >= 0.9, f"{a / 1e6:.2f} and {b / 1e6:.2f} Mb/s ({used:.0%} of the bottleneck), Jain's index {jain:.3f}"


def check_beside_tcp(p: dict) -> tuple[bool, str]:
    workload = [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": _LONG}]}]
    tcp = {"kind": "flows", "transport": "tcp", "flows": [{"src": "l1", "dst": "r1", "start": 0, "size": _LONG}]}
    spec = _base(p, [*workload, tcp], limit=_BDP_BUFFER, duration="4s", drain=False, output=_SERIES)
    spec["transports"] = {"tcp": {"protocol": "tcp", "cc": "newreno"}}
    mine, theirs = _last_second_rates(spec, 2)
    share = mine / (mine + theirs) if mine + theirs > 0 else 0.0
    return True, f"{share:.0%} of the bottleneck against NewReno's {1 - share:.0%}"


#: Garbage words: all ones, a quiet NaN, a negative NaN, infinity and a signalling NaN in each
#: word, and seeded random words.
def _garbage_words() -> list[tuple[int, int, int]]:
    import random

    specials = [0xFFFFFFFF, 0x7FC00000, 0xFFC00000, 0x7F800000, 0x7F800001]
    words = [(s, 0, 0) for s in specials] + [(0, s, 0) for s in specials] + [(0, 0, s) for s in specials]
    words.append((0xFFFFFFFF,) * 3)
    rng = random.Random(1)
    words += [(rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(32)) for _ in range(200)]
    return words


def check_garbage_headers(p: dict) -> tuple[bool, str]:
    from fctlab.run import core

    decode = core().decode_header
    # Tag 0 (no header), the first tag no built-in uses, and the last below the plug-ins'.
    used = {t for q in protocols() for t in q["wire_tags"]}
    free = min(t for t in range(1, 128) if t not in used)
    tags = [*p.get("wire_tags", []), 0, free, 127]
    refused = accepted = 0
    wrong: list[str] = []
    for tag in tags:
        for words in _garbage_words():
            try:
                back = decode(tag, words)
            except ValueError as e:
                if not str(e).startswith("cc"):
                    wrong.append(f"tag {tag} {words}: refused without a field: {e}")
                refused += 1
                continue
            except Exception as e:  # noqa: BLE001 - anything else is the failure this check looks for
                wrong.append(f"tag {tag} {words}: {type(e).__name__}: {e}")
                continue
            accepted += 1
            if back != (tag, *words):
                wrong.append(f"tag {tag} {words}: accepted as {back}")
    own = ", ".join(map(str, p.get("wire_tags", []))) or "none"
    detail = f"tags {own} (own) and 0, {free}, 127: {refused} refused by field, {accepted} accepted unchanged"
    return not wrong, detail if not wrong else f"{len(wrong)} wrong, first: {wrong[0]}"


#: The battery, in the order of the table: (name, check, failing counts).
CHECKS: list[tuple[str, Callable[[dict], tuple[bool, str]], bool]] = [
    ("conserves packets", check_conserves, True),
    ("completes, lossless", check_lossless, True),
    ("completes, 1% loss", check_random_loss, True),
    ("completes, 1-packet buffer", check_one_packet_buffer, True),
    ("no FCT below the flow alone", check_not_below_alone, True),
    ("same seed, same bytes", check_same_bytes, True),
    ("two flows converge", check_converge, True),
    ("beside TCP", check_beside_tcp, False),
    ("garbage headers refused", check_garbage_headers, True),
]


def run_checks(name: str, router: str | None = None) -> list[Verdict]:
    """Every check of the battery on protocol `name` (with `router` on the router ports)."""
    p = protocol(name, router)
    out = []
    for title, fn, counts in CHECKS:
        try:
            ok, detail = fn(p)
        except ScenarioError as e:
            ok, detail = False, f"refused: {e}"
        except PluginError as e:
            ok, detail = False, f"stopped: {e}"
        except StallError as e:
            ok, detail = False, stalled(e)
        status = REPORT if not counts else (PASS if ok else FAIL)
        out.append(Verdict(title, status, detail))
    return out


def stalled(e: StallError) -> str:
    """A stalled run's verdict detail: how many flows stalled and completed, when, the first."""
    n = e.stall.get("open_flows", 0)
    done = e.result.meta.get("flows_completed") if e.result is not None else None
    if done == 0:
        head = f"no flow completed: {n} flows stalled"
    else:
        head = f"{n} flows stalled" + (f" ({done} completed)" if done is not None else "")
    lines = e.flow_lines(1)
    first = f"; first: {lines[0]}" if lines else ""
    return f"{head}, nothing could happen any more by t = {e.stall['time_s']:.6f} s{first}"


def format_table(name: str, verdicts: list[Verdict]) -> str:
    width = max(len(v.check) for v in verdicts)
    lines = [f"{name}:"]
    lines += [f"  {v.check:<{width}}  {v.status:<6}  {v.detail}" for v in verdicts]
    return "\n".join(lines)


def format_markdown(results: dict[str, list[Verdict]], router: str | None = None) -> str:
    """The verdicts of several protocols as one Markdown table: a row per check, a column per
    protocol, the details below; `router`, the router ports' kind if `--router` gave one."""
    names = list(results)
    checks = [v.check for v in next(iter(results.values()))]
    lines = [
        "# Conformance of the protocols",
        "",
        "Written by `fctlab check --report` (python/fctlab/tools/check.py: each check's scenario and pass rule).",
        "",
        *([f"Router ports: `{router}` (`--router`), instead of each protocol's own queue.", ""] if router else []),
        "| check | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for i, c in enumerate(checks):
        lines.append(f"| {c} | " + " | ".join(results[n][i].status for n in names) + " |")
    lines.append("")
    for n in names:
        lines.append(f"## {n}")
        lines.append("")
        lines += [f"- {v.check}: {v.status}, {v.detail}" for v in results[n]]
        lines.append("")
    return "\n".join(lines)
