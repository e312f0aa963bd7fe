//! The CEL rules of a type, type-checked at compile time.

use serde_json::json;

use crate::ctxt::Ctxt;
use crate::parse::Container;

/// Rule: every `validation` rule and `message_expression` of the type
/// type-checks as the apiserver checks it (`kubegen_core::cel`), against
/// the schema the derive can see: its own fields; a field of another type
/// is `dyn` here (the derive cannot see that type's schema), so only what
/// is certain is refused. `kubegen generate` checks the assembled CRD in
/// full. Runs only on a type with no other error, whose rules (a
/// misspelled `exactly_one_of` member, a misapplied `neq`) the other rules
/// already explain. Each expression is also costed as the apiserver costs
/// it, the type's own root taken to occur once in an object (a type used
/// in an unbounded list occurs more often, so what is over budget here is
/// over budget there — unless a list holding it is bounded to
/// `max_items = 0`); an estimate that reads a type the derive cannot see
/// is left to `kubegen generate`.
pub fn check_rules_type_check(cx: &Ctxt, input: &syn::DeriveInput, c: &Container, resource: bool) {
    if cx.has_errors() {
        return;
    }
    let unknown = |_: usize| Ok(json!({ kubegen_core::cel::types::UNKNOWN: true }));
    let Ok(schema) = kubegen_core::schema::schema_for(&c.model, &unknown) else {
        return;
    };
    // A flattened spec's type-level rules sit at the resource's root, which
    // also has `apiVersion`, `kind` and `metadata`.
    let root = resource && c.resource.flatten_spec;
    let problems = kubegen_core::cel::check_schema(&schema, root, crate::re2::compiles);
    for p in kubegen_core::cel::rules::first_fixes(problems) {
        let span =
            crate::attr::literal_span(input, &p.expression).unwrap_or_else(|| input.ident.span());
        cx.error_at(span, p.report());
    }
}
