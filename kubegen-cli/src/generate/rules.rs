//! The CEL rules of each assembled CRD checked as the apiserver checks
//! them when the CRD is created (`kubegen_core::cel::check_schema`: types
//! against the whole schema, field names, overloads, literal arguments),
//! each refusal reported at the rule's string literal in the source.

use proc_macro2::{TokenStream, TokenTree};
use serde_json::Value;

use kubegen_core::cel::RuleError;

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
        for p in kubegen_core::cel::check_schema(schema, true, kubegen_codegen::re2::compiles) {
            let mut d = locate(types, &p.expression)
                .unwrap_or_else(|| super::type_error(owner, String::new()));
            d.message = match &p.error {
                RuleError::Parse(_) | RuleError::Type(_) => {
                    let before = &p.expression[..p.error.offset().min(p.expression.len())];
                    let line = before.matches('\n').count() + 1;
                    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
                    format!(
                        "{} (line {line}, column {column} of the expression)",
                        p.describe()
                    )
                }
                _ => p.describe(),
            };
            out.push(d);
        }
    }
    out
}

/// Where the string literal `text` is in the attributes of `types`.
fn locate(types: &[Analyzed], text: &str) -> Option<Diagnostic> {
    for t in types {
        let input = &t.input.derive_input;
        let mut attrs: Vec<&syn::Attribute> = input.attrs.iter().collect();
        match &input.data {
            syn::Data::Struct(s) => attrs.extend(s.fields.iter().flat_map(|f| &f.attrs)),
            syn::Data::Enum(e) => {
                for v in &e.variants {
                    attrs.extend(&v.attrs);
                    attrs.extend(v.fields.iter().flat_map(|f| &f.attrs));
                }
            }
            syn::Data::Union(_) => {}
        }
        for a in attrs {
            let syn::Meta::List(list) = &a.meta else {
                continue;
            };
            if let Some(start) = find(&list.tokens, text) {
                return Some(Diagnostic {
                    file: t.input.file.clone(),
                    line: start.line,
                    column: start.column + 1,
                    message: String::new(),
                });
            }
        }
    }
    None
}

fn find(tokens: &TokenStream, text: &str) -> Option<proc_macro2::LineColumn> {
    tokens.clone().into_iter().find_map(|tt| match tt {
        TokenTree::Group(g) => find(&g.stream(), text),
        TokenTree::Literal(lit) => {
            let span = lit.span();
            let s: syn::LitStr = syn::parse2(TokenTree::Literal(lit).into()).ok()?;
            (s.value() == text).then(|| span.start())
        }
        _ => None,
    })
}
