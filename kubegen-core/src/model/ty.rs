//! The field type model: Rust types reduced to what their JSON looks like.

use serde::{Deserialize, Serialize};

/// A Rust type as the schema builder sees it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Ty {
    /// `bool`.
    Bool,
    /// An integer of `bits` width.
    Int {
        /// Width in bits (`isize`/`usize` count as 64).
        bits: u8,
        /// Whether negative values are possible.
        signed: bool,
    },
    /// `f32`/`f64` (refused unless `allow_float`).
    Float {
        /// Width in bits.
        bits: u8,
    },
    /// `String`, `&str`, `char`.
    String {
        /// `char`: exactly one character.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        char: bool,
    },
    /// `Option<T>`.
    Option(Box<Ty>),
    /// `Vec<T>`, `VecDeque<T>`, sets and fixed arrays.
    List {
        /// The item type.
        item: Box<Ty>,
        /// Sets (`BTreeSet`, `HashSet`): `x-kubernetes-list-type: set`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        set: bool,
        /// `[T; N]`: exactly `N` items.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        len: Option<u64>,
    },
    /// `BTreeMap<String, T>` / `HashMap<String, T>`.
    Map(Box<Ty>),
    /// `BTreeMap<K, T>` / `HashMap<K, T>` with an integer `K`, whose keys
    /// serde_json writes as decimal strings.
    IntKeyMap {
        /// The key's width in bits (`isize`/`usize` count as 64).
        bits: u8,
        /// Whether keys may be negative.
        signed: bool,
        /// The value type.
        value: Box<Ty>,
    },
    /// `serde_json::Value`: any JSON.
    Json,
    /// `IntOrString`.
    IntOrString,
    /// `Quantity`: an int-or-string whose strings match
    /// [`QUANTITY_PATTERN`](crate::schema::QUANTITY_PATTERN), as
    /// controller-gen writes it.
    Quantity,
    /// `Time`, `MicroTime`, `DateTime<Tz>`, `jiff::Timestamp`: RFC 3339 strings.
    DateTime,
    /// The apimachinery `Duration` string.
    Duration,
    /// `k8s_openapi::ByteString`: bytes written as a base64 string
    /// (`format: byte`, as controller-gen writes Go's `[]byte`).
    Bytes,
    /// An embedded `ObjectMeta`: the allow-listed metadata schema.
    ObjectMeta,
    /// A type whose schema comes from a resolver at schema-evaluation time.
    Named {
        /// The type as written (for messages).
        name: String,
        /// Index into the resolver list passed to the schema builder.
        resolver: usize,
    },
}

impl Ty {
    /// The values an integer of `bits` width (64 for `isize`/`usize`) can
    /// hold.
    pub fn int_range(bits: u8, signed: bool) -> (i128, i128) {
        match (bits, signed) {
            (8, true) => (i8::MIN.into(), i8::MAX.into()),
            (16, true) => (i16::MIN.into(), i16::MAX.into()),
            (32, true) => (i32::MIN.into(), i32::MAX.into()),
            (_, true) => (i64::MIN.into(), i64::MAX.into()),
            (8, false) => (0, u8::MAX.into()),
            (16, false) => (0, u16::MAX.into()),
            (32, false) => (0, u32::MAX.into()),
            (_, false) => (0, u64::MAX.into()),
        }
    }

    /// The type under any `Option`.
    pub fn unwrap_option(&self) -> &Ty {
        match self {
            Ty::Option(inner) => inner.unwrap_option(),
            other => other,
        }
    }

    /// Whether this is `Option<_>`.
    pub fn is_option(&self) -> bool {
        matches!(self, Ty::Option(_))
    }

    /// Whether values are JSON scalars (for list sets and map keys).
    pub fn is_scalar(&self) -> bool {
        matches!(
            self.unwrap_option(),
            Ty::Bool
                | Ty::Int { .. }
                | Ty::Float { .. }
                | Ty::String { .. }
                | Ty::IntOrString
                | Ty::Quantity
                | Ty::DateTime
                | Ty::Duration
                | Ty::Bytes
        )
    }

    /// A short description of the JSON type, for messages.
    pub fn json_kind(&self) -> &'static str {
        match self.unwrap_option() {
            Ty::Bool => "boolean",
            Ty::Int { .. } => "integer",
            Ty::Float { .. } => "number",
            Ty::String { .. } | Ty::DateTime | Ty::Duration | Ty::Bytes => "string",
            Ty::List { .. } => "array",
            Ty::Map(_) | Ty::IntKeyMap { .. } | Ty::ObjectMeta => "object",
            Ty::IntOrString | Ty::Quantity => "integer or string",
            Ty::Json | Ty::Named { .. } | Ty::Option(_) => "value",
        }
    }
}
