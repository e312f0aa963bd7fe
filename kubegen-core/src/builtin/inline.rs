//! Built-in type definitions → the structural schema a CRD holds, as
//! controller-gen flattens them ([`inline`]). The table holds each type's
//! schema as controller-gen's parser gives it before flattening: a field of
//! another type is a `$ref` beside the field's own keys (its description,
//! `+default`, list markers), a Go struct embedded inline is an `allOf`
//! entry. Flattening follows controller-gen (`pkg/crd/flatten.go`):
//!
//! - a `$ref` becomes the referenced type's flattened schema merged with the
//!   field's own keys ([`merge_into`]); the field's description, title,
//!   example and external docs win over the type's;
//! - `allOf` entries are merged into the schema holding them: properties
//!   merged, required lists joined (sorted, without duplicates), the
//!   entry's list/map types and `x-kubernetes-preserve-unknown-fields`
//!   winning, CEL rules joined, any other conflicting key kept on both sides
//!   as an `allOf` of the two values (both must hold).
//!
//! Where kubegen differs from controller-gen, on purpose, each case is named
//! in [`MAPPED`] and [`RECURSION`]. A type controller-gen refuses is an
//! error with controller-gen's reason, as is anything the apiserver would
//! not accept in a CRD (the result passes [`structural::check`]): a
//! list-map key that is neither required nor defaulted (upstream's
//! `ServiceAccount.secrets`, the conditions of flowcontrol statuses,
//! `ResourceClaimStatus.devices`, ...).

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::schema::{SchemaError, structural};
use crate::vocabulary::keywords;

/// Where the table points at another definition.
const REF_PREFIX: &str = "#/components/schemas/";

/// What a recursive reference becomes at the point it recurs (JSONSchemaProps
/// holds JSONSchemaProps): a structural schema has no references, so the
/// nested copy keeps whatever it is given. (controller-gen leaves an empty
/// schema there, which the apiserver refuses as not structural.)
pub const RECURSION: &str = r#"{"type": "object", "x-kubernetes-preserve-unknown-fields": true}"#;

/// Definitions kubegen embeds differently from controller-gen, each keeping
/// the table's description:
///
/// - `FieldsV1` (controller-gen: `{type: object}`, which the apiserver
///   prunes to `{}`; it holds a managed-fields trie) → an object keeping
///   unknown fields;
/// - apiextensions `JSONSchemaPropsOr{Array,Bool,StringArray}`, which
///   controller-gen refuses (fields without JSON tags; the types marshal
///   themselves as any JSON value) → any value kept as is.
pub const MAPPED: &[(&str, &str)] = &[
    ("io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1", RECURSION),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
        ANY_VALUE,
    ),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
        ANY_VALUE,
    ),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
        ANY_VALUE,
    ),
];

const ANY_VALUE: &str = r#"{"x-kubernetes-preserve-unknown-fields": true}"#;

/// The structural schema of definition `name` among `definitions` (kubegen's
/// table); `refused` holds controller-gen's errors for the types it cannot
/// generate.
pub fn inline(
    definitions: &Map<String, Value>,
    refused: &Map<String, Value>,
    name: &str,
) -> Result<Value, SchemaError> {
    inline_from(
        &Parsed {
            definitions,
            refused,
        },
        name,
    )
}

/// Where the inliner reads definitions: a parsed table, or the table's text
/// indexed by name ([`Index`]), each definition parsed when it is reached.
pub(super) trait Definitions {
    /// Definition `name`, if the table holds it.
    fn definition(&self, name: &str) -> Option<Result<Cow<'_, Value>, String>>;
    /// controller-gen's errors for definition `name`, if it refuses it.
    fn refused(&self, name: &str) -> Option<Result<Cow<'_, Value>, String>>;
}

struct Parsed<'a> {
    definitions: &'a Map<String, Value>,
    refused: &'a Map<String, Value>,
}

impl Definitions for Parsed<'_> {
    fn definition(&self, name: &str) -> Option<Result<Cow<'_, Value>, String>> {
        self.definitions.get(name).map(|v| Ok(Cow::Borrowed(v)))
    }

    fn refused(&self, name: &str) -> Option<Result<Cow<'_, Value>, String>> {
        self.refused.get(name).map(|v| Ok(Cow::Borrowed(v)))
    }
}

/// The table's text read in place, nothing parsed beyond what a lookup
/// lands on: what an operator keeps to build the few schemas it needs (its
/// built-in kinds' apply schemas). The generator writes one definition per
/// line, sorted by name (`"name":{…},`), between the line
/// `"definitions":{` and the closing `}}`, so a definition is found by a
/// binary search over the lines. Only the lines a search probes and the
/// definitions a schema reaches are read (the kernel still maps the 64 KB
/// around each page fault, so more of the text becomes resident than is
/// read).
///
/// Two earlier designs cost an operator its memory: the parsed table (a
/// `serde_json::Value` tree of the whole 1 MB text) held 4.2 MB for as long
/// as the process ran, and an index of every definition built by parsing
/// the text once read all of it, so the whole 1 MB stayed resident.
#[derive(Debug)]
pub(super) struct Index {
    /// The definitions' lines, without the header line and the closing
    /// braces.
    definitions: &'static str,
    /// The refused types (one short line of the table), by name.
    pub(super) refused: HashMap<&'static str, &'static RawValue>,
}

impl Index {
    /// Reads the table's layout: the provenance line, the refused line,
    /// the definitions' header line, their lines, the closing line.
    pub(super) fn new(text: &'static str) -> Result<Index, String> {
        let corrupt =
            |what: &str| super::corrupt(&format!("{what} (not as the generator writes it)"));
        let mut lines = text.splitn(4, '\n');
        let (Some(_provenance), Some(refused), Some(header), Some(rest)) =
            (lines.next(), lines.next(), lines.next(), lines.next())
        else {
            return Err(corrupt("fewer than four lines"));
        };
        let refused = refused
            .strip_prefix("\"refused\":")
            .and_then(|r| r.strip_suffix(','))
            .ok_or_else(|| corrupt("no refused line"))?;
        let refused = serde_json::from_str(refused).map_err(|e| corrupt(&e.to_string()))?;
        if header != "\"definitions\":{" {
            return Err(corrupt("no definitions line"));
        }
        let definitions = rest
            .strip_suffix("\n}}\n")
            .ok_or_else(|| corrupt("no closing line"))?;
        Ok(Index {
            definitions,
            refused,
        })
    }

    /// The text of definition `name`'s schema, `None` when the table does
    /// not hold it.
    pub(super) fn find(&self, name: &str) -> Result<Option<&'static str>, String> {
        let text = self.definitions;
        // [lo, hi) is always whole lines (or empty).
        let (mut lo, mut hi) = (0, text.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let start = text[lo..mid].rfind('\n').map_or(lo, |i| lo + i + 1);
            let end = text[start..hi].find('\n').map_or(hi, |i| start + i);
            let (key, schema) = split_line(&text[start..end])?;
            match key.cmp(name) {
                std::cmp::Ordering::Equal => return Ok(Some(schema)),
                std::cmp::Ordering::Less => lo = (end + 1).min(hi),
                std::cmp::Ordering::Greater => hi = start,
            }
        }
        Ok(None)
    }

    /// Every definition's name, in the table's order.
    #[cfg(test)]
    pub(super) fn names(&self) -> Result<Vec<&'static str>, String> {
        self.definitions
            .split('\n')
            .map(|line| split_line(line).map(|(key, _)| key))
            .collect()
    }
}

/// A definition's line: `"name":{schema}` and a comma unless it is the
/// last. Names are plain dotted identifiers, written without escapes.
fn split_line(line: &'static str) -> Result<(&'static str, &'static str), String> {
    let broken = || super::corrupt(&format!("a definition line reads `{}`", truncate(line)));
    let rest = line.strip_prefix('"').ok_or_else(broken)?;
    let (key, schema) = rest.split_once("\":").ok_or_else(broken)?;
    if key.contains(['\\', '"']) {
        return Err(broken());
    }
    Ok((key, schema.strip_suffix(',').unwrap_or(schema)))
}

fn truncate(line: &str) -> &str {
    line.get(..line.len().min(80)).unwrap_or(line)
}

impl Definitions for Index {
    fn definition(&self, name: &str) -> Option<Result<Cow<'_, Value>, String>> {
        match self.find(name) {
            Ok(found) => found.map(parse_text),
            Err(e) => Some(Err(e)),
        }
    }

    fn refused(&self, name: &str) -> Option<Result<Cow<'_, Value>, String>> {
        self.refused.get(name).map(|raw| parse_text(raw.get()))
    }
}

fn parse_text(text: &str) -> Result<Cow<'static, Value>, String> {
    serde_json::from_str(text)
        .map(Cow::Owned)
        .map_err(|e| super::corrupt(&e.to_string()))
}

/// [`inline`] over any [`Definitions`].
pub(super) fn inline_from(definitions: &dyn Definitions, name: &str) -> Result<Value, SchemaError> {
    let mut inliner = Inliner {
        definitions,
        stack: Vec::new(),
    };
    let schema = Value::Object(inliner.definition(name, name)?);
    structural::check(&schema).map_err(|violations| SchemaError {
        path: name.to_owned(),
        message: format!(
            "a CRD cannot hold this type's schema ({}); mark the field \
             `#[kubegen(schemaless)]` to accept any JSON there",
            violations.join("; ")
        ),
    })?;
    Ok(schema)
}

fn fixed(json: &str) -> Map<String, Value> {
    match serde_json::from_str(json) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// Merges `src` into `dst` as controller-gen's `flattenAllOfInto` does:
/// `src`'s own `allOf` entries first, then its keys (docs excepted). A key
/// `dst` lacks is taken; an equal one kept; on a conflict, properties merge
/// one by one, required lists join, the list and map types and
/// `x-kubernetes-preserve-unknown-fields` take `src`'s value, CEL rules join
/// (`src`'s first), `additionalProperties` schemas merge, a `type` conflict
/// is an error, and any other key moves, from both sides, into two new
/// `allOf` entries.
pub fn merge_into(
    dst: &mut Map<String, Value>,
    src: &Map<String, Value>,
    path: &str,
) -> Result<(), SchemaError> {
    if let Some(Value::Array(entries)) = src.get("allOf") {
        for e in entries {
            let Value::Object(e) = e else {
                return Err(err(path, "an `allOf` entry is not an object"));
            };
            merge_into(dst, e, path)?;
        }
    }
    let (mut dst_rest, mut src_rest) = (Map::new(), Map::new());
    for (k, v) in src {
        let k = k.as_str();
        if k == "allOf" || keywords::keyword(k).is_some_and(|kw| kw.documentation) {
            continue;
        }
        if k == "enum" {
            if !dst.contains_key(k) {
                dst.insert(k.into(), v.clone());
            }
            continue;
        }
        let Some(d) = dst.get_mut(k) else {
            dst.insert(k.into(), v.clone());
            continue;
        };
        if d == v {
            continue;
        }
        match (k, d, v) {
            ("properties", Value::Object(d), Value::Object(v)) => {
                for (name, p) in v {
                    match (d.get_mut(name), p) {
                        (Some(Value::Object(dp)), Value::Object(p)) => {
                            merge_into(dp, p, &format!("{path}.{name}"))?
                        }
                        _ => {
                            d.insert(name.clone(), p.clone());
                        }
                    }
                }
            }
            ("required", Value::Array(d), Value::Array(v)) => d.extend(v.iter().cloned()),
            ("additionalProperties", Value::Object(d), Value::Object(v)) => {
                merge_into(d, v, &format!("{path}.*"))?
            }
            ("additionalProperties", _, Value::Bool(_)) => {}
            ("type", d, v) => {
                return Err(err(path, format!("conflicting types {d} and {v}")));
            }
            ("x-kubernetes-validations", Value::Array(d), Value::Array(v)) => {
                let mine = std::mem::take(d);
                d.extend(v.iter().cloned());
                d.extend(mine);
            }
            (k, d, v) if keywords::keyword(k).is_some_and(|kw| kw.entry_wins) => *d = v.clone(),
            (k, d, v) => {
                dst_rest.insert(k.into(), std::mem::take(d));
                src_rest.insert(k.into(), v.clone());
            }
        }
    }
    for k in dst_rest.keys() {
        dst.remove(k);
    }
    if !dst_rest.is_empty() {
        let all = dst
            .entry("allOf")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(all) = all {
            all.push(Value::Object(dst_rest));
            all.push(Value::Object(src_rest));
        }
    }
    if let Some(Value::Array(required)) = dst.get_mut("required") {
        let mut names: Vec<String> = required
            .iter()
            .filter_map(|r| r.as_str().map(str::to_owned))
            .collect();
        crate::sorting::sort(&mut names);
        names.dedup();
        *required = names.into_iter().map(Value::String).collect();
    }
    Ok(())
}

struct Inliner<'a> {
    definitions: &'a dyn Definitions,
    /// Definitions being inlined, outermost first.
    stack: Vec<String>,
}

impl Inliner<'_> {
    /// The flattened schema of a definition, with its own docs.
    fn definition(&mut self, name: &str, path: &str) -> Result<Map<String, Value>, SchemaError> {
        let def = self
            .definitions
            .definition(name)
            .ok_or_else(|| err(path, format!("no definition `{name}`")))?
            .map_err(|e| err(path, e))?;
        if let Some((_, shape)) = MAPPED.iter().find(|(n, _)| *n == name) {
            let mut m = fixed(shape);
            if let Some(d) = def.get("description") {
                m.insert("description".into(), d.clone());
            }
            return Ok(m);
        }
        if let Some(errors) = self.definitions.refused(name) {
            let errors = errors.map_err(|e| err(path, e))?;
            return Err(err(
                path,
                format!(
                    "controller-gen cannot embed `{name}` in a CRD ({}); mark the field \
                     `#[kubegen(schemaless)]` to accept any JSON there",
                    errors
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            ));
        }
        if self.stack.iter().any(|s| s == name) {
            return Ok(fixed(RECURSION));
        }
        self.stack.push(name.to_owned());
        let node = self.node(&def, name);
        self.stack.pop();
        node
    }

    /// A schema node with every reference resolved and every `allOf` merged.
    fn node(&mut self, v: &Value, path: &str) -> Result<Map<String, Value>, SchemaError> {
        let Value::Object(src) = v else {
            return Err(err(path, "a schema must be a JSON object"));
        };
        let mut own = Map::new();
        for (k, val) in src {
            match k.as_str() {
                "$ref" => {}
                "properties" => {
                    let Value::Object(props) = val else {
                        return Err(err(path, "`properties` is not an object"));
                    };
                    let mut flat = Map::new();
                    for (name, p) in props {
                        let sub = self.node(p, &format!("{path}.{name}"))?;
                        flat.insert(name.clone(), Value::Object(sub));
                    }
                    own.insert(k.clone(), Value::Object(flat));
                }
                "items" | "additionalProperties" if val.is_object() => {
                    let segment = if k == "items" { "[*]" } else { ".*" };
                    let sub = self.node(val, &format!("{path}{segment}"))?;
                    own.insert(k.clone(), Value::Object(sub));
                }
                "allOf" | "anyOf" | "oneOf" | "not" => {
                    let flat = match val {
                        Value::Array(entries) => Value::Array(
                            entries
                                .iter()
                                .map(|e| self.node(e, path).map(Value::Object))
                                .collect::<Result<_, _>>()?,
                        ),
                        other => Value::Object(self.node(other, path)?),
                    };
                    own.insert(k.clone(), flat);
                }
                _ => {
                    own.insert(k.clone(), val.clone());
                }
            }
        }
        let mut out = match src.get("$ref") {
            None => Map::new(),
            Some(Value::String(r)) => {
                let name = r
                    .strip_prefix(REF_PREFIX)
                    .ok_or_else(|| err(path, format!("unsupported `$ref` `{r}`")))?;
                let mut ty = self.definition(name, path)?;
                let mut docs = Map::new();
                for d in keywords::names_where(|kw| kw.documentation) {
                    if let Some(v) = own.remove(d).or_else(|| ty.remove(d)) {
                        docs.insert(d.into(), v);
                    }
                }
                merge_into(&mut docs, &ty, path)?;
                docs
            }
            Some(other) => return Err(err(path, format!("`$ref` is not a string: {other}"))),
        };
        if src.contains_key("$ref") {
            merge_into(&mut out, &own, path)?;
            Ok(out)
        } else {
            let entries = own.remove("allOf");
            if let Some(Value::Array(entries)) = entries {
                for e in entries {
                    if let Value::Object(e) = e {
                        merge_into(&mut own, &e, path)?;
                    }
                }
            }
            Ok(own)
        }
    }
}

fn err(path: &str, message: impl Into<String>) -> SchemaError {
    SchemaError {
        path: path.to_owned(),
        message: message.into(),
    }
}
