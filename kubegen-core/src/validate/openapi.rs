//! The OpenAPI schema validation the apiserver applies to custom resources:
//! a port of k8s.io/kube-openapi `pkg/validation/validate` (the
//! `SchemaValidator` and its type, schema-props (`allOf`, `anyOf`, `oneOf`,
//! `not`, `dependencies`), string, format, number, slice, common (`enum`)
//! and object validators, with the messages of `pkg/validation/errors`), fed
//! the schema as k8s.io/apiextensions-apiserver converts a CRD version's
//! `openAPIV3Schema` (`ConvertJSONSchemaPropsWithPostProcess`: the
//! `x-kubernetes-int-or-string` type is `["integer","string"]`, formats
//! the default compatibility version does not support are dropped; see
//! [`crate::go::strfmt`]), and its result turned into field errors as
//! `kubeOpenAPIResultToFieldErrors` turns it.
//!
//! The port keeps kube-openapi's quirks, because the apiserver has them:
//! error messages de-duplicated by text within a result, `anyOf` and
//! `oneOf` reporting the errors of the alternative with the most passing
//! checks, integer bounds and factors truncated to int64 (as Go on amd64
//! converts, out-of-range values to the smallest int64), a value of a
//! string schema with a format reported as "must be of type `<format>`",
//! patterns searched (not anchored) with Go's RE2 syntax (ASCII `\d`,
//! `\w`, `\s`, `\b`). Data is JSON as the apiserver decodes it: a number
//! that fits int64 is an int64, any other a float64.
//!
//! Go iterates maps in random order, so the apiserver's error order is not
//! defined; here properties and keys are visited in sorted order.
//!
//! Not ported: `$ref` (kube-openapi panics on it; it is ignored here), the
//! Go regexp compiler's error text for an invalid pattern (CRD validation
//! rejects those; the text here is the Rust compiler's), and the index
//! panic of `additionalItems` without tuple items (the loop stops at the
//! end of the array here).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};

use regex::Regex;
use serde_json::{Map, Number, Value};

use super::correlate::Correlated;
use super::field::{ErrorType, FieldError};
use crate::go::fmt::{go_float, go_json, go_quote};
use crate::go::strfmt as formats;

/// kube-openapi's SchemaValidator on `value` (a whole custom resource, or a
/// subtree) against `schema` (a CRD version's openAPIV3Schema as JSON, or a
/// subschema), its result converted as the apiserver converts it.
/// `path` is the field path prefix ("" for the object root).
pub fn validate(schema: &Value, value: &Value, path: &str) -> Vec<FieldError> {
    Schema::from_json(schema).validate(value, path)
}

/// A schema as kube-openapi's `spec.Schema` holds it after the apiserver's
/// conversion of a CRD's `JSONSchemaProps`: convert once, validate many
/// objects.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    types: Vec<String>,
    nullable: bool,
    format: String,
    maximum: Option<f64>,
    exclusive_maximum: bool,
    minimum: Option<f64>,
    exclusive_minimum: bool,
    max_length: Option<i64>,
    min_length: Option<i64>,
    pattern: String,
    max_items: Option<i64>,
    min_items: Option<i64>,
    unique_items: bool,
    multiple_of: Option<f64>,
    max_properties: Option<i64>,
    min_properties: Option<i64>,
    required: Vec<String>,
    enum_values: Vec<Value>,
    all_of: Vec<Schema>,
    one_of: Vec<Schema>,
    any_of: Vec<Schema>,
    not: Option<Box<Schema>>,
    properties: BTreeMap<String, Schema>,
    pattern_properties: BTreeMap<String, Schema>,
    additional_properties: Option<SchemaOrBool>,
    additional_items: Option<SchemaOrBool>,
    items: Option<SchemaOrArray>,
    dependencies: BTreeMap<String, Dependency>,
}

/// `spec.SchemaOrBool`.
#[derive(Clone, Debug)]
struct SchemaOrBool {
    allows: bool,
    schema: Option<Box<Schema>>,
}

/// `spec.SchemaOrArray`.
#[derive(Clone, Debug)]
enum SchemaOrArray {
    One(Box<Schema>),
    Tuple(Vec<Schema>),
}

/// `spec.SchemaOrStringArray`.
#[derive(Clone, Debug)]
enum Dependency {
    Schema(Box<Schema>),
    Properties(Vec<String>),
}

impl Schema {
    /// Converts a CRD `JSONSchemaProps` (JSON, as in the CRD) as
    /// `ConvertJSONSchemaPropsWithPostProcess` does with the apiserver's
    /// format post-processor. Keywords of the wrong JSON type are ignored
    /// (the apiserver would not have admitted the CRD).
    pub fn from_json(v: &Value) -> Schema {
        let str_of = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let bool_of = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        let f64_of = |k: &str| v.get(k).and_then(Value::as_f64);
        let i64_of = |k: &str| v.get(k).and_then(Value::as_i64);
        let list = |k: &str| -> Vec<Schema> {
            v.get(k)
                .and_then(Value::as_array)
                .map(|a| a.iter().map(Schema::from_json).collect())
                .unwrap_or_default()
        };
        let map = |k: &str| -> BTreeMap<String, Schema> {
            v.get(k)
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .map(|(k, s)| (k.clone(), Schema::from_json(s)))
                        .collect()
                })
                .unwrap_or_default()
        };
        let or_bool = |k: &str| match v.get(k) {
            Some(Value::Bool(b)) => Some(SchemaOrBool {
                allows: *b,
                schema: None,
            }),
            Some(s @ Value::Object(_)) => Some(SchemaOrBool {
                allows: true,
                schema: Some(Box::new(Schema::from_json(s))),
            }),
            _ => None,
        };
        let mut s = Schema {
            nullable: bool_of("nullable"),
            format: str_of("format"),
            maximum: f64_of("maximum"),
            exclusive_maximum: bool_of("exclusiveMaximum"),
            minimum: f64_of("minimum"),
            exclusive_minimum: bool_of("exclusiveMinimum"),
            max_length: i64_of("maxLength"),
            min_length: i64_of("minLength"),
            pattern: str_of("pattern"),
            max_items: i64_of("maxItems"),
            min_items: i64_of("minItems"),
            unique_items: bool_of("uniqueItems"),
            multiple_of: f64_of("multipleOf"),
            max_properties: i64_of("maxProperties"),
            min_properties: i64_of("minProperties"),
            required: v
                .get("required")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            enum_values: v
                .get("enum")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            all_of: list("allOf"),
            one_of: list("oneOf"),
            any_of: list("anyOf"),
            not: v
                .get("not")
                .filter(|n| n.is_object())
                .map(|n| Box::new(Schema::from_json(n))),
            properties: map("properties"),
            pattern_properties: map("patternProperties"),
            additional_properties: or_bool("additionalProperties"),
            additional_items: or_bool("additionalItems"),
            items: match v.get("items") {
                Some(s @ Value::Object(_)) => {
                    Some(SchemaOrArray::One(Box::new(Schema::from_json(s))))
                }
                Some(Value::Array(a)) => Some(SchemaOrArray::Tuple(
                    a.iter().map(Schema::from_json).collect(),
                )),
                _ => None,
            },
            dependencies: v
                .get("dependencies")
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .filter_map(|(k, d)| {
                            let dep = match d {
                                Value::Object(_) => {
                                    Dependency::Schema(Box::new(Schema::from_json(d)))
                                }
                                Value::Array(a) => Dependency::Properties(
                                    a.iter()
                                        .filter_map(Value::as_str)
                                        .map(str::to_string)
                                        .collect(),
                                ),
                                _ => return None,
                            };
                            Some((k.clone(), dep))
                        })
                        .collect()
                })
                .unwrap_or_default(),
            ..Schema::default()
        };
        let t = str_of("type");
        if !t.is_empty() {
            s.types = vec![t];
        }
        if bool_of("x-kubernetes-int-or-string") {
            s.types = vec!["integer".into(), "string".into()];
        }
        // StripUnsupportedFormatsPostProcessorForVersion.
        if !s.format.is_empty() {
            let keep = match s.types.as_slice() {
                [t] if t == "integer" => s.format == "int32" || s.format == "int64",
                [t] if t == "number" => s.format == "float" || s.format == "double",
                [t] if t != "string" => false,
                _ => formats::is_supported(&s.format),
            };
            if !keep {
                s.format.clear();
            }
        }
        s
    }

    /// kube-openapi's `SchemaValidator.Validate(value)` from the root path
    /// `""`, converted to field errors under the prefix `path` ("" for none:
    /// the apiserver's nil path, which prints as `<nil>` where an error has
    /// no field of its own).
    pub fn validate(&self, value: &Value, path: &str) -> Vec<FieldError> {
        to_field_errors(validate_schema(self, "", value, None).errors, path)
    }

    /// [`Schema::validate`] of an update, ratcheted as the apiserver
    /// ratchets it: the errors of any value `old` pairs with an equal one
    /// ([`Correlated::unchanged`]) are dropped.
    pub fn validate_update(&self, old: Correlated<'_>, path: &str) -> Vec<FieldError> {
        to_field_errors(validate_schema(self, "", old.new, Some(old)).errors, path)
    }

    fn has_type(&self, t: &str) -> bool {
        self.types.iter().any(|x| x == t)
    }
}

/// A decoded JSON number as Go holds it.
#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn of(n: &Number) -> Num {
        match n.as_i64() {
            Some(i) => Num::Int(i),
            None => Num::Float(n.as_f64().unwrap_or(f64::NAN)),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    fn value(self) -> Value {
        match self {
            Num::Int(i) => Value::from(i),
            Num::Float(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
        }
    }
}

/// `errors` codes of `*errors.Validation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Code {
    InvalidType,
    Required,
    TooLong,
    TooShort,
    Pattern,
    Enum,
    MultipleOf,
    Max,
    Min,
    Unique,
    MaxItems,
    MinItems,
    TooFewProperties,
    TooManyProperties,
    UnallowedProperty,
    MultipleOfMustBePositive,
}

/// An `*errors.Validation`.
#[derive(Clone, Debug)]
struct Validation {
    code: Code,
    name: String,
    /// `Value`; `None` is Go's nil.
    value: Option<Value>,
    /// `Valid`, where it is an int64.
    valid: Option<i64>,
    /// `Values` (the enum).
    values: Vec<Value>,
    message: String,
}

/// An error of a `validate.Result`: a `*errors.Validation`, or any other
/// error (composite messages, `fmt.Errorf`), which the apiserver reports
/// on the root path.
#[derive(Clone, Debug)]
enum Error {
    Validation(Box<Validation>),
    Plain(String),
}

impl Error {
    fn message(&self) -> &str {
        match self {
            Error::Validation(v) => &v.message,
            Error::Plain(m) => m,
        }
    }
}

/// `validate.Result`: errors (unique by text) and the match count that
/// picks the best failing `anyOf`/`oneOf` alternative.
#[derive(Clone, Debug, Default)]
struct Res {
    errors: Vec<Error>,
    match_count: usize,
}

impl Res {
    fn err(e: Error) -> Res {
        Res {
            errors: vec![e],
            match_count: 0,
        }
    }

    fn add(&mut self, e: Error) {
        if !self.errors.iter().any(|x| x.message() == e.message()) {
            self.errors.push(e);
        }
    }

    fn merge(&mut self, other: Res) {
        for e in other.errors {
            self.add(e);
        }
        self.match_count += other.match_count;
    }

    fn inc(&mut self) {
        self.match_count += 1;
    }

    fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// `keepRelevantErrors`: the errors tagged `IMPORTANT!`, untagged (as
    /// `fmt.Errorf` formats the rest with no arguments).
    fn keep_relevant(&self) -> Res {
        Res {
            errors: self
                .errors
                .iter()
                .filter_map(|e| e.message().strip_prefix("IMPORTANT!"))
                .map(|m| Error::Plain(go_sprintf_no_args(m)))
                .collect(),
            match_count: 0,
        }
    }
}

fn validation(code: Code, name: &str, value: Option<Value>, message: String) -> Error {
    Error::Validation(Box::new(Validation {
        code,
        name: name.to_string(),
        value,
        valid: None,
        values: Vec::new(),
        message,
    }))
}

fn with_valid(e: Error, valid: i64) -> Error {
    match e {
        Error::Validation(mut v) => {
            v.valid = Some(valid);
            Error::Validation(v)
        }
        plain => plain,
    }
}

/// `errors.InvalidType(name, "body", typeName, value)` for a string value.
fn invalid_type(name: &str, type_name: &str, value: &str) -> Error {
    validation(
        Code::InvalidType,
        name,
        Some(Value::String(value.to_string())),
        format!(
            "{name} in body must be of type {type_name}: {}",
            go_quote(value)
        ),
    )
}

/// `SchemaValidator.Validate`.
fn validate_schema(s: &Schema, path: &str, data: &Value, corr: Corr<'_>) -> Res {
    let result = validate_value(s, path, data, corr);
    // Ratcheting: the errors of a value an update left as it was are
    // warnings (`ratchetingValueValidator.Validate`).
    if !result.is_valid() && corr.is_some_and(Correlated::unchanged) {
        return Res::default();
    }
    result
}

/// `SchemaValidator.Validate` itself.
fn validate_value(s: &Schema, path: &str, data: &Value, corr: Corr<'_>) -> Res {
    let mut result = Res::default();
    if data.is_null() {
        result.merge(validate_type(s, path, data));
        result.merge(validate_common(s, path, data));
        return result;
    }
    if !s.types.is_empty() || !s.format.is_empty() {
        result.merge(validate_type(s, path, data));
        result.inc();
    }
    result.merge(validate_props(s, path, data));
    result.inc();
    if let Value::String(text) = data {
        result.merge(validate_string(s, path, text));
        result.inc();
        if formats::is_known(&s.format) {
            if !formats::validates(&s.format, text) {
                result.merge(Res::err(invalid_type(path, &s.format, text)));
            }
            result.inc();
        }
    }
    if let Value::Number(n) = data {
        result.merge(validate_number(s, path, Num::of(n)));
        result.inc();
    }
    if let Value::Array(items) = data {
        result.merge(validate_slice(s, path, items, corr));
        result.inc();
    }
    result.merge(validate_common(s, path, data));
    result.inc();
    if let Value::Object(obj) = data {
        result.merge(validate_object(s, path, obj, corr));
        result.inc();
    }
    result.inc();
    result
}

/// A value's old value in an update, if it has one.
type Corr<'a> = Option<Correlated<'a>>;

/// The old value of the field `name` of an object at `path`: none at the
/// root for `apiVersion` and `kind` (`SubPropertyValidator`).
fn field<'a>(corr: Corr<'a>, path: &str, name: &str) -> Corr<'a> {
    if path.is_empty() && matches!(name, "apiVersion" | "kind") {
        return None;
    }
    corr?.key(name)
}

/// `typeValidator`.
fn validate_type(s: &Schema, path: &str, data: &Value) -> Res {
    let mut ok = Res::default();
    ok.inc();
    let (sch_type, format, float) = match data {
        Value::Null => {
            if !s.types.is_empty() && !s.has_type("null") && !s.nullable {
                return Res::err(invalid_type(path, &s.types.join(","), "null"));
            }
            return ok;
        }
        Value::Bool(_) => ("boolean", "", 0.0),
        Value::String(_) => ("string", "", 0.0),
        Value::Number(n) => match Num::of(n) {
            Num::Int(_) => ("integer", "int64", 0.0),
            Num::Float(f) => ("number", "float64", f),
        },
        Value::Array(_) => ("array", "", 0.0),
        Value::Object(_) => ("object", "", 0.0),
    };
    let string_or_slice = matches!(data, Value::String(_) | Value::Array(_));
    let float_int = sch_type == "number" && is_float64_json_integer(float) && s.has_type("integer");
    let int_float = sch_type == "integer" && s.has_type("number");
    let lower_int = s.format == "int64" && format == "int32";
    let lower_float = s.format == "float64" && format == "float32";
    if !string_or_slice
        && !s.format.is_empty()
        && !(s.has_type(sch_type)
            || format == s.format
            || float_int
            || int_float
            || lower_int
            || lower_float)
    {
        return Res::err(invalid_type(path, &s.format, format));
    }
    if !s.has_type("number") && !s.has_type("integer") && !s.format.is_empty() && string_or_slice {
        return ok;
    }
    if !(s.has_type(sch_type) || float_int || int_float) {
        return Res::err(invalid_type(path, &s.types.join(","), sch_type));
    }
    ok
}

/// `schemaPropsValidator`: `anyOf`, `oneOf`, `allOf`, `not`,
/// `dependencies`.
fn validate_props(s: &Schema, path: &str, data: &Value) -> Res {
    let mut main = Res::default();
    let mut keep_any = Res::default();
    let mut keep_one = Res::default();
    let mut keep_all = Res::default();
    let quoted = go_quote(path);

    if !s.any_of.is_empty() {
        let mut best: Option<Res> = None;
        let mut first_success: Option<Res> = None;
        let mut succeeded = false;
        for sub in &s.any_of {
            let r = validate_schema(sub, path, data, None);
            keep_any.merge(r.keep_relevant());
            if r.is_valid() {
                best = None;
                succeeded = true;
                first_success.get_or_insert(r);
                keep_any = Res::default();
                break;
            }
            if best.as_ref().is_none_or(|b| r.match_count > b.match_count) {
                best = Some(r);
            }
        }
        if !succeeded {
            main.add(Error::Plain(format!(
                "{quoted} must validate at least one schema (anyOf)"
            )));
        }
        if let Some(b) = best {
            main.merge(b);
        } else if let Some(f) = first_success {
            main.merge(f);
        }
    }

    if !s.one_of.is_empty() {
        let mut best: Option<Res> = None;
        let mut first_success: Option<Res> = None;
        let mut validated = 0;
        for sub in &s.one_of {
            let r = validate_schema(sub, path, data, None);
            keep_one.merge(r.keep_relevant());
            if r.is_valid() {
                validated += 1;
                best = None;
                first_success.get_or_insert(r);
                keep_one = Res::default();
                continue;
            }
            if validated == 0 && best.as_ref().is_none_or(|b| r.match_count > b.match_count) {
                best = Some(r);
            }
        }
        if validated != 1 {
            let more = if validated == 0 {
                "Found none valid".to_string()
            } else {
                format!("Found {validated} valid alternatives")
            };
            main.add(Error::Plain(format!(
                "{quoted} must validate one and only one schema (oneOf). {more}"
            )));
            if let Some(b) = best {
                main.merge(b);
            }
        } else if let Some(f) = first_success {
            main.merge(f);
        }
    }

    if !s.all_of.is_empty() {
        let mut validated = 0;
        for sub in &s.all_of {
            let r = validate_schema(sub, path, data, None);
            keep_all.merge(r.keep_relevant());
            if r.is_valid() {
                validated += 1;
            }
            main.merge(r);
        }
        if validated != s.all_of.len() {
            let more = if validated == 0 {
                ". None validated"
            } else {
                ""
            };
            main.add(Error::Plain(format!(
                "{quoted} must validate all the schemas (allOf){more}"
            )));
        }
    }

    if let Some(not) = &s.not
        && validate_schema(not, path, data, None).is_valid()
    {
        main.add(Error::Plain(format!(
            "{quoted} must not validate the schema (not)"
        )));
    }

    if !s.dependencies.is_empty()
        && let Value::Object(obj) = data
    {
        for key in sorted_keys(obj) {
            match s.dependencies.get(key) {
                Some(Dependency::Schema(dep)) => {
                    main.merge(validate_schema(dep, &format!("{path}.{key}"), data, None));
                }
                Some(Dependency::Properties(props)) => {
                    for dep_key in props {
                        if !obj.contains_key(dep_key) {
                            main.add(Error::Plain(format!(
                                "{quoted} has a dependency on {dep_key}"
                            )));
                        }
                    }
                }
                None => {}
            }
        }
    }

    main.inc();
    main.merge(keep_all);
    main.merge(keep_one);
    main.merge(keep_any);
    main
}

/// `stringValidator`: the first failing of `maxLength`, `minLength`,
/// `pattern`.
fn validate_string(s: &Schema, path: &str, data: &str) -> Res {
    let len = data.chars().count() as i64;
    let value = || Some(Value::String(data.to_string()));
    if let Some(max) = s.max_length
        && len > max
    {
        let msg = format!("{path} in body should be at most {max} chars long");
        return Res::err(with_valid(
            validation(Code::TooLong, path, value(), msg),
            max,
        ));
    }
    if let Some(min) = s.min_length
        && len < min
    {
        let msg = format!("{path} in body should be at least {min} chars long");
        return Res::err(with_valid(
            validation(Code::TooShort, path, value(), msg),
            min,
        ));
    }
    if !s.pattern.is_empty() {
        let failed = match go_regex(&s.pattern) {
            Ok(re) => (!re.is_match(data)).then(|| s.pattern.clone()),
            Err(e) => Some(format!("{}, but pattern is invalid: {e}", s.pattern)),
        };
        if let Some(p) = failed {
            let msg = format!("{path} in body should match '{p}'");
            return Res::err(validation(Code::Pattern, path, value(), msg));
        }
    }
    Res::default()
}

/// `numberValidator`: the type's range, then `multipleOf`, `minimum`,
/// `maximum`, each bound checked natively (int64) when it is itself in the
/// type's range, else as float64.
fn validate_number(s: &Schema, path: &str, val: Num) -> Res {
    let (type_name, format) = match s.types.as_slice() {
        [t] if t == "integer" => (
            "integer",
            if matches!(s.format.as_str(), "int32" | "int64") {
                s.format.as_str()
            } else {
                ""
            },
        ),
        [t] if t == "number" => (
            "number",
            if matches!(s.format.as_str(), "float" | "double") {
                s.format.as_str()
            } else {
                ""
            },
        ),
        _ => ("", ""),
    };
    let mut res = Res::default();
    let data = val.as_f64();
    if let Some(e) = range_error(val, type_name, format, "Checked", path) {
        res.add(Error::Plain(e));
    }
    let mut parts = Vec::new();
    if let Some(factor) = s.multiple_of {
        let mut r = Res::default();
        match range_error(Num::Float(factor), type_name, format, "MultipleOf", path) {
            None => r.errors.extend(multiple_of_native(path, val, factor)),
            Some(e) => {
                r.add(Error::Plain(e));
                r.errors.extend(multiple_of_float(path, data, factor));
            }
        }
        parts.push(r);
    }
    let mut resmin = Res::default();
    let mut resmax = Res::default();
    if let Some(max) = s.maximum {
        match range_error(Num::Float(max), type_name, format, "Maximum boundary", path) {
            None => resmax
                .errors
                .extend(maximum_native(path, val, max, s.exclusive_maximum)),
            Some(e) => {
                resmax.add(Error::Plain(e));
                resmax
                    .errors
                    .extend(maximum_float(path, data, max, s.exclusive_maximum));
            }
        }
    }
    if let Some(min) = s.minimum {
        match range_error(Num::Float(min), type_name, format, "Minimum boundary", path) {
            None => resmin
                .errors
                .extend(minimum_native(path, val, min, s.exclusive_minimum)),
            Some(e) => {
                resmin.add(Error::Plain(e));
                resmin
                    .errors
                    .extend(minimum_float(path, data, min, s.exclusive_minimum));
            }
        }
    }
    parts.push(resmin);
    parts.push(resmax);
    for p in parts {
        res.merge(p);
    }
    res.inc();
    res
}

/// `IsValueValidAgainstRange`: whether `val` (written as Go's `FormatInt`
/// or `FormatFloat(f, 'f', -1, 64)` writes it) parses as the type and
/// format's Go type.
fn range_error(
    val: Num,
    type_name: &str,
    format: &str,
    prefix: &str,
    path: &str,
) -> Option<String> {
    let rep = match val {
        Num::Int(i) => i.to_string(),
        Num::Float(f) => format!("{f}"),
    };
    let bad = match (type_name, format) {
        ("integer", "int32") => rep.parse::<i32>().is_err(),
        ("integer", _) => rep.parse::<i64>().is_err(),
        (_, "float") => rep.parse::<f32>().map_or(true, f32::is_infinite),
        _ => false,
    };
    bad.then(|| {
        if format.is_empty() {
            format!("{prefix} value must be of type {type_name} (default format) in {path}")
        } else {
            format!("{prefix} value must be of type {type_name} with format {format} in {path}")
        }
    })
}

fn maximum_native(path: &str, val: Num, max: f64, exclusive: bool) -> Option<Error> {
    match val {
        Num::Int(i) => {
            let max = go_f64_to_i64(max);
            ((!exclusive && i > max) || (exclusive && i >= max))
                .then(|| bound_error(Code::Max, path, max.to_string(), exclusive, val.value()))
        }
        Num::Float(f) => maximum_float(path, f, max, exclusive),
    }
}

fn maximum_float(path: &str, data: f64, max: f64, exclusive: bool) -> Option<Error> {
    ((!exclusive && data > max) || (exclusive && data >= max)).then(|| {
        bound_error(
            Code::Max,
            path,
            go_float(max),
            exclusive,
            Num::Float(data).value(),
        )
    })
}

fn minimum_native(path: &str, val: Num, min: f64, exclusive: bool) -> Option<Error> {
    match val {
        Num::Int(i) => {
            let min = go_f64_to_i64(min);
            ((!exclusive && i < min) || (exclusive && i <= min))
                .then(|| bound_error(Code::Min, path, min.to_string(), exclusive, val.value()))
        }
        Num::Float(f) => minimum_float(path, f, min, exclusive),
    }
}

fn minimum_float(path: &str, data: f64, min: f64, exclusive: bool) -> Option<Error> {
    ((!exclusive && data < min) || (exclusive && data <= min)).then(|| {
        bound_error(
            Code::Min,
            path,
            go_float(min),
            exclusive,
            Num::Float(data).value(),
        )
    })
}

/// `ExceedsMaximum…`/`ExceedsMinimum…`.
fn bound_error(code: Code, path: &str, bound: String, exclusive: bool, value: Value) -> Error {
    let relation = match (code, exclusive) {
        (Code::Max, false) => "less than or equal to",
        (Code::Max, true) => "less than",
        (_, false) => "greater than or equal to",
        (_, true) => "greater than",
    };
    validation(
        code,
        path,
        Some(value),
        format!("{path} in body should be {relation} {bound}"),
    )
}

fn multiple_of_native(path: &str, val: Num, factor: f64) -> Option<Error> {
    match val {
        Num::Int(i) => {
            let factor = go_f64_to_i64(factor);
            if factor <= 0 {
                return Some(must_be_positive(
                    path,
                    factor.to_string(),
                    Value::from(factor),
                ));
            }
            (i.wrapping_div(factor).wrapping_mul(factor) != i).then(|| {
                let msg = format!("{path} in body should be a multiple of {factor}");
                validation(Code::MultipleOf, path, Some(val.value()), msg)
            })
        }
        Num::Float(f) => multiple_of_float(path, f, factor),
    }
}

fn multiple_of_float(path: &str, data: f64, factor: f64) -> Option<Error> {
    if factor <= 0.0 {
        return Some(must_be_positive(
            path,
            go_float(factor),
            Num::Float(factor).value(),
        ));
    }
    let mult = if factor < 1.0 {
        1.0 / factor * data
    } else {
        data / factor
    };
    (!is_float64_json_integer(mult)).then(|| {
        let msg = format!(
            "{path} in body should be a multiple of {}",
            go_float(factor)
        );
        validation(Code::MultipleOf, path, Some(Num::Float(data).value()), msg)
    })
}

fn must_be_positive(path: &str, factor: String, value: Value) -> Error {
    let msg = format!("factor MultipleOf declared for {path} must be positive: {factor}");
    validation(Code::MultipleOfMustBePositive, path, Some(value), msg)
}

/// `schemaSliceValidator`.
fn validate_slice(s: &Schema, path: &str, items: &[Value], corr: Corr<'_>) -> Res {
    let mut res = Res::default();
    let size = items.len();
    let mut tuple_len = 0;
    match &s.items {
        Some(SchemaOrArray::One(item)) => {
            for (i, v) in items.iter().enumerate() {
                res.merge(validate_schema(
                    item,
                    &format!("{path}[{i}]"),
                    v,
                    corr.and_then(|c| c.index(i)),
                ));
            }
        }
        Some(SchemaOrArray::Tuple(tuple)) if !tuple.is_empty() => {
            tuple_len = tuple.len();
            for (i, (sub, v)) in tuple.iter().zip(items).enumerate() {
                res.merge(validate_schema(
                    sub,
                    &format!("{path}[{i}]"),
                    v,
                    corr.and_then(|c| c.index(i)),
                ));
            }
        }
        _ => {}
    }
    if let Some(additional) = &s.additional_items
        && tuple_len < size
    {
        if tuple_len > 0 && !additional.allows {
            res.add(Error::Plain(
                "array doesn't allow for additional items".into(),
            ));
        }
        if let Some(sub) = &additional.schema {
            // kube-openapi's bound is size-tuple_len+1, which indexes past
            // the end (a panic) without tuple items.
            let bound = size - tuple_len + 1;
            for (i, item) in items.iter().enumerate().take(bound).skip(tuple_len) {
                res.merge(validate_schema(
                    sub,
                    &format!("{path}[{i}]"),
                    item,
                    corr.and_then(|c| c.index(i)),
                ));
            }
        }
    }
    let size = size as i64;
    if let Some(min) = s.min_items
        && size < min
    {
        let msg = format!("{path} in body should have at least {min} items");
        res.add(with_valid(
            validation(Code::MinItems, path, Some(Value::from(size)), msg),
            min,
        ));
    }
    if let Some(max) = s.max_items
        && size > max
    {
        let msg = format!("{path} in body should have at most {max} items");
        res.add(with_valid(
            validation(Code::MaxItems, path, Some(Value::from(size)), msg),
            max,
        ));
    }
    if s.unique_items
        && items
            .iter()
            .enumerate()
            .any(|(i, v)| items[..i].iter().any(|u| go_deep_equal(v, u)))
    {
        let msg = format!("{path} in body shouldn't contain duplicates");
        res.add(validation(Code::Unique, path, None, msg));
    }
    res.inc();
    res
}

/// `basicCommonValidator`: `enum`.
fn validate_common(s: &Schema, path: &str, data: &Value) -> Res {
    if s.enum_values.is_empty() || s.enum_values.iter().any(|e| enum_matches(data, e)) {
        return Res::default();
    }
    let msg = format!(
        "{path} in body should be one of {}",
        go_sprint(&Value::Array(s.enum_values.clone()))
    );
    let value = (!data.is_null()).then(|| data.clone());
    Res::err(Error::Validation(Box::new(Validation {
        code: Code::Enum,
        name: path.to_string(),
        value,
        valid: None,
        values: s.enum_values.clone(),
        message: msg,
    })))
}

/// Whether `data`, converted to the enum value's Go type where reflect can
/// convert it, is deeply equal to it: int64 and float64 convert both ways
/// (float64 to int64 truncating), an int64 converts to the one-rune string
/// of its code point; null matches nothing.
fn enum_matches(data: &Value, e: &Value) -> bool {
    match (data, e) {
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Number(d), Value::Number(e)) => match (Num::of(d), Num::of(e)) {
            (Num::Int(a), Num::Int(b)) => a == b,
            (Num::Int(a), Num::Float(b)) => a as f64 == b,
            (Num::Float(a), Num::Int(b)) => go_f64_to_i64(a) == b,
            (Num::Float(a), Num::Float(b)) => a == b,
        },
        (Value::Number(d), Value::String(e)) => match Num::of(d) {
            Num::Int(i) => {
                let r = i32::try_from(i)
                    .ok()
                    .and_then(|r| char::from_u32(r as u32))
                    .unwrap_or('\u{fffd}');
                e.chars().eq(std::iter::once(r))
            }
            Num::Float(_) => false,
        },
        _ => go_deep_equal(data, e),
    }
}

/// `reflect.DeepEqual` of two decoded JSON values (int64 and float64 never
/// equal).
fn go_deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => match (Num::of(x), Num::of(y)) {
            (Num::Int(x), Num::Int(y)) => x == y,
            (Num::Float(x), Num::Float(y)) => x == y,
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| go_deep_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| go_deep_equal(v, w)))
        }
        _ => false,
    }
}

fn sorted_keys(obj: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = obj.keys().collect();
    keys.sort();
    keys
}

/// `objectValidator`.
fn validate_object(s: &Schema, path: &str, obj: &Map<String, Value>, corr: Corr<'_>) -> Res {
    let mut res = Res::default();
    let n = obj.len() as i64;
    if let Some(min) = s.min_properties
        && n < min
    {
        let msg = format!("{path} in body should have at least {min} properties");
        res.add(with_valid(
            validation(Code::TooFewProperties, path, Some(Value::from(n)), msg),
            min,
        ));
    }
    if let Some(max) = s.max_properties
        && n > max
    {
        let msg = format!("{path} in body should have at most {max} properties");
        res.add(with_valid(
            validation(Code::TooManyProperties, path, Some(Value::from(n)), msg),
            max,
        ));
    }
    let keys = sorted_keys(obj);
    let forbid_others = s.additional_properties.as_ref().is_some_and(|a| !a.allows);
    if forbid_others {
        for k in &keys {
            let matched = s
                .pattern_properties
                .keys()
                .any(|p| go_regex(p).is_ok_and(|re| re.is_match(k)));
            if !s.properties.contains_key(*k) && !matched {
                let msg = format!("{path}.{k} in body is a forbidden property");
                res.add(validation(
                    Code::UnallowedProperty,
                    path,
                    Some(Value::String((*k).clone())),
                    msg,
                ));
            }
        }
    } else {
        for k in &keys {
            let regular = s.properties.contains_key(*k);
            let (matched, _) = validate_pattern_properties(s, path, k, &obj[*k], &mut res, corr);
            if !(regular || matched)
                && let Some(sub) = s
                    .additional_properties
                    .as_ref()
                    .and_then(|a| a.schema.as_ref())
            {
                res.merge(validate_schema(
                    sub,
                    &format!("{path}.{k}"),
                    &obj[*k],
                    field(corr, path, k),
                ));
            }
        }
    }
    for (name, sub) in &s.properties {
        if let Some(v) = obj.get(name) {
            let child = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            res.merge(validate_schema(sub, &child, v, field(corr, path, name)));
        }
    }
    for k in &s.required {
        if !obj.contains_key(k) {
            let name = format!("{path}.{k}");
            let msg = format!("{name} in body is required");
            res.add(validation(Code::Required, &name, None, msg));
        }
    }
    for k in &keys {
        let regular = s.properties.contains_key(*k);
        let (matched, patterns) = validate_pattern_properties(s, path, k, &obj[*k], &mut res, corr);
        if !regular && matched {
            for p in patterns {
                res.merge(validate_schema(
                    &s.pattern_properties[p],
                    &format!("{path}.{k}"),
                    &obj[*k],
                    field(corr, path, k),
                ));
            }
        }
    }
    res
}

/// `validatePatternProperty`: validates `value` against every pattern
/// property matching `key` into `res`; whether one matched, and which.
fn validate_pattern_properties<'s>(
    s: &'s Schema,
    path: &str,
    key: &str,
    value: &Value,
    res: &mut Res,
    corr: Corr<'_>,
) -> (bool, Vec<&'s String>) {
    let mut patterns = Vec::new();
    for (p, sub) in &s.pattern_properties {
        if go_regex(p).is_ok_and(|re| re.is_match(key)) {
            patterns.push(p);
            res.merge(validate_schema(
                sub,
                &format!("{path}.{key}"),
                value,
                field(corr, path, key),
            ));
        }
    }
    (!patterns.is_empty(), patterns)
}

/// `kubeOpenAPIResultToFieldErrors` with the field path `prefix` (`""`
/// for the apiserver's nil path).
fn to_field_errors(errors: Vec<Error>, prefix: &str) -> Vec<FieldError> {
    let root = if prefix.is_empty() {
        "<nil>".to_string()
    } else {
        prefix.to_string()
    };
    let child = |name: &str| -> String {
        if name.is_empty() || name == "." {
            return root.clone();
        }
        let name = name.strip_prefix('.').unwrap_or(name);
        if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}.{name}")
        }
    };
    let or_empty = |v: Option<Value>| Some(v.unwrap_or_else(|| Value::String(String::new())));
    errors
        .into_iter()
        .map(|e| match e {
            Error::Plain(msg) => {
                FieldError::invalid(root.clone(), Value::String(String::new()), msg)
            }
            Error::Validation(v) => {
                let path = child(&v.name);
                match v.code {
                    Code::Required => FieldError::required(path, ""),
                    Code::Enum => {
                        let values: Vec<String> = v
                            .values
                            .iter()
                            .map(|x| match x {
                                Value::String(s) => go_quote(s),
                                other => go_quote(&go_json(other)),
                            })
                            .collect();
                        let detail = if values.is_empty() {
                            String::new()
                        } else {
                            format!("supported values: {}", values.join(", "))
                        };
                        let value = Some(v.value.unwrap_or(Value::Null));
                        FieldError::new(ErrorType::NotSupported, path, value, detail)
                    }
                    Code::TooLong => {
                        let max = v.valid.unwrap_or(-1);
                        let detail = match max {
                            1 => "may not be more than 1 byte".to_string(),
                            m if m >= 0 => format!("may not be more than {m} bytes"),
                            _ => "value is too long".to_string(),
                        };
                        FieldError::new(ErrorType::TooLong, path, None, detail)
                    }
                    Code::MaxItems | Code::TooManyProperties => {
                        let actual = v.value.as_ref().and_then(Value::as_i64).unwrap_or(-1);
                        let max = v.valid.unwrap_or(-1);
                        let detail = match max {
                            1 => "must have at most 1 item".to_string(),
                            m if m >= 0 => format!("must have at most {m} items"),
                            _ => "has too many items".to_string(),
                        };
                        let value = (actual >= 0).then(|| Value::from(actual));
                        FieldError::new(ErrorType::TooMany, path, value, detail)
                    }
                    Code::InvalidType => {
                        FieldError::new(ErrorType::TypeInvalid, path, or_empty(v.value), v.message)
                    }
                    _ => FieldError::new(ErrorType::Invalid, path, or_empty(v.value), v.message),
                }
            }
        })
        .collect()
}

/// swag's `IsFloat64AJSONInteger`: an integer within ±(2^53-1), or a
/// float within a relative 1e-9 of its truncation.
fn is_float64_json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if f.is_nan() || f.is_infinite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    let fa = f.abs();
    let g = go_f64_to_u64(f) as f64;
    let ga = g.abs();
    let diff = (f - g).abs();
    if f == g || f == go_f64_to_i64(f) as f64 || f == go_f64_to_u64(f) as f64 {
        return true;
    }
    let smallest = f64::from_bits(1);
    if f == 0.0 || g == 0.0 || diff < smallest {
        return diff < 1e-9 * smallest;
    }
    diff / (fa + ga).min(f64::MAX) < 1e-9
}

/// Go's `int64(f)` on amd64: truncation, and the smallest int64 for NaN
/// and values out of range.
fn go_f64_to_i64(f: f64) -> i64 {
    if f.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// Go's `uint64(f)` on amd64 (negative values wrap through int64).
fn go_f64_to_u64(f: f64) -> u64 {
    const CUTOFF: f64 = 9_223_372_036_854_775_808.0;
    if f < CUTOFF {
        go_f64_to_i64(f) as u64
    } else {
        go_f64_to_i64(f - CUTOFF) as u64 | (1 << 63)
    }
}

/// A decoded JSON value as Go's `%v` prints it: strings bare, `<nil>`,
/// `[a b]`, `map[k:v]` with sorted keys.
fn go_sprint(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match Num::of(n) {
            Num::Int(i) => i.to_string(),
            Num::Float(f) => go_float(f),
        },
        Value::String(s) => s.clone(),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(go_sprint).collect::<Vec<_>>().join(" ")
        ),
        Value::Object(o) => {
            let members: Vec<String> = sorted_keys(o)
                .into_iter()
                .map(|k| format!("{k}:{}", go_sprint(&o[k])))
                .collect();
            format!("map[{}]", members.join(" "))
        }
    }
}

/// Go's `fmt.Sprintf(format)` with no arguments (`doPrintf`): `%%` is
/// `%`, a verb `%!v(MISSING)` (`%!v(BADINDEX)` after an argument index),
/// a `*` width or precision `%!(BADWIDTH)`/`%!(BADPREC)`, a width beyond
/// 10^6 or a `%` at the end `%!(NOVERB)`, which ends the text.
fn go_sprintf_no_args(format: &str) -> String {
    let f = format.as_bytes();
    let end = f.len();
    let mut out = String::new();
    let parsenum = |i: usize| parsenum_in(f, i, end);
    // `argNumber` with no arguments: (index after it, found, good).
    let arg_number = |i: usize| -> (usize, bool, bool) {
        if i >= end || f[i] != b'[' {
            return (i, false, true);
        }
        let rest = &f[i..];
        if rest.len() < 3 {
            return (i + 1, false, false);
        }
        for j in 1..rest.len() {
            if rest[j] == b']' {
                let (ok, newi) = parsenum_in(rest, 1, j);
                return (i + j + 1, ok && newi == j, false);
            }
        }
        (i + 1, false, false)
    };
    let mut i = 0;
    while i < end {
        let mut good = true;
        let last = i;
        while i < end && f[i] != b'%' {
            i += 1;
        }
        out.push_str(&format[last..i]);
        if i >= end {
            break;
        }
        i += 1;
        while i < end && matches!(f[i], b'#' | b'0' | b'+' | b'-' | b' ') {
            i += 1;
        }
        let (ni, mut after_index, g) = arg_number(i);
        i = ni;
        good &= g;
        if i < end && f[i] == b'*' {
            i += 1;
            out.push_str("%!(BADWIDTH)");
            after_index = false;
        } else {
            let (present, ni) = parsenum(i);
            i = ni;
            if after_index && present {
                good = false;
            }
        }
        if i + 1 < end && f[i] == b'.' {
            i += 1;
            if after_index {
                good = false;
            }
            let (ni, found, g) = arg_number(i);
            i = ni;
            after_index = found;
            good &= g;
            if i < end && f[i] == b'*' {
                i += 1;
                out.push_str("%!(BADPREC)");
                after_index = false;
            } else {
                i = parsenum(i).1;
            }
        }
        if !after_index {
            let (ni, _, g) = arg_number(i);
            i = ni;
            good &= g;
        }
        if i >= end {
            out.push_str("%!(NOVERB)");
            break;
        }
        let verb = format[i..].chars().next().unwrap_or('\u{fffd}');
        i += verb.len_utf8();
        if verb == '%' {
            out.push('%');
        } else if !good {
            out.push_str(&format!("%!{verb}(BADINDEX)"));
        } else {
            out.push_str(&format!("%!{verb}(MISSING)"));
        }
    }
    out
}

/// `parsenum(s, start, end)`: whether there was a number, and the index
/// after it (`end` when it passes 10^6).
fn parsenum_in(s: &[u8], start: usize, end: usize) -> (bool, usize) {
    let (mut num, mut isnum, mut i) = (0i64, false, start);
    while i < end && s[i].is_ascii_digit() {
        if num > 1_000_000 {
            return (false, end);
        }
        num = num * 10 + i64::from(s[i] - b'0');
        isnum = true;
        i += 1;
    }
    (isnum, i)
}

/// A pattern compiled with Go's `regexp` semantics (cached).
fn go_regex(pattern: &str) -> Result<Regex, String> {
    static CACHE: OnceLock<Mutex<HashMap<String, Result<Regex, String>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(pattern.to_string())
        .or_insert_with(|| {
            Regex::new(&translate_go_regex(pattern)).map_err(|e| {
                format!(
                    "error parsing regexp: {}",
                    e.to_string().lines().last().unwrap_or("")
                )
            })
        })
        .clone()
}

/// Go RE2 syntax rewritten for the `regex` crate: Perl classes and word
/// boundaries ASCII as in Go, `\Q…\E` quoted, `\<` and `\>` literal, a
/// brace that is not a repetition literal, and inside classes a `[` that
/// opens no POSIX class, `&`, `~` and a second `-` literal (the crate reads
/// nested classes and set operations there).
fn translate_go_regex(p: &str) -> String {
    let c: Vec<char> = p.chars().collect();
    let mut out = String::with_capacity(p.len() + 16);
    let mut i = 0;
    let mut class = false;
    let mut class_start = false;
    let mut last_dash = false;
    let push_literal = |out: &mut String, ch: char| {
        if ch.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(ch);
    };
    while i < c.len() {
        let ch = c[i];
        let was_start = class_start;
        class_start = false;
        let dash = last_dash;
        last_dash = false;
        if ch == '\\' && i + 1 < c.len() {
            let n = c[i + 1];
            i += 2;
            match n {
                'd' => out.push_str(if class { "0-9" } else { "[0-9]" }),
                'D' => out.push_str("[^0-9]"),
                'w' => out.push_str(if class { "0-9A-Za-z_" } else { "[0-9A-Za-z_]" }),
                'W' => out.push_str("[^0-9A-Za-z_]"),
                's' => out.push_str(if class {
                    r"\t\n\x0C\r "
                } else {
                    r"[\t\n\x0C\r ]"
                }),
                'S' => out.push_str(r"[^\t\n\x0C\r ]"),
                'b' if !class => out.push_str(r"(?-u:\b)"),
                'B' if !class => out.push_str(r"(?-u:\B)"),
                'Q' => {
                    while i < c.len() {
                        if c[i] == '\\' && c.get(i + 1) == Some(&'E') {
                            i += 2;
                            break;
                        }
                        push_literal(&mut out, c[i]);
                        i += 1;
                    }
                }
                'p' | 'P' => {
                    out.push('\\');
                    out.push(n);
                    if c.get(i) == Some(&'{') {
                        while i < c.len() {
                            out.push(c[i]);
                            i += 1;
                            if c[i - 1] == '}' {
                                break;
                            }
                        }
                    } else if i < c.len() {
                        out.push(c[i]);
                        i += 1;
                    }
                }
                '<' | '>' => out.push(n),
                _ => {
                    out.push('\\');
                    out.push(n);
                }
            }
            continue;
        }
        i += 1;
        if class {
            match ch {
                ']' if !was_start => {
                    class = false;
                    out.push(']');
                }
                '[' if c.get(i) == Some(&':') => {
                    let rest: String = c[i..].iter().collect();
                    match rest.find(":]") {
                        Some(end) => {
                            out.push('[');
                            out.push_str(&rest[..end + 2]);
                            i += rest[..end + 2].chars().count();
                        }
                        None => out.push_str("\\["),
                    }
                }
                '[' | '&' | '~' => {
                    out.push('\\');
                    out.push(ch);
                }
                '-' if dash => out.push_str("\\-"),
                '-' => {
                    out.push('-');
                    last_dash = true;
                }
                _ => out.push(ch),
            }
        } else {
            match ch {
                '[' => {
                    class = true;
                    class_start = true;
                    out.push('[');
                    if c.get(i) == Some(&'^') {
                        out.push('^');
                        i += 1;
                    }
                }
                '{' if !is_go_repeat(&c[i..]) => out.push_str("\\{"),
                _ => out.push(ch),
            }
        }
    }
    out
}

/// Whether the text after a `{` makes it a Go repetition: `n}`, `n,}` or
/// `n,m}`.
fn is_go_repeat(rest: &[char]) -> bool {
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while rest.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return false;
    }
    if rest.get(i) == Some(&',') {
        i += 1;
        digits(&mut i);
    }
    rest.get(i) == Some(&'}')
}

#[cfg(test)]
mod tests;
