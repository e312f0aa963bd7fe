//! CustomResourceDefinition assembly: one version from a resource model and
//! its schemas, JSON-path checks, description trimming and multi-version merge.

use serde_json::{Map, Value, json};

use crate::model::{Conversion, ResourceModel};
use crate::output::{self, SizeCheck};
use crate::schema::{self, SchemaError, structural};
use crate::truncate::truncate;

/// Why a CRD could not be produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrdError {
    /// A nested schema could not be built.
    Schema(SchemaError),
    /// The result breaks the apiserver's structural-schema rules.
    NotStructural {
        /// The CRD name.
        crd: String,
        /// Each violation, with its schema path.
        violations: Vec<String>,
    },
    /// A printer column, scale or selectable-field path names nothing.
    JsonPath {
        /// The offending path.
        path: String,
        /// Why.
        message: String,
    },
    /// The rendered CRD is over etcd's limit.
    TooLarge {
        /// The CRD name.
        crd: String,
        /// Its size in bytes.
        bytes: usize,
    },
    /// Versions of one kind cannot be merged.
    Merge(String),
    /// The JSON could not be decoded into a typed CRD.
    Decode(String),
}

impl std::fmt::Display for CrdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CrdError::Schema(e) => write!(f, "schema error: {e}"),
            CrdError::NotStructural { crd, violations } => {
                write!(f, "CRD {crd} is not structural: {}", violations.join("; "))
            }
            CrdError::JsonPath { path, message } => write!(f, "JSON path `{path}`: {message}"),
            CrdError::TooLarge { crd, bytes } => write!(
                f,
                "CRD {crd} is {bytes} bytes, over the {} byte limit; set `max_description_len`",
                output::MAX_BYTES
            ),
            CrdError::Merge(m) => write!(f, "cannot merge CRD versions: {m}"),
            CrdError::Decode(m) => write!(f, "cannot decode CRD: {m}"),
        }
    }
}

impl std::error::Error for CrdError {}

impl From<SchemaError> for CrdError {
    fn from(e: SchemaError) -> Self {
        CrdError::Schema(e)
    }
}

/// `metadata` fields a JSON path may name.
const OBJECT_META_FIELDS: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
    "selfLink",
];

/// How to keep a printer column whose path the schema does not declare.
pub const UNCHECKED_REMEDY: &str = " (if the column shows a field the schema does not declare on purpose — the apiserver accepts it and kubectl shows it empty — add `unchecked` to `printcolumn(...)`)";

/// Splits `.a.b[0].c` / `.a[?(@.x=="y")].b` into segments; `[...]` becomes `[]`.
fn segments(path: &str) -> Result<Vec<String>, String> {
    let Some(rest) = path.strip_prefix('.') else {
        return Err("must start with `.`".into());
    };
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    for ch in rest.chars() {
        match ch {
            '[' => {
                depth += 1;
                if depth == 1 {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                    out.push("[]".into());
                }
            }
            ']' => depth = depth.saturating_sub(1),
            '.' if depth == 0 && !cur.is_empty() => out.push(std::mem::take(&mut cur)),
            '.' if depth == 0 => {}
            _ if depth == 0 => cur.push(ch),
            _ => {}
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    if out.is_empty() {
        return Err("names no field".into());
    }
    Ok(out)
}

/// Resolves a JSON path against a root schema; returns the leaf schema.
pub fn resolve_json_path<'a>(root: &'a Value, path: &str) -> Result<Option<&'a Value>, String> {
    let segs = segments(path)?;
    if segs[0] == "metadata" {
        return match segs.get(1) {
            None => Ok(None),
            Some(f) if OBJECT_META_FIELDS.contains(&f.as_str()) => Ok(None),
            Some(f) => Err(format!("`metadata` has no field `{f}`")),
        };
    }
    let mut node = root;
    let mut walked = String::new();
    for seg in &segs {
        if node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
            && node.get("properties").is_none()
        {
            return Ok(None);
        }
        if seg == "[]" {
            node = node
                .get("items")
                .ok_or_else(|| format!("`{walked}` is not a list"))?;
            walked.push_str("[]");
            continue;
        }
        if let Some(next) = node.get("properties").and_then(|p| p.get(seg)) {
            node = next;
        } else if let Some(ap) = node.get("additionalProperties") {
            node = ap;
        } else {
            let known: Vec<&str> = node
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let hint = crate::suggest::suggest(seg, known.iter().copied())
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            let at = if walked.is_empty() {
                "the object".to_owned()
            } else {
                format!("`.{walked}`")
            };
            return Err(format!("{at} has no field `{seg}`{hint}"));
        }
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(seg);
    }
    Ok(Some(node))
}

fn check_path(root: &Value, path: &str, prefix: Option<&str>) -> Result<Option<Value>, CrdError> {
    if let Some(p) = prefix
        && !path.starts_with(p)
    {
        return Err(CrdError::JsonPath {
            path: path.into(),
            message: format!("must start with `{p}`"),
        });
    }
    resolve_json_path(root, path)
        .map(|v| v.cloned())
        .map_err(|message| CrdError::JsonPath {
            path: path.into(),
            message,
        })
}

/// A printer column's type when the attribute leaves it out: the schema
/// type of the field it shows (`date` for date-time strings and for
/// `.metadata.creationTimestamp`), `string` when the path is not typed.
pub fn infer_column_type(path: &str, leaf: Option<&Value>) -> String {
    if path == ".metadata.creationTimestamp" {
        return "date".into();
    }
    let Some(leaf) = leaf else {
        return "string".into();
    };
    match leaf.get("type").and_then(Value::as_str) {
        Some(t @ ("integer" | "number" | "boolean")) => t.into(),
        Some("string") if leaf.get("format").and_then(Value::as_str) == Some("date-time") => {
            "date".into()
        }
        _ => "string".into(),
    }
}

/// Cuts the description of `schema`, and of every schema nested in it, as
/// controller-gen's `maxDescLen=max` does ([`truncate`]: back to a
/// sentence end, or to a word end followed by `...`); `0` removes them.
/// Only schema nodes are visited: a `description` key inside `default`,
/// `example` or `enum` values is data and stays as it is.
pub fn truncate_descriptions(schema: &mut Value, max: usize) {
    let Value::Object(m) = schema else {
        return;
    };
    if max == 0 {
        m.remove("description");
    }
    if let Some(Value::String(s)) = m.get_mut("description")
        && s.len() > max
    {
        *s = truncate(s, max);
    }
    for (key, value) in m.iter_mut() {
        match (key.as_str(), value) {
            ("properties" | "patternProperties" | "definitions", Value::Object(map)) => {
                map.values_mut().for_each(|s| truncate_descriptions(s, max))
            }
            ("items" | "allOf" | "anyOf" | "oneOf", Value::Array(list)) => {
                list.iter_mut().for_each(|s| truncate_descriptions(s, max))
            }
            ("items" | "additionalProperties" | "additionalItems" | "not", s) => {
                truncate_descriptions(s, max)
            }
            _ => {}
        }
    }
}

/// The CEL rules on `metadata.name` the resource asks for: at the root,
/// the only place where a rule can see the name.
fn name_rules(res: &ResourceModel) -> Vec<Value> {
    let mut rules = Vec::new();
    if let Some(max) = res.max_name_length {
        rules.push(json!({
            "rule": format!("size(self.metadata.name) <= {max}"),
            "message": format!("metadata.name must be at most {max} characters long"),
        }));
    }
    if let Some(pattern) = &res.name_pattern {
        // A CEL string literal: backslashes doubled (quotes cannot occur).
        let literal = pattern.replace('\\', "\\\\");
        rules.push(json!({
            "rule": format!("self.metadata.name.matches('{literal}')"),
            "message": format!("metadata.name must match {pattern}"),
        }));
    }
    rules
}

/// The description of `apiVersion` in every kind's schema: the text of
/// apimachinery's `TypeMeta`, as Kubernetes' own tools write it.
pub const API_VERSION_DESCRIPTION: &str = "APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";

/// The description of `kind` in every kind's schema (apimachinery's `TypeMeta`).
pub const KIND_DESCRIPTION: &str = "Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/// The `openAPIV3Schema` of one version.
pub fn root_schema(res: &ResourceModel, spec: Value, status: Option<Value>) -> Value {
    let description = match res.kind_description.as_deref() {
        Some("") => None,
        Some(d) => Some(Value::from(d)),
        None => spec.get("description").cloned(),
    };
    let mut props = Map::new();
    match &res.type_meta_schema {
        Some(given) => props.extend(given.clone()),
        None => {
            props.insert(
                "apiVersion".into(),
                json!({"type": "string", "description": API_VERSION_DESCRIPTION}),
            );
            props.insert(
                "kind".into(),
                json!({"type": "string", "description": KIND_DESCRIPTION}),
            );
            props.insert("metadata".into(), json!({"type": "object"}));
        }
    }
    let mut root = json!({"type": "object"});
    let mut required: Vec<Value> = Vec::new();
    if res.required_metadata {
        required.push("metadata".into());
    }
    if res.flatten_spec {
        // The spec's own properties, rules and requirements are the root's.
        if let Value::Object(mut m) = spec {
            if let Some(Value::Object(p)) = m.remove("properties") {
                props.extend(p);
            }
            if let Some(Value::Array(r)) = m.remove("required") {
                required.extend(r);
            }
            m.remove("description");
            m.remove("type");
            if let Value::Object(r) = &mut root {
                r.extend(m);
            }
        }
    } else {
        props.insert("spec".into(), spec);
        if !res.optional_spec {
            required.push("spec".into());
        }
    }
    if let Some(s) = status {
        props.insert("status".into(), s);
    }
    // A hand-written schema may leave out even the type meta: `{type: object}`.
    if !props.is_empty() {
        root["properties"] = Value::Object(props);
    }
    if !required.is_empty() {
        root["required"] = Value::Array(required);
    }
    if let (Some(d), Value::Object(m)) = (description, &mut root) {
        m.insert("description".into(), d);
    }
    let name_rules = name_rules(res);
    if !name_rules.is_empty() {
        // After the flattened spec's own rules, which are the root's too.
        match &mut root["x-kubernetes-validations"] {
            Value::Array(rules) => rules.extend(name_rules),
            slot => *slot = Value::Array(name_rules),
        }
    }
    if let Some(max) = res.max_description_len {
        truncate_descriptions(&mut root, max);
    }
    root
}

/// Assembles and checks the CRD of one resource version.
pub fn crd_json(
    res: &ResourceModel,
    spec: Value,
    status: Option<Value>,
) -> Result<Value, CrdError> {
    let spec = schema::strip_marker(spec);
    let status = status.map(schema::strip_marker);
    let root = root_schema(res, spec, status);
    let mut version = Map::new();
    version.insert("name".into(), res.version.clone().into());
    version.insert("served".into(), res.served.into());
    version.insert("storage".into(), res.storage.into());
    if res.deprecated {
        version.insert("deprecated".into(), true.into());
    }
    if let Some(w) = &res.deprecation_warning {
        version.insert("deprecationWarning".into(), w.clone().into());
    }
    let mut subresources = Map::new();
    if res.has_status {
        subresources.insert("status".into(), json!({}));
    }
    if let Some(scale) = &res.scale {
        // The apiserver's rule is the prefix; a field the schema lacks is
        // refused as a likely typo unless the scale is `unchecked`.
        let scale_path = |path: &str, prefixes: &[&str]| -> Result<(), CrdError> {
            if !prefixes.iter().any(|p| path.starts_with(p)) {
                return Err(CrdError::JsonPath {
                    path: path.into(),
                    message: format!("must start with `{}`", prefixes.join("` or `")),
                });
            }
            if scale.unchecked {
                return Ok(());
            }
            check_path(&root, path, None).map(drop).map_err(|e| match e {
                CrdError::JsonPath { path, message } => CrdError::JsonPath {
                    path,
                    message: format!(
                        "{message} (if the scale subresource uses a field the schema does not declare on purpose — the apiserver accepts it — add `unchecked` to `scale(...)`)"
                    ),
                },
                e => e,
            })
        };
        scale_path(&scale.spec_replicas_path, &[".spec."])?;
        scale_path(&scale.status_replicas_path, &[".status."])?;
        let mut s = json!({
            "specReplicasPath": scale.spec_replicas_path,
            "statusReplicasPath": scale.status_replicas_path,
        });
        if let Some(sel) = &scale.label_selector_path {
            scale_path(sel, &[".spec.", ".status."])?;
            s["labelSelectorPath"] = sel.clone().into();
        }
        subresources.insert("scale".into(), s);
    }
    if !subresources.is_empty() {
        version.insert("subresources".into(), Value::Object(subresources));
    }
    if !res.printer_columns.is_empty() {
        let mut cols = Vec::new();
        for c in &res.printer_columns {
            let leaf = if c.unchecked {
                resolve_json_path(&root, &c.json_path)
                    .ok()
                    .flatten()
                    .cloned()
            } else {
                check_path(&root, &c.json_path, None).map_err(|e| match e {
                    CrdError::JsonPath { path, message } => CrdError::JsonPath {
                        path,
                        message: format!("{message}{UNCHECKED_REMEDY}"),
                    },
                    e => e,
                })?
            };
            let type_ = if c.type_.is_empty() {
                infer_column_type(&c.json_path, leaf.as_ref())
            } else {
                c.type_.clone()
            };
            let mut col = json!({"name": c.name, "type": type_, "jsonPath": c.json_path});
            if let Some(d) = &c.description {
                col["description"] = d.clone().into();
            }
            if let Some(f) = &c.format {
                col["format"] = f.clone().into();
            }
            if let Some(p) = c.priority {
                col["priority"] = p.into();
            }
            cols.push(col);
        }
        version.insert("additionalPrinterColumns".into(), Value::Array(cols));
    }
    if !res.selectable_fields.is_empty() {
        let mut fields = Vec::new();
        for p in &res.selectable_fields {
            if let Some(leaf) = check_path(&root, p, None)? {
                let t = leaf.get("type").and_then(Value::as_str);
                if !matches!(t, Some("string" | "integer" | "boolean")) {
                    return Err(CrdError::JsonPath {
                        path: p.clone(),
                        message: "a selectable field must be a string, integer or boolean".into(),
                    });
                }
            }
            fields.push(json!({"jsonPath": p}));
        }
        version.insert("selectableFields".into(), Value::Array(fields));
    }
    structural::check_root(&root).map_err(|violations| CrdError::NotStructural {
        crd: res.crd_name(),
        violations,
    })?;
    version.insert("schema".into(), json!({"openAPIV3Schema": root}));
    let mut names = json!({
        "kind": res.kind,
        "listKind": res.list_kind(),
        "plural": res.plural,
        "singular": res.singular,
    });
    if !res.short_names.is_empty() {
        names["shortNames"] = json!(res.short_names);
    }
    if !res.categories.is_empty() {
        names["categories"] = json!(res.categories);
    }
    let mut metadata = json!({"name": res.crd_name()});
    if !res.crd_labels.is_empty() {
        metadata["labels"] = json!(res.crd_labels);
    }
    if !res.crd_annotations.is_empty() {
        metadata["annotations"] = json!(res.crd_annotations);
    }
    let mut crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": metadata,
        "spec": {
            "group": res.group,
            "names": names,
            "scope": if res.namespaced { "Namespaced" } else { "Cluster" },
            "versions": [Value::Object(version)],
        }
    });
    if let Some(conversion) = &res.conversion {
        crd["spec"]["conversion"] = conversion_json(conversion);
    }
    let crd = output::canonical(&crd);
    // The limit applies to what the apiserver stores: compact JSON (the
    // indentation of a pretty rendering is not stored).
    let stored = serde_json::to_string(&crd).unwrap_or_default();
    if let SizeCheck::TooLarge(bytes) = output::check_size(&stored) {
        return Err(CrdError::TooLarge {
            crd: res.crd_name(),
            bytes,
        });
    }
    Ok(crd)
}

/// A CRD's `spec.conversion` for a webhook: ConversionReview v1 only (the
/// `caBundle` is injected at deploy time).
pub fn conversion_json(conversion: &Conversion) -> Value {
    json!({
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": conversion.webhook.client_config(),
            "conversionReviewVersions": if conversion.review_versions.is_empty() {
                json!(["v1"])
            } else {
                json!(conversion.review_versions)
            },
        }
    })
}

/// Orders versions as Kubernetes does: GA, then beta, then alpha, newest first.
pub fn version_priority(v: &str) -> (u8, u64, u64, String) {
    let parse = |s: &str| -> Option<(u64, u8, u64)> {
        let rest = s.strip_prefix('v')?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let major = digits.parse().ok()?;
        let tail = &rest[digits.len()..];
        if tail.is_empty() {
            return Some((major, 3, 0));
        }
        let (level, n) = if let Some(n) = tail.strip_prefix("beta") {
            (2, n)
        } else {
            (1, tail.strip_prefix("alpha")?)
        };
        Some((major, level, n.parse().ok()?))
    };
    match parse(v) {
        Some((major, level, minor)) => (level, major, minor, String::new()),
        None => (0, 0, 0, v.to_owned()),
    }
}

/// Merges single-version CRDs of one kind into one multi-version CRD.
///
/// Exactly one version must be the storage version and at least one served.
pub fn merge_crds(crds: &[Value]) -> Result<Value, CrdError> {
    merge(crds, false)
}

/// [`merge_crds`] for kinds that declare `allow_lossy_versions`: served
/// versions may then hold different fields without a conversion.
pub fn merge_crds_allowing_lossy_versions(crds: &[Value]) -> Result<Value, CrdError> {
    merge(crds, true)
}

fn merge(crds: &[Value], allow_lossy: bool) -> Result<Value, CrdError> {
    let Some(first) = crds.first() else {
        return Err(CrdError::Merge("no CRDs given".into()));
    };
    let name = first.pointer("/metadata/name").cloned().unwrap_or_default();
    let mut versions: Vec<Value> = Vec::new();
    for crd in crds {
        for key in [
            "/metadata/name",
            "/spec/group",
            "/spec/names/kind",
            "/spec/scope",
        ] {
            if crd.pointer(key) != first.pointer(key) {
                return Err(CrdError::Merge(format!(
                    "`{key}` differs: {} vs {}",
                    first.pointer(key).unwrap_or(&Value::Null),
                    crd.pointer(key).unwrap_or(&Value::Null)
                )));
            }
        }
        for v in crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if versions.iter().any(|x| x.get("name") == v.get("name")) {
                return Err(CrdError::Merge(format!(
                    "version {} is given twice",
                    v.get("name").unwrap_or(&Value::Null)
                )));
            }
            versions.push(v.clone());
        }
    }
    let storage: Vec<&str> = versions
        .iter()
        .filter(|v| v.get("storage") == Some(&Value::Bool(true)))
        .filter_map(|v| v.get("name").and_then(Value::as_str))
        .collect();
    if storage.len() != 1 {
        return Err(CrdError::Merge(format!(
            "CRD {name} needs exactly one storage version, found {} ({}); mark the others `storage = false`",
            storage.len(),
            storage.join(", ")
        )));
    }
    if !versions
        .iter()
        .any(|v| v.get("served") == Some(&Value::Bool(true)))
    {
        return Err(CrdError::Merge(format!("CRD {name} has no served version")));
    }
    versions.sort_by_key(|v| {
        std::cmp::Reverse(version_priority(
            v.get("name").and_then(Value::as_str).unwrap_or(""),
        ))
    });
    let conversion = merged_conversion(&name, crds)?;
    if conversion.is_none() && !allow_lossy {
        refuse_lossy_versions(&name, first, &versions)?;
    }
    let mut out = first.clone();
    out["spec"]["versions"] = Value::Array(versions);
    match conversion {
        Some(c) => out["spec"]["conversion"] = c,
        None => {
            if let Some(spec) = out["spec"].as_object_mut() {
                spec.remove("conversion");
            }
        }
    }
    Ok(out)
}

/// The one `spec.conversion` the versions declare (written on one version,
/// or identically on several).
fn merged_conversion(name: &Value, crds: &[Value]) -> Result<Option<Value>, CrdError> {
    let mut found: Option<&Value> = None;
    for c in crds.iter().filter_map(|c| c.pointer("/spec/conversion")) {
        match found {
            Some(f) if f != c => {
                return Err(CrdError::Merge(format!(
                    "CRD {name}: versions declare different `conversion(...)` settings ({} vs {}); write `conversion(...)` once, on one version of the kind",
                    output::to_json(f),
                    output::to_json(c)
                )));
            }
            _ => found = Some(c),
        }
    }
    Ok(found.cloned())
}

/// Without a conversion webhook the apiserver converts by rewriting
/// `apiVersion` only, so a field one version has and another lacks is
/// pruned whenever an object crosses versions. Two versions the apiserver
/// may convert between (the served ones and the storage version) must
/// therefore hold the same data: the same fields with the same types.
/// Validations, defaults and descriptions may differ — they never drop data.
fn refuse_lossy_versions(name: &Value, crd: &Value, versions: &[Value]) -> Result<(), CrdError> {
    let reachable: Vec<(&str, Value)> = versions
        .iter()
        .filter(|v| {
            v.get("served") == Some(&Value::Bool(true))
                || v.get("storage") == Some(&Value::Bool(true))
        })
        .map(|v| {
            let schema = v
                .pointer("/schema/openAPIV3Schema")
                .cloned()
                .unwrap_or(Value::Null);
            (
                v.get("name").and_then(Value::as_str).unwrap_or(""),
                data_shape(&schema),
            )
        })
        .collect();
    let Some((base_name, base)) = reachable.first() else {
        return Ok(());
    };
    for (other_name, other) in &reachable[1..] {
        if base == other {
            continue;
        }
        let kind = crd
            .pointer("/spec/names/kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        let name = name.as_str().unwrap_or("");
        let mut differences = Vec::new();
        shape_differences("", base, other, base_name, other_name, &mut differences);
        differences.truncate(5);
        return Err(CrdError::Merge(format!(
            "CRD {name}: kind {kind} serves versions {base_name} and {other_name} with different fields ({}) but declares no conversion, so the apiserver would drop those fields whenever an object is read or written at the other version. Declare `conversion(service = \"...\", namespace = \"...\")` on one version of the kind and implement the conversions to and from the hub version, give both versions the same fields, or stop serving the old version (`served = false`)",
            differences.join("; ")
        )));
    }
    Ok(())
}

/// The part of a schema that decides which data survives: types, fields,
/// items, map values and the `x-kubernetes-*` shape markers.
fn data_shape(schema: &Value) -> Value {
    let Value::Object(m) = schema else {
        return Value::Null;
    };
    let mut out = Map::new();
    for (k, v) in m {
        match k.as_str() {
            "type"
            | "x-kubernetes-preserve-unknown-fields"
            | "x-kubernetes-int-or-string"
            | "x-kubernetes-embedded-resource" => {
                out.insert(k.clone(), v.clone());
            }
            "items" => {
                out.insert(k.clone(), data_shape(v));
            }
            "additionalProperties" => {
                let shape = if v.is_object() {
                    data_shape(v)
                } else {
                    v.clone()
                };
                out.insert(k.clone(), shape);
            }
            "properties" => {
                let props: Map<String, Value> = v
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(name, s)| (name.clone(), data_shape(s)))
                    .collect();
                out.insert(k.clone(), Value::Object(props));
            }
            _ => {}
        }
    }
    Value::Object(out)
}

/// Human descriptions of where two data shapes differ, as field paths.
fn shape_differences(
    path: &str,
    a: &Value,
    b: &Value,
    a_name: &str,
    b_name: &str,
    out: &mut Vec<String>,
) {
    if a == b {
        return;
    }
    let shown = if path.is_empty() { "the root" } else { path };
    let props = |v: &Value| v.get("properties").and_then(Value::as_object).cloned();
    let rest = |v: &Value| {
        let mut v = v.clone();
        if let Some(m) = v.as_object_mut() {
            m.remove("properties");
            m.remove("items");
            m.remove("additionalProperties");
        }
        v
    };
    if rest(a) != rest(b) {
        out.push(format!(
            "`{shown}` is {} in {a_name} but {} in {b_name}",
            describe_shape(a),
            describe_shape(b)
        ));
        return;
    }
    let (pa, pb) = (props(a).unwrap_or_default(), props(b).unwrap_or_default());
    let join = |name: &str| {
        if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        }
    };
    for (name, sa) in &pa {
        match pb.get(name) {
            Some(sb) => shape_differences(&join(name), sa, sb, a_name, b_name, out),
            None => out.push(format!("{a_name} has `{}`, {b_name} does not", join(name))),
        }
    }
    for name in pb.keys().filter(|n| !pa.contains_key(*n)) {
        out.push(format!("{b_name} has `{}`, {a_name} does not", join(name)));
    }
    for key in ["items", "additionalProperties"] {
        let (ia, ib) = (
            a.get(key).unwrap_or(&Value::Null),
            b.get(key).unwrap_or(&Value::Null),
        );
        let suffix = if key == "items" { "[]" } else { "{}" };
        shape_differences(&format!("{shown}{suffix}"), ia, ib, a_name, b_name, out);
    }
}

fn describe_shape(v: &Value) -> String {
    if v.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return "an int-or-string".into();
    }
    if v.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
        return "free-form (unknown fields kept)".into();
    }
    match v.get("type").and_then(Value::as_str) {
        Some(t) => format!("of type {t}"),
        None => "untyped".into(),
    }
}

#[cfg(test)]
mod column_type_tests {
    use super::*;

    #[test]
    fn column_types_follow_the_schema() {
        assert_eq!(
            infer_column_type(".metadata.creationTimestamp", None),
            "date"
        );
        assert_eq!(
            infer_column_type(".spec.x", Some(&json!({"type": "integer"}))),
            "integer"
        );
        assert_eq!(
            infer_column_type(".spec.x", Some(&json!({"type": "boolean"}))),
            "boolean"
        );
        assert_eq!(
            infer_column_type(
                ".status.t",
                Some(&json!({"type": "string", "format": "date-time"}))
            ),
            "date"
        );
        assert_eq!(
            infer_column_type(".spec.x", Some(&json!({"type": "string"}))),
            "string"
        );
        assert_eq!(
            infer_column_type(".status.conditions[0].status", None),
            "string"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{PrinterColumn, Verbs};

    fn res(version: &str, storage: bool) -> ResourceModel {
        ResourceModel {
            group: "example.com".into(),
            version: version.into(),
            kind: "Foo".into(),
            plural: "foos".into(),
            singular: "foo".into(),
            short_names: vec![],
            categories: vec![],
            namespaced: true,
            has_status: false,
            scale: None,
            printer_columns: vec![],
            selectable_fields: vec![],
            storage,
            served: true,
            deprecated: false,
            deprecation_warning: None,
            crd_labels: Default::default(),
            crd_annotations: Default::default(),
            verbs: Verbs::default(),
            max_description_len: None,
            max_name_length: None,
            name_pattern: None,
            conversion: None,
            admission: None,
            ..ResourceModel::default()
        }
    }

    fn webhook() -> Conversion {
        Conversion {
            hub: None,
            webhook: crate::model::WebhookTarget::Service {
                name: "shop-webhook".into(),
                namespace: "shop-system".into(),
                path: Some("/convert".into()),
                port: Some(443),
            },
            external: false,
            review_versions: Vec::new(),
        }
    }

    fn other_spec() -> Value {
        json!({"type": "object", "properties": {"size": {"type": "string"}, "lines": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}})
    }

    #[test]
    fn versions_with_different_fields_need_a_conversion() {
        let v1 = crd_json(&res("v1", false), spec(), None).unwrap();
        let v2 = crd_json(&res("v2", true), other_spec(), None).unwrap();
        let e = merge_crds(&[v1.clone(), v2.clone()])
            .unwrap_err()
            .to_string();
        for part in [
            "CRD foos.example.com: kind Foo serves versions v2 and v1",
            "`spec.size` is of type string in v2 but of type integer in v1",
            "v2 has `spec.lines`, v1 does not",
            "v1 has `spec.items`, v2 does not",
            "declares no conversion",
            "conversion(service",
            "served = false",
        ] {
            assert!(e.contains(part), "missing {part:?} in: {e}");
        }

        // A version nobody reads or writes cannot lose data.
        let mut hidden = res("v1", false);
        hidden.served = false;
        let hidden = crd_json(&hidden, spec(), None).unwrap();
        assert!(merge_crds(&[hidden, v2.clone()]).is_ok());

        // A conversion written on one version serves the whole kind.
        let mut hub = res("v2", true);
        hub.conversion = Some(webhook());
        let hub = crd_json(&hub, other_spec(), None).unwrap();
        let merged = merge_crds(&[v1.clone(), hub.clone()]).unwrap();
        assert_eq!(
            merged["spec"]["conversion"],
            json!({"strategy": "Webhook", "webhook": {
                "clientConfig": {"service": {"name": "shop-webhook", "namespace": "shop-system", "path": "/convert", "port": 443}},
                "conversionReviewVersions": ["v1"],
            }})
        );

        // Two different declarations are refused.
        let mut other = res("v1", false);
        let mut c = webhook();
        c.webhook = crate::model::WebhookTarget::Url("https://example.com/convert".into());
        other.conversion = Some(c);
        let other = crd_json(&other, spec(), None).unwrap();
        let e = merge_crds(&[other, hub]).unwrap_err().to_string();
        assert!(e.contains("different `conversion(...)` settings"), "{e}");
    }

    #[test]
    fn versions_differing_only_in_validation_need_no_conversion() {
        let strict = json!({"type": "object", "description": "d", "properties": {"size": {"type": "integer", "minimum": 1, "default": 3}, "items": {"type": "array", "maxItems": 4, "items": {"type": "object", "properties": {"name": {"type": "string", "pattern": "^a"}}}}}});
        let v1 = crd_json(&res("v1", false), spec(), None).unwrap();
        let v2 = crd_json(&res("v2", true), strict, None).unwrap();
        let merged = merge_crds(&[v1, v2]).unwrap();
        assert!(merged["spec"].get("conversion").is_none());
        // A field that keeps unknown fields in one version only does lose
        // data in the other.
        let loose = json!({"type": "object", "properties": {"size": {"type": "integer"}, "items": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"name": {"type": "string"}}}}}});
        let v1 = crd_json(&res("v1", false), spec(), None).unwrap();
        let v2 = crd_json(&res("v2", true), loose, None).unwrap();
        let e = merge_crds(&[v1, v2]).unwrap_err().to_string();
        assert!(
            e.contains(
                "`spec.items[]` is free-form (unknown fields kept) in v2 but of type object in v1"
            ),
            "{e}"
        );
    }

    fn spec() -> Value {
        json!({"type": "object", "properties": {"size": {"type": "integer"}, "items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}})
    }

    #[test]
    fn name_rules_sit_at_the_root() {
        let mut r = res("v1", true);
        let plain = root_schema(&r, spec(), None);
        assert!(plain.get("x-kubernetes-validations").is_none());
        r.max_name_length = Some(55);
        r.name_pattern = Some(r"^[a-z]\d*$".into());
        let root = root_schema(&r, spec(), None);
        assert_eq!(
            root["x-kubernetes-validations"],
            json!([
                {
                    "rule": "size(self.metadata.name) <= 55",
                    "message": "metadata.name must be at most 55 characters long",
                },
                {
                    "rule": r"self.metadata.name.matches('^[a-z]\\d*$')",
                    "message": r"metadata.name must match ^[a-z]\d*$",
                },
            ])
        );
        assert!(
            root["properties"]["spec"]
                .get("x-kubernetes-validations")
                .is_none()
        );
    }

    #[test]
    fn single_version() {
        let crd = crd_json(&res("v1", true), spec(), None).unwrap();
        assert_eq!(crd["metadata"]["name"], "foos.example.com");
        assert_eq!(crd["spec"]["versions"][0]["storage"], true);
    }

    #[test]
    fn json_paths() {
        let mut r = res("v1", true);
        r.printer_columns.push(PrinterColumn {
            name: "S".into(),
            type_: "integer".into(),
            json_path: ".spec.sise".into(),
            description: None,
            format: None,
            priority: None,
            unchecked: false,
        });
        let e = crd_json(&r, spec(), None).unwrap_err().to_string();
        assert!(e.contains("did you mean `size`"), "{e}");
        // `unchecked`: the apiserver takes it, kubectl shows it empty.
        r.printer_columns[0].unchecked = true;
        let crd = crd_json(&r, spec(), None).unwrap();
        assert_eq!(
            crd["spec"]["versions"][0]["additionalPrinterColumns"][0]["jsonPath"],
            ".spec.sise"
        );
        r.printer_columns[0].unchecked = false;
        let root = root_schema(&r, spec(), None);
        assert!(
            resolve_json_path(&root, ".spec.items[0].name")
                .unwrap()
                .is_some()
        );
        assert!(resolve_json_path(&root, ".metadata.creationTimestamp").is_ok());
        assert!(resolve_json_path(&root, ".metadata.nope").is_err());
    }

    #[test]
    fn merge_needs_one_storage_version() {
        let a = crd_json(&res("v1", true), spec(), None).unwrap();
        let b = crd_json(&res("v1beta1", true), spec(), None).unwrap();
        let e = merge_crds(&[a.clone(), b]).unwrap_err().to_string();
        assert!(e.contains("exactly one storage version"), "{e}");
        let c = crd_json(&res("v1alpha1", false), spec(), None).unwrap();
        let merged = merge_crds(&[c, a]).unwrap();
        assert_eq!(merged["spec"]["versions"][0]["name"], "v1");
        assert_eq!(merged["spec"]["versions"][1]["name"], "v1alpha1");
    }

    #[test]
    fn truncation() {
        let mut v =
            json!({"description": "abcdef", "properties": {"a": {"description": "xyzxyz"}}});
        truncate_descriptions(&mut v, 3);
        assert_eq!(v["description"], "abc...");
        assert_eq!(v["properties"]["a"]["description"], "xyz...");

        // Data is not schema: descriptions inside defaults, examples and
        // enum values are kept whole; nested schemas are still cut.
        let mut v = json!({
            "type": "object",
            "default": {"description": "a default description"},
            "properties": {
                "description": {"type": "string", "description": "long long", "enum": [{"description": "enum value"}]},
                "list": {"type": "array", "items": {"description": "item item", "example": {"description": "example value"}}},
                "map": {"type": "object", "additionalProperties": {"description": "value value"}},
                "any": {"anyOf": [{"description": "first first"}]},
            },
        });
        truncate_descriptions(&mut v, 4);
        assert_eq!(v["default"]["description"], "a default description");
        assert_eq!(v["properties"]["description"]["description"], "long...");
        assert_eq!(
            v["properties"]["description"]["enum"][0]["description"],
            "enum value"
        );
        assert_eq!(v["properties"]["list"]["items"]["description"], "item...");
        assert_eq!(
            v["properties"]["list"]["items"]["example"]["description"],
            "example value"
        );
        assert_eq!(
            v["properties"]["map"]["additionalProperties"]["description"],
            "valu..."
        );
        assert_eq!(v["properties"]["any"]["anyOf"][0]["description"], "firs...");
    }
}

#[cfg(test)]
mod root_tests {
    use super::*;

    fn res() -> ResourceModel {
        ResourceModel {
            group: "example.com".into(),
            version: "v1".into(),
            kind: "Foo".into(),
            plural: "foos".into(),
            singular: "foo".into(),
            storage: true,
            served: true,
            ..ResourceModel::default()
        }
    }

    fn spec() -> Value {
        json!({"type": "object", "description": "The spec.", "required": ["a"],
               "properties": {"a": {"type": "string"}, "status": {"type": "object"}}})
    }

    #[test]
    fn the_root_follows_the_resource_options() {
        let plain = root_schema(&res(), spec(), None);
        assert_eq!(plain["required"], json!(["spec"]));
        assert_eq!(plain["description"], "The spec.");
        assert_eq!(
            plain["properties"]["apiVersion"]["description"],
            API_VERSION_DESCRIPTION
        );

        let mut r = res();
        r.optional_spec = true;
        r.required_metadata = true;
        r.kind_description = Some(String::new());
        let root = root_schema(&r, spec(), None);
        assert_eq!(root["required"], json!(["metadata"]));
        assert!(root.get("description").is_none());

        let mut r = res();
        r.flatten_spec = true;
        r.kind_description = Some("A Foo.".into());
        let root = root_schema(&r, spec(), None);
        assert_eq!(root["required"], json!(["a"]));
        assert_eq!(root["description"], "A Foo.");
        assert!(root["properties"].get("spec").is_none());
        assert_eq!(root["properties"]["a"]["type"], "string");
        assert_eq!(root["properties"]["metadata"]["type"], "object");

        let mut r = res();
        r.type_meta_schema = json!({"kind": {"type": "string"}}).as_object().cloned();
        let root = root_schema(&r, spec(), None);
        assert_eq!(root["properties"]["kind"], json!({"type": "string"}));
        assert!(root["properties"].get("apiVersion").is_none());
        assert!(root["properties"].get("metadata").is_none());

        let mut r = res();
        r.max_description_len = Some(0);
        let root = root_schema(&r, spec(), None);
        assert!(root.get("description").is_none());
        assert!(root["properties"]["kind"].get("description").is_none());
    }

    #[test]
    fn the_size_limit_counts_what_the_apiserver_stores() {
        // Deeply nested properties: the pretty rendering's indentation
        // alone would pass the limit, the stored (compact) JSON does not.
        let mut node = json!({"type": "string"});
        for i in 0..40 {
            node = json!({"type": "object", "properties": {format!("p{i}"): node}});
        }
        let mut props = Map::new();
        for i in 0..800 {
            props.insert(format!("f{i}"), node.clone());
        }
        let spec = json!({"type": "object", "properties": props});
        let crd = crd_json(&res(), spec, None).unwrap();
        let compact = serde_json::to_string(&crd).unwrap().len();
        assert!(compact <= output::MAX_BYTES, "{compact}");
        assert!(output::to_json(&crd).len() > output::MAX_BYTES);
    }
}
