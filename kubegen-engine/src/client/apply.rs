//! Server-side apply: `obj` patched under a field manager, optionally
//! forcing ownership of fields other managers hold, with
//! `metadata.managedFields` dropped from the request as the apiserver
//! requires. [`ResourceClient::apply`](super::ResourceClient::apply) and
//! [`apply_status`](super::ResourceClient::apply_status) call it with the
//! client's own field manager.
//!
//! ```no_run
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::Api;
//! use kubegen::client::apply;
//!
//! # async fn demo(api: Api<ConfigMap>, desired: ConfigMap) -> Result<(), kubegen::Error> {
//! let stored = apply(&api, "settings", &desired, "my-operator", true).await?;
//! # drop(stored);
//! # Ok(()) }
//! ```

use std::fmt::Debug;

use kubegen_client::api::{Patch, PatchParams};
use kubegen_client::{Api, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Server-side applies `obj` as `field_manager` and returns the object as
/// stored. With `force`, fields owned by other managers are taken over
/// instead of failing with a conflict. `metadata.managedFields` is dropped
/// from the request, as the API server requires; a set
/// `metadata.resourceVersion` acts as a precondition.
pub async fn apply<K>(
    api: &Api<K>,
    name: &str,
    obj: &K,
    field_manager: &str,
    force: bool,
) -> Result<K, kubegen_client::Error>
where
    K: Resource + Serialize + DeserializeOwned + Clone + Debug,
{
    let params = apply_params(field_manager, force);
    api.patch(name, &params, &Patch::Apply(apply_body(obj)?))
        .await
}

/// Like [`apply`], on the status subresource.
pub async fn apply_status<K>(
    api: &Api<K>,
    name: &str,
    obj: &K,
    field_manager: &str,
    force: bool,
) -> Result<K, kubegen_client::Error>
where
    K: Resource + Serialize + DeserializeOwned + Clone + Debug,
{
    let params = apply_params(field_manager, force);
    api.patch_status(name, &params, &Patch::Apply(apply_body(obj)?))
        .await
}

fn apply_params(field_manager: &str, force: bool) -> PatchParams {
    let params = PatchParams::apply(field_manager);
    if force { params.force() } else { params }
}

/// `obj` as JSON without `metadata.managedFields`.
fn apply_body<K: Serialize>(obj: &K) -> Result<serde_json::Value, kubegen_client::Error> {
    let mut body = serde_json::to_value(obj).map_err(kubegen_client::Error::SerdeError)?;
    if let Some(meta) = body.get_mut("metadata").and_then(|m| m.as_object_mut()) {
        meta.remove("managedFields");
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kubegen_client::api::ObjectMeta;

    #[test]
    fn the_body_has_no_managed_fields_and_force_is_passed_on() {
        let obj = ConfigMap {
            metadata: ObjectMeta {
                name: Some("c".into()),
                managed_fields: Some(vec![Default::default()]),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        };
        let body = apply_body(&obj).unwrap();
        assert_eq!(body["metadata"]["name"], "c");
        assert!(body["metadata"].get("managedFields").is_none());
        let forced = apply_params("m", true);
        assert_eq!(forced.field_manager.as_deref(), Some("m"));
        assert!(forced.force);
        assert!(!apply_params("m", false).force);
    }
}
