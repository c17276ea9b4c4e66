#!/usr/bin/env python3
"""The largest source files and functions at a git revision (Rust crates and Python package).

A function's size is its lines from `fn`/`def` to its closing brace or last indented line,
comments included; Rust unit-test modules (`#[cfg(test)] mod tests`) and Python tests are left
out, since they are long by nature.

    python3 scripts/code_size.py [REV] [--top N]      # default: HEAD, 8
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def rust_functions(text: str) -> list[tuple[str, int]]:
    """(name, lines) of every `fn` with a body, by brace matching outside strings and comments."""
    text = re.split(r"#\[cfg\(test\)\]\s*mod tests", text)[0]
    out = []
    for m in re.finditer(r"\bfn\s+(\w+)[^;{]*\{", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            c = text[i]
            if text.startswith("//", i):
                i = text.find("\n", i)
                i = len(text) if i < 0 else i
                continue
            if c == '"':
                j = i + 1
                while j < len(text) and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                i = j + 1
                continue
            depth += {"{": 1, "}": -1}.get(c, 0)
            i += 1
        out.append((m.group(1), text.count("\n", m.start(), i) + 1))
    return out


def python_functions(text: str) -> list[tuple[str, int]]:
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append((node.name, node.end_lineno - node.lineno + 1))
    return out


def main() -> None:
    args = sys.argv[1:]
    top = 8
    if "--top" in args:
        top = int(args[args.index("--top") + 1])
        del args[args.index("--top") : args.index("--top") + 2]
    rev = args[0] if args else "HEAD"
    files = [
        f
        for f in git("ls-tree", "-r", "--name-only", rev).split()
        if (f.startswith("crates/") and "/src/" in f and f.endswith(".rs"))
        or (f.startswith("python/fctlab/") and f.endswith(".py"))
    ]
    sizes, funcs = [], []
    for f in files:
        text = git("show", f"{rev}:{f}")
        sizes.append((text.count("\n"), f))
        found = rust_functions(text) if f.endswith(".rs") else python_functions(text)
        funcs += [(n, f"{f}::{name}") for name, n in found]
    print(f"| largest files at {rev} | lines |\n|---|---|")
    for n, f in sorted(sizes, reverse=True)[:top]:
        print(f"| `{f}` | {n} |")
    print(f"\n| largest functions at {rev} | lines |\n|---|---|")
    for n, f in sorted(funcs, reverse=True)[:top]:
        print(f"| `{f}` | {n} |")


if __name__ == "__main__":
    main()
