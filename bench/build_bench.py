#!/usr/bin/env python3
"""Times what a user waits for when building: a minimal operator crate on
kubegen against the same crate on kube-rs, side by side.

Writes two crates into a temporary directory, each declaring one custom
resource (a spec and a status) and printing its CRD:

  - kubegen: `kubegen-runtime` from this tree (the `kubegen` library),
    serde and serde_json, the resource derived with
    `#[derive(CustomResource)]`;
  - kube-rs: `kube` 5 with `derive`, `runtime` and `client` (the same TLS
    features kubegen's runtime enables), k8s-openapi, schemars, serde and
    serde_json, the resource derived with kube's `CustomResource` and
    `JsonSchema`.

Both crates get their dependencies as a user's crate gets them from
crates.io: kubegen's crates are packaged (`cargo package`, as `make
package` does) and put, with every registry crate both graphs need, in one
directory source that replaces crates.io for both (`cargo vendor`). So
kubegen's crates build as registry crates do (not incrementally, no
source-file checks on a rebuild), and rustc names every crate as it would
for a crates.io user: the crate hashes, which decide among other things
which upstream crate a debug build takes a shared generic instance from
(and so which libraries a debug binary links), do not depend on where this
repository is checked out. Each crate starts from this workspace's
Cargo.lock, so both build the same versions of what they share.

For every run, for each crate in turn (the order alternating from run to
run): a first `cargo build` (debug, the default profile) into a fresh
target directory, then the rebuild after a one-line edit of the spec (a
field's doc comment). Prints the median of RUNS wall times of each and,
for the first build, the number of compilation units (`.fingerprint`
entries) and the CPU time (user + system seconds of cargo and of every
process it ran: the build's work, which a busy machine's scheduling moves
less than the wall time, though a machine's speed moves it too). Then the same two crates grown into operators (a controller
each, applying a ConfigMap per object) are built once and rebuilt after
each edit the same way. Lines starting with BENCH are for bench/run_all.py. Nothing here
fails on a time.

usage: bench/build_bench.py [--runs 3] [--keep DIR]
"""
import argparse
import hashlib
import json
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

KUBEGEN_MANIFEST = """[package]
name = "build-bench-kubegen"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
kubegen = {{ package = "kubegen-runtime", {source} }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[workspace]
"""


def published():
    """The workspace's published crates, as the Makefile lists them for
    `make package` (their manifests name one another, so all are packaged)."""
    for line in (ROOT / "Makefile").read_text().splitlines():
        if line.startswith("PUBLISHED = "):
            return line.split("=", 1)[1].split()
    sys.exit("no PUBLISHED list in the Makefile")


# Both crates read every dependency from the vendored directory.
SOURCE_CONFIG = """[source.crates-io]
replace-with = "vendored"

[source.vendored]
directory = "{vendor}"
"""

KUBEGEN_TYPES = """/// A web application.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "example.com", version = "v1", kind = "Web", namespaced, status = "WebStatus")]
#[serde(rename_all = "camelCase")]
pub struct WebSpec {
    /// EDIT: the container image.
    pub image: String,
    /// The number of replicas.
    pub replicas: i32,
}

/// What the controller observed.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct WebStatus {
    /// Ready replicas.
    pub ready_replicas: i32,
}
"""

KUBEGEN_MAIN = """use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

""" + KUBEGEN_TYPES + """
fn main() {
    println!("{}", serde_json::to_string_pretty(&Web::crd().unwrap()).unwrap());
}
"""

KUBE_MANIFEST = """[package]
name = "build-bench-kube"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
kube = {{ version = "{kube}", default-features = false, features = ["client", "rustls-tls", "ring", "runtime", "derive"] }}
k8s-openapi = {{ version = "{k8s_openapi}", features = ["{k8s_feature}"] }}
schemars = "1"
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[workspace]
"""

KUBE_TYPES = """/// A web application.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Web", namespaced, status = "WebStatus")]
#[serde(rename_all = "camelCase")]
pub struct WebSpec {
    /// EDIT: the container image.
    pub image: String,
    /// The number of replicas.
    pub replicas: i32,
}

/// What the controller observed.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebStatus {
    /// Ready replicas.
    pub ready_replicas: i32,
}
"""

KUBE_MAIN = """use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

""" + KUBE_TYPES + """
fn main() {
    println!("{}", serde_json::to_string_pretty(&Web::crd()).unwrap());
}
"""


# The same crates grown into an operator: a controller that applies a
# ConfigMap for each Web (kubegen's `Manager` and `Controller`; kube's
# `Controller`), the CRD still printed first. What a user edits and
# rebuilds day to day.
KUBEGEN_OPERATOR_MAIN = """use std::sync::Arc;

use kubegen::k8s_openapi::api::core::v1::ConfigMap;
use kubegen::api::Patch;
use kubegen::{Action, Controller, CustomResource, KubeSchema, Manager, ResourceClient};
use serde::{Deserialize, Serialize};

""" + KUBEGEN_TYPES + """
async fn reconcile(web: Arc<Web>, client: Arc<kubegen::Client>) -> Result<Action, kubegen::ClientError> {
    let namespace = web.metadata.namespace.clone().unwrap_or_default();
    let name = web.metadata.name.clone().unwrap_or_default();
    let config_maps = ResourceClient::<ConfigMap>::namespaced((*client).clone(), &namespace);
    let config_map = serde_json::json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name},
        "data": {"image": web.spec.image},
    });
    config_maps.patch(&name, &Patch::Apply(&config_map)).await?;
    Ok(Action::done())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", serde_json::to_string_pretty(&Web::crd().unwrap()).unwrap());
    let client = kubegen::Client::try_default().await?;
    let mut manager = Manager::builder(client.clone()).build().await?;
    let factory = manager.factory().clone();
    let controller = Controller::builder(factory.informer::<Web>())
        .owns(factory.informer::<ConfigMap>())
        .reconcile(reconcile, Arc::new(client));
    manager.add(controller);
    manager.run().await?;
    Ok(())
}
"""

KUBE_OPERATOR_MAIN = """use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::runtime::{Controller, watcher};
use kube::{Api, Client, CustomResource, CustomResourceExt, ResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

""" + KUBE_TYPES + """
async fn reconcile(web: Arc<Web>, client: Arc<Client>) -> Result<Action, kube::Error> {
    let namespace = web.namespace().unwrap_or_default();
    let name = web.name_any();
    let config_maps: Api<ConfigMap> = Api::namespaced((*client).clone(), &namespace);
    let config_map = serde_json::json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name},
        "data": {"image": web.spec.image},
    });
    config_maps.patch(&name, &PatchParams::apply("web"), &Patch::Apply(&config_map)).await?;
    Ok(Action::await_change())
}

fn error_policy(_: Arc<Web>, _: &kube::Error, _: Arc<Client>) -> Action {
    Action::requeue(Duration::from_secs(5))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", serde_json::to_string_pretty(&Web::crd()).unwrap());
    let client = Client::try_default().await?;
    Controller::new(Api::<Web>::all(client.clone()), watcher::Config::default())
        .owns(Api::<ConfigMap>::all(client.clone()), watcher::Config::default())
        .run(reconcile, error_policy, Arc::new(client))
        .for_each(|_| futures::future::ready(()))
        .await;
    Ok(())
}
"""

# What each operator adds to its minimal crate's dependencies.
OPERATOR_DEPENDENCIES = {
    "kubegen": 'tokio = { version = "1", features = ["macros", "rt-multi-thread"] }\n',
    "kube-rs": 'tokio = { version = "1", features = ["macros", "rt-multi-thread"] }\nfutures = "0.3"\n',
}


def workspace_version(name):
    """The version requirement of `name` in the workspace's Cargo.toml."""
    for line in (ROOT / "Cargo.toml").read_text().splitlines():
        if line.startswith(f"{name} ="):
            return line.split('version = "', 1)[1].split('"', 1)[0]
    sys.exit(f"{name} not in the workspace's dependencies")


def k8s_openapi_feature():
    for line in (ROOT / "Cargo.toml").read_text().splitlines():
        if line.startswith("k8s-openapi ="):
            return line.split('features = ["', 1)[1].split('"', 1)[0]
    sys.exit("k8s-openapi not in the workspace's dependencies")


def prepare(cmd, cwd, what):
    """Runs a preparation step (outside the timings); exits on failure."""
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        sys.exit(f"{what} failed")
    return result.stdout


def kubegen_version():
    for line in (ROOT / "Cargo.toml").read_text().splitlines():
        if line.startswith("version = "):
            return line.split('"')[1]
    sys.exit("no workspace version in Cargo.toml")


def vendor(base, kube_rs_crate):
    """The directory source both crates build from: kubegen's packaged
    crates and every registry crate of both graphs (the kubegen crate's
    graph resolved once with path dependencies on this tree)."""
    crates = published()
    packages = base / "package-target"
    prepare(["cargo", "package", "-q", "--no-verify", "--allow-dirty", "--target-dir", str(packages)]
        + [arg for crate in crates for arg in ("-p", crate)], ROOT, "cargo package")
    resolve = base / "resolve-kubegen"
    (resolve / "src").mkdir(parents=True)
    (resolve / "Cargo.toml").write_text(
        KUBEGEN_MANIFEST.format(source=f'path = "{ROOT / "kubegen-runtime"}"'))
    (resolve / "src" / "main.rs").write_text(KUBEGEN_MAIN)
    shutil.copy(ROOT / "Cargo.lock", resolve / "Cargo.lock")
    directory = base / "vendor"
    prepare(["cargo", "vendor", "-q", "--manifest-path", str(resolve / "Cargo.toml"),
         "-s", str(kube_rs_crate / "Cargo.toml"), str(directory)], base, "cargo vendor")
    version = kubegen_version()
    for crate in crates:
        archive = packages / "package" / f"{crate}-{version}.crate"
        with tarfile.open(archive) as tar:
            tar.extractall(directory, filter="data")
        checksum = hashlib.sha256(archive.read_bytes()).hexdigest()
        (directory / f"{crate}-{version}" / ".cargo-checksum.json").write_text(
            json.dumps({"files": {}, "package": checksum}))
    shutil.rmtree(packages)
    shutil.rmtree(resolve)
    return directory


def write_crates(base):
    crates = {
        "kubegen": (KUBEGEN_MANIFEST.format(source=f'version = "={kubegen_version()}"'), KUBEGEN_MAIN),
        "kube-rs": (KUBE_MANIFEST.format(kube=workspace_version("kube"),
                                         k8s_openapi=workspace_version("k8s-openapi"),
                                         k8s_feature=k8s_openapi_feature()), KUBE_MAIN),
    }
    for name, (manifest, main) in crates.items():
        crate = base / name
        (crate / "src").mkdir(parents=True)
        (crate / "Cargo.toml").write_text(manifest)
        (crate / "src" / "main.rs").write_text(main)
        shutil.copy(ROOT / "Cargo.lock", crate / "Cargo.lock")
    operators = {"kubegen": KUBEGEN_OPERATOR_MAIN, "kube-rs": KUBE_OPERATOR_MAIN}
    for name, main in operators.items():
        crate = base / f"{name}-operator"
        (crate / "src").mkdir(parents=True)
        manifest = (base / name / "Cargo.toml").read_text().replace(
            "\n[workspace]", OPERATOR_DEPENDENCIES[name] + "\n[workspace]")
        (crate / "Cargo.toml").write_text(manifest)
        (crate / "src" / "main.rs").write_text(main)
        shutil.copy(ROOT / "Cargo.lock", crate / "Cargo.lock")
    directory = vendor(base, base / "kube-rs")
    for name in [*crates, *(f"{n}-operator" for n in operators)]:
        (base / name / ".cargo").mkdir()
        (base / name / ".cargo" / "config.toml").write_text(SOURCE_CONFIG.format(vendor=directory))
    return ({name: base / name for name in crates},
            {name: base / f"{name}-operator" for name in operators})


def cpu_of_children():
    """User + system CPU seconds of the waited-for child processes so far
    (cargo and every rustc, build script and linker it ran)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build(crate, target):
    """Wall seconds of `cargo build`, and the CPU seconds it used."""
    began, cpu = time.monotonic(), cpu_of_children()
    result = subprocess.run(["cargo", "build", "-q"], cwd=crate,
                            env=dict(os.environ, CARGO_TARGET_DIR=str(target)),
                            capture_output=True, text=True)
    elapsed = time.monotonic() - began
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        sys.exit(f"cargo build failed in {crate}")
    return elapsed, cpu_of_children() - cpu


def edit(crate, run):
    """A one-line change of the spec: the first field's doc comment."""
    main = crate / "src" / "main.rs"
    text = main.read_text()
    start = text.index("/// EDIT")
    end = text.index("\n", start)
    main.write_text(text[:start] + f"/// EDIT {run}: the container image." + text[end:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", help="write the crates here and keep them")
    args = parser.parse_args()
    base = pathlib.Path(args.keep) if args.keep else pathlib.Path(tempfile.mkdtemp(prefix="kubegen-build-bench-"))
    try:
        crates, operators = write_crates(base)
        # Resolve (and fetch) once outside the timings.
        for crate in [*crates.values(), *operators.values()]:
            subprocess.run(["cargo", "fetch", "-q"], cwd=crate, check=True)
        first = {name: [] for name in crates}
        first_cpu = {name: [] for name in crates}
        rebuild = {name: [] for name in crates}
        units = {}
        for run in range(args.runs):
            order = list(crates.items())
            if run % 2:
                order.reverse()
            for name, crate in order:
                target = base / f"target-{name}"
                shutil.rmtree(target, ignore_errors=True)
                wall, cpu = build(crate, target)
                first[name].append(wall)
                first_cpu[name].append(cpu)
                fingerprints = [d.name for d in (target / "debug" / ".fingerprint").iterdir()]
                units[name] = len(fingerprints)
                if name == "kubegen":
                    # The derive's graph and the operator's share one copy
                    # of kubegen-core when their features agree.
                    cores = sum(1 for d in fingerprints if d.startswith("kubegen-core-"))
                    print(f"run {run + 1}: kubegen-core compiled {cores} time(s)", flush=True)
                edit(crate, run)
                rebuild[name].append(build(crate, target)[0])
                print(f"run {run + 1}: {name}: first build {first[name][-1]:.1f} s "
                      f"({units[name]} units, {first_cpu[name][-1]:.1f} s of CPU), "
                      f"rebuild after an edit {rebuild[name][-1]:.2f} s",
                      flush=True)
        # The operators: built once (not timed), then rebuilt after each
        # edit, in alternating order.
        operator_rebuild = {name: [] for name in operators}
        for name, crate in operators.items():
            target = base / f"target-{name}-operator"
            shutil.rmtree(target, ignore_errors=True)
            build(crate, target)
        for run in range(args.runs):
            order = list(operators.items())
            if run % 2:
                order.reverse()
            for name, crate in order:
                edit(crate, run)
                operator_rebuild[name].append(build(crate, base / f"target-{name}-operator")[0])
                print(f"run {run + 1}: {name} operator: rebuild after an edit "
                      f"{operator_rebuild[name][-1]:.2f} s", flush=True)
        kube = workspace_version("kube")
        f = {name: statistics.median(v) for name, v in first.items()}
        c = {name: statistics.median(v) for name, v in first_cpu.items()}
        r = {name: statistics.median(v) for name, v in rebuild.items()}
        print(f"BENCH\tbuild, minimal operator crate: first debug build, kubegen vs kube-rs {kube} "
              f"({units['kubegen']} vs {units['kube-rs']} units)\t{f['kubegen']:.1f}\t{f['kube-rs']:.1f}\ts")
        print(f"BENCH\tbuild, minimal operator crate: first debug build's CPU time (user + system), "
              f"kubegen vs kube-rs {kube}\t{c['kubegen']:.1f}\t{c['kube-rs']:.1f}\ts")
        print(f"BENCH\tbuild, minimal operator crate: rebuild after editing the spec, kubegen vs kube-rs {kube}"
              f"\t{r['kubegen']:.2f}\t{r['kube-rs']:.2f}\ts")
        o = {name: statistics.median(v) for name, v in operator_rebuild.items()}
        print(f"BENCH\tbuild, operator crate (a controller applying a ConfigMap per object): rebuild after "
              f"editing the spec, kubegen vs kube-rs {kube}\t{o['kubegen']:.2f}\t{o['kube-rs']:.2f}\ts")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
