#!/usr/bin/env python3
"""Import circles among the source files of the Rust crates and of the Python package.

A file imports another when its code (comments and `#[cfg(test)]` modules left out) names a
path into it: in Rust a `crate::a::b::...` path (in a `use` or inline), `super::...` or
`self::...`, resolved to the deepest module file the path reaches (`a/b.rs` or `a/b/mod.rs`);
`mod x;` declarations are structure, not imports. The protocol registry's table
(`protocol/registry.rs`, `protocols!(callback)`) counts as what it generates: a file that
invokes it imports, for each folder of the table, the file each `$crate::protocol::$folder::...`
path of its callback reaches (`$crate::protocol::$folder::header::T` -> `protocol/<folder>/header.rs`,
`$crate::protocol::$folder::T` -> `protocol/<folder>/mod.rs`). In Python an `import` or `from ... import`
anywhere in the file (inside functions too), of a module of the package or of the experiments.
A circle is a strongly connected set of two or more files; each is printed with its files.

    python3 scripts/import_cycles.py            # every circle, and the count; exit 1 if any
    python3 scripts/import_cycles.py --count    # the count only
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rust_code(text: str) -> str:
    """The text without comments and without `#[cfg(test)] mod ... { }` blocks."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = "\n".join(re.sub(r"//.*", "", line) for line in text.splitlines())
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def expand_use(tree: str) -> list[str]:
    """`a::{b, c::{d, e}}` -> [`a::b`, `a::c::d`, `a::c::e`] (`as` aliases dropped)."""
    tree = re.sub(r"\s+", "", tree)
    m = re.match(r"^(.*?)\{(.*)\}$", tree)
    if not m:
        return [tree.split("as")[0] if "as" in tree and "::" in tree else tree]
    prefix, inner = m.groups()
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        cur += ch
    parts.append(cur)
    return [p for part in parts if part for p in expand_use(prefix + part)]


def rust_module_of(src: Path, file: Path) -> list[str]:
    """The module path of a file: `src/a/b.rs` and `src/a/b/mod.rs` -> [a, b]."""
    rel = file.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts


def table_folders(src: Path) -> list[str]:
    """The folders of the protocol registry's table (the rows of `protocols!`), if the crate has one."""
    table = src / "protocol" / "registry.rs"
    if not table.exists():
        return []
    body = rust_code(table.read_text())
    return re.findall(r"^\s*(\w+)\s*\{\s*name:", body, flags=re.M)


def table_paths(code: str, src: Path, folders: list[str]) -> list[str]:
    """The `crate::protocol::<folder>::...` paths a file that invokes `protocols!(cb)` generates.

    Every `$crate::protocol::$x::...` path of the file's macros (the callback and the helpers it
    calls) is taken for each folder of the table; one that names a module the folder lacks
    (`header`, `router`) is not generated for that folder (its row has no such part).
    """
    if not re.search(r"\bprotocols!\s*\(\s*\w+\s*\)", code):
        return []
    paths = []
    for tail in set(re.findall(r"\$crate::protocol::\$\w+((?:::\w+)*)", code)):
        segs = [t for t in tail.split("::") if t]
        for f in folders:
            if segs and segs[0][:1].islower():
                base = src / "protocol" / f / segs[0]
                if not (base.with_suffix(".rs").exists() or (base / "mod.rs").exists()):
                    continue
            paths.append("crate::protocol::" + f + tail)
    return paths


def rust_graph(src: Path) -> dict[str, set[str]]:
    files = sorted(src.rglob("*.rs"))
    folders = table_folders(src)
    by_module = {tuple(rust_module_of(src, f)): f for f in files}
    graph: dict[str, set[str]] = {}
    for f in files:
        here = rust_module_of(src, f)
        is_dir_module = f.name in ("mod.rs", "lib.rs", "main.rs")
        code = rust_code(f.read_text())
        paths = []
        for m in re.finditer(r"\buse\s+([^;]+);", code):
            paths += expand_use(m.group(1))
        # A macro's template path (`$crate::protocol::$folder::...`) is not a path to its
        # prefix; the table's are counted below.
        paths += re.findall(r"\b(?:crate|super|self)(?:::\w+)+\b(?!::\$)", code)
        paths += table_paths(code, src, folders)
        deps = set()
        for p in paths:
            seg = [s for s in p.split("::") if s and s != "*"]
            if not seg:
                continue
            if seg[0] == "crate":
                mod, rest = [], seg[1:]
            elif seg[0] in ("super", "self"):
                # `self::` in a.rs is a::, in a/mod.rs too; `super::` goes one level up from
                # the file's own module (from a/b.rs: a).
                mod = here[:] if seg[0] == "self" or is_dir_module else here[:-1]
                rest = seg[1:]
                if seg[0] == "super" and is_dir_module:
                    mod = here[:-1]
                while rest and rest[0] == "super":
                    mod, rest = mod[:-1], rest[1:]
            else:
                continue
            target = tuple(mod)
            for s in rest:
                if (*target, s) in by_module:
                    target = (*target, s)
                else:
                    break
            if target in by_module and by_module[target] != f:
                deps.add(str(by_module[target].relative_to(ROOT)))
        graph[str(f.relative_to(ROOT))] = deps
    return graph


def python_graph(roots: list[tuple[Path, str]]) -> dict[str, set[str]]:
    """Files under each (directory, package name); imports resolved to files among them."""
    modules: dict[str, Path] = {}
    for base, package in roots:
        # A compiled module counts by its stub (`_core.pyi`): it imports nothing of ours.
        for f in sorted([*base.rglob("*.py"), *base.rglob("*.pyi")]):
            rel = f.relative_to(base).with_suffix("")
            parts = [package, *rel.parts] if package else list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = f
    graph: dict[str, set[str]] = {}
    for name, f in modules.items():
        is_pkg = f.name == "__init__.py"
        package = name if is_pkg else name.rpartition(".")[0]
        if f.suffix == ".pyi":
            graph[str(f.relative_to(ROOT))] = set()
            continue
        tree = ast.parse(f.read_text())
        targets = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                # `from pkg import sub` imports the submodule; `from mod import name`, mod.
                for a in node.names:
                    targets.append(f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod)
        deps = set()
        for t in targets:
            while t and t not in modules:
                t = t.rpartition(".")[0]
            if t and modules[t] != f:
                deps.add(str(modules[t].relative_to(ROOT)))
        graph[str(f.relative_to(ROOT))] = deps
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of two or more files (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def all_circles() -> dict[str, list[list[str]]]:
    found = {}
    for crate in sorted((ROOT / "crates").iterdir()):
        if (crate / "src").is_dir():
            found[crate.name] = circles(rust_graph(crate / "src"))
    py = [(ROOT / "python" / "fctlab", "fctlab")]
    py += [(d, f"fctlab_experiments.{d.name}") for d in sorted((ROOT / "experiments").iterdir()) if d.is_dir()]
    found["python"] = circles(python_graph(py))
    return found


def main() -> int:
    found = all_circles()
    total = sum(len(c) for c in found.values())
    if "--count" in sys.argv:
        print(total)
        return 0
    for where, cs in found.items():
        for c in cs:
            print(f"{where}: {len(c)} files: {' '.join(c)}")
    print(f"{total} import circles")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
