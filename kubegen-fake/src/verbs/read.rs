//! `get` and `list`: one object, or a collection filtered by label and
//! field selectors, at the newest revision or an older one, in pages
//! whose `continue` tokens read a consistent snapshot until compaction.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::request::ResourceCall;
use crate::resources::Resource;
use crate::selector::{Fields, Labels};
use crate::state::{State, as_version, selected};
use crate::status::ApiError;
use crate::store::{Key, Unreadable};

use super::key;

/// `GET` of one object.
pub fn get(state: &State, r: &Resource, call: &ResourceCall) -> Result<Value, ApiError> {
    let name = call.name.as_deref().unwrap_or_default();
    let object = state
        .store
        .get(&key(r, call.namespace.as_deref(), name))
        .ok_or_else(|| ApiError::not_found(&r.qualified(), &r.group, &r.plural, name))?;
    Ok(as_version(r, object))
}

/// The selectors of a list, watch or deletecollection request, checked
/// against the fields the resource supports.
pub fn selectors(r: &Resource, call: &ResourceCall) -> Result<(Labels, Fields), ApiError> {
    let get = |k: &str| call.query.get(k).map(String::as_str).unwrap_or("");
    let labels = Labels::parse(get("labelSelector")).map_err(ApiError::bad_request)?;
    let fields = Fields::parse(get("fieldSelector")).map_err(ApiError::bad_request)?;
    for label in fields.labels() {
        let known = matches!(label, "metadata.name" | "metadata.namespace")
            || r.selectable_fields.iter().any(|(l, _)| l == label);
        if !known {
            return Err(ApiError::bad_request(if r.crd.is_some() {
                format!("field label not supported: {label}")
            } else {
                let supported: Vec<String> = ["metadata.name", "metadata.namespace"]
                    .into_iter()
                    .map(String::from)
                    .chain(r.selectable_fields.iter().map(|(l, _)| l.clone()))
                    .map(|l| format!("{l:?}"))
                    .collect();
                format!(
                    "{label:?} is not a known field selector: only {}",
                    supported.join(", ")
                )
            }));
        }
    }
    Ok((labels, fields))
}

/// A `resourceVersion` query parameter as a number.
pub fn parse_rv(s: &str) -> Result<u64, ApiError> {
    s.parse()
        .map_err(|_| ApiError::bad_request(format!("invalid resource version: {s}")))
}

const TOO_OLD_CONTINUE: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

fn encode_continue(rv: u64, after: &Key) -> String {
    let start = if after.namespace.is_empty() {
        format!("{}\u{0}", after.name)
    } else {
        format!("{}/{}\u{0}", after.namespace, after.name)
    };
    STANDARD.encode(json!({"v": "meta.k8s.io/v1", "rv": rv, "start": start}).to_string())
}

fn decode_continue(token: &str, r: &Resource) -> Result<(u64, Key), ApiError> {
    let bad = || ApiError::bad_request(format!("continue key is not valid: {token}"));
    let bytes = STANDARD.decode(token).map_err(|_| bad())?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|_| bad())?;
    if v["v"] != "meta.k8s.io/v1" {
        return Err(bad());
    }
    let rv = v["rv"].as_u64().ok_or_else(bad)?;
    let start = v["start"]
        .as_str()
        .ok_or_else(bad)?
        .trim_end_matches('\u{0}');
    let (namespace, name) = start.split_once('/').unwrap_or(("", start));
    Ok((
        rv,
        Key {
            resource: r.id(),
            namespace: namespace.into(),
            name: name.into(),
        },
    ))
}

/// The 504 for a revision the store has not reached.
pub fn too_large(asked: u64, current: u64) -> ApiError {
    ApiError::from_parts(
        504,
        "Timeout",
        format!("Timeout: Too large resource version: {asked}, current: {current}"),
        Some(json!({
            "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
            "retryAfterSeconds": 1,
        })),
    )
}

/// `GET` of a collection.
pub fn list(state: &State, r: &Resource, call: &ResourceCall) -> Result<Value, ApiError> {
    let (labels, fields) = selectors(r, call)?;
    let q = |k: &str| call.query.get(k).map(String::as_str).unwrap_or("");
    let limit: usize = match q("limit") {
        "" => 0,
        l => l
            .parse()
            .map_err(|_| ApiError::bad_request(format!("invalid limit: {l}")))?,
    };
    let (at, after) = match q("continue") {
        "" => {
            let rv = match (q("resourceVersion"), q("resourceVersionMatch")) {
                ("" | "0", _) => None,
                (rv, "Exact") => Some(parse_rv(rv)?),
                (rv, _) => {
                    // NotOlderThan: the newest state, once the store has
                    // reached `rv`.
                    let asked = parse_rv(rv)?;
                    if asked > state.store.revision() {
                        return Err(too_large(asked, state.store.revision()));
                    }
                    None
                }
            };
            (rv, None)
        }
        token => {
            if !q("resourceVersion").is_empty() {
                return Err(ApiError::bad_request(
                    "specifying resource version is not allowed when using continue",
                ));
            }
            let (rv, after) = decode_continue(token, r)?;
            (Some(rv), Some(after))
        }
    };
    let rv = at.unwrap_or(state.store.revision());
    let items = state
        .store
        .list(&r.id(), call.namespace.as_deref(), Some(rv), after.as_ref())
        .map_err(|e| match (e, after.is_some()) {
            (Unreadable::Compacted(..), true) => ApiError::expired(TOO_OLD_CONTINUE),
            (Unreadable::Compacted(..), false) => {
                ApiError::expired("The resourceVersion for the provided list is too old.")
            }
            (Unreadable::Future(asked, current), _) => too_large(asked, current),
        })?;
    let matched: Vec<_> = items
        .into_iter()
        .filter(|(_, o)| selected(r, &labels, &fields, o))
        .collect();
    let mut metadata = json!({"resourceVersion": rv.to_string()});
    let page = if limit > 0 && matched.len() > limit {
        metadata["continue"] = json!(encode_continue(rv, matched[limit - 1].0));
        if labels == Labels::default() && fields == Fields::default() {
            metadata["remainingItemCount"] = json!(matched.len() - limit);
        }
        &matched[..limit]
    } else {
        &matched[..]
    };
    let out: Vec<Value> = page.iter().map(|(_, o)| item(r, o)).collect();
    if r.crd.is_some() && metadata.get("continue").is_none() {
        // Lists of custom resources always carry the token, empty at the end.
        metadata["continue"] = json!("");
    }
    Ok(json!({
        "kind": r.list_kind(),
        "apiVersion": r.api_version(),
        "metadata": metadata,
        "items": out,
    }))
}

/// A list item: custom resources keep `apiVersion` and `kind`; the
/// built-in kinds' list items carry neither (typed lists serialise their
/// items without type meta).
fn item(r: &Resource, o: &Value) -> Value {
    let mut o = as_version(r, o);
    if r.crd.is_none()
        && let Some(m) = o.as_object_mut()
    {
        m.remove("apiVersion");
        m.remove("kind");
    }
    o
}
