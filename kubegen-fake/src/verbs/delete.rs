//! `delete` and `deletecollection` as the generic registry store runs
//! them: preconditions, the propagation policy turned into the
//! `orphan` or `foregroundDeletion` finalizer, graceful deletion (a
//! `deletionTimestamp` while finalizers remain, the generation bumped),
//! and the answer: the object while it remains, a `Success` status (or
//! the object, for the kinds that return it) once it is gone.

use serde_json::{Value, json};

use crate::request::ResourceCall;
use crate::resources::Resource;
use crate::state::{State, as_version, finalizers, selected};
use crate::status::ApiError;
use crate::store::Key;

use super::{key, meta_str, read};

/// `DeleteOptions`, from the body and the query.
#[derive(Clone, Debug, Default)]
pub struct Options {
    policy: Option<String>,
    uid: Option<String>,
    resource_version: Option<String>,
    dry_run: bool,
}

/// Reads the options of a delete request.
pub fn options(call: &ResourceCall, body: &[u8]) -> Result<Options, ApiError> {
    let body: Value = if body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        serde_json::from_slice(body)
            .map_err(|e| ApiError::bad_request(format!("couldn't decode DeleteOptions: {e}")))?
    };
    let text = |p: &str| body.pointer(p).and_then(Value::as_str).map(String::from);
    let mut policy = call
        .query
        .get("propagationPolicy")
        .cloned()
        .or_else(|| text("/propagationPolicy"));
    let orphan = body["orphanDependents"]
        .as_bool()
        .or_else(|| call.query.get("orphanDependents").map(|o| o == "true"));
    match (orphan, policy.as_deref()) {
        (Some(_), Some(_)) => {
            return Err(ApiError::invalid(
                "DeleteOptions",
                "",
                "",
                &[kubegen_core::validate::field::FieldError::invalid(
                    "propagationPolicy",
                    json!(policy),
                    "orphanDependents and deletionPropagation cannot be both set",
                )],
            ));
        }
        (Some(true), None) => policy = Some("Orphan".into()),
        (Some(false), None) => policy = Some("Background".into()),
        _ => {}
    }
    if let Some(p) = &policy
        && !matches!(p.as_str(), "Orphan" | "Background" | "Foreground")
    {
        return Err(ApiError::invalid(
            "DeleteOptions",
            "",
            "",
            &[kubegen_core::validate::field::FieldError::new(
                kubegen_core::validate::field::ErrorType::NotSupported,
                "propagationPolicy",
                Some(json!(p)),
                "supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
            )],
        ));
    }
    let dry_run = call.query.get("dryRun").is_some_and(|d| d == "All")
        || body["dryRun"]
            .as_array()
            .is_some_and(|d| d.iter().any(|x| x == "All"));
    Ok(Options {
        policy,
        uid: text("/preconditions/uid"),
        resource_version: text("/preconditions/resourceVersion"),
        dry_run,
    })
}

/// The kinds whose delete answers with the object rather than a status.
fn returns_object(r: &Resource) -> bool {
    r.crd.is_none() && matches!(r.kind.as_str(), "Pod" | "Service")
}

/// `DELETE` of one object.
pub fn delete(
    state: &mut State,
    r: &Resource,
    call: &ResourceCall,
    o: &Options,
) -> Result<(u16, Value), ApiError> {
    let name = call.name.clone().unwrap_or_default();
    delete_key(state, r, key(r, call.namespace.as_deref(), &name), o)
}

/// Deletes the object at `k` (the garbage collector and the namespace
/// controller use this too).
pub fn delete_key(
    state: &mut State,
    r: &Resource,
    k: Key,
    o: &Options,
) -> Result<(u16, Value), ApiError> {
    let name = k.name.clone();
    let Some(old) = state.store.get(&k).map(|o| (**o).clone()) else {
        return Err(ApiError::not_found(
            &r.qualified(),
            &r.group,
            &r.plural,
            &name,
        ));
    };
    let precondition = |what: &str, want: &str, have: &str| {
        ApiError::precondition(&r.kind, &r.group, &name, what, want, have)
    };
    if let Some(uid) = &o.uid {
        let have = meta_str(&old, "uid");
        if *uid != have {
            return Err(precondition("UID", uid, &have));
        }
    }
    if let Some(rv) = &o.resource_version {
        let have = meta_str(&old, "resourceVersion");
        if *rv != have {
            return Err(precondition("ResourceVersion", rv, &have));
        }
    }
    let mut object = old.clone();
    let mut fin = finalizers(&object);
    let had = fin.clone();
    match o.policy.as_deref() {
        Some("Orphan") => {
            fin.retain(|f| f != "foregroundDeletion");
            if !fin.iter().any(|f| f == "orphan") {
                fin.push("orphan".into());
            }
        }
        Some("Foreground") => {
            fin.retain(|f| f != "orphan");
            if !fin.iter().any(|f| f == "foregroundDeletion") {
                fin.push("foregroundDeletion".into());
            }
        }
        Some("Background") => fin.retain(|f| f != "orphan" && f != "foregroundDeletion"),
        _ => {}
    }
    let deleting = old.pointer("/metadata/deletionTimestamp").is_some();
    // A namespace waits for its `spec.finalizers` (the namespace
    // controller empties it first).
    let namespace_waits = r.crd.is_none()
        && r.kind == "Namespace"
        && old
            .pointer("/spec/finalizers")
            .and_then(Value::as_array)
            .is_some_and(|f| !f.is_empty());
    if fin.is_empty() && !namespace_waits {
        if o.dry_run {
            return Ok(answer(r, &object));
        }
        let change = state.commit(k, None);
        let mut gone = change.old.as_deref().cloned().unwrap_or(object);
        gone["metadata"]["resourceVersion"] = json!(change.rv.to_string());
        return Ok(answer(r, &gone));
    }
    if deleting && fin == had {
        return Ok((200, as_version(r, &old)));
    }
    if fin.is_empty() {
        if let Some(m) = object["metadata"].as_object_mut() {
            m.remove("finalizers");
        }
    } else {
        object["metadata"]["finalizers"] = json!(fin);
    }
    if namespace_waits {
        object["status"]["phase"] = json!("Terminating");
    }
    if !deleting {
        object["metadata"]["deletionTimestamp"] = json!(state.clock.now());
        object["metadata"]["deletionGracePeriodSeconds"] = json!(0);
        if let Some(g) = object
            .pointer("/metadata/generation")
            .and_then(Value::as_i64)
        {
            object["metadata"]["generation"] = json!(g + 1);
        }
    }
    if o.dry_run {
        return Ok((200, as_version(r, &object)));
    }
    let change = state.commit(k, Some(object));
    Ok((
        200,
        as_version(r, change.new.as_deref().unwrap_or(&Value::Null)),
    ))
}

fn answer(r: &Resource, gone: &Value) -> (u16, Value) {
    if returns_object(r) {
        return (200, as_version(r, gone));
    }
    let mut details = json!({
        "name": meta_str(gone, "name"),
        "kind": r.plural,
        "uid": meta_str(gone, "uid"),
    });
    if !r.group.is_empty() {
        details["group"] = json!(r.group);
    }
    (
        200,
        json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Success",
            "details": details,
        }),
    )
}

/// `DELETE` of a collection: every object the selectors match, each as
/// `delete` deletes it; answers with the list of what was deleted.
pub fn delete_collection(
    state: &mut State,
    r: &Resource,
    call: &ResourceCall,
    o: &Options,
) -> Result<(u16, Value), ApiError> {
    let (labels, fields) = read::selectors(r, call)?;
    let keys: Vec<Key> = state
        .store
        .list(&r.id(), call.namespace.as_deref(), None, None)
        .map_err(|_| ApiError::bad_request("unreadable"))?
        .into_iter()
        .filter(|(_, obj)| selected(r, &labels, &fields, obj))
        .map(|(k, _)| k.clone())
        .collect();
    let mut items = Vec::new();
    for k in keys {
        let before = state.store.get(&k).map(|x| (**x).clone());
        match delete_key(state, r, k, o) {
            Ok((_, v)) if v["kind"] == "Status" => items.extend(before),
            Ok((_, v)) => items.push(v),
            Err(e) if e.code == 404 => {}
            Err(e) => return Err(e),
        }
    }
    Ok((
        200,
        json!({
            "kind": r.list_kind(),
            "apiVersion": r.api_version(),
            "metadata": {"resourceVersion": state.store.revision().to_string()},
            "items": items,
        }),
    ))
}

impl Options {
    /// Options with a propagation policy, for the controllers.
    pub fn with_policy(policy: &str) -> Options {
        Options {
            policy: Some(policy.into()),
            ..Options::default()
        }
    }
}
