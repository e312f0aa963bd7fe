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

/// Where a tagged enum's variant fields live: at the top of the object
/// (internally tagged) or below the adjacent content property.
struct Below<'a> {
    content: Option<&'a str>,
    prefix: Vec<String>,
}

impl<'a> Below<'a> {
    fn new(content: Option<&'a str>) -> Below<'a> {
        Below {
            content,
            prefix: content.map(|c| vec![c.to_owned()]).unwrap_or_default(),
        }
    }

    /// The path of field `f`.
    fn at(&self, f: &str) -> Vec<String> {
        [&self.prefix[..], &[f.to_owned()]].concat()
    }

    /// Field `f` as messages name it (`content.f`).
    fn shown(&self, f: &str) -> String {
        self.at(f).join(".")
    }

    /// `p`, holding trivially when the adjacent content is absent.
    fn inside(&self, p: Pred) -> Pred {
        match self.content {
            Some(c) => Pred::any([Pred::not(Pred::has(c)), p]),
            None => p,
        }
    }
}

/// The names of the variants `pick` selects, in order.
fn variants_where<'a>(needs: &[Needs<'a>], pick: impl Fn(&Needs<'a>) -> bool) -> Vec<&'a str> {
    needs.iter().filter(|n| pick(n)).map(|n| n.name).collect()
}

/// The junctors of a tagged check and their messages, gathered rule by rule.
#[derive(Default)]
struct Said {
    junctors: Vec<Pred>,
    clauses: Vec<(Pred, Vec<Piece>)>,
}

/// The check of a tagged enum, said three ways: as one CEL rule walking
/// the variants (cheapest to run: one branch), as junctors per field (the
/// shortest to write), and as a message per field naming the tag's value.
/// `content` is the adjacent content property (the fields live below it).
pub(super) fn tagged_check(tag: &Tag<'_>, content: Option<&str>, needs: &[Needs<'_>]) -> Check {
    let below = Below::new(content);
    let chain = tagged_rule(tag, &below, needs);
    let mut said = Said::default();
    if let Some(c) = content {
        content_presence_rules(tag, c, needs, &mut said);
    }
    let fields = checked_fields(needs);
    required_field_rules(tag, &below, needs, &fields, &mut said);
    refused_field_rules(tag, &below, needs, &fields, &mut said);
    said.clauses.retain(|(p, _)| *p != Pred::False);
    let absent = Pred::not(Pred::has(tag.name));
    Check {
        valid: Pred::any([absent.clone(), chain]),
        junctors: Some(Pred::any([absent, Pred::all(said.junctors)])),
        message: Msg::Clauses(said.clauses),
    }
}

/// The one CEL rule of a tagged enum: `tag == A ? needsA : tag == B ?
/// needsB : true`, each branch the variant's content presence and fields.
fn tagged_rule(tag: &Tag<'_>, below: &Below<'_>, needs: &[Needs<'_>]) -> Pred {
    let content_rule = |n: &Needs<'_>| match (below.content, n.content) {
        (Some(c), Some(true)) => Pred::has(c),
        (Some(c), Some(false)) => Pred::not(Pred::has(c)),
        _ => Pred::True,
    };
    let mut chain = Pred::True;
    for n in needs.iter().rev() {
        let fields = below.inside(fits(&below.prefix, &n.missing, &n.stray));
        let this = Pred::all([content_rule(n), fields]);
        chain = Pred::when(tag.is(&[n.name]), this, chain);
    }
    chain
}

/// Every field some variant requires or refuses, in order of first mention.
fn checked_fields<'a>(needs: &'a [Needs<'_>]) -> Vec<&'a str> {
    let mut fields: Vec<&str> = Vec::new();
    for n in needs {
        for f in n.missing.iter().chain(&n.stray) {
            if !fields.contains(&f.as_str()) {
                fields.push(f);
            }
        }
    }
    fields
}

/// Adjacently tagged: the variants that need the content property have it,
/// those without data do not.
fn content_presence_rules(tag: &Tag<'_>, c: &str, needs: &[Needs<'_>], said: &mut Said) {
    let wanted = variants_where(needs, |n| n.content == Some(true));
    let unwanted = variants_where(needs, |n| n.content == Some(false));
    said.junctors
        .push(Pred::any([Pred::not(tag.is(&wanted)), Pred::has(c)]));
    said.junctors.push(Pred::any([
        Pred::not(tag.is(&unwanted)),
        Pred::not(Pred::has(c)),
    ]));
    said.clauses.push((
        Pred::all([tag.is(&wanted), Pred::not(Pred::has(c))]),
        tag.says(format!(" requires field {c}")),
    ));
    said.clauses.push((
        Pred::all([tag.is(&unwanted), Pred::has(c)]),
        tag.says(format!(" does not allow field {c}")),
    ));
}

/// Per field: the variants that require it have it (`variant V requires
/// field f`).
fn required_field_rules(
    tag: &Tag<'_>,
    below: &Below<'_>,
    needs: &[Needs<'_>],
    fields: &[&str],
    said: &mut Said,
) {
    for f in fields {
        let requiring = variants_where(needs, |n| n.missing.iter().any(|m| m == f));
        if requiring.is_empty() {
            continue;
        }
        said.junctors.push(below.inside(Pred::any([
            Pred::not(tag.is(&requiring)),
            Pred::Present(below.at(f)),
        ])));
        said.clauses.push((
            Pred::all([
                inside_present(below.content),
                tag.is(&requiring),
                Pred::not(Pred::Present(below.at(f))),
            ]),
            tag.says(format!(" requires field {}", below.shown(f))),
        ));
    }
}

/// Per field: the variants that do not have it do not get it (`variant V
/// does not allow field f`); a variant without content already says so.
fn refused_field_rules(
    tag: &Tag<'_>,
    below: &Below<'_>,
    needs: &[Needs<'_>],
    fields: &[&str],
    said: &mut Said,
) {
    for f in fields {
        let refusing = variants_where(needs, |n| n.stray.iter().any(|s| s == f));
        if refusing.is_empty() {
            continue;
        }
        said.junctors.push(Pred::any([
            Pred::not(tag.is(&refusing)),
            Pred::not(Pred::Present(below.at(f))),
        ]));
        let refusing: Vec<&str> = refusing
            .into_iter()
            .filter(|r| {
                needs
                    .iter()
                    .any(|n| n.name == *r && n.content != Some(false))
            })
            .collect();
        said.clauses.push((
            Pred::all([tag.is(&refusing), Pred::Present(below.at(f))]),
            tag.says(format!(" does not allow field {}", below.shown(f))),
        ));
    }
}

/// The content is there (always, for an internally tagged enum).
pub(super) fn inside_present(content: Option<&str>) -> Pred {
    content.map_or(Pred::True, Pred::has)
}

/// The fields variant `view` requires beyond those every variant does, and
/// the fields of other variants it does not have.
fn missing_and_stray(
    view: &Fields,
    common: &[String],
    all_fields: &[String],
) -> (Vec<String>, Vec<String>) {
    (
        view.required
            .iter()
            .filter(|r| !common.contains(r))
            .cloned()
            .collect(),
        all_fields
            .iter()
            .filter(|f| !view.has(f))
            .cloned()
            .collect(),
    )
}

/// What a tagged enum's layout contributes to its schema: the properties
/// besides the tag, the required ones besides the tag, the variants' own
/// rules, what each variant needs, and whether there is anything to check.
struct TaggedLayout<'a> {
    props: Map<String, Value>,
    required: Vec<Value>,
    own_checks: Vec<(String, Map<String, Value>)>,
    needs: Vec<Needs<'a>>,
    checked: bool,
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
    let TaggedLayout {
        mut props,
        required: more_required,
        own_checks,
        needs,
        checked,
    } = match content {
        None => internal_layout(path, tag, &parts)?,
        Some(c) => adjacent_layout(path, c, &parts)?,
    };
    let mut required_props = vec![Value::from(tag)];
    required_props.extend(more_required);
    let mut m = Map::new();
    props.insert(tag.to_owned(), json!({"type": "string", "enum": names}));
    m.insert("type".into(), "object".into());
    m.insert("properties".into(), Value::Object(props));
    m.insert("required".into(), Value::Array(required_props));
    if checked {
        attach(&mut m, tagged_check(&the_tag, content, &needs));
    }
    guard_own_checks(&mut m, &the_tag, own_checks);
    Ok(m)
}

/// A variant's own rules hold only when its tag is set.
fn guard_own_checks(
    m: &mut Map<String, Value>,
    tag: &Tag<'_>,
    own_checks: Vec<(String, Map<String, Value>)>,
) {
    let on = m.clone();
    for (name, mut own) in own_checks {
        let skip = Pred::any([Pred::not(Pred::has(tag.name)), Pred::not(tag.is(&[&name]))]);
        guard(&mut own, &skip, &on);
        take_checks(&mut own, m);
    }
}

/// Internally tagged: every variant's fields hoisted beside the tag (none
/// named like it), the fields all variants require required, and what each
/// variant needs beyond them.
fn internal_layout<'a>(
    path: &str,
    tag: &str,
    parts: &'a [Part],
) -> Result<TaggedLayout<'a>, SchemaError> {
    let views: Vec<Fields> = parts
        .iter()
        .map(|p| Fields::of(p.data.as_ref().unwrap_or(&Map::new())))
        .collect();
    let mut props = Map::new();
    let mut own_checks = Vec::new();
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
    let required = common.iter().map(|c| Value::from(c.as_str())).collect();
    let needs = parts
        .iter()
        .zip(&views)
        .map(|(p, view)| {
            let (missing, stray) = missing_and_stray(view, &common, &all_fields);
            Needs {
                name: &p.name,
                content: None,
                missing,
                stray,
            }
        })
        .collect();
    Ok(TaggedLayout {
        props,
        required,
        own_checks,
        needs,
        checked: true,
    })
}

/// The schema of an adjacent content property: the variants' data schemas
/// merged; `None` without any variant with data.
fn merged_content(path: &str, parts: &[Part]) -> Result<Option<Map<String, Value>>, SchemaError> {
    let mut content_schema: Option<Map<String, Value>> = None;
    for p in parts {
        let Some(data) = &p.data else { continue };
        content_schema = Some(match &content_schema {
            None => data.clone(),
            Some(prev) => merge_schema(prev, data)
                .map_err(|m| err(path, format!("content of `{}`: {m}", p.name)))?,
        });
    }
    Ok(content_schema)
}

/// Whether variant `p`'s content must be there (`Some(true)`), must not
/// (`Some(false)`, a unit variant), or may be either; `always` when every
/// variant needs it (then it is a structural `required`).
fn content_rule(p: &Part, always: bool) -> Option<bool> {
    match &p.data {
        None => Some(false),
        Some(_) if p.data_required && !always => Some(true),
        Some(_) => None,
    }
}

/// Adjacently tagged: the merged content property (required when every
/// variant needs it), and what each variant needs of it and, when it is
/// an object, of its fields.
fn adjacent_layout<'a>(
    path: &str,
    c: &str,
    parts: &'a [Part],
) -> Result<TaggedLayout<'a>, SchemaError> {
    let mut content_schema = merged_content(path, parts)?;
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
    let required = if always { vec![c.into()] } else { Vec::new() };
    let needs = parts
        .iter()
        .zip(&views)
        .map(|(p, view)| {
            let (missing, stray) = match view {
                Some(v) => missing_and_stray(v, &common, &all_fields),
                None => (Vec::new(), Vec::new()),
            };
            Needs {
                name: &p.name,
                content: content_rule(p, always),
                missing,
                stray,
            }
        })
        .collect();
    // Without any variant with data there is no content property:
    // the apiserver prunes one, as serde would refuse it.
    let checked = content_schema.is_some();
    let mut props = Map::new();
    if let Some(cs) = content_schema {
        props.insert(c.to_owned(), Value::Object(cs));
    }
    Ok(TaggedLayout {
        props,
        required,
        own_checks: Vec::new(),
        needs,
        checked,
    })
}

/// The schema without what does not change what it accepts, for comparing
/// two variants' schemas of one field.
pub(super) fn shape_of(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(crate::sorting::collect_map(
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "description" | "title" | "example"))
                .map(|(k, v)| (k.clone(), shape_of(v))),
        )),
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
    let mut merged = merged_variants(path, &datas)?;
    let objects = ty(&merged) == Some("object") && datas.iter().all(|d| ty(d) == Some("object"));
    if !objects || parts.len() < 2 {
        return Ok(merged);
    }
    let views: Vec<Fields> = datas.iter().map(Fields::of).collect();
    if let Some(Value::Object(props)) = merged.get_mut("properties") {
        drop_partial_defaults(props, &views);
    }
    let variants = untagged_variants(&parts, &views, &field_shapes(&datas));
    let message = unmatched_message(&variants);
    let (valid, message) = first_match_rule(&variants, message);
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

/// The variants' schemas merged into one, without their own rules.
fn merged_variants(
    path: &str,
    datas: &[Map<String, Value>],
) -> Result<Map<String, Value>, SchemaError> {
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
    Ok(merged)
}

/// Field name → the distinct schemas variants give it.
fn field_shapes(datas: &[Map<String, Value>]) -> BTreeMap<&str, Vec<Value>> {
    let mut shapes: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    for d in datas {
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
    shapes
}

/// One variant of an untagged enum as its check sees it.
struct Untagged {
    name: String,
    /// Its required fields (beyond the common ones) are all present.
    matches: Pred,
    missing: Vec<String>,
    stray: Vec<String>,
    /// It shares a field name with another variant under another schema.
    ambiguous: bool,
    /// Its fields beyond those every variant requires.
    own: Vec<String>,
}

/// Each variant's needs, and whether presence alone can tell it.
fn untagged_variants(
    parts: &[Part],
    views: &[Fields],
    shapes: &BTreeMap<&str, Vec<Value>>,
) -> Vec<Untagged> {
    let common = common_required(views);
    let all_fields = union_of(views.iter().map(|v| &v.names));
    parts
        .iter()
        .zip(views)
        .map(|(p, v)| {
            let (missing, stray) = missing_and_stray(v, &common, &all_fields);
            Untagged {
                name: p.name.clone(),
                matches: Pred::all(missing.iter().map(|r| Pred::has(r))),
                stray,
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
        .collect()
}

/// The message when no variant matches: the missing fields of the variant
/// whose fields hold every field present (and at least one of its own),
/// else every variant's needs.
fn unmatched_message(variants: &[Untagged]) -> Msg {
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
    message
}

/// The rule serde's order gives: the first variant whose required fields
/// are present must have no stray field (an ambiguous one is skipped
/// instead), with `variant V does not allow field f` in front of
/// `otherwise`.
fn first_match_rule(variants: &[Untagged], otherwise: Msg) -> (Pred, Msg) {
    let mut message = otherwise;
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
    (valid, message)
}
