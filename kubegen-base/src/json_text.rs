//! JSON bytes decoded through serde_json's text reader (`&str`), the one
//! reader every JSON path of the runtime uses: kube's client reads replies
//! and watch events as text, and the cache, the protobuf decoder's
//! embedded JSON and error bodies read through here too. serde_json's
//! reader is a type parameter of every `Deserialize` instance it drives,
//! so with one reader each type's decoding is compiled once, not once per
//! reader — in this crate and in each operator crate, for each kind.

use serde::de::{DeserializeOwned, Error as _};

/// `bytes` as UTF-8 text, or serde_json's error for them. JSON is UTF-8
/// (RFC 8259), and serde_json's byte reader refuses invalid UTF-8 in a
/// string as its text reader cannot hold it anywhere; outside strings it
/// is a syntax error for both.
pub fn text(bytes: &[u8]) -> serde_json::Result<&str> {
    std::str::from_utf8(bytes)
        .map_err(|e| serde_json::Error::custom(format!("invalid UTF-8 in JSON: {e}")))
}

/// Decodes a `T` from JSON `bytes` (see the module docs).
pub fn from_bytes<T: DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<T> {
    serde_json::from_str(text(bytes)?)
}
