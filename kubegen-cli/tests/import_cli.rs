//! `kubegen import` as a user runs it: a crate is created around the
//! imported types and regenerates the CRD; bad input exits 2 and writes
//! nothing; files kubegen did not write are never replaced.

use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/widgets.yaml")
}

fn run(args: &[&str]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut all = vec!["kubegen", "import"];
    all.extend_from_slice(args);
    let code = kubegen_cli::cli::run(all.into_iter().map(Into::into), &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn creates_a_crate_that_regenerates_the_crd() {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("widgets-api");
    let (code, out, err) = run(&[
        fixture().to_str().unwrap(),
        "--crate",
        krate.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("widgets.example.com") && out.contains("identical"),
        "{out}"
    );
    let files = tree(&krate);
    for f in [
        "Cargo.toml",
        "src/lib.rs",
        "src/apis/mod.rs",
        "src/apis/example_com/v1/widget.rs",
        "src/apis/example_com/v1beta1/widget.rs",
        "config/crd/example.com_widgets.yaml",
        "src/generated/clientset/mod.rs",
    ] {
        assert!(files.iter().any(|x| x == f), "{f} missing: {files:?}");
    }
    let v1 = std::fs::read_to_string(krate.join("src/apis/example_com/v1/widget.rs")).unwrap();
    // Idiomatic types: a unit enum, IntOrString, a typed list item, a map.
    for expected in [
        "pub enum WidgetSize",
        "pub size: WidgetSize,",
        "default_json = r#\"\"fast\"\"#",
        "#[serde(rename = \"x-large\")]",
        "IntOrString",
        "pub parts: Option<Vec<WidgetParts>>",
        "pub r#type: Option<String>",
        "BTreeMap<String, ",
        "/// How big.",
        "status = \"WidgetStatus\"",
    ] {
        assert!(v1.contains(expected), "`{expected}` not in:\n{v1}");
    }
    // The regenerated CRD is the original, node for node.
    let original: serde_json::Value =
        serde_yaml::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    let regenerated: serde_json::Value = serde_yaml::from_str(
        &std::fs::read_to_string(krate.join("config/crd/example.com_widgets.yaml")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        kubegen_cli::import::compare(&original, &regenerated),
        vec![]
    );

    // Importing again changes nothing.
    let (code, out, _) = run(&[
        fixture().to_str().unwrap(),
        "--crate",
        krate.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("kubegen import: 0 written"), "{out}");
}

#[test]
fn bad_input_exits_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("c");
    let not_a_crd = dir.path().join("ns.yaml");
    std::fs::write(
        &not_a_crd,
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n",
    )
    .unwrap();
    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, "kind: [").unwrap();
    let other_list_kind = dir.path().join("list.yaml");
    std::fs::write(
        &other_list_kind,
        std::fs::read_to_string(fixture())
            .unwrap()
            .replace("listKind: WidgetList", "listKind: Widgets"),
    )
    .unwrap();
    for (input, expected) in [
        (
            not_a_crd.as_path(),
            "no apiextensions.k8s.io/v1 CustomResourceDefinition",
        ),
        (broken.as_path(), "invalid YAML"),
        (dir.path().join("missing.yaml").as_path(), "cannot read"),
        (other_list_kind.as_path(), "listKind `Widgets`"),
    ] {
        let (code, _, err) = run(&[input.to_str().unwrap(), "--crate", krate.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(expected), "{expected}: {err}");
        assert!(err.contains("nothing was written"), "{err}");
        assert!(!krate.exists(), "{input:?} wrote {:?}", tree(&krate));
    }
    let (code, _, err) = run(&[
        fixture().to_str().unwrap(),
        "--crate",
        krate.to_str().unwrap(),
        "--module",
        "not-a-module",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(!krate.exists());
}

#[test]
fn hand_written_files_are_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"mine\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(krate.join("src/apis")).unwrap();
    std::fs::write(krate.join("src/lib.rs"), "pub mod apis;\n").unwrap();
    let mine = "//! My own module.\npub mod example_com;\n";
    std::fs::write(krate.join("src/apis/mod.rs"), mine).unwrap();
    let before = tree(krate);
    let (code, _, err) = run(&[
        fixture().to_str().unwrap(),
        "--crate",
        krate.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("src/apis/mod.rs"), "{err}");
    assert_eq!(tree(krate), before, "{err}");
    assert_eq!(
        std::fs::read_to_string(krate.join("src/apis/mod.rs")).unwrap(),
        mine
    );
}

#[test]
fn a_conversion_webhook_served_elsewhere_is_kept_without_a_converter() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("widgets.yaml");
    std::fs::write(
        &input,
        std::fs::read_to_string(fixture()).unwrap().replace(
            "  scope: Namespaced\n",
            "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n    webhook:\n      \
             conversionReviewVersions: [v1, v1beta1]\n      clientConfig:\n        caBundle: Cg==\n        \
             service: {name: widget-webhook, namespace: widgets, path: /convert, port: 9443}\n",
        ),
    )
    .unwrap();
    let krate = dir.path().join("c");
    let (code, out, err) = run(&[input.to_str().unwrap(), "--crate", krate.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let v1 = std::fs::read_to_string(krate.join("src/apis/example_com/v1/widget.rs")).unwrap();
    assert!(v1.contains("external"), "{v1}");
    let compact: String = v1.split_whitespace().collect();
    assert!(
        compact.contains("review_versions=[\"v1\",\"v1beta1\"]"),
        "{v1}"
    );
    assert!(!v1.contains("allow_lossy_versions"), "{v1}");
    let crd = std::fs::read_to_string(krate.join("config/crd/example.com_widgets.yaml")).unwrap();
    assert!(
        crd.contains("strategy: Webhook") && crd.contains("port: 9443"),
        "{crd}"
    );
    assert!(
        !krate.join("src/generated/conversion.rs").exists(),
        "no converter for a webhook this crate does not serve"
    );
}
