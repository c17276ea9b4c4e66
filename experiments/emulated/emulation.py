"""What every report of the emulated paper shows of an emulation: its CPU load, how late its
processes ran against real time, the warnings `fctlab emulate` gave, and the deviation of an
emulated value from the simulated one.

Each experiment sets `Experiment.emulate` (the framework then runs `<point>.emu` beside every
point, one emulation at a time); the base scenarios are `experiments/emulated/*.toml`. An
emulation runs in real time, so every schedule here is short (or scaled: rates divided, or a
time scale), and each report says what was changed from the paper's setting.
"""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import EMU, Runs, md_table


def emulation(runs: Runs, name: str, seed: int) -> dict[str, Any]:
    """`meta.emulation` of one emulated run (`name` without the `.emu` suffix)."""
    return runs.meta(name + EMU, seed).get("emulation") or {}


def cpu_table(runs: Runs, names: list[str]) -> str:
    """CPU load (CPU seconds over wall seconds) of each process of each emulated point, mean over
    its repetitions: the router, and the busiest and the quietest host."""
    rows = []
    for n in names:
        loads: dict[str, list[float]] = {"router": [], "hosts": []}
        walls = []
        for seed in runs.seeds_of(n + EMU):
            procs = emulation(runs, n, seed).get("processes") or []
            for p in procs:
                loads["router" if p["role"] == "router" else "hosts"].append(float(p["cpu_load"]))
            walls += [float(p["wall_s"]) for p in procs if p["role"] == "router"]
        hosts = loads["hosts"]
        rows.append(
            [
                n,
                _mean(loads["router"], ".2f"),
                f"{max(hosts):.2f}" if hosts else "-",
                f"{min(hosts):.2f}" if hosts else "-",
                _mean(walls, ".1f"),
            ]
        )
    return md_table(["emulated run", "router CPU load", "busiest host", "quietest host", "wall s per run"], rows)


def lateness_table(runs: Runs, names: list[str]) -> str:
    """What the processes report of real time (per repetition): the router's loop turns behind and
    more than 1 ms late, its worst lag, datagrams that reached it late, the hosts' worst timer lag
    and flow-start lag, and the warnings `fctlab emulate` gave."""
    rows = []
    for n in names:
        for seed in runs.seeds_of(n + EMU):
            e = emulation(runs, n, seed)
            r = (e.get("reports") or {}).get("router") or {}
            hosts = (e.get("reports") or {}).get("hosts") or []
            timer = max((h.get("max_timer_lag_ps", 0) for h in hosts), default=0) / 1e9
            start = max((h.get("max_start_lag_ps", 0) for h in hosts), default=0) / 1e9
            rows.append(
                [
                    f"{n} #{seed}",
                    f"{e.get('mode', '-')} x{e.get('time_scale', '-')}",
                    f"{r.get('iterations_behind', 0)} / {r.get('late_1ms', 0)} of {r.get('iterations', 0)}",
                    f"{r.get('max_lag_wall_ns', 0) / 1e6:.2f}",
                    f"{r.get('late_arrivals', 0)} of {r.get('datagrams_in', 0)}",
                    f"{timer:.3f}",
                    f"{start:.3f}",
                    str(len(e.get("warnings") or [])),
                ]
            )
    return md_table(
        [
            "run #rep",
            "mode x time scale",
            "router turns behind / > 1 ms late",
            "router worst lag (wall ms)",
            "datagrams late > 1 ms",
            "worst host timer lag (run ms)",
            "worst flow start lag (run ms)",
            "warnings",
        ],
        rows,
    )


def warnings_text(runs: Runs, names: list[str]) -> str:
    """Every distinct warning of the emulated runs, with the runs that gave it ("" if none)."""
    seen: dict[str, list[str]] = {}
    for n in names:
        for seed in runs.seeds_of(n + EMU):
            for w in emulation(runs, n, seed).get("warnings") or []:
                seen.setdefault(w, []).append(f"{n} #{seed}")
    if not seen:
        return "No emulation warned that it fell behind real time or lost datagrams."
    return "Warnings of the emulations:\n\n" + "\n".join(f"- {', '.join(r)}: {w}" for w, r in seen.items())


def _mean(values: list[float], fmt: str) -> str:
    return format(sum(values) / len(values), fmt) if values else "-"


def deviation(sim: float | None, emu: float | None) -> float | None:
    """(emu - sim) / sim in percent; None if either is missing."""
    return None if sim is None or emu is None or sim == 0 else (emu - sim) / sim * 100.0


def emulation_tables(runs: Runs, names: list[str]) -> str:
    """The lateness table, the warnings and the CPU table of the emulated points `names`."""
    return (
        "What the emulations report of real time:\n\n"
        + lateness_table(runs, names)
        + "\n\n"
        + warnings_text(runs, names)
        + "\n\nCPU load of the processes:\n\n"
        + cpu_table(runs, names)
    )
