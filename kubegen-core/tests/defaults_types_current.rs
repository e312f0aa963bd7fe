//! `src/defaults/types.json` is what `hack/builtin-defaults` writes (the
//! Go shape and `+default=` markers of the built-in types the defaults
//! module covers): fails when the table is stale. Regenerate with `go run
//! . > ../../kubegen-core/src/defaults/types.json` in
//! `hack/builtin-defaults`. Needs `go` (1.26) on `PATH`.

use std::path::Path;
use std::process::Command;

#[test]
fn the_defaults_table_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("go")
        .args(["run", "."])
        .current_dir(root.join("../hack/builtin-defaults"))
        .output()
        .unwrap_or_else(|e| panic!("`go` (1.26) on PATH runs hack/builtin-defaults: {e}"));
    assert!(
        out.status.success(),
        "go run ./hack/builtin-defaults failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = String::from_utf8(out.stdout).unwrap();
    let checked_in = std::fs::read_to_string(root.join("src/defaults/types.json")).unwrap();
    assert!(
        written == checked_in,
        "kubegen-core/src/defaults/types.json is stale: run `go run . > ../../kubegen-core/src/defaults/types.json` in hack/builtin-defaults"
    );
}
