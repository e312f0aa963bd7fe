//! Custom resources validated offline exactly as the apiserver validates
//! them on create (and update): unknown fields pruned (and reported, as
//! `kubectl --validate=strict` reports them), defaults applied, then the
//! OpenAPI schema's keywords and formats ([`openapi`]), list sets and maps,
//! and metadata; every error a [`field::FieldError`] worded as the
//! apiserver words it. Serves `kubegen validate` and, later, the in-process
//! API server.

pub mod field;
