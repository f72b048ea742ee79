#!/usr/bin/env python3
"""Architecture check for the Rust core (`crates/dcnsim/src`): fails on an import cycle
between modules and on a file over its line budget; prints the largest files.

A module is one file (`cc/swift.rs` is `cc::swift`, `cc/mod.rs` is `cc`). File A depends
on file B when A's code names a path `crate::...` (or `super::...`) that resolves to B's
module or an item in it. A folder's `mod.rs` and the files below it are one room: the
parent declares its children and the children implement the parent's trait, so edges
between them are not counted; everything else is. Unit-test modules (`#[cfg(test)] mod
tests`) are left out: tests may reach anywhere.

Line budgets: 1,000 lines a file, `sim` 800 (`docs/architecture.md`, "Rules"). A file
allowed more is listed in ALLOWED_OVER with its reason.

Usage: python3 scripts/arch_check.py [--top N] [--graph]
Exit code 0 when clean, 1 on a cycle or a file over budget.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "crates" / "dcnsim" / "src"
LIMIT = 1000
LIMITS = {"sim": 800, "sim::mod": 800}
# module -> why it may be longer than its budget.
ALLOWED_OVER: dict[str, str] = {}


def module_of(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return "::".join(parts)


def strip_comments_and_strings(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return text


def without_test_modules(text: str) -> str:
    """Cuts `#[cfg(test)] mod name { ... }` blocks (brace-matched)."""
    out = []
    pos = 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub\s+)?mod\s+\w+\s*\{", text):
        if m.start() < pos:
            continue
        out.append(text[pos:m.start()])
        depth = 1
        i = m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        pos = i
    out.append(text[pos:])
    return "".join(out)


def expand_use_tree(tree: str) -> list[str]:
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e]."""
    tree = re.sub(r"\s+", "", tree)

    def split_top(s: str) -> list[str]:
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        if cur:
            parts.append(cur)
        return parts

    def walk(prefix: str, s: str) -> list[str]:
        brace = s.find("{")
        if brace < 0:
            return [prefix + s]
        head, body = s[:brace], s[brace + 1 : s.rfind("}")]
        out = []
        for part in split_top(body):
            out.extend(walk(prefix + head, part))
        return out

    return walk("", tree)


def referenced_paths(module: str, text: str) -> set[tuple[str, ...]]:
    """Absolute module paths (as tuples) named in `text`, from `use` trees and inline paths."""
    here = module.split("::") if module else []
    paths: set[tuple[str, ...]] = set()

    def absolute(path: str) -> tuple[str, ...] | None:
        segs = [s for s in path.split("::") if s]
        if not segs:
            return None
        if segs[0] == "crate":
            return tuple(segs[1:])
        if segs[0] in ("super", "self"):
            base = list(here)
            # `super` in a mod.rs/lib.rs-less file means the parent module.
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
            return tuple(base + segs)
        return None

    for m in re.finditer(r"\buse\s+([^;]+);", text):
        for p in expand_use_tree(m.group(1)):
            p = re.sub(r"\bas\s*\w+$", "", p.replace("as", " as ")).strip() if " as " in p else p
            p = p.split(" as ")[0]
            a = absolute(p)
            if a is not None:
                paths.add(a)
    for m in re.finditer(r"\b((?:crate|super)(?:::\w+)+)", text):
        a = absolute(m.group(1))
        if a is not None:
            paths.add(a)
    return paths


def resolve(path: tuple[str, ...], modules: set[str]) -> str | None:
    for n in range(len(path), 0, -1):
        name = "::".join(path[:n])
        if name in modules:
            return name
    return None


def same_room(a: str, b: str) -> bool:
    """A folder's mod.rs and the modules below it (either direction)."""
    return (b and a.startswith(b + "::")) or (a and b.startswith(a + "::"))


def build_graph() -> tuple[dict[str, set[str]], dict[str, int], dict[str, Path]]:
    files = {module_of(p): p for p in sorted(ROOT.rglob("*.rs"))}
    modules = set(files)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    lines: dict[str, int] = {}
    for module, path in files.items():
        raw = path.read_text()
        lines[module] = raw.count("\n")
        if module == "":
            continue  # lib.rs declares and re-exports every module
        text = without_test_modules(strip_comments_and_strings(raw))
        for p in referenced_paths(module, text):
            target = resolve(p, modules)
            if target is None or target == module or target == "" or same_room(module, target):
                continue
            graph[module].add(target)
    return graph, lines, files


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def one_cycle(graph: dict[str, set[str]], comp: list[str]) -> list[str]:
    """A shortest cycle through the component's first module (breadth-first)."""
    members = set(comp)
    start = comp[0]
    prev: dict[str, str] = {}
    frontier = [start]
    seen = {start}
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w not in seen:
                    seen.add(w)
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--top", type=int, default=10, help="how many of the largest files to list")
    ap.add_argument("--graph", action="store_true", help="print every module's dependencies")
    args = ap.parse_args()
    graph, lines, files = build_graph()
    ok = True
    if args.graph:
        for m in sorted(graph):
            print(f"{m or 'lib'} -> {', '.join(sorted(graph[m])) or '-'}")
    cycles = strongly_connected(graph)
    for comp in cycles:
        ok = False
        print(f"import cycle among {len(comp)} modules: {', '.join(comp)}")
        print(f"  e.g. {' -> '.join(one_cycle(graph, comp))}")
    print(f"largest files (of {len(files)}):")
    for m in sorted(lines, key=lambda m: -lines[m])[: args.top]:
        budget = LIMITS.get(m, LIMIT)
        rel = files[m].relative_to(ROOT.parents[2])
        flag = ""
        if lines[m] > budget:
            if m in ALLOWED_OVER:
                flag = f"  (over {budget}, allowed: {ALLOWED_OVER[m]})"
            else:
                flag = f"  OVER the {budget}-line budget"
                ok = False
        print(f"  {lines[m]:6d}  {rel}{flag}")
    over = [m for m in lines if lines[m] > LIMITS.get(m, LIMIT) and m not in ALLOWED_OVER]
    print(f"{len(cycles)} import cycle(s), {len(over)} file(s) over budget: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
