//! Kubernetes protobuf for built-in types, decoded into the k8s-openapi
//! types through their own `Deserialize`.
//!
//! The apiserver serves built-in types as protobuf when asked
//! (`application/vnd.kubernetes.protobuf`), as client-go's generated
//! clients ask by default; encoding it costs the apiserver less CPU than
//! JSON. Each message is presented to serde as the JSON encoding/json would
//! write for the same Go object (`json`), driven by a field table written
//! from the Go types (`table`, `fields.rs`), so decoding from protobuf
//! gives the value decoding the apiserver's JSON gives. Custom resources
//! have no protobuf encoding and stay JSON.
//!
//! Framing (`envelope`): every object is `k8s\0` followed by a
//! `runtime.Unknown` holding its apiVersion, kind and message bytes; a list
//! is one such envelope; a watch stream is a sequence of 4-byte big-endian
//! length-prefixed `metav1.WatchEvent` messages (bare), whose object is an
//! envelope.

#[cfg(test)]
mod encode;
mod envelope;
#[rustfmt::skip]
mod fields;
mod json;
mod lookup;
mod table;
mod time;
mod wire_format;

use std::fmt;

pub use envelope::{decode, decode_list, decode_watch_event};
#[doc(hidden)]
pub use envelope::{is_envelope, watch_event};

/// The media type to ask for protobuf with.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The media type of a protobuf watch stream.
pub const WATCH_MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf;stream=watch";

/// Whether the apiserver can serve `api_version`/`kind` as protobuf (a
/// built-in kind of the table's Kubernetes version).
pub fn knows(api_version: &str, kind: &str) -> bool {
    lookup::kind(api_version, kind).is_some()
}

/// Why protobuf bytes did not decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    #[doc(hidden)]
    pub fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "protobuf: {}", self.0)
    }
}

impl std::error::Error for Error {}

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Error(message.to_string())
    }
}
