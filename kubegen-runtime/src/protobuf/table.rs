//! The shape of the field table (`fields.rs`, written by
//! `kubegen-runtime/protobuf/cmd/table` from the Go types): what a protobuf
//! message's fields are called in JSON, how each is held in Go, and when
//! encoding/json leaves it out.

use super::fields::{KINDS, MESSAGES};

/// One Go struct, as a protobuf message.
pub(super) struct Message {
    /// The Go type, `package.Name`, for error messages.
    pub(super) name: &'static str,
    /// The fields in Go declaration order, which is encoding/json's order.
    pub(super) fields: &'static [Field],
}

/// One struct field.
pub(super) struct Field {
    /// The protobuf field number.
    pub(super) number: u32,
    /// The JSON key; empty for an inlined (embedded) struct.
    pub(super) json: &'static str,
    pub(super) shape: Shape,
    pub(super) value: Value,
    pub(super) omit: Omit,
}

/// How the Go field holds its value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Shape {
    /// `T`: absent in protobuf means Go's zero value.
    Plain,
    /// `*T`: absent means `nil`, written `null`.
    Pointer,
    /// `[]T`: every occurrence is an element; none means `nil`.
    Repeated,
    /// `map[string]T`: every occurrence is an entry (key 1, value 2).
    Map,
    /// An embedded struct whose fields encoding/json writes as the outer
    /// struct's own.
    Inline,
}

/// The Go type of the field's value (or element, or map value).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Value {
    String,
    Bool,
    Int32,
    Int64,
    /// `[]byte`: base64 in JSON.
    Bytes,
    /// A struct, by index into `MESSAGES`.
    Message(u16),
    /// `metav1.Time`: a `Timestamp` message; RFC 3339 in seconds in JSON.
    Time,
    /// `metav1.MicroTime`: RFC 3339 in microseconds.
    MicroTime,
    /// `resource.Quantity`: a message holding its canonical string.
    Quantity,
    /// `intstr.IntOrString`: type, intVal, strVal.
    IntOrString,
    /// `runtime.RawExtension`: raw bytes, written into JSON as they are.
    RawExtension,
    /// `metav1.FieldsV1`: raw JSON bytes.
    FieldsV1,
    /// A named `[]string` map value (authentication's `ExtraValue`): a
    /// message with one repeated string field.
    StringList,
}

/// When encoding/json leaves the field out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Omit {
    Never,
    /// `omitempty`: false, 0, "", nil, or no elements.
    Empty,
    /// `omitempty,omitzero`: empty, or the Go zero value (a `Time`'s
    /// `IsZero`).
    EmptyOrZero,
}

/// A built-in kind and its message.
pub(super) struct Kind {
    pub(super) api_version: &'static str,
    pub(super) kind: &'static str,
    pub(super) message: u16,
}

/// Builds a [`Field`]; keeps the generated table short.
pub(super) const fn f(
    number: u32,
    json: &'static str,
    shape: Shape,
    value: Value,
    omit: Omit,
) -> Field {
    Field {
        number,
        json,
        shape,
        value,
        omit,
    }
}

/// The message at `index`.
pub(super) fn message(index: u16) -> &'static Message {
    &MESSAGES[usize::from(index)]
}

/// The message of a built-in kind, if the table has it.
pub(super) fn kind(api_version: &str, kind: &str) -> Option<&'static Message> {
    KINDS
        .binary_search_by(|k| (k.api_version, k.kind).cmp(&(api_version, kind)))
        .ok()
        .map(|i| message(KINDS[i].message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_sorted_and_find_their_messages() {
        assert!(
            KINDS
                .windows(2)
                .all(|w| (w[0].api_version, w[0].kind) < (w[1].api_version, w[1].kind))
        );
        assert_eq!(
            kind("v1", "ConfigMap").unwrap().name,
            "k8s.io/api/core/v1.ConfigMap"
        );
        assert_eq!(
            kind("apps/v1", "Deployment").unwrap().name,
            "k8s.io/api/apps/v1.Deployment"
        );
        assert!(kind("example.com/v1", "MyApplication").is_none());
    }

    #[test]
    fn every_message_index_is_in_the_table() {
        for m in &MESSAGES {
            for field in m.fields {
                if let Value::Message(i) = field.value {
                    assert!(usize::from(i) < MESSAGES.len(), "{}.{}", m.name, field.json);
                }
                assert_eq!(
                    field.json.is_empty(),
                    field.shape == Shape::Inline,
                    "{}",
                    m.name
                );
            }
        }
    }
}
