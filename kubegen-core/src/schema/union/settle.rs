//! Settling the enum rules of a finished schema: which stay CEL rules
//! within the apiserver's cost budget and which become their junctors.

use serde_json::{Value, json};

use super::check::{entries, push_junctor};
use super::{UNION_RULE_BUDGET, UNION_RULES_KEY, UNION_TOTAL_BUDGET};

use crate::schema::cel;

/// One recorded enum rule: where, which, and its cost where it sits.
pub(super) struct Found {
    at: String,
    index: usize,
    cost: u64,
}

pub(super) fn child_cardinality(card: Option<u64>, limit: Option<&Value>) -> Option<u64> {
    Some(card?.saturating_mul(limit?.as_u64()?))
}

/// Walks every schema node holding enum rules, with how many times a rule
/// there can run (`None`: inside a list or map without a limit).
pub(super) fn walk(v: &Value, at: &str, card: Option<u64>, out: &mut Vec<Found>) {
    let Value::Object(m) = v else { return };
    let runs = card.unwrap_or_else(|| cel::unbounded_cardinality(m));
    for (index, e) in entries(m).iter().enumerate() {
        let cost = e["cost"].as_u64().unwrap_or(u64::MAX).saturating_mul(runs);
        out.push(Found {
            at: at.to_owned(),
            index,
            cost,
        });
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        for (k, p) in props {
            walk(p, &format!("{at}/properties/{k}"), card, out);
        }
    }
    if let Some(items) = m.get("items") {
        walk(
            items,
            &format!("{at}/items"),
            child_cardinality(card, m.get("maxItems")),
            out,
        );
    }
    if let Some(ap @ Value::Object(_)) = m.get("additionalProperties") {
        walk(
            ap,
            &format!("{at}/additionalProperties"),
            child_cardinality(card, m.get("maxProperties")),
            out,
        );
    }
}

pub(super) fn apply(v: &mut Value, at: &str, junctors: &[(String, usize)]) {
    let Value::Object(m) = v else { return };
    let recorded = match m.remove(UNION_RULES_KEY) {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    };
    for (index, e) in recorded.into_iter().enumerate() {
        if !junctors.iter().any(|(a, i)| a == at && *i == index) {
            continue;
        }
        let mut found = false;
        if let Some(Value::Array(rules)) = m.get_mut("x-kubernetes-validations")
            && let Some(i) = rules.iter().position(|r| Some(r) == e.get("rule"))
        {
            rules.remove(i);
            found = true;
        }
        if m.get("x-kubernetes-validations") == Some(&json!([])) {
            m.remove("x-kubernetes-validations");
        }
        if found {
            push_junctor(m, e["fallback"].clone());
        }
    }
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        for (k, p) in props.iter_mut() {
            apply(p, &format!("{at}/properties/{k}"), junctors);
        }
    }
    if let Some(items) = m.get_mut("items") {
        apply(items, &format!("{at}/items"), junctors);
    }
    if let Some(ap) = m.get_mut("additionalProperties") {
        apply(ap, &format!("{at}/additionalProperties"), junctors);
    }
}

/// Settles the enum rules of a finished schema (a CRD version's spec or
/// status): each stays a CEL rule while its cost, times the number of
/// times it can run, is within [`UNION_RULE_BUDGET`] and all of them
/// together within [`UNION_TOTAL_BUDGET`] (the costliest give way first);
/// the others become their junctors. Removes every [`UNION_RULES_KEY`].
pub fn settle(schema: &mut Value) {
    let mut found = Vec::new();
    walk(schema, "", Some(1), &mut found);
    // Costliest first; ties in schema order.
    crate::sorting::sort_by_key(&mut found, |f| std::cmp::Reverse(f.cost));
    let mut total: u64 = found.iter().map(|f| f.cost).fold(0, u64::saturating_add);
    let mut junctors = Vec::new();
    for f in &found {
        if f.cost > UNION_RULE_BUDGET || total > UNION_TOTAL_BUDGET {
            total = total.saturating_sub(f.cost);
            junctors.push((f.at.clone(), f.index));
        }
    }
    apply(schema, "", &junctors);
}
