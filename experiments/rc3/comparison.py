"""How the RC3 experiments compare the flow completion times of two runs (TCP's and RC3's, or
any pair): per seed, the mean FCT over flows and over bytes and the reduction from one to the
other (`pair_rows`); the same per flow size (`per_size`, `size_table`, `per_size_rows`) and per
class of sizes (`class_reduction`); and the paper's table layouts (`two_way_table`, which also
declares the paper's numbers of each row as checks, and `cut_table`: the averages as the authors'
script took them, late flows cut)."""

from __future__ import annotations

import polars as pl

from fctlab.reproduce.framework import Context, Runs, md_table, mean_fct, mean_std, pm, reduction
from fctlab_experiments.rc3.common import SEG


def pair_rows(runs: Runs, a: str, b: str) -> dict[str, list[float]]:
    """Per seed: mean FCT over flows and over bytes of runs a and b, and the reductions."""
    out: dict[str, list[float]] = {"a_f": [], "a_b": [], "b_f": [], "b_b": [], "red_f": [], "red_b": []}
    for s in runs.seeds_of(a, b):
        af, ab = mean_fct(runs.sample(a, s))
        bf, bb = mean_fct(runs.sample(b, s))
        for k, v in (
            ("a_f", af),
            ("a_b", ab),
            ("b_f", bf),
            ("b_b", bb),
            ("red_f", reduction(af, bf)),
            ("red_b", reduction(ab, bb)),
        ):
            out[k].append(v)
    return out


def per_size(runs: Runs, a: str, b: str) -> pl.DataFrame:
    """Per flow size and seed: mean FCT of a and b and the reduction."""
    rows = []
    for s in runs.seeds_of(a, b):
        ga = runs.sample(a, s).group_by("size_bytes").agg(pl.col("fct_s").mean().alias("a"), pl.len().alias("n"))
        gb = runs.sample(b, s).group_by("size_bytes").agg(pl.col("fct_s").mean().alias("b"))
        j = ga.join(gb, on="size_bytes").with_columns(seed=pl.lit(s))
        rows.append(j)
    df = pl.concat(rows).with_columns(red=(pl.col("a") - pl.col("b")) / pl.col("a") * 100.0)
    return df.sort(["size_bytes", "seed"])


def size_table(df: pl.DataFrame) -> tuple[list[int], list[float], list[float]]:
    """Per flow size of a `per_size` frame: the sizes, and the reductions' mean and standard
    deviation over seeds."""
    sizes, means, stds = [], [], []
    for size, g in df.group_by("size_bytes", maintain_order=True):
        m, sd = mean_std(g["red"].to_list())
        sizes.append(int(size[0]))
        means.append(m)
        stds.append(sd)
    return sizes, means, stds


def per_size_rows(runs: Runs, base: str, names: list[str]) -> list[list[str]]:
    """Rows (segments, mean reduction of each run in `names` against `base`, in %)."""
    per = {n: size_table(per_size(runs, base, n)) for n in names}
    sizes = per[names[0]][0]
    return [[f"{s // SEG}"] + [f"{per[n][1][i]:.1f}" for n in names] for i, s in enumerate(sizes)]


def class_reduction(runs: Runs, a: str, b: str, low: int, high: int) -> list[float]:
    """Per seed: the reduction (%) from run a to run b of the mean FCT over the flows of `low` to
    `high` segments (both included), the flows of a class of sizes taken together."""
    out = []
    for s in runs.seeds_of(a, b):
        fa, fb = (runs.sample(n, s).filter(pl.col("size_bytes").is_between(low * SEG, high * SEG)) for n in (a, b))
        if fa.height and fb.height:
            out.append(reduction(mean_fct(fa)[0], mean_fct(fb)[0]))
    return out


def cut_table(rows: list[tuple[str, str, str, tuple]], runs: Runs) -> str:
    """The reductions again, keeping only TCP flows done by 10 s and RC3 flows by 5 s."""
    out = []
    for label, a, b, p in rows:
        red_f, red_b, rc3_b = [], [], []
        for sd in runs.seeds_of(a, b):
            (a_f, a_b) = mean_fct(runs.sample(a, sd).filter(pl.col("finish_s") <= 10.0))
            (b_f, b_b) = mean_fct(runs.sample(b, sd).filter(pl.col("finish_s") <= 5.0))
            red_f.append(reduction(a_f, b_f))
            red_b.append(reduction(a_b, b_b))
            rc3_b.append(b_b)
        out.append([label, f"{p[4]:.2f}", pm(red_f), f"{p[5]:.2f}", pm(red_b), pm(rc3_b, ".3f")])
    return (
        "### The same runs, averaged as the authors' script did\n\n"
        "Their script kept RC3 flows that finished by 5 s and TCP flows by 10 s (runs of 5 s, flows from 2 s "
        "measured); applying that cut to fctlab's drained runs shows how much of a gap comes from it:\n\n"
        + md_table(
            [
                "setting",
                "paper % over flows",
                "fctlab (cut) % over flows",
                "paper % over bytes",
                "fctlab (cut) % over bytes",
                "fctlab (cut) RC3 over bytes (s)",
            ],
            out,
        )
    )


def seed_mean(values: list[float]) -> float | None:
    """The mean over seeds of a check's value (None without a seed)."""
    return mean_std(values)[0] if values else None


def mean_rtt(runs: Runs, name: str) -> float:
    """The mean round-trip propagation (s) of run `name`'s measured flows, first seed."""
    return float(runs.sample(name, runs.seeds[0])["rtt_prop_s"].mean())


def two_way_table(runs: Runs, rows: list[tuple[str, str, str, tuple | None]], ctx: Context, figure: str) -> str:
    """The paper's table layout: per setting, regular and RC3 mean FCT over flows and bytes and the
    reductions. Each row with the paper's numbers (a tuple as in `common.FIG8`) declares them as
    checks of `figure`: the six numbers the paper gives per setting, against fctlab's means over
    seeds."""
    header = ["setting", "", "paper: over flows", "fctlab: over flows", "paper: over bytes", "fctlab: over bytes"]
    out = []
    for label, a, b, paper in rows:
        r = pair_rows(runs, a, b)
        if paper is not None:
            for i, key, quantity in (
                (0, "a_f", "regular TCP: mean FCT over flows (s)"),
                (1, "a_b", "regular TCP: mean FCT over bytes (s)"),
                (2, "b_f", "RC3: mean FCT over flows (s)"),
                (3, "b_b", "RC3: mean FCT over bytes (s)"),
                (4, "red_f", "FCT reduction over flows (%)"),
                (5, "red_b", "FCT reduction over bytes (%)"),
            ):
                ctx.check(figure, f"{label}: {quantity}", paper[i], seed_mean(r[key]))
        p = paper or (None,) * 6
        ps = lambda x: "-" if x is None else f"{x:.3f}"
        pp = lambda x: "-" if x is None else f"**{x:.2f}**"
        out.append([label, "Regular FCT (s)", ps(p[0]), pm(r["a_f"], ".3f"), ps(p[1]), pm(r["a_b"], ".3f")])
        out.append(["", "RC3 FCT (s)", ps(p[2]), pm(r["b_f"], ".3f"), ps(p[3]), pm(r["b_b"], ".3f")])
        out.append(["", "% reduction", pp(p[4]), f"**{pm(r['red_f'])}**", pp(p[5]), f"**{pm(r['red_b'])}**"])
    return md_table(header, out)
