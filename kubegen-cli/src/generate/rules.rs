//! The CEL rules of each assembled CRD checked as the apiserver checks
//! them when the CRD is created (`kubegen_core::cel::check_schema`: types
//! against the whole schema, field names, overloads, literal arguments;
//! each expression's estimated cost times how often it can run, and the
//! CRD's total; each field's rules run on its default), each refusal
//! reported at the rule's string literal in the source.

use serde_json::Value;

use super::Analyzed;
use crate::source::Diagnostic;

/// The refused rules of `crd` (one version of `owner`'s resource), located
/// among `types`.
pub fn check(types: &[Analyzed], owner: &Analyzed, crd: &Value) -> Vec<Diagnostic> {
    let Some(versions) = crd.pointer("/spec/versions").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for v in versions {
        let Some(schema) = v.pointer("/schema/openAPIV3Schema") else {
            continue;
        };
        let problems =
            kubegen_core::cel::check_schema(schema, true, kubegen_codegen::re2::compiles);
        let refused = !problems.is_empty();
        for p in kubegen_core::cel::rules::first_fixes(problems) {
            let mut d = locate(types, &p.expression)
                .unwrap_or_else(|| super::type_error(owner, String::new()));
            d.message = p.report();
            out.push(d);
        }
        if !refused {
            defaults(types, owner, schema, &mut out);
        }
    }
    out
}

/// Defaults that fail their own field's rules
/// (`kubegen_core::validate::rules::failing_defaults`), reported at the
/// field's first rule.
fn defaults(types: &[Analyzed], owner: &Analyzed, schema: &Value, out: &mut Vec<Diagnostic>) {
    for (path, node, e) in kubegen_core::validate::rules::failing_defaults(schema) {
        let first_rule = node
            .pointer("/x-kubernetes-validations/0/rule")
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut d =
            locate(types, first_rule).unwrap_or_else(|| super::type_error(owner, String::new()));
        d.message = format!(
            "the apiserver refuses the default of `{path}`: {}; change the default or the rule",
            e.body()
        );
        out.push(d);
    }
}

/// Where the string literal `text` is in the attributes of `types`.
fn locate(types: &[Analyzed], text: &str) -> Option<Diagnostic> {
    types.iter().find_map(|t| {
        let start = kubegen_codegen::attr::literal_span(&t.input.derive_input, text)?.start();
        Some(Diagnostic {
            file: t.input.file.clone(),
            line: start.line,
            column: start.column + 1,
            message: String::new(),
        })
    })
}
