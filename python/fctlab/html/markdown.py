"""An experiment's README.md as HTML, self-contained: its images inlined as data URIs.

CommonMark with GitHub's tables (markdown-it-py), so the "paper | fctlab" tables of the
reproductions become HTML tables. An image given by a relative path to a file beside the README
(the analyses' PNGs) is embedded; any other image is left as written. A relative link to a
directory with a README.md, or to that README.md, points at the directory's index.html instead,
so that the pages link to each other when opened from disk.
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

#: Image types embedded (others are left as links, which a browser may not resolve offline).
EMBEDDED = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def markdown_html(text: str, base: Path) -> str:
    """`text` (Markdown) rendered to HTML, relative images under `base` inlined."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table").enable("strikethrough")
    tokens = md.parse(text)
    for token in tokens:
        for child in token.children or []:
            if child.type == "image":
                _inline_image(child, base)
            elif child.type == "link_open":
                _link_to_index(child, base)
    return md.renderer.render(tokens, md.options, {})


def title_of(text: str, default: str) -> str:
    """The first level-1 heading of a Markdown text, or `default`."""
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return default


def _inline_image(token: Token, base: Path) -> None:
    src = str(token.attrGet("src") or "")
    if not src or "://" in src or src.startswith(("/", "data:")):
        return
    path = (base / src).resolve()
    kind = EMBEDDED.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0]
    if kind not in EMBEDDED.values() or not path.is_file():
        return
    token.attrSet("src", f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}")


def _link_to_index(token: Token, base: Path) -> None:
    href = str(token.attrGet("href") or "")
    if not href or "://" in href or href.startswith(("/", "#", "mailto:")):
        return
    path, _, anchor = href.partition("#")
    folder = path[: -len("README.md")] if path.endswith("README.md") else path if path.endswith("/") else None
    if folder is not None and (base / folder / "README.md").is_file():
        token.attrSet("href", f"{folder}index.html" + (f"#{anchor}" if anchor else ""))
