//! Shared by the CLI's integration tests: running the `kubegen` binary and
//! copying the `shop` fixture crate.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// The golden fixture crate.
pub const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/shop");

/// Runs the CLI with `args` from the test's working directory.
pub fn kubegen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kubegen"))
        .args(args)
        .output()
        .expect("running kubegen")
}

/// Runs the CLI in `dir`, as a user in that directory would.
pub fn kubegen_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kubegen"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running kubegen")
}

/// Command output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Copies the tree at `from` to `to` (created).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// A scratch crate named `name` in a new temporary directory: a
/// `Cargo.toml`, `src/lib.rs` declaring `mod api;`, and `src/api.rs` with
/// `api`.
pub fn scratch_crate(name: &str, api: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\n"),
    )
    .unwrap();
    std::fs::write(root.join("src/lib.rs"), "mod api;\n").unwrap();
    std::fs::write(root.join("src/api.rs"), api).unwrap();
    dir
}

/// Fails unless `cargo fmt --check` passes in `dir`, as a user's CI runs
/// it (`after` names the step).
pub fn assert_rustfmt_clean(dir: &Path, after: &str) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["fmt", "--check"])
        .current_dir(dir)
        .output()
        .expect("running cargo fmt");
    assert!(
        out.status.success(),
        "after {after}, `cargo fmt --check` wants:\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}
