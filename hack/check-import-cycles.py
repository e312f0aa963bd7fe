#!/usr/bin/env python3
"""Fails when two source files, or two top-level modules, of a crate import each
other, directly or in a loop; and, for a crate given a floors table, when a
top-level module imports from a floor above its own.

A file's module path follows rustc's rules for the plain layout (src/lib.rs is
the crate root, src/a/mod.rs and src/a.rs are `a`, src/a/b.rs is `a::b`).
An edge A -> B is a path in A's code (a `use` or an inline path starting with
`crate::`, `super::` or `self::`) that names something in B: the deepest
file module that is a prefix of the path; a name the crate root
re-exports from one of its modules (`crate::Store`, from the root's `pub
use store::Store;`) names that module. Re-exports (`pub use`,
`pub(crate) use`) are not edges: they publish a name, the code does not
depend on it. Test-only code (`#[cfg(test)]` modules and the files they
load) is left out, as are `mod` declarations.

Floors. `--floors CRATE_DIR=FILE.md` reads the one Markdown table of FILE.md
whose header is `| floor | modules |`: one row per floor, lowest first; a
floor's modules are the backticked names of its second cell that stand
outside parentheses (what is inside parentheses describes them). Every
top-level module of the crate must be on exactly one floor, every name on a
floor must be a top-level module, and a module may import only from its own
floor or the floors below (the crate root, which re-exports, is above them
all). A violation names the file:line of the offending path, both modules
and their floors. Several crates may share one table (`--floors` given
the same file for each): the runtime's floors span kubegen-base (the lowest)
and kubegen-engine, whose table is the one in ARCHITECTURE.md. Then every
name on a floor must be a top-level module of exactly one of them, and a
module a crate's root re-exports from a crate sharing the table (`pub use
kubegen_base::{store, …};`, used as `crate::store`) keeps its floor: a path
through it is an import of that module.

Usage: check-import-cycles.py [--floors CRATE_DIR=FILE.md]... CRATE_DIR...
       check-import-cycles.py --self-test
Exit 1 and the errors when any. `--self-test` runs the checker on the
fixtures under hack/tests/ (floor-clean must pass, floor-violation must fail
with exactly the errors of its expected.txt). `make cycles` runs both.
"""

import pathlib
import re
import subprocess
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
        out.append("\n" * text.count("\n", m.start(), i + 1))
        pos = i + 1
    out.append(text[pos:])
    return "".join(out)


def blank(m: re.Match) -> str:
    """What a removed match leaves: its newlines, so that lines keep their numbers."""
    return "\n" * m.group(0).count("\n")


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


ROOT_REEXPORT = re.compile(r"^\s*pub\s+use\s+([a-z_][a-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)*)(?:::\{([^;]*)\})?\s*;", re.M | re.S)


def root_reexports(root: str, files: dict) -> dict:
    """The names the crate root re-exports from its own modules
    (`pub use store::{Store, Cache as C};` at the root), each with the
    module it comes from: `crate::Store` names `store`."""
    names = {}
    for m in ROOT_REEXPORT.finditer(root):
        module = (m.group(1),)
        if module not in files:
            continue
        path = [p for p in m.group(2).split("::") if p]
        items = [i.strip() for i in m.group(3).split(",")] if m.group(3) else [path.pop()] if path else []
        for item in items:
            if not item or item in ("self", "*"):
                continue
            name = item.split(" as ")[-1].strip().split("::")[-1]
            source = item.split(" as ")[0].strip().split("::")
            names[name] = module + tuple(path) + tuple(source[:-1])
    return names


SIBLING_REEXPORT = re.compile(r"^\s*pub(?:\(crate\))?\s+use\s+([a-z_][a-z0-9_]*)::(?:\{([^;}]*)\}|([a-z_][a-z0-9_]*))\s*;", re.M)


def sibling_modules(root: str, siblings: set) -> set:
    """The modules the crate root re-exports from crates sharing its floors
    table (`pub use kubegen_base::{store, apply};`)."""
    names = set()
    for m in SIBLING_REEXPORT.finditer(root):
        if m.group(1) in siblings:
            items = m.group(2).split(",") if m.group(2) is not None else [m.group(3)]
            names |= {i.strip() for i in items if MODULE_NAME.fullmatch(i.strip())}
    return names


def read_crate(crate: pathlib.Path) -> tuple:
    """(src, {file module: file}, {file module: code without comments and
    test modules}, the test-only modules) of a crate, read once."""
    src = crate / "src"
    files = {}
    for f in sorted(src.rglob("*.rs")):
        files[module_path(src, f)] = f
    test_modules: set = set()
    texts = {}
    for mod, f in files.items():
        text = COMMENT.sub("", f.read_text())
        texts[mod] = strip_test_modules(text, test_modules, mod)
    return src, files, texts, test_modules


def top_modules(reading: tuple) -> set:
    """A crate's top-level modules (from `read_crate`), test-only ones left out."""
    _, files, _, test_modules = reading
    return {m[0] for m in files if m and m[:1] not in test_modules}


def check_crate(reading: tuple, floors_md=None, shared=None) -> list:
    """Cycles in a crate (as `read_crate` read it), and floors when
    `floors_md` is given; `shared` is (the other crates' lib names sharing
    the table, every module on it)."""
    siblings, table_modules = shared or (set(), None)
    src, files, texts, test_modules = reading
    roots = root_reexports(texts.get((), ""), files)
    external = sibling_modules(texts.get((), ""), siblings)
    edges = {m: set() for m in files}
    # (file module, module it names) -> [(line, path as written)]
    sites: dict = {}
    for mod, text in texts.items():
        if any(mod[: len(t)] == t for t in test_modules):
            continue
        code = REEXPORT.sub(blank, text)
        paths = []
        for g in USE_GROUP.finditer(code):
            prefix = [p for p in g.group(2).split("::") if p]
            written = g.group(1) + g.group(2)
            for item in re.finditer(r"[^,\s{}]+", g.group(3)):
                line = code.count("\n", 0, g.start(3) + item.start()) + 1
                name = item.group(0)
                if name not in ("self", "*"):
                    paths.append((g.group(1), prefix + name.split("::"), line, f"{written}::{name}"))
                else:
                    paths.append((g.group(1), prefix, line, written))
        code = USE_GROUP.sub(blank, code)
        for m in PATH.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            paths.append((m.group(1), [p for p in m.group(2).split("::") if p], line, m.group(0)))
        for head, rest, line, written in paths:
            target = resolve(mod, head, rest)
            if target and tuple(target[:1]) not in files and target[0] in roots:
                # `crate::Name` re-exported at the root: the module it is from.
                target = list(roots[target[0]]) + target[1:]
            if target and tuple(target[:1]) not in files and target[0] in external:
                # A module of a crate sharing the floors table, used as this
                # crate's: an import of that module (for the floors only).
                sites.setdefault((mod, ("@", target[0])), []).append((line, written))
                continue
            for n in range(len(target), -1, -1):
                t = tuple(target[:n])
                if t in files:
                    if t != mod and not any(t[: len(x)] == x for x in test_modules):
                        edges[mod].add(t)
                        sites.setdefault((mod, t), []).append((line, written))
                    break
    errors = ["import cycle: " + " -> ".join(c) for c in find_cycles(edges, {m: files[m] for m in files})]
    # The same between top-level modules (`store` and everything under it).
    top = {m: (m[:1] if m else ()) for m in files}
    modules = {t: set() for t in top.values()}
    for v, ws in edges.items():
        for w in ws:
            if top[v] != top[w] and top[w] != ():
                modules[top[v]].add(top[w])
    names = {t: (src / "::".join(t) if t else src / "lib.rs") for t in modules}
    errors += [
        "import cycle: module " + " -> module ".join(c) for c in find_cycles(modules, names)
    ]
    if floors_md is not None:
        tops = top_modules(reading)
        top.update({("@", name): (name,) for name in external})
        errors += check_floors(floors_md, tops, edges, sites, top, files, table_modules)
    return errors


FLOOR_HEADER = re.compile(r"^\|\s*floor\s*\|\s*modules\s*\|\s*$")
MODULE_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def outside_parentheses(cell: str) -> str:
    out, depth = [], 0
    for ch in cell:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def read_floors(md: pathlib.Path) -> tuple:
    """[(floor, [module, ...]), ...] lowest first, and errors, from the
    `| floor | modules |` table of `md` (there must be exactly one)."""
    lines = md.read_text().splitlines()
    starts = [i for i, line in enumerate(lines) if FLOOR_HEADER.match(line)]
    if len(starts) != 1:
        return [], [f"{md}: expected one `| floor | modules |` table, found {len(starts)}"]
    floors, errors = [], []
    for i in range(starts[0] + 2, len(lines)):
        line = lines[i].strip()
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|", 1)]
        if len(cells) != 2:
            errors.append(f"{md}:{i + 1}: a floor row has two cells: | floor | modules |")
            continue
        names = re.findall(r"`([^`]*)`", outside_parentheses(cells[1]))
        for name in names:
            if not MODULE_NAME.fullmatch(name):
                errors.append(
                    f"{md}:{i + 1}: `{name}` outside parentheses is not a module name "
                    "(describe modules inside parentheses)"
                )
        floors.append((cells[0], [n for n in names if MODULE_NAME.fullmatch(n)], i + 1))
    return floors, errors


def check_floors(md: pathlib.Path, tops: set, edges: dict, sites: dict, top: dict, files: dict,
                 table_modules=None) -> list:
    """`table_modules`: every top-level module of the crates sharing `md`
    (this crate's alone when None)."""
    floors, errors = read_floors(md)
    known = tops if table_modules is None else table_modules
    level, floor_of = {}, {}
    for n, (floor, names, line) in enumerate(floors):
        for name in names:
            if name in floor_of:
                errors.append(
                    f"{md}:{line}: `{name}` is on floor {floor_of[name]} already, and on {floor}"
                )
                continue
            level[name], floor_of[name] = n, floor
            if name not in known:
                errors.append(f"{md}:{line}: floor {floor} names `{name}`, which is no top-level module")
    for name in sorted(tops - floor_of.keys()):
        errors.append(f"{md}: top-level module `{name}` is on no floor; add it to the floors table")
    for (v, w), where in sorted(sites.items()):
        a, b = top[v], top[w]
        if not a or not b or a == b:
            continue
        a, b = a[0], b[0]
        if a in level and b in level and level[b] > level[a]:
            for line, written in where:
                errors.append(
                    f"{files[v]}:{line}: floor order: `{a}` (floor {floor_of[a]}) imports "
                    f"`{written}` from `{b}` (floor {floor_of[b]}, above it)"
                )
    return errors


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


HERE = pathlib.Path(__file__).resolve().parent


def self_test() -> int:
    """The checker on its fixtures: the clean one passes, the violating ones
    (one crate; two crates sharing a table) fail with exactly the errors of
    their expected.txt."""
    failed = False
    shared = ["--floors", "floor-shared/lower=floor-shared/FLOORS.md",
              "--floors", "floor-shared/upper=floor-shared/FLOORS.md",
              "floor-shared/lower", "floor-shared/upper"]
    for name, code, args in (
        ("floor-clean", 0, ["--floors", "floor-clean=floor-clean/FLOORS.md", "floor-clean"]),
        ("floor-violation", 1, ["--floors", "floor-violation=floor-violation/FLOORS.md", "floor-violation"]),
        ("floor-shared", 1, shared),
    ):
        fixture = HERE / "tests" / name
        run = subprocess.run(
            [sys.executable, __file__, *args],
            cwd=fixture.parent,
            capture_output=True,
            text=True,
        )
        expected_file = fixture / "expected.txt"
        expected = expected_file.read_text() if expected_file.exists() else ""
        if run.returncode != code or run.stderr != expected:
            failed = True
            print(
                f"error: self-test {name}: exit {run.returncode} (want {code}), stderr:\n"
                f"{run.stderr}--- want:\n{expected}---",
                file=sys.stderr,
            )
    if not failed:
        print("self-test: the floor check passes hack/tests/floor-clean and fails hack/tests/floor-violation "
              "and hack/tests/floor-shared")
    return 1 if failed else 0


def main() -> int:
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    floors, crates = {}, []
    while args:
        arg = args.pop(0)
        if arg == "--floors":
            crate, _, md = args.pop(0).partition("=")
            floors[pathlib.Path(crate).resolve()] = pathlib.Path(md)
        else:
            crates.append(arg)
    unused = set(floors) - {pathlib.Path(c).resolve() for c in crates}
    for crate in sorted(unused):
        print(f"error: --floors {crate}: not among the crates checked", file=sys.stderr)
    failed = bool(unused)
    readings = {pathlib.Path(arg).resolve(): read_crate(pathlib.Path(arg)) for arg in crates}
    # Crates sharing a table: each one's siblings, and the modules of all.
    sharing: dict = {}
    for crate, md in floors.items():
        if crate in readings:
            sharing.setdefault(md.resolve(), []).append(crate)
    modules_of = {crate: top_modules(readings[crate]) for group in sharing.values() for crate in group}
    for group in sharing.values():
        seen: dict = {}
        for crate in group:
            for name in sorted(modules_of[crate]):
                if name in seen:
                    failed = True
                    print(f"error: {crate}: top-level module `{name}` is also one of "
                          f"{seen[name]}, which shares its floors table", file=sys.stderr)
                seen[name] = crate
    for arg in crates:
        crate = pathlib.Path(arg)
        md = floors.get(crate.resolve())
        shared = None
        if md is not None:
            group = sharing[md.resolve()]
            if len(group) > 1:
                shared = ({c.name.replace("-", "_") for c in group if c != crate.resolve()},
                          set().union(*(modules_of[c] for c in group)))
        for error in check_crate(readings[crate.resolve()], md, shared):
            failed = True
            print(f"error: {crate}: {error}", file=sys.stderr)
    if not failed:
        print(f"no import cycles in {len(crates)} crates; floors in order in {len(floors)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
