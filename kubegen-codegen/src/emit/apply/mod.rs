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

use serde_json::Value;

use super::Kind;
pub(crate) use crate::apply_root::{SchemaSource, Top, path_text};
use crate::names::{
    Namespace, api_version, builtin_apply_module, group_name, group_version_module, kind_type,
    kind_type_name,
};

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

/// The modules of `applyconfigurations/` by name (`apps_v1`), as text;
/// empty when no kind has an [`ApplySource`]. `accessors` maps each API
/// group to its accessor (the clientset's module names).
pub(super) fn modules(
    kinds: &[Kind],
    accessors: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, Vec<String>> {
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
                    let schema = SchemaSource::Builtin {
                        definition: (*definition).to_owned(),
                    };
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
            let schema = SchemaSource::Crd {
                version: k.version.clone(),
            };
            tops.entry(module.clone())
                .or_default()
                .insert(name, top(k, schema));
        }
    }

    let none = BTreeMap::new();
    let mut files = BTreeMap::new();
    for (module, structs) in &out {
        let text = render::module(module, structs, tops.get(module).unwrap_or(&none));
        files.insert(module.clone(), text);
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors)
    }
}

fn top(kind: &Kind, schema: SchemaSource) -> Top {
    Top {
        kind: kind.kind.clone(),
        api_version: api_version(&kind.group, &kind.version),
        namespaced: kind.namespaced,
        status: kind.status,
        resource: path_text(&kind.path),
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
        modules(kinds, &accessors)
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
            .filter_map(|l| l.strip_prefix("    pub struct "))
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
            "metadata \"metadata\" with_metadata: value ::kubegen::apply::ObjectMetaApply,",
            "selector \"selector\" with_selector: value super::meta_v1::LabelSelectorApply,",
            "replicas \"replicas\" with_replicas: set i32,",
            "::kubegen::apply_root! {\n    DeploymentApply for ::kubegen::k8s_openapi::api::apps::v1::Deployment {\n        api_version: \"apps/v1\",\n        kind: \"Deployment\",\n        scope: namespaced,\n        status: true,\n        metadata: [labels annotations owner_references finalizers],\n        schema: builtin \"io.k8s.api.apps.v1.Deployment\",\n",
        ] {
            assert!(apps.contains(line), "{line}\n{apps}");
        }
        let core = &files["core_v1"];
        for line in [
            "containers \"containers\" with_containers: list ContainerApply,",
            "limits \"limits\" with_limits: map ::kubegen::k8s_openapi::apimachinery::pkg::api::resource::Quantity,",
            "type_ \"type\" with_type: set ::std::string::String,",
        ] {
            assert!(core.contains(line), "{line}\n{core}");
        }
    }

    /// JSON names are escaped string literals, and the module parses.
    #[test]
    fn names_are_written_as_valid_rust() {
        let schema = json!({
            "type": "object",
            "properties": {"spec": {"type": "object", "properties": {
                "we\"ird\\name": {"type": "string"},
            }}},
        });
        let files = render(&[custom("Thing", schema)]).unwrap();
        let file = &files["stable_v1"];
        assert!(
            file.contains("\"we\\\"ird\\\\name\" with_we_ird_name: set"),
            "{file}"
        );
        let parsed: syn::File = syn::parse_str(file).expect("the module parses");
        assert_eq!(parsed.items.len(), 2, "apply_structs! and apply_root!");
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
            "foo_bar \"fooBar\" with_foo_bar: set",
            "foo_bar2 \"foo_bar\" with_foo_bar2: set",
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
            "    /// A thing.\n    ///\n    /// The apply configuration of `Thing` (`stable.example.com/v1`)",
            "        /// How many.\n",
            "replicas \"replicas\" with_replicas: set i32,",
            "size \"size\" with_size: set ::kubegen::k8s_openapi::apimachinery::pkg::api::resource::Quantity,",
            "port \"port\" with_port: set ::kubegen::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString,",
            "at \"at\" with_at: set ::kubegen::k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,",
            "ratio \"ratio\" with_ratio: set f64,",
            "blob \"blob\" with_blob: set ::kubegen::k8s_openapi::ByteString,",
            "ports \"ports\" with_ports: list ThingSpecPortsItemApply,",
            "port \"port\" with_port: set i64,",
            "labels \"labels\" with_labels: map ::std::string::String,",
            "backends \"backends\" with_backends: map ThingSpecBackendsItemApply,",
            "matrix \"matrix\" with_matrix: list ::std::vec::Vec<bool>,",
            "raw \"raw\" with_raw: set ::kubegen::__private::serde_json::Value,",
            "empty \"empty\" with_empty: set ::kubegen::__private::serde_json::Value,",
            "spec \"spec\" with_spec: value ThingSpecApply,",
            "status \"status\" with_status: value ThingStatusApply,",
            "ThingApply for crate::api::Thing {",
            "schema: crd \"v1\",",
            "scope: namespaced,",
        ] {
            assert!(file.contains(line), "{line}\n---\n{file}");
        }
        // The root's and the embedded resource's metadata are ObjectMetaApply.
        assert_eq!(
            file.matches(
                "metadata \"metadata\" with_metadata: value ::kubegen::apply::ObjectMetaApply,"
            )
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
        assert!(files["stable_v1"].contains("bar \"bar\" with_bar: value FooBarApply2,"));
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
            file.contains("token \"token\" with_token: value ThingSpecPasswordApply,"),
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
        assert!(files["applyconfigurations/core_v1.rs"].contains("    pub struct ServiceApply {"));
    }
}
