//! The apply configuration emitter (client-go's applyconfiguration-gen):
//! for every kind with an [`ApplySource`], partial typed objects for
//! server-side apply — every field optional, serialized with exactly the
//! fields set — one module per group version under `applyconfigurations/`.
//!
//! Built-in kinds walk kubegen-core's built-in table with its references
//! ([`builtin`]: a Go struct is a named apply struct in its package's
//! module, the closure of what the kinds reach and nothing more); custom
//! kinds walk their version's `openAPIV3Schema` ([`crd`]: structs named by
//! path). [`render`] writes the tokens; [`shape`] holds the model between.

mod builtin;
mod crd;
mod render;
mod shape;

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use super::Kind;
use crate::names::{
    Namespace, api_version, builtin_apply_module, group_name, group_version_module, kind_type,
    kind_type_name,
};
pub(crate) use render::{Top, derives, top_items};

/// Where a kind's apply configuration takes its types from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplySource {
    /// A built-in kind: its definition in kubegen-core's built-in table
    /// (`io.k8s.api.apps.v1.Deployment`).
    Builtin {
        /// The upstream definition name.
        definition: String,
    },
    /// A custom kind: the version's `openAPIV3Schema`.
    Crd {
        /// The structural schema.
        schema: Value,
    },
}

/// The modules of `applyconfigurations/` by name (`apps_v1`), as tokens;
/// empty when no kind has an [`ApplySource`]. `accessors` maps each API
/// group to its accessor (the clientset's module names).
pub(super) fn modules(
    kinds: &[Kind],
    accessors: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, TokenStream>, Vec<String>> {
    let mut errors = Vec::new();
    let custom_module = |k: &Kind| {
        let accessor = accessors
            .get(&k.group)
            .cloned()
            .unwrap_or_else(|| group_name(&k.group));
        group_version_module(&accessor, &k.version)
    };
    let custom_modules: BTreeSet<String> = kinds
        .iter()
        .filter(|k| matches!(k.apply, Some(ApplySource::Crd { .. })))
        .map(custom_module)
        .collect();
    let module_of =
        |definition: &str| builtin_apply_module(definition, &|m: &str| custom_modules.contains(m));
    let mut tops: BTreeMap<String, BTreeMap<String, Top>> = BTreeMap::new();
    let mut out = shape::Modules::new();

    // Built-in kinds: one walk over the table, sorted by definition.
    let builtins: BTreeMap<&str, &Kind> = kinds
        .iter()
        .filter_map(|k| match &k.apply {
            Some(ApplySource::Builtin { definition }) => Some((definition.as_str(), k)),
            _ => None,
        })
        .collect();
    if !builtins.is_empty() {
        let table = kubegen_core::builtin::table().map_err(|e| vec![e.to_string()])?;
        let mut walker = builtin::Walker::new(&table.definitions, &module_of);
        for (definition, kind) in &builtins {
            match walker.root(definition) {
                Ok((module, name)) => {
                    let schema = quote!(::kubegen::apply::builtin_schema(&SCHEMA, #definition));
                    tops.entry(module)
                        .or_default()
                        .insert(name, top(kind, schema));
                }
                Err(e) => errors.push(format!("apply configuration of {}: {e}", kind.kind)),
            }
        }
        out = walker.out;
    }

    // Custom kinds: per module, roots reserved first, kinds sorted.
    let mut by_module: BTreeMap<String, BTreeMap<String, (&Kind, &Value)>> = BTreeMap::new();
    for k in kinds {
        if let Some(ApplySource::Crd { schema }) = &k.apply {
            by_module
                .entry(custom_module(k))
                .or_default()
                .insert(k.kind.clone(), (k, schema));
        }
    }
    for (module, kinds) in &by_module {
        let roots: Vec<String> = kinds
            .keys()
            .map(|kind| kind_type_name(kind, "Apply"))
            .collect();
        let mut taken = Namespace::with_reserved(roots.iter().map(String::as_str));
        let mut walker = crd::Walker::new(module, &mut taken, &mut out);
        for (kind, (k, schema)) in kinds {
            let name = kind_type_name(kind, "Apply");
            walker.root(schema, &kind_type(kind), &name, kind);
            let path = &k.path;
            let version = &k.version;
            let schema = quote!(::kubegen::apply::crd_schema::<#path>(&SCHEMA, #version));
            tops.entry(module.clone())
                .or_default()
                .insert(name, top(k, schema));
        }
    }

    let none = BTreeMap::new();
    let mut files = BTreeMap::new();
    for (module, structs) in &out {
        let tokens = render::module(module, structs, tops.get(module).unwrap_or(&none));
        files.insert(module.clone(), tokens);
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors)
    }
}

fn top(kind: &Kind, schema: TokenStream) -> Top {
    Top {
        kind: kind.kind.clone(),
        api_version: api_version(&kind.group, &kind.version),
        namespaced: kind.namespaced,
        status: kind.status,
        resource: kind.path.clone(),
        schema,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::{ApplySource, modules};
    use crate::emit::{Kind, builtins, group_accessors};

    fn render(kinds: &[Kind]) -> Result<BTreeMap<String, String>, Vec<String>> {
        let accessors = group_accessors(kinds.iter().map(|k| k.group.as_str()));
        Ok(modules(kinds, &accessors)?
            .into_iter()
            .map(|(m, tokens)| {
                let file = syn::parse2(tokens).expect("apply tokens parse");
                (m, prettyplease::unparse(&file))
            })
            .collect())
    }

    fn custom(kind: &str, schema: serde_json::Value) -> Kind {
        Kind {
            group: "stable.example.com".into(),
            version: "v1".into(),
            kind: kind.into(),
            namespaced: true,
            path: syn::parse_str(&format!("crate::api::{kind}")).unwrap(),
            verbs: Vec::new(),
            status: true,
            apply: Some(ApplySource::Crd { schema }),
        }
    }

    fn structs(file: &str) -> Vec<&str> {
        file.lines()
            .filter_map(|l| l.strip_prefix("pub struct "))
            .map(|l| l.trim_end_matches(" {"))
            .collect()
    }

    #[test]
    fn deployment_reaches_its_pod_template_and_selector_and_nothing_more() {
        let deployment = builtins::builtin("apps/v1/Deployment").unwrap();
        let files = render(&[deployment]).unwrap();
        assert!(structs(&files["apps_v1"]).contains(&"DeploymentApply"));
        assert!(structs(&files["apps_v1"]).contains(&"DeploymentSpecApply"));
        let core = structs(&files["core_v1"]);
        for wanted in [
            "ContainerApply",
            "PodSpecApply",
            "PodTemplateSpecApply",
            "ContainerPortApply",
        ] {
            assert!(core.contains(&wanted), "{wanted} not in {core:?}");
        }
        assert!(!core.contains(&"PodApply"), "PodApply is not reached");
        assert!(!core.contains(&"ServiceApply"));
        let meta = structs(&files["meta_v1"]);
        assert!(meta.contains(&"LabelSelectorApply"), "{meta:?}");
        // ObjectMeta is the runtime's; Time, Quantity and IntOrString are scalars.
        assert!(!meta.contains(&"ObjectMetaApply"));
        assert!(!meta.contains(&"TimeApply"));
        assert!(
            files
                .keys()
                .all(|m| !m.contains("resource") && !m.contains("intstr")),
            "{:?}",
            files.keys()
        );
        let apps = &files["apps_v1"];
        for line in [
            "pub metadata: ::std::option::Option<::kubegen::apply::ObjectMetaApply>,",
            "pub selector: ::std::option::Option<super::meta_v1::LabelSelectorApply>,",
            "pub replicas: ::std::option::Option<i32>,",
            "impl ::kubegen::apply::ApplyConfiguration for DeploymentApply {",
            "type Resource = ::kubegen::k8s_openapi::api::apps::v1::Deployment;",
            "::kubegen::apply::builtin_schema(&SCHEMA, \"io.k8s.api.apps.v1.Deployment\")",
            "pub fn extract_status(",
            "pub fn with_labels<",
        ] {
            assert!(apps.contains(line), "{line}\n{apps}");
        }
        let core = &files["core_v1"];
        for line in [
            "pub containers: ::std::option::Option<::std::vec::Vec<ContainerApply>>,",
            "pub max_unavailable: ::std::option::Option<\n",
            "::kubegen::k8s_openapi::apimachinery::pkg::api::resource::Quantity",
            "pub type_: ::std::option::Option<::std::string::String>,",
            "#[serde(rename = \"type\", skip_serializing_if = \"::std::option::Option::is_none\")]",
            "pub fn with_containers(\n",
        ] {
            assert!(
                core.contains(line) || files["apps_v1"].contains(line),
                "{line}"
            );
        }
    }

    /// Real CRDs hold such pairs (prometheus-operator's `proxyURL` and
    /// `proxyUrl`): the later JSON name gets a number, as `kubegen import`
    /// names it, and both keep their JSON names.
    #[test]
    fn colliding_field_names_are_numbered() {
        let schema = json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "properties": {
                        "fooBar": {"type": "string"},
                        "foo_bar": {"type": "string"},
                    },
                },
            },
        });
        let files = render(&[custom("Thing", schema)]).unwrap();
        let file = &files["stable_v1"];
        for line in [
            "#[serde(rename = \"fooBar\", skip_serializing_if = \"::std::option::Option::is_none\")]\n    pub foo_bar: ",
            "#[serde(rename = \"foo_bar\", skip_serializing_if = \"::std::option::Option::is_none\")]\n    pub foo_bar2: ",
            "pub fn with_foo_bar(",
            "pub fn with_foo_bar2(",
        ] {
            assert!(file.contains(line), "{line}\n---\n{file}");
        }
    }

    #[test]
    fn custom_schemas_name_structs_by_path() {
        let schema = json!({
            "description": "A thing.\n\nMore about it.",
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string"},
                "kind": {"type": "string"},
                "metadata": {"type": "object"},
                "spec": {
                    "type": "object",
                    "properties": {
                        "replicas": {"type": "integer", "format": "int32", "description": "How many. Really."},
                        "size": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": "^[0-9]+$"},
                        "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                        "at": {"type": "string", "format": "date-time"},
                        "ratio": {"type": "number"},
                        "blob": {"type": "string", "format": "byte"},
                        "ports": {
                            "type": "array",
                            "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}},
                        },
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                        "backends": {
                            "type": "object",
                            "additionalProperties": {"type": "object", "properties": {"weight": {"type": "integer"}}},
                        },
                        "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "boolean"}}},
                        "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                        "empty": {"type": "object"},
                        "template": {
                            "type": "object",
                            "x-kubernetes-embedded-resource": true,
                            "properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string"}}}, "data": {"type": "string"}},
                        },
                    },
                },
                "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
            },
        });
        let files = render(&[custom("Thing", schema)]).unwrap();
        let file = &files["stable_v1"];
        assert_eq!(
            structs(file),
            [
                "ThingApply",
                "ThingSpecApply",
                "ThingSpecBackendsItemApply",
                "ThingSpecPortsItemApply",
                "ThingSpecTemplateApply",
                "ThingStatusApply",
            ]
        );
        for line in [
            "/// A thing.\n///\n/// The apply configuration of `Thing` (`stable.example.com/v1`)",
            "/// How many.\n",
            "pub replicas: ::std::option::Option<i32>,",
            "pub size: ::std::option::Option<\n        ::kubegen::k8s_openapi::apimachinery::pkg::api::resource::Quantity,",
            "pub port: ::std::option::Option<\n        ::kubegen::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString,",
            "pub at: ::std::option::Option<\n        ::kubegen::k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,",
            "pub ratio: ::std::option::Option<f64>,",
            "pub blob: ::std::option::Option<::kubegen::k8s_openapi::ByteString>,",
            "pub ports: ::std::option::Option<::std::vec::Vec<ThingSpecPortsItemApply>>,",
            "pub port: ::std::option::Option<i64>,",
            "pub labels: ::std::option::Option<\n        ::std::collections::BTreeMap<::std::string::String, ::std::string::String>,",
            "pub backends: ::std::option::Option<\n        ::std::collections::BTreeMap<::std::string::String, ThingSpecBackendsItemApply>,",
            "pub matrix: ::std::option::Option<::std::vec::Vec<::std::vec::Vec<bool>>>,",
            "pub raw: ::std::option::Option<::kubegen::__private::serde_json::Value>,",
            "pub empty: ::std::option::Option<::kubegen::__private::serde_json::Value>,",
            "pub spec: ::std::option::Option<ThingSpecApply>,",
            "pub status: ::std::option::Option<ThingStatusApply>,",
            "type Resource = crate::api::Thing;",
            "::kubegen::apply::crd_schema::<crate::api::Thing>(&SCHEMA, \"v1\")",
            "pub fn new(\n        name: impl ::std::convert::Into<::std::string::String>,\n        namespace: impl ::std::convert::Into<::std::string::String>,",
        ] {
            assert!(file.contains(line), "{line}\n---\n{file}");
        }
        // The root's and the embedded resource's metadata are ObjectMetaApply.
        assert_eq!(
            file.matches("pub metadata: ::std::option::Option<::kubegen::apply::ObjectMetaApply>,")
                .count(),
            2,
            "{file}"
        );
    }

    #[test]
    fn path_names_are_unique_in_their_module_and_kinds_keep_theirs() {
        let foo = json!({"type": "object", "properties": {"bar": {"type": "object", "properties": {"x": {"type": "string"}}}}});
        let foo_bar = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"y": {"type": "string"}}}}});
        let files = render(&[custom("FooBar", foo_bar), custom("Foo", foo)]).unwrap();
        assert_eq!(
            structs(&files["stable_v1"]),
            ["FooApply", "FooBarApply", "FooBarApply2", "FooBarSpecApply"]
        );
        assert!(files["stable_v1"].contains("pub bar: ::std::option::Option<FooBarApply2>,"));
    }

    /// Every inlined copy of one Go type is one struct (a CRD that embeds
    /// the same reference twice would otherwise get two).
    #[test]
    fn identical_subtrees_share_one_struct() {
        let secret = json!({"type": "object", "description": "A secret key.",
            "properties": {"name": {"type": "string"}, "key": {"type": "string"}}});
        let schema = json!({
            "type": "object",
            "properties": {"spec": {"type": "object", "properties": {
                "password": secret.clone(),
                "token": secret,
                "other": {"type": "object", "properties": {"name": {"type": "string"}}},
            }}},
        });
        let files = render(&[custom("Thing", schema)]).unwrap();
        let file = &files["stable_v1"];
        assert_eq!(
            structs(file),
            [
                "ThingApply",
                "ThingSpecApply",
                "ThingSpecOtherApply",
                "ThingSpecPasswordApply"
            ]
        );
        assert!(
            file.contains("pub token: ::std::option::Option<ThingSpecPasswordApply>,"),
            "{file}"
        );
    }

    #[test]
    fn emitted_modules_list_applyconfigurations() {
        let kinds = vec![builtins::builtin("v1/Service").unwrap()];
        let files = crate::emit::modules(kinds, &[], None).unwrap();
        assert!(files["mod.rs"].contains("pub mod applyconfigurations;"));
        assert!(files["applyconfigurations/mod.rs"].contains("pub mod core_v1;"));
        assert!(
            files["applyconfigurations/core_v1.rs"].starts_with(kubegen_core::output::RUST_HEADER)
        );
        assert!(files["applyconfigurations/core_v1.rs"].contains("pub struct ServiceApply {"));
    }
}
