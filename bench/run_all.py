#!/usr/bin/env python3
"""Runs every comparison against kubegen's peers in one go and prints one
table of medians and ratios (`make bench`).

Each benchmark runs its peer in the same run on the same machine (same
control plane or identically configured ones) and prints lines

    BENCH <TAB> what (both sides' versions) <TAB> kubegen <TAB> peer <TAB> unit

which are collected here. Ratios are kubegen / peer: below 1 means kubegen
uses less (time, memory, CPU) than the peer. Nothing here fails on a time;
a benchmark that fails is reported and the others still run.

usage: bench/run_all.py [--quick] [--only codegen,build,workqueue,informer,scale,sharded]
                        [--scale-apps 1000,5000]
"""
import argparse
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def benches(args):
    runs = "3" if args.quick else "5"
    scale_apps = "300" if args.quick else args.scale_apps
    return {
        "codegen": ([sys.executable, str(ROOT / "bench" / "codegen_bench.py"), "--runs", runs]
                    + (["--scale", "200"] if args.quick else []), {}),
        "build": ([sys.executable, str(ROOT / "bench" / "build_bench.py"), "--runs",
                   "1" if args.quick else "3"], {}),
        "workqueue": (["cargo", "bench", "-q", "-p", "kubegen-runtime", "--bench", "workqueue"], {}),
        "informer": (["cargo", "bench", "-q", "-p", "kubegen-runtime", "--bench", "informer_memory"],
                     {"INFORMER_BENCH_OBJECTS": "2000"} if args.quick else {}),
        "scale": (["cargo", "bench", "-q", "-p", "my-application-bench", "--bench", "scale"],
                  dict({"SCALE_APPS": scale_apps},
                       **({"SCALE_PACED": "60", "SCALE_STEADY_SECS": "10"} if args.quick else {}))),
        # One replica against three sharded ones (server- and client-side
        # filtering) at 10,000 applications; its own table.
        "sharded": (["cargo", "bench", "-q", "-p", "my-application-bench", "--bench",
                     "sharded_scale"],
                    {"SHARDED_SCALE_APPS": "300"} if args.quick else {}),
    }


def run(name, cmd, extra_env):
    """Streams the benchmark's output and returns its BENCH rows."""
    print(f"\n=== {name}: {' '.join(cmd)} {' '.join(f'{k}={v}' for k, v in extra_env.items())}",
          flush=True)
    began = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=dict(os.environ, **extra_env),
                            stdout=subprocess.PIPE, text=True)
    rows = []
    for line in proc.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        if line.startswith("BENCH\t"):
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 5:
                rows.append((name, fields[1], fields[2], fields[3], fields[4]))
    code = proc.wait()
    print(f"=== {name}: exit {code} after {time.monotonic() - began:.0f} s", flush=True)
    return rows, code


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def ratio(a, b):
    """kubegen / peer to three significant digits (0.0045x, not 0.00x), or
    "-" when either side has no number or the peer's is zero."""
    if a is None or not b:
        return "-"
    return f"{a / b:.3g}x"


def table(rows):
    out = ["| bench | comparison | kubegen | peer | unit | ratio kubegen/peer |",
           "|---|---|---|---|---|---|"]
    for bench, what, ours, peer, unit in rows:
        a, b = number(ours), number(peer)
        out.append(f"| {bench} | {what} | {ours} | {peer} | {unit} | {ratio(a, b)} |")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true",
                        help="smaller sizes and fewer runs, for trying the pipeline")
    parser.add_argument("--only", default="", help="comma-separated subset of benches")
    parser.add_argument("--scale-apps", default="1000,5000",
                        help="MyApplication counts of the operator comparison")
    args = parser.parse_args()
    chosen = benches(args)
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in chosen]
        if unknown:
            sys.exit(f"unknown bench(es) {unknown}; choose from {sorted(chosen)}")
        chosen = {n: chosen[n] for n in wanted}
    rows, failed = [], []
    for name, (cmd, extra_env) in chosen.items():
        got, code = run(name, cmd, extra_env)
        rows += got
        if code != 0:
            failed.append(name)
    print("\n## kubegen against its peers (medians, same machine, same run)\n")
    print(table(rows))
    if "scale" in chosen:
        # How much of the operator's code layout still applies (see
        # bench/layout/order.py): its peak RSS depends on it.
        subprocess.run([sys.executable, str(ROOT / "bench" / "layout" / "order.py"), "--check"],
                       cwd=ROOT)
    if failed:
        print(f"\nfailed: {', '.join(failed)} (their rows may be missing; see the output above)")
        sys.exit(1)


if __name__ == "__main__":
    main()
