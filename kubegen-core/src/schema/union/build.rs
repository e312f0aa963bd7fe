//! The enum builders: one structural schema per representation
//! (external, internal, adjacent, untagged) with its exclusivity check.

use std::collections::BTreeMap;
use std::ops::Not;

use serde_json::{Map, Value, json};

use super::UNION_RULES_KEY;
use super::check::{Check, attach, guard, take_checks};
use super::pred::{Msg, Piece, Pred, text};

use crate::schema::merge::{merge_schema, required, ty};
use crate::schema::{SchemaError, err};

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
pub(super) struct Fields {
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
pub(super) fn union_of<'a>(all: impl IntoIterator<Item = &'a Vec<String>>) -> Vec<String> {
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
pub(super) fn common_required(views: &[Fields]) -> Vec<String> {
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
pub(super) fn drop_partial_defaults(props: &mut Map<String, Value>, views: &[Fields]) {
    for (name, p) in props.iter_mut() {
        if !views.iter().all(|v| v.names.contains(name))
            && let Value::Object(p) = p
        {
            p.remove("default");
        }
    }
}

pub(super) fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        one.into()
    } else {
        format!("{one}s")
    }
}

/// `variant V requires field f` / `variant V does not allow field f`, as
/// clauses over the object.
pub(super) fn clauses(
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
pub(super) fn fits(prefix: &[String], missing: &[String], stray: &[String]) -> Pred {
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
    let mut m = crate::schema::obj(json!({"type": "object", "properties": props}));
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

pub(super) fn hoist(
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
pub(super) struct Tag<'a> {
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
pub(super) struct Needs<'a> {
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
pub(super) fn tagged_check(tag: &Tag<'_>, content: Option<&str>, needs: &[Needs<'_>]) -> Check {
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
pub(super) fn inside_present(content: Option<&str>) -> Pred {
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
pub(super) fn shape_of(v: &Value) -> Value {
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
