"""HTML building blocks: the page and the notebook fragment around a body, plots and tables.

A page is one self-contained file: the stylesheet and the plotting script (`style.css`,
`axes.js` and `plot.js`, shipped in this package) are inlined, and each plot's data is JSON in the plot's own
element, so the file opens without a network. The output depends only on its inputs (no dates,
no random ids): a report written twice from the same results is byte-identical.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from fctlab.atomic import write_files
from fctlab.html.units import number

#: Significant digits of the numbers embedded for plots (plots need no more; files stay small).
DIGITS = 6


@cache
def asset(name: str) -> str:
    """The text of one of this package's assets (`axes.js`, `plot.js`, `style.css`)."""
    return files("fctlab.html").joinpath(name).read_text(encoding="utf-8")


def plot_script() -> str:
    """The plotting script: the axes' numbers and ticks (`axes.js`), then the plots (`plot.js`)."""
    return asset("axes.js") + asset("plot.js")


def page(title: str, body: str, head: str = "") -> str:
    """A whole HTML document around `body`, with the style inlined, and the plotting script too
    when `body` has a plot (a page of tables and images does without its 24 KB); `head`: more
    elements for the head, right after the charset (so within the page's first bytes)."""
    script = f"<script>\n{plot_script()}</script>\n" if 'class="fctlab-plot"' in body else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        + (f"{head}\n" if head else "")
        + '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{asset('style.css')}</style>\n</head>\n"
        f'<body class="fctlab">\n{body}\n{script}</body>\n</html>\n'
    )


def fragment(body: str) -> str:
    """`body` as a piece of a page (a notebook output): its own style and script, all scoped."""
    style, script = asset("style.css"), plot_script()
    return f'<div class="fctlab">\n<style>\n{style}</style>\n{body}\n<script>\n{script}</script>\n</div>'


def write_page(path: Path, text: str) -> None:
    """Writes a page atomically, as UTF-8 whatever the locale."""
    write_files([(Path(path), lambda p: p.write_text(text, encoding="utf-8"))])


def plot(spec: dict[str, Any]) -> str:
    """The element of one plot: its spec (see `plot.js`) as JSON for the script to draw."""
    data = json.dumps(_rounded(spec), separators=(",", ":"), sort_keys=True, allow_nan=False)
    # "</" would end the <script> element early; "<\/" is the same JSON string.
    data = data.replace("</", "<\\/")
    return f'<div class="fctlab-plot"><script type="application/json">{data}</script></div>'


def plots(specs: Sequence[dict[str, Any]]) -> str:
    """Plots side by side (as many as fit the width)."""
    return '<div class="fctlab-grid-plots">\n' + "\n".join(plot(s) for s in specs) + "\n</div>"


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An HTML table; None shows as "-", floats with four significant digits (never as exponents)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "\n".join("<tr>" + "".join(f"<td>{html.escape(_cell(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def _cell(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return number(x, 4)
    return str(x)


def _rounded(x: Any) -> Any:
    """`x` with every float cut to DIGITS significant digits and NaN/inf as None (JSON has neither)."""
    if isinstance(x, float):
        return float(format(x, f".{DIGITS}g")) if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_rounded(v) for v in x]
    return x
