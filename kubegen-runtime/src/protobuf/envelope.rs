//! The frames around protobuf messages: the `k8s\0` + `runtime.Unknown`
//! envelope of every object and list, and `metav1.WatchEvent`.

use std::borrow::Cow;

use kube::core::{ObjectList, Status};
use serde::de::DeserializeOwned;

use super::Error;
use super::json::{Node, go_string};
use super::lookup;
use super::wire::{self, Raw};

const MAGIC: &[u8] = b"k8s\0";

/// An unwrapped envelope: the message's type and bytes.
struct Unknown<'a> {
    api_version: Cow<'a, str>,
    kind: Cow<'a, str>,
    raw: &'a [u8],
}

fn bytes_field<'a>(raw: Raw<'a>, what: &str) -> Result<&'a [u8], Error> {
    match raw {
        Raw::Bytes(b) => Ok(b),
        other => Err(Error::new(format!("{what} arrived as {other:?}"))),
    }
}

fn unwrap(bytes: &[u8]) -> Result<Unknown<'_>, Error> {
    let message = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| Error::new("no k8s\\0 envelope (not a protobuf response?)"))?;
    let mut unknown = Unknown {
        api_version: Cow::Borrowed(""),
        kind: Cow::Borrowed(""),
        raw: &[],
    };
    for next in wire::fields(message) {
        match next? {
            (1, raw) => {
                for next in wire::fields(bytes_field(raw, "typeMeta")?) {
                    match next? {
                        (1, raw) => {
                            unknown.api_version = go_string(bytes_field(raw, "apiVersion")?)
                        }
                        (2, raw) => unknown.kind = go_string(bytes_field(raw, "kind")?),
                        _ => {}
                    }
                }
            }
            (2, raw) => unknown.raw = bytes_field(raw, "raw")?,
            (3, raw) if !bytes_field(raw, "contentEncoding")?.is_empty() => {
                return Err(Error::new("a content-encoded envelope"));
            }
            _ => {}
        }
    }
    Ok(unknown)
}

/// Decodes `T` from an envelope whose kind the table knows.
fn decode_as<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    let unknown = unwrap(bytes)?;
    let message = lookup::kind(&unknown.api_version, &unknown.kind).ok_or_else(|| {
        Error::new(format!(
            "{} {} is not a built-in kind of this table",
            unknown.api_version, unknown.kind
        ))
    })?;
    T::deserialize(Node::Object {
        bytes: unknown.raw,
        message,
        type_meta: Some((unknown.kind, unknown.api_version)),
    })
}

/// Decodes one object of a built-in kind from its protobuf envelope (the
/// body of a GET, a create or an update asked for as
/// `application/vnd.kubernetes.protobuf`).
///
/// `K` is built by its own `Deserialize`, from exactly what the apiserver
/// would have written as JSON for the same object; an apiVersion or kind
/// other than `K`'s is `K`'s own error, as with JSON.
pub fn decode<K: DeserializeOwned>(bytes: &[u8]) -> Result<K, Error> {
    decode_as(bytes)
}

/// Decodes a list of a built-in kind (the body of a LIST asked for as
/// protobuf).
pub fn decode_list<K: DeserializeOwned + Clone>(bytes: &[u8]) -> Result<ObjectList<K>, Error> {
    decode_as(bytes)
}

/// Decodes one frame of a protobuf watch stream (without its 4-byte length
/// prefix): a bare `metav1.WatchEvent` message, with no envelope of its
/// own, whose object is an envelope.
/// `BOOKMARK` objects carry only metadata and `ERROR` objects are a
/// `Status`, as in JSON.
pub fn decode_watch_event<K: DeserializeOwned + Clone>(
    frame: &[u8],
) -> Result<kube::core::WatchEvent<K>, Error> {
    use kube::core::WatchEvent;
    let (mut kind, mut object) = (Cow::Borrowed(""), None);
    for next in wire::fields(frame) {
        match next? {
            (1, raw) => kind = go_string(bytes_field(raw, "type")?),
            (2, raw) => object = wire::last(bytes_field(raw, "object")?, 1)?,
            _ => {}
        }
    }
    let object = bytes_field(
        object.ok_or_else(|| Error::new("a watch event without an object"))?,
        "object.raw",
    )?;
    Ok(match &*kind {
        "ADDED" => WatchEvent::Added(decode_as(object)?),
        "MODIFIED" => WatchEvent::Modified(decode_as(object)?),
        "DELETED" => WatchEvent::Deleted(decode_as(object)?),
        // A bookmark's object is `K` with only its resourceVersion and
        // annotations set.
        "BOOKMARK" => WatchEvent::Bookmark(decode_as(object)?),
        "ERROR" => WatchEvent::Error(Box::new(decode_as::<Status>(object)?)),
        other => return Err(Error::new(format!("a watch event of type {other:?}"))),
    })
}
