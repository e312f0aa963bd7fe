#!/usr/bin/env python3
"""Import speed over the real-CRD corpus (`hack/crd-corpus.sh`).

Runs the release `kubegen import` on every corpus project at once, as a
whole process into a fresh crate, `--runs` times, and prints the median
(and each run) with the number of CRDs and bytes of YAML read. When
`kopium` (the Rust CRD importer users have today) is on PATH, it is run
over the same files in the same run and the ratio of medians is printed;
it writes one file per CRD and proves nothing, so it is an anchor for
speed only.

    make bench-import            # or: python3 bench/import_bench.py --runs 5
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpus():
    out = subprocess.run(["bash", os.path.join(ROOT, "hack/crd-corpus.sh")],
                         check=True, capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1]


def timed(cmd, **kw):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "kubegen-cli"], cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    kubegen = os.path.join(target, "release", "kubegen")
    dir_ = corpus()
    projects = sorted(os.path.join(dir_, d) for d in os.listdir(dir_)
                      if os.path.isdir(os.path.join(dir_, d)))
    files = sorted(os.path.join(p, f) for p in projects for f in os.listdir(p))
    size = sum(os.path.getsize(f) for f in files)
    print(f"corpus: {len(projects)} projects, {len(files)} CRDs, {size / 1e6:.1f} MB of YAML")

    runs = []
    for _ in range(args.runs):
        work = tempfile.mkdtemp(prefix="kubegen-import-bench-")
        try:
            runs.append(timed([kubegen, "import", *projects, "--crate", os.path.join(work, "c"),
                               "--allow-partial"]))
        finally:
            shutil.rmtree(work)
    med = statistics.median(runs)
    print(f"kubegen import (verify every CRD, write crate, generate clients): "
          f"median {med:.2f} s over {args.runs} runs "
          f"({', '.join(f'{r:.2f}' for r in runs)}); {len(files) / med:.0f} CRDs/s")

    kopium = shutil.which("kopium")
    if kopium:
        kruns = []
        for _ in range(args.runs):
            start = time.perf_counter()
            with open(os.devnull, "w") as null:
                for f in files:
                    subprocess.run([kopium, "-f", f], check=False, stdout=null, stderr=null)
            kruns.append(time.perf_counter() - start)
        kmed = statistics.median(kruns)
        print(f"kopium -f (one process per CRD, no verification): median {kmed:.2f} s; "
              f"kubegen/kopium = {med / kmed:.2f}")
    else:
        print("kopium not on PATH (cargo install kopium) — no anchor this run", file=sys.stderr)


if __name__ == "__main__":
    main()
