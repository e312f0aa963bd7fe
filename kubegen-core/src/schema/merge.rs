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

use std::collections::BTreeMap;
use std::ops::Not;

use serde_json::{Map, Value, json};

use super::cel::{self, Expr};
use super::{SchemaError, err};

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

fn ty(m: &Map<String, Value>) -> Option<&str> {
    m.get("type").and_then(Value::as_str)
}

fn is_int_or_string(m: &Map<String, Value>) -> bool {
    m.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
}

fn required(m: &Map<String, Value>) -> Vec<Value> {
    match m.get("required") {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    }
}

/// Merges two schemas describing values at the same place into one schema
/// accepting both (value validations that differ are dropped).
pub fn merge_schema(
    a: &Map<String, Value>,
    b: &Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    if a == b {
        return Ok(a.clone());
    }
    let scalar_is =
        |m: &Map<String, Value>| is_int_or_string(m) || matches!(ty(m), Some("integer" | "string"));
    if (is_int_or_string(a) || is_int_or_string(b) || ty(a) != ty(b))
        && scalar_is(a)
        && scalar_is(b)
    {
        return Ok(super::int_or_string());
    }
    let preserve = |m: &Map<String, Value>| {
        m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) && ty(m).is_none()
    };
    if preserve(a) || preserve(b) {
        return Ok(super::obj(
            json!({"x-kubernetes-preserve-unknown-fields": true}),
        ));
    }
    if ty(a) != ty(b) {
        return Err(format!(
            "cannot describe both a {} and a {} in one structural schema",
            ty(a).unwrap_or("value"),
            ty(b).unwrap_or("value")
        ));
    }
    let mut out = Map::new();
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for k in keys {
        let (va, vb) = (a.get(k), b.get(k));
        match k.as_str() {
            "properties" => {
                let mut props = match va {
                    Some(Value::Object(p)) => p.clone(),
                    _ => Map::new(),
                };
                if let Some(Value::Object(pb)) = vb {
                    for (name, s) in pb {
                        let merged = match (props.get(name), s) {
                            (Some(Value::Object(x)), Value::Object(y)) => Value::Object(
                                merge_schema(x, y)
                                    .map_err(|e| format!("property `{name}`: {e}"))?,
                            ),
                            _ => s.clone(),
                        };
                        props.insert(name.clone(), merged);
                    }
                }
                out.insert(k.clone(), Value::Object(props));
            }
            "items" | "additionalProperties" => match (va, vb) {
                (Some(Value::Object(x)), Some(Value::Object(y))) => {
                    out.insert(k.clone(), Value::Object(merge_schema(x, y)?));
                }
                (Some(v), None) | (None, Some(v)) => {
                    out.insert(k.clone(), v.clone());
                }
                _ => {}
            },
            "required" => {
                let rb = required(b);
                let both: Vec<Value> = required(a).into_iter().filter(|r| rb.contains(r)).collect();
                if !both.is_empty() {
                    out.insert(k.clone(), Value::Array(both));
                }
            }
            "enum" => {
                if let (Some(Value::Array(x)), Some(Value::Array(y))) = (va, vb) {
                    let mut all = x.clone();
                    all.extend(y.iter().filter(|v| !x.contains(v)).cloned());
                    out.insert(k.clone(), Value::Array(all));
                }
            }
            "description" => {
                if let Some(v) = va.or(vb) {
                    out.insert(k.clone(), v.clone());
                }
            }
            // Rules and the enum rules recorded for them stay together:
            // both only when equal on both sides.
            _ => {
                if va == vb
                    && let Some(v) = va
                {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Presence predicates: one meaning, two renderings.
// ---------------------------------------------------------------------------

/// A predicate over which properties of an object are present (and what
/// its tag says). Paths are JSON property names from the object down.
#[derive(Clone, Debug, PartialEq)]
pub enum Pred {
    /// Always.
    True,
    /// Never.
    False,
    /// The property at this path is present (and so are its parents).
    Present(Vec<String>),
    /// The tag property is present and holds one of `values`.
    TagIn {
        /// The tag property.
        tag: String,
        /// Variant names.
        values: Vec<String>,
        /// The longest variant name, in bytes (for the cost estimate).
        max_len: u64,
    },
    /// Not.
    Not(Box<Pred>),
    /// All of.
    All(Vec<Pred>),
    /// Any of.
    Any(Vec<Pred>),
    /// Exactly one of these top-level properties is present.
    ExactlyOne(Vec<String>),
    /// If the first holds, the second; otherwise the third.
    If(Box<Pred>, Box<Pred>, Box<Pred>),
}

/// Not, simplifying constants and double negation.
impl Not for Pred {
    type Output = Pred;

    fn not(self) -> Pred {
        match self {
            Pred::True => Pred::False,
            Pred::False => Pred::True,
            Pred::Not(inner) => *inner,
            p => Pred::Not(Box::new(p)),
        }
    }
}

fn prefixes(p: &[String]) -> impl Iterator<Item = Vec<String>> + '_ {
    (1..=p.len()).map(|k| p[..k].to_vec())
}

impl Pred {
    /// A present top-level property.
    pub fn has(name: &str) -> Pred {
        Pred::Present(vec![name.to_owned()])
    }

    /// All of, dropping `True` and flattening.
    pub fn all(ps: impl IntoIterator<Item = Pred>) -> Pred {
        let mut out = Vec::new();
        for p in ps {
            match p {
                Pred::True => {}
                Pred::False => return Pred::False,
                Pred::All(inner) => out.extend(inner),
                p => out.push(p),
            }
        }
        match out.len() {
            0 => Pred::True,
            1 => out.pop().unwrap_or(Pred::True),
            _ => Pred::All(out),
        }
    }

    /// Any of, dropping `False` and flattening.
    pub fn any(ps: impl IntoIterator<Item = Pred>) -> Pred {
        let mut out = Vec::new();
        for p in ps {
            match p {
                Pred::False => {}
                Pred::True => return Pred::True,
                Pred::Any(inner) => out.extend(inner),
                p => out.push(p),
            }
        }
        match out.len() {
            0 => Pred::False,
            1 => out.pop().unwrap_or(Pred::False),
            _ => Pred::Any(out),
        }
    }

    /// If `c` then `t` else `e`, simplifying constants.
    pub fn when(c: Pred, t: Pred, e: Pred) -> Pred {
        match (c, t, e) {
            (Pred::True, t, _) => t,
            (Pred::False, _, e) => e,
            (_, t, e) if t == e => t,
            (c, Pred::True, e) => Pred::any([c, e]),
            (c, t, Pred::True) => Pred::any([Pred::not(c), t]),
            (c, t, Pred::False) => Pred::all([c, t]),
            (c, t, e) => Pred::If(Box::new(c), Box::new(t), Box::new(e)),
        }
    }

    /// The paths known present when this predicate is `when`.
    fn facts(&self, when: bool) -> Vec<Vec<String>> {
        match (self, when) {
            (Pred::Present(p), true) => prefixes(p).collect(),
            (Pred::TagIn { tag, .. }, true) => vec![vec![tag.clone()]],
            (Pred::Not(x), w) => x.facts(!w),
            (Pred::All(xs), true) | (Pred::Any(xs), false) => {
                xs.iter().flat_map(|x| x.facts(when)).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The CEL expression, given the paths already known present (a
    /// selection needs its parents present); `None` when CEL cannot name a
    /// property.
    fn cel(&self, known: &[Vec<String>]) -> Option<Expr> {
        let path = |p: &[String]| cel::Path::new(p.iter().cloned());
        Some(match self {
            Pred::True => Expr::Bool(true),
            Pred::False => Expr::Bool(false),
            Pred::Present(p) => Expr::and(
                prefixes(p)
                    .filter(|q| !known.contains(q))
                    .map(|q| path(&q).map(Expr::Has))
                    .collect::<Option<Vec<_>>>()?,
            ),
            Pred::TagIn {
                tag,
                values,
                max_len,
            } => {
                let at = path(std::slice::from_ref(tag))?;
                let field = Expr::StrField {
                    path: at.clone(),
                    max_len: *max_len,
                };
                let eq =
                    Expr::or(values.iter().map(|v| {
                        Expr::Eq(Box::new(field.clone()), Box::new(Expr::Str(v.clone())))
                    }));
                if known.contains(&vec![tag.clone()]) {
                    eq
                } else {
                    Expr::and([Expr::Has(at), eq])
                }
            }
            Pred::Not(x) => Expr::not(x.cel(known)?),
            Pred::All(xs) | Pred::Any(xs) => {
                let all = matches!(self, Pred::All(_));
                let mut known = known.to_vec();
                let mut out = Vec::new();
                for x in xs {
                    out.push(x.cel(&known)?);
                    // Later operands run only when earlier ones held (`&&`)
                    // or failed (`||`).
                    known.extend(x.facts(all));
                }
                if all { Expr::and(out) } else { Expr::or(out) }
            }
            Pred::ExactlyOne(keys) => Expr::Eq(
                Box::new(Expr::Sum(
                    keys.iter()
                        .map(|k| {
                            Some(Expr::cond(
                                Expr::Has(path(std::slice::from_ref(k))?),
                                Expr::Int(1),
                                Expr::Int(0),
                            ))
                        })
                        .collect::<Option<Vec<_>>>()?,
                )),
                Box::new(Expr::Int(1)),
            ),
            Pred::If(c, t, e) => {
                let with = |facts: Vec<Vec<String>>| [known, &facts[..]].concat();
                Expr::cond(
                    c.cel(known)?,
                    t.cel(&with(c.facts(true)))?,
                    e.cel(&with(c.facts(false)))?,
                )
            }
        })
    }

    /// The equivalent value validation (the schema keywords allowed inside
    /// junctors).
    pub fn structural(&self) -> Value {
        fn nest(p: &[String]) -> Value {
            match p {
                [] => json!({}),
                [name] => json!({"required": [name]}),
                [name, rest @ ..] => {
                    json!({"required": [name], "properties": {name.as_str(): nest(rest)}})
                }
            }
        }
        let list = |xs: &[Pred]| Value::Array(xs.iter().map(Pred::structural).collect());
        match self {
            Pred::True => json!({}),
            Pred::False => json!({"not": {}}),
            Pred::Present(p) => nest(p),
            Pred::TagIn { tag, values, .. } => {
                json!({"required": [tag], "properties": {tag.as_str(): {"enum": values}}})
            }
            Pred::Not(x) => json!({"not": x.structural()}),
            Pred::All(xs) => json!({"allOf": list(xs)}),
            Pred::Any(xs) => json!({"anyOf": list(xs)}),
            Pred::ExactlyOne(keys) => {
                json!({"oneOf": keys.iter().map(|k| json!({"required": [k]})).collect::<Vec<_>>()})
            }
            Pred::If(c, t, e) => Pred::any([
                Pred::all([(**c).clone(), (**t).clone()]),
                Pred::all([Pred::not((**c).clone()), (**e).clone()]),
            ])
            .structural(),
        }
    }

    /// Every property path the predicate reads.
    fn paths(&self, out: &mut Vec<Vec<String>>) {
        match self {
            Pred::True | Pred::False => {}
            Pred::Present(p) => out.push(p.clone()),
            Pred::TagIn { tag, .. } => out.push(vec![tag.clone()]),
            Pred::Not(x) => x.paths(out),
            Pred::All(xs) | Pred::Any(xs) => xs.iter().for_each(|x| x.paths(out)),
            Pred::ExactlyOne(keys) => out.extend(keys.iter().map(|k| vec![k.clone()])),
            Pred::If(c, t, e) => [c, t, e].iter().for_each(|x| x.paths(out)),
        }
    }

    /// Whether the predicate holds on `v` (the reference semantics, for tests).
    #[cfg(test)]
    pub fn holds(&self, v: &Value) -> bool {
        let present = |p: &[String]| {
            let mut at = v;
            for name in p {
                match at.get(name) {
                    Some(next) => at = next,
                    None => return false,
                }
            }
            true
        };
        match self {
            Pred::True => true,
            Pred::False => false,
            Pred::Present(p) => present(p),
            Pred::TagIn { tag, values, .. } => v
                .get(tag)
                .and_then(Value::as_str)
                .is_some_and(|t| values.iter().any(|v| v == t)),
            Pred::Not(x) => !x.holds(v),
            Pred::All(xs) => xs.iter().all(|x| x.holds(v)),
            Pred::Any(xs) => xs.iter().any(|x| x.holds(v)),
            Pred::ExactlyOne(keys) => {
                keys.iter().filter(|k| v.get(k.as_str()).is_some()).count() == 1
            }
            Pred::If(c, t, e) => {
                if c.holds(v) {
                    t.holds(v)
                } else {
                    e.holds(v)
                }
            }
        }
    }
}

/// Part of a message: text, or the variant the tag names.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// A fixed text.
    Text(String),
    /// The tag's value (present wherever the message says it).
    Tag {
        /// The tag property.
        tag: String,
        /// The longest variant name, in bytes.
        max_len: u64,
    },
}

impl Piece {
    fn cel(&self) -> Option<Expr> {
        Some(match self {
            Piece::Text(t) => Expr::Str(t.clone()),
            Piece::Tag { tag, max_len } => Expr::StrField {
                path: cel::Path::new([tag.clone()])?,
                max_len: *max_len,
            },
        })
    }
}

/// The message of a failed check, as CEL.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// A fixed text.
    Text(String),
    /// If the predicate holds, the first message; otherwise the second.
    If(Pred, Box<Msg>, Box<Msg>),
    /// Every clause whose predicate holds, joined with `; ` (at least one
    /// holds wherever this message is reached).
    Clauses(Vec<(Pred, Vec<Piece>)>),
}

impl Msg {
    fn when(c: Pred, t: Msg, e: Msg) -> Msg {
        Msg::If(c, Box::new(t), Box::new(e))
    }

    fn paths(&self, out: &mut Vec<Vec<String>>) {
        match self {
            Msg::Text(_) => {}
            Msg::If(c, t, e) => {
                c.paths(out);
                t.paths(out);
                e.paths(out);
            }
            Msg::Clauses(cs) => {
                for (p, pieces) in cs {
                    p.paths(out);
                    for piece in pieces {
                        if let Piece::Tag { tag, .. } = piece {
                            out.push(vec![tag.clone()]);
                        }
                    }
                }
            }
        }
    }

    fn cel(&self, known: &[Vec<String>]) -> Option<Expr> {
        Some(match self {
            Msg::Text(s) => Expr::Str(s.clone()),
            Msg::If(c, t, e) => {
                let with = |facts: Vec<Vec<String>>| [known, &facts[..]].concat();
                Expr::cond(
                    c.cel(known)?,
                    t.cel(&with(c.facts(true)))?,
                    e.cel(&with(c.facts(false)))?,
                )
            }
            Msg::Clauses(cs) => {
                let text = |pieces: &[Piece], lead: &str| -> Option<Expr> {
                    let mut parts = vec![Expr::Str(lead.to_owned())];
                    for p in pieces {
                        match (parts.last_mut(), p.cel()?) {
                            (Some(Expr::Str(a)), Expr::Str(b)) => a.push_str(&b),
                            (_, e) => parts.push(e),
                        }
                    }
                    parts.retain(|p| *p != Expr::Str(String::new()));
                    Some(match parts.len() {
                        0 => Expr::Str(String::new()),
                        1 => parts.remove(0),
                        _ => Expr::Concat(parts),
                    })
                };
                match cs.as_slice() {
                    [] => Expr::Str(String::new()),
                    [(_, only)] => text(only, "")?,
                    _ => Expr::Substring(
                        Box::new(Expr::Concat(
                            cs.iter()
                                .map(|(p, pieces)| {
                                    Some(Expr::cond(
                                        p.cel(known)?,
                                        text(pieces, "; ")?,
                                        Expr::Str(String::new()),
                                    ))
                                })
                                .collect::<Option<Vec<_>>>()?,
                        )),
                        2,
                    ),
                }
            }
        })
    }
}

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
fn depth(e: &Expr) -> usize {
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
fn declared(s: &Value) -> bool {
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
fn visible(m: &Map<String, Value>, path: &[String]) -> bool {
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
fn cel_on(m: &Map<String, Value>, p: &Pred) -> Option<Expr> {
    let mut paths = Vec::new();
    p.paths(&mut paths);
    if !paths.iter().all(|path| visible(m, path)) {
        return None;
    }
    p.cel(&[])
}

fn rule_fits(e: &Expr) -> bool {
    e.render().len() <= MAX_RULE_LEN && depth(e) <= MAX_RULE_DEPTH
}

/// Adds a value validation to a schema's `allOf`.
fn push_junctor(m: &mut Map<String, Value>, v: Value) {
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

fn entries(m: &Map<String, Value>) -> Vec<Value> {
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
        super::push_rules(to, rules);
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
/// [`settle`]) when CEL can express it, its junctors otherwise.
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
    super::push_rules(m, [r.clone()]);
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

// ---------------------------------------------------------------------------
// The enum builders.
// ---------------------------------------------------------------------------

/// One variant as the builders see it.
#[derive(Clone, Debug, Default)]
pub struct Part {
    /// The serialized variant name.
    pub name: String,
    /// The doc comment.
    pub description: Option<String>,
    /// The variant's data schema; `None` for a unit variant.
    pub data: Option<Map<String, Value>>,
    /// Whether serde needs the data to be there (not an `Option`).
    pub data_required: bool,
}

/// The fields of an object schema.
#[derive(Clone, Debug, Default)]
struct Fields {
    /// Property names, in order.
    names: Vec<String>,
    /// Required property names.
    required: Vec<String>,
    /// Whether any other property is accepted too (a map, flattened map or
    /// preserved unknown fields): then no field is stray.
    open: bool,
}

impl Fields {
    fn of(s: &Map<String, Value>) -> Fields {
        Fields {
            names: s
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default(),
            required: required(s)
                .iter()
                .filter_map(|r| r.as_str().map(str::to_owned))
                .collect(),
            open: s.contains_key("additionalProperties")
                || s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)),
        }
    }

    fn has(&self, name: &str) -> bool {
        self.open || self.names.iter().any(|n| n == name)
    }
}

/// Every name, in order of first appearance.
fn union_of<'a>(all: impl IntoIterator<Item = &'a Vec<String>>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for names in all {
        for n in names {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
    }
    out
}

/// The fields every variant requires (the structural `required`).
fn common_required(views: &[Fields]) -> Vec<String> {
    let Some((first, rest)) = views.split_first() else {
        return Vec::new();
    };
    first
        .required
        .iter()
        .filter(|r| rest.iter().all(|v| v.required.contains(r)))
        .cloned()
        .collect()
}

/// A default on a property only some variants have would make the
/// apiserver add it to every object, a stray field for the others: such
/// defaults are dropped (serde still fills them in when it reads).
fn drop_partial_defaults(props: &mut Map<String, Value>, views: &[Fields]) {
    for (name, p) in props.iter_mut() {
        if !views.iter().all(|v| v.names.contains(name))
            && let Value::Object(p) = p
        {
            p.remove("default");
        }
    }
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        one.into()
    } else {
        format!("{one}s")
    }
}

fn text(t: impl Into<String>) -> Vec<Piece> {
    vec![Piece::Text(t.into())]
}

/// `variant V requires field f` / `variant V does not allow field f`, as
/// clauses over the object.
fn clauses(
    variant: &str,
    prefix: &[String],
    missing: &[String],
    stray: &[String],
) -> Vec<(Pred, Vec<Piece>)> {
    let at = |f: &String| [prefix, std::slice::from_ref(f)].concat();
    let shown = |f: &String| at(f).join(".");
    let mut out = Vec::new();
    for f in missing {
        out.push((
            Pred::not(Pred::Present(at(f))),
            text(format!("variant {variant} requires field {}", shown(f))),
        ));
    }
    for f in stray {
        out.push((
            Pred::Present(at(f)),
            text(format!(
                "variant {variant} does not allow field {}",
                shown(f)
            )),
        ));
    }
    out
}

/// What variant `name`'s fields must satisfy.
fn fits(prefix: &[String], missing: &[String], stray: &[String]) -> Pred {
    let at = |f: &String| Pred::Present([prefix, std::slice::from_ref(f)].concat());
    Pred::all(
        missing
            .iter()
            .map(at)
            .chain(stray.iter().map(|f| Pred::not(at(f)))),
    )
}

/// Externally tagged enums with data: `{"variant": data}`, one key.
///
/// The check: exactly one variant key (`exactly one of the variants a, b
/// must be set`; two: `variant a does not allow field b`). Unknown keys are
/// pruned by the apiserver, as serde would refuse them.
pub fn external_union(parts: Vec<Part>) -> Map<String, Value> {
    let mut props = Map::new();
    let names: Vec<String> = parts.iter().map(|p| p.name.clone()).collect();
    for p in parts {
        let mut s = p.data.unwrap_or_default();
        if let Some(d) = p.description {
            s.entry("description").or_insert_with(|| d.into());
        }
        props.insert(p.name, Value::Object(s));
    }
    let mut m = super::obj(json!({"type": "object", "properties": props}));
    if let [only] = names.as_slice() {
        m.insert("required".into(), json!([only]));
        return m;
    }
    // The first variant key present is the one serde would see first; the
    // others are reported against it.
    let mut message = Msg::Text(format!(
        "exactly one of the variants {} must be set",
        names.join(", ")
    ));
    for (i, name) in names.iter().enumerate().rev().skip(1) {
        let later = &names[i + 1..];
        message = Msg::when(
            Pred::has(name),
            Msg::Clauses(clauses(name, &[], &[], later)),
            message,
        );
    }
    attach(
        &mut m,
        Check {
            valid: Pred::ExactlyOne(names),
            junctors: None,
            message,
        },
    );
    m
}

fn hoist(
    path: &str,
    props: &mut Map<String, Value>,
    part: &Map<String, Value>,
) -> Result<(), SchemaError> {
    if let Some(Value::Object(p)) = part.get("properties") {
        for (k, v) in p {
            let merged = match (props.get(k), v) {
                (Some(Value::Object(x)), Value::Object(y)) => Value::Object(
                    merge_schema(x, y).map_err(|m| err(path, format!("property `{k}`: {m}")))?,
                ),
                _ => v.clone(),
            };
            props.insert(k.clone(), merged);
        }
    }
    Ok(())
}

/// The tag of an internally or adjacently tagged enum, for the checks.
struct Tag<'a> {
    name: &'a str,
    max_len: u64,
}

impl Tag<'_> {
    /// The tag holds one of these variant names.
    fn is(&self, values: &[&str]) -> Pred {
        if values.is_empty() {
            return Pred::False;
        }
        Pred::TagIn {
            tag: self.name.to_owned(),
            values: values.iter().map(|v| (*v).to_owned()).collect(),
            max_len: self.max_len,
        }
    }

    /// `variant <tag> <what>`.
    fn says(&self, what: String) -> Vec<Piece> {
        vec![
            Piece::Text("variant ".into()),
            Piece::Tag {
                tag: self.name.to_owned(),
                max_len: self.max_len,
            },
            Piece::Text(what),
        ]
    }
}

/// What one variant of a tagged enum needs: the fields (below `prefix`)
/// it must have and those it must not.
struct Needs<'a> {
    name: &'a str,
    /// Whether the content must be there (adjacent) or must not (unit).
    content: Option<bool>,
    missing: Vec<String>,
    stray: Vec<String>,
}

/// The check of a tagged enum, said three ways: as one CEL rule walking
/// the variants (cheapest to run: one branch), as junctors per field (the
/// shortest to write), and as a message per field naming the tag's value.
/// `content` is the adjacent content property (the fields live below it).
fn tagged_check(tag: &Tag<'_>, content: Option<&str>, needs: &[Needs<'_>]) -> Check {
    let prefix: Vec<String> = content.map(|c| vec![c.to_owned()]).unwrap_or_default();
    let at = |f: &str| [&prefix[..], &[f.to_owned()]].concat();
    let shown = |f: &str| at(f).join(".");
    let inside = |p: Pred| match content {
        Some(c) => Pred::any([Pred::not(Pred::has(c)), p]),
        None => p,
    };
    let content_rule = |n: &Needs<'_>| match (content, n.content) {
        (Some(c), Some(true)) => Pred::has(c),
        (Some(c), Some(false)) => Pred::not(Pred::has(c)),
        _ => Pred::True,
    };
    // The rule: `tag == A ? needsA : tag == B ? needsB : true`.
    let mut chain = Pred::True;
    for n in needs.iter().rev() {
        let fields = inside(fits(&prefix, &n.missing, &n.stray));
        let this = Pred::all([content_rule(n), fields]);
        chain = Pred::when(tag.is(&[n.name]), this, chain);
    }
    // Per field: who may have it, who must.
    let names_with = |pick: &dyn Fn(&Needs<'_>) -> bool| -> Vec<&str> {
        needs.iter().filter(|n| pick(n)).map(|n| n.name).collect()
    };
    let mut fields: Vec<&str> = Vec::new();
    for n in needs {
        for f in n.missing.iter().chain(&n.stray) {
            if !fields.contains(&f.as_str()) {
                fields.push(f);
            }
        }
    }
    let mut junctors = Vec::new();
    let mut said = Vec::new();
    if let Some(c) = content {
        let wanted = names_with(&|n| n.content == Some(true));
        let unwanted = names_with(&|n| n.content == Some(false));
        junctors.push(Pred::any([Pred::not(tag.is(&wanted)), Pred::has(c)]));
        junctors.push(Pred::any([
            Pred::not(tag.is(&unwanted)),
            Pred::not(Pred::has(c)),
        ]));
        said.push((
            Pred::all([tag.is(&wanted), Pred::not(Pred::has(c))]),
            tag.says(format!(" requires field {c}")),
        ));
        said.push((
            Pred::all([tag.is(&unwanted), Pred::has(c)]),
            tag.says(format!(" does not allow field {c}")),
        ));
    }
    for f in &fields {
        let requiring = names_with(&|n| n.missing.iter().any(|m| m == f));
        if requiring.is_empty() {
            continue;
        }
        junctors.push(inside(Pred::any([
            Pred::not(tag.is(&requiring)),
            Pred::Present(at(f)),
        ])));
        said.push((
            Pred::all([
                inside_present(content),
                tag.is(&requiring),
                Pred::not(Pred::Present(at(f))),
            ]),
            tag.says(format!(" requires field {}", shown(f))),
        ));
    }
    for f in &fields {
        let refusing = names_with(&|n| n.stray.iter().any(|s| s == f));
        if refusing.is_empty() {
            continue;
        }
        junctors.push(Pred::any([
            Pred::not(tag.is(&refusing)),
            Pred::not(Pred::Present(at(f))),
        ]));
        // A variant without content already says so.
        let refusing: Vec<&str> = refusing
            .into_iter()
            .filter(|r| {
                needs
                    .iter()
                    .any(|n| n.name == *r && n.content != Some(false))
            })
            .collect();
        said.push((
            Pred::all([tag.is(&refusing), Pred::Present(at(f))]),
            tag.says(format!(" does not allow field {}", shown(f))),
        ));
    }
    said.retain(|(p, _)| *p != Pred::False);
    let absent = Pred::not(Pred::has(tag.name));
    Check {
        valid: Pred::any([absent.clone(), chain]),
        junctors: Some(Pred::any([absent, Pred::all(junctors)])),
        message: Msg::Clauses(said),
    }
}

/// The content is there (always, for an internally tagged enum).
fn inside_present(content: Option<&str>) -> Pred {
    content.map_or(Pred::True, Pred::has)
}

/// Internally (`content == None`) or adjacently tagged enums.
///
/// Internally tagged, `{"tag": "V", ...fields}`: the tag is required (a
/// structural `required`, as is every field all variants require); when it
/// names V, V's other required fields must be present and no field that
/// only other variants have may be. A variant's own rules apply only when
/// its tag is set.
///
/// Adjacently tagged, `{"tag": "V", "content": data}`: a unit variant has
/// no content; a variant with data needs it (unless its data is an
/// `Option`), and when the content is an object, the same rule as above
/// holds for its fields (`variant V requires field content.f`).
pub fn tagged_union(
    path: &str,
    tag: &str,
    content: Option<&str>,
    parts: Vec<Part>,
) -> Result<Map<String, Value>, SchemaError> {
    let names: Vec<Value> = parts.iter().map(|p| p.name.clone().into()).collect();
    let the_tag = Tag {
        name: tag,
        max_len: parts.iter().map(|p| p.name.len() as u64).max().unwrap_or(0),
    };
    let mut props = Map::new();
    let mut m = Map::new();
    let mut required_props = vec![Value::from(tag)];
    let mut own_checks = Vec::new();
    let mut needs = Vec::new();
    // The fields of each variant (of its content, when adjacent and an
    // object), and whether there is anything to check.
    let mut checked = true;
    match content {
        None => {
            let views: Vec<Fields> = parts
                .iter()
                .map(|p| Fields::of(p.data.as_ref().unwrap_or(&Map::new())))
                .collect();
            for (p, view) in parts.iter().zip(&views) {
                if view.names.iter().any(|n| n == tag) {
                    return Err(err(
                        path,
                        format!(
                            "variant `{}` has a field named like the tag `{tag}`",
                            p.name
                        ),
                    ));
                }
                let mut data = p.data.clone().unwrap_or_default();
                hoist(path, &mut props, &data)?;
                let mut own = Map::new();
                take_checks(&mut data, &mut own);
                if !own.is_empty() {
                    own_checks.push((p.name.clone(), own));
                }
            }
            drop_partial_defaults(&mut props, &views);
            let common = common_required(&views);
            let all_fields = union_of(views.iter().map(|v| &v.names));
            required_props.extend(common.iter().map(|c| Value::from(c.as_str())));
            for (p, view) in parts.iter().zip(&views) {
                needs.push(Needs {
                    name: &p.name,
                    content: None,
                    missing: view
                        .required
                        .iter()
                        .filter(|r| !common.contains(r))
                        .cloned()
                        .collect(),
                    stray: all_fields
                        .iter()
                        .filter(|f| !view.has(f))
                        .cloned()
                        .collect(),
                });
            }
        }
        Some(c) => {
            let mut content_schema: Option<Map<String, Value>> = None;
            for p in &parts {
                let Some(data) = &p.data else { continue };
                content_schema = Some(match &content_schema {
                    None => data.clone(),
                    Some(prev) => merge_schema(prev, data)
                        .map_err(|m| err(path, format!("content of `{}`: {m}", p.name)))?,
                });
            }
            let object = |s: &Map<String, Value>| ty(s) == Some("object");
            let views: Vec<Option<Fields>> = parts
                .iter()
                .map(|p| p.data.as_ref().filter(|d| object(d)).map(Fields::of))
                .collect();
            let object_views: Vec<Fields> = views.iter().flatten().cloned().collect();
            let all_fields = union_of(object_views.iter().map(|v| &v.names));
            // Fields every variant with an object requires stay required
            // in the content schema (merging kept just those).
            let common: Vec<String> = content_schema
                .as_ref()
                .map(|cs| {
                    required(cs)
                        .iter()
                        .filter_map(|r| r.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(cp)) = content_schema
                .as_mut()
                .and_then(|cs| cs.get_mut("properties"))
            {
                drop_partial_defaults(cp, &object_views);
            }
            let always = parts.iter().all(|p| p.data.is_some() && p.data_required);
            if always {
                required_props.push(c.into());
            }
            for (p, view) in parts.iter().zip(&views) {
                let content_rule = match &p.data {
                    None => Some(false),
                    Some(_) if p.data_required && !always => Some(true),
                    Some(_) => None,
                };
                let (missing, stray) = match view {
                    Some(v) => (
                        v.required
                            .iter()
                            .filter(|r| !common.contains(r))
                            .cloned()
                            .collect(),
                        all_fields.iter().filter(|f| !v.has(f)).cloned().collect(),
                    ),
                    None => (Vec::new(), Vec::new()),
                };
                needs.push(Needs {
                    name: &p.name,
                    content: content_rule,
                    missing,
                    stray,
                });
            }
            // Without any variant with data there is no content property:
            // the apiserver prunes one, as serde would refuse it.
            checked = content_schema.is_some();
            if let Some(cs) = content_schema {
                props.insert(c.to_owned(), Value::Object(cs));
            }
        }
    }
    props.insert(tag.to_owned(), json!({"type": "string", "enum": names}));
    m.insert("type".into(), "object".into());
    m.insert("properties".into(), Value::Object(props));
    m.insert("required".into(), Value::Array(required_props));
    if checked {
        attach(&mut m, tagged_check(&the_tag, content, &needs));
    }
    // A variant's own rules hold only when its tag is set.
    let on = m.clone();
    for (name, mut own) in own_checks {
        let skip = Pred::any([Pred::not(Pred::has(tag)), Pred::not(the_tag.is(&[&name]))]);
        guard(&mut own, &skip, &on);
        take_checks(&mut own, &mut m);
    }
    Ok(m)
}

/// The schema without what does not change what it accepts, for comparing
/// two variants' schemas of one field.
fn shape_of(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "description" | "title" | "example"))
                .map(|(k, v)| (k.clone(), shape_of(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(shape_of).collect()),
        v => v.clone(),
    }
}

/// `#[serde(untagged)]` enums: the union of the variants' schemas.
///
/// serde tries the variants in declaration order and takes the first whose
/// fields read: all its required fields present (and of its types), other
/// fields ignored. Reading an object as variant V drops the fields V does
/// not have, so the rule is, in order: the first variant whose required
/// fields are all present is the one; every field present must be one of
/// its fields, else `variant V does not allow field f`. No variant with its
/// required fields present: refused, naming the missing fields of the
/// variant whose fields the object holds (`variant V requires field f`),
/// or every variant's.
///
/// Variants sharing a field name with different schemas are the exception:
/// serde may skip such a variant because a value has the other variant's
/// type, which presence cannot tell. Such a variant is only taken when no
/// field is stray for it, else the next is tried. An object serde reads
/// losslessly is never refused, at the price of accepting some serde reads
/// as the earlier variant (dropping a field) or refuses for a type (with
/// `Named { key: String }, Numbered { key: i64, count: i64 }`:
/// `{"key": "s", "count": 7}` and `{"key": 5}`).
///
/// The variants' own rules are not kept (which variant applies is not
/// known to a rule).
pub fn untagged_union(path: &str, parts: Vec<Part>) -> Result<Map<String, Value>, SchemaError> {
    let datas: Vec<Map<String, Value>> = parts
        .iter()
        .map(|p| p.data.clone().unwrap_or_default())
        .collect();
    let mut iter = datas.iter();
    let Some(first) = iter.next() else {
        return Err(err(path, "an untagged enum needs a variant"));
    };
    let mut merged = first.clone();
    for p in iter {
        merged = merge_schema(&merged, p).map_err(|m| err(path, m))?;
    }
    merged.remove("x-kubernetes-validations");
    merged.remove(UNION_RULES_KEY);
    let objects = ty(&merged) == Some("object") && datas.iter().all(|d| ty(d) == Some("object"));
    if !objects || parts.len() < 2 {
        return Ok(merged);
    }
    let views: Vec<Fields> = datas.iter().map(Fields::of).collect();
    if let Some(Value::Object(props)) = merged.get_mut("properties") {
        drop_partial_defaults(props, &views);
    }
    let common = common_required(&views);
    let all_fields = union_of(views.iter().map(|v| &v.names));
    // Field name → the distinct schemas variants give it.
    let mut shapes: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    for d in &datas {
        if let Some(Value::Object(p)) = d.get("properties") {
            for (k, s) in p {
                let shape = shape_of(s);
                let seen = shapes.entry(k).or_default();
                if !seen.contains(&shape) {
                    seen.push(shape);
                }
            }
        }
    }
    struct Variant {
        name: String,
        matches: Pred,
        missing: Vec<String>,
        stray: Vec<String>,
        ambiguous: bool,
        own: Vec<String>,
    }
    let variants: Vec<Variant> = parts
        .iter()
        .zip(&views)
        .map(|(p, v)| {
            let missing: Vec<String> = v
                .required
                .iter()
                .filter(|r| !common.contains(r))
                .cloned()
                .collect();
            Variant {
                name: p.name.clone(),
                matches: Pred::all(missing.iter().map(|r| Pred::has(r))),
                stray: all_fields.iter().filter(|f| !v.has(f)).cloned().collect(),
                ambiguous: v
                    .names
                    .iter()
                    .any(|n| shapes.get(n.as_str()).is_some_and(|s| s.len() > 1)),
                own: v
                    .names
                    .iter()
                    .filter(|n| !common.contains(n))
                    .cloned()
                    .collect(),
                missing,
            }
        })
        .collect();
    // When nothing matches: the variant whose fields hold every field
    // present (and at least one of its own), else every variant's needs.
    let needs: Vec<String> = variants
        .iter()
        .filter(|v| !v.missing.is_empty())
        .map(|v| {
            format!(
                "variant {} {} {}",
                v.name,
                plural(v.missing.len(), "requires field"),
                v.missing.join(", ")
            )
        })
        .collect();
    let mut message = Msg::Text(format!("no variant matches: {}", needs.join("; ")));
    for v in variants.iter().rev() {
        // Reachable only when some of its fields can be there while a
        // required one is not.
        if v.missing.is_empty() || v.own.len() < 2 && v.own == v.missing {
            continue;
        }
        // A lone required field is absent here (else the variant matched).
        let telling = v
            .own
            .iter()
            .filter(|f| v.missing.len() > 1 || !v.missing.contains(f));
        let guess = Pred::all([
            Pred::any(telling.map(|f| Pred::has(f))),
            fits(&[], &[], &v.stray),
        ]);
        message = Msg::when(
            guess,
            Msg::Clauses(clauses(&v.name, &[], &v.missing, &[])),
            message,
        );
    }
    let mut valid = Pred::False;
    for v in variants.iter().rev() {
        let clean = fits(&[], &[], &v.stray);
        if v.ambiguous {
            valid = Pred::any([Pred::all([v.matches.clone(), clean]), valid]);
        } else {
            valid = Pred::when(v.matches.clone(), clean, valid);
            if !v.stray.is_empty() {
                message = Msg::when(
                    v.matches.clone(),
                    Msg::Clauses(clauses(&v.name, &[], &[], &v.stray)),
                    message,
                );
            }
        }
    }
    attach(
        &mut merged,
        Check {
            valid,
            junctors: None,
            message,
        },
    );
    Ok(merged)
}

// ---------------------------------------------------------------------------
// Settling the enum rules of a finished schema.
// ---------------------------------------------------------------------------

/// One recorded enum rule: where, which, and its cost where it sits.
struct Found {
    at: String,
    index: usize,
    cost: u64,
}

fn child_cardinality(card: Option<u64>, limit: Option<&Value>) -> Option<u64> {
    Some(card?.saturating_mul(limit?.as_u64()?))
}

/// Walks every schema node holding enum rules, with how many times a rule
/// there can run (`None`: inside a list or map without a limit).
fn walk(v: &Value, at: &str, card: Option<u64>, out: &mut Vec<Found>) {
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

fn apply(v: &mut Value, at: &str, junctors: &[(String, usize)]) {
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
    found.sort_by_key(|f| std::cmp::Reverse(f.cost));
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
