//! The type of an object, built once from its schema and reused for
//! every request: what the apiserver's type converter holds for one
//! version of a resource.

use serde_json::Value;

use super::fieldset::FieldSet;
use super::openapi::{SchemaConversionError, convert_models, custom_resource_models};
use super::schema::{Schema, TypeRef, UNTYPED_DEDUCED};
use super::typed::{self, Errors};

/// The structured-merge-diff type of one version of a resource.
#[derive(Clone, Debug)]
pub struct ObjectType {
    pub(crate) schema: Schema,
    pub(crate) root: TypeRef,
}

impl ObjectType {
    /// The type of a custom resource version from its structural
    /// `openAPIV3Schema`, as the CRD handler's type converter builds it
    /// (`preserve_unknown_fields`: the CRD's `spec.preserveUnknownFields`,
    /// false for every `apiextensions.k8s.io/v1` CRD).
    pub fn for_custom_resource(
        open_api_v3_schema: &Value,
        preserve_unknown_fields: bool,
    ) -> Result<Self, SchemaConversionError> {
        let models = custom_resource_models(open_api_v3_schema);
        Self::from_models(&models, "root", preserve_unknown_fields)
    }

    /// The type named `root` among OpenAPI `models` (name → schema, as an
    /// OpenAPI document's `components.schemas` holds them, `$ref`s by
    /// last path segment): for built-in types.
    pub fn from_models(
        models: &[(String, Value)],
        root: &str,
        preserve_unknown_fields: bool,
    ) -> Result<Self, SchemaConversionError> {
        let mut schema = Schema::with_common_types();
        let index = convert_models(&mut schema, models, preserve_unknown_fields)?;
        let root = match index.get(root) {
            Some(&i) => TypeRef::Named(i, None),
            None => {
                return Err(SchemaConversionError(format!("no model named {root}")));
            }
        };
        Ok(ObjectType { schema, root })
    }

    /// The type of a resource without a schema (`NewDeducedTypeConverter`):
    /// maps granular all the way down, lists atomic.
    pub fn deduced() -> Self {
        ObjectType {
            schema: Schema::with_common_types(),
            root: TypeRef::Named(UNTYPED_DEDUCED, None),
        }
    }

    /// The errors of an object against this type (duplicates in
    /// associative lists allowed or not).
    pub(crate) fn validate(&self, v: &Value, allow_duplicates: bool) -> Errors {
        typed::validate::validate(&self.schema, &self.root, v, allow_duplicates)
    }

    /// The fields an object of this type sets.
    pub fn field_set(&self, v: &Value) -> FieldSet {
        typed::field_set::to_field_set(&self.schema, &self.root, v)
    }

    /// `EnsureNamedFieldsAreMembers` of a set at this type's root.
    pub(crate) fn ensure_named(&self, set: &FieldSet) -> FieldSet {
        set.ensure_named_fields_are_members(&self.schema, &self.root)
    }

    /// `v` without the paths of `set`.
    pub(crate) fn remove(&self, v: &Value, set: &FieldSet) -> Value {
        typed::remove::remove_items(&self.schema, &self.root, v, set)
    }
}
