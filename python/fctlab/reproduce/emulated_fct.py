"""Single flows, simulated and emulated: issue 11's acceptance test (`fct-accuracy`) and RC3's
Fig. 15 at a scaled rate (`rc3-fig15`).

Both send one flow at a time from l0 to r0 over an idle dumbbell (`experiments/emulated/
single-flows.toml`), spaced so that no two overlap, and compare each flow's FCT in the
simulation with its mean over the emulation's repetitions. An idle path makes a simulation
deterministic, so any difference is the emulation's: a process waking late for a timer or a
packet, a flow starting late, a loss recovered differently.
"""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.emulated import cpu_table, deviation, emulation, lateness_table, warnings_text
from fctlab.reproduce.framework import EMU, Context, Experiment, Runs, fmt, md_table, mean_std, plt

#: Payload bytes per segment.
SEG = 1460
#: Bytes of a segment on the wire (payload and TCP/IP headers), for the spacing of flows.
WIRE = 1500
#: The acceptance test's sizes (segments) and bound (issue 11).
ACCURACY_SIZES = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
QUICK_SIZES = [1, 10, 50]
BOUND_PCT = 5.0
#: The acceptance test's bottleneck (b/s) and the protocols it runs.
ACCURACY_RATE = 10e6
#: Protocol -> overrides: TCP NewReno with Linux's IW 10 (what RC3's Fig. 15 testbed ran), TCP
#: CUBIC (with HyStart, its default, as Linux's), RC3 on NewReno with priority queues at the hosts
#: and the router, RCP with its router on the bottleneck.
PROTOCOLS: dict[str, dict[str, Any]] = {
    "tcp": {"transport.protocol": "tcp"},
    "cubic": {"transport.protocol": "tcp", "transport.cc": "cubic"},
    "rc3": {
        "transport.protocol": "rc3",
        "queues.router": {"kind": "prio", "limit_packets": 100},
        "queues.host": {"kind": "prio"},
    },
    "rcp": {"transport.protocol": "rcp", "queues.links.bottleneck": {"kind": "rcp", "limit_packets": 100}},
}
#: Linux's own TCP (kernel Reno and kernel CUBIC, IW 10) beside fctlab's TCP NewReno and CUBIC:
#: emulated only (a kernel stack cannot be simulated), in namespaces only (left out, and said so,
#: where they cannot be made).
LINUX = "linux"
LINUX_OVERRIDES: dict[str, Any] = {"transport": {"stack": "linux", "cc": "reno", "iw": 10}}
LINUX_CUBIC = "linux-cubic"
LINUX_CUBIC_OVERRIDES: dict[str, Any] = {"transport": {"stack": "linux", "cc": "cubic", "iw": 10}}
#: Kernel run -> (fctlab's run it stands beside, the kernel's controller, fctlab's).
LINUX_PAIRS: dict[str, tuple[str, str, str]] = {
    LINUX: ("tcp", "Reno", "NewReno"),
    LINUX_CUBIC: ("cubic", "CUBIC (HyStart on)", "CUBIC (HyStart, Linux's detectors)"),
}
LINUX_RUNS: dict[str, dict[str, Any]] = {LINUX: LINUX_OVERRIDES, LINUX_CUBIC: LINUX_CUBIC_OVERRIDES}


def _linux_points(sizes: list[int], gap_s: float) -> list[tuple[str, dict[str, Any]]]:
    from fctlab.emulate.netns import netns_available

    if not netns_available()[0]:
        return []
    return [(n, _single(sizes, ACCURACY_RATE, gap_s, o)) for n, o in LINUX_RUNS.items()]


#: Repetitions of each emulation (full mode).
REPEATS = 3

#: RC3 Fig. 15 at 1 Gb/s x 20 ms, emulated at time scale 10 (100 Mb/s on the wall), as seed 002
#: scaled it: a log-spaced subset of the paper's 1 - 2000 segments.
FIG15_SIZES = [1, 5, 20, 100, 500, 2000]
FIG15_RATE = 1e9
FIG15_SCALE = 10.0
FIG15_TOPOLOGY = {
    "kind": "dumbbell",
    "hosts_per_side": 1,
    "bottleneck_rate": "1Gbps",
    "bottleneck_delay": "10ms",
    "access_rate": "1Gbps",
    "access_delay": "0s",
}
FIG15_VARIANTS: dict[str, dict[str, Any]] = {
    "tcp": {"transport.protocol": "tcp"},
    "rc3": {"transport.protocol": "rc3"},
}
# Linux kernel TCP (the paper's testbed) cannot run here: its timers follow the wall clock, so it
# cannot be time-scaled to 1 Gb/s; it runs at 10 Mb/s x 20 ms in fct-accuracy. A run named
# FIG15_LINUX would add a column.
FIG15_LINUX = "linux"


def flow_list(sizes: list[int], rate_bps: float, gap_s: float = 0.3) -> list[dict[str, Any]]:
    """One flow per size from l0 to r0, each starting `gap_s` plus twice the previous flow's
    serialization time after the previous one (so that it has finished, losses included)."""
    flows, t = [], 0.0
    for n in sizes:
        flows.append({"src": "l0", "dst": "r0", "start": round(t, 6), "size": n * SEG})
        t += gap_s + 2 * n * WIRE * 8 / rate_bps
    return flows


def _single(sizes: list[int], rate_bps: float, gap_s: float, extra: dict[str, Any]) -> dict[str, Any]:
    flows = flow_list(sizes, rate_bps, gap_s)
    return {**extra, "duration": flows[-1]["start"] + gap_s, "workload": [{"kind": "flows", "flows": flows}]}


def fct_accuracy() -> Experiment:
    """The acceptance test: emulated FCT within 5% of simulated, 1 - 1000 segments, TCP / RC3 / RCP."""
    return Experiment(
        name="fct-accuracy",
        title="Issue 11's acceptance test: emulated FCTs against simulated ones, 1 - 1000 segments",
        base="single-flows.toml",
        points=[(p, _single(ACCURACY_SIZES, ACCURACY_RATE, 0.3, o)) for p, o in PROTOCOLS.items()],
        seeds=1,
        analyze=analyze_accuracy,
        quick=lambda n, o: _single(QUICK_SIZES, ACCURACY_RATE, 0.1, {**PROTOCOLS, **LINUX_RUNS}[n]),
        emulate={"time_scale": 1.0},
        emulate_seeds=REPEATS,
        emulated_only=_linux_points(ACCURACY_SIZES, 0.3),
    )


def rc3_fig15() -> Experiment:
    """RC3 Fig. 15 at 1 Gb/s x 20 ms, emulated at time scale 10."""
    extra = {"topology": FIG15_TOPOLOGY, "queues.router": {"kind": "prio", "limit": "50MB"}}
    extra["queues.host"] = {"kind": "prio"}
    return Experiment(
        name="rc3-fig15",
        title="RC3 paper Fig. 15, emulated: single flows at 1 Gb/s x 20 ms (time scale 10)",
        base="single-flows.toml",
        points=[(p, _single(FIG15_SIZES, FIG15_RATE, 0.3, {**extra, **o})) for p, o in FIG15_VARIANTS.items()],
        seeds=1,
        analyze=analyze_fig15,
        quick=lambda n, o: _single(FIG15_SIZES[:3], FIG15_RATE, 0.1, {**extra, **FIG15_VARIANTS[n]}),
        emulate={"time_scale": FIG15_SCALE},
        emulate_seeds=2,
    )


def experiments() -> list[Experiment]:
    """The single-flow experiments."""
    return [fct_accuracy(), rc3_fig15()]


# ---------------------------------------------------------------------------------------------
# Per-flow numbers, both ways.


def _per_flow(runs: Runs, name: str) -> list[dict[str, Any]]:
    """Per flow (by id): size, planned start, the simulated FCT, timeouts and retransmitted bytes,
    and the emulations' FCTs, start lags, timeouts and retransmissions (one entry per repetition)."""
    sim = runs.flows(name, runs.seeds_of(name)[0]).sort("id")
    planned = [float(f["start"]) for f in runs.scenario(name, runs.seeds_of(name)[0])["workload"][0]["flows"]]
    emus = [runs.flows(name + EMU, s).sort("id") for s in runs.seeds_of(name + EMU)]
    out = []
    for i, row in enumerate(sim.iter_rows(named=True)):
        em = [e.row(i, named=True) for e in emus if e.height > i]
        out.append(
            {
                "segments": row["size_bytes"] // SEG,
                "sim": row["fct_s"],
                "sim_timeouts": row["timeouts"],
                "sim_retx": row["retx_bytes"],
                "emu": [e["fct_s"] for e in em if e["fct_s"] is not None],
                "start_lag": [e["start_s"] - planned[i] for e in em if e["start_s"] is not None],
                "emu_timeouts": [e["timeouts"] for e in em],
                "emu_retx": [e["retx_bytes"] for e in em],
            }
        )
    return out


def _why(f: dict[str, Any], worst_timer_ms: float) -> str:
    """What differs between the emulated and the simulated flow, as far as the reports show."""
    parts = [
        f"{(sum(f['emu']) / len(f['emu']) - f['sim']) * 1e3:+.2f} ms",
        "repetitions " + ", ".join(f"{v * 1e3:.1f}" for v in f["emu"]) + " ms",
    ]
    if f["start_lag"]:
        parts.append(f"started {max(f['start_lag']) * 1e3:.2f} ms late at worst")
    if any(t != f["sim_timeouts"] for t in f["emu_timeouts"]):
        parts.append(f"timeouts {f['emu_timeouts']} (simulation {f['sim_timeouts']})")
    if any(r != f["sim_retx"] for r in f["emu_retx"]):
        parts.append(f"retransmitted {[r // SEG for r in f['emu_retx']]} segments (simulation {f['sim_retx'] // SEG})")
    if worst_timer_ms > 0.5:
        parts.append(f"a host timer ran up to {worst_timer_ms:.2f} ms late in this run")
    return "; ".join(parts)


def _worst_timer_ms(runs: Runs, name: str) -> float:
    worst = 0.0
    for seed in runs.seeds_of(name + EMU):
        hosts = ((emulation(runs, name, seed).get("reports") or {}).get("hosts")) or []
        worst = max([worst] + [h.get("max_timer_lag_ps", 0) / 1e9 for h in hosts])
    return worst


def _fct_rows(flows: list[dict[str, Any]], timer_ms: float) -> tuple[list[list[str]], int, int]:
    rows, checked, within = [], 0, 0
    for f in flows:
        emu_mean = sum(f["emu"]) / len(f["emu"]) if f["emu"] else None
        dev = deviation(f["sim"], emu_mean)
        ok = dev is not None and abs(dev) <= BOUND_PCT
        checked += dev is not None
        within += ok
        spread = f" ± {mean_std(f['emu'])[1] * 1e3:.2f}" if len(f["emu"]) > 1 else ""
        rows.append(
            [
                str(f["segments"]),
                fmt(f["sim"], ".2f", 1e-3),
                fmt(emu_mean, ".2f", 1e-3) + (spread if emu_mean is not None else ""),
                fmt(dev, "+.1f"),
                "-" if dev is None else ("yes" if ok else "**no**"),
                "" if ok or dev is None else _why(f, timer_ms),
            ]
        )
    return rows, checked, within


def analyze_accuracy(runs: Runs, ctx: Context) -> str:
    names = [n for n in PROTOCOLS if n in runs.names]
    parts, verdicts, per = [], [], {}
    for n in names:
        flows = _per_flow(runs, n)
        per[n] = flows
        rows, checked, within = _fct_rows(flows, _worst_timer_ms(runs, n))
        verdicts.append([n, f"{within} of {checked}", "yes" if within == checked and checked else "**no**"])
        reps = len(runs.seeds_of(n + EMU))
        parts.append(
            f"### {n}\n\n"
            + md_table(
                [
                    "segments",
                    "simulated FCT (ms)",
                    f"emulated FCT (ms, mean ± std of {reps})",
                    "deviation %",
                    f"within {BOUND_PCT:.0f}%",
                    "why (if not)",
                ],
                rows,
            )
        )
    _plot_fct(ctx, per, "fct-accuracy.png")
    linux = "\n\n".join(_linux_text(runs, k, per.get(LINUX_PAIRS[k][0])) for k in LINUX_PAIRS)
    return _accuracy_text(ctx, verdicts, parts, runs, names) + "\n\n" + linux


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _linux_text(runs: Runs, kernel_run: str, ours: list[dict[str, Any]] | None) -> str:
    """Linux's TCP (a kernel controller, emulated) beside fctlab's (simulated and emulated), FCTs
    and retransmitted segments."""
    fctlab_run, kernel_cc, fctlab_cc = LINUX_PAIRS[kernel_run]
    head = f"### Linux's {kernel_cc.split()[0]} beside fctlab's {fctlab_cc.split()[0]}\n\n"
    if kernel_run + EMU not in runs.names or ours is None:
        return head + (
            "Not run here: Linux's TCP runs only in network namespaces (root), which this machine did not "
            "offer (`fctlab.emulate.netns.netns_available`)."
        )
    kernel = [runs.flows(kernel_run + EMU, s).sort("id") for s in runs.seeds_of(kernel_run + EMU)]
    rows = []
    for i, f in enumerate(ours):
        krows = [e.row(i, named=True) for e in kernel if e.height > i]
        km = _mean([r["fct_s"] for r in krows if r["fct_s"] is not None])
        kretx = [r["retx_bytes"] // SEG for r in krows if r["retx_bytes"] is not None]
        em = _mean(f["emu"])
        rows.append(
            [
                str(f["segments"]),
                fmt(f["sim"] * 1e3, ".2f"),
                fmt(em * 1e3, ".2f") if em is not None else "-",
                fmt(km * 1e3, ".2f") if km is not None else "-",
                f"{100 * (km - f['sim']) / f['sim']:+.1f}" if km is not None else "-",
                str(f["sim_retx"] // SEG),
                ", ".join(str(r) for r in kretx) or "-",
            ]
        )
    return head + (
        f'The same flows on the kernel\'s TCP ({kernel_cc}, IW 10, `stack = "linux"`, mean of {len(kernel)} '
        f"emulations), over the same emulated links and queues, beside fctlab's TCP {fctlab_cc}, IW 10:\n\n"
        + md_table(
            [
                "segments",
                "fctlab, simulated (ms)",
                "fctlab, emulated (ms)",
                "Linux, emulated (ms)",
                "Linux against fctlab simulated %",
                "fctlab retransmitted (segments, simulated)",
                "Linux retransmitted (segments, each emulation)",
            ],
            rows,
        )
    )


def _accuracy_text(ctx: Context, verdicts: list, parts: list, runs: Runs, names: list[str]) -> str:
    return (
        "Issue 11's acceptance test: single flows of "
        + ", ".join(str(s) for s in (QUICK_SIZES if ctx.quick else ACCURACY_SIZES))
        + " segments of 1460 B, one at a time, on a 10 Mb/s bottleneck with a 20 ms round trip (dumbbell, "
        "100 Mb/s access links, buffers of 100 packets: four bandwidth-delay products), for TCP NewReno with "
        "IW 10 (Linux's, which RC3's Fig. 15 testbed ran), TCP CUBIC with IW 10 and HyStart, RC3 (priority "
        "queues at the hosts and the router) "
        "and RCP (its router on the bottleneck). Each flow starts 0.3 s plus twice its predecessor's "
        "serialization time after it, so none overlap. The simulation is deterministic on an idle path, so "
        "one run; the emulation (`fctlab emulate`, network namespaces, time scale 1) is repeated. The claim "
        f"checked row by row: the emulated FCT (mean over repetitions) within {BOUND_PCT:.0f}% of the "
        "simulated one.\n\n"
        + md_table(["protocol", f"flows within {BOUND_PCT:.0f}%", "claim holds"], verdicts)
        + "\n\n"
        + "\n\n".join(parts)
        + "\n\nA row that misses says why as far as the emulation can tell: each repetition's FCT (one slow "
        "repetition can pull the mean out), a late flow start, timeouts and retransmissions that differ from "
        "the simulation's (the loss episode at the end of slow start depends on the exact arrival instants, "
        "and one more loss can turn a fast recovery into a retransmission timeout), and the hosts' timer "
        "lag (a process that woke late: the machine busy, or the first packets of a run).\n\n"
        "![FCT against size, simulated (lines) and emulated (points); deviation](fct-accuracy.png)\n\n"
        "What the emulations report of real time (the router's loop turns that found their event overdue, "
        "and more than 1 ms so; datagrams that reached the router more than 1 ms after they were sent; the "
        "hosts' latest timer and flow start, in run time):\n\n"
        + lateness_table(runs, names)
        + "\n\n"
        + warnings_text(runs, names)
        + "\n\nCPU load of the processes (CPU seconds over wall seconds; the router and the hosts poll for the "
        "last 200 microseconds before each event, which costs CPU while traffic flows):\n\n" + cpu_table(runs, names)
    )


def _plot_fct(ctx: Context, per: dict[str, list[dict[str, Any]]], file: str) -> None:
    p = plt()
    fig, axes = p.subplots(1, 2, figsize=(11, 4))
    for (n, flows), c in zip(per.items(), ("C0", "C1", "C2", "C3")):
        sizes = [f["segments"] for f in flows]
        axes[0].plot(sizes, [f["sim"] * 1e3 for f in flows], "-", color=c, label=f"{n} simulated")
        xs = [f["segments"] for f in flows for _ in f["emu"]]
        axes[0].plot(xs, [v * 1e3 for f in flows for v in f["emu"]], "o", color=c, ms=4, label=f"{n} emulated")
        devs = [deviation(f["sim"], sum(f["emu"]) / len(f["emu"]) if f["emu"] else None) for f in flows]
        axes[1].plot(sizes, [d if d is not None else float("nan") for d in devs], "o-", color=c, label=n)
    axes[0].set(xscale="log", yscale="log", xlabel="flow size (segments)", ylabel="FCT (ms)")
    axes[1].axhspan(-BOUND_PCT, BOUND_PCT, color="0.9")
    axes[1].set(xscale="log", xlabel="flow size (segments)", ylabel="emulated vs simulated (%)")
    for a in axes:
        a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / file, dpi=110)
    p.close(fig)


def analyze_fig15(runs: Runs, ctx: Context) -> str:
    variants = [n for n in (*FIG15_VARIANTS, FIG15_LINUX) if n in runs.names]
    per = {n: _per_flow(runs, n) for n in variants if n + EMU in runs.names}
    rows = []
    for i, f in enumerate(per["tcp"]):
        cells = [str(f["segments"])]
        for n in per:
            g = per[n][i]
            emu = sum(g["emu"]) / len(g["emu"]) if g["emu"] else None
            cells += [fmt(g["sim"], ".2f", 1e-3), fmt(emu, ".2f", 1e-3), fmt(deviation(g["sim"], emu), "+.1f")]
        tcp, rc3 = per["tcp"][i], per["rc3"][i]
        gain_sim = None if not tcp["sim"] else (tcp["sim"] - rc3["sim"]) / tcp["sim"] * 100
        te = sum(tcp["emu"]) / len(tcp["emu"]) if tcp["emu"] else None
        re_ = sum(rc3["emu"]) / len(rc3["emu"]) if rc3["emu"] else None
        gain_emu = None if te is None or re_ is None else (te - re_) / te * 100
        cells += [fmt(gain_sim, ".1f"), fmt(gain_emu, ".1f")]
        rows.append(cells)
    header = ["segments"]
    for n in per:
        header += [f"{n} simulated (ms)", f"{n} emulated (ms)", f"{n} dev %"]
    header += ["RC3 gain over TCP, simulated %", "RC3 gain, emulated %"]
    _plot_fct(ctx, per, "fig15.png")
    names = list(per)
    reps = len(runs.seeds_of(names[0] + EMU))
    return (
        "RC3 Fig. 15's real side, as seed 002 scaled it: single flows on an idle dumbbell of 1 Gb/s with a "
        "20 ms round trip (1 Gb/s access links, a 50 MB priority buffer at the router, priority queues at the "
        "hosts), TCP NewReno and RC3 on it, IW 10 (Linux's), one flow at a time, sizes "
        + ", ".join(str(s) for s in (FIG15_SIZES[:3] if ctx.quick else FIG15_SIZES))
        + f" segments (a log-spaced subset of the paper's 1 - 2000). The emulation runs at time scale "
        f"{FIG15_SCALE:g} (a run-time second lasts {FIG15_SCALE:g} wall seconds: 100 Mb/s and 200 ms round trips "
        f"on the wall), {reps} repetitions, and its FCTs are in run time, so they compare with the simulation "
        "directly. The paper's figure gives no numbers; its shape: RC3 below TCP as soon as a flow exceeds "
        "the initial window, the gap shrinking at 1 Gb/s for the largest flows as serialization dominates "
        "(`experiments/rc3/fig15-single-flows/` has the simulated 10 Gb/s side). Linux's kernel TCP "
        "cannot be time-scaled (its timers follow the wall clock): it is set beside fctlab's TCP at 10 Mb/s x "
        "20 ms in [fct-accuracy](../fct-accuracy/README.md).\n\n"
        + md_table(header, rows)
        + "\n\n![FCT against size: simulated (lines), emulated (points); deviation](fig15.png)\n\n"
        + lateness_table(runs, names)
        + "\n\n"
        + warnings_text(runs, names)
        + "\n\n"
        + cpu_table(runs, names)
    )
