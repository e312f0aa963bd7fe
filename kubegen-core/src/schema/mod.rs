//! The single schema implementation: type model → OpenAPI v3 structural
//! schema JSON. Free of `syn`, so generated code can run it at run time.

pub mod cel;
pub mod merge;
pub mod schemars_conv;
pub mod structural;
pub mod union;

use serde_json::{Map, Value, json};

use crate::model::{
    Constraints, Field, OneOfKind, Repr, Shape, Ty, TypeModel, Validation, Variant, VariantData,
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

fn int_or_string() -> Map<String, Value> {
    obj(json!({
        "x-kubernetes-int-or-string": true,
        "anyOf": [{"type": "integer"}, {"type": "string"}],
    }))
}

/// Applies keyword constraints to a schema (shared by fields, items, types).
fn apply(s: &mut Map<String, Value>, c: &Constraints) {
    if c.int_or_string {
        *s = int_or_string();
    }
    let mut set = |k: &str, v: Value| {
        s.insert(k.to_owned(), v);
    };
    if let Some(v) = &c.minimum {
        set("minimum", v.clone().into());
    }
    if let Some(v) = &c.maximum {
        set("maximum", v.clone().into());
    }
    if c.exclusive_minimum {
        set("exclusiveMinimum", true.into());
    }
    if c.exclusive_maximum {
        set("exclusiveMaximum", true.into());
    }
    if let Some(v) = &c.multiple_of {
        set("multipleOf", v.clone().into());
    }
    if let Some(v) = c.min_length {
        set("minLength", v.into());
    }
    if let Some(v) = c.max_length {
        set("maxLength", v.into());
    }
    if let Some(v) = &c.pattern {
        set("pattern", v.clone().into());
    }
    if let Some(v) = &c.format {
        set("format", v.clone().into());
    }
    if let Some(v) = c.min_items {
        set("minItems", v.into());
    }
    if let Some(v) = c.max_items {
        set("maxItems", v.into());
    }
    // The apiserver forbids `uniqueItems: true` (quadratic to check); a set
    // list type is how it enforces unique items ("Duplicate value").
    if c.unique_items && c.list_type.is_none() {
        set("x-kubernetes-list-type", "set".into());
    }
    if let Some(v) = c.min_properties {
        set("minProperties", v.into());
    }
    if let Some(v) = c.max_properties {
        set("maxProperties", v.into());
    }
    if let Some(v) = &c.enum_values {
        set("enum", Value::Array(v.clone()));
    }
    if c.nullable {
        set("nullable", true.into());
    }
    if let Some(v) = &c.default {
        set("default", v.clone());
    }
    if let Some(v) = &c.example {
        set("example", v.clone());
    }
    if let Some(v) = &c.title {
        set("title", v.clone().into());
    }
    if let Some(v) = &c.list_type {
        set("x-kubernetes-list-type", v.clone().into());
    }
    if !c.list_map_keys.is_empty() {
        set("x-kubernetes-list-map-keys", json!(c.list_map_keys));
    }
    if let Some(v) = c.map_type.as_ref().or(c.struct_type.as_ref()) {
        set("x-kubernetes-map-type", v.clone().into());
    }
    if c.preserve_unknown_fields {
        set("x-kubernetes-preserve-unknown-fields", true.into());
    }
    if c.embedded_resource {
        set("x-kubernetes-embedded-resource", true.into());
        set("type", "object".into());
    }
    let mut rules: Vec<Value> = c.validations.iter().map(validation_json).collect();
    if c.immutable {
        rules.push(json!({"rule": "self == oldSelf", "message": "Value is immutable"}));
    }
    push_rules(s, rules);
}

impl Builder<'_> {
    fn at(&self, segment: &str) -> Builder<'_> {
        Builder {
            resolve: self.resolve,
            path: format!("{}.{segment}", self.path),
        }
    }

    fn type_schema(&self, model: &TypeModel) -> Result<Map<String, Value>, SchemaError> {
        let mut s = match &model.shape {
            Shape::Struct { fields } => self.object(fields)?,
            Shape::Transparent { field } => self.field(field)?,
            Shape::Enum { repr, variants } => self.enumeration(repr, variants)?,
        };
        if let Some(d) = &model.description {
            s.insert("description".into(), d.clone().into());
        }
        let c = &model.constraints;
        apply(&mut s, c);
        let rules = c.one_of.iter().map(|o| {
            let terms: Vec<String> = o
                .fields
                .iter()
                .map(|f| format!("(has(self.{}) ? 1 : 0)", cel::ident(f)))
                .collect();
            let (op, what) = match o.kind {
                OneOfKind::ExactlyOne => ("== 1", "exactly one"),
                OneOfKind::AtMostOne => ("<= 1", "at most one"),
                OneOfKind::AtLeastOne => (">= 1", "at least one"),
            };
            json!({
                "rule": format!("{} {op}", terms.join(" + ")),
                "message": format!("{what} of the fields in [{}] must be set", o.fields.join(", ")),
            })
        });
        push_rules(&mut s, rules.collect::<Vec<_>>());
        Ok(s)
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
                let format = if *bits <= 32 { "int32" } else { "int64" };
                let mut m = obj(json!({"type": "integer", "format": format}));
                if !signed {
                    m.insert("minimum".into(), 0.into());
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
            Ty::DateTime => obj(json!({"type": "string", "format": "date-time"})),
            Ty::List { item, set, len } => {
                let item_c = c.items.as_deref().cloned().unwrap_or_default();
                let mut items = self.at("items").ty(item, &item_c)?;
                apply(&mut items, &item_c);
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
            Ty::Json => obj(json!({"x-kubernetes-preserve-unknown-fields": true})),
            Ty::IntOrString => int_or_string(),
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
        let mut s = b.ty(&f.ty, &f.constraints)?;
        apply(&mut s, &f.constraints);
        if f.default_from_type && f.constraints.default.is_none() {
            s.insert("default".into(), self.type_default(f)?);
        }
        if let Some(d) = &f.description {
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
