//! Objects as the informer receives them ([`Received`]: the object, and the
//! bytes a compact cache may keep for it), and what the watch decodes them
//! through when the informer drops managed fields (the default transform):
//! [`Wire`], which sees each object's JSON
//! as the apiserver sent it. `metadata.managedFields` is cut out of those
//! bytes before the object is decoded, so their JSON tree is never built,
//! and a compact cache keeps the very bytes the object was decoded from
//! instead of encoding it again and checking that the encoding decodes.
//!
//! Anything unusual — a key written with escapes, `managedFields` still
//! present after the cut (a duplicate key, say) — falls back to what the
//! plain path does: the transform drops the field from the decoded object
//! and a compact cache encodes it.

use std::borrow::Cow;
use std::fmt::{self, Debug};
use std::ops::Range;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubegen_client::core::{DynamicResourceScope, Resource};
use serde::de::{self, DeserializeOwned, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// An object as a watch or list delivers it to the informer: `K`, and the
/// bytes (JSON, or a protobuf envelope) a compact cache may keep for it.
pub(super) trait Received<K>:
    Resource + Clone + DeserializeOwned + Debug + Send + 'static
{
    /// An object decoded from protobuf, and the envelope it decodes from
    /// (when kept).
    fn decoded(obj: K, protobuf: Option<Box<[u8]>>) -> Self;

    /// The object, and bytes that decode into exactly it (when known).
    fn into_parts(self) -> (K, Option<Box<[u8]>>);
}

/// The plain path: kube decodes `K` and nothing else is known.
impl<K> Received<K> for K
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + 'static,
{
    fn decoded(obj: K, _: Option<Box<[u8]>>) -> Self {
        obj
    }

    fn into_parts(self) -> (K, Option<Box<[u8]>>) {
        (self, None)
    }
}

/// An object decoded from its JSON without `metadata.managedFields`.
#[derive(Clone)]
pub(super) struct Wire<K> {
    obj: K,
    /// The bytes `obj` was decoded from; `None` when they still held
    /// managed fields.
    json: Option<Box<[u8]>>,
}

impl<K: Debug> Debug for Wire<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.obj.fmt(f)
    }
}

impl<'de, K: Resource + DeserializeOwned> Deserialize<'de> for Wire<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        let json: Box<str> = match managed_fields_span(raw.get()) {
            Some(span) => cut(raw.get(), span).into_boxed_str(),
            None => raw.into(),
        };
        let obj: K = serde_json::from_str(&json).map_err(de::Error::custom)?;
        let json = obj
            .meta()
            .managed_fields
            .is_none()
            .then(|| json.into_boxed_bytes());
        Ok(Wire { obj, json })
    }
}

/// `Wire<K>` is a resource only for its metadata: the watcher requests the
/// informer's URL and reads each object's resourceVersion, and the
/// informer its name and labels. Nothing asks for its kind or URL by type,
/// which are empty.
impl<K: Resource> Resource for Wire<K> {
    type DynamicType = ();
    type Scope = DynamicResourceScope;

    fn kind(_: &()) -> Cow<'_, str> {
        Cow::Borrowed("")
    }

    fn group(_: &()) -> Cow<'_, str> {
        Cow::Borrowed("")
    }

    fn version(_: &()) -> Cow<'_, str> {
        Cow::Borrowed("")
    }

    fn plural(_: &()) -> Cow<'_, str> {
        Cow::Borrowed("")
    }

    fn metadata_api() -> bool {
        K::metadata_api()
    }

    fn url_path(_: &(), _namespace: Option<&str>) -> String {
        String::new()
    }

    fn meta(&self) -> &ObjectMeta {
        self.obj.meta()
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        self.obj.meta_mut()
    }
}

impl<K> Received<K> for Wire<K>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + 'static,
{
    fn decoded(obj: K, protobuf: Option<Box<[u8]>>) -> Self {
        Wire {
            obj,
            json: protobuf,
        }
    }

    fn into_parts(self) -> (K, Option<Box<[u8]>>) {
        (self.obj, self.json)
    }
}

/// `json` without the bytes in `span`.
fn cut(json: &str, span: Range<usize>) -> String {
    let mut out = String::with_capacity(json.len() - span.len());
    out.push_str(&json[..span.start]);
    out.push_str(&json[span.end..]);
    out
}

/// The bytes to cut from the object `json` to drop `metadata.managedFields`:
/// the member from its key's opening quote to the end of its value, with
/// the comma after it (or, for the last member, the one before it). `None`
/// when there is none, or when the keys on the way are written with escapes
/// (they cannot be located in the text then).
pub(super) fn managed_fields_span(json: &str) -> Option<Range<usize>> {
    let base = json.as_ptr() as usize;
    let mut de = serde_json::Deserializer::from_str(json);
    let member = de
        .deserialize_map(Members {
            path: &["metadata", "managedFields"],
        })
        .ok()??;
    let offset = |s: &str| s.as_ptr() as usize - base;
    let quote = offset(member.key) - 1;
    let end = offset(member.value) + member.value.len();
    let bytes = json.as_bytes();
    let after = end + count_ws(&bytes[end..]);
    if bytes.get(after) == Some(&b',') {
        return Some(quote..after + 1);
    }
    let before = quote - count_ws_back(&bytes[..quote]);
    if before > 0 && bytes[before - 1] == b',' {
        return Some(before - 1..end);
    }
    Some(quote..end)
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn count_ws(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|&&b| is_ws(b)).count()
}

fn count_ws_back(bytes: &[u8]) -> usize {
    bytes.iter().rev().take_while(|&&b| is_ws(b)).count()
}

/// A member found by [`Members`]: its key (without the quotes) and value,
/// both borrowed from the text.
struct Member<'a> {
    key: &'a str,
    value: &'a str,
}

/// Walks an object along `path` (a key per level) and finds the last key's
/// member; other values are skipped unparsed.
struct Members<'p> {
    path: &'p [&'p str],
}

impl<'de> Visitor<'de> for Members<'_> {
    type Value = Option<Member<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (want, rest) = self.path.split_first().expect("a non-empty path");
        let mut found = None;
        while let Some(key) = map.next_key::<&'de str>()? {
            if key != *want || found.is_some() {
                map.next_value::<IgnoredAny>()?;
            } else if rest.is_empty() {
                let value = map.next_value::<&'de RawValue>()?;
                found = Some(Member {
                    key,
                    value: value.get(),
                });
            } else {
                found = map.next_value_seed(Nested(Members { path: rest }))?;
            }
        }
        Ok(found)
    }
}

/// [`Members`] one level down; a value that is not an object has no
/// members.
struct Nested<'p>(Members<'p>);

impl<'de> de::DeserializeSeed<'de> for Nested<'_> {
    type Value = Option<Member<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(OrNone(self.0))
    }
}

/// Visits an object with [`Members`]; any other value gives `None`.
struct OrNone<'p>(Members<'p>);

impl<'de> Visitor<'de> for OrNone<'_> {
    type Value = Option<Member<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(map)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use proptest::prelude::*;

    use super::*;
    use crate::informer::strip_managed_fields;

    fn wire(json: &str) -> Wire<ConfigMap> {
        serde_json::from_str(json).expect("decodes")
    }

    const ENTRY: &str = r#"[{"manager":"kubectl","operation":"Apply","fieldsV1":{"f:data":{}}}]"#;

    #[test]
    fn cuts_the_member_and_one_comma_wherever_it_sits() {
        let cases = [
            (
                format!(r#"{{"metadata":{{"managedFields":{ENTRY},"name":"a"}}}}"#),
                r#"{"metadata":{"name":"a"}}"#,
            ),
            (
                format!(r#"{{"metadata":{{"name":"a","managedFields":{ENTRY},"namespace":"n"}}}}"#),
                r#"{"metadata":{"name":"a","namespace":"n"}}"#,
            ),
            (
                format!(
                    r#"{{"metadata":{{"name":"a" ,  "managedFields" : {ENTRY} }},"data":{{}}}}"#
                ),
                r#"{"metadata":{"name":"a" }, "data":{}}"#,
            ),
            (
                format!(r#"{{"metadata":{{"managedFields":{ENTRY}}}}}"#),
                r#"{"metadata":{}}"#,
            ),
        ];
        for (json, want) in &cases {
            let span = managed_fields_span(json).expect("found");
            let got = cut(json, span);
            let got: serde_json::Value = serde_json::from_str(&got).expect("still JSON");
            let want: serde_json::Value = serde_json::from_str(want).unwrap();
            assert_eq!(got, want, "{json}");
        }
    }

    #[test]
    fn finds_nothing_where_there_is_nothing_to_cut() {
        for json in [
            r#"{"metadata":{"name":"a"}}"#.to_string(),
            // Not under metadata.
            format!(r#"{{"managedFields":{ENTRY},"spec":{{"metadata":{{}}}}}}"#),
            r#"{"data":{"managedFields":"x"},"metadata":{"name":"a"}}"#.to_string(),
            // metadata that is not an object.
            r#"{"metadata":null}"#.to_string(),
            r#"{"metadata":[1,{"managedFields":[]}]}"#.to_string(),
            // A key on the way written with an escape cannot be located.
            format!(r#"{{"metadat\u0061":{{"managedFields":{ENTRY}}}}}"#),
            format!(r#"{{"metadata":{{"managedField\u0073":{ENTRY}}}}}"#),
            "[]".to_string(),
        ] {
            assert_eq!(managed_fields_span(&json), None, "{json}");
        }
    }

    #[test]
    fn keeps_the_bytes_the_object_decodes_from() {
        let json = format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"a","managedFields":{ENTRY},"resourceVersion":"7"}},"data":{{"k":"v"}}}}"#
        );
        let decoded = wire(&json);
        assert_eq!(decoded.obj.metadata.managed_fields, None);
        assert_eq!(decoded.obj.metadata.resource_version.as_deref(), Some("7"));
        let kept = decoded.json.as_deref().expect("the bytes are kept");
        assert!(!std::str::from_utf8(kept).unwrap().contains("managedFields"));
        assert_eq!(
            serde_json::from_slice::<ConfigMap>(kept).unwrap(),
            decoded.obj
        );
    }

    /// kube decodes lists and watch events with `Wire` inside its own
    /// types; both must hand `Wire` the object's text itself.
    #[test]
    fn decodes_inside_kube_lists_and_watch_events() {
        let object = format!(
            r#"{{"metadata":{{"name":"a","managedFields":{ENTRY},"resourceVersion":"3"}},"data":{{"k":"v"}}}}"#
        );
        let list = format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMapList","metadata":{{"resourceVersion":"5"}},"items":[{object},{object}]}}"#
        );
        let list: kubegen_client::core::ObjectList<Wire<ConfigMap>> =
            serde_json::from_str(&list).unwrap();
        assert_eq!(list.items.len(), 2);
        let event = format!(r#"{{"type":"MODIFIED","object":{object}}}"#);
        let event: kubegen_client::core::WatchEvent<Wire<ConfigMap>> =
            serde_json::from_str(&event).unwrap();
        let kubegen_client::core::WatchEvent::Modified(from_event) = event else {
            panic!("a modification");
        };
        for received in list.items.into_iter().chain([from_event]) {
            let (obj, json) = Received::<ConfigMap>::into_parts(received);
            assert_eq!(obj.metadata.managed_fields, None);
            assert_eq!(obj.data.unwrap()["k"], "v");
            assert!(json.is_some());
        }
    }

    #[test]
    fn managed_fields_left_after_the_cut_give_no_bytes() {
        // A duplicate: the first is cut, the decoder still sees the second.
        let json = format!(
            r#"{{"metadata":{{"managedFields":{ENTRY},"name":"a","managedFields":{ENTRY}}}}}"#
        );
        let decoded = wire(&json);
        assert!(decoded.obj.metadata.managed_fields.is_some());
        assert!(decoded.json.is_none());
    }

    /// One way of writing a ConfigMap's JSON: which members, in which
    /// order, with which spacing and which keys escaped.
    #[derive(Debug, Clone)]
    struct Shape {
        order: Vec<usize>,
        meta_order: Vec<usize>,
        managed: u8,
        spaces: Vec<&'static str>,
        escape: Option<usize>,
        data: Vec<(String, String)>,
    }

    fn shape() -> impl Strategy<Value = Shape> {
        (
            Just((0..4).collect::<Vec<_>>()).prop_shuffle(),
            Just((0..5).collect::<Vec<_>>()).prop_shuffle(),
            0u8..4,
            prop::collection::vec(prop::sample::select(vec!["", " ", "\n", "\t ", "\r\n"]), 64),
            prop::option::of(0usize..9),
            prop::collection::vec(("[a-z\"\\\\é]{0,6}", "[ -~é\n]{0,8}"), 0..3),
        )
            .prop_map(|(order, meta_order, managed, spaces, escape, data)| Shape {
                order,
                meta_order,
                managed,
                spaces,
                escape,
                data,
            })
    }

    impl Shape {
        fn render(&self) -> String {
            let mut ws = self.spaces.iter().cycle();
            let mut key_no = 0;
            let mut key = |k: &str| {
                key_no += 1;
                if self.escape == Some(key_no) {
                    // Same key, first letter written as a \u escape.
                    let mut chars = k.chars();
                    let first = chars.next().unwrap();
                    format!("\"\\u{:04x}{}\"", first as u32, chars.as_str())
                } else {
                    format!("\"{k}\"")
                }
            };
            let managed = format!(
                r#"[{{"manager":"m{}","operation":"Update"}}]"#,
                self.managed
            );
            let meta_members: Vec<Option<(String, String)>> = vec![
                Some((key("name"), "\"a\"".into())),
                Some((key("namespace"), "\"n\"".into())),
                Some((key("resourceVersion"), "\"9\"".into())),
                (self.managed > 0).then(|| (key("managedFields"), managed.clone())),
                (self.managed == 3).then(|| (key("labels"), r#"{"managedFields":"x"}"#.into())),
            ];
            let meta = object(&self.meta_order, meta_members, &mut ws);
            let data = self
                .data
                .iter()
                .map(|(k, v)| {
                    let k = serde_json::to_string(k).unwrap();
                    let v = serde_json::to_string(v).unwrap();
                    member(k, v, &mut ws)
                })
                .collect::<Vec<_>>()
                .join(",");
            let members: Vec<Option<(String, String)>> = vec![
                Some((key("apiVersion"), "\"v1\"".into())),
                Some((key("kind"), "\"ConfigMap\"".into())),
                Some((key("metadata"), meta)),
                Some((key("data"), format!("{{{data}}}"))),
            ];
            object(&self.order, members, &mut ws)
        }
    }

    /// One member, `key: value`, with whitespace from `ws` around each.
    fn member(key: String, value: String, ws: &mut dyn Iterator<Item = &&str>) -> String {
        format!(
            "{}{key}{}:{}{value}{}",
            ws.next().unwrap(),
            ws.next().unwrap(),
            ws.next().unwrap(),
            ws.next().unwrap()
        )
    }

    /// An object of the present `members`, taken in `order`.
    fn object(
        order: &[usize],
        mut members: Vec<Option<(String, String)>>,
        ws: &mut dyn Iterator<Item = &&str>,
    ) -> String {
        let body = order
            .iter()
            .filter_map(|&i| members[i].take())
            .map(|(k, v)| member(k, v, ws))
            .collect::<Vec<_>>()
            .join(",");
        format!("{{{body}}}")
    }

    proptest! {
        /// Differential: decoding through `Wire`, then the transform, gives
        /// what the plain path gives (decode, then the transform); kept
        /// bytes decode into exactly that object; and the bytes are kept
        /// whenever no key is escaped.
        #[test]
        fn wire_decodes_as_the_plain_path_does(shape in shape()) {
            let json = shape.render();
            let mut plain: ConfigMap = serde_json::from_str(&json).expect("valid JSON");
            strip_managed_fields(&mut plain);
            let decoded = wire(&json);
            // What the informer's prepare step does next.
            let mut obj = decoded.obj.clone();
            strip_managed_fields(&mut obj);
            prop_assert_eq!(&obj, &plain, "{}", json);
            match &decoded.json {
                Some(kept) => {
                    prop_assert_eq!(&serde_json::from_slice::<ConfigMap>(kept).unwrap(), &plain);
                }
                None => prop_assert!(shape.escape.is_some(), "fast path not taken for {}", json),
            }
        }
    }
}
