//! CEL values as the apiserver's interpreter sees them: a custom
//! resource's JSON read through its structural schema as
//! `UnstructuredToVal` (k8s.io/apiserver `pkg/cel/common`) reads it —
//! objects with only their present fields, `additionalProperties` maps,
//! lists marked with their `x-kubernetes-list-type`, `number`s always
//! doubles, int-or-string either — and cel-go's equality of them.
//! `byte`, `duration`, `date` and `date-time` strings as bytes, durations
//! and timestamps. What kubegen cannot represent yet (formatted strings
//! in the forms it does not read — offsets, strfmt's duration words,
//! invalid ones, whose errors are Go's parse errors — objects without
//! properties, the root's generated name) becomes [`Val::Unsupported`],
//! an error on use.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::Value;

use super::EvalError;

/// How a list compares and concatenates: `x-kubernetes-list-type`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListKind {
    /// A list the expression built (a literal, a macro's result).
    Plain,
    /// A list of the object without a list type, or `atomic`.
    Atomic,
    /// `set`: order-insensitive equality, deduplicating concatenation.
    Set,
    /// `map`: equality and concatenation by key, with its
    /// `x-kubernetes-list-map-keys`.
    Map(Rc<[String]>),
}

/// What an object's JSON holds besides its present fields, which the
/// apiserver's equality and cost read.
#[derive(Clone, Debug, Default)]
pub struct Shape {
    /// Its declared fields that are null (read as absent), escaped.
    pub nulls: Vec<String>,
    /// The fields its schema does not declare (preserved unknown
    /// fields), as JSON.
    pub unknown: Vec<(String, Value)>,
    /// How many entries it has (its size for the runtime cost).
    pub size: usize,
}

/// A CEL value.
#[derive(Clone, Debug)]
pub enum Val {
    /// `null`
    Null,
    /// `bool`
    Bool(bool),
    /// `int`
    Int(i64),
    /// `uint`
    Uint(u64),
    /// `double`
    Double(f64),
    /// `string`
    String(Rc<str>),
    /// `bytes`
    Bytes(Rc<[u8]>),
    /// `list(T)`, with its list type.
    List(Rc<Vec<Val>>, ListKind),
    /// `map(K, V)`, entries in key order for string keys.
    Map(Rc<Vec<(Val, Val)>>),
    /// An object a schema declares: its present non-null fields by
    /// escaped name, and the rest of its JSON object.
    Object(Rc<BTreeMap<String, Val>>, Rc<Shape>),
    /// `google.protobuf.Duration`, in nanoseconds.
    Duration(i128),
    /// `google.protobuf.Timestamp`, in nanoseconds since the Unix epoch.
    Timestamp(i128),
    /// A type as a value, by its cel-go name (`int`, `list`, …).
    Type(Rc<str>),
    /// `optional_type(T)`: a value or none.
    Optional(Option<Rc<Val>>),
    /// `net.IP`: an address (IPv4 as IPv4-mapped) and whether it is
    /// IPv4.
    Ip([u8; 16], bool),
    /// `net.CIDR`: a prefix's address (as written), whether it is IPv4,
    /// and its length.
    Cidr([u8; 16], bool, u8),
    /// `kubernetes.Semver`: a version.
    Semver(Rc<super::semver::Version>),
    /// `kubernetes.Quantity`: a shared quantity, and whether the value is
    /// a `*Quantity` (what `add` and `sub` return).
    Quantity(super::opaque::Shared, bool),
    /// `kubernetes.URL`: a parsed URL.
    Url(Rc<super::opaque::Url>),
    /// `kubernetes.NamedFormat`: one of the format library's formats.
    Format(&'static super::opaque::Format),
    /// Data the apiserver cannot read as its schema says (an invalid
    /// formatted string): an error on use, worded as the apiserver's.
    Error(Rc<str>),
    /// A value kubegen cannot represent yet; using it is unsupported.
    Unsupported(Rc<str>),
}

impl Val {
    /// A string value.
    pub fn str(s: &str) -> Val {
        Val::String(Rc::from(s))
    }

    /// A plain list.
    pub fn list(items: Vec<Val>) -> Val {
        Val::List(Rc::new(items), ListKind::Plain)
    }

    /// The cel-go name of the value's type (`type(v)`).
    pub fn type_name(&self) -> Result<&'static str, EvalError> {
        Ok(match self {
            Val::Null => "null_type",
            Val::Bool(_) => "bool",
            Val::Int(_) => "int",
            Val::Uint(_) => "uint",
            Val::Double(_) => "double",
            Val::String(_) => "string",
            Val::Bytes(_) => "bytes",
            Val::List(..) => "list",
            Val::Map(_) => "map",
            Val::Duration(_) => "google.protobuf.Duration",
            Val::Timestamp(_) => "google.protobuf.Timestamp",
            Val::Type(_) => "type",
            Val::Optional(_) => "optional_type",
            Val::Ip(..) => "net.IP",
            Val::Cidr(..) => "net.CIDR",
            Val::Semver(_) => "kubernetes.Semver",
            Val::Quantity(..) => "kubernetes.Quantity",
            Val::Url(_) => "kubernetes.URL",
            Val::Format(_) => "kubernetes.NamedFormat",
            Val::Object(..) => return Err(EvalError::unsupported("the type of an object")),
            Val::Unsupported(why) => return Err(EvalError::Unsupported(why.to_string())),
            Val::Error(e) => return Err(EvalError::Error(e.to_string())),
        })
    }

    /// `self` as [`EvalError::Unsupported`] when it is not representable.
    pub fn usable(self) -> Result<Val, EvalError> {
        match self {
            Val::Unsupported(why) => Err(EvalError::Unsupported(why.to_string())),
            Val::Error(e) => Err(EvalError::Error(e.to_string())),
            v => Ok(v),
        }
    }

    /// `JSON` read without a schema, as cel-go's default adapter reads
    /// decoded JSON (Go's `NativeToValue`): what `oldSelf.value()` of an
    /// `optionalOldSelf` rule holds (the apiserver unwraps the optional
    /// to the raw object).
    pub fn from_plain_json(json: &Value) -> Val {
        match json {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Val::Int(i),
                None => Val::Double(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => Val::str(s),
            Value::Array(items) => Val::list(items.iter().map(Val::from_plain_json).collect()),
            Value::Object(m) => Val::Map(Rc::new(
                m.iter()
                    .map(|(k, v)| (Val::str(k), Val::from_plain_json(v)))
                    .collect(),
            )),
        }
    }

    /// `JSON` read through `schema` as the apiserver reads it.
    pub fn from_json(json: &Value, schema: &Value) -> Val {
        let unsupported = |why: &str| Val::Unsupported(Rc::from(why));
        let flag = |key: &str| schema.get(key).and_then(Value::as_bool).unwrap_or(false);
        let error = |message: String| Val::Error(Rc::from(message));
        if json.is_null() {
            return if flag("nullable") {
                Val::Null
            } else {
                error("invalid data, got null for schema with nullable=false".into())
            };
        }
        if flag("x-kubernetes-int-or-string") {
            return match json {
                Value::String(s) => Val::str(s),
                Value::Number(n) if n.is_i64() => Val::Int(n.as_i64().unwrap_or_default()),
                _ => error(
                    "invalid data, expected XIntOrString value to be either a string or integer"
                        .into(),
                ),
            };
        }
        if flag("x-kubernetes-embedded-resource") {
            let mut plain = with_type_and_object_meta(schema, false);
            if let Some(m) = plain.as_object_mut() {
                m.remove("x-kubernetes-embedded-resource");
            }
            return Val::from_json(json, &plain);
        }
        if flag(GENERATED_NAME) && json.get("name").is_none() && json.get("generateName").is_some()
        {
            return unsupported("the name the apiserver generates");
        }
        match (schema.get("type").and_then(Value::as_str), json) {
            (Some("object"), Value::Object(m)) => {
                if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                    let mut fields = BTreeMap::new();
                    let mut shape = Shape {
                        size: m.len(),
                        unknown: m
                            .iter()
                            .filter(|(k, _)| !props.contains_key(*k))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                        ..Shape::default()
                    };
                    for (k, v) in m {
                        let (Some(sub), Some(name)) = (props.get(k), crate::schema::cel::escape(k))
                        else {
                            continue;
                        };
                        if v.is_null() {
                            // The apiserver reads a null field as absent.
                            shape.nulls.push(name);
                        } else {
                            fields.insert(name, Val::from_json(v, sub));
                        }
                    }
                    Val::Object(Rc::new(fields), Rc::new(shape))
                } else if let Some(values) =
                    schema.get("additionalProperties").filter(|v| v.is_object())
                {
                    Val::Map(Rc::new(
                        m.iter()
                            .map(|(k, v)| (Val::str(k), Val::from_json(v, values)))
                            .collect(),
                    ))
                } else {
                    unsupported("an object without properties")
                }
            }
            (Some("array"), Value::Array(items)) => {
                let Some(item_schema) = schema.get("items") else {
                    return unsupported("a list without items");
                };
                let kind = match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
                    None | Some("atomic") => ListKind::Atomic,
                    Some("set") => ListKind::Set,
                    Some("map") => ListKind::Map(
                        schema
                            .get("x-kubernetes-list-map-keys")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect(),
                    ),
                    Some(_) => return unsupported("an unknown list type"),
                };
                Val::List(
                    Rc::new(
                        items
                            .iter()
                            .map(|v| Val::from_json(v, item_schema))
                            .collect(),
                    ),
                    kind,
                )
            }
            (Some("string"), Value::String(s)) => {
                match schema.get("format").and_then(Value::as_str) {
                    // strfmt's `ParseDateTime` reads "" as the Unix epoch.
                    Some("date-time") if s.is_empty() => Val::Timestamp(0),
                    Some("date-time") => date_time(s).map_or_else(
                        || {
                            if year_unparsable(s) {
                                Val::Error(Rc::from(format!(
                                    "Invalid date-time formatted string {s}: parsing time \"{s}\" as \"2006-01-02T15:04:05\": cannot parse \"{s}\" as \"2006\""
                                )))
                            } else {
                                unsupported("a date-time kubegen does not read")
                            }
                        },
                        Val::Timestamp,
                    ),
                    Some("date") => date(s).map_or_else(
                        || unsupported("a date kubegen does not read"),
                        |days| Val::Timestamp(i128::from(days) * 86_400 * 1_000_000_000),
                    ),
                    // strfmt tries Go's `time.ParseDuration` first.
                    Some("duration") => crate::go::time::duration(s).map_or_else(
                        || {
                            if s.bytes().any(|c| c.is_ascii_digit()) {
                                unsupported("a duration kubegen does not read")
                            } else {
                                // No `<digits><unit>` for strfmt's words either.
                                Val::Error(Rc::from(format!(
                                    "Invalid duration {s}: unable to parse {s} as duration"
                                )))
                            }
                        },
                        |n| Val::Duration(i128::from(n)),
                    ),
                    Some("byte") => base64(s).map_or_else(
                        || unsupported("base64 kubegen does not read"),
                        |b| Val::Bytes(Rc::from(b)),
                    ),
                    _ => Val::str(s),
                }
            }
            (Some("number"), Value::Number(n)) => match n.as_i64() {
                Some(i) => Val::Double(i as f64),
                None => n
                    .as_f64()
                    .map_or_else(|| unsupported("a number"), Val::Double),
            },
            (Some("integer"), Value::Number(n)) if n.is_i64() => {
                Val::Int(n.as_i64().unwrap_or_default())
            }
            (Some("boolean"), Value::Bool(b)) => Val::Bool(*b),
            (Some("object"), _) => error(
                "invalid data, expected a map for the provided schema with type=object".into(),
            ),
            (Some("array"), _) => error(
                "invalid data, expected an array for the provided schema with type=array".into(),
            ),
            (Some("string"), other) => error(format!(
                "invalid data, expected string, got {}",
                crate::go::fmt::go_type(other)
            )),
            (Some("number"), other) => error(format!(
                "invalid data, expected float, got {}",
                crate::go::fmt::go_type(other)
            )),
            (Some("integer"), other) => error(format!(
                "invalid data, expected int, got {}",
                crate::go::fmt::go_type(other)
            )),
            (Some("boolean"), other) => error(format!(
                "invalid data, expected bool, got {}",
                crate::go::fmt::go_type(other)
            )),
            _ => unsupported("data of a schema without a type"),
        }
    }
}

/// Days from the epoch of `YYYY-MM-DD` (a valid date of years 1 to
/// 9999), as `time.Parse("2006-01-02", …)` reads it.
fn date(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = &s[r];
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if y < 1 || !(1..=12).contains(&m) || d < 1 || d > crate::go::time::days_in_month(y, m) {
        return None;
    }
    Some(crate::go::time::days_from_civil(y, m, d))
}

/// Whether Go's `time.Parse` fails at the year (no four digits first),
/// so that strfmt's last error is its last layout's at the year.
fn year_unparsable(s: &str) -> bool {
    // Go quotes the text in its message: plain text only.
    let plain = s
        .bytes()
        .all(|c| (b' '..=b'~').contains(&c) && c != b'"' && c != b'\\');
    !s.is_empty() && plain && (s.len() < 4 || !s.as_bytes()[..4].iter().all(u8::is_ascii_digit))
}

/// Nanoseconds from the epoch of `YYYY-MM-DDTHH:MM:SS[.fraction]` with
/// `Z` or no zone (strfmt's `ISO8601LocalTime`, read as UTC): the UTC
/// forms of the date-times strfmt parses (others: `None`).
fn date_time(s: &str) -> Option<i128> {
    let rest = s.strip_suffix('Z').unwrap_or(s);
    if rest.len() < 19 || !rest.is_char_boundary(19) || rest.as_bytes()[10] != b'T' {
        return None;
    }
    let days = date(rest.get(..10)?)?;
    let clock = &rest[11..19];
    let c = clock.as_bytes();
    if c[2] != b':' || c[5] != b':' {
        return None;
    }
    let part = |r: std::ops::Range<usize>| -> Option<i64> {
        let p = clock.get(r)?;
        p.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| p.parse().ok())
            .flatten()
    };
    let (h, m, sec) = (part(0..2)?, part(3..5)?, part(6..8)?);
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    let mut nanos: i128 = 0;
    let frac = &rest[19..];
    if !frac.is_empty() {
        let digits = frac.strip_prefix('.')?;
        if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        nanos = format!("{digits:0<9}").parse().ok()?;
    }
    let secs = i128::from(days) * 86_400 + i128::from(h * 3_600 + m * 60 + sec);
    Some(secs * 1_000_000_000 + nanos)
}

/// Go's `base64.URLEncoding.Decode` (what strfmt's `Base64` reads, though
/// the `byte` format validates the standard alphabet) of padded text
/// without line breaks.
fn base64(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(4) {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        })
    };
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (i, chunk) in b.chunks(4).enumerate() {
        let last = i + 1 == b.len() / 4;
        let pad = chunk.iter().rev().take_while(|c| **c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for (j, c) in chunk.iter().enumerate() {
            n <<= 6;
            if j < 4 - pad {
                n |= value(*c)?;
            }
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..4 - pad]);
    }
    Some(out)
}

/// Marks the root's `metadata`, whose `name` the apiserver generates from
/// `generateName` before rules run (kubegen does not).
const GENERATED_NAME: &str = "x-kubegen-generated-name";

/// `model.WithTypeAndObjectMeta`: a resource's schema with `kind`,
/// `apiVersion` and `metadata` (`name`, `generateName`) as rules see
/// them, unless it declares them so itself; `root` marks the metadata
/// whose name the apiserver may generate.
pub fn with_type_and_object_meta(schema: &Value, root: bool) -> Value {
    let ty = |v: Option<&Value>| {
        v.and_then(|v| v.get("type"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let props = schema.get("properties");
    let prop = |k: &str| props.and_then(|p| p.get(k));
    let meta = |k: &str| {
        prop("metadata")
            .and_then(|m| m.get("properties"))
            .and_then(|p| p.get(k))
    };
    let declared = ty(prop("kind")).as_deref() == Some("string")
        && ty(prop("apiVersion")).as_deref() == Some("string")
        && ty(prop("metadata")).as_deref() == Some("object")
        && ty(meta("name")).as_deref() == Some("string")
        && ty(meta("generateName")).as_deref() == Some("string");
    let mut out = schema.clone();
    if !declared && let Some(m) = out.as_object_mut() {
        let props = m
            .entry("properties")
            .or_insert_with(|| serde_json::json!({}));
        if let Some(p) = props.as_object_mut() {
            p.insert("kind".into(), serde_json::json!({"type": "string"}));
            p.insert("apiVersion".into(), serde_json::json!({"type": "string"}));
            p.insert(
                "metadata".into(),
                serde_json::json!({"type": "object", "properties": {
                    "name": {"type": "string"}, "generateName": {"type": "string"}}}),
            );
        }
    }
    if root
        && let Some(m) = out
            .pointer_mut("/properties/metadata")
            .and_then(Value::as_object_mut)
    {
        m.insert(GENERATED_NAME.into(), Value::Bool(true));
    }
    out
}

/// An element's key in a `map` list, as `toMapKey` makes it: its key
/// fields' scalar values (a missing one as null); `None` for an element
/// that is not an object of the object (unkeyable: equal to nothing).
fn map_key(v: &Val, keys: &[String]) -> Result<Option<Vec<Val>>, EvalError> {
    let field = |k: &str| -> Option<Val> {
        match v {
            Val::Object(fields, _) => {
                let name = crate::schema::cel::escape(k).unwrap_or_else(|| k.to_string());
                fields.get(&name).cloned()
            }
            // A plain map (`oldSelf` of an `optionalOldSelf` rule): its
            // raw entries.
            Val::Map(entries) => entries
                .iter()
                .find(|(key, _)| matches!(key, Val::String(s) if &**s == k))
                .map(|(_, v)| v.clone()),
            _ => None,
        }
    };
    match v {
        Val::Object(..) | Val::Map(_) => {}
        Val::Unsupported(_) => {
            return Err(EvalError::unsupported("a map list element of this kind"));
        }
        _ => return Ok(None),
    }
    let mut out = Vec::with_capacity(keys.len());
    for k in keys {
        let part = match field(k) {
            None | Some(Val::Null) => Val::Null,
            Some(s @ (Val::String(_) | Val::Int(_) | Val::Double(_) | Val::Bool(_))) => s,
            Some(_) => {
                return Err(EvalError::unsupported(
                    "a map list key that is not a scalar its schema allows",
                ));
            }
        };
        out.push(part);
    }
    Ok(Some(out))
}

/// Whether two map list keys are the same: Go's `==` on the decoded
/// scalars (an int64 and a float64 differ).
fn same_key(a: &[Val], b: &[Val]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Val::Null, Val::Null) => true,
            _ => go_scalar_eq(x, y) == Some(true),
        })
}

/// Go's `==` on two decoded scalars (strings, int64s, float64s, bools):
/// the same type and value; `None` when either is no such scalar.
pub(super) fn go_scalar_eq(a: &Val, b: &Val) -> Option<bool> {
    Some(match (a, b) {
        (Val::String(x), Val::String(y)) => x == y,
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Double(x), Val::Double(y)) => x == y,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (
            Val::String(_) | Val::Int(_) | Val::Double(_) | Val::Bool(_),
            Val::String(_) | Val::Int(_) | Val::Double(_) | Val::Bool(_),
        ) => false,
        _ => return None,
    })
}

/// cel-go's `Equal`: numbers across types by value, aggregates element by
/// element, values of different types unequal.
pub fn equal(a: &Val, b: &Val) -> Result<bool, EvalError> {
    match (a, b) {
        (Val::Unsupported(why), _) | (_, Val::Unsupported(why)) => {
            Err(EvalError::Unsupported(why.to_string()))
        }
        // `types.Equal`: null equals null only, before either's `Equal`.
        (Val::Null, _) | (_, Val::Null) => Ok(matches!((a, b), (Val::Null, Val::Null))),
        _ => same_as(a, b),
    }
}

/// `a.Equal(b)` as the Go value of `a` compares: what the object's
/// containers compare their elements with (no null shortcut; a container
/// of the object given anything but a container is `no such overload`).
fn same_as(a: &Val, b: &Val) -> Result<bool, EvalError> {
    Ok(match (a, b) {
        (Val::Unsupported(why), _) | (_, Val::Unsupported(why)) => {
            return Err(EvalError::Unsupported(why.to_string()));
        }
        (Val::Error(e), _) => return Err(EvalError::Error(e.to_string())),
        // Data the schema does not allow on the right: a value of the
        // object's maps and lists passes the error on (`unstructuredMap`
        // and `unstructuredList` `Equal`), any other is unequal to it.
        (Val::Object(..) | Val::Map(_), Val::Error(e)) => {
            return Err(EvalError::Error(e.to_string()));
        }
        (Val::List(_, kind), Val::Error(e)) if *kind != ListKind::Plain => {
            return Err(EvalError::Error(e.to_string()));
        }
        (_, Val::Error(_)) => false,
        (Val::Object(..) | Val::Map(_), other)
            if !matches!(other, Val::Object(..) | Val::Map(_)) =>
        {
            return Err(EvalError::err("no such overload"));
        }
        (Val::List(_, kind), other)
            if *kind != ListKind::Plain && !matches!(other, Val::List(..)) =>
        {
            return Err(EvalError::err("no such overload"));
        }
        (Val::Null, Val::Null) => true,
        // `Quantity.Equal`, `URL.Equal` (by `String()`, known here for one
        // text only) and `Format.Equal` (by name); anything else on the
        // right is no such overload.
        (Val::Quantity(x, _), Val::Quantity(y, false)) => x.borrow().same(&y.borrow())?,
        (Val::Url(x), Val::Url(y)) if x.raw == y.raw => true,
        (Val::Url(_), Val::Url(_)) => {
            return Err(EvalError::unsupported("comparing URLs of different texts"));
        }
        (Val::Format(x), Val::Format(y)) => x.name == y.name,
        (Val::Quantity(..) | Val::Url(_) | Val::Format(_), y) if !matches!(y, Val::Null) => {
            return Err(EvalError::Error("no such overload".into()));
        }
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::String(x), Val::String(y)) => x == y,
        (Val::Bytes(x), Val::Bytes(y)) => x == y,
        (Val::Duration(x), Val::Duration(y)) | (Val::Timestamp(x), Val::Timestamp(y)) => x == y,
        (Val::Type(x), Val::Type(y)) => x == y,
        (Val::Ip(x, a), Val::Ip(y, b)) => x == y && a == b,
        (Val::Cidr(x, a, m), Val::Cidr(y, b, n)) => x == y && a == b && m == n,
        (Val::Semver(x), Val::Semver(y)) => super::semver::compare(x, y) == Ordering::Equal,
        (
            Val::List(x, ListKind::Set),
            Val::List(y, ListKind::Plain | ListKind::Atomic | ListKind::Set),
        ) => {
            // `unstructuredSetList.Equal`: as many elements, each of the
            // other's in this set (Go values: same type and value).
            if x.len() != y.len() {
                return Ok(false);
            }
            for e in y.iter() {
                let mut found = false;
                for s in x.iter() {
                    // A scalar of the set is unequal to anything else.
                    found |= match (go_scalar_eq(s, s), go_scalar_eq(s, e)) {
                        (None, _) => {
                            return Err(EvalError::unsupported(
                                "a set element that is not a scalar its schema allows",
                            ));
                        }
                        (Some(_), eq) => eq.unwrap_or(false),
                    };
                }
                if !found {
                    return Ok(false);
                }
            }
            true
        }
        (Val::List(x, ListKind::Map(keys)), Val::List(y, _)) => {
            // `unstructuredMapList.Equal`: as many elements, each of the
            // other's found by its keys (the last of this list's with
            // them) and equal to it.
            if x.len() != y.len() {
                return Ok(false);
            }
            for v in y.iter() {
                let Some(key) = map_key(v, keys)? else {
                    return Ok(false);
                };
                let mut found = None;
                for e in x.iter() {
                    if map_key(e, keys)?.is_some_and(|k| same_key(&k, &key)) {
                        found = Some(e);
                    }
                }
                match found {
                    Some(e) if same_as(e, v)? => {}
                    _ => return Ok(false),
                }
            }
            true
        }
        (Val::List(_, ListKind::Set), Val::List(_, ListKind::Map(_))) => {
            return Err(EvalError::unsupported(
                "comparing a set list with a map list",
            ));
        }
        (Val::List(x, kind), Val::List(y, _)) => {
            if x.len() != y.len() {
                return Ok(false);
            }
            for (a, b) in x.iter().zip(y.iter()) {
                // A list the expression built compares as cel-go's
                // `baseList` (an element's error counts as equal); one of
                // the object as `unstructuredList` (the first element not
                // equal decides, false or an error).
                let differ = if *kind == ListKind::Plain {
                    unequal(a, b)?
                } else {
                    !same_as(a, b)?
                };
                if differ {
                    return Ok(false);
                }
            }
            true
        }
        (Val::Map(x), Val::Map(y)) => {
            if x.len() != y.len() {
                return Ok(false);
            }
            let pairs = x.iter().map(|(k, v)| {
                let other = y.iter().find_map(|(k2, v2)| match equal(k, k2) {
                    Ok(true) => Some(Ok(v2)),
                    Ok(false) => None,
                    Err(e) => Some(Err(e)),
                });
                (v, other.transpose())
            });
            return unordered_equal(pairs, false);
        }
        (Val::Object(x, xs), Val::Map(y)) => {
            // `unstructuredMap.Equal` with a plain map: a null field is
            // absent here, present (null) there.
            // An unknown field: `no such overload` (the other is no
            // `unstructuredMap`).
            let unknown = xs
                .unknown
                .iter()
                .map(|_| (&Val::Null, Err(EvalError::err("no such overload"))));
            let lookup = |k: &str| {
                y.iter()
                    .find(|(key, _)| matches!(key, Val::String(s) if &**s == k))
                    .map(|(_, v)| v)
            };
            if xs.size != y.len() {
                return Ok(false);
            }
            let null_differs = xs.nulls.iter().any(|k| lookup(k).is_some());
            return unordered_equal(
                x.iter().map(|(k, v)| (v, Ok(lookup(k)))).chain(unknown),
                null_differs,
            );
        }
        (Val::Map(x), Val::Object(y, ys)) => {
            // cel-go's `baseMap.Equal`: every key found and no value
            // unequal (an error counts as equal).
            if x.len() != ys.size {
                return Ok(false);
            }
            for (k, v) in x.iter() {
                let found = match k {
                    Val::String(k) => y.get(&**k),
                    _ => None,
                };
                match found {
                    Some(o) if !unequal(v, o)? => {}
                    _ => return Ok(false),
                }
            }
            true
        }
        (Val::Object(x, xs), Val::Object(y, ys)) => {
            // `unstructuredMap.Equal`: as many entries, then each of this
            // one's: a null one is absent, so equal to an absent or null;
            // an unknown one equal to the other's as JSON, if it has it.
            if xs.size != ys.size {
                return Ok(false);
            }
            let null_differs = xs.nulls.iter().any(|k| y.contains_key(k));
            let unknown_differs = xs
                .unknown
                .iter()
                .any(|(k, raw)| ys.unknown.iter().any(|(k2, other)| k2 == k && raw != other));
            return unordered_equal(
                x.iter().map(|(k, v)| (v, Ok(y.get(k)))),
                unknown_differs || null_differs,
            );
        }
        (Val::Optional(x), Val::Optional(y)) => match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => same_as(x, y)?,
            _ => false,
        },
        _ => match numeric_cmp(a, b) {
            Some(o) => o == Ordering::Equal,
            None => false,
        },
    })
}

/// `unstructuredMap.Equal` over `(value, the other's value for its key)`:
/// the first entry that is not equal decides, false or an error — in the
/// order Go visits the map, which is random, so where entries give both
/// the outcome is not one kubegen can know.
fn unordered_equal<'v>(
    pairs: impl Iterator<Item = (&'v Val, Result<Option<&'v Val>, EvalError>)>,
    already_unequal: bool,
) -> Result<bool, EvalError> {
    let (mut unequal, mut error) = (already_unequal, None);
    for (v, other) in pairs {
        let compared = match other {
            Err(e) => Err(e),
            Ok(None) => Ok(false),
            Ok(Some(o)) => same_as(v, o),
        };
        match compared {
            Ok(true) => {}
            Ok(false) => unequal = true,
            Err(e @ EvalError::Error(_)) => match &error {
                // Two different errors: which comes first is Go's
                // random order too.
                Some(first) if *first != e => unequal = true,
                _ => error = Some(e),
            },
            Err(e) => return Err(e),
        }
    }
    match (unequal, error) {
        (false, None) => Ok(true),
        (true, None) => Ok(false),
        (false, Some(e)) => Err(e),
        (true, Some(_)) => Err(EvalError::unsupported(
            "an equality whose outcome depends on the order Go visits a map in",
        )),
    }
}

/// Whether two elements of lists or values of maps make them unequal:
/// cel-go's list and map equality stop at `false` only, an element's
/// error counting as equal.
fn unequal(a: &Val, b: &Val) -> Result<bool, EvalError> {
    match equal(a, b) {
        Ok(e) => Ok(!e),
        Err(EvalError::Error(_)) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Numbers of any two numeric types compared by value (`None` for a NaN
/// or a non-number).
pub fn numeric_cmp(a: &Val, b: &Val) -> Option<Ordering> {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => Some(x.cmp(y)),
        (Val::Uint(x), Val::Uint(y)) => Some(x.cmp(y)),
        (Val::Double(x), Val::Double(y)) => x.partial_cmp(y),
        (Val::Int(x), Val::Uint(y)) => Some(if *x < 0 {
            Ordering::Less
        } else {
            (*x as u64).cmp(y)
        }),
        (Val::Uint(_), Val::Int(_)) => numeric_cmp(b, a).map(Ordering::reverse),
        (Val::Int(x), Val::Double(y)) => int_double(*x, *y),
        (Val::Double(_), Val::Int(_)) => numeric_cmp(b, a).map(Ordering::reverse),
        (Val::Uint(x), Val::Double(y)) => uint_double(*x, *y),
        (Val::Double(_), Val::Uint(_)) => numeric_cmp(b, a).map(Ordering::reverse),
        _ => None,
    }
}

/// cel-go's `compareIntDouble`.
fn int_double(i: i64, d: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < -9_223_372_036_854_775_808.0 {
        return Some(Ordering::Greater);
    }
    if d >= 9_223_372_036_854_775_808.0 {
        return Some(Ordering::Less);
    }
    (i as f64).partial_cmp(&d)
}

/// cel-go's `compareUintDouble`.
fn uint_double(u: u64, d: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < 0.0 {
        return Some(Ordering::Greater);
    }
    if d >= 18_446_744_073_709_551_616.0 {
        return Some(Ordering::Less);
    }
    (u as f64).partial_cmp(&d)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn json_reads_through_the_schema() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "number"}, "i": {"type": "integer"},
            "m": {"type": "object", "additionalProperties": {"type": "string"}},
            "s": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        }});
        let v = Val::from_json(
            &json!({"n": 2, "i": 3, "m": {"a": "b"}, "s": ["x"]}),
            &schema,
        );
        let Val::Object(fields, ..) = v else { panic!() };
        assert!(matches!(fields["n"], Val::Double(d) if d == 2.0));
        assert!(matches!(fields["i"], Val::Int(3)));
        assert!(matches!(fields["m"], Val::Map(_)));
        assert!(matches!(fields["s"], Val::List(_, ListKind::Set)));
    }

    #[test]
    fn resources_read_with_type_and_object_meta() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"inner": {"type": "object", "x-kubernetes-embedded-resource": true,
                "properties": {"x": {"type": "integer"}}}}}}});
        let root = with_type_and_object_meta(&schema, true);
        let object = json!({"kind": "Widget", "metadata": {"name": "w", "labels": {"a": "b"}},
            "spec": {"inner": {"kind": "Pod", "x": 1, "metadata": {"generateName": "p-"}}}});
        let Val::Object(fields, ..) = Val::from_json(&object, &root) else {
            panic!()
        };
        assert!(matches!(&fields["kind"], Val::String(k) if &**k == "Widget"));
        let Val::Object(meta, shape) = &fields["metadata"] else {
            panic!()
        };
        assert!(
            matches!(&meta["name"], Val::String(n) if &**n == "w") && !shape.unknown.is_empty()
        );
        let Val::Object(spec, ..) = &fields["spec"] else {
            panic!()
        };
        let Val::Object(inner, ..) = &spec["inner"] else {
            panic!()
        };
        assert!(matches!(&inner["kind"], Val::String(k) if &**k == "Pod"));
        assert!(
            matches!(inner["metadata"], Val::Object(..)),
            "no name to generate below the root"
        );
        let generated = json!({"metadata": {"generateName": "w-"}});
        let Val::Object(fields, ..) = Val::from_json(&generated, &root) else {
            panic!()
        };
        assert!(matches!(fields["metadata"], Val::Unsupported(_)));
    }

    #[test]
    fn formatted_strings_read_as_strfmt_reads_them() {
        let read = |format: &str, s: &str| {
            Val::from_json(&json!(s), &json!({"type": "string", "format": format}))
        };
        assert!(
            matches!(read("date-time", "1970-01-02T00:00:01.5Z"), Val::Timestamp(n) if n == 86_401_500_000_000)
        );
        assert!(
            matches!(read("date", "2000-03-01"), Val::Timestamp(n) if n == 951_868_800 * 1_000_000_000)
        );
        assert!(matches!(read("duration", "1m30s"), Val::Duration(n) if n == 90_000_000_000));
        assert!(matches!(read("byte", "aGk="), Val::Bytes(b) if &*b == b"hi"));
        assert!(matches!(read("byte", "-_8="), Val::Bytes(b) if *b == [0xfb, 0xff]));
        assert!(
            matches!(read("date-time", "1970-01-01T00:00:02"), Val::Timestamp(n) if n == 2_000_000_000)
        );
        assert!(
            matches!(read("date-time", "wrong"), Val::Error(e) if &*e == "Invalid date-time formatted string wrong: parsing time \"wrong\" as \"2006-01-02T15:04:05\": cannot parse \"wrong\" as \"2006\"")
        );
        assert!(
            matches!(read("duration", "wrong"), Val::Error(e) if &*e == "Invalid duration wrong: unable to parse wrong as duration")
        );
        for (format, bad) in [
            ("date-time", "1970-01-02T00:00:01+01:00"),
            ("date", "2001-02-29"),
            ("duration", "1 day"),
            ("byte", "aGk"),
            ("byte", "+/8="),
        ] {
            assert!(
                matches!(read(format, bad), Val::Unsupported(_)),
                "{format} {bad}"
            );
        }
    }

    #[test]
    fn data_of_another_type_is_an_error_as_the_apiservers() {
        let read =
            |schema: serde_json::Value, v: serde_json::Value| match Val::from_json(&v, &schema) {
                Val::Error(e) => e.to_string(),
                other => format!("{other:?}"),
            };
        assert_eq!(
            read(json!({"type": "string"}), json!([1.5])),
            "invalid data, expected string, got []interface {}"
        );
        assert_eq!(
            read(json!({"type": "integer"}), json!(1.5)),
            "invalid data, expected int, got float64"
        );
        assert_eq!(
            read(json!({"type": "boolean"}), json!(null)),
            "invalid data, got null for schema with nullable=false"
        );
    }

    #[test]
    fn numbers_compare_across_types() {
        assert!(equal(&Val::Int(1), &Val::Double(1.0)).unwrap());
        assert!(equal(&Val::Uint(1), &Val::Int(1)).unwrap());
        assert!(!equal(&Val::Int(1), &Val::str("1")).unwrap());
        assert_eq!(
            numeric_cmp(&Val::Int(-1), &Val::Uint(0)),
            Some(Ordering::Less)
        );
        assert!(equal(&Val::list(vec![]), &Val::Unsupported(Rc::from("x"))).is_err());
    }
}
