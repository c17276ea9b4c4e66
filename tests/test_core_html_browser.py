"""The HTML reports in a real browser: headless Chromium (Debian's) opens each kind of page.

Each page must load without a console error, an uncaught exception or a network request, and
every plot must have drawn a curve; on the report of two runs, the legend, the hover readout,
drag-to-zoom and double-click reset must work. Kinds: `fctlab report` of two small real runs,
`Result._repr_html_` shown twice in one page (a notebook), a committed experiment's index.html
written from its README and PNG, and one written by a reproduction with its runs' plots. A page
of many curves checks what a person reading it needs: a style per curve, a selector, enough
ticks on log axes, numbers without exponents, markers drawn whole.

Chromium missing is a failure saying how to install it (scripts/test.sh installs it as root),
never a skip: these tests are the only check that the pages work.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from fctlab.html import figures
from fctlab.html.browser import BrowserMissing, browser, opened, undrawn_plots
from fctlab.html.experiments import write_index
from fctlab.html.page import page as html_page
from fctlab.html.page import plots, write_page
from fctlab.reproduce.framework import run_experiment
from fctlab.result import load
from realcore import REPO, cli, experiment_code, fake, small_dumbbell  # noqa: F401  (fake: the compiled core)

#: The plots of a report whose runs sampled a link and flows: FCT CDF, slowdown, queue,
#: throughput, drops, window, rate.
REPORT_PLOTS = 7


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium for the module; its absence fails the tests, saying how to install it."""
    try:
        with browser() as b:
            yield b
    except BrowserMissing as e:
        pytest.fail(str(e))


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> list[Path]:
    """Two small dumbbell runs at different loads, sampling the bottleneck and two flows."""
    root = tmp_path_factory.mktemp("runs")
    spec = small_dumbbell(output={"series": {"interval": "5ms", "links": ["bottleneck"], "flows": [0, 1]}})
    (root / "small.json").write_text(json.dumps(spec))
    outs = []
    for load_ in ("0.3", "0.7"):
        out = root / f"load{load_}"
        done = cli("run", str(root / "small.json"), "-o", str(out), "-q", "--set", f"workload.0.load={load_}")
        assert done.returncode == 0, done.stderr
        outs.append(out)
    return outs


def curves(plot) -> int:
    return plot.locator("path.fctlab-curve").count()


def test_report_of_two_runs_draws_every_plot_and_responds_to_the_mouse(chromium, two_runs, tmp_path):
    """Seven plots drawn; a legend click hides a curve and a second shows it again; hovering reads
    out a point; a drag zooms (the ticks change) and a double click resets."""
    html = tmp_path / "report.html"
    done = cli("report", *map(str, two_runs), "-o", str(html))
    assert done.returncode == 0, done.stderr
    with opened(chromium, html) as (page, problems):
        assert undrawn_plots(page) == []
        plots = page.locator("div.fctlab-plot")
        assert plots.count() == REPORT_PLOTS
        cdf = plots.nth(0)
        assert curves(cdf) == 2
        cdf.locator(".fctlab-legend-item").first.click()
        assert curves(cdf) == 1
        cdf.locator(".fctlab-legend-item").first.click()
        assert curves(cdf) == 2

        box = cdf.locator("rect.fctlab-overlay").bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.5)
        assert "FCT = " in cdf.locator(".fctlab-readout").inner_text()

        ticks = cdf.locator(".fctlab-axis text").all_inner_texts()
        page.mouse.move(box["x"] + box["width"] * 0.2, box["y"] + box["height"] * 0.2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.6, steps=5)
        page.mouse.up()
        zoomed = cdf.locator(".fctlab-axis text").all_inner_texts()
        assert zoomed != ticks
        cdf.locator("rect.fctlab-overlay").dblclick()
        assert cdf.locator(".fctlab-axis text").all_inner_texts() == ticks
        page.screenshot(path=str(tmp_path / "report.png"))
    assert problems == []


def test_result_shown_twice_in_a_notebook_page(chromium, two_runs, tmp_path):
    """Two `_repr_html_` fragments in one page: both plots drawn, the script defined once, no id twice."""
    r = load(two_runs[0])
    html = tmp_path / "notebook.html"
    html.write_text(f"<!DOCTYPE html><html><body>{r._repr_html_()}<p>between</p>{r._repr_html_()}</body></html>")
    with opened(chromium, html) as (page, problems):
        assert undrawn_plots(page) == []
        assert page.locator("div.fctlab-plot[data-drawn]").count() == 2
        ids = page.evaluate("[...document.querySelectorAll('[id]')].map((e) => e.id)")
        assert len(ids) == len(set(ids)) == 2
    assert problems == []


def test_committed_experiment_page_shows_its_tables_and_figure(chromium, tmp_path):
    """An experiment's page from its README and PNG alone: tables, the figure decoded from its data URI."""
    exp = tmp_path / "fig3-3"
    shutil.copytree(REPO / "experiments" / "rcp" / "fig3-3", exp, ignore=shutil.ignore_patterns("index.*"))
    write_index(exp)
    with opened(chromium, exp / "index.html") as (page, problems):
        assert page.locator("table").count() >= 1
        assert page.evaluate("[...document.images].every((i) => i.complete && i.naturalWidth > 0)")
        assert page.locator("img").count() >= 1
    assert problems == []


def test_reproduced_experiment_page_plots_its_runs(chromium, tmp_path):
    """A reproduction (tiny runs) writes an index.html whose run plots (FCT CDF, slowdown) draw."""
    exp = experiment_code("rc3", "fig14a-iw").experiment()
    record = run_experiment(
        exp,
        REPO / "experiments" / "rc3",
        tmp_path / "runs",
        tmp_path / "out",
        quick=True,
        jobs=1,
        say=lambda _: None,
        time_scale=0.05,
    )
    assert record["status"] == "done", record
    with opened(chromium, tmp_path / "out" / exp.name / "index.html") as (page, problems):
        assert page.locator("div.fctlab-plot").count() == 2
        assert undrawn_plots(page) == []
        assert curves(page.locator("div.fctlab-plot").first) == len(exp.points)
    assert problems == []


def test_the_index_of_every_experiment_opens_and_filters_by_status(chromium, tmp_path):
    """experiments/index.html (`fctlab reproduce index`): no problem on load; unticking a status
    hides its rows and only those."""
    with opened(chromium, REPO / "experiments" / "index.html") as (page, problems):
        rows = page.locator("table.rows tbody tr")
        matched = page.locator('tbody tr[data-status="match"]')
        assert matched.count() > 0 and rows.count() > matched.count()
        page.locator('#filters input[value="match"]').uncheck()
        assert all(not matched.nth(i).is_visible() for i in range(matched.count()))
        assert page.locator('tbody tr[data-status="investigation"]').first.is_visible(), "other statuses stay"
        page.locator('#filters input[value="match"]').check()
        assert matched.first.is_visible()
        assert problems == []


#: Sampled links of each run of the many-curves page: 2 runs x 7 links = 14 throughput curves.
LINKS = [f"leaf{i // 2}->spine{i % 2}" for i in range(7)]
#: Any number in exponent notation ("1e+04", "3.7e-4").
EXPONENT = re.compile(r"\d[eE][+-]?\d")

#: Per plot: each drawn curve's (stroke, dash), the tick labels of each axis, the axis labels,
#: and the markers that reach outside the plot's frame.
_INSPECT = """(div) => {
  const frame = div.querySelector("rect.fctlab-frame").getBoundingClientRect();
  const out = (b) => b.left < frame.left - 0.5 || b.right > frame.right + 0.5 ||
    b.top < frame.top - 0.5 || b.bottom > frame.bottom + 0.5;
  const outside = [...div.querySelectorAll(".fctlab-marker")].filter((m) => out(m.getBoundingClientRect()));
  return {
    styles: [...div.querySelectorAll("path.fctlab-curve")].map((p) =>
      [p.getAttribute("stroke"), p.getAttribute("stroke-dasharray") || ""]),
    x: [...div.querySelectorAll(".fctlab-x text")].map((t) => t.textContent),
    y: [...div.querySelectorAll(".fctlab-y text")].map((t) => t.textContent),
    labels: [...div.querySelectorAll(".fctlab-label")].map((t) => t.textContent),
    markers: div.querySelectorAll(".fctlab-marker").length,
    outside: outside.length,
  };
}"""


def _many_curves_page(path: Path) -> None:
    """Three plots: the throughput of 7 links in 2 runs (14 curves, rates near 10 Gb/s), 13
    curves with markers at the corners of log axes over 1 ms-10 s and a slowdown of 0.2-0.4, and
    a queue in bytes (up to 1.2 MB) over 2 ms."""
    runs = []
    for r, run in enumerate(("base", "hpcc")):
        t = [i * 1e-4 for i in range(100)]
        rows = [
            (x, "throughput_bps", link, 1e10 * (0.2 + 0.05 * k + 0.1 * r + 0.01 * (i % 7)))
            for k, link in enumerate(LINKS)
            for i, x in enumerate(t)
        ]
        rows += [(x, "queue_bytes", LINKS[0], 30_000.0 * i * (r + 1)) for i, x in enumerate(t[:21])]
        runs.append((run, pl.DataFrame(rows, schema=["time_s", "metric", "target", "value"], orient="row")))
    throughput = figures.time_series(runs, "throughput_bps", "throughput", "b/s")
    queue = figures.time_series(runs, "queue_bytes", "queue", "B")
    corners = {
        "title": "corners",
        "x": {"label": "FCT", "unit": "s", "log": True},
        "y": {"label": "slowdown", "log": True},
        "markers": True,
        "series": [
            {"name": f"c{i}", "x": [1e-3, 1e-3 * 10 ** (i / 3), 10.0], "y": [0.2, 0.2 + i / 60, 0.4]} for i in range(13)
        ],
    }
    write_page(path, html_page("many curves", plots([throughput, corners, queue])))


def test_many_curves_are_told_apart_selectable_and_readable(chromium, tmp_path):
    """14 curves in one plot: no two of one colour and dash; the link and run selectors and a
    legend double click show the chosen curves alone; log axes over 1 ms-10 s and 0.2-0.4 have 5
    or more ticks; no tick, axis label or readout is in exponent notation (rates in Gb/s, times
    in ms); no marker reaches outside the frame."""
    html = tmp_path / "many.html"
    _many_curves_page(html)
    with opened(chromium, html) as (page, problems):
        assert undrawn_plots(page) == []
        divs = page.locator("div.fctlab-plot")
        throughput, corners, queue = (divs.nth(i).evaluate(_INSPECT) for i in range(3))
        for plot, n in ((throughput, 14), (corners, 13), (queue, 2)):
            assert len(plot["styles"]) == n and len(set(map(tuple, plot["styles"]))) == n, plot["styles"]

        assert len(corners["x"]) >= 5 and len(corners["y"]) >= 5, (corners["x"], corners["y"])
        assert corners["markers"] == 13 * 3 and corners["outside"] == 0
        assert "ms" in " ".join(corners["x"]) and "(Gb/s)" in " ".join(throughput["labels"])
        assert "(ms)" in " ".join(throughput["labels"]) and "(MB)" in " ".join(queue["labels"])
        texts = [t for p in (throughput, corners, queue) for t in p["x"] + p["y"] + p["labels"]]
        readouts = []
        for i in range(3):
            box = divs.nth(i).locator("rect.fctlab-overlay").bounding_box()
            for fx, fy in ((0.02, 0.98), (0.5, 0.5), (0.98, 0.02)):
                page.mouse.move(box["x"] + box["width"] * fx, box["y"] + box["height"] * fy)
                readouts.append(divs.nth(i).locator(".fctlab-readout").inner_text())
        assert [t for t in texts + readouts if EXPONENT.search(t)] == []
        assert any(re.search(r"throughput = \d+(\.\d+)? Gb/s", r) for r in readouts), readouts
        page.screenshot(path=str(tmp_path / "many.png"), full_page=True)

        plot = divs.nth(0)
        plot.locator('select[data-facet="link"]').select_option(LINKS[3])
        names = plot.locator("path.fctlab-curve").evaluate_all("(ps) => ps.map((p) => p.dataset.series)")
        assert names == [f"base: {LINKS[3]}", f"hpcc: {LINKS[3]}"]
        plot.locator('select[data-facet="run"]').select_option("hpcc")
        assert curves(plot) == 1
        plot.locator('select[data-facet="link"]').select_option("")
        plot.locator('select[data-facet="run"]').select_option("")
        assert curves(plot) == 14
        item = plot.locator(".fctlab-legend-item").nth(5)
        item.dblclick()
        assert plot.locator("path.fctlab-curve").evaluate_all("(ps) => ps.map((p) => p.dataset.series)") == [
            f"base: {LINKS[5]}"
        ]
        item.dblclick()
        assert curves(plot) == 14
    assert problems == []
