//! The frames around protobuf messages: the `k8s\0` + `runtime.Unknown`
//! envelope of every object and list, and `metav1.WatchEvent`.

use std::borrow::Cow;

use kube_core::{ObjectList, Status};
use serde::de::DeserializeOwned;

use super::Error;
use super::json::{Node, go_string};
use super::lookup;
use super::table::{Message, Value};
use super::wire_format::{self, Raw};

const MAGIC: &[u8] = b"k8s\0";

/// Whether `bytes` are a protobuf envelope (JSON starts with `{` or
/// whitespace, never with `k8s\0`).
#[doc(hidden)]
pub fn is_envelope(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

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
    for next in wire_format::fields(message) {
        match next? {
            (1, raw) => {
                for next in wire_format::fields(bytes_field(raw, "typeMeta")?) {
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

/// Decodes `T` from an envelope whose kind the table knows, without the
/// object's `metadata.managedFields` unless `keep_managed_fields`.
fn decode_as<T: DeserializeOwned>(bytes: &[u8], keep_managed_fields: bool) -> Result<T, Error> {
    Ok(decode_keeping::<T>(bytes, keep_managed_fields, false)?.0)
}

/// A decoded value, and the envelope it decodes from when asked for.
#[doc(hidden)]
pub type Kept<T> = (T, Option<Box<[u8]>>);

/// [`decode_as`]; with `keep_bytes`, also an envelope of what was decoded
/// (`bytes` itself, or rebuilt around the message without its managed
/// fields), which [`decode`] turns into the same `T` again.
fn decode_keeping<T: DeserializeOwned>(
    bytes: &[u8],
    keep_managed_fields: bool,
    keep_bytes: bool,
) -> Result<Kept<T>, Error> {
    let unknown = unwrap(bytes)?;
    let message = lookup::kind(&unknown.api_version, &unknown.kind).ok_or_else(|| {
        Error::new(format!(
            "{} {} is not a built-in kind of this table",
            unknown.api_version, unknown.kind
        ))
    })?;
    let raw = if keep_managed_fields {
        Cow::Borrowed(unknown.raw)
    } else {
        without_managed_fields(unknown.raw, message)?
    };
    let kept = keep_bytes.then(|| match &raw {
        Cow::Borrowed(_) => Box::from(bytes),
        Cow::Owned(raw) => envelope(&unknown.api_version, &unknown.kind, raw),
    });
    let obj = T::deserialize(Node::Object {
        bytes: &raw,
        message,
        type_meta: Some((unknown.kind, unknown.api_version)),
    })?;
    Ok((obj, kept))
}

/// The `k8s\0` + `runtime.Unknown` envelope of the message `raw`.
fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Box<[u8]> {
    let mut type_meta = Vec::with_capacity(api_version.len() + kind.len() + 4);
    wire_format::put_bytes(&mut type_meta, 1, api_version.as_bytes());
    wire_format::put_bytes(&mut type_meta, 2, kind.as_bytes());
    let mut out = Vec::with_capacity(MAGIC.len() + type_meta.len() + raw.len() + 8);
    out.extend_from_slice(MAGIC);
    wire_format::put_bytes(&mut out, 1, &type_meta);
    wire_format::put_bytes(&mut out, 2, raw);
    out.into_boxed_slice()
}

const OBJECT_META: &str = "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta";

/// `raw`, a message of `message`, without `metadata.managedFields`
/// (borrowed when it has none): the metadata field is written again
/// without them, everything else is copied as it is.
fn without_managed_fields<'a>(raw: &'a [u8], message: &Message) -> Result<Cow<'a, [u8]>, Error> {
    let Some((metadata, meta)) = message.fields.iter().find_map(|f| match f.value {
        Value::Message(i) if f.json == "metadata" && lookup::message(i).name == OBJECT_META => {
            Some((f.number, lookup::message(i)))
        }
        _ => None,
    }) else {
        return Ok(Cow::Borrowed(raw));
    };
    let managed = meta
        .fields
        .iter()
        .find(|f| f.json == "managedFields")
        .expect("ObjectMeta has managedFields")
        .number;
    let mut out = Vec::with_capacity(raw.len());
    let mut cut = false;
    for next in wire_format::spans(raw) {
        let (n, value, span) = next?;
        if n != metadata {
            out.extend_from_slice(&raw[span]);
            continue;
        }
        let meta = bytes_field(value, "metadata")?;
        let mut kept = Vec::with_capacity(meta.len());
        for next in wire_format::spans(meta) {
            let (n, _, span) = next?;
            if n == managed {
                cut = true;
            } else {
                kept.extend_from_slice(&meta[span]);
            }
        }
        wire_format::put_bytes(&mut out, metadata, &kept);
    }
    Ok(if cut {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(raw)
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
    decode_as(bytes, true)
}

/// Decodes a list of a built-in kind (the body of a LIST asked for as
/// protobuf).
pub fn decode_list<K: DeserializeOwned + Clone>(bytes: &[u8]) -> Result<ObjectList<K>, Error> {
    decode_as(bytes, true)
}

/// Decodes one frame of a protobuf watch stream (without its 4-byte length
/// prefix): a bare `metav1.WatchEvent` message, with no envelope of its
/// own, whose object is an envelope.
/// `BOOKMARK` objects carry only metadata and `ERROR` objects are a
/// `Status`, as in JSON.
pub fn decode_watch_event<K: DeserializeOwned + Clone>(
    frame: &[u8],
) -> Result<kube_core::WatchEvent<K>, Error> {
    Ok(watch_event(frame, true, false)?.0)
}

/// [`decode_watch_event`], leaving out the object's managed fields unless
/// `keep_managed_fields` (they are cut from the message before it is
/// decoded, so they cost no decoding); with `keep_bytes`, also the
/// envelope of an added, modified or deleted object as decoded (see
/// [`decode_keeping`]), for a cache that keeps objects encoded.
#[doc(hidden)]
pub fn watch_event<K: DeserializeOwned + Clone>(
    frame: &[u8],
    keep_managed_fields: bool,
    keep_bytes: bool,
) -> Result<Kept<kube_core::WatchEvent<K>>, Error> {
    use kube_core::WatchEvent;
    let (mut kind, mut object) = (Cow::Borrowed(""), None);
    for next in wire_format::fields(frame) {
        match next? {
            (1, raw) => kind = go_string(bytes_field(raw, "type")?),
            (2, raw) => object = wire_format::last(bytes_field(raw, "object")?, 1)?,
            _ => {}
        }
    }
    let object = bytes_field(
        object.ok_or_else(|| Error::new("a watch event without an object"))?,
        "object.raw",
    )?;
    let decoded = |event: fn(K) -> WatchEvent<K>| {
        let (obj, bytes) = decode_keeping::<K>(object, keep_managed_fields, keep_bytes)?;
        Ok::<_, Error>((event(obj), bytes))
    };
    Ok(match &*kind {
        "ADDED" => decoded(WatchEvent::Added)?,
        "MODIFIED" => decoded(WatchEvent::Modified)?,
        "DELETED" => decoded(WatchEvent::Deleted)?,
        // A bookmark's object is `K` with only its resourceVersion and
        // annotations set.
        "BOOKMARK" => (WatchEvent::Bookmark(decode_as(object, true)?), None),
        "ERROR" => (
            WatchEvent::Error(Box::new(decode_as::<Status>(object, true)?)),
            None,
        ),
        other => return Err(Error::new(format!("a watch event of type {other:?}"))),
    })
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube_core::WatchEvent;

    use super::*;
    use crate::protobuf::encode::{bytes, envelope};

    /// A ConfigMap whose metadata (between two data entries) has a name, a
    /// managed fields entry and a label.
    fn config_map() -> Vec<u8> {
        let managed = bytes(17, &bytes(1, b"kubectl"));
        let label = bytes(11, &[bytes(1, b"app"), bytes(2, b"x")].concat());
        let metadata = [bytes(1, b"a"), managed, label].concat();
        let entry = |k: &[u8], v: &[u8]| bytes(2, &[bytes(1, k), bytes(2, v)].concat());
        let raw = [
            entry(b"k1", b"v1"),
            bytes(1, &metadata),
            entry(b"k2", b"v2"),
        ]
        .concat();
        envelope("v1", "ConfigMap", &raw)
    }

    #[test]
    fn managed_fields_are_cut_before_decoding_and_nothing_else_is() {
        let kept: ConfigMap = decode_as(&config_map(), true).unwrap();
        assert_eq!(
            kept.metadata.managed_fields.as_ref().unwrap()[0]
                .manager
                .as_deref(),
            Some("kubectl")
        );
        let cut: ConfigMap = decode_as(&config_map(), false).unwrap();
        let mut expected = kept.clone();
        expected.metadata.managed_fields = None;
        assert_eq!(cut, expected);
        assert_eq!(cut.metadata.labels.unwrap()["app"], "x");
        assert_eq!(cut.data.unwrap().len(), 2);
    }

    #[test]
    fn a_message_without_managed_fields_is_not_copied() {
        let message = lookup::kind("v1", "ConfigMap").unwrap();
        let raw = bytes(1, &bytes(1, b"a"));
        assert!(matches!(
            without_managed_fields(&raw, message).unwrap(),
            Cow::Borrowed(_)
        ));
        // A kind with no ObjectMeta at all.
        let status = lookup::kind("v1", "Status").unwrap();
        assert!(matches!(
            without_managed_fields(&raw, status).unwrap(),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn watch_events_leave_out_managed_fields_when_asked() {
        let frame = [bytes(1, b"ADDED"), bytes(2, &bytes(1, &config_map()))].concat();
        let object = |keep| match watch_event::<ConfigMap>(&frame, keep, true).unwrap() {
            (WatchEvent::Added(cm), Some(bytes)) => (cm, bytes),
            other => panic!("{other:?}"),
        };
        let (kept, kept_bytes) = object(true);
        assert!(kept.metadata.managed_fields.is_some());
        assert_eq!(*kept_bytes, *config_map(), "the envelope as received");
        let (cut, cut_bytes) = object(false);
        assert!(cut.metadata.managed_fields.is_none());
        assert_eq!(cut.metadata.name.as_deref(), Some("a"));
        // The bytes kept decode into the object they were decoded into.
        assert_eq!(decode::<ConfigMap>(&kept_bytes).unwrap(), kept);
        assert_eq!(decode::<ConfigMap>(&cut_bytes).unwrap(), cut);
        assert!(cut_bytes.len() < kept_bytes.len());
        assert!(matches!(
            watch_event::<ConfigMap>(&frame, false, false).unwrap(),
            (WatchEvent::Added(_), None)
        ));
    }
}
