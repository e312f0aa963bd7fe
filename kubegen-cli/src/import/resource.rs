//! One CRD → the Rust modules of its versions: the `#[kubegen(...)]`
//! resource attribute of each version's spec struct (names, scope,
//! subresources, columns, selectable fields, version flags, CRD labels and
//! annotations, conversion) and the planned types; or the reason the CRD
//! cannot be written as kubegen types.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value};

use super::plan::{Locations, Planner};
use kubegen_core::vocabulary::keywords;

/// The rendered module of one version of a kind.
pub struct VersionModule {
    /// The version (`v1`).
    pub version: String,
    /// The kind's module name (`certificate`).
    pub kind_module: String,
    /// The kind (the root type's name).
    pub kind: String,
    /// The group's module name (`cert_manager_io`).
    pub group_module: String,
    /// The Rust source.
    pub source: String,
    /// The nodes its types stand for, for locating errors (plain data, so
    /// CRDs are proven in parallel).
    pub plan: Locations,
}

/// `cert-manager.io` → `cert_manager_io`.
pub fn group_module(group: &str) -> String {
    let mut m: String = group
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if m.starts_with(|c: char| c.is_ascii_digit()) {
        m.insert(0, '_');
    }
    m
}

fn str_at<'a>(v: &'a Value, ptr: &str) -> Option<&'a str> {
    v.pointer(ptr).and_then(Value::as_str)
}

/// Why a CRD cannot be imported, before any type is planned.
pub fn refusal(crd: &Value) -> Option<String> {
    str_at(crd, "/spec/names/kind")?;
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array)?;
    if versions.is_empty() {
        return Some("the CRD has no versions".into());
    }
    for v in versions {
        let name = str_at(v, "/name").unwrap_or("?");
        let Some(root) = v
            .pointer("/schema/openAPIV3Schema")
            .and_then(Value::as_object)
        else {
            return Some(format!("version {name} has no schema"));
        };
        for k in root.keys() {
            if !keywords::keyword(k).is_some_and(|kw| kw.at_root) {
                return Some(format!(
                    "version {name}: the apiserver refuses the root schema keyword `{k}` (a root \
                     schema may hold only {})",
                    keywords::names_where(|kw| kw.at_root)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    None
}

/// Whether a version's objects hold more than `spec` and `status` at the
/// top level (or no `spec`), or its root schema has keywords of its own
/// (such as `x-kubernetes-validations`): its spec struct then holds every
/// top-level field and its type-level keys (`flatten_spec`).
fn flattened(v: &Value) -> bool {
    let root = v.pointer("/schema/openAPIV3Schema");
    if root.and_then(Value::as_object).is_some_and(|r| {
        r.keys().any(|k| {
            !matches!(
                k.as_str(),
                "type" | "properties" | "description" | "required"
            )
        })
    }) {
        return true;
    }
    let props = root
        .and_then(|r| r.get("properties"))
        .and_then(Value::as_object);
    props.is_none_or(|p| {
        !p.contains_key("spec")
            || p.keys().any(|k| {
                !matches!(
                    k.as_str(),
                    "apiVersion" | "kind" | "metadata" | "spec" | "status"
                )
            })
    })
}

/// The resource attribute of one version: `#[kubegen(...)]` with its
/// keys in the order below, then one attribute per CRD label and
/// annotation, printer column and selectable field, and the conversion.
fn resource_attr(crd: &Value, v: &Value, status: Option<&str>) -> TokenStream {
    let flat = flattened(v);
    let root = v.pointer("/schema/openAPIV3Schema");
    let mut parts = name_parts(crd, v);
    if let Some(s) = status {
        parts.push(quote!(status = #s));
    }
    parts.extend(root_parts(root, flat));
    let has_status_sub = v.pointer("/subresources/status").is_some();
    if has_status_sub != status.is_some() {
        parts.push(quote!(status_subresource = #has_status_sub));
    }
    if versions_differ(crd) && conversion_attr(crd).is_none() {
        parts.push(quote!(allow_lossy_versions));
    }
    if !flat && !root_required(root).contains(&"spec") {
        parts.push(quote!(optional_spec));
    }
    if let Some(scale) = v.pointer("/subresources/scale") {
        parts.push(scale_part(scale, root));
    }
    parts.extend(version_flag_parts(v));
    let mut attrs = vec![quote!(#[kubegen(#(#parts),*)])];
    attrs.extend(crd_metadata_attrs(crd));
    for c in v
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        attrs.push(printcolumn_attr(c, root));
    }
    for f in v
        .get("selectableFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(p) = f.get("jsonPath").and_then(Value::as_str) {
            attrs.push(quote!(#[kubegen(selectable_field(json_path = #p))]));
        }
    }
    if let Some(attr) = conversion_attr(crd) {
        attrs.push(attr);
    }
    quote!(#(#attrs)*)
}

/// The kind's identity and names: `group`, `version`, `kind`,
/// `namespaced`, `plural`, `singular` (the lower-cased kind when the CRD
/// has none), `list_kind` when it is not `<Kind>List`, each `shortname`
/// and `category`.
fn name_parts(crd: &Value, v: &Value) -> Vec<TokenStream> {
    let group = str_at(crd, "/spec/group").unwrap_or_default();
    let kind = str_at(crd, "/spec/names/kind").unwrap_or_default();
    let version = str_at(v, "/name").unwrap_or_default();
    let plural = str_at(crd, "/spec/names/plural").unwrap_or_default();
    let singular = str_at(crd, "/spec/names/singular").map(str::to_owned);
    let singular = singular.unwrap_or_else(|| kind.to_ascii_lowercase());
    let mut parts = vec![
        quote!(group = #group),
        quote!(version = #version),
        quote!(kind = #kind),
    ];
    if str_at(crd, "/spec/scope") == Some("Namespaced") {
        parts.push(quote!(namespaced));
    }
    parts.push(quote!(plural = #plural));
    parts.push(quote!(singular = #singular));
    if let Some(list_kind) = str_at(crd, "/spec/names/listKind")
        && list_kind != format!("{kind}List")
    {
        parts.push(quote!(list_kind = #list_kind));
    }
    for s in strings(crd.pointer("/spec/names/shortNames")) {
        parts.push(quote!(shortname = #s));
    }
    for s in strings(crd.pointer("/spec/names/categories")) {
        parts.push(quote!(category = #s));
    }
    parts
}

/// The root schema as written: `flatten_spec`, or `kind_description` when
/// the root's description is not the spec's; `required_metadata`;
/// `max_description_len = 0` when no schema node has a description;
/// `type_meta_schema_json` when the type meta is not apimachinery's.
fn root_parts(root: Option<&Value>, flat: bool) -> Vec<TokenStream> {
    let mut parts = Vec::new();
    let root_description = root
        .and_then(|r| r.get("description"))
        .and_then(Value::as_str);
    let spec_description = root
        .and_then(|r| r.pointer("/properties/spec/description"))
        .and_then(Value::as_str);
    match root_description {
        _ if flat => parts.push(quote!(flatten_spec)),
        Some(d) if Some(d) != spec_description => parts.push(quote!(kind_description = #d)),
        None if spec_description.is_some() => parts.push(quote!(kind_description = "")),
        _ => {}
    }
    if root_required(root).contains(&"metadata") {
        parts.push(quote!(required_metadata));
    }
    let no_descriptions = root.is_some_and(|r| !has_description(r));
    if no_descriptions {
        parts.push(quote!(max_description_len = 0));
    }
    if let Some(given) = type_meta(root, no_descriptions) {
        let json =
            serde_json::to_string(&kubegen_core::output::canonical(&given)).unwrap_or_default();
        parts.push(quote!(type_meta_schema_json = #json));
    }
    parts
}

/// The root schema's `required` fields.
fn root_required(root: Option<&Value>) -> Vec<&str> {
    root.and_then(|r| r.get("required"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Whether two neighbouring versions have different schemas: only those
/// need `allow_lossy_versions` without a conversion (kubegen refuses them
/// otherwise; the published CRD serves them anyway).
fn versions_differ(crd: &Value) -> bool {
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array);
    versions.is_some_and(|vs| {
        vs.windows(2)
            .any(|w| w[0].pointer("/schema") != w[1].pointer("/schema"))
    })
}

/// `scale(...)` with the paths the subresource gives, and `unchecked` when
/// one names a field the schema lacks (the apiserver serves them).
fn scale_part(scale: &Value, root: Option<&Value>) -> TokenStream {
    let mut s = Vec::new();
    for (k, key) in [
        ("specReplicasPath", quote!(spec_replicas_path)),
        ("statusReplicasPath", quote!(status_replicas_path)),
        ("labelSelectorPath", quote!(label_selector_path)),
    ] {
        if let Some(p) = scale.get(k).and_then(Value::as_str) {
            s.push(quote!(#key = #p));
        }
    }
    let undeclared = [
        "specReplicasPath",
        "statusReplicasPath",
        "labelSelectorPath",
    ]
    .iter()
    .filter_map(|k| scale.get(*k).and_then(Value::as_str))
    .any(|p| root.is_none_or(|r| kubegen_core::crd::resolve_json_path(r, p).is_err()));
    if undeclared {
        s.push(quote!(unchecked));
    }
    quote!(scale(#(#s),*))
}

/// The version's flags where they are not the defaults: `storage = false`,
/// `served = false`, `deprecated`, `deprecation_warning`.
fn version_flag_parts(v: &Value) -> Vec<TokenStream> {
    let mut parts = Vec::new();
    if v.get("storage") != Some(&Value::Bool(true)) {
        parts.push(quote!(storage = false));
    }
    if v.get("served") != Some(&Value::Bool(true)) {
        parts.push(quote!(served = false));
    }
    if v.get("deprecated") == Some(&Value::Bool(true)) {
        parts.push(quote!(deprecated));
    }
    if let Some(w) = str_at(v, "/deprecationWarning") {
        parts.push(quote!(deprecation_warning = #w));
    }
    parts
}

/// One `crd_label(...)` / `crd_annotation(...)` attribute per label and
/// annotation of the CRD object.
fn crd_metadata_attrs(crd: &Value) -> Vec<TokenStream> {
    let mut attrs = Vec::new();
    for (key, what) in [
        ("labels", quote!(crd_label)),
        ("annotations", quote!(crd_annotation)),
    ] {
        let map = crd
            .pointer(&format!("/metadata/{key}"))
            .and_then(Value::as_object);
        for (k, val) in map.into_iter().flatten() {
            let val = val.as_str().unwrap_or_default();
            attrs.push(quote!(#[kubegen(#what(key = #k, value = #val))]));
        }
    }
    attrs
}

/// The `printcolumn(...)` attribute of one column, `unchecked` when its
/// path names no field of the schema: the apiserver serves the column
/// (empty); kubegen asks for `unchecked` to keep it.
fn printcolumn_attr(c: &Value, root: Option<&Value>) -> TokenStream {
    let mut p = Vec::new();
    for (k, key) in [
        ("name", quote!(name)),
        ("type", quote!(type)),
        ("jsonPath", quote!(json_path)),
        ("description", quote!(description)),
        ("format", quote!(format)),
    ] {
        if let Some(s) = c.get(k).and_then(Value::as_str) {
            p.push(quote!(#key = #s));
        }
    }
    if let Some(n) = c.get("priority").and_then(Value::as_i64) {
        let n = proc_macro2::Literal::i64_unsuffixed(n);
        p.push(quote!(priority = #n));
    }
    if let (Some(root), Some(path)) = (root, c.get("jsonPath").and_then(Value::as_str))
        && kubegen_core::crd::resolve_json_path(root, path).is_err()
    {
        p.push(quote!(unchecked));
    }
    quote!(#[kubegen(printcolumn(#(#p),*))])
}

/// `conversion(...)` for a webhook conversion.
fn conversion_attr(crd: &Value) -> Option<TokenStream> {
    let conversion = crd.pointer("/spec/conversion")?;
    if str_at(conversion, "/strategy") != Some("Webhook") {
        return None;
    }
    let config = conversion.pointer("/webhook/clientConfig")?;
    let mut p = Vec::new();
    if let Some(service) = config.get("service") {
        let name = str_at(service, "/name").unwrap_or_default();
        let namespace = str_at(service, "/namespace").unwrap_or_default();
        p.push(quote!(service = #name));
        p.push(quote!(namespace = #namespace));
        if let Some(path) = str_at(service, "/path") {
            p.push(quote!(path = #path));
        }
        if let Some(port) = service.get("port").and_then(Value::as_u64) {
            let port = proc_macro2::Literal::u64_unsuffixed(port);
            p.push(quote!(port = #port));
        }
    } else if let Some(url) = str_at(config, "/url") {
        p.push(quote!(url = #url));
    }
    // Served by the CRD's own project, not by this crate.
    p.push(quote!(external));
    let review: Vec<String> = strings(conversion.pointer("/webhook/conversionReviewVersions"));
    if review != ["v1"] {
        p.push(quote!(review_versions = [#(#review),*]));
    }
    Some(quote!(#[kubegen(conversion(#(#p),*))]))
}

/// The root's `apiVersion`, `kind` and `metadata` schemas when they are not
/// the ones kubegen writes (hand-written CRDs often leave them out).
fn type_meta(root: Option<&Value>, no_descriptions: bool) -> Option<Value> {
    use kubegen_core::crd::{API_VERSION_DESCRIPTION, KIND_DESCRIPTION};
    // A root without `properties` (`{type: object}`) names none of them.
    let props = root?.get("properties").and_then(Value::as_object);
    let mut given = Map::new();
    for k in ["apiVersion", "kind", "metadata"] {
        if let Some(v) = props.and_then(|p| p.get(k)) {
            given.insert(k.to_owned(), v.clone());
        }
    }
    let mut standard = serde_json::json!({
        "apiVersion": {"type": "string", "description": API_VERSION_DESCRIPTION},
        "kind": {"type": "string", "description": KIND_DESCRIPTION},
        "metadata": {"type": "object"},
    });
    if no_descriptions {
        for k in ["apiVersion", "kind"] {
            if let Some(m) = standard[k].as_object_mut() {
                m.remove("description");
            }
        }
    }
    let given = Value::Object(given);
    (given != standard).then_some(given)
}

/// Whether any schema node under `schema` has a description.
fn has_description(schema: &Value) -> bool {
    let Value::Object(m) = schema else {
        return false;
    };
    m.contains_key("description")
        || m.iter().any(|(k, v)| match (k.as_str(), v) {
            ("properties", Value::Object(p)) => p.values().any(has_description),
            ("items" | "additionalProperties" | "not", v) => has_description(v),
            ("allOf" | "anyOf" | "oneOf", Value::Array(a)) => a.iter().any(has_description),
            _ => false,
        })
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// Plans and renders every version of `crd` (already checked by
/// [`refusal`]); `explicit` holds, per version, the schema pointers to
/// write verbatim.
pub fn render(crd: &Value, explicit: &BTreeMap<String, BTreeSet<String>>) -> Vec<VersionModule> {
    let kind = str_at(crd, "/spec/names/kind").unwrap_or_default();
    let group = str_at(crd, "/spec/group").unwrap_or_default();
    // The root type the derive writes for the kind (`postgresql` →
    // `Postgresql`).
    let kind_ident = kubegen_codegen::names::kind_type(kind);
    let spec_name = format!("{kind_ident}Spec");
    let status_name = format!("{kind_ident}Status");
    let empty = BTreeSet::new();
    let mut out = Vec::new();
    for v in crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let version = str_at(v, "/name").unwrap_or_default().to_owned();
        let root = v
            .pointer("/schema/openAPIV3Schema")
            .cloned()
            .unwrap_or_default();
        let props = root
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_else(Map::new);
        let flat = flattened(v);
        let has_status = props.contains_key("status") && !flat;
        let mut planner = Planner::new(
            explicit.get(&version).unwrap_or(&empty),
            &[
                kind_ident.as_str(),
                spec_name.as_str(),
                status_name.as_str(),
            ],
        );
        let attr = resource_attr(crd, v, has_status.then_some(status_name.as_str()));
        if flat {
            planner.root(&flattened_spec(&root, &props), "", &spec_name, attr);
        } else {
            let spec = props.get("spec").cloned().unwrap_or_default();
            planner.root(&spec, "/properties/spec", &spec_name, attr);
        }
        if let Some(status) = props.get("status") {
            planner.root(
                status,
                "/properties/status",
                &status_name,
                TokenStream::new(),
            );
        }
        let plan = planner.module;
        let source = module_source(kind, group, &version, &plan.items);
        out.push(VersionModule {
            version,
            kind_module: super::names::field_ident(&kind_ident),
            kind: kind_ident.clone(),
            group_module: group_module(group),
            source,
            plan: Locations {
                type_nodes: plan.type_nodes,
                field_nodes: plan.field_nodes,
            },
        });
    }
    out
}

/// The spec node of a flattened version: the root schema with every
/// top-level field but the object's type and metadata, and `metadata` no
/// longer required.
fn flattened_spec(root: &Value, props: &Map<String, Value>) -> Value {
    let mut node = root.as_object().cloned().unwrap_or_default();
    let mut fields = props.clone();
    for k in ["apiVersion", "kind", "metadata"] {
        fields.remove(k);
    }
    node.insert("properties".into(), Value::Object(fields));
    if let Some(Value::Array(r)) = node.get_mut("required") {
        r.retain(|x| x != "metadata");
        if r.is_empty() {
            node.remove("required");
        }
    }
    Value::Object(node)
}

/// The Rust source of one version's module: its doc, its lint allowances
/// and its planned items, formatted (or, should the tokens not parse, a
/// `compile_error!` and the raw tokens).
fn module_source(kind: &str, group: &str, version: &str, items: &[TokenStream]) -> String {
    let doc = format!(" The `{kind}` kind of `{group}/{version}`, imported from its CRD.");
    let tokens = quote! {
        #![doc = #doc]
        #![allow(clippy::all, missing_docs)]
        #(#items)*
    };
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(e) => format!("compile_error!({:?});\n{tokens}\n", e.to_string()),
    }
}
