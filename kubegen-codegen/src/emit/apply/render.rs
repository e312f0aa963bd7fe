//! Apply configuration modules as formatted Rust text: one
//! `::kubegen::apply_structs!` holding every struct of the module (its
//! fields by Rust name, JSON name, builder and kind) and one
//! `::kubegen::apply_root!` per kind root, thin invocations of the
//! runtime's macros, which hold the code they stand for (serde attributes,
//! builders, `new`, `extract`, the `ApplyConfiguration` impl). The text is
//! written in its final layout, so it is never parsed nor pretty-printed
//! again.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::shape::{Scalar, Shape, Struct};
use crate::apply_root::{METADATA_BUILDERS, Top, root};
use crate::names::{Namespace, apply_field_base, apply_ident};

/// One module's structs (sorted by name), each kind root with its extras.
pub(crate) fn module(
    module: &str,
    structs: &BTreeMap<String, Struct>,
    tops: &BTreeMap<String, Top>,
) -> String {
    let mut out =
        String::from("::kubegen::apply_structs! {\n    serde = \"::kubegen::__private::serde\";\n");
    let mut roots = String::new();
    for (name, s) in structs {
        let idents = idents(s);
        out.push('\n');
        one(&mut out, module, name, s, &idents, tops.get(name));
        if let Some(top) = tops.get(name) {
            let meta_field = s
                .fields
                .iter()
                .any(|f| f.json == "metadata" && f.shape == Shape::Meta);
            let forwards: Vec<&str> = METADATA_BUILDERS
                .into_iter()
                .filter(|b| meta_field && !idents.iter().any(|(_, base)| base == b))
                .collect();
            roots.push_str(&root("::kubegen", name, &forwards, top));
        }
    }
    out.push_str("}\n");
    out.push_str(&roots);
    out
}

/// The Rust type of a shape, seen from `module`.
fn ty(shape: &Shape, module: &str) -> String {
    match shape {
        Shape::Scalar(s) => scalar(*s).to_owned(),
        Shape::Struct {
            module: m,
            name,
            boxed,
        } => {
            let path = struct_path(m, name, module);
            if *boxed {
                format!("::std::boxed::Box<{path}>")
            } else {
                path
            }
        }
        Shape::List(item) => format!("::std::vec::Vec<{}>", ty(item, module)),
        Shape::Map(value) => format!(
            "::std::collections::BTreeMap<::std::string::String, {}>",
            ty(value, module)
        ),
        Shape::Meta => "::kubegen::apply::ObjectMetaApply".to_owned(),
    }
}

fn struct_path(m: &str, name: &str, module: &str) -> String {
    if m == module {
        name.to_owned()
    } else {
        format!("super::{m}::{name}")
    }
}

/// A field's kind in `apply_structs!` and the type that goes with it.
fn kind_and_type(shape: &Shape, module: &str) -> (&'static str, String) {
    match shape {
        Shape::Scalar(s) => ("set", scalar(*s).to_owned()),
        Shape::Struct {
            module: m,
            name,
            boxed,
        } => (
            if *boxed { "boxed" } else { "value" },
            struct_path(m, name, module),
        ),
        Shape::List(item) => ("list", ty(item, module)),
        Shape::Map(value) => ("map", ty(value, module)),
        Shape::Meta => ("value", ty(shape, module)),
    }
}

fn scalar(s: Scalar) -> &'static str {
    match s {
        Scalar::String => "::std::string::String",
        Scalar::I32 => "i32",
        Scalar::I64 => "i64",
        Scalar::F64 => "f64",
        Scalar::Bool => "bool",
        Scalar::Time => "::kubegen::k8s_openapi::apimachinery::pkg::apis::meta::v1::Time",
        Scalar::MicroTime => "::kubegen::k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime",
        Scalar::Quantity => "::kubegen::k8s_openapi::apimachinery::pkg::api::resource::Quantity",
        Scalar::IntOrString => {
            "::kubegen::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString"
        }
        Scalar::Bytes => "::kubegen::k8s_openapi::ByteString",
        Scalar::Json => "::kubegen::__private::serde_json::Value",
    }
}

/// Every field's Rust name and builder base, in field order (sorted by JSON
/// name): two JSON names with one snake case (`proxyURL`, `proxyUrl`)
/// become `proxy_url` and `proxy_url2`, as `kubegen import` names them.
fn idents(s: &Struct) -> Vec<(String, String)> {
    let mut names = Namespace::default();
    s.fields
        .iter()
        .map(|f| {
            let base = names.claim(&apply_field_base(&f.json));
            (apply_ident(&base), base)
        })
        .collect()
}

/// Writes `text` as doc comments at `indent`: a line a `///` comment cannot
/// hold (a control character) as a `#[doc]` attribute with its string
/// escaped.
fn doc(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        if line.chars().any(|c| c.is_control() && c != '\t') {
            let _ = writeln!(out, "{indent}#[doc = {:?}]", format!(" {line}"));
        } else if line.is_empty() {
            let _ = writeln!(out, "{indent}///");
        } else {
            let _ = writeln!(out, "{indent}/// {line}");
        }
    }
}

fn one(
    out: &mut String,
    module: &str,
    name: &str,
    s: &Struct,
    idents: &[(String, String)],
    top: Option<&Top>,
) {
    let mut text = s.doc.clone().unwrap_or_default();
    match top {
        Some(top) => {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            let _ = write!(
                text,
                "The apply configuration of `{}` (`{}`): every field optional, serialized with exactly the fields set.",
                top.kind, top.api_version
            );
        }
        None if text.is_empty() => {
            text = format!("Part of an apply configuration: `{}`.", s.what);
        }
        None => {}
    }
    doc(out, "    ", &text);
    let _ = writeln!(out, "    pub struct {name} {{");
    for (f, (ident, base)) in s.fields.iter().zip(idents) {
        let field_doc = f.doc.clone().unwrap_or_else(|| format!("`{}`", f.json));
        doc(out, "        ", &field_doc);
        let (kind, ty) = kind_and_type(&f.shape, module);
        let _ = writeln!(
            out,
            "        {ident} {json:?} with_{base}: {kind} {ty},",
            json = f.json
        );
    }
    out.push_str("    }\n");
}

#[cfg(test)]
mod tests {
    use super::doc;

    /// A line a `///` comment cannot hold (a carriage return) is written as
    /// an escaped `#[doc]`, and reads back as the same text.
    #[test]
    fn docs_a_comment_cannot_hold_are_escaped_attributes() {
        let mut out = String::new();
        doc(&mut out, "", "Plain.\n\nA \"quoted\"\rline\u{7}.");
        assert_eq!(
            out,
            "/// Plain.\n///\n#[doc = \" A \\\"quoted\\\"\\rline\\u{7}.\"]\n"
        );
        let item: syn::ItemStruct = syn::parse_str(&format!("{out}struct S;")).unwrap();
        let docs: Vec<String> = item
            .attrs
            .iter()
            .map(|a| match &a.meta {
                syn::Meta::NameValue(nv) => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => s.value(),
                    _ => panic!("not a string"),
                },
                _ => panic!("not a #[doc = ..]"),
            })
            .collect();
        assert_eq!(docs, [" Plain.", "", " A \"quoted\"\rline\u{7}."]);
    }
}
