//! The check phase: every rule over a finished [`Container`], each a
//! function named after what it demands and stated above it, reported with
//! spans. [`check`] lists the rule groups; each module lists its rules:
//!
//! - `node`: the rules of one schema node (a field, list items, a type);
//! - `types`: the rules of a type's own keys;
//! - `overrides`: `schema_json` and `schema_type` against other keys;
//! - `names`: no two fields serialized under one name;
//! - `cel`: the CEL rules type-check against the schema the derive sees;
//! - `resource`: the resource keys' naming and path rules;
//! - `values`: the value checker (`default`, `example`, `enum_values`,
//!   `neq` against a type and its keywords).

mod cel;
mod names;
mod node;
mod overrides;
mod resource;
mod types;
mod values;

pub use values::value_errors;

use crate::ctxt::Ctxt;
use crate::parse::Container;

/// The check phase: each field's rules, unique serialized names, the
/// type's rules, and (for `CustomResource`) a non-generic spec and the
/// resource rules.
pub fn check(cx: &Ctxt, input: &syn::DeriveInput, c: &Container, resource: bool) {
    let fields = c.model.fields();
    debug_assert_eq!(fields.len(), c.sites.len(), "one site per model field");
    for (field, site) in fields.into_iter().zip(&c.sites) {
        node::field(cx, field, &site.keys, site.ty_span);
    }
    names::check_unique_names(cx, c);
    types::check_type(cx, &c.model, &c.type_keys, &input.ident);
    cel::check_rules_type_check(cx, input, c, resource);
    if resource {
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(&input.generics, "a `CustomResource` spec cannot be generic");
        }
        resource::check_resource(cx, &c.resource, &input.ident, &c.model, &c.fields);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubegen_core::model::{Constraints, Ty};
    use serde_json::json;

    #[test]
    fn values() {
        let s = Ty::String { char: false };
        let c = Constraints {
            min_length: Some(2),
            ..Default::default()
        };
        assert!(value_errors(&json!("ab"), &s, &c).is_empty());
        assert!(value_errors(&json!("a"), &s, &c)[0].contains("min_length"));
        assert!(value_errors(&json!(1), &s, &c)[0].contains("expected a string"));
        let i8t = Ty::Int {
            bits: 8,
            signed: true,
        };
        assert!(!value_errors(&json!(300), &i8t, &Constraints::default()).is_empty());
        let list = Ty::List {
            item: Box::new(Ty::Bool),
            set: false,
            len: None,
        };
        assert!(
            value_errors(&json!([true, 1]), &list, &Constraints::default())[0].contains("item 1")
        );
    }

    #[test]
    fn defaults_match_patterns_as_the_apiserver_does() {
        let s = Ty::String { char: false };
        let pattern = |p: &str| Constraints {
            pattern: Some(p.into()),
            ..Default::default()
        };
        // Go's `\w` is ASCII: the apiserver refuses "é" (Rust's `\w` takes it).
        assert!(value_errors(&json!("é"), &s, &pattern(r"^\w+$"))[0].contains("does not match"));
        // A literal `[` in a class (Rust's `regex` cannot even read it).
        let token = pattern(r#"^[^()<>@,;:\\"\/[\]?={} \t\x7f\x00]+$"#);
        assert!(value_errors(&json!("gzip"), &s, &token).is_empty());
        assert!(value_errors(&json!("a[b"), &s, &token)[0].contains("does not match"));
    }
}
