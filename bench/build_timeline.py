#!/usr/bin/env python3
"""Where a first build's wall time goes: reads a `cargo build --timings`
report with the build's unit graph and prints what decided when it ended.

On a machine with few cores a first build is bound by the work of all its
units (their durations added up) and by the stretch at the end where fewer
units than cores are left to run. For the build it reads, this prints:

  - the wall time, the units' work and the idle core-seconds
    (`jobs` × wall − work: what the machine could have done and did not;
    rustc's code generation can use more than its one core when cores are
    free, so this is an upper bound);
  - the chain that ended the build, from its last unit back: for each unit
    the one it waited for (the dependency whose metadata, or whole build
    for a binary, a proc-macro or a build script, came last), and how long
    it then queued for a free job slot — Cargo starts, among the units
    ready, the one with the most units depending on it, so a unit few
    others need waits behind the ones many need;
  - the work of the units whose crate names start with a prefix
    (`--ours kubegen`), and each one's ready, start and end times;
  - with `--replay`: the build replayed through Cargo's rule with the
    measured unit times (`jobs` slots; a library starts on its
    dependencies' metadata, a linking unit on everything it links; among
    the units ready, the one with the most units depending on it first,
    as Cargo's job queue orders them), once as measured and once with the
    dependencies `--what-if-dep UNIT=DEP` adds, to say what a change of the
    crate graph would do to the wall time (medians over `--trials` replays
    with each unit's time moved by ±10 %, seeded).

The unit graph is Cargo's `--unit-graph` output (unstable: it needs
`RUSTC_BOOTSTRAP=1` on a stable toolchain). With `--crate DIR` this script
builds DIR itself into a fresh target directory (`--target-dir`, removed
afterwards unless `--keep`) to get both; or give the two files of a build
already made. Figures come from one build: compare crates with
bench/build_bench.py, which repeats and alternates them. Nothing fails on a
time.

usage: bench/build_timeline.py --crate DIR [--target-dir DIR] [--keep] [--ours PREFIX] [--jobs N] [REPLAY]
       bench/build_timeline.py --timings HTML --unit-graph JSON [--ours PREFIX] [--jobs N] [REPLAY]
       where REPLAY is --replay [--what-if-dep UNIT=DEP]... [--trials N]
       bench/build_timeline.py --self-test   (a made-up build with a known chain; `make lint`)
"""

import argparse
import heapq
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile


def kind_of(target: dict, mode: str) -> str:
    """A unit's kind as both files can name it."""
    if mode == "run-custom-build":
        return "run"
    kinds = target["kind"]
    if kinds == ["custom-build"]:
        return "build-script"
    if kinds == ["bin"]:
        return "bin"
    if kinds == ["proc-macro"]:
        return "proc-macro"
    return "lib"


def package_name(pkg_id: str) -> str:
    """The package name of a package id: `registry+…#serde@1.0.0`, or
    `path+file:///dir/name#0.1.0` when the name is the directory's."""
    source, _, fragment = pkg_id.rpartition("#")
    if "@" in fragment:
        return fragment.rsplit("@", 1)[0]
    return source.rstrip("/").rsplit("/", 1)[-1]


def read_timings(html: str) -> list:
    """The `UNIT_DATA` rows of a `--timings` report."""
    m = re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S)
    if not m:
        sys.exit("no UNIT_DATA in the timings report")
    return json.loads(m.group(1))


def timing_kind(row: dict) -> str:
    """A report row's unit kind, from its target text (empty for a
    library or proc-macro, `name "bin"`, `build-script`, `build-script
    (run)`)."""
    target = row["target"].strip()
    if "(run)" in target:
        return "run"
    if "build-script" in target:
        return "build-script"
    if target.startswith('"') or "bin" in target:
        return "bin"
    return "lib"


def join(units_json: dict, rows: list) -> list:
    """One entry per unit of the graph with its measured times: start, end,
    and when its metadata was ready (the end of its frontend for a library,
    else its end). Units are matched by package name, kind and features;
    a proc-macro is a `lib` row in the report; two units alike in all three
    (one crate built for the host and the target with the same features,
    in different profiles) take the report's rows in order."""
    pool: dict = {}
    for row in rows:
        sections = row.get("sections") or []
        frontend = next((s[1]["end"] for s in sections if s[0] == "frontend"), row["duration"])
        key = (row["name"], timing_kind(row), tuple(sorted(row["features"])))
        pool.setdefault(key, []).append((row["start"], row["start"] + row["duration"], row["start"] + frontend))
    units = []
    for u in units_json["units"]:
        name = package_name(u["pkg_id"])
        kind = kind_of(u["target"], u["mode"])
        key = (name, "lib" if kind == "proc-macro" else kind, tuple(sorted(u["features"])))
        if not pool.get(key):
            sys.exit(f"no timing for unit {name} ({kind})")
        start, end, rmeta = pool[key].pop(0)
        units.append({"name": name, "kind": kind, "start": start, "end": end,
                      "rmeta": rmeta if kind == "lib" else end,
                      "deps": [d["index"] for d in u["dependencies"]]})
    return units


def needs_all(user: dict, dep: dict) -> bool:
    """Whether `user` waits for all of `dep` (a binary, a proc-macro or a
    build script links it; a build-script run needs the script; a
    proc-macro is loaded whole) or only for its metadata (a library
    compiled against a library's metadata: Cargo's pipelining)."""
    return user["kind"] != "lib" or dep["kind"] != "lib"


def linked(units: list, i: int) -> set:
    """Every library a linking unit links: its dependencies and theirs."""
    seen, stack = set(), list(units[i]["deps"])
    while stack:
        d = stack.pop()
        if d not in seen:
            seen.add(d)
            if units[d]["kind"] == "lib":
                stack.extend(units[d]["deps"])
    return seen


def waits_on(units: list, i: int) -> list:
    """What unit `i` waits for: (dependency, whether all of it or only its
    metadata); a linking unit waits for everything it links."""
    u = units[i]
    deps = linked(units, i) if u["kind"] in ("bin", "build-script", "proc-macro") else u["deps"]
    return [(d, needs_all(u, units[d])) for d in deps]


def ready(units: list, i: int) -> tuple:
    """When unit `i` could start, and the dependency that decided it."""
    best, by = 0.0, None
    for d, whole in waits_on(units, i):
        t = units[d]["end"] if whole else units[d]["rmeta"]
        if t > best:
            best, by = t, d
    return best, by


def chain(units: list) -> list:
    """The units that ended the build, last first: each one's ready time
    was decided by the next."""
    i, out = max(range(len(units)), key=lambda k: units[k]["end"]), []
    while i is not None:
        out.append(i)
        i = ready(units, i)[1]
    return out


def report(units: list, jobs: int, ours: str) -> None:
    wall = max(u["end"] for u in units)
    work = sum(u["end"] - u["start"] for u in units)
    print(f"wall {wall:.1f} s, {len(units)} units, work {work:.1f} s, "
          f"idle at most {jobs * wall - work:.1f} core-seconds of {jobs} × {wall:.1f}")
    print("the chain that ended the build (unit: ready ← waited for; queued for a slot; ran):")
    for i in chain(units):
        u = units[i]
        at, by = ready(units, i)
        waited = f"{units[by]['name']} ({units[by]['kind']})" if by is not None else "nothing"
        print(f"  {u['name']:<24} {u['kind']:<12} ready {at:6.1f} ← {waited:<30} "
              f"queued {max(0.0, u['start'] - at):5.1f}  ran {u['start']:6.1f}–{u['end']:6.1f}")
    if ours:
        mine = [k for k, u in enumerate(units) if u["name"].startswith(ours)]
        total = sum(units[k]["end"] - units[k]["start"] for k in mine)
        print(f"units named {ours}*: work {total:.1f} s ({100 * total / work:.0f} % of the build's)")
        for k in sorted(mine, key=lambda k: units[k]["start"]):
            u = units[k]
            at, _ = ready(units, k)
            print(f"  {u['name']:<24} {u['kind']:<12} ready {at:6.1f}  queued {max(0.0, u['start'] - at):5.1f}  "
                  f"ran {u['start']:6.1f}–{u['end']:6.1f} ({u['end'] - u['start']:.1f} s)")


def replay(units: list, jobs: int, times=None) -> float:
    """The wall time of the build replayed through Cargo's rule with the
    units' durations (`times`: (duration, metadata after) per unit, else
    the measured ones)."""
    n = len(units)
    times = times or [(u["end"] - u["start"], u["rmeta"] - u["start"]) for u in units]
    dependents: list = [set() for _ in range(n)]
    for i, u in enumerate(units):
        for d in u["deps"]:
            dependents[d].add(i)
    seen: dict = {}

    def above(i):  # every unit that depends on `i`, transitively, and `i`
        if i not in seen:
            seen[i] = {i}.union(*(above(j) for j in dependents[i]))
        return seen[i]
    priority = [len(above(i)) for i in range(n)]
    waits = [waits_on(units, i) for i in range(n)]
    meta, done, pending, events, now, free = {}, set(), set(range(n)), [], 0.0, jobs
    while pending or events:
        startable = sorted((i for i in pending if all(d in done if whole else d in meta
                                                      for d, whole in waits[i])),
                           key=lambda i: (-priority[i], i))
        for i in startable[:free]:
            pending.discard(i)
            free -= 1
            heapq.heappush(events, (now + times[i][1], 0, i))
            heapq.heappush(events, (now + times[i][0], 1, i))
        now, finished, i = heapq.heappop(events)
        meta.setdefault(i, now)
        if finished:
            done.add(i)
            free += 1
    return now


def what_if(units: list, edges: list) -> list:
    """The units with the dependencies `edges` ("UNIT=DEP", library
    names) added."""
    units = [dict(u, deps=list(u["deps"])) for u in units]
    index = {u["name"]: i for i, u in enumerate(units) if u["kind"] in ("lib", "proc-macro")}
    for edge in edges:
        unit, _, dep = edge.partition("=")
        if unit not in index or dep not in index:
            sys.exit(f"--what-if-dep {edge}: no such library unit")
        units[index[unit]]["deps"].append(index[dep])
    return units


def replays(units: list, jobs: int, edges: list, trials: int) -> None:
    measured = max(u["end"] for u in units)
    changed = what_if(units, edges)
    print(f"replayed: {replay(units, jobs):.1f} s (measured {measured:.1f} s)", end="")
    if edges:
        print(f"; with {', '.join(edges)}: {replay(changed, jobs):.1f} s", end="")
    print()
    if trials:
        rng = random.Random(1)
        walls, moved = [], []
        for _ in range(trials):
            factors = [rng.lognormvariate(0, 0.1) for _ in units]
            times = [((u["end"] - u["start"]) * f, (u["rmeta"] - u["start"]) * f)
                     for u, f in zip(units, factors)]
            walls.append(replay(units, jobs, times))
            moved.append(replay(changed, jobs, times))
        line = f"median of {trials} replays with unit times moved ±10 %: {statistics.median(walls):.1f} s"
        if edges:
            ratio = statistics.median(moved) / statistics.median(walls)
            line += f"; with the change {statistics.median(moved):.1f} s ({ratio:.3f}×)"
        print(line)


def build(crate: str, target: str) -> tuple:
    """Builds `crate` into `target` with --timings; returns the report's
    text and the unit graph."""
    env = dict(os.environ, CARGO_TARGET_DIR=target)
    subprocess.run(["cargo", "build", "-q", "--timings"], cwd=crate, env=env, check=True)
    graph = subprocess.run(["cargo", "build", "--unit-graph", "-Z", "unstable-options"], cwd=crate,
                           env=dict(env, RUSTC_BOOTSTRAP="1"), check=True,
                           capture_output=True, text=True).stdout
    html = open(os.path.join(target, "cargo-timings", "cargo-timing.html")).read()
    return html, json.loads(graph)


def self_test() -> None:
    """A made-up build on two slots: `core` (no dependencies), `client`
    pipelined on `core`'s metadata, the proc-macro `derive` linking
    `core`, `engine` on `client`'s metadata but queued behind `derive`,
    and the binary linking all. The chain must be bin ← engine ← client
    ← core, `engine` queued 1 s, `derive` waiting for all of `core`."""
    def row(name, start, duration, frontend=None, target=""):
        sections = [["frontend", {"start": 0, "end": frontend}]] if frontend else None
        return {"name": name, "target": target, "features": [], "start": start,
                "duration": duration, "sections": sections}
    rows = [row("core", 0, 4, 1), row("client", 1, 5, 2), row("derive", 4, 1),
            row("engine", 4, 4, 2), row("app", 8, 1, target=' "bin"')]
    html = "const UNIT_DATA = " + json.dumps(rows) + ";\n"

    def unit(name, kind, deps):
        return {"pkg_id": f"path+file:///x/{name}#0.1.0", "features": [], "mode": "build",
                "target": {"kind": [kind]}, "dependencies": [{"index": d} for d in deps]}
    graph = {"units": [unit("core", "lib", []), unit("client", "lib", [0]),
                       unit("derive", "proc-macro", [0]), unit("engine", "lib", [1]),
                       unit("app", "bin", [2, 3])]}
    units = join(graph, read_timings(html))
    names = [units[i]["name"] for i in chain(units)]
    assert names == ["app", "engine", "client", "core"], names
    assert ready(units, 3) == (3.0, 1), ready(units, 3)  # client's metadata at 1 + 2
    assert ready(units, 2) == (4.0, 0), ready(units, 2)  # the whole of core
    assert ready(units, 4) == (8.0, 3), ready(units, 4)  # app links core, client, engine
    # Replayed on two slots: core 0–4 (metadata at 1), client 1–6 (at 3);
    # at 4 derive and engine are ready for one slot, each with one unit
    # above it (app): the lower index, derive, 4–5; engine 5–9; app 9–10.
    assert replay(units, 2) == 10.0, replay(units, 2)
    # Engine depending on derive changes nothing (derive ran first);
    # derive depending on client lets engine take the slot at 4 (4–8),
    # derive runs after client (6–7), app 8–9.
    assert replay(what_if(units, ["engine=derive"]), 2) == 10.0
    assert replay(what_if(units, ["derive=client"]), 2) == 9.0, replay(what_if(units, ["derive=client"]), 2)
    # Cargo's order: x, y, z ready at once on two slots; z first (w depends
    # on it), then x (the lower index of the rest): z 0–1, x 0–3, y 1–4,
    # w 3–6. Least-depended-on first would give x, y 0–3, z 3–4, w 4–7.
    rows = [row("x", 0, 3), row("y", 0, 3), row("z", 0, 1), row("w", 0, 3)]
    graph = {"units": [unit("x", "lib", []), unit("y", "lib", []), unit("z", "lib", []),
                       unit("w", "lib", [2])]}
    order = join(graph, read_timings("const UNIT_DATA = " + json.dumps(rows) + ";\n"))
    assert replay(order, 2) == 6.0, replay(order, 2)
    print("self-test: the chain, the metadata and link waits, and the replay are as built")


def main() -> None:
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crate")
    parser.add_argument("--target-dir")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--timings")
    parser.add_argument("--unit-graph")
    parser.add_argument("--ours", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--replay", action="store_true")
    parser.add_argument("--what-if-dep", action="append", default=[])
    parser.add_argument("--trials", type=int, default=0)
    args = parser.parse_args()
    if args.crate:
        target = args.target_dir or tempfile.mkdtemp(prefix="build-timeline-")
        if os.listdir(target):
            sys.exit(f"{target} is not empty: a first build needs a fresh target directory")
        try:
            html, graph = build(args.crate, target)
        finally:
            if not args.keep:
                shutil.rmtree(target, ignore_errors=True)
    elif args.timings and args.unit_graph:
        html = open(args.timings).read()
        graph = json.load(open(args.unit_graph))
    else:
        parser.error("give --crate, or --timings and --unit-graph")
    units = join(graph, read_timings(html))
    report(units, args.jobs, args.ours)
    if args.replay:
        replays(units, args.jobs, args.what_if_dep, args.trials)


if __name__ == "__main__":
    main()
