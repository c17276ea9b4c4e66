"""RC3 paper sec. 5.1.2: application pacing, video transfers among the Internet-2 traffic."""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.checks import ratio
from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, mean_fct, pm, reduction
from fctlab_experiments.rc3.common import RC3, TCP, merged
from fctlab_experiments.rc3.comparison import seed_mean

VIDEO = {"app": {"kind": "scheduled", "initial": "1.5MB", "chunk": "64KiB", "interval": "100ms"}}
#: Sec. 5.1.2: RC3 cuts the time spent buffering "by slightly over 70%" (%). The paper's number is
#: 70 and "slightly over" has no upper end, so it is checked as the value 70, whose tolerance
#: covers "slightly over"; an open range from 70 would take any larger cut as a match.
PAPER_BUFFERING = 70.0
#: Sec. 5.1.2: the videos "did not complete transferring the entire file any faster with RC3",
#: their rate set by the pacing: RC3's whole-video time over TCP's, 1.
PAPER_WHOLE = 1.0


def points() -> list[tuple[str, dict[str, Any]]]:
    background = {"kind": "poisson", "load": 0.3, "sizes": {"kind": "cdf", "name": "rc3-internet"}}
    video = {
        "kind": "poisson",
        "rate": 4.0,
        "label": "video",
        "transport": "video",
        "sizes": {"kind": "fixed", "size": 1_500_000 + 50 * 65536},
    }
    return [
        (p, merged(proto, {"transports.video": VIDEO, "workload": [background, video]}))
        for p, proto in (("tcp", TCP), ("rc3", RC3))
    ]


def analyze(runs: Runs, ctx: Context) -> str:
    res: dict[str, dict[str, list[float]]] = {
        "tcp": {"buf": [], "all": [], "bg": []},
        "rc3": {"buf": [], "all": [], "bg": []},
    }
    n = 0
    for p in res:
        for s in runs.seeds:
            f = runs.sample(p, s)
            v = f.filter(pl.col("workload") == "video")
            n = max(n, v.height)
            res[p]["buf"].append(float(v["first_write_s"].mean()))
            res[p]["all"].append(float(v["fct_s"].mean()))
            res[p]["bg"].append(mean_fct(f.filter(pl.col("workload") != "video"))[0])
    red_buf = [reduction(a, b) for a, b in zip(res["tcp"]["buf"], res["rc3"]["buf"])]
    red_all = [reduction(a, b) for a, b in zip(res["tcp"]["all"], res["rc3"]["all"])]
    ctx.check("sec. 5.1.2", "videos' buffering phase: FCT reduction (%)", PAPER_BUFFERING, seed_mean(red_buf))
    ctx.check(
        "sec. 5.1.2",
        "whole videos: RC3's mean completion time over TCP's (ratio)",
        PAPER_WHOLE,
        ratio(seed_mean(res["rc3"]["all"]), seed_mean(res["tcp"]["all"])),
    )
    rows = [
        [
            "buffering phase (first 1.5 MB), s",
            pm(res["tcp"]["buf"], ".3f"),
            pm(res["rc3"]["buf"], ".3f"),
            pm(red_buf),
            "slightly over 70",
        ],
        [
            "whole video (1.5 MB + 50 x 64 KiB), s",
            pm(res["tcp"]["all"], ".3f"),
            pm(res["rc3"]["all"], ".3f"),
            pm(red_all),
            "about 0 (paced by the 64 KB writes)",
        ],
    ]
    return (
        "Video transfers (1.5 MB at once, then 64 KiB every 100 ms, 50 chunks) arriving as a Poisson "
        "process of 4 per second among the Internet-2 background traffic at 30% load; every flow of a run "
        f"uses the same protocol. About {n} measured videos per seed.\n\n"
        + md_table(["metric", "TCP", "RC3", "fctlab % reduction", "paper % reduction"], rows)
    )


def experiment() -> Experiment:
    return Experiment(
        name="pacing",
        title="RC3 paper sec. 5.1.2: application pacing (video)",
        base="internet2.toml",
        points=points(),
        seeds=2,
        analyze=analyze,
        quick={"duration": "2s", "measure_from": "0.5s"},
    )
