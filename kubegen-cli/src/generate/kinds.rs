//! The kinds a crate's generated modules cover: its own resources plus the
//! built-ins listed under `builtins` in `[package.metadata.kubegen]`.

use std::path::Path;

use quote::format_ident;

use super::Api;
use crate::source::Diagnostic;
use kubegen_codegen::emit::{Kind, builtins};

/// The kinds of `api` plus the configured built-ins, or an error per
/// unknown built-in.
pub fn kinds(api: &Api) -> Result<Vec<Kind>, Vec<Diagnostic>> {
    let mut kinds = Vec::new();
    for (t, model) in api.resources() {
        let mut segments: Vec<syn::Ident> = vec![format_ident!("crate")];
        segments.extend(t.input.module.iter().map(|m| format_ident!("{m}")));
        segments.push(format_ident!("{}", model.kind));
        kinds.push(Kind {
            group: model.group.clone(),
            version: model.version.clone(),
            kind: model.kind.clone(),
            namespaced: model.namespaced,
            path: syn::parse_quote!(#(#segments)::*),
            verbs: model.verbs.effective(model.has_status),
            status: model.has_status,
        });
    }
    let mut errors = Vec::new();
    for wanted in &api.settings.builtins {
        match builtins::builtin(wanted) {
            Some(kind) => kinds.push(kind),
            None => errors.push(Diagnostic::file(
                Path::new("Cargo.toml"),
                format!(
                    "[package.metadata.kubegen] builtins: unknown kind `{wanted}`; known: {}",
                    builtins::known().join(", ")
                ),
            )),
        }
    }
    if errors.is_empty() {
        Ok(kinds)
    } else {
        Err(errors)
    }
}
