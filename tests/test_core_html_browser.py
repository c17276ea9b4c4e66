"""The HTML reports in a real browser: headless Chromium (Debian's) opens each kind of page.

Each page must load without a console error, an uncaught exception or a network request, and
every plot must have drawn a curve; on the report of two runs, the legend, the hover readout,
drag-to-zoom and double-click reset must work. Kinds: `fctlab report` of two small real runs,
`Result._repr_html_` shown twice in one page (a notebook), a committed experiment's index.html
written from its README and PNG, and one written by a reproduction with its runs' plots.

Chromium missing is a failure saying how to install it (scripts/test.sh installs it as root),
never a skip: these tests are the only check that the pages work.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fctlab.html.browser import BrowserMissing, browser, opened, undrawn_plots
from fctlab.html.experiments import write_index
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
        assert "FCT (s) = " in cdf.locator(".fctlab-readout").inner_text()

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
