//! The commands a CI job runs on a crate's CRDs. `kubegen check` in a git
//! repository: the CRDs generated now against those of a tagged release
//! (and of a directory), breaking changes refused until an
//! `allow_breaking` attribute says why. `kubegen docs`: the reference and
//! editor schemas, kept current.

mod support;

use std::path::Path;
use std::process::Command;

use support::{kubegen_in, text};

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git")
        .status
        .success();
    assert!(ok, "git {args:?}");
}

fn api(fields: &str, attrs: &str) -> String {
    format!(
        r#"use kubegen::CustomResource;
/// A widget.
#[derive(CustomResource)]
#[kubegen(group = "example.com", version = "v1", kind = "Widget", namespaced)]
{attrs}
pub struct WidgetSpec {{
{fields}
}}
"#
    )
}

#[test]
fn breaking_changes_since_a_release_are_refused_until_allowed() {
    let dir = support::scratch_crate("widgets", "");
    let root = dir.path();
    let v1 = "    pub replicas: i32,\n    pub legacy: Option<String>,\n";
    std::fs::write(root.join("src/api.rs"), api(v1, "")).unwrap();
    let generate = |root: &Path| {
        let out = kubegen_in(root, &["generate"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    };
    generate(root);
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "v1"]);
    git(root, &["tag", "v0.1.0"]);
    let released = tempfile::tempdir().unwrap();
    support::copy_dir(&root.join("config/crd"), released.path());

    // Unchanged: nothing to report.
    let out = kubegen_in(root, &["check", "--against", "v0.1.0"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("0 breaking changes against v0.1.0 (0 allowed, 0 safe)"));

    let v2 =
        "    #[kubegen(maximum = 10)]\n    pub replicas: i32,\n    pub extra: Option<String>,\n";
    std::fs::write(root.join("src/api.rs"), api(v2, "")).unwrap();
    for against in ["v0.1.0", released.path().to_str().unwrap()] {
        let out = kubegen_in(root, &["check", "--against", against]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
        for line in [
            "widgets.example.com\n",
            "  BREAKING field-removed v1 .spec.legacy: ",
            "  BREAKING bound-tightened v1 .spec.replicas: .spec.replicas gains maximum 10",
            "  safe     field-added v1 .spec.extra: ",
            "2 breaking changes against",
        ] {
            assert!(stdout.contains(line), "{line:?} in\n{stdout}");
        }
    }
    let out = kubegen_in(root, &["check", "--against", "v0.1.0", "--output", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["refused"], 2);
    let ids: Vec<&str> = report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "field-removed v1 .spec.legacy",
            "bound-tightened v1 .spec.replicas",
            "field-added v1 .spec.extra"
        ]
    );

    // Allowed, with reasons: accepted; a stale allowance is reported.
    let allow = "#[kubegen(allow_breaking = \"field-removed v1 .spec.legacy: unused since v0.0.3\")]\n\
                 #[kubegen(allow_breaking = \"bound-tightened v1 .spec.replicas: more never worked\")]\n\
                 #[kubegen(allow_breaking = \"field-removed v1 .spec.gone: stale\")]";
    std::fs::write(root.join("src/api.rs"), api(v2, allow)).unwrap();
    let out = kubegen_in(root, &["check", "--against", "v0.1.0"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("  allowed  field-removed v1 .spec.legacy: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("(allowed: unused since v0.0.3)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("warning: allow_breaking \"field-removed v1 .spec.gone: stale\" names no breaking change"),
        "{stdout}"
    );

    // An allowance must say why, and name a rule.
    let bad = "#[kubegen(allow_breaking = \"field-removed v1 .spec.legacy\")]";
    std::fs::write(root.join("src/api.rs"), api(v2, bad)).unwrap();
    let out = kubegen_in(root, &["check", "--against", "v0.1.0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("must name the change and say why"),
        "{}",
        text(&out.stderr)
    );
    let typo = "#[kubegen(allow_breaking = \"field-remove v1 .spec.legacy: typo\")]";
    std::fs::write(root.join("src/api.rs"), api(v2, typo)).unwrap();
    let out = kubegen_in(root, &["check", "--against", "v0.1.0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("did you mean field-removed?"),
        "{}",
        text(&out.stderr)
    );

    // Neither a directory nor a ref.
    let out = kubegen_in(root, &["check", "--against", "v9.9.9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("neither a directory nor a git ref"),
        "{}",
        text(&out.stderr)
    );
}

/// `kubegen docs` writes the reference and the editor schemas, `--check`
/// finds them stale after an API change, and with `docs-dir` set
/// `generate --check` guards them too.
#[test]
fn docs_are_written_from_the_crds_and_kept_current() {
    let dir = support::scratch_crate("widgets", "");
    let root = dir.path();
    let manifest = "[package]\nname = \"widgets\"\nversion = \"0.1.0\"\n";
    let fields =
        "    /// How many.\n    #[kubegen(minimum = 1, default = 1)]\n    pub replicas: i32,\n";
    std::fs::write(root.join("src/api.rs"), api(fields, "")).unwrap();
    let out = kubegen_in(root, &["docs"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(root.join("docs/api/example.com/v1.md")).unwrap();
    assert!(
        page.contains("#### `.spec.replicas`\n\ninteger (int32) · optional · default `1` · at least 1\n\nHow many.\n"),
        "{page}"
    );
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("docs/api/schemas/example.com/widget_v1.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        schema["properties"]["spec"]["properties"]["replicas"]["minimum"],
        1
    );
    assert_eq!(schema["x-kubegen-crate"], "widgets");
    let out = kubegen_in(root, &["docs", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let changed = "    #[kubegen(minimum = 2, default = 2)]\n    pub replicas: i32,\n";
    std::fs::write(root.join("src/api.rs"), api(changed, "")).unwrap();
    let out = kubegen_in(root, &["docs", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("stale: docs/api/example.com/v1.md"), "{err}");
    assert!(
        err.contains("run `kubegen docs --manifest-path Cargo.toml`"),
        "{err}"
    );

    // With docs-dir, generate writes and guards them.
    std::fs::write(
        root.join("Cargo.toml"),
        format!("{manifest}\n[package.metadata.kubegen]\ndocs-dir = \"docs/api\"\n"),
    )
    .unwrap();
    let out = kubegen_in(root, &["generate", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("stale: docs/api/schemas/example.com/widget_v1.json"));
    let out = kubegen_in(root, &["generate"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = kubegen_in(root, &["generate", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// `kubegen validate` checks manifests against the crate's CRDs as the
/// apiserver checks them on create: errors worded as its own, unknown
/// fields refused as `kubectl --validate=strict` refuses them, the stored
/// form (defaults applied) with `--output json`, metadata Go cannot
/// decode as the apiserver's 400, exit 1 on an invalid object, 2 on a
/// manifest of no CRD of the crate.
#[test]
fn manifests_are_validated_against_the_crates_crds() {
    let dir = support::scratch_crate("widgets", "");
    let root = dir.path();
    std::fs::create_dir_all(root.join("samples")).unwrap();
    let fields = "    #[kubegen(minimum = 1, default = 1)]\n    pub replicas: i32,\n    #[kubegen(max_length = 5)]\n    pub name: String,\n";
    let rule = "#[kubegen(validation(rule = \"self.replicas <= 3\", message = \"at most three\"))]";
    std::fs::write(root.join("src/api.rs"), api(fields, rule)).unwrap();
    let write =
        |name: &str, yaml: &str| std::fs::write(root.join("samples").join(name), yaml).unwrap();
    write(
        "good.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: good\nspec:\n  name: abc\n",
    );
    let out = kubegen_in(root, &["validate", "samples"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("samples/good.yaml: Widget/good: valid"),
        "{}",
        text(&out.stdout)
    );
    let out = kubegen_in(root, &["validate", "samples", "--output", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["objects"][0]["stored"]["spec"]["replicas"], 1,
        "defaulted"
    );

    write(
        "bad.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: Bad\nspec:\n  replicas: 0\n  name: toolong\n  colour: red\n",
    );
    let out = kubegen_in(root, &["validate", "samples/bad.yaml"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    for line in [
        "samples/bad.yaml: Widget/Bad: invalid",
        "  metadata.name: Invalid value: \"Bad\": a lowercase RFC 1123 subdomain",
        "  spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1",
        "  spec.name: Too long: may not be more than 5 bytes",
        "  unknown field \"spec.colour\"",
        "kubegen validate: 1 object, 1 invalid",
    ] {
        assert!(stdout.contains(line), "{line:?} in\n{stdout}");
    }
    // Metadata Go cannot decode: a 400 before any other check.
    write(
        "undecodable.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: Bad\n  labels:\n    tier: 1\nspec:\n  name: toolong\n",
    );
    let out = kubegen_in(root, &["validate", "samples/undecodable.yaml"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("samples/undecodable.yaml: Widget/Bad: invalid\n  bad request: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string\nkubegen validate"),
        "{stdout}"
    );
    write(
        "other.yaml",
        "apiVersion: other.io/v1\nkind: Gadget\nmetadata:\n  name: g\n",
    );
    let out = kubegen_in(root, &["validate", "samples/other.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no CRD for other.io/v1 Gadget"),
        "{}",
        text(&out.stderr)
    );
}

/// `kubegen validate --old` validates a manifest as an update of the
/// object as stored: a value the update leaves as it was passes a bound
/// tightened since (ratcheting), a transition rule compares with the old
/// value, and an object with no old version is a create.
#[test]
fn manifests_are_validated_as_updates_of_the_stored_objects() {
    let dir = support::scratch_crate("widgets", "");
    let root = dir.path();
    std::fs::create_dir_all(root.join("live")).unwrap();
    std::fs::create_dir_all(root.join("samples")).unwrap();
    let fields = "    #[kubegen(maximum = 3)]\n    pub replicas: i32,\n    #[kubegen(validation(rule = \"self == oldSelf\", message = \"is immutable\"))]\n    pub name: String,\n";
    std::fs::write(root.join("src/api.rs"), api(fields, "")).unwrap();
    let widget = |name: &str, replicas: i32, spec_name: &str| {
        format!(
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {name}\n  namespace: team\nspec:\n  replicas: {replicas}\n  name: {spec_name}\n"
        )
    };
    std::fs::write(root.join("live/w.yaml"), widget("w", 5, "abc")).unwrap();
    std::fs::write(root.join("samples/w.yaml"), widget("w", 5, "xyz")).unwrap();
    std::fs::write(root.join("samples/n.yaml"), widget("n", 5, "abc")).unwrap();

    let out = kubegen_in(root, &["validate", "samples", "--old", "live"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    let update: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("samples/w.yaml"))
        .take_while(|l| !l.starts_with("samples/n.yaml") && !l.starts_with("kubegen"))
        .collect();
    assert_eq!(
        update,
        [
            "samples/w.yaml: Widget/w (update): invalid",
            "  spec.name: Invalid value: \"xyz\": is immutable",
        ],
        "replicas 5 is ratcheted, the name compared with the old one:\n{stdout}"
    );
    assert!(
        stdout.contains("samples/n.yaml: Widget/n: invalid\n  spec.replicas: Invalid value: 5: spec.replicas in body should be less than or equal to 3"),
        "no old version: a create\n{stdout}"
    );

    // Left as it was, the object passes; on create it would not.
    std::fs::write(root.join("samples/w.yaml"), widget("w", 5, "abc")).unwrap();
    let out = kubegen_in(
        root,
        &[
            "validate",
            "samples/w.yaml",
            "--old",
            "live",
            "--output",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["objects"][0]["update"], true);
    let out = kubegen_in(root, &["validate", "samples/w.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
}

/// `kubegen check --cluster` compares the crate's CRDs with what a real
/// apiserver serves, with the versions it still stores: a version the
/// cluster lists in `status.storedVersions` cannot be dropped, which no
/// CRD file says.
#[tokio::test(flavor = "multi_thread")]
async fn check_against_a_cluster_reads_its_stored_versions() -> anyhow::Result<()> {
    use kubegen_client::api::ApiResource;
    use kubegen_client::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
    let env = kubegen_testenv::TestEnv::shared().await?;
    let crds: Api<DynamicObject> = Api::all_with(
        env.client().await?,
        &ApiResource {
            group: "apiextensions.k8s.io".into(),
            version: "v1".into(),
            api_version: "apiextensions.k8s.io/v1".into(),
            kind: "CustomResourceDefinition".into(),
            plural: "customresourcedefinitions".into(),
        },
    );
    let schema = serde_json::json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}});
    let version = |name: &str, storage: bool| serde_json::json!({"name": name, "served": true, "storage": storage, "schema": schema});
    let crd = |versions: serde_json::Value| {
        serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "gadgets.check.example.com"},
            "spec": {"group": "check.example.com", "scope": "Namespaced",
                "names": {"kind": "Gadget", "plural": "gadgets", "singular": "gadget", "listKind": "GadgetList"},
                "versions": versions}})
    };
    // Stored as v1alpha1 first, then as v1: the cluster keeps both in
    // status.storedVersions.
    let first = crd(serde_json::json!([
        version("v1alpha1", true),
        version("v1", false)
    ]));
    crds.create(&PostParams::default(), &serde_json::from_value(first)?)
        .await?;
    let second = crd(serde_json::json!([
        version("v1alpha1", false),
        version("v1", true)
    ]));
    crds.patch(
        "gadgets.check.example.com",
        &PatchParams::apply("kubegen-test").force(),
        &Patch::Apply(&second),
    )
    .await?;
    for _ in 0..100 {
        let got = crds.get("gadgets.check.example.com").await?;
        let stored = got.data.pointer("/status/storedVersions").cloned();
        if stored == Some(serde_json::json!(["v1alpha1", "v1"])) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }

    // The crate's next release drops v1alpha1.
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("gadgets.yaml");
    let next = crd(serde_json::json!([version("v1", true)]));
    std::fs::write(&file, serde_yaml::to_string(&next)?)?;
    let kubeconfig = env.kubeconfig().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_kubegen"))
            .args(["check", "--cluster", "--crd"])
            .arg(&file)
            .env("KUBECONFIG", &kubeconfig)
            .output()
    })
    .await??;
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("BREAKING stored-version-removed v1alpha1"),
        "{stdout}"
    );
    assert!(
        stdout.contains("against the cluster at https://"),
        "{stdout}"
    );

    // A CRD the cluster does not have is new.
    let other = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.new.example.com"},
        "spec": {"group": "new.example.com", "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets"}, "versions": [version("v1", true)]}});
    let dir2 = tempfile::tempdir()?;
    let file2 = dir2.path().join("widgets.yaml");
    std::fs::write(&file2, serde_yaml::to_string(&other)?)?;
    let kubeconfig = env.kubeconfig().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_kubegen"))
            .args(["check", "--cluster", "--crd"])
            .arg(&file2)
            .env("KUBECONFIG", &kubeconfig)
            .output()
    })
    .await??;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("safe     crd-added"),
        "{}",
        text(&out.stdout)
    );
    crds.delete("gadgets.check.example.com", &Default::default())
        .await?;
    Ok(())
}
