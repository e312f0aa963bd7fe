#!/usr/bin/env python3
"""Times `kubegen generate` against the Go generators on the same API.

Builds the kubegen CLI (release), installs controller-gen and code-generator
(applyconfiguration-gen, client-gen, lister-gen, informer-gen: what
`kubegen generate` writes, typed apply configurations included) from the
Go module proxy into
~/.cache/kubegen/go-tools/<versions>/bin, writes the synthetic 50-kind API
(synthetic_api.py) in both languages, runs every generator RUNS times after
one warm-up run and prints median wall times side by side. Then times
kubegen alone on larger APIs (--scale, default 200 and 1,000 kinds) to show
how its cost grows. Lines starting with BENCH are for bench/run_all.py.

usage: bench/codegen_bench.py [--runs 5] [--groups 5] [--kinds 10] [--scale 200,1000]
"""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONTROLLER_TOOLS = "v0.23.0"
CODE_GENERATOR = "v0.36.3"


def run(cmd, cwd=None, env=None, quiet=True):
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=quiet, text=True)
    if result.returncode != 0:
        sys.stderr.write(f"command failed ({result.returncode}): {' '.join(map(str, cmd))}\n")
        if quiet:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        sys.exit(1)
    return result


def install_go_tools():
    cache = pathlib.Path(os.environ.get("KUBEGEN_CACHE_DIR", pathlib.Path.home() / ".cache/kubegen"))
    bin_dir = cache / "go-tools" / f"controller-tools-{CONTROLLER_TOOLS}_code-generator-{CODE_GENERATOR}" / "bin"
    tools = {
        "controller-gen": f"sigs.k8s.io/controller-tools/cmd/controller-gen@{CONTROLLER_TOOLS}",
        "client-gen": f"k8s.io/code-generator/cmd/client-gen@{CODE_GENERATOR}",
        "lister-gen": f"k8s.io/code-generator/cmd/lister-gen@{CODE_GENERATOR}",
        "informer-gen": f"k8s.io/code-generator/cmd/informer-gen@{CODE_GENERATOR}",
        "applyconfiguration-gen": f"k8s.io/code-generator/cmd/applyconfiguration-gen@{CODE_GENERATOR}",
    }
    env = dict(os.environ, GOBIN=str(bin_dir), GOTOOLCHAIN="local", CGO_ENABLED="0")
    for name, module in tools.items():
        if not (bin_dir / name).exists():
            print(f"installing {module}", file=sys.stderr)
            run(["go", "install", module], env=env)
    return bin_dir


def timed(label, cmd_sets, runs, reset, cwd):
    """Runs the commands in cmd_sets in sequence, once to warm up and `runs`
    times measured; `reset` is called before each run. Returns the median."""
    samples = []
    for i in range(runs + 1):
        reset()
        start = time.perf_counter()
        for cmd in cmd_sets:
            run(cmd, cwd=cwd)
        elapsed = time.perf_counter() - start
        if i > 0:
            samples.append(elapsed)
    median = statistics.median(samples)
    print(f"  {label:<44} median {median * 1000:9.1f} ms  "
          f"(min {min(samples) * 1000:.1f}, max {max(samples) * 1000:.1f}, n={runs})", flush=True)
    return median


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--groups", type=int, default=5)
    parser.add_argument("--kinds", type=int, default=10)
    parser.add_argument("--scale", default="200,1000",
                        help="comma-separated kind counts timed for kubegen alone ('' for none)")
    args = parser.parse_args()

    print("building kubegen (release)", file=sys.stderr)
    run(["cargo", "build", "--release", "-q", "-p", "kubegen-cli", "--bin", "kubegen"], cwd=ROOT, quiet=False)
    kubegen = ROOT / "target" / "release" / "kubegen"
    go_bin = install_go_tools()

    work = pathlib.Path(tempfile.mkdtemp(prefix="kubegen-bench-"))
    run([sys.executable, ROOT / "bench" / "synthetic_api.py", work,
         "--groups", str(args.groups), "--kinds", str(args.kinds)])
    go = work / "go"
    run(["gofmt", "-w", "."], cwd=go)
    run(["go", "mod", "tidy"], cwd=go)
    kinds = args.groups * args.kinds
    print(f"synthetic API: {kinds} kinds in {args.groups} groups ({work})")

    rust = work / "rust"

    def reset_rust():
        for d in ("config", "src/generated"):
            shutil.rmtree(rust / d, ignore_errors=True)

    print("kubegen:")
    ours = timed(
        f"kubegen generate ({kinds} kinds)",
        [[kubegen, "generate", "--manifest-path", rust / "Cargo.toml"]],
        args.runs, reset_rust, rust)
    example = ROOT / "examples" / "my-application"
    if (example / "Cargo.toml").exists():
        out = pathlib.Path(tempfile.mkdtemp(prefix="kubegen-bench-example-"))
        timed(
            "kubegen generate (example, into a temp dir)",
            [[kubegen, "generate", "--manifest-path", example / "Cargo.toml", "--out-dir", out]],
            args.runs, lambda: shutil.rmtree(out, ignore_errors=True), example)
        shutil.rmtree(out, ignore_errors=True)

    pkgs = [f"example.com/synthetic/apis/g{g}/v1" for g in range(args.groups)]
    header = go / "hack" / "boilerplate.go.txt"

    def reset_go():
        shutil.rmtree(go / "generated", ignore_errors=True)
        shutil.rmtree(go / "config", ignore_errors=True)
        for p in (go / "apis").glob("*/v1/zz_generated.deepcopy.go"):
            p.unlink()

    controller_gen = [go_bin / "controller-gen", f"object:headerFile={header}", "crd",
                      "paths=./apis/...", "output:crd:dir=config/crd"]
    # kubegen generate writes typed apply configurations for server-side
    # apply, and a clientset whose clients apply them: the Go side of the
    # same output is applyconfiguration-gen and client-gen told of it.
    applyconfiguration_gen = [go_bin / "applyconfiguration-gen", "--go-header-file", header,
                              "--output-dir", "generated/applyconfiguration",
                              "--output-pkg", "example.com/synthetic/generated/applyconfiguration", *pkgs]
    client_gen = [go_bin / "client-gen", "--go-header-file", header, "--clientset-name", "versioned",
                  "--input-base", "", "--output-dir", "generated/clientset",
                  "--output-pkg", "example.com/synthetic/generated/clientset",
                  "--apply-configuration-package", "example.com/synthetic/generated/applyconfiguration"]
    for p in pkgs:
        client_gen += ["--input", p]
    lister_gen = [go_bin / "lister-gen", "--go-header-file", header, "--output-dir", "generated/listers",
                  "--output-pkg", "example.com/synthetic/generated/listers", *pkgs]
    informer_gen = [go_bin / "informer-gen", "--go-header-file", header,
                    "--versioned-clientset-package", "example.com/synthetic/generated/clientset/versioned",
                    "--listers-package", "example.com/synthetic/generated/listers",
                    "--output-dir", "generated/informers",
                    "--output-pkg", "example.com/synthetic/generated/informers", *pkgs]
    print("Go generators:")
    timed("controller-gen object+crd", [controller_gen], args.runs, reset_go, go)
    # Each code-generator tool needs deepcopy output present to type-check.
    prepare = lambda: (reset_go(), run(controller_gen, cwd=go))
    timed("applyconfiguration-gen", [applyconfiguration_gen], args.runs, prepare, go)
    timed("client-gen", [client_gen], args.runs, prepare, go)
    timed("lister-gen", [lister_gen], args.runs, prepare, go)
    timed("informer-gen", [informer_gen], args.runs, prepare, go)
    go_total = timed("all five, as `make update-codegen` runs them",
                     [controller_gen, applyconfiguration_gen, client_gen, lister_gen, informer_gen],
                     args.runs, reset_go, go)
    print(f"ratio: Go generators / kubegen on {kinds} kinds = {go_total / ours:.1f}x")
    print(f"BENCH\tcodegen, {kinds} kinds: kubegen generate vs controller-gen {CONTROLLER_TOOLS} + "
          f"applyconfiguration/client/lister/informer-gen {CODE_GENERATOR} (ms)\t{ours * 1000:.1f}\t{go_total * 1000:.1f}\tms")
    shutil.rmtree(work, ignore_errors=True)
    points = [(kinds, ours)]
    for n in [int(x) for x in args.scale.split(",") if x.strip()]:
        big = pathlib.Path(tempfile.mkdtemp(prefix=f"kubegen-bench-{n}-"))
        run([sys.executable, ROOT / "bench" / "synthetic_api.py", big,
             "--groups", str(max(1, n // args.kinds)), "--kinds", str(args.kinds)])
        crate = big / "rust"

        def reset_big():
            for d in ("config", "src/generated"):
                shutil.rmtree(crate / d, ignore_errors=True)

        median = timed(f"kubegen generate ({n} kinds)",
                       [[kubegen, "generate", "--manifest-path", crate / "Cargo.toml"]],
                       args.runs, reset_big, crate)
        points.append((n, median))
        print(f"BENCH\tcodegen, {n} kinds: kubegen generate (ms)\t{median * 1000:.1f}\t-\tms")
        shutil.rmtree(big, ignore_errors=True)
    if len(points) > 1:
        print("kubegen cost per kind: " + ", ".join(
            f"{n} kinds {t * 1000 / n:.2f} ms/kind" for n, t in points))


if __name__ == "__main__":
    main()
