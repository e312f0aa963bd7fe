//! Typed server-side apply: apply configurations, partial typed objects
//! that hold exactly the fields a field manager means to own (client-go's
//! `applyconfigurations`), and [`extract`], which reads back the fields one
//! manager owns, as client-go's `Extract<Kind>` does.
//!
//! `kubegen generate` writes an apply configuration for each kind it serves
//! (`src/generated/applyconfigurations/`): every field optional, builders
//! (`with_replicas(3)`), list-map items as apply types of their own, atomic
//! lists and maps as wholes, and [`ObjectMetaApply`] for metadata. Each
//! top-level one implements [`ApplyConfiguration`], which links it to its
//! resource type and to the structure server-side apply merges it by
//! ([`MergeShape`], compiled from the CRD's structural schema, or the
//! built-in table's for built-in kinds), and the typed
//! clients' `apply` verbs take it with [`ApplyOptions`].
//!
//! A crate that does not run `kubegen generate` derives apply
//! configurations of its own types with `#[kubegen(apply)]`: `FooApply`
//! for `Foo`, each field an `Option` of the field type's [`Applicable`]
//! apply configuration, and `<Kind>Apply` for a resource, with the same
//! `new`, `extract` and builders. Enums, newtypes and k8s-openapi types are
//! applied whole there (`kubegen generate` writes built-in types field by
//! field):
//!
//! ```
//! use kubegen::apply::ApplyConfiguration;
//! use kubegen::{CustomResource, KubeSchema};
//! use serde::{Deserialize, Serialize};
//!
//! /// A web site.
//! #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
//! #[kubegen(group = "example.com", version = "v1", kind = "Site", namespaced, apply)]
//! #[serde(rename_all = "camelCase")]
//! pub struct SiteSpec {
//!     pub image: String,
//!     #[serde(default, skip_serializing_if = "Vec::is_empty")]
//!     #[kubegen(list_type = "map", list_map_keys = ["name"])]
//!     pub routes: Vec<Route>,
//! }
//!
//! #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
//! #[kubegen(apply)]
//! pub struct Route {
//!     pub name: String,
//!     pub path: Option<String>,
//! }
//!
//! let site = SiteApply::new("shop", "default")
//!     .with_labels([("team", "web")])
//!     .with_spec(SiteSpecApply::default().with_routes([RouteApply::default().with_name("api")]));
//! assert_eq!(
//!     serde_json::to_value(&site).unwrap(),
//!     serde_json::json!({
//!         "apiVersion": "example.com/v1",
//!         "kind": "Site",
//!         "metadata": {"name": "shop", "namespace": "default", "labels": {"team": "web"}},
//!         "spec": {"routes": [{"name": "api"}]},
//!     })
//! );
//! assert!(SiteApply::schema().is_ok());
//! ```
//!
//! A reconcile that declares its children applies each one under its own
//! field manager, and skips the request when [`extract`] of the cached
//! object already equals what it would send (zero writes at steady state):
//!
//! ```no_run
//! use kubegen::apply::{ApplyConfiguration, ApplyOptions, is_applied};
//! # async fn demo<A: ApplyConfiguration>(
//! #     client: &kubegen::ResourceClient<A::Resource>,
//! #     cached: &A::Resource,
//! #     desired: A,
//! # ) -> Result<(), Box<dyn std::error::Error>>
//! # where A::Resource: kube_core::Resource<DynamicType = ()>,
//! # {
//! let options = ApplyOptions::new("my-operator");
//! if !is_applied(cached, &desired, &options)? {
//!     client.apply(&desired, &options).await?;
//! }
//! # Ok(()) }
//! ```

mod applicable;
mod conflict;
mod declare;
mod extract;
mod fields;
mod json;
mod meta;
mod schema;
mod shape;

use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;

pub use applicable::Applicable;
pub use conflict::{FieldConflict, conflicts};
pub use extract::{extract, extract_value};
pub use fields::FieldSet;
pub use meta::{ObjectMetaApply, OwnerReferenceApply};
pub use schema::{SchemaCell, builtin_schema, crd_schema};
pub use shape::MergeShape;

/// What can go wrong building or reading back an apply configuration.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The resource's structural schema could not be had (a CRD that does
    /// not build, a built-in type missing from the table).
    #[error("the schema of {what}: {message}")]
    Schema {
        /// The kind or definition asked for.
        what: String,
        /// Why.
        message: String,
    },
    /// `metadata.managedFields` holds an entry whose `fieldsV1` kubegen
    /// cannot read.
    #[error("managedFields of {manager}: {message}")]
    ManagedFields {
        /// The manager whose entry it is.
        manager: String,
        /// Why it cannot be read.
        message: String,
    },
    /// A value does not read back as the type asked for (the fields a
    /// manager owns, as an apply configuration narrower than the schema).
    #[error("{what} does not read back as {type_name}: {message}")]
    Decode {
        /// What was read (`the fields my-operator owns`).
        what: String,
        /// The apply configuration's type.
        type_name: &'static str,
        /// serde's message.
        message: String,
    },
}

/// A top-level apply configuration: the partial object one field manager
/// applies, serialized with exactly the fields that are set.
///
/// Generated code implements it; [`schema`](ApplyConfiguration::schema) is
/// the resource's merge structure, compiled from its structural schema,
/// which [`extract`] walks as the apiserver's structured-merge-diff does
/// (list types and keys, atomic maps and lists).
pub trait ApplyConfiguration:
    Serialize + DeserializeOwned + Default + Clone + Debug + PartialEq + Send + Sync + 'static
{
    /// The resource type the configuration applies to.
    type Resource: kube_core::Resource + Serialize + DeserializeOwned + Clone + Debug + Send + Sync;

    /// The structure server-side apply merges the resource by, compiled
    /// from its structural schema (`openAPIV3Schema` of the version for a
    /// custom kind; the built-in table's for a built-in kind);
    /// [`MergeShape::to_value`] reads it back as a schema.
    fn schema() -> Result<&'static MergeShape, ApplyError>;

    /// The configuration's metadata, when it has any.
    fn metadata(&self) -> Option<&ObjectMetaApply>;
}

/// How to apply: the field manager (required, as the apiserver requires
/// it for apply patches) and whether to take over fields other managers
/// own (client-go's `metav1.ApplyOptions`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyOptions {
    /// The field manager the applied fields are recorded under.
    pub field_manager: String,
    /// Take over fields other managers own instead of failing with a
    /// conflict.
    pub force: bool,
    /// Validate and merge, but persist nothing (`dryRun=All`).
    pub dry_run: bool,
}

impl ApplyOptions {
    /// Applies as `field_manager`, without force.
    pub fn new(field_manager: impl Into<String>) -> Self {
        ApplyOptions {
            field_manager: field_manager.into(),
            force: false,
            dry_run: false,
        }
    }

    /// Takes over fields other managers own.
    pub fn force(mut self) -> Self {
        self.force = true;
        self
    }

    /// Persists nothing.
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

    /// The `PatchParams` of the request.
    pub fn patch_params(&self) -> kube_core::params::PatchParams {
        kube_core::params::PatchParams {
            field_manager: Some(self.field_manager.clone()),
            force: self.force,
            dry_run: self.dry_run,
            ..kube_core::params::PatchParams::default()
        }
    }
}

/// Whether `object` already holds what `desired` says, as far as the
/// options' field manager owns it: [`extract`] of the object (the main
/// resource, or the status subresource when `desired` sets nothing but
/// status) equals `desired`. A reconcile skips the apply when it does.
pub fn is_applied<A: ApplyConfiguration>(
    object: &A::Resource,
    desired: &A,
    options: &ApplyOptions,
) -> Result<bool, ApplyError> {
    let owned: A = extract(object, &options.field_manager, None)?;
    Ok(same_json(&owned, desired))
}

/// Like [`is_applied`], for what the manager applies to the status
/// subresource.
pub fn is_status_applied<A: ApplyConfiguration>(
    object: &A::Resource,
    desired: &A,
    options: &ApplyOptions,
) -> Result<bool, ApplyError> {
    let owned: A = extract(object, &options.field_manager, Some("status"))?;
    Ok(same_json(&owned, desired))
}

/// Equal as JSON (numbers compared by value, maps by key).
fn same_json<A: Serialize>(a: &A, b: &A) -> bool {
    match (serde_json::to_value(a), serde_json::to_value(b)) {
        (Ok(a), Ok(b)) => json::same_value(&a, &b),
        _ => false,
    }
}

/// The apply configuration (or part of one) holding every field `value`
/// serializes: a part built with its typed struct — a status computed as
/// `MyApplicationStatus` — becomes the `MyApplicationStatusApply` to apply.
/// Every field `value` serializes is then owned, so leave out what the
/// manager does not mean to own.
///
/// ```
/// use kubegen::apply::{ObjectMetaApply, from_typed};
/// use kubegen::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
///
/// let meta = ObjectMeta { name: Some("web".into()), ..ObjectMeta::default() };
/// let apply: ObjectMetaApply = from_typed(&meta).unwrap();
/// assert_eq!(apply, ObjectMetaApply::default().with_name("web"));
/// ```
pub fn from_typed<A: DeserializeOwned>(value: &impl Serialize) -> Result<A, ApplyError> {
    let decode = |e: serde_json::Error| ApplyError::Decode {
        what: "the value".into(),
        type_name: std::any::type_name::<A>(),
        message: e.to_string(),
    };
    serde_json::from_value(serde_json::to_value(value).map_err(decode)?).map_err(decode)
}

/// An informer transform (for `kubegen::FactoryBuilder::transform`) that
/// keeps, of each object's `metadata.managedFields`, only the entries
/// `field_manager` applied (`operation: Apply`, any subresource): what
/// [`extract`] and [`is_applied`] read on cached objects, at a fraction
/// of the memory all entries take. (The default transform drops them all,
/// and `extract` of such an object finds nothing owned.)
///
/// ```
/// use kubegen::apply::keep_applied_by;
/// use kubegen::k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, ObjectMeta};
///
/// let entry = |manager: &str, operation: &str| ManagedFieldsEntry {
///     manager: Some(manager.into()),
///     operation: Some(operation.into()),
///     ..ManagedFieldsEntry::default()
/// };
/// let mut meta = ObjectMeta {
///     managed_fields: Some(vec![entry("me", "Apply"), entry("me", "Update"), entry("kubectl", "Apply")]),
///     ..ObjectMeta::default()
/// };
/// keep_applied_by("me")(&mut meta);
/// assert_eq!(meta.managed_fields, Some(vec![entry("me", "Apply")]));
/// ```
pub fn keep_applied_by(
    field_manager: &str,
) -> impl Fn(&mut k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) + Send + Sync + 'static
{
    let field_manager = field_manager.to_string();
    move |meta| {
        if let Some(entries) = &mut meta.managed_fields {
            entries.retain(|e| {
                e.manager.as_deref() == Some(field_manager.as_str())
                    && e.operation.as_deref() == Some("Apply")
            });
            if entries.is_empty() {
                meta.managed_fields = None;
            }
        }
    }
}
