//! `src/patch/strategies.json` is what `hack/patch-strategies` writes
//! (the strategic-merge-patch metadata of the built-in Go types, as
//! `make builtin-check` checks the built-in schema table): fails when the
//! table is stale. Regenerate with `go run . > ../../kubegen-core/src/patch/strategies.json`
//! in `hack/patch-strategies`. Needs `go` (1.26) on `PATH`.

use std::path::Path;
use std::process::Command;

#[test]
fn the_strategies_table_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("go")
        .args(["run", "."])
        .current_dir(root.join("../hack/patch-strategies"))
        .output()
        .unwrap_or_else(|e| panic!("`go` (1.26) on PATH runs hack/patch-strategies: {e}"));
    assert!(
        out.status.success(),
        "go run ./hack/patch-strategies failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = String::from_utf8(out.stdout).unwrap();
    let checked_in = std::fs::read_to_string(root.join("src/patch/strategies.json")).unwrap();
    assert!(
        written == checked_in,
        "kubegen-core/src/patch/strategies.json is stale: run `go run . > ../../kubegen-core/src/patch/strategies.json` in hack/patch-strategies"
    );
}
