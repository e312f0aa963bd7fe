//! Finalizers: adding and removing one with guarded JSON patches, and the
//! apply/cleanup flow a reconciler runs through [`finalizer`].
//!
//! Every patch carries the object's `resourceVersion` (a `replace` of
//! `/metadata/resourceVersion`, which the API server treats as a
//! precondition) and a `test` of the finalizers it rewrites, so a
//! concurrent writer makes the patch fail with `409 Conflict` instead of
//! being clobbered. The flow retries such conflicts on a fresh read.
//!
//! ```no_run
//! use std::sync::Arc;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::Api;
//! use kubegen::finalizer::{finalizer, FinalizerEvent};
//!
//! # async fn reconcile(api: Api<ConfigMap>, obj: Arc<ConfigMap>) -> Result<(), Box<dyn std::error::Error>> {
//! let outcome = finalizer(&api, "example.com/cleanup", obj, |event| async move {
//!     match event {
//!         FinalizerEvent::Apply(cm) => { /* create what `cm` asks for */ let _ = cm; }
//!         FinalizerEvent::Cleanup(cm) => { /* delete what `cm` created */ let _ = cm; }
//!     }
//!     Ok::<_, std::io::Error>(())
//! })
//! .await?;
//! # drop(outcome);
//! # Ok(()) }
//! ```

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;

use kubegen_client::api::{Patch, PatchParams};
use kubegen_client::{Api, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::api_errors::{IsConflict, is_not_found};
use crate::client::retry_on_conflict;

/// What the reconciler is asked to do by [`finalizer`].
#[derive(Debug, Clone)]
pub enum FinalizerEvent<K> {
    /// The object lives and carries the finalizer: bring the world in line
    /// with it.
    Apply(Arc<K>),
    /// The object is being deleted and still carries the finalizer: clean up
    /// whatever it caused outside Kubernetes' garbage collection. The
    /// finalizer is removed once this succeeds.
    Cleanup(Arc<K>),
}

/// What [`finalizer`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinalizerOutcome<T> {
    /// The apply step ran (after the finalizer was added, if it was missing).
    Applied(T),
    /// The cleanup step ran and the finalizer was removed.
    CleanedUp(T),
    /// The object is being deleted without our finalizer: nothing to do.
    Skipped,
}

/// Why [`finalizer`] failed.
#[derive(Debug, thiserror::Error)]
pub enum FinalizerError<E: std::error::Error + 'static> {
    /// The apply step failed.
    #[error("apply failed: {0}")]
    Apply(#[source] E),
    /// The cleanup step failed; the finalizer stays.
    #[error("cleanup failed: {0}")]
    Cleanup(#[source] E),
    /// Adding the finalizer failed.
    #[error("failed to add the finalizer: {0}")]
    AddFinalizer(#[source] kubegen_client::Error),
    /// Removing the finalizer failed (cleanup had succeeded).
    #[error("failed to remove the finalizer: {0}")]
    RemoveFinalizer(#[source] kubegen_client::Error),
    /// The object has no name.
    #[error("the object has no name")]
    UnnamedObject,
}

/// Whether `obj` carries `finalizer_name`.
pub fn has_finalizer<K: Resource>(obj: &K, finalizer_name: &str) -> bool {
    obj.finalizers().iter().any(|f| f == finalizer_name)
}

/// Adds `finalizer_name` to `obj` unless it is there already (then `obj` is
/// returned without a request). Fails with `409 Conflict` when the object
/// changed on the server since `obj` was read.
pub async fn add_finalizer<K>(
    api: &Api<K>,
    obj: &K,
    finalizer_name: &str,
) -> Result<K, kubegen_client::Error>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
{
    if has_finalizer(obj, finalizer_name) {
        return Ok(obj.clone());
    }
    let name = object_name(obj)?;
    let ops = add_ops(obj, finalizer_name);
    patch(api, &name, ops).await
}

/// Removes `finalizer_name` from `obj` if it is there (else `obj` is
/// returned without a request). Fails with `409 Conflict` when the object
/// changed on the server since `obj` was read. When the last finalizer of
/// an object being deleted goes, the server deletes the object.
pub async fn remove_finalizer<K>(
    api: &Api<K>,
    obj: &K,
    finalizer_name: &str,
) -> Result<K, kubegen_client::Error>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
{
    let Some(ops) = remove_ops(obj, finalizer_name) else {
        return Ok(obj.clone());
    };
    let name = object_name(obj)?;
    patch(api, &name, ops).await
}

/// The guarded JSON patch adding `finalizer_name`.
fn add_ops<K: Resource>(obj: &K, finalizer_name: &str) -> Vec<Value> {
    let mut ops = Vec::new();
    let present = obj.meta().finalizers.as_ref();
    match present {
        Some(list) => {
            ops.push(json!({"op": "test", "path": "/metadata/finalizers", "value": list}));
            ops.extend(version_guard(obj));
            ops.push(
                json!({"op": "add", "path": "/metadata/finalizers/-", "value": finalizer_name}),
            );
        }
        None => {
            ops.extend(version_guard(obj));
            ops.push(
                json!({"op": "add", "path": "/metadata/finalizers", "value": [finalizer_name]}),
            );
        }
    }
    ops
}

/// The guarded JSON patch removing `finalizer_name`, if present.
fn remove_ops<K: Resource>(obj: &K, finalizer_name: &str) -> Option<Vec<Value>> {
    let index = obj.finalizers().iter().position(|f| f == finalizer_name)?;
    let path = format!("/metadata/finalizers/{index}");
    let mut ops = vec![json!({"op": "test", "path": path, "value": finalizer_name})];
    ops.extend(version_guard(obj));
    ops.push(json!({"op": "remove", "path": path}));
    Some(ops)
}

/// Writing the read `resourceVersion` back makes it a precondition.
fn version_guard<K: Resource>(obj: &K) -> Option<Value> {
    obj.meta()
        .resource_version
        .as_ref()
        .map(|rv| json!({"op": "replace", "path": "/metadata/resourceVersion", "value": rv}))
}

async fn patch<K>(api: &Api<K>, name: &str, ops: Vec<Value>) -> Result<K, kubegen_client::Error>
where
    K: Resource + Clone + DeserializeOwned + Debug,
{
    let patch: json_patch::Patch =
        serde_json::from_value(Value::Array(ops)).map_err(kubegen_client::Error::SerdeError)?;
    api.patch(name, &PatchParams::default(), &Patch::Json::<()>(patch))
        .await
}

fn object_name<K: Resource>(obj: &K) -> Result<String, kubegen_client::Error> {
    obj.meta().name.clone().ok_or_else(|| {
        kubegen_client::Error::BuildRequest(kubegen_client::core::request::Error::Validation(
            "the object has no name".into(),
        ))
    })
}

/// Runs one reconciliation of `obj` through the finalizer `finalizer_name`:
///
/// * a live object without the finalizer gets it (guarded patch, retried on
///   a fresh read after a conflict), then `reconcile(Apply(updated))` runs;
/// * a live object with it: `reconcile(Apply(obj))`;
/// * an object being deleted with it: `reconcile(Cleanup(obj))`, then the
///   finalizer is removed (retried on conflicts; an object already gone
///   counts as done);
/// * an object being deleted without it: nothing ([`FinalizerOutcome::Skipped`]).
pub async fn finalizer<K, T, E, F, Fut>(
    api: &Api<K>,
    finalizer_name: &str,
    obj: Arc<K>,
    reconcile: F,
) -> Result<FinalizerOutcome<T>, FinalizerError<E>>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    E: std::error::Error + 'static,
    F: FnOnce(FinalizerEvent<K>) -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let name = obj
        .meta()
        .name
        .clone()
        .ok_or(FinalizerError::UnnamedObject)?;
    let present = has_finalizer(obj.as_ref(), finalizer_name);
    if obj.meta().deletion_timestamp.is_some() {
        if !present {
            return Ok(FinalizerOutcome::Skipped);
        }
        let done = reconcile(FinalizerEvent::Cleanup(obj.clone()))
            .await
            .map_err(FinalizerError::Cleanup)?;
        let removed = match remove_finalizer(api, obj.as_ref(), finalizer_name).await {
            Err(error) if error.is_conflict() => {
                retry_on_conflict(|| async {
                    match api.get_opt(&name).await? {
                        Some(fresh) => remove_finalizer(api, &fresh, finalizer_name)
                            .await
                            .map(Some),
                        None => Ok(None),
                    }
                })
                .await
            }
            Err(kubegen_client::Error::Api(status)) if is_not_found(&status) => Ok(None),
            other => other.map(Some),
        };
        removed.map_err(FinalizerError::RemoveFinalizer)?;
        return Ok(FinalizerOutcome::CleanedUp(done));
    }
    let obj = if present {
        obj
    } else {
        let added = match add_finalizer(api, obj.as_ref(), finalizer_name).await {
            Err(error) if error.is_conflict() => {
                retry_on_conflict(|| async {
                    let fresh = api.get(&name).await?;
                    add_finalizer(api, &fresh, finalizer_name).await
                })
                .await
            }
            other => other,
        };
        Arc::new(added.map_err(FinalizerError::AddFinalizer)?)
    };
    reconcile(FinalizerEvent::Apply(obj))
        .await
        .map(FinalizerOutcome::Applied)
        .map_err(FinalizerError::Apply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kubegen_client::api::ObjectMeta;

    fn cm(finalizers: Option<Vec<&str>>) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some("x".into()),
                resource_version: Some("42".into()),
                finalizers: finalizers.map(|f| f.into_iter().map(String::from).collect()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    #[test]
    fn add_patches_are_guarded_by_version_and_list() {
        let ops = add_ops(&cm(None), "a.io/f");
        assert_eq!(
            Value::Array(ops),
            json!([
                {"op": "replace", "path": "/metadata/resourceVersion", "value": "42"},
                {"op": "add", "path": "/metadata/finalizers", "value": ["a.io/f"]},
            ])
        );
        let ops = add_ops(&cm(Some(vec!["other"])), "a.io/f");
        assert_eq!(
            Value::Array(ops),
            json!([
                {"op": "test", "path": "/metadata/finalizers", "value": ["other"]},
                {"op": "replace", "path": "/metadata/resourceVersion", "value": "42"},
                {"op": "add", "path": "/metadata/finalizers/-", "value": "a.io/f"},
            ])
        );
    }

    #[test]
    fn remove_patches_test_the_entry_they_remove() {
        assert!(remove_ops(&cm(Some(vec!["other"])), "a.io/f").is_none());
        let ops = remove_ops(&cm(Some(vec!["other", "a.io/f"])), "a.io/f").unwrap();
        assert_eq!(
            Value::Array(ops.clone()),
            json!([
                {"op": "test", "path": "/metadata/finalizers/1", "value": "a.io/f"},
                {"op": "replace", "path": "/metadata/resourceVersion", "value": "42"},
                {"op": "remove", "path": "/metadata/finalizers/1"},
            ])
        );
        // The operations parse as a JSON patch.
        let parsed: json_patch::Patch = serde_json::from_value(Value::Array(ops)).unwrap();
        assert_eq!(parsed.0.len(), 3);
        assert!(has_finalizer(&cm(Some(vec!["a.io/f"])), "a.io/f"));
        assert!(!has_finalizer(&cm(None), "a.io/f"));
    }
}
