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
    let bad_list_kind = dir.path().join("list.yaml");
    std::fs::write(
        &bad_list_kind,
        std::fs::read_to_string(fixture())
            .unwrap()
            .replace("listKind: WidgetList", "listKind: Widget_List"),
    )
    .unwrap();
    for (input, expected) in [
        (
            not_a_crd.as_path(),
            "no apiextensions.k8s.io/v1 CustomResourceDefinition",
        ),
        (broken.as_path(), "invalid YAML"),
        (dir.path().join("missing.yaml").as_path(), "cannot read"),
        (bad_list_kind.as_path(), "list_kind \"Widget_List\""),
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

/// Imports `yaml` into a fresh crate: the exit code, stdout + stderr, the
/// regenerated CRD's differences from the input and the crate's directory.
fn import_text(yaml: &str, extra: &[&str]) -> (i32, String, Vec<String>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crd.yaml");
    std::fs::write(&input, yaml).unwrap();
    let krate = dir.path().join("c");
    let mut args = vec![input.to_str().unwrap(), "--crate", krate.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&args);
    let crd = krate.join("config/crd/example.com_widgets.yaml");
    let differences = match std::fs::read_to_string(&crd) {
        Ok(text) => kubegen_cli::import::compare(
            &serde_yaml::from_str(yaml).unwrap(),
            &serde_yaml::from_str(&text).unwrap(),
        )
        .iter()
        .map(ToString::to_string)
        .collect(),
        Err(_) => vec!["no CRD written".into()],
    };
    (code, format!("{out}{err}"), differences, dir)
}

#[test]
fn what_the_apiserver_accepts_imports_unchanged() {
    let widgets = std::fs::read_to_string(fixture()).unwrap();
    let (v1, _) = widgets.split_once("  - name: v1beta1\n").unwrap();
    let cases = [
        (
            "a pattern in RE2 syntax that Rust's regex reads differently",
            widgets.replace(
                "                pattern: '^[a-z]+$'\n",
                "                pattern: '^[^()<>@,;:\\\\\"\\/[\\]?={} \\t\\x7f\\x00]+$'\n",
            ),
        ),
        (
            "x-kubernetes-validations on the root schema",
            widgets.replace(
                "        description: A Widget is a thing with parts.\n",
                "        description: A Widget is a thing with parts.\n        \
                 x-kubernetes-validations:\n        - rule: self.metadata.name.size() < 64\n          \
                 message: names are short\n",
            ),
        ),
        (
            "a printer column naming a field the schema lacks",
            widgets.replace(
                "      jsonPath: .spec.size\n",
                "      jsonPath: .spec.size\n    - name: Ghost\n      type: string\n      \
                 jsonPath: .spec.ghost\n",
            ),
        ),
        (
            "conversionReviewVersions without v1",
            widgets.replace(
                "  scope: Namespaced\n",
                "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n    webhook:\n      \
                 conversionReviewVersions: [v1beta1]\n      clientConfig:\n        \
                 service: {name: w, namespace: ns, path: /convert, port: 443}\n",
            ),
        ),
        (
            "a scale subresource at fields the schema lacks",
            widgets.replace(
                "      status: {}\n",
                "      status: {}\n      scale: {specReplicasPath: .spec.min, \
                 statusReplicasPath: .status.replicas, labelSelectorPath: .spec.selector}\n",
            ),
        ),
        (
            "a listKind other than <Kind>List",
            widgets.replace("    listKind: WidgetList\n", "    listKind: Widgets\n"),
        ),
        (
            "a kind with a dash",
            widgets.replace(
                "    kind: Widget\n    listKind: WidgetList\n",
                "    kind: wid-get\n    listKind: wid-getList\n",
            ),
        ),
        (
            "a lower-case kind",
            widgets.replace(
                "    kind: Widget\n    listKind: WidgetList\n",
                "    kind: widget\n    listKind: widgetList\n",
            ),
        ),
        (
            "a version whose schema is only {type: object}",
            format!(
                "{v1}  - name: v1beta1\n    served: true\n    storage: false\n    schema:\n      \
                 openAPIV3Schema:\n        type: object\n"
            ),
        ),
    ];
    for (what, yaml) in cases {
        assert_ne!(yaml, widgets, "{what}: the fixture changed");
        let (code, output, differences, dir) = import_text(&yaml, &[]);
        assert_eq!(code, 0, "{what}: {output}");
        assert!(output.contains("identical"), "{what}: {output}");
        assert_eq!(differences, Vec::<String>::new(), "{what}");
        if what.starts_with("a printer column") {
            let v1 =
                std::fs::read_to_string(dir.path().join("c/src/apis/example_com/v1/widget.rs"))
                    .unwrap();
            let compact: String = v1.split_whitespace().collect();
            assert!(
                compact.contains("json_path=\".spec.ghost\",unchecked)"),
                "{v1}"
            );
        }
        if what == "a lower-case kind" {
            let v1 =
                std::fs::read_to_string(dir.path().join("c/src/apis/example_com/v1/widget.rs"))
                    .unwrap();
            assert!(
                v1.contains("kind = \"widget\"") && v1.contains("pub struct WidgetSpec"),
                "{v1}"
            );
            // The type `Widget` of the kind `widget`, beside its module.
            let mod_rs =
                std::fs::read_to_string(dir.path().join("c/src/apis/example_com/v1/mod.rs"))
                    .unwrap();
            assert!(
                mod_rs.contains("pub mod widget;") && mod_rs.contains("pub use widget::Widget;"),
                "{mod_rs}"
            );
        }
    }
}

#[test]
fn a_webhook_service_without_path_or_port_stays_without() {
    let yaml = std::fs::read_to_string(fixture()).unwrap().replace(
        "  scope: Namespaced\n",
        "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n    webhook:\n      \
         conversionReviewVersions: [v1]\n      clientConfig:\n        caBundle: Cg==\n        \
         service: {name: widget-webhook, namespace: widgets}\n",
    );
    let (code, output, differences, dir) = import_text(&yaml, &[]);
    assert_eq!(code, 0, "{output}");
    assert_eq!(differences, Vec::<String>::new());
    let crd =
        std::fs::read_to_string(dir.path().join("c/config/crd/example.com_widgets.yaml")).unwrap();
    let crd: serde_json::Value = serde_yaml::from_str(&crd).unwrap();
    assert_eq!(
        crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"],
        serde_json::json!({"name": "widget-webhook", "namespace": "widgets"})
    );
}

#[test]
fn documents_that_are_not_v1_crds_are_named_never_skipped_silently() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(input.join("old")).unwrap();
    std::fs::copy(fixture(), input.join("widgets.yaml")).unwrap();
    std::fs::write(
        input.join("old/gadgets.yaml"),
        "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n\
         metadata: {name: gadgets.example.com}\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
    )
    .unwrap();
    let krate = dir.path().join("c");
    let (code, out, err) = run(&[input.to_str().unwrap(), "--crate", krate.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let gadgets = input.join("old/gadgets.yaml").display().to_string();
    for expected in [
        format!("{gadgets}: warning: gadgets.example.com is an apiextensions.k8s.io/v1beta1"),
        format!("{gadgets}: warning: settings (apiVersion `v1`, kind `ConfigMap`)"),
    ] {
        assert!(err.contains(&expected), "{expected}: {err}");
    }
    assert!(out.contains("widgets.example.com"), "{out}");

    let krate = dir.path().join("strict");
    let (code, _, err) = run(&[
        input.to_str().unwrap(),
        "--crate",
        krate.to_str().unwrap(),
        "--strict",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{gadgets}: error: gadgets.example.com"))
            && err.contains("settings (apiVersion")
            && err.contains("nothing was written"),
        "{err}"
    );
    assert!(!krate.exists());
}
