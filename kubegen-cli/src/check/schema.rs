//! The schema rules of `kubegen check`, node by node through one version's
//! schema as it was and as it is: what makes a stored object invalid, or
//! takes a field, a value or a behaviour a client relies on, is
//! breaking; what only accepts more is safe.

use serde_json::Value;

/// A schema difference (the version is added by the caller).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaChange {
    /// The rule.
    pub rule: &'static str,
    /// Where (`.spec.ports[*].name`).
    pub path: String,
    /// Whether it can break objects or clients of the earlier schema.
    pub breaking: bool,
    /// What changed.
    pub detail: String,
}

/// The differences from `old` to `new`.
pub fn compare(old: &Value, new: &Value) -> Vec<SchemaChange> {
    let mut out = Vec::new();
    node(old, new, "", &mut out);
    out
}

fn push(
    out: &mut Vec<SchemaChange>,
    rule: &'static str,
    path: &str,
    breaking: bool,
    detail: String,
) {
    out.push(SchemaChange {
        rule,
        path: path.to_string(),
        breaking,
        detail,
    });
}

/// A node's shape: its JSON type, or the extension that stands for one.
fn shape(s: &Value) -> String {
    let flag = |k: &str| s.get(k).and_then(Value::as_bool).unwrap_or(false);
    if flag("x-kubernetes-int-or-string") {
        return "int-or-string".into();
    }
    let t = s.get("type").and_then(Value::as_str).unwrap_or("");
    if t == "object" && s.get("additionalProperties").is_some_and(Value::is_object) {
        return "map".into();
    }
    if flag("x-kubernetes-embedded-resource") {
        return format!("embedded {t}");
    }
    if t.is_empty() {
        "untyped".into()
    } else {
        t.into()
    }
}

fn node(old: &Value, new: &Value, path: &str, out: &mut Vec<SchemaChange>) {
    let at = if path.is_empty() { "the root" } else { path };
    let (os, ns) = (shape(old), shape(new));
    if os != ns {
        push(
            out,
            "type-changed",
            path,
            true,
            format!("{at} changed from {os} to {ns}: stored objects and clients hold the old type"),
        );
        return;
    }
    let get = |s: &Value, k: &str| s.get(k).cloned();
    // format
    match (get(old, "format"), get(new, "format")) {
        (o, Some(n)) if o.as_ref() != Some(&n) => push(
            out,
            "format-changed",
            path,
            true,
            format!("{at}'s format became {n}: values of the old format may be refused"),
        ),
        _ => {}
    }
    let flag = |s: &Value, k: &str| s.get(k).and_then(Value::as_bool).unwrap_or(false);
    if flag(old, "nullable") && !flag(new, "nullable") {
        push(
            out,
            "nullable-removed",
            path,
            true,
            format!("{at} no longer accepts null"),
        );
    }
    if flag(old, "x-kubernetes-preserve-unknown-fields")
        && !flag(new, "x-kubernetes-preserve-unknown-fields")
    {
        push(
            out,
            "preserve-unknown-fields-removed",
            path,
            true,
            format!("{at} no longer keeps unknown fields: the apiserver prunes what it kept"),
        );
    }
    // default
    match (get(old, "default"), get(new, "default")) {
        (None, None) => {}
        (o, n) if o == n => {}
        (o, n) => {
            let show = |v: &Option<Value>| v.as_ref().map_or("none".to_string(), Value::to_string);
            let duration = |v: &Option<Value>| {
                v.as_ref()
                    .and_then(Value::as_str)
                    .and_then(kubegen_core::go::time::duration)
            };
            let note = match (duration(&o), duration(&n)) {
                (Some(a), Some(b)) if a == b => {
                    " (the same Go duration, written differently: stored objects and clients comparing the text see the change)"
                }
                _ => "",
            };
            push(
                out,
                "default-changed",
                path,
                true,
                format!(
                    "{at}'s default changed from {} to {}: objects without the field now read differently{note}",
                    show(&o),
                    show(&n)
                ),
            );
        }
    }
    enums(old, new, path, at, out);
    bounds(old, new, path, at, out);
    match (get(old, "pattern"), get(new, "pattern")) {
        (o, Some(n)) if o.as_ref() != Some(&n) => push(
            out,
            "pattern-changed",
            path,
            true,
            format!("{at} must now match {n}: values that matched before may not"),
        ),
        (Some(_), None) => push(
            out,
            "pattern-removed",
            path,
            false,
            format!("{at} has no pattern now"),
        ),
        _ => {}
    }
    let text = |s: &Value, k: &str| s.get(k).cloned().unwrap_or(Value::Null);
    for key in [
        "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-map-type",
    ] {
        let (o, n) = (text(old, key), text(new, key));
        let atomic = |v: &Value| v.is_null() || v == "atomic";
        let same = o == n || (key != "x-kubernetes-list-map-keys" && atomic(&o) && atomic(&n));
        if !same {
            push(
                out,
                "list-or-map-type-changed",
                path,
                true,
                format!(
                    "{at}'s {key} changed from {o} to {n}: what is accepted and how server-side apply merges it change"
                ),
            );
        }
    }
    rules(old, new, path, at, out);
    required(old, new, path, out);
    // Children.
    let props = |s: &Value| {
        s.get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let (op, np) = (props(old), props(new));
    for (name, o) in &op {
        let child = format!("{path}.{name}");
        match np.get(name) {
            Some(n) => node(o, n, &child, out),
            None => push(
                out,
                "field-removed",
                &child,
                true,
                format!(
                    "{child} is removed: clients reading or writing it break, and its stored values are pruned"
                ),
            ),
        }
    }
    for name in np.keys().filter(|n| !op.contains_key(*n)) {
        let child = format!("{path}.{name}");
        push(out, "field-added", &child, false, format!("{child} is new"));
    }
    for key in ["items", "additionalProperties"] {
        if let (Some(o), Some(n)) = (old.get(key), new.get(key))
            && o.is_object()
            && n.is_object()
        {
            node(o, n, &format!("{path}[*]"), out);
        }
    }
}

fn enums(old: &Value, new: &Value, path: &str, at: &str, out: &mut Vec<SchemaChange>) {
    let values = |s: &Value| s.get("enum").and_then(Value::as_array).cloned();
    match (values(old), values(new)) {
        (None, Some(_)) => push(
            out,
            "enum-added",
            path,
            true,
            format!("{at} is restricted to an enum: other values it held are refused"),
        ),
        (Some(_), None) => push(
            out,
            "enum-removed",
            path,
            false,
            format!("{at} is no longer restricted to an enum"),
        ),
        (Some(o), Some(n)) => {
            for gone in o.iter().filter(|v| !n.contains(v)) {
                push(
                    out,
                    "enum-value-removed",
                    path,
                    true,
                    format!("{at} no longer accepts {gone}"),
                );
            }
            for added in n.iter().filter(|v| !o.contains(v)) {
                push(
                    out,
                    "enum-value-added",
                    path,
                    false,
                    format!(
                        "{at} also accepts {added} (clients switching over its values should expect it)"
                    ),
                );
            }
        }
        (None, None) => {}
    }
}

/// The bound keywords: (keyword, a larger value tightens it).
const BOUNDS: &[(&str, bool)] = &[
    ("minimum", true),
    ("minLength", true),
    ("minItems", true),
    ("minProperties", true),
    ("maximum", false),
    ("maxLength", false),
    ("maxItems", false),
    ("maxProperties", false),
];

fn bounds(old: &Value, new: &Value, path: &str, at: &str, out: &mut Vec<SchemaChange>) {
    let number = |s: &Value, k: &str| s.get(k).and_then(Value::as_f64);
    for &(key, larger_tightens) in BOUNDS {
        match (number(old, key), number(new, key)) {
            (None, Some(n)) => push(
                out,
                "bound-tightened",
                path,
                true,
                format!("{at} gains {key} {n}: values beyond it were accepted before"),
            ),
            (Some(o), Some(n)) if o != n => {
                let tighter = (n > o) == larger_tightens;
                push(
                    out,
                    if tighter {
                        "bound-tightened"
                    } else {
                        "bound-loosened"
                    },
                    path,
                    tighter,
                    format!("{at}'s {key} changed from {o} to {n}"),
                );
            }
            (Some(o), None) => push(
                out,
                "bound-loosened",
                path,
                false,
                format!("{at} loses {key} {o}"),
            ),
            _ => {}
        }
    }
    let flag = |s: &Value, k: &str| s.get(k).and_then(Value::as_bool).unwrap_or(false);
    for key in ["exclusiveMinimum", "exclusiveMaximum"] {
        if !flag(old, key) && flag(new, key) {
            push(
                out,
                "bound-tightened",
                path,
                true,
                format!("{at}'s bound becomes exclusive ({key})"),
            );
        }
    }
    match (old.get("multipleOf"), new.get("multipleOf")) {
        (o, Some(n)) if o != Some(n) => push(
            out,
            "bound-tightened",
            path,
            true,
            format!("{at} must now be a multiple of {n}"),
        ),
        _ => {}
    }
}

fn rules(old: &Value, new: &Value, path: &str, at: &str, out: &mut Vec<SchemaChange>) {
    let list = |s: &Value| -> Vec<Value> {
        s.get("x-kubernetes-validations")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (o, n) = (list(old), list(new));
    let rule_of = |r: &Value| {
        r.get("rule")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let old_rules: Vec<String> = o.iter().map(rule_of).collect();
    let new_rules: Vec<String> = n.iter().map(rule_of).collect();
    for r in new_rules.iter().filter(|r| !old_rules.contains(r)) {
        let transition = uses_old_self(r);
        let detail = if transition {
            format!("{at} gains the transition rule `{r}`: updates it refuses were accepted before")
        } else {
            format!(
                "{at} gains the rule `{r}`: objects it refuses were accepted before (on update the apiserver ratchets a field left unchanged; creating one is refused)"
            )
        };
        push(out, "rule-added", path, true, detail);
    }
    for r in old_rules.iter().filter(|r| !new_rules.contains(r)) {
        push(
            out,
            "rule-removed",
            path,
            false,
            format!("{at} loses the rule `{r}`"),
        );
    }
}

/// Whether a rule reads `oldSelf` (a transition rule).
fn uses_old_self(rule: &str) -> bool {
    kubegen_core::cel::parse(rule).is_ok_and(|e| mentions(&e, "oldSelf"))
}

fn mentions(e: &kubegen_core::cel::Expr, name: &str) -> bool {
    use kubegen_core::cel::ExprKind;
    match &e.kind {
        ExprKind::Ident(n) => n == name,
        ExprKind::Literal(_) => false,
        ExprKind::Select { operand, .. } => mentions(operand, name),
        ExprKind::Call { target, args, .. } => {
            target.as_deref().is_some_and(|t| mentions(t, name))
                || args.iter().any(|a| mentions(a, name))
        }
        ExprKind::List(items) => items.iter().any(|i| mentions(&i.value, name)),
        ExprKind::Map(entries) => entries
            .iter()
            .any(|en| mentions(&en.key, name) || mentions(&en.value, name)),
        ExprKind::Struct { fields, .. } => fields.iter().any(|f| mentions(&f.value, name)),
    }
}

fn required(old: &Value, new: &Value, path: &str, out: &mut Vec<SchemaChange>) {
    let list = |s: &Value| -> Vec<String> { crate::json::strings(s.get("required")) };
    let (o, n) = (list(old), list(new));
    for added in n.iter().filter(|r| !o.contains(r)) {
        push(
            out,
            "required-added",
            &format!("{path}.{added}"),
            true,
            format!("{path}.{added} becomes required: objects without it are refused"),
        );
    }
    for gone in o.iter().filter(|r| !n.contains(r)) {
        push(
            out,
            "required-removed",
            &format!("{path}.{gone}"),
            false,
            format!("{path}.{gone} becomes optional"),
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn verdicts(old: Value, new: Value) -> Vec<(&'static str, String, bool)> {
        compare(&old, &new)
            .into_iter()
            .map(|c| (c.rule, c.path, c.breaking))
            .collect()
    }

    /// Each rule, with the before/after pair that shows it.
    #[test]
    fn every_rule_has_its_pair() {
        let obj = |props: Value| json!({"type": "object", "properties": props});
        let cases: Vec<(Value, Value, (&str, &str, bool))> = vec![
            (
                obj(json!({"a": {"type": "string"}})),
                obj(json!({})),
                ("field-removed", ".a", true),
            ),
            (
                obj(json!({})),
                obj(json!({"a": {"type": "string"}})),
                ("field-added", ".a", false),
            ),
            (
                obj(json!({"a": {"type": "string"}})),
                obj(json!({"a": {"type": "integer"}})),
                ("type-changed", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "object", "properties": {}}})),
                obj(json!({"a": {"type": "object", "additionalProperties": {"type": "string"}}})),
                ("type-changed", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "string"}})),
                obj(json!({"a": {"type": "string", "format": "date-time"}})),
                ("format-changed", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "string", "nullable": true}})),
                obj(json!({"a": {"type": "string"}})),
                ("nullable-removed", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}})),
                obj(json!({"a": {"type": "object"}})),
                ("preserve-unknown-fields-removed", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "integer"}})),
                obj(json!({"a": {"type": "integer", "default": 1}})),
                ("default-changed", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "integer", "default": 1}})),
                obj(json!({"a": {"type": "integer", "default": 2}})),
                ("default-changed", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "string"}})),
                obj(json!({"a": {"type": "string", "enum": ["x"]}})),
                ("enum-added", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "string", "enum": ["x", "y"]}})),
                obj(json!({"a": {"type": "string", "enum": ["x"]}})),
                ("enum-value-removed", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "string", "enum": ["x"]}})),
                obj(json!({"a": {"type": "string", "enum": ["x", "y"]}})),
                ("enum-value-added", ".a", false),
            ),
            (
                obj(json!({"a": {"type": "string", "enum": ["x"]}})),
                obj(json!({"a": {"type": "string"}})),
                ("enum-removed", ".a", false),
            ),
            (
                obj(json!({"a": {"type": "integer"}})),
                obj(json!({"a": {"type": "integer", "minimum": 1}})),
                ("bound-tightened", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "integer", "maximum": 9}})),
                obj(json!({"a": {"type": "integer", "maximum": 5}})),
                ("bound-tightened", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "integer", "maximum": 5}})),
                obj(json!({"a": {"type": "integer", "maximum": 9}})),
                ("bound-loosened", ".a", false),
            ),
            (
                obj(json!({"a": {"type": "string", "minLength": 2}})),
                obj(json!({"a": {"type": "string", "minLength": 1}})),
                ("bound-loosened", ".a", false),
            ),
            (
                obj(json!({"a": {"type": "array", "items": {"type": "string"}}})),
                obj(json!({"a": {"type": "array", "maxItems": 3, "items": {"type": "string"}}})),
                ("bound-tightened", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "integer", "minimum": 0}})),
                obj(json!({"a": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}})),
                ("bound-tightened", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "integer"}})),
                obj(json!({"a": {"type": "integer", "multipleOf": 2}})),
                ("bound-tightened", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "string"}})),
                obj(json!({"a": {"type": "string", "pattern": "^a"}})),
                ("pattern-changed", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "string", "pattern": "^a"}})),
                obj(json!({"a": {"type": "string"}})),
                ("pattern-removed", ".a", false),
            ),
            (
                obj(json!({"a": {"type": "array", "items": {"type": "string"}}})),
                obj(
                    json!({"a": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}),
                ),
                ("list-or-map-type-changed", ".a", true),
            ),
            (
                obj(json!({"a": {"type": "array", "items": {"type": "string"}}})),
                obj(
                    json!({"a": {"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "string"}}}),
                ),
                ("", "", false),
            ),
            (
                obj(json!({"a": {"type": "string"}})),
                obj(
                    json!({"a": {"type": "string", "x-kubernetes-validations": [{"rule": "self != ''"}]}}),
                ),
                ("rule-added", ".a", true),
            ),
            (
                obj(
                    json!({"a": {"type": "string", "x-kubernetes-validations": [{"rule": "self != ''"}]}}),
                ),
                obj(json!({"a": {"type": "string"}})),
                ("rule-removed", ".a", false),
            ),
            (
                obj(json!({"a": {"type": "string"}})),
                json!({"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}),
                ("required-added", ".a", true),
            ),
            (
                json!({"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}),
                obj(json!({"a": {"type": "string"}})),
                ("required-removed", ".a", false),
            ),
            (
                obj(
                    json!({"a": {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "string"}}}}}),
                ),
                obj(json!({"a": {"type": "array", "items": {"type": "object", "properties": {}}}})),
                ("field-removed", ".a[*].b", true),
            ),
        ];
        for (old, new, expected) in cases {
            let found = verdicts(old.clone(), new.clone());
            let expected: Vec<(&str, String, bool)> = if expected.0.is_empty() {
                Vec::new()
            } else {
                vec![(expected.0, expected.1.to_string(), expected.2)]
            };
            assert_eq!(found, expected, "{old} -> {new}");
        }
    }

    #[test]
    fn a_transition_rule_is_told_apart() {
        let old = json!({"type": "string"});
        let new =
            json!({"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]});
        let c = compare(&old, &new);
        assert!(c[0].detail.contains("transition rule"), "{c:?}");
    }
}
