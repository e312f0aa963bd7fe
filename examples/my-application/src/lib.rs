//! The kubegen reference operator's crate: the `MyApplication` API
//! (`stable.example.com/v1`) and the typed clientset, listers and informer
//! factory that `kubegen generate` produces from it.

pub mod api;
pub mod controller;
#[allow(missing_docs)]
pub mod generated;
