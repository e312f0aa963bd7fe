//! Run-time support called by derive-generated code (re-exported by the
//! `kubegen` crate as `kubegen::__private`): it evaluates the embedded,
//! already validated models with the one schema builder. The traits that
//! code implements (`KubeSchema`, `CustomResourceExt`, `Applicable`) are
//! kubegen-base's (re-exported by kubegen-runtime), beside their impls
//! for k8s-openapi's types.

use std::cell::Cell;

use serde_json::Value;

pub use serde;
pub use serde_json;

use crate::crd::{self, CrdError};
use crate::model::{ResourceModel, TypeModel};
use crate::schema::{self, SchemaError};

/// A nested type's schema function.
pub type Resolver = fn() -> Result<Value, SchemaError>;

/// How deep types may nest; deeper is refused (by the derive's run-time
/// evaluation and by the CLI alike).
pub const MAX_DEPTH: u32 = 64;

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

struct DepthGuard;

impl DepthGuard {
    fn enter(name: &str) -> Result<DepthGuard, SchemaError> {
        let d = DEPTH.with(|d| {
            let v = d.get() + 1;
            d.set(v);
            v
        });
        let guard = DepthGuard;
        if d > MAX_DEPTH {
            return Err(SchemaError {
                path: name.to_owned(),
                message: "types nest more than 64 levels deep; recursive types cannot be described by a structural schema (mark the recursive field `#[kubegen(schemaless)]`)".into(),
            });
        }
        Ok(guard)
    }
}

impl Drop for DepthGuard {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Evaluates a serialized [`TypeModel`] with resolvers for its nested types.
pub fn schema_from_model(model_json: &str, resolvers: &[Resolver]) -> Result<Value, SchemaError> {
    let model: TypeModel = serde_json::from_str(model_json).map_err(|e| SchemaError {
        path: "<model>".into(),
        message: format!("corrupt embedded model (kubegen version mismatch?): {e}"),
    })?;
    let _guard = DepthGuard::enter(&model.name)?;
    schema::schema_for(&model, &|i| match resolvers.get(i) {
        Some(f) => f(),
        None => Err(SchemaError {
            path: model.name.clone(),
            message: format!("no resolver {i}"),
        }),
    })
}

/// Decodes an embedded [`ResourceModel`].
pub fn resource_model(resource_json: &str) -> ResourceModel {
    // The JSON was produced by the same crate version at compile time.
    serde_json::from_str(resource_json).unwrap_or_default()
}

/// Builds the CRD JSON of a resource from its embedded model and schemas.
pub fn crd_from_model(
    resource_json: &str,
    spec: Resolver,
    status: Option<Resolver>,
) -> Result<Value, CrdError> {
    let res: ResourceModel = serde_json::from_str(resource_json)
        .map_err(|e| CrdError::Decode(format!("corrupt embedded resource model: {e}")))?;
    let spec = spec()?;
    let status = status.map(|f| f()).transpose()?;
    crd::crd_json(&res, spec, status)
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Compile-time check of a `list_map_keys` entry: `name` is one of `keys`,
/// or a nested-type field in `nested` whose type is scalar.
///
/// # Panics
/// At compile time (const evaluation) with `message` when it is neither.
pub const fn assert_key(keys: &[&str], nested: &[(&str, bool)], name: &str, message: &str) {
    let mut i = 0;
    while i < nested.len() {
        if nested[i].1 && str_eq(nested[i].0, name) {
            return;
        }
        i += 1;
    }
    assert_member(keys, name, message);
}

/// Compile-time check of a `#[serde(default)]` field of a nested type:
/// the type's `Default` must be known to its schema.
///
/// # Panics
/// At compile time (const evaluation) with `message` when it is not.
pub const fn assert_serde_default(known: bool, message: &str) {
    if !known {
        panic!("{}", message);
    }
}

/// Compile-time check used by generated `const` items: `name` is in `names`.
///
/// # Panics
/// At compile time (const evaluation) with `message` when it is not.
pub const fn assert_member(names: &[&str], name: &str, message: &str) {
    let mut i = 0;
    while i < names.len() {
        if str_eq(names[i], name) {
            return;
        }
        i += 1;
    }
    panic!("{}", message);
}
