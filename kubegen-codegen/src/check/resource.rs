//! The rules of a `#[derive(CustomResource)]`'s resource keys: the
//! apiserver's naming rules, and paths (printer columns, selectable fields,
//! scale) that name fields the schema declares. [`check_resource`] lists
//! them.

use proc_macro2::Span;
use serde_json::Value;

use crate::attr::keys;
use crate::attr::resource::ResourceAttrs;
use crate::ctxt::Ctxt;
use crate::parse::FieldSpans;
use kubegen_core::model::{Shape, TypeModel};

/// Resource-level rules: names, then paths into the spec and metadata
/// (paths of a `flatten_spec` kind are checked by `crd()` against the
/// finished schema).
pub(super) fn check_resource(
    cx: &Ctxt,
    res: &ResourceAttrs,
    ident: &syn::Ident,
    spec: &TypeModel,
    fields: &[FieldSpans],
) {
    group_version_kind_given(cx, res, ident);
    group_is_a_dns_subdomain(cx, res, ident);
    version_is_a_dns_label(cx, res, ident);
    kind_is_a_dns_label_not_the_spec(cx, res, ident);
    list_kind_is_a_dns_label_not_the_kind(cx, res, ident);
    names_are_dns_labels(cx, res, ident);
    allowed_breaking_changes_say_why(cx, res);
    if res.flatten_spec {
        flattened_spec_declares_status(cx, res);
        return;
    }
    printer_columns_name_declared_fields(cx, res, spec, fields);
    selectable_fields_name_declared_fields(cx, res, spec, fields);
    scale_paths_name_declared_fields(cx, res, ident, spec, fields);
}

/// Rule: `group`, `version` and `kind` are given.
fn group_version_kind_given(cx: &Ctxt, res: &ResourceAttrs, ident: &syn::Ident) {
    for (key, v) in [
        (keys::GROUP, &res.group),
        (keys::VERSION, &res.version),
        (keys::KIND, &res.kind),
    ] {
        if v.is_none() {
            cx.error_spanned_by(
                ident,
                format!("`#[derive(CustomResource)]` needs `#[kubegen({key} = \"...\")]`"),
            );
        }
    }
}

/// Rule (the apiserver's): the group is a DNS-1123 subdomain (labels may
/// start with a digit) with at least one dot.
fn group_is_a_dns_subdomain(cx: &Ctxt, res: &ResourceAttrs, ident: &syn::Ident) {
    if let Some(g) = &res.group
        && (!g.contains('.') || g.len() > 253 || !g.split('.').all(is_dns1123_label))
    {
        cx.error_spanned_by(ident, format!("group \"{g}\" must be a DNS subdomain with at least one dot, e.g. \"stable.example.com\""));
    }
}

/// Rule (the apiserver's): the version is a DNS label.
fn version_is_a_dns_label(cx: &Ctxt, res: &ResourceAttrs, ident: &syn::Ident) {
    if let Some(v) = &res.version
        && !is_dns_label(v)
    {
        cx.error_spanned_by(
            ident,
            format!("version \"{v}\" must be a DNS label such as \"v1\" or \"v1beta1\""),
        );
    }
}

/// Rule: the kind is, in lower case, a DNS-1035 label (the apiserver's
/// rule), and the spec struct is not named like the kind's generated type
/// (`names::kind_type`: `my-app` → `MyApp`).
fn kind_is_a_dns_label_not_the_spec(cx: &Ctxt, res: &ResourceAttrs, ident: &syn::Ident) {
    let Some(k) = &res.kind else { return };
    if !is_dns_label(&k.to_ascii_lowercase()) {
        cx.error_spanned_by(
            ident,
            format!("kind \"{k}\" must be, in lower case, a DNS label starting with a letter (the apiserver's rule), e.g. \"MyApplication\""),
        );
    }
    let ty = crate::names::kind_type(k);
    if *ident == ty {
        cx.error_spanned_by(ident, format!("the spec struct cannot be named like the kind's type `{ty}`, which is generated; name it `{ty}Spec`"));
    }
}

/// Rule (the apiserver's): the list kind differs from the kind and is, in
/// lower case, a DNS-1035 label.
fn list_kind_is_a_dns_label_not_the_kind(cx: &Ctxt, res: &ResourceAttrs, ident: &syn::Ident) {
    let Some(l) = &res.list_kind else { return };
    if res.kind.as_ref() == Some(l) {
        cx.error_spanned_by(
            ident,
            format!("list_kind \"{l}\" must differ from the kind (the apiserver's rule), e.g. \"{l}List\""),
        );
    } else if !is_dns_label(&l.to_ascii_lowercase()) {
        cx.error_spanned_by(
            ident,
            format!("list_kind \"{l}\" must be, in lower case, a DNS label starting with a letter (the apiserver's rule), e.g. \"MyApplicationList\""),
        );
    }
}

/// Rule (the apiserver's): plural, singular, short names and categories
/// are lower-case DNS labels.
fn names_are_dns_labels(cx: &Ctxt, res: &ResourceAttrs, ident: &syn::Ident) {
    for (what, v) in [("plural", &res.plural), ("singular", &res.singular)] {
        if let Some(v) = v
            && !is_dns_label(v)
        {
            cx.error_spanned_by(
                ident,
                format!("{what} \"{v}\" must be a lower-case DNS label"),
            );
        }
    }
    for s in res.short_names.iter().chain(&res.categories) {
        if !is_dns_label(s) {
            cx.error_spanned_by(
                ident,
                format!("short names and categories must be lower-case DNS labels, not \"{s}\""),
            );
        }
    }
}

/// Rule: an `allow_breaking` names the change as `kubegen check` prints
/// it and says why: `<rule> [<version>] [<path>]: <reason>`.
fn allowed_breaking_changes_say_why(cx: &Ctxt, res: &ResourceAttrs) {
    for (text, span) in &res.allow_breaking {
        let ok = text
            .split_once(": ")
            .is_some_and(|(id, why)| !id.trim().is_empty() && !why.trim().is_empty());
        if !ok {
            cx.error_at(
                *span,
                format!("allow_breaking \"{text}\" must name the change and say why: \"<change id as `kubegen check` prints it>: <reason>\", e.g. \"field-removed v1 .spec.legacy: replaced by .spec.modern, announced in v0.4\""),
            );
        }
    }
}

/// Rule: with `flatten_spec` every top-level field is in the spec struct,
/// `status` included, so `status = "..."` is refused.
fn flattened_spec_declares_status(cx: &Ctxt, res: &ResourceAttrs) {
    if let Some(status) = &res.status {
        cx.error_spanned_by(
            status,
            "`flatten_spec` puts every top-level field in the spec struct: declare `status` there and enable the subresource with `status_subresource`",
        );
    }
}

/// Rule: a printer column's path starts at `.spec`, `.status` or
/// `.metadata` (or the type fields), into a declared status type, a
/// metadata field, or a declared spec field — unless `unchecked`.
fn printer_columns_name_declared_fields(
    cx: &Ctxt,
    res: &ResourceAttrs,
    spec: &TypeModel,
    fields: &[FieldSpans],
) {
    let known_roots = [".spec", ".status", ".metadata", ".apiVersion", ".kind"];
    for (col, span) in res.printer_columns.iter().filter(|(c, _)| !c.unchecked) {
        let p = &col.json_path;
        if !known_roots
            .iter()
            .any(|r| p == r || p.starts_with(&format!("{r}.")) || p.starts_with(&format!("{r}[")))
        {
            cx.error_at(
                *span,
                format!("`{p}` must start with .spec, .status or .metadata"),
            );
            continue;
        }
        if p.starts_with(".status") && res.status.is_none() {
            cx.error_at(
                *span,
                format!("`{p}` points into the status, but no `status = \"...\"` type is set"),
            );
        }
        if let Some(m) = p.strip_prefix(".metadata.") {
            let first: String = m.chars().take_while(|c| *c != '.' && *c != '[').collect();
            if kubegen_core::crd::resolve_json_path(&Value::Null, &format!(".metadata.{first}"))
                .is_err()
            {
                cx.error_at(
                    *span,
                    format!(
                        "`{p}`: metadata has no field `{first}`{}",
                        kubegen_core::crd::UNCHECKED_REMEDY
                    ),
                );
            }
        }
        check_spec_path(
            cx,
            p,
            *span,
            spec,
            fields,
            kubegen_core::crd::UNCHECKED_REMEDY,
        );
    }
}

/// Rule: a selectable field is under `.spec` or `.status`, naming a
/// declared spec field.
fn selectable_fields_name_declared_fields(
    cx: &Ctxt,
    res: &ResourceAttrs,
    spec: &TypeModel,
    fields: &[FieldSpans],
) {
    for (p, span) in &res.selectable_fields {
        if !p.starts_with(".spec.") && !p.starts_with(".status.") {
            cx.error_at(*span, "a selectable field must be under .spec or .status");
        }
        check_spec_path(cx, p, *span, spec, fields, "");
    }
}

/// Rule: the scale paths start where the apiserver demands, and (unless
/// `unchecked`) a status type is declared and the spec path names a
/// declared field.
fn scale_paths_name_declared_fields(
    cx: &Ctxt,
    res: &ResourceAttrs,
    ident: &syn::Ident,
    spec: &TypeModel,
    fields: &[FieldSpans],
) {
    let Some(scale) = &res.scale else { return };
    if !scale.spec_replicas_path.starts_with(".spec.") {
        cx.error_spanned_by(ident, "`scale(spec_replicas_path)` must start with .spec.");
    }
    if !scale.status_replicas_path.starts_with(".status.") {
        cx.error_spanned_by(
            ident,
            "`scale(status_replicas_path)` must start with .status.",
        );
    }
    if let Some(sel) = &scale.label_selector_path
        && !sel.starts_with(".spec.")
        && !sel.starts_with(".status.")
    {
        cx.error_spanned_by(
            ident,
            "`scale(label_selector_path)` must start with .spec. or .status.",
        );
    }
    // Whether the paths name declared fields: a lint (`unchecked`).
    if !scale.unchecked {
        if res.status.is_none() {
            cx.error_spanned_by(ident, "`scale(...)` needs a `status = \"...\"` type (or `unchecked`, to point it at fields the schema does not declare)");
        }
        check_spec_path(
            cx,
            &scale.spec_replicas_path,
            ident.span(),
            spec,
            fields,
            " (or add `unchecked` to `scale(...)` to point it at a field the schema does not declare)",
        );
    }
}

/// A DNS-1123 label: like [`is_dns_label`], but it may start with a digit.
fn is_dns1123_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && !s.starts_with('-')
        && !s.ends_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && !s.ends_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A `.spec.x` path: the first field after `.spec` must exist (deeper
/// segments are checked when `crd()` runs, where nested schemas are known).
/// `remedy` is appended to the error.
pub fn check_spec_path(
    cx: &Ctxt,
    path: &str,
    span: Span,
    spec: &TypeModel,
    fields: &[FieldSpans],
    remedy: &str,
) {
    let Some(rest) = path.strip_prefix(".spec.") else {
        return;
    };
    let first: String = rest
        .chars()
        .take_while(|c| *c != '.' && *c != '[')
        .collect();
    let flattened =
        matches!(&spec.shape, Shape::Struct { fields } if fields.iter().any(|f| f.flatten));
    // A spec whose schema is given by hand has no Rust fields to check.
    if !matches!(spec.shape, Shape::Struct { .. })
        || flattened
        || spec.constraints.overrides_schema()
    {
        return;
    }
    if !fields.iter().any(|f| f.json_name == first) {
        let hint =
            kubegen_core::suggest::suggest(&first, fields.iter().map(|f| f.json_name.as_str()))
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
        cx.error_at(
            span,
            format!("`{path}`: the spec has no field `{first}`{hint}{remedy}"),
        );
    }
}
