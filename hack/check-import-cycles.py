#!/usr/bin/env python3
"""Fails when two source files, or two top-level modules, of a crate import each
other, directly or in a loop.

A file's module path follows rustc's rules for the plain layout (src/lib.rs is
the crate root, src/a/mod.rs and src/a.rs are `a`, src/a/b.rs is `a::b`).
An edge A -> B is a path in A's code (a `use` or an inline path starting with
`crate::`, `super::` or `self::`) that names something in B: the deepest
file module that is a prefix of the path. Re-exports (`pub use`,
`pub(crate) use`) are not edges: they publish a name, the code does not
depend on it. Test-only code (`#[cfg(test)]` modules and the files they
load) is left out, as are `mod` declarations.

Usage: check-import-cycles.py CRATE_DIR...   (exit 1 and the cycles when any)
(`make cycles` runs it on every crate of the workspace.)
"""

import pathlib
import re
import sys

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)
REEXPORT = re.compile(r"^\s*pub(\([a-z]+\))?\s+use\s[^;]*;", re.M | re.S)
TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(pub(\([a-z]+\))?\s+)?mod\s+(\w+)\s*(;|\{)")
COMMENT = re.compile(r"//[^\n]*")


def module_path(src: pathlib.Path, file: pathlib.Path) -> tuple:
    rel = file.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("lib", "main", "mod"):
        parts = parts[:-1]
    return tuple(parts)


def strip_test_modules(text: str, test_files: set, here: tuple) -> str:
    """Removes inline `#[cfg(test)] mod x { ... }` bodies; records `mod x;` files."""
    out, pos = [], 0
    for m in TEST_MOD.finditer(text):
        if m.group(4) == ";":
            test_files.add(here + (m.group(3),))
            continue
        if m.start() < pos:
            continue
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        out.append(text[pos:m.start()])
        pos = i + 1
    out.append(text[pos:])
    return "".join(out)


def resolve(here: tuple, head: str, rest: list) -> list:
    if head == "crate":
        base = []
    elif head == "self":
        base = list(here)
    else:  # super
        base = list(here[:-1])
    path = base + rest
    # `super::super::x` inside the rest
    while "super" in path:
        i = path.index("super")
        path = path[: max(i - 1, 0)] + path[i + 1 :]
    return path


def check_crate(crate: pathlib.Path) -> list:
    src = crate / "src"
    files = {}
    for f in sorted(src.rglob("*.rs")):
        files[module_path(src, f)] = f
    test_modules: set = set()
    texts = {}
    for mod, f in files.items():
        text = COMMENT.sub("", f.read_text())
        texts[mod] = strip_test_modules(text, test_modules, mod)
    edges = {m: set() for m in files}
    for mod, text in texts.items():
        if any(mod[: len(t)] == t for t in test_modules):
            continue
        code = REEXPORT.sub("", text)
        paths = []
        for g in USE_GROUP.finditer(code):
            prefix = [p for p in g.group(2).split("::") if p]
            for item in re.split(r"[,\s{}]+", g.group(3)):
                if item and item not in ("self", "*"):
                    paths.append((g.group(1), prefix + item.split("::")))
                else:
                    paths.append((g.group(1), prefix))
        code = USE_GROUP.sub("", code)
        for m in PATH.finditer(code):
            paths.append((m.group(1), [p for p in m.group(2).split("::") if p]))
        for head, rest in paths:
            target = resolve(mod, head, rest)
            for n in range(len(target), -1, -1):
                t = tuple(target[:n])
                if t in files:
                    if t != mod and not any(t[: len(x)] == x for x in test_modules):
                        edges[mod].add(t)
                    break
    cycles = find_cycles(edges, {m: files[m] for m in files})
    # The same between top-level modules (`store` and everything under it).
    top = {m: (m[:1] if m else ()) for m in files}
    modules = {t: set() for t in top.values()}
    for v, ws in edges.items():
        for w in ws:
            if top[v] != top[w] and top[w] != ():
                modules[top[v]].add(top[w])
    names = {t: (src / "::".join(t) if t else src / "lib.rs") for t in modules}
    cycles += [["module " + " -> module ".join(c)] for c in find_cycles(modules, names)]
    return cycles


def find_cycles(edges: dict, files: dict) -> list:
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(str(files[c]) for c in comp))

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            visit(v)
    return out


def main() -> int:
    failed = False
    for arg in sys.argv[1:]:
        crate = pathlib.Path(arg)
        cycles = check_crate(crate)
        for cycle in cycles:
            failed = True
            print(f"error: import cycle in {crate}: " + " -> ".join(cycle), file=sys.stderr)
    if not failed:
        print(f"no import cycles in {len(sys.argv) - 1} crates")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
