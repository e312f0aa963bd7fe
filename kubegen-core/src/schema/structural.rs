//! The apiserver's structural-schema rules (apiextensions-apiserver
//! `pkg/apiserver/schema`), re-implemented so kubegen never emits a CRD the
//! apiserver would reject as non-structural.

use serde_json::{Map, Value};

use crate::vocabulary::keywords;

const JUNCTORS: &[&str] = &["allOf", "anyOf", "oneOf"];

struct Checker {
    errors: Vec<String>,
}

fn is_true(m: &Map<String, Value>, k: &str) -> bool {
    m.get(k) == Some(&Value::Bool(true))
}

fn type_of(m: &Map<String, Value>) -> Option<&str> {
    m.get("type").and_then(Value::as_str)
}

/// Checks `x-kubernetes-list-type: map` and its keys on one array schema.
pub fn check_list_map_keys(s: &Map<String, Value>) -> Result<(), String> {
    let keys: Vec<&str> = match s.get("x-kubernetes-list-map-keys") {
        Some(Value::Array(k)) => k.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let list_type = s.get("x-kubernetes-list-type").and_then(Value::as_str);
    if !keys.is_empty() && list_type != Some("map") {
        return Err("x-kubernetes-list-map-keys requires x-kubernetes-list-type: map".into());
    }
    if list_type != Some("map") {
        return Ok(());
    }
    if keys.is_empty() {
        return Err("x-kubernetes-list-type: map requires x-kubernetes-list-map-keys".into());
    }
    let Some(Value::Object(items)) = s.get("items") else {
        return Err("x-kubernetes-list-type: map requires items".into());
    };
    if type_of(items) != Some("object") {
        return Err("x-kubernetes-list-type: map requires items of type object".into());
    }
    let props = items.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = match items.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for key in keys {
        let Some(Value::Object(p)) = props.and_then(|p| p.get(key)) else {
            return Err(format!(
                "list map key `{key}` is not a property of the items"
            ));
        };
        if !matches!(
            type_of(p),
            Some("string" | "integer" | "number" | "boolean")
        ) && !is_true(p, "x-kubernetes-int-or-string")
        {
            return Err(format!("list map key `{key}` must be a scalar"));
        }
        if !required.contains(&key) && !p.contains_key("default") {
            return Err(format!(
                "list map key `{key}` must be required or have a default"
            ));
        }
    }
    Ok(())
}

impl Checker {
    fn err(&mut self, path: &str, msg: impl std::fmt::Display) {
        self.errors.push(format!("{path}: {msg}"));
    }

    /// One schema node and, through it, its children: each structural rule
    /// in the order the apiserver reports them.
    fn node(&mut self, path: &str, v: &Value, correlatable: bool) {
        let Value::Object(m) = v else {
            self.err(path, "schema must be an object");
            return;
        };
        let ios = is_true(m, "x-kubernetes-int-or-string");
        let pres = is_true(m, "x-kubernetes-preserve-unknown-fields");
        self.known_keywords(path, m);
        self.no_unique_items(path, m);
        self.preserve_unknown_fields_true(path, m);
        self.type_set(path, m, ios, pres);
        self.properties_or_additional(path, m);
        self.embedded_resource(path, m, pres);
        self.list_type(path, m, ios);
        if let Err(e) = check_list_map_keys(m) {
            self.err(path, e);
        }
        self.validation_rules(path, m, correlatable);
        self.junctors(path, m, ios);
        self.properties(path, m, pres, correlatable);
        self.additional_properties(path, m, correlatable);
        self.items(path, m, correlatable);
        self.required_in_properties(path, m, pres);
    }

    /// Every keyword is one the apiserver knows.
    fn known_keywords(&mut self, path: &str, m: &Map<String, Value>) {
        for k in m.keys() {
            if !keywords::is_known(k) {
                self.err(path, format!("unknown schema keyword `{k}`"));
            }
        }
    }

    /// `uniqueItems: true` is forbidden.
    fn no_unique_items(&mut self, path: &str, m: &Map<String, Value>) {
        if is_true(m, "uniqueItems") {
            self.err(
                path,
                "uniqueItems cannot be true (the apiserver forbids it); use x-kubernetes-list-type: set",
            );
        }
    }

    /// `x-kubernetes-preserve-unknown-fields` is true or absent.
    fn preserve_unknown_fields_true(&mut self, path: &str, m: &Map<String, Value>) {
        if m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
            self.err(
                path,
                "x-kubernetes-preserve-unknown-fields must be true or undefined",
            );
        }
    }

    /// A node has a known type, unless it is int-or-string (then none) or
    /// preserves unknown fields.
    fn type_set(&mut self, path: &str, m: &Map<String, Value>, ios: bool, pres: bool) {
        match type_of(m) {
            None if !ios && !pres => self.err(path, "type must not be empty"),
            Some(_) if ios => self.err(
                path,
                "type must be empty when x-kubernetes-int-or-string is true",
            ),
            Some(t)
                if !["object", "array", "string", "integer", "number", "boolean"].contains(&t) =>
            {
                self.err(path, format!("unknown type `{t}`"))
            }
            _ => {}
        }
    }

    /// `properties` and `additionalProperties` exclude each other.
    fn properties_or_additional(&mut self, path: &str, m: &Map<String, Value>) {
        if m.contains_key("properties") && m.contains_key("additionalProperties") {
            self.err(
                path,
                "properties and additionalProperties are mutually exclusive",
            );
        }
    }

    /// An embedded resource is an object with properties or preserving
    /// unknown fields.
    fn embedded_resource(&mut self, path: &str, m: &Map<String, Value>, pres: bool) {
        if is_true(m, "x-kubernetes-embedded-resource") {
            if type_of(m) != Some("object") {
                self.err(path, "x-kubernetes-embedded-resource requires type: object");
            }
            if !pres && !m.contains_key("properties") {
                self.err(path, "x-kubernetes-embedded-resource requires properties or x-kubernetes-preserve-unknown-fields");
            }
        }
    }

    /// `x-kubernetes-list-type` is on arrays only, and a set's items are
    /// scalars (or atomic).
    fn list_type(&mut self, path: &str, m: &Map<String, Value>, ios: bool) {
        if let Some(lt) = m.get("x-kubernetes-list-type") {
            if type_of(m) != Some("array") {
                self.err(path, "x-kubernetes-list-type requires type: array");
            }
            if lt == "set"
                && let Some(Value::Object(items)) = m.get("items")
            {
                let scalar = matches!(
                    type_of(items),
                    Some("string" | "integer" | "number" | "boolean")
                ) || ios
                    || items.get("x-kubernetes-map-type") == Some(&Value::from("atomic"))
                    || items.get("x-kubernetes-list-type") == Some(&Value::from("atomic"));
                if !scalar {
                    self.err(
                        path,
                        "x-kubernetes-list-type: set requires scalar (or atomic) items",
                    );
                }
            }
        }
    }

    /// CEL rules are not empty, and transition rules (`oldSelf`) sit only
    /// where the old object correlates (not below a non-map list).
    fn validation_rules(&mut self, path: &str, m: &Map<String, Value>, correlatable: bool) {
        if let Some(Value::Array(rules)) = m.get("x-kubernetes-validations") {
            for r in rules {
                let rule = r.get("rule").and_then(Value::as_str).unwrap_or("");
                if rule.trim().is_empty() {
                    self.err(path, "x-kubernetes-validations rule must not be empty");
                }
                if rule.contains("oldSelf") && !correlatable {
                    self.err(path, "transition rules (oldSelf) are not allowed under a list that is not x-kubernetes-list-type: map");
                }
            }
        }
    }

    /// Junctors are lists of value validations over this node's structure
    /// (except int-or-string's `anyOf [integer, string]`, which may carry
    /// types); `not` likewise.
    fn junctors(&mut self, path: &str, m: &Map<String, Value>, ios: bool) {
        let ios_anyof = ios
            && m.get("anyOf")
                == Some(&serde_json::json!([{"type": "integer"}, {"type": "string"}]));
        for j in JUNCTORS {
            if let Some(v) = m.get(*j) {
                if *j == "anyOf" && ios_anyof {
                    continue;
                }
                let Value::Array(list) = v else {
                    self.err(path, format!("{j} must be a list"));
                    continue;
                };
                for (i, s) in list.iter().enumerate() {
                    self.value_validation(&format!("{path}.{j}[{i}]"), s, m);
                }
            }
        }
        if let Some(not) = m.get("not") {
            self.value_validation(&format!("{path}.not"), not, m);
        }
    }

    /// Properties sit on objects (or nodes preserving unknown fields), and
    /// each is a structural node.
    fn properties(&mut self, path: &str, m: &Map<String, Value>, pres: bool, correlatable: bool) {
        if let Some(Value::Object(props)) = m.get("properties") {
            if type_of(m) != Some("object") && !pres {
                self.err(path, "properties require type: object");
            }
            for (k, p) in props {
                self.node(&format!("{path}.{k}"), p, correlatable);
            }
        }
    }

    /// `additionalProperties` is a structural node, never `false`.
    fn additional_properties(&mut self, path: &str, m: &Map<String, Value>, correlatable: bool) {
        if let Some(ap) = m.get("additionalProperties") {
            match ap {
                Value::Object(_) => self.node(&format!("{path}.*"), ap, correlatable),
                Value::Bool(false) => self.err(path, "additionalProperties: false is not allowed"),
                _ => {}
            }
        }
    }

    /// An array has items, a structural node that correlates only below a
    /// map list.
    fn items(&mut self, path: &str, m: &Map<String, Value>, correlatable: bool) {
        if let Some(items) = m.get("items") {
            let map_list = m.get("x-kubernetes-list-type") == Some(&Value::from("map"));
            self.node(&format!("{path}[*]"), items, correlatable && map_list);
        } else if type_of(m) == Some("array") {
            self.err(path, "type: array requires items");
        }
    }

    /// Every required property is one of the properties (unless unknown
    /// fields are preserved).
    fn required_in_properties(&mut self, path: &str, m: &Map<String, Value>, pres: bool) {
        if let Some(Value::Array(req)) = m.get("required") {
            let props = m.get("properties").and_then(Value::as_object);
            for r in req.iter().filter_map(Value::as_str) {
                if !pres && props.is_none_or(|p| !p.contains_key(r)) {
                    self.err(
                        path,
                        format!("required property `{r}` is not in properties"),
                    );
                }
            }
        }
    }

    /// A schema inside a logical junctor: value validations only, and every
    /// property or item it names must exist in the structural sibling.
    fn value_validation(&mut self, path: &str, v: &Value, structural: &Map<String, Value>) {
        let Value::Object(m) = v else {
            self.err(path, "schema must be an object");
            return;
        };
        for k in keywords::names_where(|k| !k.in_junctors) {
            if m.contains_key(k) {
                self.err(
                    path,
                    format!("`{k}` must not be set inside a logical junctor"),
                );
            }
        }
        if let Some(Value::Object(props)) = m.get("properties") {
            let outer = structural.get("properties").and_then(Value::as_object);
            for (k, p) in props {
                match outer.and_then(|o| o.get(k)).and_then(Value::as_object) {
                    Some(o) => self.value_validation(&format!("{path}.{k}"), p, o),
                    None if is_true(structural, "x-kubernetes-preserve-unknown-fields") => {}
                    None => self.err(
                        path,
                        format!("property `{k}` must also be specified outside the junctor"),
                    ),
                }
            }
        }
        if let Some(items) = m.get("items") {
            match structural.get("items").and_then(Value::as_object) {
                Some(o) => self.value_validation(&format!("{path}[*]"), items, o),
                None => self.err(path, "items must also be specified outside the junctor"),
            }
        }
        if m.contains_key("additionalProperties")
            && !structural.contains_key("additionalProperties")
        {
            self.err(
                path,
                "additionalProperties must also be specified outside the junctor",
            );
        }
        for j in JUNCTORS {
            if let Some(Value::Array(list)) = m.get(*j) {
                for (i, s) in list.iter().enumerate() {
                    self.value_validation(&format!("{path}.{j}[{i}]"), s, structural);
                }
            }
        }
        if let Some(not) = m.get("not") {
            self.value_validation(&format!("{path}.not"), not, structural);
        }
    }
}

fn contains_default(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("default") || m.values().any(contains_default),
        Value::Array(a) => a.iter().any(contains_default),
        _ => false,
    }
}

/// Checks a CRD version's `openAPIV3Schema`; returns every violation.
pub fn check_root(root: &Value) -> Result<(), Vec<String>> {
    let mut c = Checker { errors: Vec::new() };
    c.node("openAPIV3Schema", root, true);
    if let Value::Object(m) = root {
        if type_of(m) != Some("object") {
            c.err("openAPIV3Schema", "the root must be of type object");
        }
        if let Some(Value::Object(meta)) = m.get("properties").and_then(|p| p.get("metadata")) {
            for k in meta.keys() {
                if !["type", "properties", "description"].contains(&k.as_str()) {
                    c.err(
                        "openAPIV3Schema.metadata",
                        format!("`{k}` is not allowed on root metadata"),
                    );
                }
            }
            if let Some(Value::Object(props)) = meta.get("properties") {
                for k in props.keys() {
                    if k != "name" && k != "generateName" {
                        c.err(
                            "openAPIV3Schema.metadata",
                            format!("only name and generateName may be restricted, not `{k}`"),
                        );
                    }
                }
            }
            if contains_default(&Value::Object(meta.clone())) {
                c.err(
                    "openAPIV3Schema.metadata",
                    "defaults are not allowed under metadata",
                );
            }
        }
    }
    if c.errors.is_empty() {
        Ok(())
    } else {
        Err(c.errors)
    }
}

/// Checks a schema that is not a CRD root (e.g. one type's schema).
pub fn check(schema: &Value) -> Result<(), Vec<String>> {
    let mut c = Checker { errors: Vec::new() };
    c.node("schema", schema, true);
    if c.errors.is_empty() {
        Ok(())
    } else {
        Err(c.errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errs(v: Value) -> Vec<String> {
        check(&v).err().unwrap_or_default()
    }

    #[test]
    fn accepts_plain_objects() {
        assert!(errs(json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})).is_empty());
    }

    #[test]
    fn rejects_missing_type() {
        assert!(
            errs(json!({"type": "object", "properties": {"a": {"description": "x"}}}))[0]
                .contains("type must not be empty")
        );
    }

    #[test]
    fn int_or_string_exception() {
        assert!(errs(json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]})).is_empty());
        assert!(!errs(json!({"type": "object", "anyOf": [{"type": "integer"}]})).is_empty());
    }

    #[test]
    fn junctor_rules() {
        let ok = json!({"type": "object", "properties": {"a": {"type": "string"}}, "oneOf": [{"required": ["a"]}, {"properties": {"a": {"enum": ["x"]}}}]});
        assert!(errs(ok).is_empty());
        let desc = json!({"type": "object", "properties": {"a": {"type": "string"}}, "oneOf": [{"description": "no"}]});
        assert!(errs(desc)[0].contains("description"));
        let missing = json!({"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"properties": {"b": {"minLength": 1}}}]});
        assert!(errs(missing)[0].contains("outside the junctor"));
    }

    #[test]
    fn properties_and_additional_properties() {
        let v = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}});
        assert!(errs(v)[0].contains("mutually exclusive"));
    }

    #[test]
    fn list_map_keys() {
        let item = json!({"type": "object", "properties": {"name": {"type": "string"}, "opt": {"type": "string"}}, "required": ["name"]});
        let ok = json!({"type": "array", "items": item, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]});
        assert!(errs(ok).is_empty());
        let opt = json!({"type": "array", "items": item, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["opt"]});
        assert!(errs(opt)[0].contains("required or have a default"));
        let atomic = json!({"type": "array", "items": item, "x-kubernetes-list-type": "atomic", "x-kubernetes-list-map-keys": ["name"]});
        assert!(errs(atomic)[0].contains("requires x-kubernetes-list-type: map"));
    }

    #[test]
    fn sets_need_scalars() {
        let v =
            json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}});
        assert!(errs(v)[0].contains("scalar"));
    }

    #[test]
    fn unique_items_is_forbidden() {
        let v = json!({"type": "array", "uniqueItems": true, "items": {"type": "string"}});
        assert!(errs(v)[0].contains("uniqueItems cannot be true"));
    }

    #[test]
    fn transition_rules_need_correlation() {
        let v = json!({"type": "array", "items": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}});
        assert!(errs(v)[0].contains("transition rules"));
    }

    #[test]
    fn root_metadata() {
        let bad = json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}});
        assert!(check_root(&bad).unwrap_err()[0].contains("only name and generateName"));
        let ok = json!({"type": "object", "properties": {"metadata": {"type": "object"}}});
        assert!(check_root(&ok).is_ok());
    }
}
