//! `kubegen import` end to end on the real control plane: cert-manager's
//! published Certificate CRD (from the corpus) is imported into a fresh
//! crate with the CLI, which regenerates it identically (or exits 2), and
//! a test program compiled against the imported types and their generated
//! clients (`import_e2e/certificates.rs`) creates, reads, lists and watches
//! Certificates on the apiserver.
//!
//! Run with `cargo test -p kubegen-cli --test import_e2e -- --nocapture`.

use std::process::Command;

#[path = "support/corpus.rs"]
mod support;
use support::{corpus, repo, target_dir, write_if_changed};

#[test]
fn imported_crd_works_on_the_real_apiserver() {
    let crd = corpus().join("cert-manager/certificates.cert-manager.io.yaml");
    let krate = target_dir().join("import-e2e/crate");
    let repo = repo();
    write_if_changed(
        &krate.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"import-e2e\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[workspace]\n\n\
             [dependencies]\nkubegen-runtime = {{ path = {:?} }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n\n\
             [dev-dependencies]\nkubegen-testenv = {{ path = {:?} }}\nanyhow = \"1\"\ntokio = {{ version = \"1\", features = [\"full\"] }}\n",
            repo.join("kubegen-runtime").display().to_string(),
            repo.join("tests/kubegen-testenv").display().to_string(),
        ),
    );
    // The workspace's lock: the crate builds with the dependencies the
    // workspace already compiled.
    let lock = std::fs::read_to_string(repo.join("Cargo.lock")).unwrap();
    if !krate.join("Cargo.lock").exists() {
        write_if_changed(&krate.join("Cargo.lock"), &lock);
    }
    write_if_changed(
        &krate.join("src/lib.rs"),
        "//! cert-manager's Certificate, imported.\n\npub mod apis;\n#[rustfmt::skip]\npub mod generated;\n",
    );
    write_if_changed(
        &krate.join("tests/e2e.rs"),
        include_str!("import_e2e/certificates.rs"),
    );

    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = kubegen_cli::cli::run(
        [
            "kubegen",
            "import",
            crd.to_str().unwrap(),
            "--crate",
            krate.to_str().unwrap(),
        ]
        .map(Into::into),
        &mut out,
        &mut err,
    );
    let out = String::from_utf8_lossy(&out);
    assert_eq!(code, 0, "{out}\n{}", String::from_utf8_lossy(&err));
    assert!(
        out.contains("certificates.cert-manager.io") && out.contains("identical"),
        "{out}"
    );
    assert!(
        krate.join("src/generated/clientset/mod.rs").is_file(),
        "{out}"
    );

    let test = Command::new(env!("CARGO"))
        .args(["test", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .args(["--test", "e2e", "--", "--nocapture"])
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .unwrap();
    assert!(
        test.status.success(),
        "the imported crate's e2e failed:\n{}\n{}",
        String::from_utf8_lossy(&test.stdout),
        String::from_utf8_lossy(&test.stderr)
    );
}
