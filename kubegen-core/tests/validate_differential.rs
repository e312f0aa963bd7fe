//! `kubegen_core::validate` against the apiserver's own create path, run
//! from k8s.io/apiextensions-apiserver v0.36.3 (`go run ./tests/cel
//! validate`: pruning with the unknown fields tracked, non-nullable nulls
//! dropped, defaulting, metadata, OpenAPI schema and list-type
//! validation, in the apiserver's order): on seeded random schemas and
//! objects built from them — valid ones and ones broken the ways users
//! break them (unknown fields, nulls, wrong types, bounds, patterns,
//! formats, missing required fields, repeated set items and map keys, bad
//! names and labels), with seeded `x-kubernetes-validations` rules (with
//! `message`, `messageExpression`, `reason` and `fieldPath`) that the
//! apiserver's CEL validator runs after the other checks unless an error
//! blocks them — the same unknown fields, the same errors word for word
//! (rule failures and evaluation errors included), and the same stored
//! object, and the same runtime cost charged to the object's budget
//! (cel-go's cost tracker, wherever it does not depend on the random
//! order Go visits a map's entries in). Rules kubegen leaves unevaluated
//! are counted; they are in the comparison too, so one the apiserver
//! fails shows as a difference. A second test drives rules over their
//! per-call limit and objects over their budget, in rules and in
//! `messageExpression`s.
//!
//! Needs `go` (1.26) on `PATH`. `KUBEGEN_VALIDATE_CASES` sets the number
//! of objects (default 2,000), `KUBEGEN_VALIDATE_SEED` the seed.

use kubegen_core::rng::Rng;
use serde_json::{Value, json};

#[path = "support/differences.rs"]
mod differences;
#[path = "support/go_helper.rs"]
mod go_helper;
#[path = "support/widgets.rs"]
mod widgets;
use widgets::{mix, root_schema, widget, widget_crd};

/// An object without its `metadata` (which the apiserver fills in).
fn without_metadata(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(m) = v.as_object_mut() {
        m.remove("metadata");
    }
    v
}

#[test]
fn the_create_path_agrees_with_the_apiservers() {
    let cases: usize = std::env::var("KUBEGEN_VALIDATE_CASES").map_or(2000, |v| v.parse().unwrap());
    let seed: u64 = std::env::var("KUBEGEN_VALIDATE_SEED").map_or(42, |v| v.parse().unwrap());
    let mut rng = Rng::new(seed ^ 0x7a11d);
    let mut lines = Vec::new();
    let mut inputs = Vec::new();
    for _ in 0..cases {
        let schema = root_schema(&mut rng);
        let namespaced = rng.chance(1, 2);
        let object = widget(&mut rng, &schema, "example.com");
        lines.push(
            json!({"schema": schema, "namespaced": namespaced, "object": object}).to_string(),
        );
        inputs.push((schema, namespaced, object));
    }
    let answers = go_helper::run("cel", &["validate"], &lines);
    let (mut agreed, mut invalid, mut unknown_total, mut error_total) = (0, 0, 0, 0);
    let mut undecodable = 0;
    let (mut rules_evaluated, mut rules_not_evaluated, mut rule_errors) = (0, 0, 0);
    let mut costed = 0;
    let mut differences = Vec::new();
    for ((schema, namespaced, object), theirs) in inputs.iter().zip(&answers) {
        if theirs.get("schemaError").is_some() {
            panic!("a generated schema is not structural: {theirs}");
        }
        let crd = widget_crd(schema, "example.com", *namespaced);
        let ours = kubegen_core::validate::validate_create(&crd, object).expect("the CRD's kind");
        if let Some(refused) = undecodable_difference(&ours, theirs) {
            match refused {
                Ok(()) => {
                    agreed += 1;
                    undecodable += 1;
                }
                Err(d) => differences.push(format!("object {object}\n  {d}")),
            }
            continue;
        }
        rules_evaluated += ours.rules_evaluated;
        rules_not_evaluated += ours.rules_not_evaluated.len();
        if !ours
            .errors
            .iter()
            .any(|e| e.field == "<nil>" || kubegen_core::validate::blocks_rules(e))
        {
            rule_errors += kubegen_core::validate::rules::validate(schema, &ours.object)
                .errors
                .len();
        }
        let mut our_errors: Vec<String> = ours.errors.iter().map(ToString::to_string).collect();
        let mut their_errors: Vec<String> = theirs["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap().to_string())
            .collect();
        our_errors.sort();
        their_errors.sort();
        let their_unknown: Vec<String> = theirs["unknown"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap().to_string())
            .collect();
        let same_stored = differences::same(
            &without_metadata(&ours.object),
            &without_metadata(&theirs["stored"]),
        );
        // The rules' runtime cost, where kubegen knows it.
        let their_cost = theirs["celCost"].as_u64();
        let same_cost = ours.rules_cost.is_none() || ours.rules_cost == their_cost;
        if ours.rules_cost.is_some() && their_cost.is_some_and(|c| c > 0) {
            costed += 1;
        }
        if our_errors == their_errors
            && ours.unknown_fields == their_unknown
            && same_stored
            && same_cost
        {
            agreed += 1;
            invalid += usize::from(!our_errors.is_empty());
            unknown_total += their_unknown.len();
            error_total += our_errors.len();
        } else {
            differences.push(format!(
                "schema {schema}\nobject {object}\n  kubegen:   {our_errors:?} unknown {:?} cost {:?} stored {}\n  apiserver: {their_errors:?} unknown {their_unknown:?} cost {their_cost:?} stored {}",
                ours.unknown_fields, ours.rules_cost, ours.object, theirs["stored"]
            ));
        }
    }
    eprintln!(
        "{cases} objects: {agreed} with the same verdict ({undecodable} refused while decoding, {invalid} invalid, {error_total} errors and {unknown_total} unknown fields word for word), {} differences; CEL rules: {rules_evaluated} evaluated ({rule_errors} errors from them), {rules_not_evaluated} left unevaluated; the same runtime cost on {costed} objects whose rules cost anything",
        differences.len()
    );
    differences::assert_none(&differences, 8);
}

/// Whether kubegen and the apiserver agree on refusing an object while
/// decoding it (`None` when neither refuses it): the apiserver names the
/// first refusal it meets in Go's random map order, which must be one of
/// kubegen's.
fn undecodable_difference(
    ours: &kubegen_core::validate::Outcome,
    theirs: &Value,
) -> Option<Result<(), String>> {
    match (theirs["decodeError"].as_str(), ours.undecodable.as_slice()) {
        (None, []) => None,
        (Some(e), ours) if ours.iter().any(|o| o == e) => Some(Ok(())),
        (theirs, ours) => Some(Err(format!(
            "refused while decoding: apiserver {theirs:?}, kubegen {ours:?}"
        ))),
    }
}

/// A widget schema whose `spec` is `spec`.
fn with_spec(spec: Value) -> Value {
    json!({"type": "object", "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"type": "object"}, "spec": spec}})
}

/// A widget whose `spec` is `spec`.
fn widget_with(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "web", "namespace": "default"}, "spec": spec})
}

/// The runtime cost limits: a rule over its per-call limit, objects whose
/// rules spend the object's budget (in a rule or in a `messageExpression`),
/// and heavy rules within both, whose exact cost is compared.
#[test]
fn cost_limits_and_the_budget_agree_with_the_apiservers() {
    let pairs = "self.all(x, self.all(y, x == y || x.startsWith(y)))";
    let list = |rule: &str, extra: Value| {
        let mut rule = json!({"rule": rule});
        if let (Some(r), Some(e)) = (rule.as_object_mut(), extra.as_object()) {
            r.extend(e.clone());
        }
        json!({"type": "object", "properties": {"l": {"type": "array",
            "items": {"type": "string"}, "x-kubernetes-validations": [rule]}}})
    };
    // A list of lists (the apiserver visits a map's entries in Go's random
    // order, so where the budget runs out in one varies), each sorted: n²
    // × 2.1 for n strings, the lists extension's price.
    let lists = json!({"type": "object", "properties": {"m": {"type": "array",
        "items": {"type": "array", "items": {"type": "string"},
            "x-kubernetes-validations": [{"rule": "self.sort().size() > 0"}]}}}});
    let strings = |n: usize, s: &str| Value::from(vec![s; n]);
    let many = |lists: usize, n: usize| json!({"m": vec![strings(n, "ab"); lists]});
    let cases = [
        // Within the per-call limit; the exact cost compared.
        (list(pairs, json!({})), json!({"l": strings(150, "ab")})),
        // Over it.
        (list(pairs, json!({})), json!({"l": strings(450, "ab")})),
        (
            list(pairs, json!({"message": "all pairs"})),
            json!({"l": strings(450, "ab")}),
        ),
        // A failing rule whose message expression is over the limit.
        (
            list(
                "self.size() < 2",
                json!({"messageExpression": "self.all(x, self.all(y, x == y)) ? 'same' : 'differ'"}),
            ),
            json!({"l": strings(450, "ab")}),
        ),
        // The object's budget spent over many nodes.
        (lists.clone(), many(11, 650)),
        (lists.clone(), many(12, 650)),
        (lists.clone(), many(2, 700)),
        // Failing rules whose messages spend the budget.
        (
            json!({"type": "object", "properties": {"m": {"type": "array",
                "items": {"type": "array", "items": {"type": "string"},
                    "x-kubernetes-validations": [{"rule": "self.sort().size() < 0",
                        "messageExpression": "string(self.sort().size())"}]}}}}),
            many(6, 650),
        ),
    ];
    let mut lines = Vec::new();
    for (spec, object) in &cases {
        lines.push(
            json!({"schema": with_spec(spec.clone()), "namespaced": true,
                "object": widget_with(object.clone())})
            .to_string(),
        );
    }
    let answers = go_helper::run("cel", &["validate"], &lines);
    let mut differences = Vec::new();
    let (mut limits, mut costs) = (0, 0);
    for ((spec, object), theirs) in cases.iter().zip(&answers) {
        let schema = with_spec(spec.clone());
        let crd = widget_crd(&schema, "example.com", true);
        let ours = kubegen_core::validate::validate_create(&crd, &widget_with(object.clone()))
            .expect("the CRD's kind");
        let ours_errors: Vec<String> = ours.errors.iter().map(ToString::to_string).collect();
        let their_errors: Vec<String> = theirs["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap().to_string())
            .collect();
        let their_cost = theirs["celCost"].as_u64();
        limits += usize::from(their_cost.is_none());
        costs += usize::from(their_cost.is_some());
        if ours_errors != their_errors || ours.rules_cost != their_cost {
            differences.push(format!(
                "spec {spec}\n  kubegen:   {ours_errors:?} cost {:?}\n  apiserver: {their_errors:?} cost {their_cost:?}",
                ours.rules_cost
            ));
        }
    }
    eprintln!(
        "{} heavy objects: {limits} over a limit or the budget, {costs} with their cost compared, {} differences",
        cases.len(),
        differences.len()
    );
    differences::assert_none(&differences, usize::MAX);
    assert!(limits >= 4 && costs >= 2, "the cases reach the limits");
}

/// Whether the field error `error` is at the schema node `at`
/// (`.spec.items[*]`, a field of it for a rule's `fieldPath`).
fn at_node(error: &str, at: &str) -> bool {
    let field = error.split(": ").next().unwrap_or_default();
    let node = if at.is_empty() {
        "<nil>".to_string()
    } else {
        regex::escape(at.trim_start_matches('.')).replace(r"\[\*\]", r"\[[^\]]*\]")
    };
    regex::Regex::new(&format!(r"^{node}(\..*)?$"))
        .unwrap()
        .is_match(field)
}

/// Updates: an old object as stored (often invalid under the schema, as
/// one stored before its CRD tightened) replaced by a new one that keeps
/// some of it — the same errors, ratcheted warnings, unknown fields,
/// stored object and runtime cost as the apiserver's update path.
#[test]
fn the_update_path_agrees_with_the_apiservers() {
    let cases: usize = std::env::var("KUBEGEN_VALIDATE_CASES").map_or(2000, |v| v.parse().unwrap());
    let seed: u64 = std::env::var("KUBEGEN_VALIDATE_SEED").map_or(42, |v| v.parse().unwrap());
    let mut rng = Rng::new(seed ^ 0x0bd47e);
    let mut lines = Vec::new();
    let mut inputs = Vec::new();
    for _ in 0..cases {
        let schema = root_schema(&mut rng);
        let namespaced = rng.chance(1, 2);
        let mut old = widget(&mut rng, &schema, "example.com");
        let other = widget(&mut rng, &schema, "example.com");
        let mut new = if rng.chance(1, 8) {
            old.clone()
        } else {
            mix(&mut rng, &old, &other)
        };
        let meta = if namespaced {
            json!({"name": "web", "namespace": "default"})
        } else {
            json!({"name": "web"})
        };
        old["metadata"] = meta.clone();
        new["metadata"] = meta;
        for o in [&mut old, &mut new] {
            o["apiVersion"] = json!("example.com/v1");
            o["kind"] = json!("Widget");
        }
        lines.push(
            json!({"schema": schema, "namespaced": namespaced, "object": new, "old": old})
                .to_string(),
        );
        inputs.push((schema, namespaced, new, old));
    }
    let answers = go_helper::run("cel", &["validate"], &lines);
    let (mut agreed, mut invalid, mut warned, mut costed, mut random) = (0, 0, 0, 0, 0);
    let mut listed = Vec::new();
    let mut differences = Vec::new();
    let texts = |v: &Value| -> Vec<String> {
        let mut t: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap().to_string())
            .collect();
        t.sort();
        t
    };
    for ((schema, namespaced, new, old), theirs) in inputs.iter().zip(&answers) {
        let crd = widget_crd(schema, "example.com", *namespaced);
        let ours = kubegen_core::validate::validate_update(&crd, new, old).expect("the CRD's kind");
        if let Some(refused) = undecodable_difference(&ours, theirs) {
            match refused {
                Ok(()) => agreed += 1,
                Err(d) => differences.push(format!("object {new}\n  {d}")),
            }
            continue;
        }
        let sorted = |e: &[kubegen_core::validate::field::FieldError]| {
            let mut t: Vec<String> = e.iter().map(ToString::to_string).collect();
            t.sort();
            t
        };
        let (our_errors, our_warnings) = (sorted(&ours.errors), sorted(&ours.warnings));
        let (their_errors, their_warnings) = (texts(&theirs["errors"]), texts(&theirs["warnings"]));
        let their_unknown = texts(&theirs["unknown"]);
        let their_cost = theirs["celCost"].as_u64();
        // Where the apiserver's own verdict depends on the order Go visits
        // a map's entries in (kubegen lists such a rule as not
        // evaluated), there is no one answer to compare with.
        if ours
            .rules_not_evaluated
            .iter()
            .any(|u| u.why.contains("the order Go visits"))
        {
            random += 1;
            continue;
        }
        if our_errors == their_errors
            && our_warnings == their_warnings
            && ours.unknown_fields == their_unknown
            && differences::same(
                &without_metadata(&ours.object),
                &without_metadata(&theirs["stored"]),
            )
            && (ours.rules_cost.is_none() || ours.rules_cost == their_cost)
        {
            agreed += 1;
            invalid += usize::from(!our_errors.is_empty());
            warned += usize::from(!our_warnings.is_empty());
            costed += usize::from(ours.rules_cost.is_some_and(|c| c > 0));
        } else if !ours.rules_not_evaluated.is_empty()
            && our_errors
                .iter()
                .chain(&their_errors)
                .filter(|e| !(our_errors.contains(e) && their_errors.contains(e)))
                .all(|e| ours.rules_not_evaluated.iter().any(|u| at_node(e, &u.at)))
        {
            // Only in rules kubegen lists as not evaluated, with why.
            listed.extend(ours.rules_not_evaluated.iter().map(|u| u.why.clone()));
        } else {
            differences.push(format!(
                "schema {schema}\nold {old}\nnew {new}\n  not evaluated {:?}\n  kubegen:   {our_errors:?} warnings {our_warnings:?} unknown {:?} cost {:?}\n  apiserver: {their_errors:?} warnings {their_warnings:?} unknown {their_unknown:?} cost {their_cost:?}",
                ours.rules_not_evaluated, ours.unknown_fields, ours.rules_cost
            ));
        }
    }
    eprintln!(
        "{cases} updates: {agreed} with the same verdict ({invalid} refused, {warned} with ratcheted rules as warnings, {costed} with the same runtime cost), {random} whose verdict depends on Go's map order, {} that differ only in rules kubegen lists as not evaluated ({listed:?}), {} differences",
        listed.len(),
        differences.len()
    );
    differences::assert_none(&differences, 6);
}

/// Embedded resources (`x-kubernetes-embedded-resource`) against the
/// apiserver's `schemaobjectmeta.CoerceWithOptions` and `Validate` (`go
/// run ./tests/cel embedded`): seeded resources with type meta and
/// metadata of every shape users and tools write — each field of
/// `ObjectMeta` of the wrong type, timestamps (Go's `time.Parse` of RFC
/// 3339, fractions, offsets, fields out of range, broken texts), owner
/// references, finalizers, managed fields, unknown fields — decoded
/// alike (the same refusal word for word, or the same unknown fields and
/// the same metadata written back) and validated alike (the same errors).
#[test]
fn embedded_resources_agree_with_the_apiservers() {
    use kubegen_core::validate::{embedded, object_meta::Mode};
    let cases: usize = std::env::var("KUBEGEN_VALIDATE_CASES").map_or(2000, |v| v.parse().unwrap());
    let seed: u64 = std::env::var("KUBEGEN_VALIDATE_SEED").map_or(42, |v| v.parse().unwrap());
    let mut rng = Rng::new(seed ^ 0xe3bed);
    let values: Vec<Value> = (0..cases)
        .map(|_| widgets::embedded_resource(&mut rng))
        .collect();
    let lines: Vec<String> = values
        .iter()
        .map(|v| json!({"value": v}).to_string())
        .collect();
    let answers = go_helper::run("cel", &["embedded"], &lines);
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "template": {"type": "object", "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true}}}}});
    let (mut refused, mut invalid) = (0, 0);
    let mut differences = Vec::new();
    for (value, theirs) in values.iter().zip(&answers) {
        let mut object = json!({"spec": {"template": value}});
        let coerced = embedded::coerce(&mut object, &schema, Mode::Request);
        let ours: Vec<String> = coerced.errors.iter().map(ToString::to_string).collect();
        if let Some(error) = theirs["coerceError"].as_str() {
            refused += 1;
            // Go stops at the first error in its random map order.
            if !ours.iter().any(|e| e == error) {
                differences.push(format!(
                    "{value}\n  apiserver refuses: {error}\n  kubegen: {ours:?}"
                ));
            }
            continue;
        }
        if !ours.is_empty() {
            differences.push(format!(
                "{value}\n  apiserver accepts\n  kubegen refuses: {ours:?}"
            ));
            continue;
        }
        let their_unknown: Vec<String> = serde_json::from_value(theirs["unknown"].clone()).unwrap();
        if coerced.unknown != their_unknown {
            differences.push(format!(
                "{value}\n  unknown: apiserver {their_unknown:?}, kubegen {:?}",
                coerced.unknown
            ));
        }
        if !differences::same(&object["spec"]["template"], &theirs["coerced"]) {
            differences.push(format!(
                "{value}\n  written back: apiserver {}, kubegen {}",
                theirs["coerced"], object["spec"]["template"]
            ));
        }
        let mut errors = Vec::new();
        embedded::validate(&object, &schema, "", &mut errors);
        let mut ours: Vec<String> = errors.iter().map(ToString::to_string).collect();
        let mut their_errors: Vec<String> =
            serde_json::from_value(theirs["errors"].clone()).unwrap();
        ours.sort();
        their_errors.sort();
        invalid += usize::from(!their_errors.is_empty());
        if ours != their_errors {
            differences.push(format!(
                "{value}\n  errors: apiserver {their_errors:#?}\n  kubegen {ours:#?}"
            ));
        }
    }
    eprintln!(
        "embedded resources: {cases} cases, {refused} refused while decoding, {invalid} invalid, {} differences",
        differences.len()
    );
    differences::assert_none(&differences, 12);
}
