//! `x-kubernetes-validations` rules evaluated on create as the apiserver
//! evaluates them (`Validator.Validate` in k8s.io/apiextensions-apiserver
//! `pkg/apiserver/schema/cel`): each non-null node's rules before those
//! of the nodes below it, `self` read through the node's schema, rules
//! reading `oldSelf` skipped unless `optionalOldSelf`, a failed rule
//! reported at its node (or its `fieldPath`) with the evaluated
//! `messageExpression`, its `message` or `failed rule: <rule>`, and the
//! `reason` it names; an evaluation error as `<error> evaluating rule:
//! <rule or message>`.
//!
//! A rule kubegen cannot evaluate exactly — one using what
//! [`cel::eval`](crate::cel::eval) does not implement yet, one whose
//! cost may be over the per-call limit or the object's budget (neither
//! its static estimate nor the bound [`evaluate_with_cost`] gives show it
//! within; cel-go's exact runtime cost is not tracked yet, so the
//! apiserver's budget errors are not reproduced), or whose `fieldPath` is
//! not a plain `.a.b` — is listed as not evaluated, never guessed.

use serde_json::{Value, json};

use super::field::{ErrorType, FieldError};
use crate::cel::check::{Purpose, check_rule};
use crate::cel::cost;
use crate::cel::eval::value::{Val, with_type_and_object_meta};
use crate::cel::eval::{EvalError, Sets, evaluate_with_cost};
use crate::cel::sizes::Sizes;
use crate::cel::types::Type;

/// The apiserver's runtime cost limit of one expression (`PerCallLimit`).
pub const PER_CALL_LIMIT: u64 = 1_000_000;

/// The apiserver's runtime cost budget of one object
/// (`RuntimeCELCostBudget`).
pub const PER_OBJECT_BUDGET: u64 = 10_000_000;

/// The longest message an evaluated `messageExpression` may give
/// (`MaxEvaluatedMessageExpressionSizeBytes`).
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// What evaluating an object's rules found.
#[derive(Clone, Debug, Default)]
pub struct RulesOutcome {
    /// The failures and evaluation errors, as the apiserver words them.
    pub errors: Vec<FieldError>,
    /// Rules (schema path, rule) that apply but kubegen could not
    /// evaluate exactly.
    pub not_evaluated: Vec<(String, String)>,
    /// How many rules were evaluated (transition rules, which do not run
    /// on create, counted as the apiserver skips them).
    pub evaluated: usize,
}

/// Whether `schema` has any rule, anywhere (the apiserver builds no rule
/// validator otherwise).
pub fn has_rules(schema: &Value) -> bool {
    let Some(s) = schema.as_object() else {
        return false;
    };
    s.get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty())
        || s.get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.values().any(has_rules))
        || s.get("items").is_some_and(has_rules)
        || s.get("additionalProperties").is_some_and(has_rules)
}

/// Evaluates every rule of `schema` (a CRD version's root schema) on
/// `object` as stored.
pub fn validate(schema: &Value, object: &Value) -> RulesOutcome {
    let mut walk = Walk {
        out: RulesOutcome::default(),
        spent: 0,
    };
    walk.node(schema, object, "", &[], true);
    walk.out
}

/// The defaults that fail their own field's rules, as the apiserver finds
/// them when the CRD is created (`ValidateDefaults` runs each field's rules
/// on its default): the field's schema path (`.spec.size`), the field's
/// schema, and each error.
pub fn failing_defaults(schema: &Value) -> Vec<(String, Value, FieldError)> {
    let mut out = Vec::new();
    defaults_below(schema, "", &mut out);
    out
}

fn defaults_below(node: &Value, path: &str, out: &mut Vec<(String, Value, FieldError)>) {
    if let Some(default) = node.get("default")
        && has_rules(node)
    {
        for e in validate(node, default).errors {
            out.push((path.to_string(), node.clone(), e));
        }
    }
    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        for (k, sub) in props {
            defaults_below(sub, &format!("{path}.{k}"), out);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = node.get(key).filter(|v| v.is_object()) {
            defaults_below(sub, &format!("{path}[*]"), out);
        }
    }
}

struct Walk {
    out: RulesOutcome,
    /// The static cost estimates of the rules evaluated so far: an upper
    /// bound of what the apiserver charged to the object's budget.
    spent: u64,
}

/// A Go `field.Path` as it prints: `<nil>` for the root.
fn render(path: &[String]) -> String {
    if path.is_empty() {
        return "<nil>".into();
    }
    let mut s = String::new();
    for p in path {
        if p.starts_with('[') || s.is_empty() {
            s.push_str(p);
        } else {
            s.push('.');
            s.push_str(p);
        }
    }
    s
}

impl Walk {
    /// `node` at the schema path `at` (`.spec.items[*]`) and field path
    /// `path`.
    fn node(&mut self, schema: &Value, object: &Value, at: &str, path: &[String], root: bool) {
        if object.is_null() {
            return;
        }
        self.rules(schema, object, at, path, root);
        // Rules under `allOf` run too (`AllOfValidators`): not yet here.
        if let Some(all_of) = schema.get("allOf").and_then(Value::as_array) {
            for sub in all_of {
                let mut found = Vec::new();
                rules_anywhere(sub, &mut found);
                for rule in found {
                    self.skip(at, &rule);
                }
            }
        }
        let embedded = |v: &Value| {
            v.get("x-kubernetes-embedded-resource")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        match object {
            Value::Object(map) => {
                if let Some(values) = schema.get("additionalProperties").filter(|v| v.is_object()) {
                    for (k, v) in map {
                        let mut p = path.to_vec();
                        p.push(format!("[{k}]"));
                        self.node(values, v, &format!("{at}[*]"), &p, embedded(values));
                    }
                }
                if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                    for (k, v) in map {
                        if let Some(sub) = props.get(k) {
                            let mut p = path.to_vec();
                            p.push(k.clone());
                            self.node(sub, v, &format!("{at}.{k}"), &p, embedded(sub));
                        }
                    }
                }
            }
            Value::Array(items) => {
                if let Some(sub) = schema.get("items") {
                    for (i, v) in items.iter().enumerate() {
                        let mut p = path.to_vec();
                        p.push(format!("[{i}]"));
                        self.node(sub, v, &format!("{at}[*]"), &p, embedded(sub));
                    }
                }
            }
            _ => {}
        }
    }

    fn rules(&mut self, schema: &Value, object: &Value, at: &str, path: &[String], root: bool) {
        let Some(rules) = schema
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
        else {
            return;
        };
        let self_type = Type::of_schema(schema, "selfType", root);
        let sizes = Sizes::of_schema(schema, root);
        let value = if root {
            let resource = with_type_and_object_meta(schema, path.is_empty());
            let mut resource = resource;
            if let Some(m) = resource.as_object_mut() {
                m.remove("x-kubernetes-embedded-resource");
            }
            Val::from_json(object, &resource)
        } else {
            Val::from_json(object, schema)
        };
        // One `self` for all the node's rules, as the apiserver's.
        let mut sets = Sets::default();
        for r in rules {
            let rule = r.get("rule").and_then(Value::as_str).unwrap_or_default();
            if rule.trim().is_empty() {
                continue;
            }
            let (Some(self_type), Some(sizes)) = (&self_type, &sizes) else {
                self.skip(at, rule);
                continue;
            };
            match self.rule(
                r, rule, self_type, sizes, &value, &mut sets, schema, object, path,
            ) {
                Some(errors) => {
                    self.out.evaluated += 1;
                    self.out.errors.extend(errors);
                }
                None => self.skip(at, rule),
            }
        }
    }

    /// Charges one evaluation to the object's budget: the least of its
    /// static estimate and its evaluation's bound, which must be within
    /// the per-call limit and leave the object within its budget (`None`
    /// otherwise: the apiserver's cost errors are not reproduced yet).
    fn charge(&mut self, estimate: Option<u64>, bound: u64) -> Option<()> {
        let cost = estimate.map_or(bound, |e| e.min(bound));
        if cost > PER_CALL_LIMIT {
            return None;
        }
        self.spent = self.spent.saturating_add(cost);
        (self.spent <= PER_OBJECT_BUDGET).then_some(())
    }

    fn skip(&mut self, at: &str, rule: &str) {
        self.out
            .not_evaluated
            .push((at.to_string(), rule.to_string()));
    }

    /// One rule: its errors, or `None` when it cannot be evaluated
    /// exactly.
    #[allow(clippy::too_many_arguments)]
    fn rule(
        &mut self,
        r: &Value,
        rule: &str,
        self_type: &Type,
        sizes: &Sizes,
        value: &Val,
        sets: &mut Sets,
        schema: &Value,
        object: &Value,
        path: &[String],
    ) -> Option<Vec<FieldError>> {
        let text = |key: &str| r.get(key).and_then(Value::as_str);
        let optional = r
            .get("optionalOldSelf")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let checked = check_rule(rule, self_type, optional, Purpose::Rule, |_| true).ok()?;
        if checked.uses_old_self && !optional {
            // A transition rule: not run on create.
            return Some(Vec::new());
        }
        let message_expression = match text("messageExpression") {
            Some(m) => {
                let checked =
                    check_rule(m, self_type, optional, Purpose::Message, |_| true).ok()?;
                if checked.uses_old_self {
                    // What the apiserver binds `oldSelf` to for a message
                    // on create is not reproduced.
                    return None;
                }
                Some(checked)
            }
            None => None,
        };
        // The static estimates, where within the per-call limit, bound
        // the runtime cost; otherwise the evaluation's own bound must.
        let mut estimates = Vec::new();
        for tree in std::iter::once(&checked).chain(message_expression.as_ref()) {
            let c = cost::estimate(&tree.tree, sizes);
            estimates.push((!c.undecidable).then_some(c.estimate.max));
        }
        let field_path = match text("fieldPath") {
            None | Some("") => None,
            Some(f) => Some(plain_field_path(f)?),
        };
        let old_self = if optional {
            Val::Optional(None)
        } else {
            value.clone()
        };
        let rule_vars = [("self", value.clone()), ("oldSelf", old_self)];
        let message = text("message").map(str::trim).filter(|m| !m.is_empty());
        let rule_text = message.unwrap_or(rule.trim()).to_string();
        let sts_type = schema.get("type").and_then(Value::as_str).unwrap_or("");
        let here = render(path);
        let (result, bound) = evaluate_with_cost(&checked.tree, &rule_vars, sets);
        self.charge(estimates[0], bound)?;
        match result {
            Ok(Val::Bool(true)) => return Some(Vec::new()),
            Ok(Val::Bool(false)) => {}
            Ok(_) | Err(EvalError::Unsupported(_)) => return None,
            Err(EvalError::Error(e)) => {
                return Some(vec![FieldError::invalid(
                    here,
                    json!(sts_type),
                    format!("{e} evaluating rule: {rule_text}"),
                )]);
            }
        }
        let mut at = path.to_vec();
        if let Some(f) = field_path {
            at.push(f);
        }
        let at = render(&at);
        let mut detail = None;
        if let Some(m) = &message_expression {
            let vars = [("self", value.clone())];
            let (result, bound) = evaluate_with_cost(&m.tree, &vars, sets);
            self.charge(estimates[1], bound)?;
            match result {
                Ok(Val::String(s)) => {
                    let s = s.trim();
                    if !s.is_empty() && s.len() <= MAX_MESSAGE_BYTES && !s.contains('\n') {
                        detail = Some(s.to_string());
                    }
                }
                Err(EvalError::Error(_)) => {}
                _ => return None,
            }
        }
        let detail = detail.unwrap_or_else(|| match message {
            Some(m) => m.to_string(),
            None => format!("failed rule: {}", rule.trim()),
        });
        let bad = if matches!(sts_type, "object" | "array") {
            None
        } else {
            Some(object.clone())
        };
        let error = match r.get("reason").and_then(Value::as_str) {
            Some("FieldValueForbidden") => FieldError::new(ErrorType::Forbidden, at, None, detail),
            Some("FieldValueRequired") => FieldError::required(at, detail),
            Some("FieldValueDuplicate") => FieldError::new(ErrorType::Duplicate, at, bad, ""),
            _ => FieldError::new(ErrorType::Invalid, at, bad, detail),
        };
        Some(vec![error])
    }
}

/// Every rule in `v`, at any depth.
fn rules_anywhere(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, sub) in m {
                if k == "x-kubernetes-validations" {
                    for r in sub.as_array().into_iter().flatten() {
                        out.push(r["rule"].as_str().unwrap_or_default().to_string());
                    }
                } else {
                    rules_anywhere(sub, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| rules_anywhere(i, out)),
        _ => {}
    }
}

/// A `fieldPath` of the plain form `.a.b` as the apiserver normalizes it
/// (`a.b`); `None` for the forms not handled yet.
fn plain_field_path(f: &str) -> Option<String> {
    let rest = f.strip_prefix('.')?;
    let ok = rest.split('.').all(|seg| {
        let mut chars = seg.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    ok.then(|| rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.n < 5", "message": "n too big", "fieldPath": ".n"},
                {"rule": "self.s.size() < 2", "messageExpression": "'s is ' + self.s",
                    "reason": "FieldValueForbidden"},
                {"rule": "self.n / self.z > 0"},
                {"rule": "optional.unwrap([optional.of(self.s)]).size() == 1"},
                {"rule": "self.n == oldSelf.n"},
            ],
            "properties": {"n": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 0"}]},
                "s": {"type": "string"}, "z": {"type": "integer"}}}}})
    }

    #[test]
    fn rules_fail_as_the_apiserver_words_them() {
        let out = validate(&schema(), &json!({"spec": {"n": 7, "s": "abc", "z": 0}}));
        let texts: Vec<String> = out.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "spec.n: Invalid value: n too big",
                "spec: Forbidden: s is abc",
                "spec: Invalid value: \"object\": division by zero evaluating rule: self.n / self.z > 0",
            ]
        );
        assert_eq!(
            out.not_evaluated,
            [(
                ".spec".to_string(),
                "optional.unwrap([optional.of(self.s)]).size() == 1".to_string()
            )]
        );
        assert_eq!(
            out.evaluated, 5,
            "the transition rule counts as skipped as the apiserver skips it"
        );
    }

    #[test]
    fn a_set_union_changes_the_set_later_rules_see_as_the_apiservers() {
        let rule = "(self + ['t'])[self.size()] == 't'";
        let schema = json!({"type": "object", "properties": {"s": {"type": "array",
            "x-kubernetes-list-type": "set", "items": {"type": "string"},
            "x-kubernetes-validations": [{"rule": rule}, {"rule": rule},
                {"rule": "self == ['t'] && self != ['b']"}]}}});
        let out = validate(&schema, &json!({"s": ["a"]}));
        let texts: Vec<String> = out.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [format!(
                "s: Invalid value: \"array\": index out of bounds: 1 evaluating rule: {rule}"
            )]
        );
    }

    #[test]
    fn rules_under_all_of_are_left_unevaluated() {
        let schema = json!({"type": "object", "x-kubernetes-validations": [{"rule": "true"}],
            "allOf": [{"x-kubernetes-validations": [{"rule": "self.x > 1"}]}]});
        let out = validate(&schema, &json!({}));
        assert_eq!(out.evaluated, 1);
        assert_eq!(
            out.not_evaluated,
            [(String::new(), "self.x > 1".to_string())]
        );
    }

    #[test]
    fn nodes_below_and_absent_fields() {
        let out = validate(&schema(), &json!({"spec": {"n": 0, "s": "a"}}));
        let texts: Vec<String> = out.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "spec: Invalid value: \"object\": no such key: z evaluating rule: self.n / self.z > 0",
                "spec.n: Invalid value: 0: failed rule: self > 0",
            ]
        );
        assert!(has_rules(&schema()));
        assert!(!has_rules(&json!({"type": "object"})));
        assert_eq!(render(&[]), "<nil>");
        assert_eq!(
            render(&["spec".into(), "[0]".into(), "a".into()]),
            "spec[0].a"
        );
    }
}
