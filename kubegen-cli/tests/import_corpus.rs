//! The import round trip over a corpus of real CRDs (`hack/crd-corpus.sh`:
//! 170 CRDs of 15 projects, pulled from their Go modules at pinned
//! versions): every project is imported as a module of one crate, the
//! crate is type-checked by rustc (`cargo check`: the derives' compile-time
//! checks run), `kubegen generate` writes its CRDs, and each is compared
//! with the original node for node. A table per project (CRDs, identical,
//! differing, refused and why) is printed and written to
//! `target/import-corpus/report.md`.
//!
//! Run with `cargo test -p kubegen-cli --test import_corpus -- --nocapture`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use kubegen_cli::import::{self, Verdict};
use serde_json::Value;

#[path = "support/corpus.rs"]
mod support;
use support::{corpus, repo, target_dir, write_if_changed};

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[derive(Default)]
struct Row {
    crds: usize,
    identical: usize,
    differing: Vec<String>,
    refused: Vec<String>,
    verbatim: usize,
}

#[test]
fn imported_corpus_compiles_and_regenerates_the_same_crds() {
    let corpus = corpus();
    let mut projects: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    projects.sort();
    assert!(
        projects.len() >= 10,
        "corpus has {} projects",
        projects.len()
    );

    let work = target_dir().join("import-corpus");
    let krate = work.join("crate");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    let modules: Vec<String> = projects
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().replace('-', "_"))
        .collect();
    let runtime = repo().join("kubegen-runtime").canonicalize().unwrap();
    write_if_changed(
        &krate.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"import-corpus\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[workspace]\n\n[dependencies]\nkubegen-runtime = {{ path = {:?} }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n",
            runtime.display().to_string()
        ),
    );
    let mut lib = String::from("//! Every corpus project's APIs, imported.\n\n");
    for m in &modules {
        lib.push_str(&format!("pub mod {m};\n"));
    }
    lib.push_str("#[rustfmt::skip]\npub mod generated;\n");
    write_if_changed(&krate.join("src/lib.rs"), &lib);

    // Import every project (the import proves each CRD in process first).
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut originals: BTreeMap<String, (String, Value)> = BTreeMap::new();
    let started = std::time::Instant::now();
    for (project, module) in projects.iter().zip(&modules) {
        let name = project.file_name().unwrap().to_string_lossy().into_owned();
        let imported = import::import(&import::Options {
            inputs: vec![project.clone()],
            crate_dir: krate.clone(),
            module: module.clone(),
            kubegen_path: None,
            strict: false,
        })
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        kubegen_cli::files::write(&krate, &imported.files).unwrap();
        let row = rows.entry(name.clone()).or_default();
        for r in &imported.reports {
            row.crds += 1;
            row.verbatim += r.explicit_nodes;
            match &r.verdict {
                Verdict::Refused(why) => row.refused.push(format!("{}: {why}", r.name)),
                _ => {
                    originals.insert(r.name.clone(), (name.clone(), yaml(&r.file)));
                }
            }
        }
    }
    let import_time = started.elapsed();

    // `kubegen generate` on the crate, as a user runs it.
    let manifest = krate.join("Cargo.toml");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = kubegen_cli::cli::run(
        [
            "kubegen",
            "generate",
            "--manifest-path",
            manifest.to_str().unwrap(),
        ]
        .map(Into::into),
        &mut out,
        &mut err,
    );
    assert_eq!(
        code,
        0,
        "kubegen generate:\n{}",
        String::from_utf8_lossy(&err)
    );

    // rustc agrees: the crate type-checks (derive-time checks included).
    let started = std::time::Instant::now();
    let check = Command::new(env!("CARGO"))
        .args(["check", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .unwrap();
    let check_time = started.elapsed();
    assert!(
        check.status.success(),
        "the imported crate does not compile:\n{}",
        String::from_utf8_lossy(&check.stderr)
    );

    // Compare what `kubegen generate` wrote with the originals.
    let mut regenerated = 0;
    for entry in std::fs::read_dir(krate.join("config/crd"))
        .unwrap()
        .flatten()
    {
        let crd = yaml(&entry.path());
        let name = crd["metadata"]["name"].as_str().unwrap().to_owned();
        let Some((project, original)) = originals.remove(&name) else {
            continue;
        };
        regenerated += 1;
        let row = rows.get_mut(&project).unwrap();
        let differences = import::compare(&original, &crd);
        if differences.is_empty() {
            row.identical += 1;
        } else {
            row.differing.push(format!(
                "{name}: {}",
                differences
                    .iter()
                    .take(3)
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
    }
    for (name, (project, _)) in &originals {
        rows.get_mut(project)
            .unwrap()
            .differing
            .push(format!("{name}: not regenerated"));
    }

    let mut report = String::from(
        "| project | CRDs | identical | differing | refused | nodes written verbatim |\n|---|---|---|---|---|---|\n",
    );
    let (mut total, mut identical) = (0, 0);
    for (project, row) in &rows {
        total += row.crds;
        identical += row.identical;
        report.push_str(&format!(
            "| {project} | {} | {} | {} | {} | {} |\n",
            row.crds,
            row.identical,
            row.differing.len(),
            row.refused.len(),
            row.verbatim
        ));
    }
    report.push_str(&format!(
        "| **total** | {total} | {identical} ({:.1} %) | | | |\n\nimport of all projects: {:.2} s; cargo check of the imported crate: {:.1} s; {regenerated} CRDs regenerated\n",
        100.0 * identical as f64 / total as f64,
        import_time.as_secs_f64(),
        check_time.as_secs_f64(),
    ));
    for (project, row) in &rows {
        for d in &row.differing {
            report.push_str(&format!("\n- {project}: differing: {d}"));
        }
        for r in &row.refused {
            report.push_str(&format!("\n- {project}: refused: {r}"));
        }
    }
    println!("{report}");
    std::fs::write(work.join("report.md"), &report).unwrap();
    assert!(total >= 100, "the corpus has {total} CRDs");
    assert!(
        identical * 100 >= total * 95,
        "only {identical} of {total} CRDs round-trip identically:\n{report}"
    );
}
