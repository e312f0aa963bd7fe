//! Kubernetes OpenAPI v3 definitions → the structural schema a CRD holds,
//! exactly as upstream: every `$ref` inlined (upstream writes
//! `{"allOf": [{"$ref": …}], "default": …, "description": …}`, merged into one
//! node whose own `default` and `description` win), the few definitions a
//! CRD spells differently mapped ([`MAPPED`]), the keys a CRD cannot hold
//! dropped ([`DROPPED_KEYS`]), object defaults a CRD would refuse dropped
//! ([`unsatisfiable_default`]), recursion cut ([`RECURSION`]). Everything
//! else upstream writes is kept; what the apiserver would not accept in a
//! CRD is an error (the result passes [`structural::check`]), never
//! silently changed: an unknown keyword, a list-map key that is neither
//! required nor defaulted (upstream's `ServiceAccount.secrets`, the
//! conditions of flowcontrol statuses, `ResourceClaimStatus.devices`), a
//! list type on a string (`APIServiceSpec.caBundle`).

use serde_json::{Map, Value};

use crate::schema::{SchemaError, structural};

/// Where upstream points at another definition.
const REF_PREFIX: &str = "#/components/schemas/";

/// Upstream keys a CRD's `JSONSchemaProps` cannot hold, dropped wherever
/// they occur as schema keywords (never as property names):
///
/// - `x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`:
///   strategic-merge-patch directives, which custom resources do not
///   support; the merge semantics they describe are carried by
///   `x-kubernetes-list-type` / `x-kubernetes-list-map-keys`, which stay;
/// - `x-kubernetes-group-version-kind`: which endpoints serve a type;
/// - `x-kubernetes-unions`: union discriminators, with no CRD counterpart;
/// - `readOnly`, `writeOnly`, `deprecated`: OpenAPI annotations the
///   apiextensions API has no field for.
pub const DROPPED_KEYS: &[&str] = &[
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-group-version-kind",
    "x-kubernetes-unions",
    "readOnly",
    "writeOnly",
    "deprecated",
];

/// What a recursive reference becomes at the point it recurs (JSONSchemaProps
/// holds JSONSchemaProps): a structural schema has no references, so the
/// nested copy keeps whatever it is given.
pub const RECURSION: &str = r#"{"type": "object", "x-kubernetes-preserve-unknown-fields": true}"#;

/// Definitions a CRD spells differently from upstream, each keeping its
/// upstream description:
///
/// - `IntOrString` and `Quantity` (upstream: `oneOf` integer/string resp.
///   string/number, which is not structural) → `x-kubernetes-int-or-string`
///   with `anyOf: [integer, string]`, the shape the apiserver prescribes;
/// - `Time` and `MicroTime` → a `date-time` string;
/// - `RawExtension` and `FieldsV1` (upstream: `type: object` without
///   properties, which a CRD would prune to `{}`; both hold arbitrary JSON
///   objects) → an object keeping unknown fields;
/// - apiextensions `JSON` and `JSONSchemaPropsOr{Array,Bool,StringArray}`
///   (upstream: no type at all; any JSON value) → any value kept as is.
pub const MAPPED: &[(&str, &str)] = &[
    (
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
        INT_OR_STRING,
    ),
    (
        "io.k8s.apimachinery.pkg.api.resource.Quantity",
        INT_OR_STRING,
    ),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.Time", DATE_TIME),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime", DATE_TIME),
    ("io.k8s.apimachinery.pkg.runtime.RawExtension", ANY_OBJECT),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1", ANY_OBJECT),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
        ANY_VALUE,
    ),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
        ANY_VALUE,
    ),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
        ANY_VALUE,
    ),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
        ANY_VALUE,
    ),
];

const INT_OR_STRING: &str =
    r#"{"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}"#;
const DATE_TIME: &str = r#"{"type": "string", "format": "date-time"}"#;
const ANY_OBJECT: &str = RECURSION;
const ANY_VALUE: &str = r#"{"x-kubernetes-preserve-unknown-fields": true}"#;

/// The structural schema of definition `name` among `definitions` (a
/// `components.schemas` map: kubegen's table, or a live apiserver's).
pub fn inline(definitions: &Map<String, Value>, name: &str) -> Result<Value, SchemaError> {
    let mut inliner = Inliner {
        definitions,
        stack: Vec::new(),
    };
    let schema = Value::Object(inliner.definition(name, name)?);
    structural::check(&schema).map_err(|violations| SchemaError {
        path: name.to_owned(),
        message: format!(
            "a CRD cannot hold this type's upstream schema ({}); mark the field \
             `#[kubegen(schemaless)]` to accept any JSON there",
            violations.join("; ")
        ),
    })?;
    Ok(schema)
}

fn fixed(json: &str) -> Map<String, Value> {
    match serde_json::from_str(json) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// Whether `node`'s `default` is an object lacking a property `node`
/// requires. Upstream writes `default: {}` on every non-pointer struct field
/// (Go's zero value; the built-in apiserver never applies it), but a CRD
/// applies and validates every default, and the apiserver refuses a CRD
/// whose default misses a required property (`default.containers: Required
/// value`): such defaults are dropped; valid ones stay, as upstream.
pub fn unsatisfiable_default(node: &Map<String, Value>) -> bool {
    let (Some(Value::Object(default)), Some(Value::Array(required))) =
        (node.get("default"), node.get("required"))
    else {
        return false;
    };
    required
        .iter()
        .filter_map(Value::as_str)
        .any(|r| !default.contains_key(r))
}

struct Inliner<'a> {
    definitions: &'a Map<String, Value>,
    /// Definitions being inlined, outermost first.
    stack: Vec<&'a str>,
}

impl<'a> Inliner<'a> {
    fn definition(&mut self, name: &str, path: &str) -> Result<Map<String, Value>, SchemaError> {
        let (key, def) = self
            .definitions
            .get_key_value(name)
            .ok_or_else(|| err(path, format!("no definition `{name}`")))?;
        if let Some((_, shape)) = MAPPED.iter().find(|(n, _)| *n == name) {
            let mut m = fixed(shape);
            if let Some(d) = def.get("description") {
                m.insert("description".into(), d.clone());
            }
            return Ok(m);
        }
        if self.stack.contains(&name) {
            return Ok(fixed(RECURSION));
        }
        self.stack.push(key);
        let node = self.node(def, name);
        self.stack.pop();
        node
    }

    fn node(&mut self, v: &'a Value, path: &str) -> Result<Map<String, Value>, SchemaError> {
        let Value::Object(src) = v else {
            return Err(err(path, "a schema must be a JSON object"));
        };
        let target = match (src.get("$ref"), src.get("allOf")) {
            (Some(r), None) => Some(r),
            (None, Some(Value::Array(all))) => match all.as_slice() {
                [Value::Object(one)] if one.len() == 1 && one.contains_key("$ref") => {
                    one.get("$ref")
                }
                _ => return Err(err(path, "`allOf` other than one `$ref`")),
            },
            (None, None) => None,
            _ => return Err(err(path, "`$ref` beside `allOf`")),
        };
        let mut out = match target {
            Some(Value::String(r)) => {
                let name = r
                    .strip_prefix(REF_PREFIX)
                    .ok_or_else(|| err(path, format!("unsupported `$ref` `{r}`")))?;
                self.definition(name, path)?
            }
            Some(other) => return Err(err(path, format!("`$ref` is not a string: {other}"))),
            None => Map::new(),
        };
        for (k, val) in src {
            match k.as_str() {
                "$ref" | "allOf" => {}
                k if DROPPED_KEYS.contains(&k) => {}
                "properties" => {
                    let Value::Object(props) = val else {
                        return Err(err(path, "`properties` is not an object"));
                    };
                    let mut inlined = Map::new();
                    for (name, p) in props {
                        let sub = self.node(p, &format!("{path}.{name}"))?;
                        inlined.insert(name.clone(), Value::Object(sub));
                    }
                    out.insert(k.clone(), Value::Object(inlined));
                }
                "items" | "additionalProperties" if val.is_object() => {
                    let segment = if k == "items" { "[*]" } else { ".*" };
                    let sub = self.node(val, &format!("{path}{segment}"))?;
                    out.insert(k.clone(), Value::Object(sub));
                }
                _ => {
                    out.insert(k.clone(), val.clone());
                }
            }
        }
        if unsatisfiable_default(&out) {
            out.remove("default");
        }
        Ok(out)
    }
}

fn err(path: &str, message: impl Into<String>) -> SchemaError {
    SchemaError {
        path: path.to_owned(),
        message: message.into(),
    }
}
