"""RC3 paper Fig. 14(b) (sec. 5.1.4): traditional QoS for 10% critical flows against RC3 for
them."""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, mean_fct, pm, reduction
from fctlab_experiments.rc3.common import QUICK, TCP
from fctlab_experiments.rc3.comparison import seed_mean

#: Fig. 14(b)'s table (seed 000 only): critical flows' mean FCT in s (over flows, over bytes) and
#: the % reductions from the baseline.
FIG14B = {
    "baseline": (0.126, 0.435, None, None),
    "qos": (0.119, 0.411, 5.33, 5.64),
    "rc3-critical": (0.078, 0.12, 38.31, 72.43),
}
#: Sec. 5.1.4 on the other (non-critical) flows, as the % reduction of their mean FCT from the
#: baseline: under QoS "a very slight (<2%) penalty", with RC3 for the critical flows "a slight
#: (<1%) improvement".
OTHERS = {"qos": (-2.0, 0.0), "rc3-critical": (0.0, 1.0)}


def points() -> list[tuple[str, dict[str, Any]]]:
    crit = [{"transport": "critical", "fraction": 0.1}]
    return [
        ("baseline", {**TCP, "transports.critical": {"protocol": "tcp"}, "workload.0.mix": crit}),
        (
            "qos",
            {
                "transport.protocol": "tcp",
                "transport.priority": 1,
                "transports.critical": {"protocol": "tcp", "priority": 0},
                "workload.0.mix": crit,
            },
        ),
        (
            "rc3-critical",
            {"transport.protocol": "tcp", "transports.critical": {"protocol": "rc3"}, "workload.0.mix": crit},
        ),
    ]


def analyze(runs: Runs, ctx: Context) -> str:
    names = ("baseline", "qos", "rc3-critical")
    vals: dict[str, dict[str, list[float]]] = {n: {"crit": [], "crit_b": [], "rest": []} for n in names}
    for n in vals:
        for s in runs.seeds:
            f = runs.sample(n, s)
            crit_f, crit_b = mean_fct(f.filter(pl.col("protocol") == "critical"))
            vals[n]["crit"].append(crit_f)
            vals[n]["crit_b"].append(crit_b)
            vals[n]["rest"].append(mean_fct(f.filter(pl.col("protocol") != "critical"))[0])
    gain = {
        (n, k): [reduction(a, b) for a, b in zip(vals["baseline"][k], vals[n][k])]
        for n in ("qos", "rc3-critical")
        for k in ("crit", "crit_b")
    }
    pen = {
        n: [reduction(a, b) for a, b in zip(vals["baseline"]["rest"], vals[n]["rest"])] for n in ("qos", "rc3-critical")
    }
    for n, label in (("baseline", "baseline"), ("qos", "QoS"), ("rc3-critical", "RC3")):
        p = FIG14B[n]
        ctx.check("Fig. 14(b)", f"{label}: critical flows' mean FCT over flows (s)", p[0], seed_mean(vals[n]["crit"]))
        ctx.check("Fig. 14(b)", f"{label}: critical flows' mean FCT over bytes (s)", p[1], seed_mean(vals[n]["crit_b"]))
        if n == "baseline":
            continue
        ctx.check(
            "Fig. 14(b)", f"{label}: critical flows' FCT reduction over flows (%)", p[2], seed_mean(gain[n, "crit"])
        )
        ctx.check(
            "Fig. 14(b)", f"{label}: critical flows' FCT reduction over bytes (%)", p[3], seed_mean(gain[n, "crit_b"])
        )
        # A range with 0 as one end: a change of the wrong sign misses, whatever the tolerance.
        ctx.check("sec. 5.1.4", f"{label}: other flows' FCT reduction over flows (%)", OTHERS[n], seed_mean(pen[n]))
    rows = [
        [
            "critical flows: mean FCT (s)",
            f"{FIG14B['baseline'][0]:.3f}",
            pm(vals["baseline"]["crit"], ".3f"),
            f"{FIG14B['qos'][0]:.3f}",
            pm(vals["qos"]["crit"], ".3f"),
            f"{FIG14B['rc3-critical'][0]:.3f}",
            pm(vals["rc3-critical"]["crit"], ".3f"),
        ],
        [
            "critical flows: mean FCT over bytes (s)",
            f"{FIG14B['baseline'][1]:.3f}",
            pm(vals["baseline"]["crit_b"], ".3f"),
            f"{FIG14B['qos'][1]:.3f}",
            pm(vals["qos"]["crit_b"], ".3f"),
            f"{FIG14B['rc3-critical'][1]:.3f}",
            pm(vals["rc3-critical"]["crit_b"], ".3f"),
        ],
        [
            "critical flows: % reduction over flows",
            "-",
            "-",
            f"{FIG14B['qos'][2]:.2f}",
            pm(gain["qos", "crit"]),
            f"{FIG14B['rc3-critical'][2]:.2f}",
            pm(gain["rc3-critical", "crit"]),
        ],
        [
            "critical flows: % reduction over bytes",
            "-",
            "-",
            f"{FIG14B['qos'][3]:.2f}",
            pm(gain["qos", "crit_b"]),
            f"{FIG14B['rc3-critical'][3]:.2f}",
            pm(gain["rc3-critical", "crit_b"]),
        ],
        [
            "other flows: % reduction from baseline",
            "-",
            "-",
            "-2 - 0 (a penalty under 2%)",
            pm(pen["qos"]),
            "0 - 1 (a gain under 1%)",
            pm(pen["rc3-critical"]),
        ],
    ]
    return (
        "Internet-2 at 30% load; 10% of the flows (drawn per flow by the seed, the same flows in every "
        "configuration) are critical. Baseline: every flow TCP at priority 0. QoS: critical flows TCP at "
        "priority 0, all others at priority 1, in strict-priority routers. RC3: critical flows use RC3, "
        "the others TCP at priority 0.\n\n"
        + md_table(["", "paper: baseline", "fctlab", "paper: QoS", "fctlab", "paper: RC3", "fctlab"], rows)
    )


def experiment() -> Experiment:
    return Experiment(
        name="fig14b-qos",
        title="RC3 paper Fig. 14(b): traditional QoS for 10% critical flows",
        base="internet2.toml",
        points=points(),
        seeds=2,
        analyze=analyze,
        quick=QUICK,
    )
