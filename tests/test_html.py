"""fctlab.html and the analysis it plots: deterministic, small, self-contained pages; the CLI's errors.

The pages are checked in a real browser by tests/test_core_html_browser.py; here, what can be
seen in the text: the data a plot embeds, that nothing is fetched from elsewhere, that the
same results give the same bytes, and that a README's tables and images become HTML.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from types import SimpleNamespace

import polars as pl
import pytest

from fctlab.cli import main
from fctlab.html.experiments import write_all, write_index
from fctlab.html.figures import CDF_POINTS, thin
from fctlab.html.markdown import markdown_html
from fctlab.html.page import plot
from fctlab.html.results import busiest_links, labels_for
from fctlab.html.units import quantity
from fctlab.result import load
from test_cli import one_line_error

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


#: Any number in exponent notation ("1e+04", "3.7e-4").
EXPONENT = re.compile(r"\d[eE][+-]?\d")


def specs_of(page: str) -> list[dict]:
    """The plot specs embedded in a page."""
    return [json.loads(m.replace("<\\/", "</")) for m in re.findall(r'type="application/json">(.*?)</script>', page)]


def test_thin_keeps_the_peaks_of_a_long_series():
    """A one-sample spike in 100,000 samples survives thinning to 2,000 points."""
    xs = [i * 1e-3 for i in range(100_000)]
    ys = [0.0] * 100_000
    ys[54_321] = 7.0
    tx, ty = thin(xs, ys, 2000)
    assert len(tx) <= 2000 and 7.0 in ty and tx == sorted(tx)


def test_plot_data_cannot_end_its_script_element():
    """A label with "</script>" stays inside the JSON."""
    html = plot({"title": "</script><b>x", "series": []})
    assert html.count("</script>") == 1 and specs_of(html)[0]["title"] == "</script><b>x"


def test_report_is_deterministic_small_and_self_contained(scenario_file, tmp_path, capsys):
    """`fctlab report` of two runs: the same bytes twice, nothing to fetch, every plot's data within limits."""
    for name, protocol in (("tcp", "tcp"), ("rc3", "rc3")):
        assert (
            main(
                ["run", str(scenario_file), "-o", str(tmp_path / name), "-q", "--set", f"transport.protocol={protocol}"]
            )
            == 0
        )
    out1, out2 = tmp_path / "a.html", tmp_path / "b.html"
    assert main(["report", str(tmp_path / "tcp"), str(tmp_path / "rc3"), "-o", str(out1)]) == 0
    assert main(["report", str(tmp_path / "tcp"), str(tmp_path / "rc3"), "-o", str(out2)]) == 0
    page = out1.read_text()
    assert page == out2.read_text()
    assert not re.search(r'(src|href)="(https?:)?//', page), "the page loads something from the network"
    assert "<script>" in page and "<style>" in page and "<table>" in page
    specs = specs_of(page)
    cdf = next(s for s in specs if s["title"] == "FCT CDF")
    assert [s["name"] for s in cdf["series"]] == ["tcp", "rc3"]
    assert all(len(s["x"]) <= CDF_POINTS for s in cdf["series"])
    assert len(page) < 300_000


def test_result_repr_html_is_a_fragment_with_table_and_cdf(scenario_file, tmp_path):
    """In a notebook a Result shows its summary table and FCT CDF, with no page around it and no ids."""
    assert main(["run", str(scenario_file), "-o", str(tmp_path / "r"), "-q"]) == 0
    html = load(tmp_path / "r")._repr_html_()
    assert html.startswith('<div class="fctlab">') and "<html" not in html
    assert "<table>" in html and [s["title"] for s in specs_of(html)] == ["FCT CDF"]
    assert " id=" not in html  # shown twice in one notebook, fixed ids would collide


def test_labels_are_directory_names_made_distinct():
    """A sweep's point/seed directories get as many trailing parts as tell them apart."""
    assert labels_for(["/x/fast", "/x/slow"]) == ["fast", "slow"]
    assert labels_for(["/x/fast/seed1", "/x/slow/seed1"]) == ["fast/seed1", "slow/seed1"]
    assert labels_for(["/x/a", "/x/a"]) == ["a (1)", "a (2)"]


def test_report_errors_name_the_argument(scenario_file, tmp_path, capsys):
    """A missing directory, a directory without results, an output that cannot be written: one line, exit 2."""
    assert main(["run", str(scenario_file), "-o", str(tmp_path / "r"), "-q"]) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "nope"), "-o", str(tmp_path / "x.html")]) == 2
    assert "RESULTS" in (e := one_line_error(capsys)) and "nope" in e and "no such directory" in e
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty"), "-o", str(tmp_path / "x.html")]) == 2
    assert "is not a results directory" in one_line_error(capsys)
    assert main(["report", str(tmp_path / "r"), "-o", str(tmp_path / "no" / "x.html")]) == 2
    assert "-o" in (e := one_line_error(capsys)) and "does not exist" in e
    assert main(["report", str(tmp_path / "r"), "-o", str(tmp_path)]) == 2
    assert "is a directory" in one_line_error(capsys)
    assert not (tmp_path / "x.html").exists()


def test_readme_becomes_html_with_its_images_inlined(tmp_path):
    """Tables, code and lists become HTML; a PNG beside the README is embedded, other links kept."""
    (tmp_path / "fig.png").write_bytes(PNG)
    md = "# T\n\n| paper | fctlab |\n|---|---|\n| 1 | 2 |\n\n- `x<y`\n\n"
    md += "![f](fig.png) [docs](../docs/a.md) ![m](missing.png)\n"
    html = markdown_html(md, tmp_path)
    assert "<table>" in html and "<td>2</td>" in html and "<code>x&lt;y</code>" in html and "<li>" in html
    assert 'src="data:image/png;base64,' + base64.b64encode(PNG).decode() in html
    assert 'href="../docs/a.md"' in html and 'src="missing.png"' in html


def test_links_to_experiments_point_at_their_pages(tmp_path):
    """A link to a directory with a README (or to the README) opens that directory's index.html."""
    (tmp_path / "fig1").mkdir()
    (tmp_path / "fig1" / "README.md").write_text("# 1\n")
    html = markdown_html("[a](fig1/) [b](fig1/README.md#x) [c](other/) [d](https://e.org/README.md)", tmp_path)
    assert 'href="fig1/index.html"' in html and 'href="fig1/index.html#x"' in html
    assert 'href="other/"' in html and 'href="https://e.org/README.md"' in html


def test_experiment_pages_are_written_from_readmes_alone(tmp_path):
    """`fctlab pages` writes index.html beside every README.md (not in the run cache), titled by its heading."""
    for d in ("paper/fig1", "paper/fig2", "paper/.runs/x"):
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "README.md").write_text(f"# Figure {d}\n\ntext\n")
    written = write_all(tmp_path / "paper")
    assert [p.parent.name for p in written] == ["fig1", "fig2"]
    assert "<title>Figure paper/fig1</title>" in (tmp_path / "paper/fig1/index.html").read_text()
    assert not (tmp_path / "paper/.runs/x/index.html").exists()
    before = (tmp_path / "paper/fig1/index.html").read_bytes()
    assert write_index(tmp_path / "paper/fig1").read_bytes() == before


@pytest.mark.parametrize("args", [["pages", "no-such-dir"]])
def test_pages_of_a_missing_directory_is_one_line(args, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    assert "no-such-dir" in one_line_error(capsys)


def test_a_page_carries_the_plotting_script_only_when_it_has_a_plot():
    from fctlab.html.page import page, plot, plot_script

    script = plot_script()
    assert script not in page("tables", "<table></table>")
    spec = {"kind": "line", "title": "t", "x": "x", "y": "y", "curves": [{"label": "a", "x": [1], "y": [2]}]}
    assert script in page("a plot", plot(spec))


@pytest.mark.parametrize("missing", ["playwright", "chromium"])
def test_pages_screenshots_without_the_browser_is_one_line(missing, tmp_path, monkeypatch, capsys):
    """`fctlab pages --screenshots` without Playwright (its import fails) or without Chromium: one
    line saying what to install, exit 2, and no page written before the refusal."""
    (tmp_path / "fig1").mkdir()
    (tmp_path / "fig1" / "README.md").write_text("# Figure 1\n")
    if missing == "playwright":
        monkeypatch.setitem(sys.modules, "playwright", None)
        monkeypatch.setitem(sys.modules, "playwright.sync_api", None)
        says = "pip install playwright"
    else:
        monkeypatch.setenv("FCTLAB_CHROMIUM", str(tmp_path / "no-chromium"))
        says = "apt-get install chromium"
    assert main(["pages", str(tmp_path), "--screenshots"]) == 2
    error = one_line_error(capsys)
    assert error.startswith("error: --screenshots: ") and says in error
    assert not (tmp_path / "fig1" / "index.html").exists()


@pytest.mark.parametrize(
    "x, unit, text",
    [
        (1e10, "b/s", "10 Gb/s"),
        (1e8, "b/s", "100 Mb/s"),
        (2.5e-7, "s", "250 ns"),
        (0.0123, "s", "12.3 ms"),
        (3600.0, "s", "3600 s"),
        (1460, "B", "1.46 kB"),
        (999_960.0, "B", "1 MB"),
        (0.0, "B", "0 B"),
        (0.0003688, "B", "< 1 B"),
        (12_345_678.0, "", "12350000"),
        (0.00001234, "", "0.00001234"),
    ],
)
def test_quantities_take_the_prefix_that_puts_them_between_1_and_1000(x, unit, text):
    assert quantity(x, unit) == text


def test_busiest_links_print_rates_and_queues_with_their_units():
    """A 10 Gb/s link reads "10 Gb/s" (not "1e+04" Mb/s); a mean queue below a byte (the time
    average of a queue empty all but a few nanoseconds) reads "< 1 B"; no cell is an exponent."""
    links = pl.DataFrame(
        {
            "id": [0, 1],
            "name": ["leaf0->spine0", "h0->leaf0"],
            "rate_bps": [1e10, 1e8],
            "utilization": [0.5, 0.00001234],
            "queue_avg_bytes": [0.0003688, 45_210.0],
            "queue_max_bytes": [1500, 1_250_000],
            "drops_pkts": [0, 3],
        }
    )
    html = busiest_links([("base", SimpleNamespace(links=links))])
    cells = re.findall(r"<td>(.*?)</td>", html)
    for text in ("10 Gb/s", "100 Mb/s", "&lt; 1 B", "45.21 kB", "1.5 kB", "1.25 MB", "0.00001234"):
        assert text in cells, (text, cells)
    assert [c for c in cells if EXPONENT.search(c)] == []
