//! Server-side apply and field management exactly as kube-apiserver does
//! them (sigs.k8s.io/structured-merge-diff v6, apimachinery's
//! `managedfields`, the CRD handler's field manager), for the in-process
//! API server: plain functions over `serde_json::Value`s, no HTTP.
//!
//! - [`ObjectType`]: a resource version's type, built once from its
//!   schema ([`ObjectType::for_custom_resource`] as the CRD handler's type
//!   converter builds it, `metadata` typed as ObjectMeta);
//! - [`FieldManager`]: [`FieldManager::update`] (create, update and
//!   non-apply patches: managedFields brought up to date, never an
//!   error) and [`FieldManager::apply`] (server-side apply: the merged
//!   object, or an [`ApplyError`] the server turns into a `Status` with
//!   [`ApplyError::to_status`]), with every wrapper of the apiserver's
//!   default field manager (see [`field_manager`]);
//! - [`FieldSet`]: field sets and their fieldsV1 encoding
//!   ([`FieldSet::to_json`] byte for byte as the apiserver writes it);
//! - [`check_name`]: the patch handler's name and namespace check of an
//!   applied object.
//!
//! Times come in as a [`Timestamp`]; an object being created is passed
//! as `live` in the form [`empty_object`] gives.
//!
//! Proven against the Go code by `tests/ssa_differential.rs`. Where Go
//! is not deterministic this is: conflicts and their causes come
//! manager by manager in identifier order (Go takes managers in its map's
//! random order; the message sorts them in both), and of several
//! undeclared fields in one map the first in key order is the one
//! reported (Go reports a random one; the errors of one map's entries
//! come in key order where Go's come in its map order). Other served
//! versions ([`FieldManager::with_version`]) convert as the `None`
//! strategy converts; the differential test covers one version only.
//! The object's defaulting, which
//! the apiserver runs on an applied object (`objectDefaulter`), is the
//! server's to do, as are the handler's checks around the field manager
//! (the namespace, [`check_name`]). `fieldsV1` inside returned objects is
//! a JSON object whose keys serde_json keeps sorted, as the apiserver's
//! unstructured objects do; [`FieldSet::to_json`] gives the order
//! structured-merge-diff writes.

mod builtin;
mod error;
pub mod field_manager;
mod fields_v1;
mod fieldset;
mod managed_fields;
mod object_type;
mod openapi;
mod path;
mod schema;
mod typed;
mod updater;
mod value;

#[cfg(test)]
mod tests;

pub use builtin::builtin_type;
pub use error::{ApplyError, Cause};
pub use field_manager::{
    FieldManager, LAST_APPLIED_ANNOTATION, MAX_UPDATE_MANAGERS, ResetFields, check_name,
    empty_object,
};
pub use fields_v1::{FieldsV1Error, deserialize_path_element, serialize_path_element};
pub use fieldset::FieldSet;
pub use managed_fields::Timestamp;
pub use object_type::ObjectType;
pub use openapi::SchemaConversionError;
pub use path::{Path, PathElement};
