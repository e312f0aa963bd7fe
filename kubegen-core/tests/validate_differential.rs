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
//! object. Rules kubegen leaves unevaluated are counted; they are in the
//! comparison too, so one the apiserver fails shows as a difference.
//!
//! Needs `go` (1.26) on `PATH`. `KUBEGEN_VALIDATE_CASES` sets the number
//! of objects (default 2,000), `KUBEGEN_VALIDATE_SEED` the seed.

use kubegen_core::rng::Rng;
use serde_json::{Value, json};

#[path = "support/go_helper.rs"]
mod go_helper;
#[path = "support/widgets.rs"]
mod widgets;
use widgets::{root_schema, widget, widget_crd};

/// Values equal as the apiserver stores them: numbers by value (`12.0`
/// decodes to a float64 12 and is written back as `12`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
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
    let (mut rules_evaluated, mut rules_not_evaluated, mut rule_errors) = (0, 0, 0);
    let mut differences = Vec::new();
    for ((schema, namespaced, object), theirs) in inputs.iter().zip(&answers) {
        if theirs.get("schemaError").is_some() {
            panic!("a generated schema is not structural: {theirs}");
        }
        let crd = widget_crd(schema, "example.com", *namespaced);
        let ours = kubegen_core::validate::validate_create(&crd, object).expect("the CRD's kind");
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
        let strip = |v: &Value| {
            let mut v = v.clone();
            if let Some(m) = v.as_object_mut() {
                m.remove("metadata");
            }
            v
        };
        let same_stored = same(&strip(&ours.object), &strip(&theirs["stored"]));
        if our_errors == their_errors && ours.unknown_fields == their_unknown && same_stored {
            agreed += 1;
            invalid += usize::from(!our_errors.is_empty());
            unknown_total += their_unknown.len();
            error_total += our_errors.len();
        } else {
            differences.push(format!(
                "schema {schema}\nobject {object}\n  kubegen:   {our_errors:?} unknown {:?} stored {}\n  apiserver: {their_errors:?} unknown {their_unknown:?} stored {}",
                ours.unknown_fields, ours.object, theirs["stored"]
            ));
        }
    }
    eprintln!(
        "{cases} objects: {agreed} with the same verdict ({invalid} invalid, {error_total} errors and {unknown_total} unknown fields word for word), {} differences; CEL rules: {rules_evaluated} evaluated ({rule_errors} errors from them), {rules_not_evaluated} left unevaluated",
        differences.len()
    );
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
