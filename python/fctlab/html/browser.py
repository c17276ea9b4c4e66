"""Headless Chromium for the reports: open a page, say what is wrong with it, screenshot it.

Drives Debian's Chromium (`/usr/bin/chromium`, or `FCTLAB_CHROMIUM`) through Playwright
(PyPI `playwright`, in the `test` extra; its own browser downloads are not used). A page is
wrong when the console shows an error, a script throws, it asks the network for anything, or
one of its plots drew no curve. Used by the tests and by `fctlab pages --screenshots`.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: Debian's package; what scripts/test.sh installs when it is missing.
DEFAULT_CHROMIUM = "/usr/bin/chromium"
#: The screenshot's window, CSS pixels (one screenful of the report, not the whole page).
VIEWPORT = {"width": 1200, "height": 900}
#: Colours a screenshot keeps (a palette PNG: a page of text and lines needs few).
SCREENSHOT_COLORS = 64

#: JavaScript returning one sentence per plot of the page that drew nothing.
_UNDRAWN = """() => [...document.querySelectorAll("div.fctlab-plot")].flatMap((div, i) => {
  const svg = div.querySelector("svg");
  if (!svg) return [`plot ${i + 1}: no <svg>`];
  const drawn = [...svg.querySelectorAll("path.fctlab-curve")].filter((p) => (p.getAttribute("d") || "").length > 1);
  return drawn.length ? [] : [`plot ${i + 1} (${svg.querySelector(".fctlab-title")?.textContent}): no curve drawn`];
})"""


class BrowserMissing(RuntimeError):
    """Chromium or Playwright is not installed; the message says how to install it."""


def chromium_path() -> str:
    """The Chromium executable to drive: `FCTLAB_CHROMIUM`, else Debian's."""
    return os.environ.get("FCTLAB_CHROMIUM") or DEFAULT_CHROMIUM


def require() -> str:
    """The Chromium executable, after checking that it and Playwright are installed; a
    BrowserMissing saying how to install what is not."""
    exe = chromium_path()
    if not Path(exe).is_file():
        raise BrowserMissing(
            f"headless Chromium not found at {exe}: install it with `apt-get install chromium` (Debian; "
            "scripts/test.sh does so as root), or point FCTLAB_CHROMIUM at a Chromium executable"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        raise BrowserMissing(
            "Playwright is not installed: `pip install playwright` (or `pip install 'fctlab[test]'`)"
        ) from None
    return exe


@contextmanager
def browser() -> Iterator[Any]:
    """A headless Chromium (a Playwright Browser), closed on exit."""
    exe = require()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@contextmanager
def opened(b: Any, html_file: Path) -> Iterator[tuple[Any, list[str]]]:
    """The page of `html_file` in a new tab, and the list its problems are collected into (console
    errors, uncaught exceptions, requests that leave the file) while the tab stays open."""
    page = b.new_page(viewport=VIEWPORT)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console error: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on(
        "request",
        lambda r: None if r.url.startswith(("file:", "data:", "about:")) else problems.append(f"network: {r.url}"),
    )
    try:
        page.goto(Path(html_file).resolve().as_uri(), wait_until="load")
        yield page, problems
    finally:
        page.close()


def undrawn_plots(page: Any) -> list[str]:
    """One sentence per plot of the page without a drawn curve."""
    return page.evaluate(_UNDRAWN)


def screenshot(page: Any, png: Path) -> Path:
    """The page's first screenful as a small palette PNG at `png`."""
    from PIL import Image

    image = Image.open(io.BytesIO(page.screenshot(type="png")))
    image.convert("RGB").quantize(colors=SCREENSHOT_COLORS).save(png, optimize=True)
    return png


def screenshot_all(html_files: Sequence[Path]) -> list[Path]:
    """An index.png beside each page (a page with problems is an error: its screenshot would lie)."""
    shots = []
    with browser() as b:
        for f in html_files:
            with opened(b, f) as (page, problems):
                problems += undrawn_plots(page)
                if problems:
                    raise RuntimeError(f"{f}: " + "; ".join(problems))
                shots.append(screenshot(page, Path(f).with_suffix(".png")))
    return shots
