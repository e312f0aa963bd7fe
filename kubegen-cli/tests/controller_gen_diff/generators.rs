//! Running both generators: controller-gen (installed from the Go module
//! proxy into `~/.cache/kubegen/go-tools/controller-tools-<version>/bin`,
//! at the version `bench/codegen_bench.py` pins) over a copy of the Go twin
//! module, and `kubegen generate` / `kubegen crd` over the Rust twins.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The controller-tools version `bench/codegen_bench.py` pins (one pin for
/// the benchmark and this test).
pub fn controller_tools_version() -> String {
    let bench = std::fs::read_to_string(Path::new(ROOT).join("bench/codegen_bench.py")).unwrap();
    bench
        .lines()
        .find_map(|l| l.strip_prefix("CONTROLLER_TOOLS = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("bench/codegen_bench.py pins CONTROLLER_TOOLS = \"v…\"")
        .to_owned()
}

/// The checked-in twin module: Go types, the Rust twin crate, the
/// differences file.
pub const TWINS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/controller-gen-diff");

/// The workspace root.
pub const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Go commands with the environment both tools need: the local toolchain,
/// no workspace file, no cgo.
fn go_command(program: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("GOTOOLCHAIN", "local")
        .env("GOWORK", "off")
        .env("CGO_ENABLED", "0");
    cmd
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// controller-gen, installed on first use (Go is a prerequisite of the
/// test suite: the control plane is built with it).
pub fn controller_gen() -> PathBuf {
    let version = controller_tools_version();
    kubegen_testenv::go_install(
        &Path::new(&format!("controller-tools-{version}")).join("bin"),
        &format!("sigs.k8s.io/controller-tools/cmd/controller-gen@{version}"),
        "controller-gen",
    )
    .unwrap()
}

/// Copies the tree at `from` to `to`, leaving out `skip` (file names).
pub fn copy_tree(from: &Path, to: &Path, skip: &[&str]) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        let target = to.join(name);
        if path.is_dir() {
            copy_tree(&path, &target, skip);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// Every YAML document under `dir`, parsed, by `metadata.name`.
fn read_crds(dir: &Path) -> BTreeMap<String, Value> {
    let mut crds = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let crd: Value = serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if crd["kind"] != "CustomResourceDefinition" {
            continue;
        }
        let name = crd["metadata"]["name"].as_str().unwrap().to_owned();
        crds.insert(name, crd);
    }
    crds
}

/// controller-gen's CRDs for the Go module at `module`, with more `crd`
/// generator `options` (`",maxDescLen=30"`) when given.
pub fn run_controller_gen(module: &Path, out: &Path, options: &str) -> BTreeMap<String, Value> {
    run(go_command(&controller_gen())
        .current_dir(module)
        // The generated packages may import modules the checked-in go.sum
        // does not list: let the go command add them to this copy.
        .env("GOFLAGS", "-mod=mod")
        .arg(format!(
            "crd:generateEmbeddedObjectMeta=true,allowDangerousTypes=true{options}"
        ))
        .arg("paths=./...")
        .arg(format!("output:crd:dir={}", out.display())));
    read_crds(out)
}

/// kubegen's CRDs for the crate at `krate` (`kubegen generate`).
pub fn run_kubegen_generate(krate: &Path) -> BTreeMap<String, Value> {
    run(Command::new(env!("CARGO_BIN_EXE_kubegen"))
        .arg("generate")
        .arg("--manifest-path")
        .arg(krate.join("Cargo.toml")));
    read_crds(&krate.join("config/crd"))
}

/// kubegen's CRD for `kind` of the crate at `manifest` (`kubegen crd`).
pub fn run_kubegen_crd(manifest: &Path, kind: &str) -> Value {
    let yaml = run(Command::new(env!("CARGO_BIN_EXE_kubegen"))
        .arg("crd")
        .arg(kind)
        .arg("--manifest-path")
        .arg(manifest));
    serde_yaml::from_str(&yaml).unwrap()
}
