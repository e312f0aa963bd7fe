//! kubegen refuses a CRD only where the apiserver would (issue 34): each
//! CRD of the real-CRD corpus (`hack/crd-corpus.sh`) is created on the real
//! apiserver with server-side dry run and imported (`kubegen import
//! --strict`, in process); the two verdicts must agree — the apiserver
//! accepts it and the import regenerates it node for node, or both refuse.
//!
//! Hand-made variants of the import fixture join them: shapes the
//! apiserver accepts that kubegen once refused, and shapes both refuse.
//!
//! A seeded sample of the corpus runs by default (bounded for `make test`);
//! `KUBEGEN_IMPORT_VERDICTS=all` runs every CRD, `KUBEGEN_IMPORT_VERDICTS=<n>`
//! a sample of n. Prints the counts:
//! `cargo test -p kubegen-cli --test import_verdicts_e2e -- --nocapture`.

use std::path::{Path, PathBuf};

use kubegen_cli::import::{self, Verdict};
use kubegen_client::api::{Api, ApiResource, DynamicObject, PostParams};
use serde_json::Value;

#[path = "support/corpus.rs"]
#[allow(dead_code)] // this test needs only the corpus
mod support;
use support::corpus;

/// CRDs checked when `KUBEGEN_IMPORT_VERDICTS` is unset.
const SAMPLE: usize = 24;

/// FNV-1a: a stable order to sample the corpus by.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Every CRD file of the corpus, or a sample of them.
fn crd_files(corpus: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .flat_map(|project| {
            std::fs::read_dir(project)
                .unwrap()
                .flatten()
                .map(|e| e.path())
        })
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    let wanted = match std::env::var("KUBEGEN_IMPORT_VERDICTS").ok().as_deref() {
        Some("all") => files.len(),
        Some(n) => n.parse().unwrap_or(SAMPLE),
        None => SAMPLE,
    };
    files.sort_by_key(|p| fnv1a(&p.display().to_string()));
    files.truncate(wanted);
    files.sort();
    files
}

/// Variants of `tests/fixtures/import/widgets.yaml`: (what, from, to).
const VARIANTS: &[(&str, &str, &str)] = &[
    (
        "re2-class-bracket",
        "pattern: '^[a-z]+$'",
        r#"pattern: '^[^()<>@,;:\\"\/[\]?={} \t\x7f\x00]+$'"#,
    ),
    (
        "root-validations",
        "        description: A Widget is a thing with parts.\n",
        "        description: A Widget is a thing with parts.\n        x-kubernetes-validations:\n        - rule: self.metadata.name.size() < 64\n",
    ),
    (
        "printer-column-undeclared-field",
        "      jsonPath: .spec.size\n",
        "      jsonPath: .spec.size\n    - name: Ghost\n      type: string\n      jsonPath: .spec.ghost\n",
    ),
    (
        "review-versions-v1beta1",
        "  scope: Namespaced\n",
        "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1beta1]\n      clientConfig:\n        service: {name: w, namespace: ns}\n",
    ),
    (
        "list-kind",
        "    listKind: WidgetList\n",
        "    listKind: Widgets\n",
    ),
    (
        "refused-list-kind-equal-to-kind",
        "    listKind: WidgetList\n",
        "    listKind: Widget\n",
    ),
    (
        "refused-list-kind",
        "    listKind: WidgetList\n",
        "    listKind: Widget_List\n",
    ),
    (
        "group-label-with-leading-digit",
        "  name: widgets.example.com\n  annotations:\n    example.com/origin: hand-written\nspec:\n  group: example.com\n",
        "  name: widgets.3scale.example.com\n  annotations:\n    example.com/origin: hand-written\nspec:\n  group: 3scale.example.com\n",
    ),
    (
        "refused-version-without-schema",
        "    storage: false\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size:\n                type: string\n",
        "    storage: false\n",
    ),
    (
        "version-not-served",
        "    served: true\n    storage: false\n",
        "    served: false\n    storage: false\n",
    ),
    (
        "column-undeclared-metadata-field",
        "      jsonPath: .spec.size\n",
        "      jsonPath: .spec.size\n    - name: X\n      type: date\n      jsonPath: .metadata.foo\n",
    ),
    (
        "column-format-priority",
        "      jsonPath: .spec.size\n",
        "      jsonPath: .spec.size\n      format: password\n      priority: 3\n",
    ),
    (
        "webhook-url",
        "  scope: Namespaced\n",
        "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1]\n      clientConfig:\n        url: https://example.com:8443/convert/widgets\n",
    ),
    (
        "kind-with-dash",
        "    kind: Widget\n    listKind: WidgetList\n",
        "    kind: wid-get\n    listKind: wid-getList\n",
    ),
    (
        "lower-case-kind",
        "    kind: Widget\n    listKind: WidgetList\n",
        "    kind: widget\n    listKind: widgetList\n",
    ),
    (
        "refused-lookahead",
        "pattern: '^[a-z]+$'",
        "pattern: '^(?!kube-)[a-z]+$'",
    ),
    (
        "refused-default-not-matching-re2",
        "                enum: [fast, slow]\n                default: fast\n",
        "                pattern: '^\\w+$'\n                default: é\n",
    ),
    (
        "scale-paths-undeclared",
        "      status: {}\n",
        "      status: {}\n      scale: {specReplicasPath: .spec.min, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}\n",
    ),
    (
        "refused-column-bad-jsonpath",
        "      jsonPath: .spec.size\n",
        "      jsonPath: .spec.size\n    - name: Bad\n      type: string\n      jsonPath: .spec[\n",
    ),
    (
        "column-filter-path",
        "      jsonPath: .spec.size\n",
        "      jsonPath: .spec.size\n    - name: Part\n      type: string\n      jsonPath: .spec.parts[?(@.name==\"x\")].weight\n",
    ),
    (
        "refused-category-upper-case",
        "    shortNames: [wd]\n",
        "    shortNames: [wd]\n    categories: [All]\n",
    ),
    (
        "format-unknown",
        "                format: int32\n",
        "                format: foo\n",
    ),
    (
        "nullable-default-null",
        "              max:\n                type: integer\n",
        "              max:\n                type: integer\n                nullable: true\n                default: null\n",
    ),
    (
        "rule-reason-field-path",
        "              message: min must not exceed max\n",
        "              message: min must not exceed max\n              reason: FieldValueForbidden\n              fieldPath: .min\n",
    ),
    (
        "transition-rule",
        "              message: min must not exceed max\n",
        "              message: min must not exceed max\n            - rule: self.size == oldSelf.size\n              message: size is immutable\n",
    ),
    (
        "refused-short-name-upper-case",
        "    shortNames: [wd]\n",
        "    shortNames: [WD]\n",
    ),
    (
        "deprecated-version",
        "    storage: true\n",
        "    storage: true\n    deprecated: true\n    deprecationWarning: old\n",
    ),
    (
        "refused-root-keyword",
        "        description: A Widget is a thing with parts.\n",
        "        description: A Widget is a thing with parts.\n        nullable: true\n",
    ),
    (
        "refused-review-version",
        "  scope: Namespaced\n",
        "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v2]\n      clientConfig:\n        service: {name: w, namespace: ns}\n",
    ),
];

/// The variants, written under `dir`.
fn variant_files(dir: &Path) -> Vec<PathBuf> {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/widgets.yaml");
    let widgets = std::fs::read_to_string(fixture).unwrap();
    VARIANTS
        .iter()
        .map(|(what, from, to)| {
            assert!(
                widgets.contains(from),
                "{what}: `{from}` not in the fixture"
            );
            let path = dir.join(format!("{what}.yaml"));
            std::fs::write(&path, widgets.replacen(from, to, 1)).unwrap();
            path
        })
        .collect()
}

/// kubegen's verdict: `Ok` when the CRD imports and regenerates node for
/// node, else why not.
fn kubegen_verdict(file: &Path) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let imported = import::import(&import::Options {
        inputs: vec![file.to_path_buf()],
        crate_dir: dir.path().join("c"),
        module: "apis".into(),
        kubegen_path: None,
        strict: true,
    })
    .map_err(|e| {
        e.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    match imported.reports.first().map(|r| &r.verdict) {
        Some(Verdict::Identical) => Ok(()),
        Some(Verdict::Differing(d)) => Err(format!(
            "regenerates with {} difference(s): {}",
            d.len(),
            d.iter()
                .take(3)
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )),
        Some(Verdict::Refused(why)) => Err(why.clone()),
        None => Err("no CRD read".into()),
    }
}

#[tokio::test]
async fn the_import_refuses_a_crd_only_where_the_apiserver_does() -> anyhow::Result<()> {
    let mut files = tokio::task::spawn_blocking(|| crd_files(&corpus())).await?;
    assert!(!files.is_empty(), "the corpus is empty");
    let variants = tempfile::tempdir()?;
    files.extend(variant_files(variants.path()));
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
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let (mut both_accept, mut both_refuse) = (0, 0);
    let mut disagreements = Vec::new();
    for file in &files {
        let crd: Value = serde_yaml::from_str(&std::fs::read_to_string(file)?)?;
        let apiserver = crds
            .create(&dry_run, &serde_json::from_value(crd)?)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string());
        let path = file.clone();
        let ours = tokio::task::spawn_blocking(move || kubegen_verdict(&path)).await?;
        let name = file.strip_prefix(file.parent().and_then(Path::parent).unwrap_or(file))?;
        match (apiserver, ours) {
            (Ok(()), Ok(())) => both_accept += 1,
            (Err(_), Err(_)) => both_refuse += 1,
            (Ok(()), Err(why)) => disagreements.push(format!(
                "{}: the apiserver accepts it, kubegen refuses: {why}",
                name.display()
            )),
            (Err(why), Ok(())) => disagreements.push(format!(
                "{}: kubegen imports it, the apiserver refuses: {why}",
                name.display()
            )),
        }
    }
    println!(
        "import verdicts: {} CRDs ({} of the corpus, {} variants), both accept {both_accept}, \
         both refuse {both_refuse}, disagree {}",
        files.len(),
        files.len() - VARIANTS.len(),
        VARIANTS.len(),
        disagreements.len()
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    Ok(())
}
