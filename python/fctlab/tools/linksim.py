"""`fctlab estimate --method links`: Parsimon's decomposition (Zhao et al., NSDI'23). The network
is cut into one small packet-level run per busy link, each run is fctlab itself, and a flow's
estimate adds up the delays its links gave it.

**A link problem** (`link_problem`), for directed link `l = u -> v` and the flows crossing it, is
a graph of its own:

- `l` itself, rate and delay as in the network, from node `u` to node `v` (a router, or the host
  itself when `l` is a host's own link: then its flows start or end there);
- the links that feed `l` (the hop before it on a flow's path), one router each, joined to `u`
  at that link's rate and delay: each neighbour sends no faster than in the network, where
  Parsimon joins every sender straight to `u`;
- one source host per (sending host, feeding link, delay before it), joined to that router at
  the sender's own rate with the rest of the delay (a sender whose own link feeds `l` joins `u`
  at that link's rate and delay);
- one destination host per (receiving host, delay after `l`), joined from `v` by a *fat* link,
  ten times the slowest rate after `l`, with the propagation delay of the rest of the path (so
  the queues after `l` are other runs' business, as in Parsimon's `link_sim_desc`);
- the flows that cross `l`, with their start, size and transport; the scenario's queues and
  transports.

**The solo problem** (`fctlab.tools.linksolo`) runs flows alone on copies of their paths (a
chain of their links' rates and delays): a flow's FCT with nothing else in the network, slow
start and store-and-forward included, one chain per distinct (transport, path, size) or, where
a path carries thousands of sizes, on a grid of sizes interpolated.

**Combining.** A link run gives flow `f` its completion time there, `fct_lf`; the link delayed
it by what that exceeds the flow's time alone on its whole path, `alone_f`, so

    fct_f = alone_f + sum_{l in path(f)} max(0, fct_lf - alone_f)

Parsimon adds `fct_lf - ideal_lf` instead, with transports that start at line rate; with slow
start every link run would count the flow's own start-up again, and a link problem faster than
the flow's path (a fat link after it, a sender's own fast link) would charge it for the speed
the path does not have. Each flow adds its own delays (a link run holds every flow that crosses
the link), not samples of a link's delay distribution: with every link run there, the flow's
own numbers are at hand and carry no sampling noise.

**Windows.** In the network a window stops growing where the flow loses packets or is marked,
and that is often another hop than the problem's link, whose losses and marks the problem does
not have. A flow whose sender joins no faster than the problem's link keeps the excess of its
window in the sender's host queue, which has no limit, and nothing after the link drops: its
window would grow without end and delay every other flow of that sender (on the k = 4 fat tree,
all links 10 Gb/s, short flows met retransmission timeouts of 13-28 ms in the problems with
DCTCP, about 1 ms in the network). A host's own link is always such a problem: its flows start
at the link. Where a flow's losses happen elsewhere (a sender no faster than the link, or a
link faster than the flow's slowest), its receive window in the problem is cut to the most the
network holds in flight, the largest path's bandwidth-delay product plus a router queue
(`window_bound`). On the 32-host leaf-spine with web-search flows at 50%, cutting the host
links' flows took the links method's mean p99 error from 189% to 48%; with every link run,
cutting every sender no faster than the link took the validation set's from 104% to 54%
(389% -> 27% on the k = 4 tree with DCTCP). A flow whose sender is faster than the link loses
its packets at the link, as in the network (a slow start's overshoot included), and is left
alone: cutting its window too made the parking lot's long flows 11-19% long
(`test_links_adds_the_delays_...`).

**Links alike run once** (`fctlab.tools.linkclusters`, Parsimon's clustering): links of the
same rate, delay, ends and transports whose flow sizes, gaps and load differ by at most
`epsilon` (default 0.1), or by no more than samples of their sizes tell apart, share their
representatives' runs (as many links of the cluster as hold 1,000 flows together), and their
flows draw their delays from those runs' flows of about their size.

The problems run side by side in batches (`fctlab.tools.linkbatch`), the batches as a sweep
(`fctlab.tools.sweep`: processes, resumable, a progress bar, or on a Dask cluster) in
`OUT/links/`, and the estimate is combined from their
flows tables; `OUT/links/delays.parquet` keeps what each representative link's run added to
each of its flows (which link delays a flow, and by how much).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from fctlab.errors import ScenarioError
from fctlab.tools.linkbatch import Problem, batches, flow_key
from fctlab.tools.linkclusters import EPSILON, Neighbours, cluster, features, representatives
from fctlab.tools.linksolo import alone, solo_problem

#: Destination links are this many times faster than the slowest link after `l` (Parsimon's 10).
FAT = 10.0
#: Bytes of one full packet, for a router queue given in packets (`window_bound`).
MTU = 1500
#: The runs of every flow alone (the sweep points' names: this and the part's number).
SOLO = "solo"
#: In the problems' directory: the delay each representative link's run gave each of its flows
#: (`id`, `link`, `delay_s`: what the flow's time there exceeds its time alone, at least 0).
DELAYS = "delays.parquet"
#: The scenario keys a link problem keeps from the scenario (the rest is its own, or refused).
KEPT = ("name", "seed", "duration", "drain", "max_time", "transport", "transports")
#: Scenario keys the links method cannot carry into link problems (named links or hosts of the
#: whole network, a lossless fabric whose PAUSE couples the links).
REFUSED = ("fabric", "link_rate", "loss", "host_transport")


def refuse_what_links_lack(spec: Mapping[str, Any]) -> None:
    """A clear error for a scenario the links method cannot decompose."""
    for key in REFUSED:
        if spec.get(key):
            raise ScenarioError(
                f"{key}: the links method cuts the network into one run per link and cannot carry "
                f"`{key}` into them; expected a scenario without it (or --method fluid, or the packet level)"
            )


def window_bound(spec: Mapping[str, Any], flows: pl.DataFrame, links: pl.DataFrame) -> int | None:
    """The most bytes a flow keeps in flight in the network in the steady state: the largest
    path's bandwidth-delay product plus a router queue (None when router queues are unlimited).
    A flow whose sender joins a link problem no faster than the link (a host's own link's flows
    among them) has nothing after the link that loses packets (fat links) and a host queue
    without a limit, so its window would grow without end and fill that queue; in the network
    the losses on its other hops hold it back. So does a flow on a link faster than its path's
    slowest, whose losses also happen elsewhere. Their receive window is cut to this bound in
    those problems (`Transports`). A router queue that marks at a step K (DCTCP's) holds about K
    in the steady state, not its limit: K is the queue counted."""
    from fctlab.quantity import parse_bytes

    router = (spec.get("queues") or {}).get("router") or {}
    if router.get("kind") == "step" and router.get("k") is not None:
        buffer = parse_bytes(router["k"], "queues.router.k")
    elif router.get("kind") == "step" and router.get("k_packets") is not None:
        buffer = int(router["k_packets"]) * MTU
    elif router.get("limit") is not None:
        buffer = parse_bytes(router["limit"], "queues.router.limit")
    elif router.get("limit_packets") is not None:
        buffer = int(router["limit_packets"]) * MTU
    else:
        return None
    rates = links["rate_bps"].cast(pl.Float64).to_numpy()
    slowest = flows.select(pl.col("path").list.eval(pl.element().replace_strict(range(len(rates)), rates)).list.min())
    bdp = (flows["rtt_prop_s"] * slowest.to_series() / 8).max() if flows.height else None
    return int(bdp or 0.0) + buffer


def base_scenario(spec: Mapping[str, Any]) -> dict:
    """The scenario every problem starts from: the kept keys, every flow measured, the queues'
    router and host tables (a problem has no named links of the network)."""
    base = {k: spec[k] for k in KEPT if k in spec}
    queues = spec.get("queues") or {}
    base["queues"] = {k: queues[k] for k in ("router", "host") if k in queues}
    base["measure_from"] = 0
    return base


class Transports:
    """Each flow's transport as a workload entry names it: its `protocol` label when that is a
    named transport of the scenario, else the default (no `transport` key); and, for the flows of
    a problem whose windows are bounded (`window_bound`), a variant of it with that receive
    window (`<name>-bounded`, or `bounded` for the default), defined by `tables`."""

    BOUNDED = "bounded"

    def __init__(self, spec: Mapping[str, Any], rwnd: int | None = None) -> None:
        self.spec = spec
        self.named = set((spec.get("transports") or {}).keys())
        self.rwnd = rwnd
        #: The bounded variants `entries` named, each with the transport it varies (None: the default).
        self.variants: dict[str, str | None] = {}

    def entries(self, flows: list[dict], labels: list[str], bounded: list[bool] | None = None) -> list[dict]:
        """`kind = "flows"` workload entries for `flows`, one per transport, in first-seen order."""
        groups: dict[str | None, list[dict]] = {}
        for i, (f, label) in enumerate(zip(flows, labels, strict=True)):
            name = label if label in self.named else None
            if bounded is not None and bounded[i] and self.rwnd is not None:
                variant = self.BOUNDED if name is None else f"{name}-{self.BOUNDED}"
                self.variants[variant] = name
                name = variant
            groups.setdefault(name, []).append(f)
        out = []
        for name, group in groups.items():
            entry: dict[str, Any] = {"kind": "flows", "flows": group}
            if name is not None:
                entry["transport"] = name
            out.append(entry)
        return out

    def tables(self, workload: list[dict]) -> dict[str, Any]:
        """Overrides defining the bounded variants `workload` uses (none if it uses none)."""
        from fctlab.quantity import parse_bytes

        out: dict[str, Any] = {}
        for entry in workload:
            name = entry.get("transport")
            if name not in self.variants or self.rwnd is None:
                continue
            base = self.variants[name]
            table = dict((self.spec.get("transports") or {}).get(base) or {}) if base is not None else {}
            given = table.get("rwnd", (self.spec.get("transport") or {}).get("rwnd"))
            rwnd = self.rwnd if given is None else min(self.rwnd, parse_bytes(given, "rwnd"))
            out[f"transports.{name}"] = {**table, "rwnd": rwnd}
        return out


def _flow(src: str, dst: str, row: Mapping[str, Any]) -> dict:
    return {"src": src, "dst": dst, "start": row["start_s"], "size": row["size_bytes"]}


def link_problem(
    link: Mapping[str, Any],
    crossing: pl.DataFrame,
    links: pl.DataFrame,
    hosts: set[str],
    transports: Transports,
) -> tuple[dict, dict[tuple, list[int]]]:
    """The overrides of link `link`'s problem (topology and workload; see the module doc) and its
    flows' ids by their key in its run (`flow_key`)."""
    rate, delay = links["rate_bps"].to_list(), links["delay_s"].to_list()
    lid = link["id"]
    u_host, v_host = link["src"] in hosts, link["dst"] in hosts
    nodes = [
        {"name": "u", "kind": "host" if u_host else "router"},
        {"name": "v", "kind": "host" if v_host else "router"},
    ]
    edges = [{"a": "u", "b": "v", "rate": rate[lid], "delay": delay[lid], "name": "l"}]
    sources: dict[tuple[str, int, float], str] = {}
    upstream: dict[int, str] = {}
    sinks: dict[tuple[str, float], str] = {}
    flows, labels, bounded = [], [], []
    ids: dict[tuple, list[int]] = {}
    for row in crossing.sort(["start_s", "id"]).iter_rows(named=True):
        path = row["path"]
        k = path.index(lid)
        before, after = path[:k], path[k + 1 :]
        if u_host:
            src = "u"
        else:
            # The flows come into u over the links into it (`into`), whose rates cap what each
            # neighbour sends; their senders hang one hop further up, at their own rate.
            into = before[-1]
            if len(before) == 1:
                key = (row["src"], into, 0.0)
                tail, at = "u", (rate[into], delay[into])
            else:
                if into not in upstream:
                    upstream[into] = f"w{len(upstream)}"
                    nodes.append({"name": upstream[into], "kind": "router"})
                    edges.append({"a": upstream[into], "b": "u", "rate": rate[into], "delay": delay[into]})
                key = (row["src"], into, round(sum(delay[x] for x in before[:-1]), 15))
                tail, at = upstream[into], (rate[path[0]], key[2])
            if key not in sources:
                sources[key] = f"s{len(sources)}"
                nodes.append({"name": sources[key], "kind": "host"})
                edges.append({"a": sources[key], "b": tail, "rate": at[0], "delay": at[1]})
            src = sources[key]
        if v_host:
            dst = "v"
        else:
            key = (row["dst"], round(sum(delay[x] for x in after), 15))
            if key not in sinks:
                sinks[key] = dst = f"d{len(sinks)}"
                nodes.append({"name": dst, "kind": "host"})
                edges.append({"a": "v", "b": dst, "rate": FAT * min(rate[x] for x in after), "delay": key[1]})
            dst = sinks[key]
        flows.append(_flow(src, dst, row))
        labels.append(row["protocol"])
        # Bounded where the flow's losses and marks happen elsewhere, so its window would grow
        # past the network's: its sender no faster than `l` (the excess would wait in the
        # sender's host queue, without a limit; on a host's own link, `l` is the sender's link),
        # or `l` faster than the flow's slowest link.
        bounded.append(rate[path[0]] <= rate[lid] or rate[lid] > min(rate[x] for x in path))
        ids.setdefault(flow_key(src, dst, row["start_s"], row["size_bytes"]), []).append(row["id"])
    topology = {"kind": "graph", "nodes": nodes, "links": edges}
    workload = transports.entries(flows, labels, bounded)
    return {"topology": topology, "workload": workload, **transports.tables(workload)}, ids


def estimate_links(
    spec: Mapping[str, Any],
    flows: pl.DataFrame,
    links: pl.DataFrame,
    workdir: str | os.PathLike,
    *,
    jobs: int | None = None,
    client: Any | None = None,
    progress: bool = False,
    epsilon: float = EPSILON,
) -> tuple[pl.Series, dict]:
    """Every flow's estimated FCT (s, by flow id; null where a problem left it unfinished) and
    what the method did (`links`: busy links, `problems` run, `flows_per_problem`,
    `solo_chains`), its problems run as a sweep in `workdir`. Links whose features differ by at
    most `epsilon` share one run (`fctlab.tools.linkclusters`; 0 runs every busy link)."""
    from fctlab.tools.sweep import Sweep, run_sweep

    refuse_what_links_lack(spec)
    if not (isinstance(epsilon, int | float) and 0 <= epsilon < 1):
        raise ScenarioError(f"epsilon: expected a number in [0, 1), got {epsilon!r}")
    hosts = set(flows["src"].to_list()) | set(flows["dst"].to_list())
    rwnd = window_bound(spec, flows, links)
    transports = Transports(spec, rwnd)
    seed = int(spec.get("seed", 1))
    flows = flows.sort("id")
    ids = flows["id"].to_numpy()
    sizes = flows["size_bytes"].to_numpy()
    on_link = (
        flows.select("path", "start_s", "size_bytes", "protocol")
        .with_row_index("row")
        .explode("path")
        .group_by("path")
        .agg("row", "start_s", "size_bytes", pl.col("protocol").unique().sort())
        .sort("path")
    )
    busy = on_link["path"].to_list()
    rate, delay, ends = links["rate_bps"].to_list(), links["delay_s"].to_list(), links.select("src", "dst").rows()
    feats = [
        features(
            (rate[lid], delay[lid], ends[lid][0] in hosts, ends[lid][1] in hosts, tuple(protos)),
            starts,
            sizes_here,
            rate[lid],
        )
        for lid, starts, sizes_here, protos in zip(
            busy, on_link["start_s"], on_link["size_bytes"], on_link["protocol"], strict=True
        )
    ]
    clusters = cluster(busy, feats, epsilon)
    reps = representatives(clusters, dict(zip(busy, feats, strict=True)))
    running = sorted(lid for rs in reps.values() for lid in rs)
    rows_on = dict(zip(busy, on_link["row"], strict=True))
    problems = []
    for lid in running:
        crossing = flows.select(pl.all().gather(rows_on[lid]))
        problems.append(Problem(lid, *link_problem(links.row(lid, named=True), crossing, links, hosts, transports)))
    runs = list(batches(problems))
    points = [(b.name, b.overrides) for b in runs]
    solo = solo_problem(flows, links, transports)
    solos = [f"{SOLO}{i}" for i in range(len(solo.parts))]
    points += list(zip(solos, solo.parts, strict=True))
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    base = work / "base.json"
    base.write_text(json.dumps(base_scenario(spec)))
    outcomes = run_sweep(Sweep(base, [seed], points), work, jobs=jobs, client=client, progress=progress)
    failed = [o for o in outcomes if o.status != "done"]
    if failed:
        raise ScenarioError(
            f"{len(failed)} of {len(outcomes)} link problems failed, e.g. {failed[0].run.name}: {failed[0].error} "
            f"(details in {work})"
        )
    # By row of `flows`: the time alone, the delays added, whether a problem left the flow unfinished.
    first = alone(solo, [work / name / f"seed{seed}" for name in solos])
    extra = np.zeros(flows.height)
    unfinished = np.isnan(first)
    records: dict[int, list[tuple[int, float]]] = {lid: [] for lid in running}
    delays: list[tuple[int, int, float]] = []
    for b in runs:
        got = _rows(work / b.name / f"seed{seed}", b.keyed)
        at = np.searchsorted(ids, [f for (_, f), _ in got])  # `flows` is sorted by id
        for ((rep, f), fct), r in zip(got, at.tolist(), strict=True):
            if fct is None or unfinished[r]:
                unfinished[r] = True
                continue
            d = max(0.0, fct - first[r])
            extra[r] += d
            records[rep].append((int(sizes[r]), d))
            delays.append((f, rep, d))
    schema = {"id": pl.Int64, "link": pl.Int64, "delay_s": pl.Float64}
    pl.DataFrame(delays, schema=schema, orient="row").sort("id", "link").write_parquet(work / DELAYS)
    for head, members in clusters.items():
        near = Neighbours([r for rep in reps[head] for r in records[rep]])
        ran = set(reps[head])
        for other in (m for m in members if m not in ran):
            rows = rows_on[other].to_numpy()
            if near:
                extra[rows] += near.sample_many(sizes[rows], np.random.default_rng([seed, other]))
            else:
                unfinished[rows] = True
    est = np.where(unfinished, np.nan, first + extra)
    stats = {
        "busy_links": len(busy),
        "clusters": len(clusters),
        "problems": len(problems) + 1,
        "runs": len(points),
        "epsilon": epsilon,
        "flows_per_problem": round(sum(p.flows for p in problems) / max(len(problems), 1), 2),
        "solo_chains": solo.chains,
        "solo_runs": len(solos),
        "fat": FAT,
        "rwnd_bytes": rwnd,
    }
    # In flow id order (the order of `flows`, sorted above).
    return pl.Series("fct", est).fill_nan(None).alias("fct"), stats


def _rows(run_dir: Path, keyed: Mapping[tuple, list[Any]]) -> list[tuple[Any, float | None]]:
    """(what the row stands for, its fct_s) for each row of a problem's run, matched by
    `flow_key` to an entry of `keyed`: rows alike in the key take its entries in order (in id
    order, such flows are interchangeable)."""
    columns = ["id", "src", "dst", "start_s", "size_bytes", "fct_s"]
    t = pl.read_parquet(run_dir / "flows.parquet", columns=columns).sort("id")
    left = {k: list(v) for k, v in keyed.items()}
    out = []
    for _, src, dst, start, size, fct in t.iter_rows():
        tags = left.get(flow_key(src, dst, start, size))
        if not tags:
            raise ScenarioError(
                f"{run_dir}: a flow of the problem's run matches none it was given: {(src, dst, start, size)}"
            )
        out.append((tags.pop(0), fct))
    if any(left.values()):
        raise ScenarioError(f"{run_dir}: the problem's run lacks flows it was given")
    return out
