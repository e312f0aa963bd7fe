//! An enum's exclusivity [`Check`]: attaching it to a schema node as a
//! recorded CEL rule with its structural fallback, guarding it, and
//! moving checks between nodes.

use std::ops::Not;

use serde_json::{Map, Value, json};

use super::pred::{Msg, Pred, text};
use super::{MAX_RULE_DEPTH, MAX_RULE_LEN, UNION_RULES_KEY};

use crate::schema::cel::Expr;
use crate::schema::merge::{is_int_or_string, required, ty};

/// An enum's exclusivity check: when it holds, and what to say when not.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// What an object must satisfy, as the CEL rule says it.
    pub valid: Pred,
    /// The same, said more compactly as junctors, when that differs.
    pub junctors: Option<Pred>,
    /// What the rule reports when it does not.
    pub message: Msg,
}

/// How deep cel-go's parser recurses for an expression, roughly: a
/// parenthesized operand re-enters the grammar from the top (8 levels), a
/// chained `?:` or `+` adds one.
pub(super) fn depth(e: &Expr) -> usize {
    let nested = |x: &Expr, at: u8| {
        let paren = if x.precedence() < at { 8 } else { 1 };
        depth(x) + paren
    };
    match e {
        Expr::Not(x) => nested(x, 5),
        Expr::Substring(x, _) => nested(x, 6),
        Expr::Eq(a, b) | Expr::Ne(a, b) => nested(a, 4).max(nested(b, 4)),
        Expr::And(xs) | Expr::Or(xs) => {
            // cel-go balances `&&`/`||` chains.
            let levels = usize::BITS - xs.len().leading_zeros();
            levels as usize + xs.iter().map(|x| nested(x, 3)).max().unwrap_or(0)
        }
        Expr::Sum(xs) | Expr::Concat(xs) => {
            xs.len() + xs.iter().map(|x| nested(x, 5)).max().unwrap_or(0)
        }
        Expr::Cond(c, t, f) => nested(c, 1).max(nested(t, 1)).max(depth(f) + 1),
        _ => 1,
    }
}

/// Whether the apiserver gives a schema a CEL type: properties without
/// one (any JSON, lists of any JSON, ...) do not exist for rules.
pub(super) fn declared(s: &Value) -> bool {
    let Value::Object(s) = s else { return false };
    if is_int_or_string(s) {
        return true;
    }
    match ty(s) {
        Some("array") => s.get("items").is_some_and(declared),
        Some("object") => match s.get("additionalProperties") {
            Some(ap @ Value::Object(_)) => declared(ap),
            _ => true,
        },
        Some(_) => true,
        None => false,
    }
}

/// Whether a rule on schema `m` can name the property at `path`.
pub(super) fn visible(m: &Map<String, Value>, path: &[String]) -> bool {
    let mut at = m;
    for name in path {
        match at.get("properties").and_then(|p| p.get(name)) {
            Some(p @ Value::Object(o)) if declared(p) => at = o,
            _ => return false,
        }
    }
    true
}

/// The CEL of `p` for a rule on schema `m`, when CEL can name everything
/// it reads.
pub(super) fn cel_on(m: &Map<String, Value>, p: &Pred) -> Option<Expr> {
    let mut paths = Vec::new();
    p.paths(&mut paths);
    if !paths.iter().all(|path| visible(m, path)) {
        return None;
    }
    p.cel(&[])
}

pub(super) fn rule_fits(e: &Expr) -> bool {
    e.render().len() <= MAX_RULE_LEN && depth(e) <= MAX_RULE_DEPTH
}

/// Adds a value validation to a schema's `allOf`.
pub(super) fn push_junctor(m: &mut Map<String, Value>, v: Value) {
    if v == json!({}) {
        return;
    }
    match m.get_mut("allOf") {
        Some(Value::Array(a)) => a.push(v),
        _ => {
            m.insert("allOf".into(), Value::Array(vec![v]));
        }
    }
}

pub(super) fn entries(m: &Map<String, Value>) -> Vec<Value> {
    match m.get(UNION_RULES_KEY) {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    }
}

/// Appends recorded enum rules to a schema's [`UNION_RULES_KEY`].
pub fn push_entries(m: &mut Map<String, Value>, more: impl IntoIterator<Item = Value>) {
    let mut all = entries(m);
    all.extend(more);
    if !all.is_empty() {
        m.insert(UNION_RULES_KEY.into(), Value::Array(all));
    }
}

/// Moves the rules, enum rules and junctors of `from` (a flattened or
/// variant schema) into `to`.
pub fn take_checks(from: &mut Map<String, Value>, to: &mut Map<String, Value>) {
    if let Some(Value::Array(rules)) = from.remove("x-kubernetes-validations") {
        crate::schema::push_rules(to, rules);
    }
    if let Some(Value::Array(e)) = from.remove(UNION_RULES_KEY) {
        push_entries(to, e);
    }
    for j in ["oneOf", "anyOf", "allOf"] {
        if let Some(v) = from.remove(j) {
            push_junctor(to, json!({ j: v }));
        }
    }
}

/// Adds an enum's check to its schema: a CEL rule (recorded for
/// [`settle`](super::settle())) when CEL can express it, its junctors otherwise.
pub fn attach(m: &mut Map<String, Value>, check: Check) {
    let valid = check.valid;
    if valid == Pred::True {
        return;
    }
    let junctors = check.junctors.unwrap_or_else(|| valid.clone()).structural();
    let mut paths = Vec::new();
    check.message.paths(&mut paths);
    let rule = cel_on(m, &valid);
    let message = paths
        .iter()
        .all(|p| visible(m, p))
        .then(|| check.message.cel(&valid.facts(false)))
        .flatten();
    let (Some(rule), Some(message)) = (rule, message) else {
        push_junctor(m, junctors);
        return;
    };
    if !rule_fits(&rule) || !rule_fits(&message) {
        push_junctor(m, junctors);
        return;
    }
    let mut r = Map::new();
    r.insert("rule".into(), rule.render().into());
    match message {
        Expr::Str(text) if !text.trim().is_empty() && !text.contains(['\n', '\r']) => {
            r.insert("message".into(), text.into());
        }
        message => {
            r.insert("messageExpression".into(), message.render().into());
        }
    }
    let r = Value::Object(r);
    crate::schema::push_rules(m, [r.clone()]);
    push_entries(
        m,
        [json!({"rule": r, "cost": rule.cost(), "fallback": junctors})],
    );
}

/// Makes every rule, enum rule and junctor of `m` hold trivially when
/// `skip` holds (a variant's rules apply only when its tag is set; a
/// flattened `Option` enum's only when it is there); `on` is the schema
/// the rules will sit on.
pub fn guard(m: &mut Map<String, Value>, skip: &Pred, on: &Map<String, Value>) {
    let skip_cel = cel_on(on, skip);
    let skip_schema = skip.structural();
    let mut recorded = entries(m);
    let mut fall_back = Vec::new();
    if let Some(Value::Array(rules)) = m.get_mut("x-kubernetes-validations") {
        let mut kept = Vec::new();
        for r in rules.drain(..) {
            let at = recorded.iter().position(|e| e.get("rule") == Some(&r));
            let Some(skip_cel) = &skip_cel else {
                // CEL cannot name the guard's properties: an enum rule
                // becomes its junctors; a user's rule stays unguarded.
                match at {
                    Some(i) => fall_back.push(recorded.remove(i)["fallback"].clone()),
                    None => kept.push(r),
                }
                continue;
            };
            let mut g = r.clone();
            if let Some(Value::String(rule)) = r.get("rule") {
                g["rule"] = format!("{} || ({rule})", skip_cel.render()).into();
            }
            if let Some(i) = at {
                let e = &mut recorded[i];
                let cost = e["cost"].as_u64().unwrap_or(0) + skip_cel.cost();
                e["cost"] = cost.into();
                e["rule"] = g.clone();
                e["fallback"] = json!({"anyOf": [skip_schema.clone(), e["fallback"].take()]});
            }
            kept.push(g);
        }
        *rules = kept;
    }
    if m.get("x-kubernetes-validations") == Some(&json!([])) {
        m.remove("x-kubernetes-validations");
    }
    m.remove(UNION_RULES_KEY);
    push_entries(m, recorded);
    for j in ["oneOf", "anyOf", "allOf"] {
        if let Some(v) = m.remove(j) {
            fall_back.push(json!({ j: v }));
        }
    }
    for f in fall_back {
        push_junctor(m, json!({"anyOf": [skip_schema.clone(), f]}));
    }
}

/// Whether a schema records enum checks at its top level.
pub fn has_checks(m: &Map<String, Value>) -> bool {
    m.contains_key(UNION_RULES_KEY)
        || ["oneOf", "anyOf", "allOf"]
            .iter()
            .any(|j| m.contains_key(*j))
}

/// For a flattened `Option<Enum>`: serde reads `None` when none of the
/// enum's properties is there, so its checks and requirements apply only
/// when one is. Adds what `required` would have said as a rule.
pub fn guard_optional(sub: &mut Map<String, Value>) {
    // A property the apiserver fills in with its default says nothing.
    let names: Vec<String> = sub
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .filter(|(_, s)| s.get("default").is_none())
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    let absent = Pred::not(Pred::any(names.iter().map(|n| Pred::has(n))));
    let needed: Vec<String> = required(sub)
        .iter()
        .filter_map(|r| r.as_str().map(str::to_owned))
        .collect();
    let on = sub.clone();
    guard(sub, &absent, &on);
    if !needed.is_empty() {
        let message = Msg::Clauses(
            needed
                .iter()
                .map(|r| {
                    (
                        Pred::not(Pred::has(r)),
                        text(format!("field {r} is required")),
                    )
                })
                .collect(),
        );
        let valid = Pred::any([absent, Pred::all(needed.iter().map(|r| Pred::has(r)))]);
        attach(
            sub,
            Check {
                valid,
                junctors: None,
                message,
            },
        );
    }
}
