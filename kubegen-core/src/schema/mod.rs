//! The single schema implementation: type model → OpenAPI v3 structural
//! schema JSON. Free of `syn`, so generated code can run it at run time.

pub mod cel;
pub mod merge;
pub mod schemars_conv;
pub mod structural;
pub mod union;

use serde_json::{Map, Value, json};

use crate::vocabulary::{Effect, keys, keywords};

use crate::model::{
    Constraints, Field, OneOf, OneOfKind, Repr, SchemaType, Shape, Ty, TypeModel, Validation,
    Variant, VariantData,
};

/// A problem found while evaluating a schema (nested types are only visible here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// Where: the type and property path.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for SchemaError {}

/// Where a unit enum with a `#[default]` variant records that variant in
/// its own schema, for a parent's `#[serde(default)]` field to use. Never
/// emitted: stripped wherever a schema is embedded or becomes a CRD's.
pub const SERDE_DEFAULT_KEY: &str = "x-kubegen-serde-default";

/// `schema`, finished to become a CRD version's spec or status schema:
/// without the [`SERDE_DEFAULT_KEY`] marker at its top level, and with the
/// enum rules recorded under [`union::UNION_RULES_KEY`] settled (kept as CEL
/// rules where the apiserver's cost budget allows, their structural
/// equivalents elsewhere; only the whole schema tells how often each can
/// run) and their markers removed.
pub fn strip_marker(mut schema: Value) -> Value {
    if let Value::Object(m) = &mut schema {
        m.remove(SERDE_DEFAULT_KEY);
    }
    union::settle(&mut schema);
    schema
}

/// Looks up the schema of nested type number `i` (see `Ty::Named`).
pub type Resolve<'a> = &'a dyn Fn(usize) -> Result<Value, SchemaError>;

/// Builds the structural schema of a type.
pub fn schema_for(model: &TypeModel, resolve: Resolve<'_>) -> Result<Value, SchemaError> {
    let b = Builder {
        resolve,
        path: model.name.clone(),
    };
    b.type_schema(model).map(Value::Object)
}

struct Builder<'a> {
    resolve: Resolve<'a>,
    path: String,
}

fn err(path: &str, message: impl Into<String>) -> SchemaError {
    SchemaError {
        path: path.to_owned(),
        message: message.into(),
    }
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The schema of an embedded `ObjectMeta`: the fields users set, so they are not pruned.
pub fn embedded_object_meta() -> Value {
    let string_map = json!({"type": "object", "additionalProperties": {"type": "string"}});
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "namespace": {"type": "string"},
            "labels": string_map,
            "annotations": string_map,
            "finalizers": {"type": "array", "items": {"type": "string"}},
        }
    })
}

fn validation_json(v: &Validation) -> Value {
    let mut m = Map::new();
    m.insert("rule".into(), v.rule.clone().into());
    if let Some(x) = &v.message {
        m.insert("message".into(), x.clone().into());
    }
    if let Some(x) = &v.message_expression {
        m.insert("messageExpression".into(), x.clone().into());
    }
    if let Some(x) = &v.reason {
        m.insert("reason".into(), x.clone().into());
    }
    if let Some(x) = &v.field_path {
        m.insert("fieldPath".into(), x.clone().into());
    }
    if v.optional_old_self {
        m.insert("optionalOldSelf".into(), true.into());
    }
    Value::Object(m)
}

/// Appends rules to a schema's `x-kubernetes-validations`.
pub fn push_rules(s: &mut Map<String, Value>, rules: impl IntoIterator<Item = Value>) {
    let rules: Vec<Value> = rules.into_iter().collect();
    if rules.is_empty() {
        return;
    }
    let entry = s
        .entry("x-kubernetes-validations")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(a) = entry {
        a.extend(rules);
    }
}

/// The pattern controller-gen gives every `resource.Quantity` (its
/// known-type override; the built-in table's `Quantity` has the same, which
/// the table's tests check), so a malformed quantity such as `12abc` is
/// refused at admission instead of being stored and breaking its readers.
pub const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

fn quantity() -> Map<String, Value> {
    let mut s = int_or_string();
    s.insert("pattern".into(), QUANTITY_PATTERN.into());
    s
}

fn int_or_string() -> Map<String, Value> {
    obj(json!({
        "x-kubernetes-int-or-string": true,
        "anyOf": [{"type": "integer"}, {"type": "string"}],
    }))
}

/// Applies keyword constraints to a schema (shared by fields, items, types):
/// every key that sets one keyword ([`Effect::Keyword`]) as the vocabulary
/// table says, then the keys whose effect is a step of its own.
fn apply(s: &mut Map<String, Value>, c: &Constraints) {
    if c.int_or_string {
        *s = int_or_string();
    }
    // The first key of a keyword wins: `map_type` over `struct_type`
    // (`default` and `default_json` hold one value).
    let mut plain = Map::new();
    for k in keys::ALL {
        if let Effect::Keyword(keyword) = k.effect
            && let Some(v) = k.get(c)
        {
            plain.entry(keyword).or_insert(v);
        }
    }
    s.extend(plain);
    // The apiserver forbids `uniqueItems: true` (quadratic to check); a set
    // list type is how it enforces unique items ("Duplicate value").
    if c.unique_items && c.list_type.is_none() {
        s.insert("x-kubernetes-list-type".into(), "set".into());
    }
    if let Some(d) = &c.external_docs {
        let mut docs = Map::new();
        docs.insert("url".into(), d.url.clone().into());
        if let Some(text) = &d.description {
            docs.insert("description".into(), text.clone().into());
        }
        s.insert("externalDocs".into(), Value::Object(docs));
    }
    if c.embedded_resource {
        s.insert("type".into(), "object".into());
    }
    let mut rules: Vec<Value> = c.validations.iter().map(validation_json).collect();
    if c.immutable {
        rules.push(json!({"rule": "self == oldSelf", "message": "field is immutable"}));
    }
    for k in keys::ALL {
        if let Effect::Rule { rule, message } = k.effect
            && let Some(v) = k.get(c)
        {
            rules.push(key_rule(rule, message, &v));
        }
    }
    push_rules(s, rules);
}

/// The rule of an [`Effect::Rule`] key: the value as a CEL literal in the
/// rule (JSON's string escapes are CEL's), as text in the message (as Go's
/// `%v` prints it, which Kubernetes' declarative validation uses).
fn key_rule(rule: &str, message: &str, v: &Value) -> Value {
    let literal = v.to_string();
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    json!({
        "rule": rule.replace("{}", &literal),
        "message": message.replace("{}", &text),
    })
}

/// Applies a field's (or its items', or a newtype's) keywords to the schema
/// of the nested type it names, so that they only tighten the nested
/// type's own: a narrowing keyword the nested schema already has with
/// another value moves, with the field's, under `allOf` (`[{type's},
/// {field's}]`: both then apply, in controller-gen's shape), rules are
/// appended, and keywords that cannot hold two values
/// (`format`, `type`, list and map topology, `int_or_string`) are refused
/// when they differ. Annotations (`description`, `default`, `example`,
/// `title`, `nullable`, pruning and embedding extensions) are the field's
/// own and replace the type's.
fn tighten(
    s: &mut Map<String, Value>,
    c: &Constraints,
    path: &str,
    type_name: &str,
) -> Result<(), SchemaError> {
    let refuse = |what: String| {
        err(
            path,
            format!(
                "the field's keywords cannot be combined with those of its type `{type_name}`: {what}; a field may only tighten its type's schema (remove the field's keyword, or change the type)"
            ),
        )
    };
    if c.int_or_string && !merge::is_int_or_string(s) {
        return Err(refuse("`int_or_string` would replace its schema".into()));
    }
    let mut own = Map::new();
    apply(&mut own, c);
    // A narrowing keyword both have with different values moves, from both
    // sides, into an `allOf` of two entries, the type's then the field's,
    // as controller-gen's flattener hoists it.
    let (mut type_part, mut extra) = (Map::new(), Map::new());
    for bound in ["minimum", "maximum"] {
        let excl = if bound == "minimum" {
            "exclusiveMinimum"
        } else {
            "exclusiveMaximum"
        };
        if let (Some(mine), Some(theirs)) = (own.get(bound), s.get(bound))
            && mine != theirs
        {
            // The flag belongs to the bound it modifies (controller-gen
            // leaves flags at the node, where they would modify neither).
            extra.insert(bound.into(), mine.clone());
            if let Some(flag) = own.remove(excl) {
                extra.insert(excl.into(), flag);
            }
            own.remove(bound);
            if let Some(theirs) = s.remove(bound) {
                type_part.insert(bound.into(), theirs);
            }
            if let Some(flag) = s.remove(excl) {
                type_part.insert(excl.into(), flag);
            }
        }
    }
    for (k, v) in own {
        match (k.as_str(), s.get(&k)) {
            ("x-kubernetes-validations", _) => {
                if let Value::Array(rules) = v {
                    push_rules(s, rules);
                }
            }
            (_, Some(theirs)) if *theirs == v => {}
            (_, None) => {
                s.insert(k, v);
            }
            // controller-gen drops a field's `enum` under its type's (a
            // bug: the field's values are not enforced); kubegen keeps the
            // type's at the node and adds the field's under `allOf`.
            ("enum", Some(_)) => {
                extra.insert(k, v);
            }
            (key, Some(_)) if keywords::keyword(key).is_some_and(|k| k.narrowing) => {
                if let Some(theirs) = s.remove(&k) {
                    type_part.insert(k.clone(), theirs);
                }
                extra.insert(k, v);
            }
            (key, Some(theirs)) if keywords::keyword(key).is_some_and(|k| k.fixed) => {
                return Err(refuse(format!(
                    "it has {key}: {theirs}, this field asks for {v}"
                )));
            }
            _ => {
                s.insert(k, v);
            }
        }
    }
    if !extra.is_empty() {
        let all_of = s.entry("allOf").or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(a) = all_of {
            if !type_part.is_empty() {
                a.push(Value::Object(type_part));
            }
            a.push(Value::Object(extra));
        }
    }
    Ok(())
}

/// The name of the nested type under `Option`s, if `ty` is one.
fn nested_name(ty: &Ty) -> Option<&str> {
    match ty.unwrap_option() {
        Ty::Named { name, .. } => Some(name),
        _ => None,
    }
}

/// Applies `c` to `s`: plainly to a schema the node's own Rust type made,
/// tightening (see [`tighten`]) a nested type's schema.
fn constrain(
    s: &mut Map<String, Value>,
    c: &Constraints,
    ty: &Ty,
    path: &str,
) -> Result<(), SchemaError> {
    match nested_name(ty) {
        Some(name) if !c.overrides_schema() => tighten(s, c, path, name),
        _ => {
            apply(s, c);
            Ok(())
        }
    }
}

/// The CEL rule on an integer-keyed map: every key is the decimal text
/// serde_json reads back as the key type (no sign on unsigned keys, no
/// leading zeros, no `+`, within the type's range).
pub fn int_key_rule(bits: u8, signed: bool) -> Value {
    let (min, max) = Ty::int_range(bits, signed);
    let pattern = if signed {
        "^-?(0|[1-9][0-9]*)$"
    } else {
        "^(0|[1-9][0-9]*)$"
    };
    // Keys as long as the bound compare with it as text: for equal lengths
    // the order of the digits is the order of the numbers.
    let within = |bound: i128, op: &str| {
        let text = bound.to_string();
        format!(
            "(size(k) < {n} || (size(k) == {n} && k {op} '{text}'))",
            n = text.len()
        )
    };
    let range = if signed {
        format!(
            "(k.startsWith('-') ? {} : {})",
            within(min, "<="),
            within(max, "<=")
        )
    } else {
        within(max, "<=")
    };
    let kind = match (signed, bits) {
        (true, b) => format!("i{b}"),
        (false, b) => format!("u{b}"),
    };
    json!({
        "rule": format!("self.all(k, k.matches('{pattern}') && {range})"),
        "message": format!("keys must be integers from {min} to {max} written in decimal (the map's keys are {kind})"),
    })
}

/// Whether a `schema_json` brings its own description (which the doc
/// comment then leaves alone).
fn json_describes(c: &Constraints) -> bool {
    c.schema_json
        .as_ref()
        .is_some_and(|j| j.contains_key("description"))
}

/// The rules of type-level `*_one_of` keys, as controller-gen writes them
/// (`AtMostOneOf`, `ExactlyOneOf`, `AtLeastOneOf`): the same rule text and
/// message, ordered by kind as its marker priorities order them.
fn one_of_rules(one_of: &[OneOf]) -> Vec<Value> {
    let order = [
        OneOfKind::AtMostOne,
        OneOfKind::ExactlyOne,
        OneOfKind::AtLeastOne,
    ];
    order
        .into_iter()
        .flat_map(|kind| one_of.iter().filter(move |o| o.kind == kind))
        .map(|o| {
            // controller-gen v0.23's spelling: a constant-cost sum of
            // `has` tests (or their disjunction for at-least-one).
            let has = |f: &String| format!("has(self.{})", cel::ident(f));
            let count = || {
                o.fields
                    .iter()
                    .map(|f| format!("({}?1:0)", has(f)))
                    .collect::<Vec<_>>()
                    .join("+")
            };
            let (rule, what) = match o.kind {
                OneOfKind::AtMostOne => (
                    format!("{} <= 1", count()),
                    "at most one of the fields in [{}] may be set",
                ),
                OneOfKind::ExactlyOne => (
                    format!("{} == 1", count()),
                    "exactly one of the fields in [{}] must be set",
                ),
                OneOfKind::AtLeastOne => (
                    o.fields.iter().map(has).collect::<Vec<_>>().join("||"),
                    "at least one of the fields in [{}] must be set",
                ),
            };
            json!({
                "rule": rule,
                "message": what.replace("{}", &o.fields.join(" ")),
            })
        })
        .collect()
}

impl Builder<'_> {
    fn at(&self, segment: &str) -> Builder<'_> {
        Builder {
            resolve: self.resolve,
            path: format!("{}.{segment}", self.path),
        }
    }

    fn type_schema(&self, model: &TypeModel) -> Result<Map<String, Value>, SchemaError> {
        let c = &model.constraints;
        let mut s = match self.override_base(c) {
            Some(base) => base,
            None => match &model.shape {
                Shape::Struct { fields } => self.object(fields)?,
                Shape::Transparent { field } => self.field(field)?,
                Shape::Enum { repr, variants } => self.enumeration(repr, variants)?,
            },
        };
        if let Some(d) = &model.description
            && !json_describes(c)
        {
            s.insert("description".into(), d.clone().into());
        }
        match &model.shape {
            // A newtype's keys narrow its field's type like a field's do,
            // `items(...)` its list's items.
            Shape::Transparent { field } if !c.overrides_schema() => {
                constrain(&mut s, c, &field.ty, &self.path)?;
                if let (Some(ic), Ty::List { item, .. }, Some(Value::Object(items))) =
                    (&c.items, field.ty.unwrap_option(), s.get_mut("items"))
                {
                    constrain(items, ic, item, &format!("{}.items", self.path))?;
                }
            }
            _ => apply(&mut s, c),
        }
        push_rules(&mut s, one_of_rules(&c.one_of));
        Ok(s)
    }

    /// The schema an override attribute gives a node (`schema_json`,
    /// `schemaless`, `schema_type`), before the node's other keywords; `None`
    /// when the Rust type decides. An object or array override describes no
    /// properties or items of the Rust type: an object keeps unknown fields,
    /// an array's items are what `items(...)` says (any value otherwise).
    fn override_base(&self, c: &Constraints) -> Option<Map<String, Value>> {
        if let Some(j) = &c.schema_json {
            return Some(j.clone());
        }
        let any = || obj(json!({"x-kubernetes-preserve-unknown-fields": true}));
        if c.schemaless {
            return Some(any());
        }
        Some(match c.schema_type? {
            SchemaType::Object => {
                obj(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}))
            }
            SchemaType::Array => {
                let ic = c.items.as_deref().cloned().unwrap_or_default();
                let mut items = self.override_base(&ic).unwrap_or_else(any);
                apply(&mut items, &ic);
                let mut m = obj(json!({"type": "array"}));
                m.insert("items".into(), Value::Object(items));
                m
            }
            scalar => obj(json!({"type": scalar.as_str()})),
        })
    }

    fn resolved(&self, i: usize) -> Result<Map<String, Value>, SchemaError> {
        match (self.resolve)(i)? {
            Value::Object(m) => Ok(m),
            _ => Err(err(&self.path, "a nested schema is not a JSON object")),
        }
    }

    fn ty(&self, ty: &Ty, c: &Constraints) -> Result<Map<String, Value>, SchemaError> {
        Ok(match ty {
            Ty::Option(inner) => self.ty(inner, c)?,
            Ty::Bool => obj(json!({"type": "boolean"})),
            Ty::Int { bits, signed } => {
                // The apiserver refuses a number outside its `format`'s
                // range; a u32 needs `int64` (controller-gen writes `int32`
                // for Go's uint32, refusing half its values).
                let format = if *bits < 32 || (*bits == 32 && *signed) {
                    "int32"
                } else {
                    "int64"
                };
                let mut m = obj(json!({"type": "integer", "format": format}));
                let (min, max) = Ty::int_range(*bits, *signed);
                if !signed {
                    m.insert("minimum".into(), 0.into());
                }
                // A type narrower than its format (8 and 16 bits, u32) gets
                // its bounds too, so no object holds a number serde cannot
                // read back (controller-gen bounds none).
                if *bits < 32 || (*bits == 32 && !signed) {
                    if *signed {
                        m.insert("minimum".into(), json!(min as i64));
                    }
                    m.insert("maximum".into(), json!(max as i64));
                }
                m
            }
            Ty::Float { bits } => {
                let format = if *bits <= 32 { "float" } else { "double" };
                obj(json!({"type": "number", "format": format}))
            }
            Ty::String { char: true } => {
                obj(json!({"type": "string", "minLength": 1, "maxLength": 1}))
            }
            Ty::String { char: false } | Ty::Duration => obj(json!({"type": "string"})),
            Ty::Bytes => obj(json!({"type": "string", "format": "byte"})),
            Ty::DateTime => obj(json!({"type": "string", "format": "date-time"})),
            Ty::List { item, set, len } => {
                let item_c = c.items.as_deref().cloned().unwrap_or_default();
                let b = self.at("items");
                let mut items = match self.override_base(&item_c) {
                    Some(base) => base,
                    None => b.ty(item, &item_c)?,
                };
                constrain(&mut items, &item_c, item, &b.path)?;
                let mut m = obj(json!({"type": "array"}));
                m.insert("items".into(), Value::Object(items));
                if *set {
                    m.insert("x-kubernetes-list-type".into(), "set".into());
                }
                if let Some(n) = len {
                    m.insert("minItems".into(), (*n).into());
                    m.insert("maxItems".into(), (*n).into());
                }
                m
            }
            Ty::Map(value) => {
                let v = self.at("*").ty(value, &Constraints::default())?;
                let mut m = obj(json!({"type": "object"}));
                m.insert("additionalProperties".into(), Value::Object(v));
                m
            }
            Ty::IntKeyMap {
                bits,
                signed,
                value,
            } => {
                let v = self.at("*").ty(value, &Constraints::default())?;
                let mut m = obj(json!({"type": "object"}));
                m.insert("additionalProperties".into(), Value::Object(v));
                push_rules(&mut m, [int_key_rule(*bits, *signed)]);
                m
            }
            Ty::Json => obj(json!({"x-kubernetes-preserve-unknown-fields": true})),
            Ty::IntOrString => int_or_string(),
            Ty::Quantity => quantity(),
            Ty::ObjectMeta => obj(embedded_object_meta()),
            Ty::Named { resolver, .. } => {
                let mut m = self.resolved(*resolver)?;
                m.remove(SERDE_DEFAULT_KEY);
                m
            }
        })
    }

    /// The schema default of a `#[serde(default)]` field of a nested type:
    /// the value the nested schema records for its `Default`.
    fn type_default(&self, f: &Field) -> Result<Value, SchemaError> {
        let known = match f.ty.unwrap_option() {
            Ty::Named { resolver, .. } => self.resolved(*resolver)?.remove(SERDE_DEFAULT_KEY),
            _ => None,
        };
        known.ok_or_else(|| {
            err(
                &format!("{}.{}", self.path, f.name),
                "`#[serde(default)]` takes this field's value from its type's `Default`, which kubegen knows only for unit enums with a `#[default]` variant; add `#[kubegen(default = ...)]` with the same value, or `#[kubegen(no_schema_default)]`",
            )
        })
    }

    fn field(&self, f: &Field) -> Result<Map<String, Value>, SchemaError> {
        let b = self.at(&f.name);
        let mut s = match self.override_base(&f.constraints) {
            Some(base) => base,
            None => b.ty(&f.ty, &f.constraints)?,
        };
        constrain(&mut s, &f.constraints, &f.ty, &b.path)?;
        if f.default_from_type && f.constraints.default.is_none() {
            s.insert("default".into(), self.type_default(f)?);
        }
        if let Some(d) = &f.description
            && !json_describes(&f.constraints)
        {
            s.insert("description".into(), d.clone().into());
        }
        if !f.constraints.list_map_keys.is_empty() {
            structural::check_list_map_keys(&s).map_err(|m| err(&b.path, m))?;
        }
        Ok(s)
    }

    fn object(&self, fields: &[Field]) -> Result<Map<String, Value>, SchemaError> {
        let mut props = Map::new();
        let mut required = Vec::new();
        let mut rules = Vec::new();
        let mut junctors: Vec<Value> = Vec::new();
        let mut union_rules: Vec<Value> = Vec::new();
        let mut preserve = false;
        for f in fields {
            if f.flatten {
                let b = self.at(&format!("<flatten {}>", f.ty.json_kind()));
                let mut sub = b.ty(&f.ty, &f.constraints)?;
                if sub.contains_key("additionalProperties")
                    || sub.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
                {
                    preserve = true;
                }
                // A flattened `Option` of an enum is `None` when none of its
                // properties is there: its checks hold only when one is.
                if f.ty.is_option() && union::has_checks(&sub) {
                    union::guard_optional(&mut sub);
                }
                if let Some(Value::Object(p)) = sub.get("properties") {
                    for (k, v) in p {
                        if props.contains_key(k) {
                            return Err(err(
                                &b.path,
                                format!("flattened property `{k}` is defined twice"),
                            ));
                        }
                        props.insert(k.clone(), v.clone());
                    }
                }
                if !f.ty.is_option()
                    && let Some(Value::Array(r)) = sub.get("required")
                {
                    required.extend(r.iter().filter_map(|v| v.as_str().map(str::to_owned)));
                }
                if let Some(Value::Array(r)) = sub.get("x-kubernetes-validations") {
                    rules.extend(r.iter().cloned());
                }
                if let Some(Value::Array(r)) = sub.get(union::UNION_RULES_KEY) {
                    union_rules.extend(r.iter().cloned());
                }
                for j in ["oneOf", "anyOf", "allOf"] {
                    if let Some(v) = sub.get(j) {
                        junctors.push(json!({ j: v }));
                    }
                }
                continue;
            }
            if props.contains_key(&f.name) {
                return Err(err(
                    &self.path,
                    format!("property `{}` is defined twice", f.name),
                ));
            }
            props.insert(f.name.clone(), Value::Object(self.field(f)?));
            if f.required {
                required.push(f.name.clone());
            }
            if f.constraints.immutable && !f.required {
                let n = cel::ident(&f.name);
                rules.push(json!({
                    "rule": format!("!has(oldSelf.{n}) || has(self.{n})"),
                    "message": format!("{} is immutable once set", f.name),
                }));
            }
        }
        let mut m = obj(json!({"type": "object"}));
        if !props.is_empty() {
            m.insert("properties".into(), Value::Object(props));
        }
        if !required.is_empty() {
            m.insert("required".into(), json!(required));
        }
        if preserve {
            m.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
        }
        match junctors.len() {
            0 => {}
            1 => {
                if let Some(Value::Object(j)) = junctors.pop() {
                    m.extend(j);
                }
            }
            _ => {
                m.insert("allOf".into(), Value::Array(junctors));
            }
        }
        push_rules(&mut m, rules);
        union::push_entries(&mut m, union_rules);
        Ok(m)
    }

    /// The object schema of a variant's data (struct or newtype).
    fn variant_data(&self, v: &Variant) -> Result<Option<Map<String, Value>>, SchemaError> {
        let b = self.at(&v.name);
        Ok(match &v.data {
            VariantData::Unit => None,
            VariantData::Newtype(f) => Some(b.field(f)?),
            VariantData::Struct(fields) => Some(b.object(fields)?),
        })
    }

    /// A variant as the enum builders see it.
    fn part(&self, v: &Variant) -> Result<union::Part, SchemaError> {
        Ok(union::Part {
            name: v.name.clone(),
            description: v.description.clone(),
            data: self.variant_data(v)?,
            data_required: match &v.data {
                VariantData::Unit => false,
                VariantData::Newtype(f) => f.required,
                VariantData::Struct(_) => true,
            },
        })
    }

    /// Enums: a string `enum` when every variant is a unit one (externally
    /// tagged); otherwise an object (or scalar) schema of every variant's
    /// data with the check that keeps the variants apart (see [`merge`]).
    fn enumeration(
        &self,
        repr: &Repr,
        variants: &[Variant],
    ) -> Result<Map<String, Value>, SchemaError> {
        let names: Vec<Value> = variants.iter().map(|v| v.name.clone().into()).collect();
        let all_unit = variants.iter().all(|v| matches!(v.data, VariantData::Unit));
        let parts = || -> Result<Vec<union::Part>, SchemaError> {
            variants.iter().map(|v| self.part(v)).collect()
        };
        match repr {
            Repr::External if all_unit => {
                let mut m = obj(json!({"type": "string", "enum": names}));
                if let Some(v) = variants.iter().find(|v| v.default) {
                    m.insert(SERDE_DEFAULT_KEY.into(), v.name.clone().into());
                }
                Ok(m)
            }
            Repr::External => Ok(union::external_union(parts()?)),
            Repr::Internal { tag } => {
                let mut parts = parts()?;
                for p in &mut parts {
                    let data = p.data.get_or_insert_with(|| obj(json!({"type": "object"})));
                    if data.get("type") != Some(&Value::from("object")) {
                        return Err(err(
                            &format!("{}.{}", self.path, p.name),
                            "an internally tagged variant must hold an object",
                        ));
                    }
                }
                union::tagged_union(&self.path, tag, None, parts)
            }
            Repr::Adjacent { tag, content } => {
                union::tagged_union(&self.path, tag, Some(content), parts()?)
            }
            Repr::Untagged => union::untagged_union(&self.path, parts()?),
        }
    }
}

#[cfg(test)]
mod tests;
