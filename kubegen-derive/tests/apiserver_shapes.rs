//! What the apiserver accepts, the derive accepts too (issue 34): a
//! lower-case kind (type `Postgresql`) and one with `-` (type `PgCluster`),
//! a list kind of its own, a webhook answering only ConversionReview v1beta1
//! served elsewhere and reached at the apiserver's default path and port, a
//! printer column and a scale subresource at fields the schema does not
//! declare (`unchecked`),
//! rules on the root schema (`flatten_spec`) besides the name rules, and a
//! pattern in RE2 syntax that Rust's `regex` reads differently.

#![allow(missing_docs)]
#![deny(non_camel_case_types)]

use kubegen::{CustomResource, CustomResourceExt};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(
    group = "shapes.kubegen.dev",
    version = "v1",
    kind = "postgresql",
    list_kind = "Postgresqls",
    namespaced,
    printcolumn(name = "Ghost", type = "string", json_path = ".spec.ghost", unchecked),
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".spec.selector",
        unchecked
    ),
    conversion(
        service = "pg-webhook",
        namespace = "pg",
        external,
        review_versions = ["v1beta1"]
    )
)]
pub struct PostgresqlSpec {
    pub size: i32,
    /// A literal `[` inside a class: RE2, not Rust's `regex`.
    #[kubegen(pattern = r#"^[^()<>@,;:\\"\/[\]?={} \t\x7f\x00]+$"#, default = "gzip")]
    pub token: String,
}

#[test]
fn a_lower_case_kind_with_an_external_v1beta1_webhook_and_an_unchecked_column() {
    let pg = Postgresql::new(
        "main",
        PostgresqlSpec {
            size: 1,
            token: "gzip".into(),
        },
    );
    assert_eq!(serde_json::to_value(&pg).unwrap()["kind"], "postgresql");
    let crd = Postgresql::crd_json().unwrap();
    assert_eq!(crd["spec"]["names"]["kind"], "postgresql");
    assert_eq!(crd["spec"]["names"]["listKind"], "Postgresqls");
    assert_eq!(
        <Postgresql as kubegen::k8s_openapi::ListableResource>::LIST_KIND,
        "Postgresqls"
    );
    assert_eq!(
        crd["spec"]["conversion"]["webhook"],
        json!({
            "clientConfig": {"service": {"name": "pg-webhook", "namespace": "pg"}},
            "conversionReviewVersions": ["v1beta1"],
        })
    );
    assert_eq!(
        crd["spec"]["versions"][0]["additionalPrinterColumns"][0]["jsonPath"],
        ".spec.ghost"
    );
    let token = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["token"];
    assert_eq!(token["pattern"], r#"^[^()<>@,;:\\"\/[\]?={} \t\x7f\x00]+$"#);
    assert_eq!(token["default"], "gzip");
    assert_eq!(
        crd["spec"]["versions"][0]["subresources"]["scale"],
        json!({
            "specReplicasPath": ".spec.replicas",
            "statusReplicasPath": ".status.replicas",
            "labelSelectorPath": ".spec.selector",
        })
    );
}

/// A kind with `-`, as the apiserver allows.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(
    group = "shapes.kubegen.dev",
    version = "v1",
    kind = "pg-cluster",
    namespaced
)]
pub struct PgClusterSpec {
    pub size: i32,
}

#[test]
fn a_kind_with_a_dash_is_a_pascal_case_type() {
    let c = PgCluster::new("c", PgClusterSpec { size: 1 });
    assert_eq!(serde_json::to_value(&c).unwrap()["kind"], "pg-cluster");
    let crd = PgCluster::crd_json().unwrap();
    assert_eq!(crd["spec"]["names"]["kind"], "pg-cluster");
    assert_eq!(crd["spec"]["names"]["listKind"], "pg-clusterList");
}

/// An object whose root schema carries its own rule.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(
    group = "shapes.kubegen.dev",
    version = "v1",
    kind = "Note",
    namespaced,
    flatten_spec,
    max_name_length = 30,
    validation(
        rule = "self.metadata.name != self.text",
        message = "name is not the text"
    )
)]
pub struct NoteSpec {
    pub text: String,
}

#[test]
fn root_rules_and_name_rules_are_kept_together() {
    let crd = Note::crd_json().unwrap();
    let rules =
        &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["x-kubernetes-validations"];
    assert_eq!(rules.as_array().map(Vec::len), Some(2), "{rules}");
    assert_eq!(rules[0]["rule"], "self.metadata.name != self.text");
    assert_eq!(rules[1]["rule"], "size(self.metadata.name) <= 30");
}
