//! Ownership of objects: owner references and controller references
//! (controller-runtime's `SetControllerReference`, `IsControlledBy`).
//!
//! Server-side apply and conflict retries live in [`client`](crate::client)
//! (the data floor, below this one); the old paths
//! `kubegen::ownership::{apply, apply_status, retry_on_conflict,
//! retry_on_conflict_with, IsConflict, Backoff}` still name them, as
//! re-exports.
//!
//! ```no_run
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::Api;
//! use kubegen::client::retry_on_conflict;
//! use kubegen::ownership::set_controller_reference;
//!
//! # async fn demo(api: Api<ConfigMap>, owner: ConfigMap) -> Result<(), Box<dyn std::error::Error>> {
//! let mut child = api.get("child").await?;
//! set_controller_reference(&owner, &mut child.metadata)?;
//! // Re-read and retry when another writer changed the object meanwhile.
//! let updated = retry_on_conflict(|| async {
//!     let mut fresh = api.get("child").await?;
//!     fresh.data.get_or_insert_default().insert("seen".into(), "yes".into());
//!     api.replace("child", &Default::default(), &fresh).await
//! })
//! .await?;
//! # drop(updated);
//! # Ok(()) }
//! ```

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kubegen_client::api::ObjectMeta;
use kubegen_client::{Resource, ResourceExt};

/// Re-exported from [`api_errors`](crate::api_errors), for
/// [`retry_on_conflict`].
pub use crate::api_errors::IsConflict;
/// Re-exported from [`client`](crate::client), where server-side apply and
/// conflict retries live; kept so that code written against
/// `kubegen::ownership::…` keeps compiling.
pub use crate::client::{Backoff, apply, apply_status, retry_on_conflict, retry_on_conflict_with};

/// Why an owner reference could not be set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OwnershipError {
    /// The owner has no name or no uid (it was not read from the server).
    #[error("the owner has no {0}; read it from the API server first")]
    OwnerIncomplete(&'static str),
    /// Another controller already controls the object.
    #[error("the object is already controlled by {kind} {name} (uid {uid})")]
    AlreadyOwned {
        /// The current controller's kind.
        kind: String,
        /// The current controller's name.
        name: String,
        /// The current controller's uid.
        uid: String,
    },
    /// The owner cannot own the object across scopes or namespaces.
    #[error("an owner in namespace {owner:?} cannot own an object in namespace {object:?}")]
    CrossNamespace {
        /// The owner's namespace (`None`: cluster-scoped).
        owner: Option<String>,
        /// The object's namespace (`None`: cluster-scoped).
        object: Option<String>,
    },
}

/// An owner reference to `owner`, with `controller` and
/// `blockOwnerDeletion` set as given.
pub fn owner_reference<O>(owner: &O, controller: bool) -> Result<OwnerReference, OwnershipError>
where
    O: Resource,
    O::DynamicType: Default,
{
    let dt = O::DynamicType::default();
    let meta = owner.meta();
    Ok(OwnerReference {
        api_version: O::api_version(&dt).into_owned(),
        kind: O::kind(&dt).into_owned(),
        name: meta
            .name
            .clone()
            .ok_or(OwnershipError::OwnerIncomplete("name"))?,
        uid: meta
            .uid
            .clone()
            .ok_or(OwnershipError::OwnerIncomplete("uid"))?,
        controller: Some(controller),
        block_owner_deletion: Some(true),
    })
}

/// Makes `owner` the controller of the object whose metadata is `meta`
/// (`controller: true`, `blockOwnerDeletion: true`), as controller-runtime's
/// `SetControllerReference` does: a reference to the same owner is
/// replaced, another controller is an error, and a namespaced owner must be
/// in the object's namespace (a cluster-scoped owner may own anything).
pub fn set_controller_reference<O>(owner: &O, meta: &mut ObjectMeta) -> Result<(), OwnershipError>
where
    O: Resource,
    O::DynamicType: Default,
{
    let reference = owner_reference(owner, true)?;
    let owner_namespace = owner.meta().namespace.clone().filter(|n| !n.is_empty());
    let object_namespace = meta.namespace.clone().filter(|n| !n.is_empty());
    if let Some(owner_ns) = &owner_namespace
        && object_namespace.as_ref() != Some(owner_ns)
    {
        return Err(OwnershipError::CrossNamespace {
            owner: owner_namespace,
            object: object_namespace,
        });
    }
    let references = meta.owner_references.get_or_insert_with(Vec::new);
    if let Some(existing) = references.iter().find(|r| r.controller == Some(true))
        && !same_owner(existing, &reference)
    {
        return Err(OwnershipError::AlreadyOwned {
            kind: existing.kind.clone(),
            name: existing.name.clone(),
            uid: existing.uid.clone(),
        });
    }
    match references.iter_mut().find(|r| same_owner(r, &reference)) {
        Some(existing) => *existing = reference,
        None => references.push(reference),
    }
    Ok(())
}

/// Whether two references name the same object: same API group, kind and
/// name (the version may differ), as Kubernetes compares them.
fn same_owner(a: &OwnerReference, b: &OwnerReference) -> bool {
    group_of(&a.api_version) == group_of(&b.api_version) && a.kind == b.kind && a.name == b.name
}

/// The group of an `apiVersion` (`""` for the core group).
pub(crate) fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

/// The controller reference of `obj`, if any.
pub fn controller_of<K: Resource>(obj: &K) -> Option<&OwnerReference> {
    obj.owner_references()
        .iter()
        .find(|r| r.controller == Some(true))
}

/// Whether `owner` is the controller of `obj` (compared by uid).
pub fn is_controlled_by<K: Resource, O: Resource>(obj: &K, owner: &O) -> bool {
    match (controller_of(obj), owner.meta().uid.as_deref()) {
        (Some(reference), Some(uid)) => reference.uid == uid,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::{ConfigMap, Namespace};

    fn config_map(name: &str, uid: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("ns".into()),
                uid: Some(uid.into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    #[test]
    fn controller_reference_is_set_once_and_replaced_for_the_same_owner() {
        let owner = config_map("owner", "u1");
        let mut child = config_map("child", "u2");
        set_controller_reference(&owner, &mut child.metadata).unwrap();
        set_controller_reference(&owner, &mut child.metadata).unwrap();
        let refs = child.metadata.owner_references.as_ref().unwrap();
        assert_eq!(refs.len(), 1);
        assert_eq!(refs[0].api_version, "v1");
        assert_eq!(refs[0].kind, "ConfigMap");
        assert_eq!(refs[0].name, "owner");
        assert_eq!(refs[0].uid, "u1");
        assert_eq!(refs[0].controller, Some(true));
        assert_eq!(refs[0].block_owner_deletion, Some(true));
        assert!(is_controlled_by(&child, &owner));
        assert_eq!(
            controller_of(&child).map(|r| r.name.as_str()),
            Some("owner")
        );

        // A recreated owner (same name, new uid) takes the reference over.
        let recreated = config_map("owner", "u9");
        set_controller_reference(&recreated, &mut child.metadata).unwrap();
        assert!(is_controlled_by(&child, &recreated));
        assert!(!is_controlled_by(&child, &owner));
    }

    #[test]
    fn a_second_controller_is_refused() {
        let first = config_map("first", "u1");
        let second = config_map("second", "u3");
        let mut child = config_map("child", "u2");
        set_controller_reference(&first, &mut child.metadata).unwrap();
        let error = set_controller_reference(&second, &mut child.metadata).unwrap_err();
        assert_eq!(
            error,
            OwnershipError::AlreadyOwned {
                kind: "ConfigMap".into(),
                name: "first".into(),
                uid: "u1".into()
            }
        );
        assert!(is_controlled_by(&child, &first));
        assert!(!is_controlled_by(&child, &second));
        // A non-controller reference does not block.
        let mut other = config_map("other", "u4");
        other.metadata.owner_references = Some(vec![owner_reference(&second, false).unwrap()]);
        assert!(controller_of(&other).is_none());
        set_controller_reference(&first, &mut other.metadata).unwrap();
        assert_eq!(other.metadata.owner_references.as_ref().unwrap().len(), 2);
    }

    #[test]
    fn scope_and_completeness_are_checked() {
        let mut child = config_map("child", "u2");
        let mut elsewhere = config_map("owner", "u1");
        elsewhere.metadata.namespace = Some("other".into());
        assert!(matches!(
            set_controller_reference(&elsewhere, &mut child.metadata),
            Err(OwnershipError::CrossNamespace { .. })
        ));
        let cluster_owner = Namespace {
            metadata: ObjectMeta {
                name: Some("ns".into()),
                uid: Some("n1".into()),
                ..ObjectMeta::default()
            },
            ..Namespace::default()
        };
        set_controller_reference(&cluster_owner, &mut child.metadata).unwrap();
        let unsaved = Deployment::default();
        assert_eq!(
            set_controller_reference(&unsaved, &mut config_map("x", "u").metadata),
            Err(OwnershipError::OwnerIncomplete("name"))
        );
    }

    #[test]
    fn same_owner_ignores_the_version_but_not_the_group() {
        let a = OwnerReference {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            name: "d".into(),
            ..OwnerReference::default()
        };
        let b = OwnerReference {
            api_version: "apps/v1beta1".into(),
            ..a.clone()
        };
        let c = OwnerReference {
            api_version: "other.io/v1".into(),
            ..a.clone()
        };
        assert!(same_owner(&a, &b));
        assert!(!same_owner(&a, &c));
        assert_eq!(group_of("v1"), "");
    }
}
