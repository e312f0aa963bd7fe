//! A serde `Deserializer` over a protobuf message that presents what
//! encoding/json writes for the Go object the message decodes into: the
//! same keys, the same omissions, `null` where Go writes `null`, numbers
//! and strings as serde_json reads them. A type's `Deserialize` therefore
//! builds from protobuf exactly the value it builds from the apiserver's
//! JSON for the same object.
//!
//! Go's rules, field by field ([`super::table`]): a plain field absent on
//! the wire is Go's zero value, written unless `omitempty` (empty string,
//! 0, false, no bytes) or `omitzero` (a zero `Time`) leaves it out; a
//! pointer, slice or map absent is `nil`, written `null` or left out; an
//! embedded struct's fields are written as the outer struct's.

use std::borrow::Cow;

use base64::Engine as _;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use super::Error;
use super::lookup;
use super::table::{Field, Message, Omit, Shape, Value};
use super::time::{Rfc3339, ZERO_SECONDS, rfc3339};
use super::wire_format::{self, Raw};

/// One JSON value, built lazily from the wire.
pub(super) enum Node<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Str(Cow<'a, str>),
    /// A `metav1.Time` or `metav1.MicroTime`, a string in JSON.
    Time(Rfc3339),
    /// A message; `type_meta` is the envelope's `(kind, apiVersion)` for a
    /// top-level object, which protobuf carries outside the message.
    Object {
        bytes: &'a [u8],
        message: &'static Message,
        type_meta: Option<(Cow<'a, str>, Cow<'a, str>)>,
    },
    List(Vec<Node<'a>>),
    /// A map field: the entries are the occurrences of field `number` in
    /// the message `bytes`, read as the map is.
    Map {
        bytes: &'a [u8],
        number: u32,
        value: Value,
    },
    /// JSON carried as bytes (`RawExtension`, `FieldsV1`).
    Json(&'a [u8]),
}

/// A Go string as encoding/json writes it: each byte that is not part of
/// valid UTF-8 becomes U+FFFD.
pub(super) fn go_string(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len() + 2);
            let mut rest = bytes;
            while !rest.is_empty() {
                match std::str::from_utf8(rest) {
                    Ok(s) => {
                        out.push_str(s);
                        break;
                    }
                    Err(e) => {
                        let valid = e.valid_up_to();
                        out.push_str(std::str::from_utf8(&rest[..valid]).expect("valid prefix"));
                        out.push(char::REPLACEMENT_CHARACTER);
                        rest = &rest[valid + 1..];
                    }
                }
            }
            Cow::Owned(out)
        }
    }
}

fn wrong_wire(value: Value, raw: &Raw<'_>) -> Error {
    Error::new(format!("a {value:?} field arrived as {raw:?}"))
}

fn bytes_of<'a>(value: Value, raw: Raw<'a>) -> Result<&'a [u8], Error> {
    match raw {
        Raw::Bytes(b) => Ok(b),
        other => Err(wrong_wire(value, &other)),
    }
}

/// A string field of a small message (`Quantity`, `IntOrString`, ...).
fn string_in(bytes: &[u8], number: u32) -> Result<Option<Cow<'_, str>>, Error> {
    match wire_format::last(bytes, number)? {
        Some(Raw::Bytes(b)) => Ok(Some(go_string(b))),
        Some(other) => Err(wrong_wire(Value::String, &other)),
        None => Ok(None),
    }
}

/// A varint field of a small message; 0 when absent.
fn varint_in(bytes: &[u8], number: u32) -> Result<u64, Error> {
    match wire_format::last(bytes, number)? {
        Some(Raw::Varint(v)) => Ok(v),
        Some(other) => Err(wrong_wire(Value::Int64, &other)),
        None => Ok(0),
    }
}

/// A `Timestamp` as `metav1.Time` (seconds; Go's protobuf decoding drops
/// the nanoseconds) or `metav1.MicroTime` (truncated to microseconds).
fn time(bytes: &[u8], micro: bool) -> Result<Node<'_>, Error> {
    if bytes.is_empty() {
        return Ok(Node::Null);
    }
    let mut seconds = varint_in(bytes, 1)? as i64;
    // Go's `time.Duration(nanos).Truncate(time.Microsecond)`: toward zero.
    let mut nanos = if micro {
        let nanos = i64::from(varint_in(bytes, 2)? as i32);
        nanos - nanos % 1000
    } else {
        0
    };
    seconds = seconds
        .checked_add(nanos.div_euclid(1_000_000_000))
        .ok_or_else(|| Error::new("a time out of range"))?;
    nanos = nanos.rem_euclid(1_000_000_000);
    if seconds == ZERO_SECONDS && nanos == 0 {
        return Ok(Node::Null);
    }
    let micros = micro.then_some((nanos / 1000) as u32);
    Ok(Node::Time(rfc3339(seconds, micros)?))
}

/// A JSON value carried in field 1 of a small message; `null` when absent.
fn json_in(bytes: &[u8]) -> Result<Node<'_>, Error> {
    match wire_format::last(bytes, 1)? {
        Some(Raw::Bytes(raw)) => Ok(Node::Json(raw)),
        Some(other) => Err(wrong_wire(Value::RawExtension, &other)),
        None => Ok(Node::Null),
    }
}

fn strings<'a>(bytes: &'a [u8]) -> Result<Vec<Node<'a>>, Error> {
    let mut items = Vec::new();
    for next in wire_format::fields(bytes) {
        if let (1, raw) = next? {
            items.push(Node::Str(go_string(bytes_of(Value::String, raw)?)));
        }
    }
    Ok(items)
}

/// The value one occurrence holds.
fn value<'a>(value: Value, raw: Raw<'a>) -> Result<Node<'a>, Error> {
    Ok(match (value, raw) {
        (Value::String, Raw::Bytes(b)) => Node::Str(go_string(b)),
        (Value::Bool, Raw::Varint(v)) => Node::Bool(v != 0),
        (Value::Int32, Raw::Varint(v)) => Node::Int(i64::from(v as i32)),
        (Value::Int64, Raw::Varint(v)) => Node::Int(v as i64),
        (Value::Bytes, Raw::Bytes(b)) => Node::Str(Cow::Owned(
            base64::engine::general_purpose::STANDARD.encode(b),
        )),
        (Value::Message(i), Raw::Bytes(bytes)) => Node::Object {
            bytes,
            message: lookup::message(i),
            type_meta: None,
        },
        (Value::Time, Raw::Bytes(b)) => time(b, false)?,
        (Value::MicroTime, Raw::Bytes(b)) => time(b, true)?,
        (Value::Quantity, Raw::Bytes(b)) => match string_in(b, 1)? {
            None => Node::Str(Cow::Borrowed("0")),
            Some(s) if s.is_empty() => return Err(Error::new("an empty quantity")),
            Some(s) => Node::Str(s),
        },
        (Value::IntOrString, Raw::Bytes(b)) => match varint_in(b, 1)? {
            0 => Node::Int(i64::from(varint_in(b, 2)? as i32)),
            1 => Node::Str(string_in(b, 3)?.unwrap_or_default()),
            other => return Err(Error::new(format!("IntOrString of type {other}"))),
        },
        (Value::RawExtension | Value::FieldsV1, Raw::Bytes(b)) => json_in(b)?,
        (Value::StringList, Raw::Bytes(b)) => match strings(b)? {
            items if items.is_empty() => Node::Null,
            items => Node::List(items),
        },
        (value, raw) => return Err(wrong_wire(value, &raw)),
    })
}

/// Go's zero value of a plain field absent on the wire.
fn zero(value: Value) -> Node<'static> {
    match value {
        Value::String => Node::Str(Cow::Borrowed("")),
        Value::Bool => Node::Bool(false),
        Value::Int32 | Value::Int64 | Value::IntOrString => Node::Int(0),
        Value::Quantity => Node::Str(Cow::Borrowed("0")),
        Value::Message(i) => Node::Object {
            bytes: &[],
            message: lookup::message(i),
            type_meta: None,
        },
        Value::Bytes
        | Value::Time
        | Value::MicroTime
        | Value::RawExtension
        | Value::FieldsV1
        | Value::StringList => Node::Null,
    }
}

/// Whether a value may only arrive once: protobuf would merge two
/// occurrences of a message, which the apiserver never writes.
fn is_message(value: Value) -> bool {
    !matches!(
        value,
        Value::String | Value::Bool | Value::Int32 | Value::Int64 | Value::Bytes
    )
}

/// Elements of a repeated field from one occurrence (packed or not).
fn elements<'a>(v: Value, raw: Raw<'a>, out: &mut Vec<Node<'a>>) -> Result<(), Error> {
    match (v, raw) {
        (Value::Bool | Value::Int32 | Value::Int64, Raw::Bytes(mut packed)) => {
            while !packed.is_empty() {
                out.push(value(v, Raw::Varint(wire_format::varint(&mut packed)?))?);
            }
        }
        _ => out.push(value(v, raw)?),
    }
    Ok(())
}

/// A map entry's key (field 1) and value (field 2), the last of each.
fn entry<'a>(v: Value, raw: Raw<'a>) -> Result<(Cow<'a, str>, Node<'a>), Error> {
    let (mut key, mut found) = (None, None);
    for next in wire_format::fields(bytes_of(v, raw)?) {
        match next? {
            (1, Raw::Bytes(b)) => key = Some(b),
            (1, other) => return Err(wrong_wire(Value::String, &other)),
            (2, raw) => found = Some(raw),
            _ => {}
        }
    }
    let node = match found {
        Some(raw) => value(v, raw)?,
        None => zero(v),
    };
    Ok((key.map(go_string).unwrap_or_default(), node))
}

/// The node for `field` from its occurrences, or `None` when encoding/json
/// leaves it out.
fn field_node<'a>(frame: &Frame<'a>, field: &Field) -> Result<Option<Node<'a>>, Error> {
    let message = frame.message;
    let mut raws = frame.occurrences(field.number).peekable();
    let omit_nil = field.omit != Omit::Never;
    let nil = |omit: bool| Ok((!omit).then_some(Node::Null));
    match field.shape {
        Shape::Repeated => {
            let mut items = Vec::new();
            for raw in raws {
                elements(field.value, raw, &mut items)?;
            }
            if items.is_empty() {
                return nil(omit_nil);
            }
            Ok(Some(Node::List(items)))
        }
        Shape::Map => {
            if raws.peek().is_none() {
                return nil(omit_nil);
            }
            Ok(Some(Node::Map {
                bytes: frame.bytes,
                number: field.number,
                value: field.value,
            }))
        }
        Shape::Pointer | Shape::Plain | Shape::Inline => {
            let mut last = None;
            for raw in raws {
                if last.is_some() && is_message(field.value) {
                    return Err(Error::new(format!(
                        "{}.{} arrived twice",
                        message.name, field.json
                    )));
                }
                last = Some(raw);
            }
            if field.shape == Shape::Pointer {
                return match last {
                    Some(raw) => value(field.value, raw).map(Some),
                    None => nil(omit_nil),
                };
            }
            let node = match last {
                Some(raw) => value(field.value, raw)?,
                None => zero(field.value),
            };
            let empty = match (&node, field.value) {
                (Node::Str(s), Value::String | Value::Bytes) => s.is_empty(),
                (Node::Null, Value::Bytes) => true,
                (Node::Bool(b), _) => !b,
                (Node::Int(i), Value::Int32 | Value::Int64) => *i == 0,
                // Structs are never empty to encoding/json.
                _ => false,
            };
            let zero = match field.value {
                // `[]byte`'s zero is nil; an empty slice is not zero.
                Value::Bytes => last.is_none(),
                Value::Time | Value::MicroTime => matches!(node, Node::Null),
                // The table refuses omitzero on any other struct.
                Value::Message(_)
                | Value::Quantity
                | Value::IntOrString
                | Value::RawExtension
                | Value::FieldsV1
                | Value::StringList => false,
                _ => empty,
            };
            let omitted = match field.omit {
                Omit::Never => false,
                Omit::Empty => empty,
                Omit::EmptyOrZero => empty || zero,
            };
            Ok((!omitted).then_some(node))
        }
    }
}

/// How many fields a message may have on the wire before its frame moves
/// them to the heap; nearly every Kubernetes message has fewer.
const INLINE_FIELDS: usize = 10;

/// A message's field occurrences in wire order: inline while there are at
/// most [`INLINE_FIELDS`], all of them in `spilled` beyond.
struct Occurrences<'a> {
    inline: [(u32, Raw<'a>); INLINE_FIELDS],
    len: usize,
    spilled: Vec<(u32, Raw<'a>)>,
}

impl<'a> Occurrences<'a> {
    fn read(bytes: &'a [u8]) -> Result<Self, Error> {
        let mut out = Occurrences {
            inline: [(0, Raw::Varint(0)); INLINE_FIELDS],
            len: 0,
            spilled: Vec::new(),
        };
        for next in wire_format::fields(bytes) {
            let item = next?;
            if out.len < INLINE_FIELDS {
                out.inline[out.len] = item;
            } else {
                if out.spilled.is_empty() {
                    out.spilled.reserve(2 * INLINE_FIELDS);
                    out.spilled.extend_from_slice(&out.inline);
                }
                out.spilled.push(item);
            }
            out.len += 1;
        }
        Ok(out)
    }

    fn as_slice(&self) -> &[(u32, Raw<'a>)] {
        if self.len <= INLINE_FIELDS {
            &self.inline[..self.len]
        } else {
            &self.spilled
        }
    }
}

/// The fields of one message still to be written.
struct Frame<'a> {
    message: &'static Message,
    bytes: &'a [u8],
    wire: Occurrences<'a>,
    next: usize,
}

impl<'a> Frame<'a> {
    fn new(message: &'static Message, bytes: &'a [u8]) -> Result<Self, Error> {
        Ok(Frame {
            message,
            bytes,
            wire: Occurrences::read(bytes)?,
            next: 0,
        })
    }

    fn occurrences(&self, number: u32) -> impl Iterator<Item = Raw<'a>> + '_ {
        self.wire
            .as_slice()
            .iter()
            .filter(move |(n, _)| *n == number)
            .map(|(_, raw)| *raw)
    }
}

/// A message as a JSON object: keys in Go field order, embedded structs
/// flattened (each one's frame stacked on the message's while it is
/// written).
struct Fields<'a> {
    type_meta: Vec<(&'static str, Cow<'a, str>)>,
    message: Frame<'a>,
    embedded: Vec<Frame<'a>>,
}

impl<'a> Fields<'a> {
    /// The next key and its value, or `None` at the end.
    fn advance(&mut self) -> Result<Option<(Cow<'a, str>, Node<'a>)>, Error> {
        if let Some((key, value)) = self.type_meta.pop() {
            return Ok(Some((Cow::Borrowed(key), Node::Str(value))));
        }
        loop {
            let frame = self.embedded.last_mut().unwrap_or(&mut self.message);
            let Some(field) = frame.message.fields.get(frame.next) else {
                if self.embedded.pop().is_none() {
                    return Ok(None);
                }
                continue;
            };
            frame.next += 1;
            if field.shape == Shape::Inline {
                let Value::Message(i) = field.value else {
                    return Err(Error::new("an inlined field that is not a struct"));
                };
                let bytes = match field_node(frame, field)? {
                    Some(Node::Object { bytes, .. }) => bytes,
                    _ => &[],
                };
                let inner = Frame::new(lookup::message(i), bytes)?;
                self.embedded.push(inner);
                continue;
            }
            if let Some(node) = field_node(frame, field)? {
                return Ok(Some((Cow::Borrowed(field.json), node)));
            }
        }
    }
}

/// A map's entries, read from its message's bytes as serde asks for them.
struct Entries<'a> {
    rest: &'a [u8],
    number: u32,
    value_type: Value,
}

impl<'a> Entries<'a> {
    /// The next entry, or `None` at the end.
    fn advance(&mut self) -> Result<Option<(Cow<'a, str>, Node<'a>)>, Error> {
        while !self.rest.is_empty() {
            let (number, raw) = wire_format::field(&mut self.rest)?;
            if number == self.number {
                return entry(self.value_type, raw).map(Some);
            }
        }
        Ok(None)
    }
}

/// What a JSON object is read from: a message's fields or a map field's
/// entries. Messages are the common case and live on the stack for one
/// visit: boxing them would allocate once per decoded message.
#[allow(clippy::large_enum_variant)]
enum Source<'a> {
    Fields(Fields<'a>),
    Entries(Entries<'a>),
}

/// The one `MapAccess` of this deserializer, over either source, its keys
/// handed out as string nodes: with one map access type (and one key
/// deserializer), each type's visitor is compiled once here, not once per
/// source.
struct Access<'a> {
    source: Source<'a>,
    value: Option<Node<'a>>,
}

impl<'a> Access<'a> {
    fn new(source: Source<'a>) -> Self {
        Access {
            source,
            value: None,
        }
    }

    /// A message's fields, `apiVersion` and `kind` first when given.
    fn object(
        bytes: &'a [u8],
        message: &'static Message,
        type_meta: Option<(Cow<'a, str>, Cow<'a, str>)>,
    ) -> Result<Self, Error> {
        let type_meta = match type_meta {
            // Popped from the back: kind first, as TypeMeta declares.
            Some((kind, api_version)) => [("apiVersion", api_version), ("kind", kind)]
                .into_iter()
                .filter(|(_, v)| !v.is_empty())
                .collect(),
            None => Vec::new(),
        };
        Ok(Access::new(Source::Fields(Fields {
            type_meta,
            message: Frame::new(message, bytes)?,
            embedded: Vec::new(),
        })))
    }
}

impl<'de> MapAccess<'de> for Access<'de> {
    type Error = Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        let next = match &mut self.source {
            Source::Fields(fields) => fields.advance()?,
            Source::Entries(entries) => entries.advance()?,
        };
        match next {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(Node::Str(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let value = self
            .value
            .take()
            .ok_or_else(|| Error::new("a value without a key"))?;
        seed.deserialize(value)
    }
}

struct Items<'a>(std::vec::IntoIter<Node<'a>>);

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        self.0.next().map(|node| seed.deserialize(node)).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// Runs one serde_json deserializer method over JSON bytes, requiring
/// that nothing follows the value. Only calling `f` is generic: this runs
/// for every visitor of every type.
fn from_json<'de, T>(
    bytes: &'de [u8],
    f: impl FnOnce(&mut serde_json::Deserializer<serde_json::de::StrRead<'de>>) -> serde_json::Result<T>,
) -> Result<T, Error> {
    let mut de = json_reader(bytes)?;
    let value = f(&mut de).map_err(embedded)?;
    de.end().map_err(embedded)?;
    Ok(value)
}

/// serde_json's reader over embedded JSON (see [`crate::json_text`]).
fn json_reader(
    bytes: &[u8],
) -> Result<serde_json::Deserializer<serde_json::de::StrRead<'_>>, Error> {
    Ok(serde_json::Deserializer::from_str(
        crate::json_text::text(bytes).map_err(embedded)?,
    ))
}

fn embedded(error: serde_json::Error) -> Error {
    Error::new(format!("embedded JSON: {error}"))
}

/// Methods that read JSON bytes with serde_json's own method (with the
/// same arguments) and any other node as `deserialize_any` does.
macro_rules! by_any {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Error> {
            match self {
                Node::Json(bytes) => {
                    from_json(bytes, |de| de::Deserializer::$method(de, $($arg,)* visitor))
                }
                node => node.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Node<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Node::Null => visitor.visit_unit(),
            Node::Bool(b) => visitor.visit_bool(b),
            // serde_json hands out non-negative integers as u64.
            Node::Int(i) if i >= 0 => visitor.visit_u64(i as u64),
            Node::Int(i) => visitor.visit_i64(i),
            Node::Str(Cow::Borrowed(s)) => visitor.visit_borrowed_str(s),
            Node::Str(Cow::Owned(s)) => visitor.visit_string(s),
            Node::Time(t) => visitor.visit_str(t.as_str()),
            Node::Object {
                bytes,
                message,
                type_meta,
            } => visitor.visit_map(Access::object(bytes, message, type_meta)?),
            Node::List(items) => visitor.visit_seq(Items(items.into_iter())),
            Node::Map {
                bytes,
                number,
                value,
            } => visitor.visit_map(Access::new(Source::Entries(Entries {
                rest: bytes,
                number,
                value_type: value,
            }))),
            Node::Json(bytes) => {
                from_json(bytes, |de| de::Deserializer::deserialize_any(de, visitor))
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Node::Null => visitor.visit_none(),
            Node::Json(bytes) => from_json(bytes, |de| {
                de::Deserializer::deserialize_option(de, visitor)
            }),
            node => visitor.visit_some(node),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            Node::Json(bytes) => from_json(bytes, |de| {
                de::Deserializer::deserialize_newtype_struct(de, name, visitor)
            }),
            node => visitor.visit_newtype_struct(node),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            Node::Str(s) => visitor.visit_enum(s.into_owned().into_deserializer()),
            Node::Json(bytes) => from_json(bytes, |de| {
                de::Deserializer::deserialize_enum(de, name, variants, visitor)
            }),
            _ => Err(de::Error::custom(format!(
                "an enum {name} that is not a string"
            ))),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    by_any! {
        deserialize_bool() deserialize_i8() deserialize_i16() deserialize_i32() deserialize_i64()
        deserialize_i128() deserialize_u8() deserialize_u16() deserialize_u32() deserialize_u64()
        deserialize_u128() deserialize_f32() deserialize_f64() deserialize_char() deserialize_str()
        deserialize_string() deserialize_bytes() deserialize_byte_buf() deserialize_unit()
        deserialize_seq() deserialize_map() deserialize_identifier()
        deserialize_unit_struct(name: &'static str)
        deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::coordination::v1::Lease;
    use k8s_openapi::api::core::v1::{ConfigMap, Pod};
    use serde::Deserialize;

    use super::*;
    use crate::protobuf::encode::{bytes, number};

    fn decode<K: for<'de> Deserialize<'de>>(
        api_version: &str,
        kind: &str,
        message: &[u8],
    ) -> Result<K, Error> {
        K::deserialize(Node::Object {
            bytes: message,
            message: lookup::kind(api_version, kind).unwrap(),
            type_meta: None,
        })
    }

    #[test]
    fn invalid_utf8_becomes_one_replacement_per_byte_as_in_go() {
        assert_eq!(go_string(b"ok"), "ok");
        assert_eq!(go_string(&[0xe2, 0x82, b'A']), "\u{fffd}\u{fffd}A");
        assert_eq!(
            go_string(&[b'a', 0xed, 0xa0, 0x80, b'b']),
            "a\u{fffd}\u{fffd}\u{fffd}b"
        );
        assert_eq!(go_string(&[0xff]), "\u{fffd}");
        assert_eq!(go_string("é".as_bytes()), "é");
    }

    #[test]
    fn omitempty_zero_values_and_nil_follow_go() {
        // metadata { name: "" (written), namespace: "ns", creationTimestamp:
        // an empty Timestamp }; data { "k": <no value> }; binaryData
        // { "b": "" }.
        let meta = [bytes(1, b""), bytes(3, b"ns"), bytes(8, b"")].concat();
        let message = [
            bytes(1, &meta),
            bytes(2, &bytes(1, b"k")),
            bytes(3, &[bytes(1, b"b"), bytes(2, b"")].concat()),
        ]
        .concat();
        let cm: ConfigMap = decode("v1", "ConfigMap", &message).unwrap();
        assert_eq!(cm.metadata.name, None, "omitempty drops the empty name");
        assert_eq!(cm.metadata.namespace.as_deref(), Some("ns"));
        assert_eq!(
            cm.metadata.creation_timestamp, None,
            "the zero time is omitted"
        );
        assert_eq!(
            cm.data.unwrap()["k"],
            "",
            "a map entry without a value is the zero value"
        );
        assert_eq!(cm.binary_data.unwrap()["b"].0, Vec::<u8>::new());
        assert_eq!(cm.immutable, None);
    }

    #[test]
    fn map_entries_are_read_wherever_they_occur_and_the_last_key_wins() {
        // data { "a": "1" }, metadata { name: "m" }, data { "b": "2" },
        // data { "a": "3" }: occurrences of a map field need not be
        // adjacent, and a repeated key keeps its last value, as Go's
        // decoding does.
        let entry = |k: &[u8], v: &[u8]| bytes(2, &[bytes(1, k), bytes(2, v)].concat());
        let message = [
            entry(b"a", b"1"),
            bytes(1, &bytes(1, b"m")),
            entry(b"b", b"2"),
            entry(b"a", b"3"),
        ]
        .concat();
        let cm: ConfigMap = decode("v1", "ConfigMap", &message).unwrap();
        assert_eq!(cm.metadata.name.as_deref(), Some("m"));
        let data = cm.data.unwrap();
        assert_eq!(data.len(), 2);
        assert_eq!((data["a"].as_str(), data["b"].as_str()), ("3", "2"));
        // More occurrences than a frame holds inline: all are read.
        let many: Vec<u8> = (0..3 * INLINE_FIELDS)
            .flat_map(|i| entry(format!("k{i}").as_bytes(), b"v"))
            .chain(bytes(1, &bytes(1, b"m")))
            .collect();
        let cm: ConfigMap = decode("v1", "ConfigMap", &many).unwrap();
        assert_eq!(cm.data.unwrap().len(), 3 * INLINE_FIELDS);
        assert_eq!(cm.metadata.name.as_deref(), Some("m"));
        // A key that arrives as a number is refused, not read as empty.
        let bad = bytes(2, &[number(1, 7), bytes(2, b"v")].concat());
        assert!(decode::<ConfigMap>("v1", "ConfigMap", &bad).is_err());
    }

    #[test]
    fn fields_without_omitempty_are_written_as_zero() {
        // spec { containers [ { ports [ {} ] } ] }: the container's name and
        // the port's containerPort have no omitempty.
        let container = bytes(6, b"");
        let spec = bytes(2, &container);
        let pod: Pod = decode("v1", "Pod", &bytes(2, &spec)).unwrap();
        let container = &pod.spec.unwrap().containers[0];
        assert_eq!(container.name, "");
        assert_eq!(container.ports.as_ref().unwrap()[0].container_port, 0);
        assert_eq!(container.ports.as_ref().unwrap()[0].name, None);
    }

    #[test]
    fn times_are_truncated_as_go_decodes_them() {
        let timestamp = |seconds: i64, nanos: i32| {
            [number(1, seconds as u64), number(2, nanos as i64 as u64)].concat()
        };
        // spec { acquireTime: 1.123456789 s (MicroTime), renewTime: -0.0000015 s }
        let spec = [
            bytes(3, &timestamp(1, 123_456_789)),
            bytes(4, &timestamp(0, -1_500)),
        ]
        .concat();
        let lease: Lease = decode("coordination.k8s.io/v1", "Lease", &bytes(2, &spec)).unwrap();
        let spec = lease.spec.unwrap();
        assert_eq!(
            spec.acquire_time.unwrap().0.to_string(),
            "1970-01-01T00:00:01.123456Z"
        );
        assert_eq!(
            spec.renew_time.unwrap().0.to_string(),
            "1969-12-31T23:59:59.999999Z"
        );
        // metadata { creationTimestamp: 5.9 s (Time keeps seconds) }
        let meta = bytes(8, &timestamp(5, 900_000_000));
        let lease: Lease = decode("coordination.k8s.io/v1", "Lease", &bytes(1, &meta)).unwrap();
        assert_eq!(
            lease
                .metadata
                .creation_timestamp
                .as_ref()
                .unwrap()
                .0
                .as_second(),
            5
        );
        assert_eq!(
            lease
                .metadata
                .creation_timestamp
                .unwrap()
                .0
                .subsec_nanosecond(),
            0
        );
    }

    #[test]
    fn int_or_string_and_inline_structs() {
        // spec { strategy { rollingUpdate { maxSurge: "25%", maxUnavailable: 2 } } }
        let surge = [number(1, 1), bytes(3, b"25%")].concat();
        let unavailable = [number(1, 0), number(2, 2)].concat();
        let rolling = [bytes(2, &surge), bytes(1, &unavailable)].concat();
        let spec = bytes(4, &bytes(2, &rolling));
        let d: Deployment = decode("apps/v1", "Deployment", &bytes(2, &spec)).unwrap();
        let rolling = d.spec.unwrap().strategy.unwrap().rolling_update.unwrap();
        assert_eq!(
            format!("{:?}", rolling.max_surge.unwrap()),
            "String(\"25%\")"
        );
        assert_eq!(format!("{:?}", rolling.max_unavailable.unwrap()), "Int(2)");

        let bad = bytes(4, &bytes(2, &bytes(2, &[number(1, 2)].concat())));
        let err = decode::<Deployment>("apps/v1", "Deployment", &bytes(2, &bad)).unwrap_err();
        assert!(err.to_string().contains("IntOrString of type 2"), "{err}");

        // A volume's configMap arrives inside the inlined VolumeSource
        // (field 2) and is written as the volume's own key.
        let source = bytes(19, &bytes(1, &bytes(1, b"cm")));
        let volume = [bytes(1, b"v"), bytes(2, &source)].concat();
        let pod: Pod = decode("v1", "Pod", &bytes(2, &bytes(1, &volume))).unwrap();
        let volume = &pod.spec.unwrap().volumes.unwrap()[0];
        assert_eq!(volume.config_map.as_ref().unwrap().name, "cm");
    }

    #[test]
    fn what_go_would_not_decode_is_an_error() {
        let meta = bytes(1, b"a");
        let twice = [bytes(1, &meta), bytes(1, &meta)].concat();
        let err = decode::<ConfigMap>("v1", "ConfigMap", &twice).unwrap_err();
        assert!(err.to_string().contains("arrived twice"), "{err}");
        let wrong_wire = bytes(1, &number(1, 7));
        assert!(decode::<ConfigMap>("v1", "ConfigMap", &wrong_wire).is_err());
        let truncated = &bytes(1, &meta)[..3];
        assert!(decode::<ConfigMap>("v1", "ConfigMap", truncated).is_err());
    }
}
