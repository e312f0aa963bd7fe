//! `kubegen add` end to end, chained on one crate: `kubegen new` →
//! `kubegen add version` (twice: the second is refused, nothing written) →
//! `kubegen add webhook` → `kubegen add kind` (twice too) → `make test` in
//! the grown crate, which verifies the generated files and runs every
//! test: the conversion round trip (`src/generated/conversion.rs`), the
//! admission webhooks called by a real apiserver, the base e2e test and
//! the new kind's, whose controller writes its status. After every step
//! the crate is what `cargo fmt` would make of it.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;
use support::{assert_rustfmt_clean, kubegen, text};

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Every file under `dir` but `target/`, with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.push((path.strip_prefix(dir).unwrap().to_path_buf(), bytes));
            }
        }
    }
    out.sort();
    out
}

fn run_ok(args: &[&str]) -> String {
    let out = kubegen(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "kubegen {args:?}:\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

#[test]
fn new_then_add_version_webhook_and_kind_then_make_test() {
    // A fixed place inside the kubegen tree, sharing the dependencies
    // built by the `kubegen new` e2e test (target/scaffold).
    let parent = Path::new(REPO).join("target/scaffold-grow");
    let dir = parent.join("grown-operator");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&parent).unwrap();
    let dir = parent.canonicalize().unwrap().join("grown-operator");
    let d = dir.to_str().unwrap();
    let repo = Path::new(REPO).canonicalize().unwrap();
    run_ok(&[
        "new",
        d,
        "--group",
        "stable.example.com",
        "--version",
        "v1",
        "--kind",
        "MyApplication",
        "--kubegen-path",
        repo.to_str().unwrap(),
    ]);
    assert_rustfmt_clean(&dir, "kubegen new");

    let out = run_ok(&["add", "--dir", d, "version", "v2"]);
    assert!(out.contains("created src/api/v2.rs"), "{out}");
    assert!(out.contains("edited  src/main.rs"), "{out}");
    assert_rustfmt_clean(&dir, "kubegen add version");

    // Twice: refused, naming what exists; the crate is left as it was.
    let before = snapshot(&dir);
    let out = kubegen(&["add", "--dir", d, "version", "v2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("MyApplication v2 exists already"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(snapshot(&dir), before);

    let out = run_ok(&[
        "add",
        "--dir",
        d,
        "webhook",
        "--kind",
        "MyApplication",
        "--validating",
        "--defaulting",
    ]);
    assert!(
        out.contains("created tests/my_application_v1_webhooks.rs"),
        "{out}"
    );
    assert!(dir.join("config/webhook/manifests.yaml").is_file());
    assert_rustfmt_clean(&dir, "kubegen add webhook");

    let out = run_ok(&["add", "--dir", d, "kind", "Backup"]);
    for file in [
        "created src/api/backup.rs",
        "created src/controller/backup.rs",
        "created tests/backup_e2e.rs",
        "edited  src/main.rs",
    ] {
        assert!(out.contains(file), "{file}: {out}");
    }
    assert!(
        dir.join("config/crd/stable.example.com_backups.yaml")
            .is_file()
    );
    assert_rustfmt_clean(&dir, "kubegen add kind");
    // Twice: refused, naming where it is declared; nothing written.
    let before = snapshot(&dir);
    let out = kubegen(&["add", "--dir", d, "kind", "Backup"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("src/api/backup.rs:10:0: error: Backup (stable.example.com/v1, resource `backups`) exists already"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(snapshot(&dir), before);

    // The grown crate verifies and passes its tests, on the real plane.
    let out = Command::new("make")
        .arg("test")
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", Path::new(REPO).join("target/scaffold"))
        .output()
        .expect("running make");
    let log = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "make test failed:\n{log}");
    for test in [
        "my_application_versions_round_trip ... ok",
        "webhooks_admit_through_the_apiserver ... ok",
        "objects_are_accepted_validated_and_defaulted ... ok",
        "reconcile_reports_the_observed_generation_once ... ok",
        "the_schema_defaults_and_refuses_as_the_apiserver_does ... ok",
        "deploy_manifests_are_valid ... ok",
        "Running tests/backup_e2e.rs",
        "objects_are_accepted_validated_defaulted_and_reconciled ... ok",
    ] {
        assert!(log.contains(test), "{test} not run:\n{log}");
    }
}
