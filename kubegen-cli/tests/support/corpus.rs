//! The real-CRD corpus (`hack/crd-corpus.sh`), and where tests build.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// The workspace's target directory (shared, so imported crates reuse its
/// dependencies).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"))
}

/// The corpus directory: the script's last line of output (it downloads
/// once, then reuses `~/.cache/kubegen/crd-corpus/<key>/`).
pub fn corpus() -> PathBuf {
    let out = Command::new("bash")
        .arg(repo().join("hack/crd-corpus.sh"))
        .output()
        .expect("run hack/crd-corpus.sh");
    assert!(
        out.status.success(),
        "hack/crd-corpus.sh failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    PathBuf::from(stdout.lines().last().expect("corpus path").trim())
}

/// Writes `text` unless the file already holds it (keeps cargo's
/// fingerprints fresh across runs).
pub fn write_if_changed(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap();
    }
}
