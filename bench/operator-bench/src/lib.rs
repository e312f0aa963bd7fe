//! What the scale benchmark and the chaos soak share: the example
//! operator's binary, built as its users build it (and, in release builds,
//! laid out for its working set), and its CRD and ClusterRole installed on
//! a control plane.
//!
//! The benchmarks drive `my-application-controller`, the binary of the
//! `my-application` package. Cargo gives a test or bench the path of a
//! binary of its own package only (`CARGO_BIN_EXE_<name>`), so
//! [`operator_binary`] asks cargo to build that binary and returns the
//! path cargo reports.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use anyhow::{Context as _, Result, bail};
use k8s_openapi::api::rbac::v1::ClusterRole;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen::api::{Api, Patch, PatchParams};
use kubegen::conditions::find_condition;
use my_application::api::{MyApplication, MyApplicationSpec, MyApplicationStatus};

/// The example operator's package and binary.
const PACKAGE: &str = "my-application";
const BINARY: &str = "my-application-controller";

/// The functions a traced scale run executed, in the order rust-lld places
/// them at the start of `.text` (`bench/layout/order.py` writes it).
pub const ORDER_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/layout/my-application-controller.order"
);

/// The workspace root.
fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The example's directory (its `config/`).
pub fn example_dir() -> PathBuf {
    workspace().join("examples/my-application")
}

/// The path of `my-application-controller`, built once per process with
/// `cargo rustc -p my-application --bin my-application-controller`: only
/// the example's own features, as `cargo build -p my-application` (and its
/// container image) builds it. When this crate is built without debug
/// assertions (`cargo bench`, `--release`) so is the binary: with the
/// workspace's [`OPERATOR_PROFILE`] (release, optimised for size), as the
/// image builds it, and on x86_64 Linux with the code layout of
/// [`ORDER_FILE`] (`--symbol-ordering-file`, see `docs/performance.md`).
pub fn operator_binary() -> Result<PathBuf> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| build_operator().map_err(|e| format!("{e:#}")))
        .clone()
        .map_err(anyhow::Error::msg)
}

/// The profile the container image builds the operator with, in the
/// workspace's `Cargo.toml`: release optimised for size.
pub const OPERATOR_PROFILE: &str = "operator";

/// The link argument the container image's release build passes: PIE
/// relocations packed (`DT_RELR`, glibc 2.36, the image's base), so the
/// loader reads a few kilobytes of relocations instead of ~570 KB that stay
/// resident in every replica.
const PACKED_RELOCATIONS: &str = "-Wl,-z,pack-relative-relocs";

/// The code generation flag the container image's release build passes:
/// the C library linked in (a static PIE). A replica then maps no shared
/// libc, libm, libgcc or loader — about 2 MiB resident in every replica,
/// since the kernel maps 64 KiB of a library around each first touch —
/// but only the C functions it calls, placed by [`ORDER_FILE`] with its
/// own. Name lookups still read `/etc/hosts` and DNS (glibc builds its
/// `files` and `dns` sources in; nothing is loaded at run time). Passed to
/// the binary's own compilation: the link is decided there.
const STATIC_C_LIBRARY: &str = "target-feature=+crt-static";

/// x86_64 Linux with glibc and rust-lld, where the flags above
/// are known to work.
fn linux_gnu() -> bool {
    cfg!(all(
        target_arch = "x86_64",
        target_os = "linux",
        target_env = "gnu"
    ))
}

/// Whether the binary is laid out by [`ORDER_FILE`]: release builds for
/// x86_64 Linux (rust-lld), when the file exists.
fn ordered(release: bool) -> bool {
    release && linux_gnu() && Path::new(ORDER_FILE).exists()
}

fn build_operator() -> Result<PathBuf> {
    let release = !cfg!(debug_assertions);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    // Without the variables Cargo sets for the bench or test running this:
    // build scripts (ring's, cc's) ask to rerun when they change, so the
    // outer and this cargo would rebuild half the graph for each other.
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(set_by_cargo_for_targets) {
            command.env_remove(name);
        }
    }
    command
        .current_dir(workspace())
        .args(["rustc", "-p", PACKAGE, "--bin", BINARY])
        .arg("--message-format=json-render-diagnostics");
    if release {
        command.args(["--profile", OPERATOR_PROFILE]);
    }
    // Only the binary's own compilation gets these, not its dependencies.
    let mut codegen = Vec::new();
    if release && linux_gnu() {
        // As the container image builds it (`examples/my-application/Dockerfile`).
        codegen.push(STATIC_C_LIBRARY.to_string());
        codegen.push(format!("link-arg={PACKED_RELOCATIONS}"));
    }
    if ordered(release) {
        let order = order_file_by_content()?;
        codegen.push(format!(
            "link-arg=-Wl,--symbol-ordering-file={}",
            order.display()
        ));
        codegen.push("link-arg=-Wl,--no-warn-symbol-ordering".to_string());
    }
    if !codegen.is_empty() {
        command.arg("--");
        for flag in codegen {
            command.args(["-C".to_string(), flag]);
        }
    }
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("running cargo to build {BINARY}"))?;
    if !output.status.success() {
        bail!("cargo failed to build {BINARY} ({})", output.status);
    }
    executable(&String::from_utf8_lossy(&output.stdout))
        .with_context(|| format!("cargo reported no executable for {BINARY}"))
}

/// A copy of [`ORDER_FILE`] under the target directory, named by a hash of
/// its content. Cargo relinks when a crate's arguments change, not when a
/// file they name does: linked with `ORDER_FILE`'s own path, a binary kept
/// the layout of the list it was first linked with after the list was
/// regenerated.
fn order_file_by_content() -> Result<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"));
    content_addressed(Path::new(ORDER_FILE), &target.join("layout"))
}

/// A copy of `source` in `dir` named by its stem and a hash of its content
/// (written once, atomically).
fn content_addressed(source: &Path, dir: &Path) -> Result<PathBuf> {
    let content =
        std::fs::read_to_string(source).with_context(|| format!("reading {}", source.display()))?;
    // The runtime's FNV-1a: stable across Rust versions, unlike std's hasher.
    let hash = kubegen::sharding::shard_hash(&content);
    let stem = source
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("file");
    let path = dir.join(format!("{stem}-{hash:016x}.order"));
    if !path.exists() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let staged = dir.join(format!(".{stem}-{hash:016x}.{}", std::process::id()));
        std::fs::write(&staged, &content)
            .with_context(|| format!("writing {}", staged.display()))?;
        std::fs::rename(&staged, &path)
            .with_context(|| format!("renaming {} to {}", staged.display(), path.display()))?;
    }
    Ok(path)
}

/// Whether Cargo sets environment variable `name` for the crates it
/// compiles and the targets it runs (not a setting of Cargo itself, as
/// `CARGO_HOME` or `CARGO_TARGET_DIR` are).
fn set_by_cargo_for_targets(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_CFG_")
        || matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_MANIFEST_LINKS"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "CARGO_TARGET_TMPDIR"
                | "CARGO_RUSTC_CURRENT_DIR"
                | "OUT_DIR"
        )
}

/// The executable of [`BINARY`] in cargo's JSON messages.
fn executable(messages: &str) -> Option<PathBuf> {
    messages.lines().find_map(|line| {
        let message: serde_json::Value = serde_json::from_str(line).ok()?;
        (message["reason"] == "compiler-artifact" && message["target"]["name"] == BINARY)
            .then(|| message["executable"].as_str().map(PathBuf::from))?
    })
}

/// The controller-runtime peer's binary (`bench/peer-go`), built by its
/// `build.sh` into the cache on first use.
pub fn peer_binary() -> Result<PathBuf> {
    let build = Command::new("bash")
        .arg(workspace().join("bench/peer-go/build.sh"))
        .stderr(Stdio::inherit())
        .output()
        .context("building the controller-runtime peer")?;
    if !build.status.success() {
        bail!("bench/peer-go/build.sh failed ({})", build.status);
    }
    Ok(PathBuf::from(
        String::from_utf8_lossy(&build.stdout)
            .lines()
            .last()
            .context("build.sh printed no path")?,
    ))
}

/// Applies the example's CRD and its generated ClusterRole
/// (`my-application-controller`; idempotent).
pub async fn install(admin: &kubegen::Client) -> Result<()> {
    kubegen_testenv::install_crd(admin, &MyApplication::crd()?).await?;
    let role_yaml = std::fs::read_to_string(example_dir().join("config/rbac/role.yaml"))?;
    let value: serde_json::Value =
        serde_yaml::from_str(&role_yaml).context("parsing the generated ClusterRole")?;
    let role: ClusterRole = serde_json::from_value(value)?;
    Api::<ClusterRole>::all(admin.clone())
        .patch(
            BINARY,
            &PatchParams::apply("operator-e2e").force(),
            &Patch::Apply(&role),
        )
        .await?;
    Ok(())
}

/// Returns once the apiserver no longer holds creates of MyApplications.
///
/// While a CRD became Established less than 2 s ago (by its condition's
/// `lastTransitionTime`, in whole seconds), the apiserver holds every
/// create of its custom resources for 2 s before serving it
/// (apiextensions-apiserver's `customresource_handler.go`: a guard for HA
/// apiservers that have not yet seen the CRD). Without this wait, whichever
/// operator leads sooner after the install has its first applications
/// created 2 s late, and a bench would count that against it.
pub async fn wait_out_create_hold(admin: &kubegen::Client) -> Result<()> {
    let name = MyApplication::crd()?.metadata.name.unwrap_or_default();
    let crd = Api::<CustomResourceDefinition>::all(admin.clone())
        .get(&name)
        .await?;
    let established = crd
        .status
        .and_then(|s| s.conditions)
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.type_ == "Established" && c.status == "True")
        .and_then(|c| c.last_transition_time)
        .context("the CRD has no Established condition")?;
    let until = established.0 + CREATE_HOLD;
    let left = until.duration_since(k8s_openapi::jiff::Timestamp::now());
    if left.is_positive() {
        tokio::time::sleep(left.unsigned_abs()).await;
    }
    Ok(())
}

/// How long after its CRD's Established transition the apiserver holds
/// creates of custom resources.
const CREATE_HOLD: k8s_openapi::jiff::SignedDuration =
    k8s_openapi::jiff::SignedDuration::from_secs(2);

/// An application the operator makes Ready: one nginx replica on port 80,
/// what the benchmarks and the hostile test create.
pub fn application(name: &str) -> MyApplication {
    MyApplication::new(
        name,
        MyApplicationSpec {
            image: "nginx".into(),
            replicas: 1,
            port: 80,
        },
    )
}

/// The status of condition `type_`, if present.
pub fn condition<'a>(status: &'a MyApplicationStatus, type_: &str) -> Option<&'a str> {
    find_condition(&status.conditions, type_).map(|c| c.status.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nested_cargo_keeps_its_settings_but_not_the_outer_targets_variables() {
        for name in [
            "CARGO_PKG_NAME",
            "CARGO_PKG_VERSION_MAJOR",
            "CARGO_MANIFEST_DIR",
            "CARGO_CRATE_NAME",
            "OUT_DIR",
        ] {
            assert!(set_by_cargo_for_targets(name), "{name}");
        }
        for name in [
            "CARGO",
            "CARGO_HOME",
            "CARGO_TARGET_DIR",
            "CARGO_INCREMENTAL",
            "CARGO_PROFILE_RELEASE_LTO",
            "PATH",
        ] {
            assert!(!set_by_cargo_for_targets(name), "{name}");
        }
    }

    /// The linker's ordering file is named by its content, so that a
    /// regenerated list changes the link arguments and Cargo relinks.
    #[test]
    fn a_changed_order_file_gets_another_path() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("op.order");
        let copies = dir.path().join("layout");
        std::fs::write(&source, "a\nb\n").unwrap();
        let first = content_addressed(&source, &copies).unwrap();
        assert_eq!(std::fs::read_to_string(&first).unwrap(), "a\nb\n");
        assert_eq!(content_addressed(&source, &copies).unwrap(), first);
        std::fs::write(&source, "a\nc\n").unwrap();
        let second = content_addressed(&source, &copies).unwrap();
        assert_ne!(second, first);
        assert_eq!(std::fs::read_to_string(&second).unwrap(), "a\nc\n");
        // Nothing staged is left behind.
        let mut names: Vec<_> = std::fs::read_dir(&copies)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names.len(), 2);
        assert!(
            names
                .iter()
                .all(|n| n.starts_with("op-") && n.ends_with(".order")),
            "{names:?}"
        );
    }
}
