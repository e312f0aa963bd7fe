//! Presence predicates over an enum's properties — one meaning, two
//! renderings (a CEL expression, structural junctors) — and the pieces of
//! the messages that name the variant and the field at fault.

use std::ops::Not;

use serde_json::{Value, json};

use crate::schema::cel::{self, Expr};

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

pub(super) fn prefixes(p: &[String]) -> impl Iterator<Item = Vec<String>> + '_ {
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
    pub(super) fn facts(&self, when: bool) -> Vec<Vec<String>> {
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
    pub(super) fn cel(&self, known: &[Vec<String>]) -> Option<Expr> {
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
    pub(super) fn paths(&self, out: &mut Vec<Vec<String>>) {
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
    pub(super) fn cel(&self) -> Option<Expr> {
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
    pub(super) fn when(c: Pred, t: Msg, e: Msg) -> Msg {
        Msg::If(c, Box::new(t), Box::new(e))
    }

    pub(super) fn paths(&self, out: &mut Vec<Vec<String>>) {
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

    pub(super) fn cel(&self, known: &[Vec<String>]) -> Option<Expr> {
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

/// A message made of plain text.
pub(super) fn text(t: impl Into<String>) -> Vec<Piece> {
    vec![Piece::Text(t.into())]
}
