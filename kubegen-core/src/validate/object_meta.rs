//! `metadata` as the apiserver reads and checks it, wherever an object
//! has one — at a resource's root and in every embedded resource
//! (`x-kubernetes-embedded-resource`).
//!
//! [`decode`] is apimachinery's `GetObjectMetaWithOptions` then
//! `SetObjectMeta`: the JSON decoded into Go's `metav1.ObjectMeta` as
//! `sigs.k8s.io/json` decodes it (keys in the order Go marshals them, case
//! sensitive; the first type error kept, an error of a timestamp's own
//! decoding ending it; unknown fields reported, strictly), with the error
//! text Go gives, then written back as the unstructured converter writes
//! it (empty fields omitted, timestamps normalized to UTC seconds).
//! [`validate`] is `ValidateObjectMetaAccessor`: name and `generateName`
//! by the caller's name rule, namespace, generation, labels, annotations,
//! owner references, finalizers and managed fields.

use serde_json::{Map, Value, json};

use super::field::{ErrorType, FieldError};
use crate::go::fmt::go_json;
use crate::go::names::{is_dns1123_label, label_key, label_value};
use crate::go::time::{format_rfc3339, parse_rfc3339};

/// A Go type `metav1.ObjectMeta` holds, as its decoder treats it.
#[derive(Clone, Copy)]
enum Ty {
    /// A string kind, by its Go name (`string`, `types.UID`).
    Str(&'static str),
    /// `int64` (or `*int64`: `ptr`).
    Int64 { ptr: bool },
    /// `*bool`.
    Bool,
    /// `metav1.Time` (`*metav1.Time`: `ptr`).
    Time { ptr: bool },
    /// `*metav1.FieldsV1`: any JSON, kept as it is.
    Fields,
    /// `map[string]string`.
    Labels,
    /// `[]string`.
    Strings,
    /// A slice of structs, by the slice's Go name.
    Structs(&'static Struct, &'static str),
}

/// A Go struct: its name and fields (JSON name, type, `omitempty`).
struct Struct {
    name: &'static str,
    go: &'static str,
    fields: &'static [(&'static str, Ty, bool)],
}

const OWNER_REFERENCE: Struct = Struct {
    name: "OwnerReference",
    go: "v1.OwnerReference",
    fields: &[
        ("apiVersion", Ty::Str("string"), false),
        ("kind", Ty::Str("string"), false),
        ("name", Ty::Str("string"), false),
        ("uid", Ty::Str("types.UID"), false),
        ("controller", Ty::Bool, true),
        ("blockOwnerDeletion", Ty::Bool, true),
    ],
};

const MANAGED_FIELDS_ENTRY: Struct = Struct {
    name: "ManagedFieldsEntry",
    go: "v1.ManagedFieldsEntry",
    fields: &[
        ("manager", Ty::Str("string"), true),
        ("operation", Ty::Str("v1.ManagedFieldsOperationType"), true),
        ("apiVersion", Ty::Str("string"), true),
        ("time", Ty::Time { ptr: true }, true),
        ("fieldsType", Ty::Str("string"), true),
        ("fieldsV1", Ty::Fields, true),
        ("subresource", Ty::Str("string"), true),
    ],
};

const OBJECT_META: Struct = Struct {
    name: "ObjectMeta",
    go: "v1.ObjectMeta",
    fields: &[
        ("name", Ty::Str("string"), true),
        ("generateName", Ty::Str("string"), true),
        ("namespace", Ty::Str("string"), true),
        ("selfLink", Ty::Str("string"), true),
        ("uid", Ty::Str("types.UID"), true),
        ("resourceVersion", Ty::Str("string"), true),
        ("generation", Ty::Int64 { ptr: false }, true),
        ("creationTimestamp", Ty::Time { ptr: false }, true),
        ("deletionTimestamp", Ty::Time { ptr: true }, true),
        ("deletionGracePeriodSeconds", Ty::Int64 { ptr: true }, true),
        ("labels", Ty::Labels, true),
        ("annotations", Ty::Labels, true),
        (
            "ownerReferences",
            Ty::Structs(&OWNER_REFERENCE, "[]v1.OwnerReference"),
            true,
        ),
        ("finalizers", Ty::Strings, true),
        (
            "managedFields",
            Ty::Structs(&MANAGED_FIELDS_ENTRY, "[]v1.ManagedFieldsEntry"),
            true,
        ),
    ],
};

/// `0001-01-01T00:00:00Z`, Go's zero time.
const ZERO_TIME: i64 = -62_135_596_800;

/// How [`decode`] treats what does not fit `ObjectMeta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A request: a malformed field is an error, unknown fields are
    /// reported (strict field validation and its default, warnings).
    Request,
    /// Storage (`DropMalformedFields`): malformed fields are dropped, one
    /// top-level field at a time.
    Storage,
}

/// `metadata` read as `ObjectMeta` and written back.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// The metadata as the apiserver writes it back (`SetObjectMeta`),
    /// `creationTimestamp` omitted when zero.
    pub meta: Value,
    /// The unknown fields, as paths under `prefix` (`metadata.foo`,
    /// `metadata.ownerReferences[0].bar`).
    pub unknown: Vec<String>,
}

/// Decodes `metadata` (its path `prefix`: `metadata`,
/// `spec.template.metadata`) as the apiserver does; the error is Go's
/// text (`json: cannot unmarshal number into Go struct field
/// ObjectMeta.name of type string`).
pub fn decode(metadata: &Value, prefix: &str, mode: Mode) -> Result<Decoded, String> {
    let mut unknown = Vec::new();
    let whole = Decoder::new(prefix).run(metadata, &mut unknown);
    match (whole, mode) {
        (Ok(meta), _) => Ok(Decoded { meta, unknown }),
        (Err(e), Mode::Request) => Err(e),
        (Err(_), Mode::Storage) => {
            let Value::Object(fields) = metadata else {
                return Err(format!(
                    "invalid metadata: expected object, got {}",
                    crate::go::fmt::go_type(metadata)
                ));
            };
            // Each field on its own; the ones that decode are kept.
            let mut kept = Map::new();
            for (k, v) in fields {
                let one = Value::Object(Map::from_iter([(k.clone(), v.clone())]));
                if let Ok(Value::Object(m)) = Decoder::new(prefix).run(&one, &mut Vec::new()) {
                    kept.extend(m);
                }
            }
            Ok(Decoded {
                meta: Value::Object(kept),
                unknown: Vec::new(),
            })
        }
    }
}

/// Go's decoder state: the first type error saved, and the context Go
/// names it with (the innermost struct and the JSON field names down to
/// it).
struct Decoder<'p> {
    prefix: &'p str,
    saved: Option<String>,
    structure: Option<&'static str>,
    stack: Vec<&'static str>,
}

/// What ends decoding at once: a timestamp's own error.
type Abort = String;

impl<'p> Decoder<'p> {
    fn new(prefix: &'p str) -> Decoder<'p> {
        Decoder {
            prefix,
            saved: None,
            structure: None,
            stack: Vec::new(),
        }
    }

    fn run(mut self, v: &Value, unknown: &mut Vec<String>) -> Result<Value, String> {
        let mut out = self.structure(v, &OBJECT_META, self.prefix.to_string(), unknown)?;
        if let Some(e) = self.saved {
            return Err(e);
        }
        // `Coerce` drops a zero creation timestamp.
        if let Some(m) = out.as_object_mut()
            && m.get("creationTimestamp") == Some(&Value::Null)
        {
            m.remove("creationTimestamp");
        }
        Ok(out)
    }

    /// `UnmarshalTypeError` with Go's context.
    fn type_error(&self, value: &str, ty: &str) -> String {
        match self.structure {
            Some(s) => format!(
                "json: cannot unmarshal {value} into Go struct field {s}.{} of type {ty}",
                self.stack.join(".")
            ),
            None => format!("json: cannot unmarshal {value} into Go value of type {ty}"),
        }
    }

    fn save(&mut self, value: &str, ty: &str) {
        if self.saved.is_none() {
            self.saved = Some(self.type_error(value, ty));
        }
    }

    /// A struct from `v` (its unknown fields' paths under `path`), as the
    /// unstructured converter writes it.
    fn structure(
        &mut self,
        v: &Value,
        st: &'static Struct,
        path: String,
        unknown: &mut Vec<String>,
    ) -> Result<Value, Abort> {
        let mut out = Map::new();
        match v {
            Value::Object(fields) => {
                let outer = self.structure.replace(st.name);
                let depth = self.stack.len();
                // Go marshals a map with its keys sorted, and decodes in
                // that order; serde_json's map is sorted the same way.
                for (k, x) in fields {
                    let Some(&(name, ty, _)) = st.fields.iter().find(|f| f.0 == k) else {
                        unknown.push(format!("{path}.{k}"));
                        continue;
                    };
                    self.stack.push(name);
                    let at = format!("{path}.{k}");
                    let value = self.field(x, ty, at, unknown)?;
                    self.stack.truncate(depth);
                    self.structure = Some(st.name);
                    if let Some(value) = value {
                        out.insert(name.to_string(), value);
                    }
                }
                self.structure = outer;
            }
            Value::Null => {}
            other => self.save(kind(other), st.go),
        }
        // Written back: omitted when empty, unless the field has no
        // `omitempty`; a zero creation timestamp is `null`.
        let mut written = Map::new();
        for &(name, ty, omitempty) in st.fields {
            match out.remove(name) {
                Some(v) if !(omitempty && empty(&v, ty)) => {
                    written.insert(name.to_string(), v);
                }
                Some(_) => {}
                None if !omitempty => {
                    written.insert(name.to_string(), json!(""));
                }
                None if matches!(ty, Ty::Time { ptr: false }) => {
                    written.insert(name.to_string(), Value::Null);
                }
                None => {}
            }
        }
        Ok(Value::Object(written))
    }

    /// One field's value (`None`: left unset).
    fn field(
        &mut self,
        v: &Value,
        ty: Ty,
        path: String,
        unknown: &mut Vec<String>,
    ) -> Result<Option<Value>, Abort> {
        Ok(match (ty, v) {
            // `null` leaves a value as it is and sets a pointer, map or
            // slice to nil.
            (Ty::Time { ptr: false }, Value::Null) => Some(Value::Null),
            (_, Value::Null) => None,
            (Ty::Str(_), Value::String(s)) => Some(json!(s)),
            (Ty::Str(go), other) => {
                self.save(kind(other), go);
                None
            }
            (Ty::Int64 { .. }, Value::Number(_)) => {
                let text = go_json(v);
                match text.parse::<i64>() {
                    Ok(n) => Some(json!(n)),
                    Err(_) => {
                        self.save(&format!("number {text}"), "int64");
                        None
                    }
                }
            }
            (Ty::Int64 { .. }, other) => {
                self.save(kind(other), "int64");
                None
            }
            (Ty::Bool, Value::Bool(b)) => Some(json!(b)),
            (Ty::Bool, other) => {
                self.save(kind(other), "bool");
                None
            }
            (Ty::Time { .. }, Value::String(s)) => {
                let t = parse_rfc3339(s)?;
                Some(if t.unix == ZERO_TIME && t.nanos == 0 {
                    Value::Null
                } else {
                    json!(format_rfc3339(t.unix))
                })
            }
            // metav1.Time decodes its JSON as a string first.
            (Ty::Time { .. }, other) => return Err(self.type_error(kind(other), "string")),
            (Ty::Fields, other) => Some(other.clone()),
            (Ty::Labels, Value::Object(m)) => {
                let mut out = Map::new();
                for (k, x) in m {
                    let s = match x {
                        Value::String(s) => s.clone(),
                        Value::Null => String::new(),
                        other => {
                            self.save(kind(other), "string");
                            String::new()
                        }
                    };
                    out.insert(k.clone(), json!(s));
                }
                Some(Value::Object(out))
            }
            (Ty::Labels, other) => {
                self.save(kind(other), "map[string]string");
                None
            }
            (Ty::Strings, Value::Array(items)) => Some(Value::Array(
                items
                    .iter()
                    .map(|x| match x {
                        Value::String(s) => json!(s),
                        Value::Null => json!(""),
                        other => {
                            self.save(kind(other), "string");
                            json!("")
                        }
                    })
                    .collect(),
            )),
            (Ty::Strings, other) => {
                self.save(kind(other), "[]string");
                None
            }
            (Ty::Structs(st, _), Value::Array(items)) => {
                let mut out = Vec::new();
                for (i, x) in items.iter().enumerate() {
                    out.push(self.structure(x, st, format!("{path}[{i}]"), unknown)?);
                }
                Some(Value::Array(out))
            }
            (Ty::Structs(_, go), other) => {
                self.save(kind(other), go);
                None
            }
        })
    }
}

/// What Go's decoder calls a JSON value in its type errors.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether `omitempty` omits a written value of type `ty`.
fn empty(v: &Value, ty: Ty) -> bool {
    match (ty, v) {
        // Pointers are kept whatever they point to.
        (Ty::Int64 { ptr: true } | Ty::Bool | Ty::Time { ptr: true } | Ty::Fields, _) => false,
        (_, Value::String(s)) => s.is_empty(),
        (_, Value::Number(n)) => n.as_i64() == Some(0),
        (_, Value::Array(a)) => a.is_empty(),
        (_, Value::Object(m)) => m.is_empty(),
        (_, Value::Null) => false,
        (_, Value::Bool(b)) => !b,
    }
}

/// How names are checked (`ValidateNameFunc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// `NameIsDNSSubdomain`: a resource's own name.
    Subdomain,
    /// `IsPathSegmentName`: an embedded resource's name.
    PathSegment,
}

impl NameRule {
    fn errors(self, name: &str, prefix: bool) -> Vec<String> {
        match self {
            NameRule::Subdomain => crate::go::names::name_errors(name, prefix),
            NameRule::PathSegment if !prefix && (name == "." || name == "..") => {
                vec![format!("may not be '{name}'")]
            }
            NameRule::PathSegment => ["/", "%"]
                .into_iter()
                .filter(|bad| name.contains(bad))
                .map(|bad| format!("may not contain '{bad}'"))
                .collect(),
        }
    }
}

/// `TotalAnnotationSizeLimitB`.
const ANNOTATIONS_LIMIT: usize = 256 * 1024;

/// `ValidateObjectMetaAccessor` of decoded metadata `meta` at `path`:
/// names by `names`, the namespace required (and a DNS label) when
/// `namespaced`, forbidden otherwise.
pub fn validate(
    meta: &Value,
    names: NameRule,
    namespaced: bool,
    path: &str,
    out: &mut Vec<FieldError>,
) {
    let text = |k: &str| meta.get(k).and_then(Value::as_str).unwrap_or("");
    let at = |k: &str| format!("{path}.{k}");
    let generate = text("generateName");
    if !generate.is_empty() {
        for m in names.errors(generate, true) {
            out.push(FieldError::invalid(at("generateName"), json!(generate), m));
        }
    }
    let name = text("name");
    if name.is_empty() {
        out.push(FieldError::required(
            at("name"),
            "name or generateName is required",
        ));
    } else {
        for m in names.errors(name, false) {
            out.push(FieldError::invalid(at("name"), json!(name), m));
        }
    }
    let namespace = text("namespace");
    if namespaced {
        if namespace.is_empty() {
            out.push(FieldError::required(at("namespace"), ""));
        } else {
            for m in is_dns1123_label(namespace) {
                out.push(FieldError::invalid(at("namespace"), json!(namespace), m));
            }
        }
    } else if !namespace.is_empty() {
        out.push(FieldError::new(
            ErrorType::Forbidden,
            at("namespace"),
            None,
            "not allowed on this type",
        ));
    }
    if let Some(g) = meta.get("generation").and_then(Value::as_i64)
        && g < 0
    {
        out.push(FieldError::invalid(
            at("generation"),
            json!(g),
            "must be greater than or equal to 0",
        ));
    }
    labels_and_annotations(meta, path, out);
    owner_references(meta, &at("ownerReferences"), out);
    finalizers(meta, &at("finalizers"), out);
    managed_fields(meta, &at("managedFields"), out);
}

/// `ValidateLabels` and `ValidateAnnotations` of `meta` at `path`.
pub fn labels_and_annotations(meta: &Value, path: &str, out: &mut Vec<FieldError>) {
    let at = |k: &str| format!("{path}.{k}");
    let strings = |k: &str| -> Vec<(String, String)> {
        meta.get(k)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                    .collect()
            })
            .unwrap_or_default()
    };
    for (k, v) in strings("labels") {
        for m in label_key(&k) {
            out.push(FieldError::invalid(at("labels"), json!(k), m));
        }
        for m in label_value(&v) {
            out.push(FieldError::invalid(at("labels"), json!(v), m));
        }
    }
    let annotations = strings("annotations");
    for (k, _) in &annotations {
        for m in label_key(&k.to_lowercase()) {
            out.push(FieldError::invalid(at("annotations"), json!(k), m));
        }
    }
    if annotations
        .iter()
        .map(|(k, v)| k.len() + v.len())
        .sum::<usize>()
        > ANNOTATIONS_LIMIT
    {
        out.push(FieldError::new(
            ErrorType::TooLong,
            at("annotations"),
            None,
            format!("may not be more than {ANNOTATIONS_LIMIT} bytes"),
        ));
    }
}

/// `ValidateOwnerReferences` of `meta`'s owner references at `path`.
pub fn owner_references(meta: &Value, path: &str, out: &mut Vec<FieldError>) {
    let Some(refs) = meta.get("ownerReferences").and_then(Value::as_array) else {
        return;
    };
    let mut first_controller: Option<String> = None;
    for r in refs {
        let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let (api_version, kind) = (text("apiVersion"), text("kind"));
        // `schema.FromAPIVersionAndKind`: an unparsable version has none.
        let (group, version) = parse_group_version(&api_version).unwrap_or_default();
        if version.is_empty() {
            out.push(FieldError::invalid(
                format!("{path}.apiVersion"),
                json!(api_version),
                "version must not be empty",
            ));
        }
        if kind.is_empty() {
            out.push(FieldError::invalid(
                format!("{path}.kind"),
                json!(kind),
                "must not be empty",
            ));
        }
        for k in ["name", "uid"] {
            if text(k).is_empty() {
                out.push(FieldError::invalid(
                    format!("{path}.{k}"),
                    json!(""),
                    "must not be empty",
                ));
            }
        }
        if group.is_empty() && version == "v1" && kind == "Event" {
            out.push(
                FieldError::invalid(
                    path,
                    Value::Null,
                    "/v1, Kind=Event is disallowed from being an owner",
                )
                .shown_as(owner_reference_json(r)),
            );
        }
        if r.get("controller") == Some(&Value::Bool(true)) {
            let name = format!("{kind}/{}", text("name"));
            match &first_controller {
                Some(first) => {
                    let all: Vec<String> = refs.iter().map(owner_reference_json).collect();
                    out.push(
                        FieldError::invalid(
                            path,
                            Value::Null,
                            format!(
                                "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {name}"
                            ),
                        )
                        .shown_as(format!("[{}]", all.join(","))),
                    );
                }
                None => first_controller = Some(name),
            }
        }
    }
}

/// `schema.ParseGroupVersion`: `group/version`, a bare version, or
/// nothing (`""` and `/`); Go's error otherwise.
pub fn parse_group_version(s: &str) -> Result<(String, String), String> {
    if s.is_empty() || s == "/" {
        return Ok(Default::default());
    }
    match s.split_once('/') {
        None => Ok((String::new(), s.to_string())),
        Some((g, v)) if !v.contains('/') => Ok((g.to_string(), v.to_string())),
        Some(_) => Err(format!("unexpected GroupVersion string: {s}")),
    }
}

/// An owner reference as Go's `json.Marshal` writes the struct: its
/// fields in their declared order.
fn owner_reference_json(r: &Value) -> String {
    let mut members = Vec::new();
    for &(name, _, omitempty) in OWNER_REFERENCE.fields {
        match r.get(name) {
            Some(v) => members.push(format!("{}:{}", go_json(&json!(name)), go_json(v))),
            None if !omitempty => members.push(format!("{}:\"\"", go_json(&json!(name)))),
            None => {}
        }
    }
    format!("{{{}}}", members.join(","))
}

/// `ValidateFinalizers`.
fn finalizers(meta: &Value, path: &str, out: &mut Vec<FieldError>) {
    let Some(list) = meta.get("finalizers").and_then(Value::as_array) else {
        return;
    };
    let names: Vec<&str> = list.iter().map(|f| f.as_str().unwrap_or("")).collect();
    for f in &names {
        for m in label_key(f) {
            out.push(FieldError::invalid(path, json!(f), m));
        }
    }
    if names.contains(&"orphan") && names.contains(&"foregroundDeletion") {
        out.push(FieldError::invalid(
            path,
            json!(names),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
}

/// `ValidateManagedFields`.
fn managed_fields(meta: &Value, path: &str, out: &mut Vec<FieldError>) {
    let Some(entries) = meta.get("managedFields").and_then(Value::as_array) else {
        return;
    };
    for (i, e) in entries.iter().enumerate() {
        let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("");
        let at = |k: &str| format!("{path}[{i}].{k}");
        let operation = text("operation");
        if operation != "Apply" && operation != "Update" {
            out.push(FieldError::invalid(
                at("operation"),
                json!(operation),
                "must be `Apply` or `Update`",
            ));
        }
        let fields_type = text("fieldsType");
        if !fields_type.is_empty() && fields_type != "FieldsV1" {
            out.push(FieldError::invalid(
                at("fieldsType"),
                json!(fields_type),
                "must be `FieldsV1`",
            ));
        }
        let manager = text("manager");
        if manager.len() > 128 {
            out.push(FieldError::new(
                ErrorType::TooLong,
                at("manager"),
                None,
                "may not be more than 128 bytes",
            ));
        }
        for (pos, c) in manager.char_indices() {
            if !crate::go::fmt::is_go_printable(c) {
                out.push(FieldError::invalid(
                    at("manager"),
                    json!(manager),
                    format!(
                        "invalid character {} (at position {pos})",
                        crate::go::fmt::go_unicode(c)
                    ),
                ));
            }
        }
        if text("subresource").len() > 256 {
            out.push(FieldError::new(
                ErrorType::TooLong,
                at("subresource"),
                None,
                "may not be more than 256 bytes",
            ));
        }
    }
}
