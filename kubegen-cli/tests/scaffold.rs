//! `kubegen new` end to end: bad input is reported (every error, exit 2)
//! with nothing written; a scaffolded crate verifies with
//! `kubegen generate --check` right away, builds on its own, and passes its
//! own tests, including its e2e test on a real control plane.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;
use support::{kubegen, text};

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn new_args<'a>(dir: &'a str, group: &'a str, version: &'a str, kind: &'a str) -> Vec<&'a str> {
    vec![
        "new",
        dir,
        "--group",
        group,
        "--version",
        version,
        "--kind",
        kind,
    ]
}

/// Every file under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            out.push(path.strip_prefix(dir).unwrap().to_path_buf());
        }
    }
    out.sort();
    out
}

#[test]
fn help_lists_the_flags() {
    let out = kubegen(&["new", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for flag in [
        "--group",
        "--version <VERSION>",
        "--kind",
        "--kubegen-path",
        "--sharded",
        "--partitions <N>",
    ] {
        assert!(help.contains(flag), "{flag} not in\n{help}");
    }
}

#[test]
fn bad_input_is_reported_in_full_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("my-operator");
    let target_str = target.to_str().unwrap();

    for (args, expected) in [
        (
            new_args(target_str, "nodot", "v1", "MyApplication"),
            vec!["--group: error: `nodot` must contain a dot"],
        ),
        (
            new_args(target_str, "UPPER.example.com", "v1", "MyApplication"),
            vec!["--group: error: `UPPER.example.com` is not a DNS subdomain"],
        ),
        (
            new_args(target_str, "stable.example.com", "1.0", "MyApplication"),
            vec!["--version: error: `1.0` is not a Kubernetes API version"],
        ),
        (
            new_args(target_str, "stable.example.com", "v1beta", "MyApplication"),
            vec!["--version: error: `v1beta`"],
        ),
        (
            new_args(target_str, "stable.example.com", "v1", "my_application"),
            vec!["--kind: error: `my_application` is not a PascalCase kind"],
        ),
        (
            new_args(target_str, "bad", "x", "y"),
            vec![
                "--group: error:",
                "--version: error:",
                "--kind: error:",
                "kubegen: 3 errors; nothing was written",
            ],
        ),
    ] {
        let out = kubegen(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        for e in expected {
            assert!(stderr.contains(e), "{args:?}: want {e:?} in\n{stderr}");
        }
        assert!(stderr.contains("nothing was written"), "{stderr}");
        assert!(!target.exists(), "{args:?} wrote {}", target.display());
    }

    // A bad kubegen tree is an error too.
    let out = kubegen(
        &[
            new_args(target_str, "stable.example.com", "v1", "MyApplication"),
            vec!["--kubegen-path", "/nonexistent"],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--kubegen-path: error: not a kubegen source tree"),
        "{}",
        text(&out.stderr)
    );
    assert!(!target.exists());

    // A directory that is not a package name.
    let odd = tmp.path().join("9lives");
    let out = kubegen(&new_args(
        odd.to_str().unwrap(),
        "stable.example.com",
        "v1",
        "MyApplication",
    ));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not a valid package name"));
    assert!(!odd.exists());

    // A non-empty directory is left exactly as it was.
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("notes.txt"), "mine").unwrap();
    let out = kubegen(&new_args(
        target_str,
        "stable.example.com",
        "v1",
        "MyApplication",
    ));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("the directory is not empty"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(tree(&target), [PathBuf::from("notes.txt")]);
    let entries: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(entries.len(), 1, "a staging directory was left behind");
}

/// With the webhook server wired in too, the crate is what `cargo fmt`
/// would make of it (without it, the test below checks).
#[test]
fn scaffolded_crate_with_webhook_server_is_rustfmt_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("hooked-operator");
    let mut args = new_args(
        dir.to_str().unwrap(),
        "stable.example.com",
        "v1",
        "MyApplication",
    );
    args.push("--webhook");
    let out = kubegen(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(dir.join("src/webhook.rs").is_file());
    support::assert_rustfmt_clean(&dir, "kubegen new --webhook");
}

#[test]
fn scaffolded_crate_verifies_builds_and_passes_its_tests() {
    // A fixed place inside the kubegen tree: the crate must build on its
    // own there too, and repeated runs reuse its build artifacts.
    let dir = Path::new(REPO).join("target/scaffold-crate/my-operator");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    // An existing empty directory is fine.
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    let dir_str = dir.to_str().unwrap();
    // The crates are not on the registry yet: depend on this tree by path
    // (the default, published versions, is covered by the unit tests).
    let repo = Path::new(REPO).canonicalize().unwrap();
    let mut args = new_args(dir_str, "stable.example.com", "v1", "MyApplication");
    args.extend(["--kubegen-path", repo.to_str().unwrap()]);
    let out = kubegen(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("created `my-operator`"));

    let files = tree(&dir);
    for expected in [
        "Cargo.toml",
        "Makefile",
        "README.md",
        "src/api.rs",
        "src/controller.rs",
        "src/main.rs",
        "tests/e2e.rs",
        "src/generated/clientset/stable_v1.rs",
        "src/generated/informers/apps_v1.rs",
        "config/crd/stable.example.com_myapplications.yaml",
        "config/rbac/role.yaml",
        "config/crd/kustomization.yaml",
        "deploy/kustomization.yaml",
        "deploy/deployment.yaml",
        "deploy/auth_delegator_binding.yaml",
        "deploy/metrics_reader_role.yaml",
        "deploy/metrics_service.yaml",
    ] {
        assert!(
            files.contains(&PathBuf::from(expected)),
            "{expected}: {files:?}"
        );
    }
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(
        readme.contains(&format!(
            "kubegen new {dir_str} --group stable.example.com --version v1 --kind MyApplication --kubegen-path {}",
            repo.display()
        )),
        "{readme}"
    );
    let crd =
        std::fs::read_to_string(dir.join("config/crd/stable.example.com_myapplications.yaml"))
            .unwrap();
    for needle in [
        "minimum: 0",
        "default: 1",
        "status: {}",
        "jsonPath: .spec.image",
    ] {
        assert!(crd.contains(needle), "{needle} not in\n{crd}");
    }
    let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    for needle in ["myapplications/status", "leases", "events"] {
        assert!(role.contains(needle), "{needle} not in\n{role}");
    }

    // Generated and verified from the start.
    let manifest = dir.join("Cargo.toml");
    let out = kubegen(&[
        "generate",
        "--check",
        "--manifest-path",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );

    // It is rustfmt-clean, builds on its own (not as a member of the
    // kubegen workspace) and its tests pass; dependencies are shared
    // across runs.
    let target_dir = Path::new(REPO).join("target/scaffold");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for args in [&["fmt", "--check"][..], &["build", "--tests"], &["test"]] {
        let out = Command::new(&cargo)
            .args(args)
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", &target_dir)
            .output()
            .expect("running cargo");
        assert!(
            out.status.success(),
            "cargo {args:?} failed:\n{}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
    }
    // Its unit tests (on the in-process API server) need no Go: they run
    // with no `go` on PATH.
    let path = std::env::var("PATH").unwrap_or_default();
    let no_go: Vec<&str> = path
        .split(':')
        .filter(|d| !Path::new(d).join("go").exists())
        .collect();
    let out = Command::new(&cargo)
        .args(["test", "--test", "reconcile"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target_dir)
        .env("PATH", no_go.join(":"))
        .output()
        .expect("running cargo");
    let log = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "the unit tests without Go:\n{log}");
    assert!(log.contains("test result: ok. 2 passed"), "{log}");
}
