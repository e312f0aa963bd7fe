//! The shape of the field table (`fields.rs`, written by
//! `kubegen-base/protobuf/cmd/table` from the Go types): what a protobuf
//! message's fields are called in JSON, how each is held in Go, and when
//! encoding/json leaves it out.

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
