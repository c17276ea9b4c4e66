"""Issue 11's acceptance test, simulated and emulated: single flows of 1 - 1000 segments on
10 Mb/s x 20 ms, each emulated FCT within 5% of the simulated one, for TCP NewReno, CUBIC, RC3
and RCP; plus Linux's own TCP (kernel Reno and CUBIC) on the same emulated links, where network
namespaces can be made. Base scenario `experiments/emulated/single-flows.toml`."""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import EMU, Context, Experiment, Runs, fmt, md_table, mean_std
from fctlab_experiments.emulated.emulation import cpu_table, deviation, emulation, lateness_table, warnings_text
from fctlab_experiments.emulated.single_flows import BOUND_PCT, SEG, one_at_a_time, per_flow, plot_fct

#: The acceptance test's sizes (segments; issue 11), and quick mode's.
ACCURACY_SIZES = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
QUICK_SIZES = [1, 10, 50]
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
    return [(n, one_at_a_time(sizes, ACCURACY_RATE, gap_s, o)) for n, o in LINUX_RUNS.items()]


#: Repetitions of each emulation (full mode).
REPEATS = 3


def experiment() -> Experiment:
    """The acceptance test: emulated FCT within 5% of simulated, 1 - 1000 segments, TCP / RC3 / RCP."""
    return Experiment(
        name="fct-accuracy",
        # Not a figure of a paper: the same scenario simulated and emulated, side by side.
        investigation=True,
        title="Issue 11's acceptance test: emulated FCTs against simulated ones, 1 - 1000 segments",
        base="single-flows.toml",
        points=[(p, one_at_a_time(ACCURACY_SIZES, ACCURACY_RATE, 0.3, o)) for p, o in PROTOCOLS.items()],
        seeds=1,
        analyze=analyze_accuracy,
        quick=lambda n, o: one_at_a_time(QUICK_SIZES, ACCURACY_RATE, 0.1, {**PROTOCOLS, **LINUX_RUNS}[n]),
        emulate={"time_scale": 1.0},
        emulate_seeds=REPEATS,
        emulated_only=_linux_points(ACCURACY_SIZES, 0.3),
    )


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
        flows = per_flow(runs, n)
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
    plot_fct(ctx, per, "fct-accuracy.png")
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
