//! Structural schemas for enums with data, and the check that keeps their
//! variants exclusive.
//!
//! A structural schema cannot give each variant its own properties, so the
//! variants' properties are hoisted into one object (or one scalar) schema.
//! That schema alone would accept an object mixing two variants' fields,
//! which serde then reads as one variant, silently dropping the other's
//! fields on the next typed update. Each enum therefore carries a [`Check`]:
//! a predicate over which of its properties are present, written once as a
//! [`Pred`] and rendered two ways:
//!
//! - as one CEL rule (`x-kubernetes-validations`) whose `messageExpression`
//!   names the variant and the field at fault, e.g. `variant Git does not
//!   allow field bucket` or `variant S3 requires field bucket`;
//! - as the equivalent structural junctors (`allOf`/`anyOf`/`oneOf`/`not`
//!   of `required`), with the apiserver's generic messages.
//!
//! The CEL rule is preferred. Its cost multiplies with the number of times
//! the enum can occur in one object (lists and maps without a size limit),
//! which is only known once the whole CRD schema is: each CEL rule is
//! recorded under a private marker ([`UNION_RULES_KEY`]) with its cost and
//! its structural equivalent, and [`settle`] picks, for the finished schema,
//! which rules fit the apiserver's budget and which become their junctors.
//!
//! What an object may hold, per representation (property names are the
//! serialized ones; "a field" is a property of some variant):
//!
//! - externally tagged: exactly one variant key;
//! - internally tagged (`tag`): when the tag names variant V, every field V
//!   requires is present and no field only other variants have is;
//! - adjacently tagged (`tag`, `content`): the same for the content's
//!   fields; a unit variant has no content, a variant with data needs it
//!   (unless its data is an `Option`);
//! - untagged: serde takes the first variant, in declaration order, whose
//!   fields read; see [`untagged_union`] for the rule that follows.
//!
//! The line drawn is serde's *lossless* reading: an object serde reads
//! without dropping anything is accepted; one serde refuses, or reads only
//! by ignoring another variant's fields, is refused. Hence also: a default
//! on a field only some variants have is dropped from the schema (the
//! apiserver would add it to every object, a stray field for the other
//! variants; serde still fills it in), and a flattened `Option<Enum>`,
//! which serde reads as `None` when none of its fields is there, is checked
//! only when one is.

mod build;
mod check;
mod pred;
mod settle;

pub use build::*;
pub use check::*;
pub use pred::*;
pub use settle::*;

use crate::schema::cel;

/// Where a schema node records the CEL rules of enums (or of flattened
/// enums) at that node: `[{"rule": <the rule object>, "cost": <estimated
/// cost of one evaluation>, "fallback": <equivalent value validation>}]`.
/// Never emitted: [`settle`] consumes it.
pub const UNION_RULES_KEY: &str = "x-kubegen-union-rules";

/// What one enum rule may cost, times the number of times it can run,
/// before its junctors are used instead: 80% of the apiserver's per-rule
/// limit (the estimate is the apiserver's own, proven at the limit by the
/// acceptance tests; the margin is for a future apiserver).
pub const UNION_RULE_BUDGET: u64 = cel::RULE_COST_LIMIT / 10 * 8;

/// What all enum rules of one schema (spec or status) may cost together: a
/// quarter of the CRD's budget, leaving the rest to rules users write.
pub const UNION_TOTAL_BUDGET: u64 = cel::CRD_COST_LIMIT / 4;

/// Generated rules longer than this use their junctors (CEL's parser
/// limits nesting; a rule this long is also hard to read in a CRD).
const MAX_RULE_LEN: usize = 16 * 1024;

/// Generated rules nesting deeper than this use their junctors (cel-go's
/// parser refuses 250 levels of its grammar).
const MAX_RULE_DEPTH: usize = 120;

#[cfg(test)]
pub mod eval {
    //! The structural subset's meaning, for tests: whether a value
    //! validation holds on a value.

    use serde_json::Value;

    /// Whether `schema` (value validations only) accepts `v`.
    pub fn validates(schema: &Value, v: &Value) -> bool {
        let Value::Object(s) = schema else {
            return false;
        };
        if let Some(Value::Array(req)) = s.get("required") {
            let Value::Object(o) = v else { return false };
            if req
                .iter()
                .any(|r| !r.as_str().is_some_and(|r| o.contains_key(r)))
            {
                return false;
            }
        }
        if let (Some(Value::Object(props)), Value::Object(o)) = (s.get("properties"), v) {
            for (k, p) in props {
                if let Some(x) = o.get(k)
                    && !validates(p, x)
                {
                    return false;
                }
            }
        }
        if let Some(Value::Array(e)) = s.get("enum")
            && !e.contains(v)
        {
            return false;
        }
        if let Some(n) = s.get("not")
            && validates(n, v)
        {
            return false;
        }
        let count = |k: &str| match s.get(k) {
            Some(Value::Array(xs)) => {
                Some((xs.iter().filter(|x| validates(x, v)).count(), xs.len()))
            }
            _ => None,
        };
        if let Some((ok, n)) = count("allOf")
            && ok != n
        {
            return false;
        }
        if let Some((ok, _)) = count("anyOf")
            && ok == 0
        {
            return false;
        }
        if let Some((ok, _)) = count("oneOf")
            && ok != 1
        {
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::merge::merge_schema;
    use serde_json::{Map, Value, json};
    use std::ops::Not;

    fn m(v: Value) -> Map<String, Value> {
        super::super::obj(v)
    }

    #[test]
    fn int_and_string_make_int_or_string() {
        let out = merge_schema(
            &m(json!({"type": "integer"})),
            &m(json!({"type": "string"})),
        )
        .unwrap();
        assert_eq!(
            out.get("x-kubernetes-int-or-string"),
            Some(&Value::Bool(true))
        );
    }

    #[test]
    fn objects_union_properties() {
        let a = m(
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
        );
        let b = m(
            json!({"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}),
        );
        let out = merge_schema(&a, &b).unwrap();
        assert_eq!(out["properties"].as_object().unwrap().len(), 2);
        assert!(!out.contains_key("required"));
    }

    #[test]
    fn object_and_string_conflict() {
        let e =
            merge_schema(&m(json!({"type": "object"})), &m(json!({"type": "string"}))).unwrap_err();
        assert!(e.contains("object"));
    }

    #[test]
    fn predicates_simplify() {
        assert_eq!(Pred::all([Pred::True, Pred::has("a")]), Pred::has("a"));
        assert_eq!(Pred::any([Pred::True, Pred::has("a")]), Pred::True);
        assert_eq!(Pred::not(Pred::not(Pred::has("a"))), Pred::has("a"));
        assert_eq!(
            Pred::when(Pred::has("a"), Pred::True, Pred::has("b")),
            Pred::any([Pred::has("a"), Pred::has("b")])
        );
    }

    #[test]
    fn known_presence_is_not_tested_again() {
        // `has(self.c)` once, then `self.c.x` directly.
        let p = Pred::all([Pred::has("c"), Pred::Present(vec!["c".into(), "x".into()])]);
        assert_eq!(p.cel(&[]).unwrap().render(), "has(self.c) && has(self.c.x)");
        let p = Pred::any([
            Pred::not(Pred::has("t")),
            Pred::TagIn {
                tag: "t".into(),
                values: vec!["A".into()],
                max_len: 1,
            },
        ]);
        assert_eq!(
            p.cel(&[]).unwrap().render(),
            "!has(self.t) || self.t == 'A'"
        );
    }

    #[test]
    fn unnameable_properties_use_junctors() {
        let mut s = m(json!({"type": "object"}));
        attach(
            &mut s,
            Check {
                valid: Pred::ExactlyOne(vec!["a b".into(), "c".into()]),
                junctors: None,
                message: Msg::Text("x".into()),
            },
        );
        assert!(!s.contains_key("x-kubernetes-validations"), "{s:?}");
        assert_eq!(
            s["allOf"],
            json!([{"oneOf": [{"required": ["a b"]}, {"required": ["c"]}]}])
        );
    }

    #[test]
    fn settling_prefers_rules_and_falls_back_in_unbounded_lists() {
        let union = |card_hint: &str| {
            let mut s = m(json!({"type": "object", "description": card_hint,
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}));
            attach(
                &mut s,
                Check {
                    valid: Pred::ExactlyOne(vec!["a".into(), "b".into()]),
                    junctors: None,
                    message: Msg::Text("one".into()),
                },
            );
            Value::Object(s)
        };
        let mut big = json!({"type": "object", "properties": {
            "top": union("top"),
            "few": {"type": "array", "maxItems": 10, "items": union("few")},
        }});
        settle(&mut big);
        assert!(!big.to_string().contains(UNION_RULES_KEY), "{big}");
        assert!(
            big["properties"]["top"]
                .get("x-kubernetes-validations")
                .is_some()
        );
        assert!(
            big["properties"]["few"]["items"]
                .get("x-kubernetes-validations")
                .is_some()
        );

        // A rule costing 4 in a list of `{}` objects runs 1048576 times:
        // within the per-rule budget; nine such lists are not within the
        // total, so the costliest (all equal: the first ones found) fall back.
        let many: Map<String, Value> = (0..9)
            .map(|i| {
                (
                    format!("l{i}"),
                    json!({"type": "array", "items": union("many")}),
                )
            })
            .collect();
        let mut many = json!({"type": "object", "properties": many});
        settle(&mut many);
        let rules = (0..9)
            .filter(|i| {
                many["properties"][format!("l{i}")]["items"]
                    .get("x-kubernetes-validations")
                    .is_some()
            })
            .count();
        assert_eq!(rules, 5, "{many:#}");
        for i in 0..9 {
            let items = &many["properties"][format!("l{i}")]["items"];
            assert!(
                items.get("x-kubernetes-validations").is_some() != items.get("allOf").is_some(),
                "{items}"
            );
        }
    }
}
