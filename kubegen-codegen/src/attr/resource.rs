//! Parsing resource-level keys of `#[derive(CustomResource)]`.

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;

use super::keys;
use super::value;
use crate::ctxt::Ctxt;
use kubegen_core::model::{Admission, Conversion, PrinterColumn, Scale, Verb, Verbs};

/// Resource keys as written, before defaults are applied.
#[derive(Default)]
pub struct ResourceAttrs {
    /// `group`.
    pub group: Option<String>,
    /// `version`.
    pub version: Option<String>,
    /// `kind`.
    pub kind: Option<String>,
    /// `namespaced`.
    pub namespaced: bool,
    /// `plural`.
    pub plural: Option<String>,
    /// `singular`.
    pub singular: Option<String>,
    /// `list_kind`: the CRD's `listKind`, when not `<Kind>List`.
    pub list_kind: Option<String>,
    /// `shortname` (repeatable).
    pub short_names: Vec<String>,
    /// `category` (repeatable).
    pub categories: Vec<String>,
    /// `allow_breaking` (repeatable), with spans.
    pub allow_breaking: Vec<(String, Span)>,
    /// `status = "Type"`.
    pub status: Option<syn::Type>,
    /// `scale(...)`.
    pub scale: Option<Scale>,
    /// `printcolumn(...)` with the span of each `json_path`.
    pub printer_columns: Vec<(PrinterColumn, Span)>,
    /// `selectable_field(json_path = ...)` with spans.
    pub selectable_fields: Vec<(String, Span)>,
    /// `storage`.
    pub storage: Option<bool>,
    /// `served`.
    pub served: Option<bool>,
    /// `deprecated`.
    pub deprecated: bool,
    /// `deprecation_warning`.
    pub deprecation_warning: Option<String>,
    /// `kind_description`.
    pub kind_description: Option<String>,
    /// `optional_spec`.
    pub optional_spec: bool,
    /// `required_metadata`.
    pub required_metadata: bool,
    /// `status_subresource = bool`.
    pub status_subresource: Option<bool>,
    /// `allow_lossy_versions`.
    pub allow_lossy_versions: bool,
    /// `flatten_spec`.
    pub flatten_spec: bool,
    /// `type_meta_schema_json`.
    pub type_meta_schema: Option<serde_json::Map<String, serde_json::Value>>,
    /// `crd_label(key, value)`.
    pub crd_labels: BTreeMap<String, String>,
    /// `crd_annotation(key, value)`.
    pub crd_annotations: BTreeMap<String, String>,
    /// `verbs(...)` and `no_status`.
    pub verbs: Verbs,
    /// `max_description_len`.
    pub max_description_len: Option<usize>,
    /// `max_name_length`.
    pub max_name_length: Option<u64>,
    /// `name_pattern`.
    pub name_pattern: Option<String>,
    /// `derive = "PartialEq"` (repeatable): extra derives on the root type.
    pub derives: Vec<syn::Path>,
    /// `conversion(...)`.
    pub conversion: Option<Conversion>,
    /// `admission(...)`.
    pub admission: Option<Admission>,
}

/// The longest object name the apiserver accepts (a DNS subdomain).
const MAX_OBJECT_NAME: u64 = 253;

/// The printer column types the apiserver accepts.
pub const COLUMN_TYPES: &[&str] = &["integer", "number", "string", "boolean", "date"];

/// The `(key, value)` of `crd_label(...)` / `crd_annotation(...)`, both
/// required.
fn key_value(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    what: &str,
) -> syn::Result<Option<(String, String)>> {
    let (mut k, mut v) = (None, None);
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("key") {
            k = Some(value::string(&inner, "key")?.0);
        } else if inner.path.is_ident("value") {
            v = Some(value::string(&inner, "value")?.0);
        } else {
            cx.error_spanned_by(
                &inner.path,
                format!("expected `key` or `value` in `{what}(...)`"),
            );
            value::skip(&inner)?;
        }
        Ok(())
    })?;
    match (k, v) {
        (Some(k), Some(v)) => Ok(Some((k, v))),
        _ => {
            cx.error_spanned_by(
                &meta.path,
                format!("`{what}` needs `key = \"...\"` and `value = \"...\"`"),
            );
            Ok(None)
        }
    }
}

/// The verbs of `only = [...]` / `skip = [...]`, unknown ones refused
/// with "did you mean".
fn verb_list(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Vec<Verb>> {
    let names = value::string_list(meta, key)?;
    let mut out = Vec::new();
    for n in names {
        match Verb::parse(&n) {
            Some(v) => out.push(v),
            None => {
                let hint = kubegen_core::suggest::suggest(&n, Verb::ALL.iter().map(|(n, _)| *n))
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                cx.error_spanned_by(&meta.path, format!("unknown verb \"{n}\"{hint}"));
            }
        }
    }
    Ok(out)
}

impl ResourceAttrs {
    /// Parses one resource key: hands it to the function of its family.
    pub fn parse_key(
        &mut self,
        cx: &Ctxt,
        key: &'static str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        match key {
            keys::GROUP
            | keys::KIND
            | keys::NAMESPACED
            | keys::PLURAL
            | keys::SINGULAR
            | keys::LIST_KIND
            | keys::SHORTNAME
            | keys::CATEGORY
            | keys::ALLOW_BREAKING => self.parse_name_key(cx, key, meta),
            keys::VERSION
            | keys::STORAGE
            | keys::SERVED
            | keys::DEPRECATED
            | keys::DEPRECATION_WARNING
            | keys::ALLOW_LOSSY_VERSIONS => self.parse_version_key(cx, key, meta),
            keys::STATUS | keys::STATUS_SUBRESOURCE => self.parse_status_key(cx, key, meta),
            keys::SCALE => self.parse_scale(cx, meta),
            keys::PRINTCOLUMN => self.parse_printcolumn(cx, meta),
            keys::SELECTABLE_FIELD => self.parse_selectable_field(cx, key, meta),
            keys::KIND_DESCRIPTION
            | keys::OPTIONAL_SPEC
            | keys::REQUIRED_METADATA
            | keys::FLATTEN_SPEC
            | keys::TYPE_META_SCHEMA_JSON
            | keys::MAX_DESCRIPTION_LEN => self.parse_schema_key(cx, key, meta),
            keys::MAX_NAME_LENGTH | keys::NAME_PATTERN => self.parse_object_name_key(cx, key, meta),
            keys::CRD_LABEL | keys::CRD_ANNOTATION => self.parse_crd_metadata_key(cx, key, meta),
            keys::VERBS | keys::NO_STATUS => self.parse_verbs_key(cx, key, meta),
            keys::CONVERSION => {
                self.conversion = super::webhook::conversion(cx, meta)?;
                Ok(())
            }
            keys::ADMISSION => {
                self.admission = super::webhook::admission(cx, meta)?;
                Ok(())
            }
            keys::DERIVE => self.parse_derive(cx, key, meta),
            other => not_a_resource_key(cx, other, meta),
        }
    }

    /// The kind's identity and names: `group`, `kind`, `namespaced`,
    /// `plural`, `singular`, `list_kind`, `shortname`, `category`.
    fn parse_name_key(
        &mut self,
        cx: &Ctxt,
        key: &'static str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        match key {
            keys::GROUP => self.group = Some(value::string(meta, key)?.0),
            keys::KIND => self.kind = Some(value::string(meta, key)?.0),
            keys::NAMESPACED => self.namespaced = value::flag(meta, key)?,
            keys::PLURAL => self.plural = Some(value::string(meta, key)?.0),
            keys::SINGULAR => self.singular = Some(value::string(meta, key)?.0),
            keys::LIST_KIND => self.list_kind = Some(value::string(meta, key)?.0),
            keys::SHORTNAME => self.short_names.push(value::string(meta, key)?.0),
            keys::CATEGORY => self.categories.push(value::string(meta, key)?.0),
            keys::ALLOW_BREAKING => self.allow_breaking.push(value::string(meta, key)?),
            other => return not_a_resource_key(cx, other, meta),
        }
        Ok(())
    }

    /// This version's entry among the kind's versions: `version`,
    /// `storage`, `served`, `deprecated`, `deprecation_warning` (which
    /// implies `deprecated`), `allow_lossy_versions`.
    fn parse_version_key(
        &mut self,
        cx: &Ctxt,
        key: &'static str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        match key {
            keys::VERSION => self.version = Some(value::string(meta, key)?.0),
            keys::STORAGE => self.storage = Some(value::flag(meta, key)?),
            keys::SERVED => self.served = Some(value::flag(meta, key)?),
            keys::DEPRECATED => self.deprecated = value::flag(meta, key)?,
            keys::DEPRECATION_WARNING => {
                self.deprecation_warning = Some(value::string(meta, key)?.0);
                self.deprecated = true;
            }
            keys::ALLOW_LOSSY_VERSIONS => self.allow_lossy_versions = value::flag(meta, key)?,
            other => return not_a_resource_key(cx, other, meta),
        }
        Ok(())
    }

    /// The status: `status` (its type, which must parse as one) and
    /// `status_subresource`.
    fn parse_status_key(
        &mut self,
        cx: &Ctxt,
        key: &'static str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        match key {
            keys::STATUS => {
                let (s, span) = value::string(meta, key)?;
                match syn::parse_str::<syn::Type>(&s) {
                    Ok(ty) => self.status = Some(ty),
                    Err(_) => cx.error_at(span, "`status` must name a type, e.g. \"MyStatus\""),
                }
            }
            keys::STATUS_SUBRESOURCE => {
                self.status_subresource = Some(value::flag(meta, key)?);
            }
            other => return not_a_resource_key(cx, other, meta),
        }
        Ok(())
    }

    /// `scale(...)`: both replica paths are required, the label selector
    /// path and `unchecked` optional; other keys are refused.
    fn parse_scale(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let (mut spec, mut status, mut selector) = (None, None, None);
        let mut unchecked = false;
        meta.parse_nested_meta(|inner| {
            let name = super::path_name(&inner.path);
            match name.as_str() {
                "spec_replicas_path" => spec = Some(value::string(&inner, "spec_replicas_path")?.0),
                "status_replicas_path" => status = Some(value::string(&inner, "status_replicas_path")?.0),
                "label_selector_path" => selector = Some(value::string(&inner, "label_selector_path")?.0),
                "unchecked" => unchecked = value::flag(&inner, "unchecked")?,
                other => {
                    cx.error_spanned_by(&inner.path, format!("unknown key `{other}` in `scale(...)`; expected spec_replicas_path, status_replicas_path, label_selector_path or unchecked"));
                    value::skip(&inner)?;
                }
            }
            Ok(())
        })?;
        match (spec, status) {
            (Some(spec_replicas_path), Some(status_replicas_path)) => {
                self.scale = Some(Scale {
                    spec_replicas_path,
                    status_replicas_path,
                    label_selector_path: selector,
                    unchecked,
                })
            }
            _ => cx.error_spanned_by(
                &meta.path,
                "`scale(...)` needs `spec_replicas_path` and `status_replicas_path`",
            ),
        }
        Ok(())
    }

    /// `printcolumn(...)`: a column needs `name` and `json_path` (whose
    /// span is kept for the path check); each key is read by
    /// [`printcolumn_key`].
    fn parse_printcolumn(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let mut col = PrinterColumn {
            name: String::new(),
            type_: String::new(),
            json_path: String::new(),
            description: None,
            format: None,
            priority: None,
            unchecked: false,
        };
        let mut path_span = None;
        meta.parse_nested_meta(|inner| printcolumn_key(cx, &inner, &mut col, &mut path_span))?;
        match path_span {
            Some(span) if !col.name.is_empty() => self.printer_columns.push((col, span)),
            _ => cx.error_spanned_by(
                &meta.path,
                "`printcolumn(...)` needs `name` and `json_path` (`type` is inferred from the field when left out)",
            ),
        }
        Ok(())
    }

    /// `selectable_field = "..."` or `selectable_field(json_path = "...")`.
    fn parse_selectable_field(
        &mut self,
        cx: &Ctxt,
        key: &'static str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        if meta.input.peek(syn::Token![=]) {
            let (p, span) = value::string(meta, key)?;
            self.selectable_fields.push((p, span));
            return Ok(());
        }
        let mut found = None;
        meta.parse_nested_meta(|inner| {
            if inner.path.is_ident("json_path") {
                found = Some(value::string(&inner, "json_path")?);
            } else {
                cx.error_spanned_by(
                    &inner.path,
                    "expected `json_path` in `selectable_field(...)`",
                );
                value::skip(&inner)?;
            }
            Ok(())
        })?;
        match found {
            Some(f) => self.selectable_fields.push(f),
            None => {
                cx.error_spanned_by(&meta.path, "`selectable_field` needs `json_path = \"...\"`")
            }
        }
        Ok(())
    }

    /// The shape of the version's root schema: `kind_description`,
    /// `optional_spec`, `required_metadata`, `flatten_spec`,
    /// `type_meta_schema_json` (an object of type-meta keys only),
    /// `max_description_len`.
    fn parse_schema_key(
        &mut self,
        cx: &Ctxt,
        key: &'static str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        match key {
            keys::KIND_DESCRIPTION => {
                self.kind_description = Some(value::string(meta, key)?.0);
            }
            keys::OPTIONAL_SPEC => self.optional_spec = value::flag(meta, key)?,
            keys::REQUIRED_METADATA => self.required_metadata = value::flag(meta, key)?,
            keys::FLATTEN_SPEC => self.flatten_spec = value::flag(meta, key)?,
            keys::TYPE_META_SCHEMA_JSON => match value::json_string(meta, key)? {
                serde_json::Value::Object(m)
                    if m
                        .keys()
                        .all(|k| matches!(k.as_str(), "apiVersion" | "kind" | "metadata")) =>
                {
                    self.type_meta_schema = Some(m);
                }
                _ => cx.error_spanned_by(
                    &meta.path,
                    "`type_meta_schema_json` must be a JSON object whose keys are among `apiVersion`, `kind` and `metadata`",
                ),
            },
            keys::MAX_DESCRIPTION_LEN => {
                self.max_description_len =
                    Some(usize::try_from(value::unsigned(meta, key)?).unwrap_or(usize::MAX))
            }
            other => return not_a_resource_key(cx, other, meta),
        }
        Ok(())
    }

    /// The rules on object names: `max_name_length` (within the
    /// apiserver's own limit) and `name_pattern` (an RE2 pattern without
    /// quotes).
    fn parse_object_name_key(
        &mut self,
        cx: &Ctxt,
        key: &'static str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        match key {
            keys::MAX_NAME_LENGTH => {
                let max = value::unsigned(meta, key)?;
                if !(1..=MAX_OBJECT_NAME).contains(&max) {
                    cx.error_spanned_by(
                        &meta.path,
                        format!(
                            "`max_name_length` must be between 1 and {MAX_OBJECT_NAME}, the apiserver's own limit on names"
                        ),
                    );
                }
                self.max_name_length = Some(max);
            }
            keys::NAME_PATTERN => {
                let (pattern, span) = value::string(meta, key)?;
                if let Err(msg) = super::constraints::check_pattern(&pattern) {
                    cx.error_at(span, msg);
                } else if pattern.contains(['\'', '"']) {
                    cx.error_at(
                        span,
                        "`name_pattern` cannot contain quotes: object names never do",
                    );
                }
                self.name_pattern = Some(pattern);
            }
            other => return not_a_resource_key(cx, other, meta),
        }
        Ok(())
    }

    /// The CRD object's own metadata: `crd_label(...)` and
    /// `crd_annotation(...)`.
    fn parse_crd_metadata_key(
        &mut self,
        cx: &Ctxt,
        key: &'static str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        let map = match key {
            keys::CRD_LABEL => &mut self.crd_labels,
            keys::CRD_ANNOTATION => &mut self.crd_annotations,
            other => return not_a_resource_key(cx, other, meta),
        };
        if let Some((k, v)) = key_value(cx, meta, key)? {
            map.insert(k, v);
        }
        Ok(())
    }

    /// The generated client's verbs: `verbs(only = [...])` or
    /// `verbs(skip = [...])`, not both; `no_status`.
    fn parse_verbs_key(
        &mut self,
        cx: &Ctxt,
        key: &'static str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        match key {
            keys::VERBS => {
                meta.parse_nested_meta(|inner| {
                    if inner.path.is_ident("only") {
                        self.verbs.only = Some(verb_list(cx, &inner, "only")?);
                    } else if inner.path.is_ident("skip") {
                        self.verbs.skip = verb_list(cx, &inner, "skip")?;
                    } else {
                        cx.error_spanned_by(
                            &inner.path,
                            "expected `only = [...]` or `skip = [...]` in `verbs(...)`",
                        );
                        value::skip(&inner)?;
                    }
                    Ok(())
                })?;
                if self.verbs.only.is_some() && !self.verbs.skip.is_empty() {
                    cx.error_spanned_by(
                        &meta.path,
                        "`verbs(only = ...)` and `verbs(skip = ...)` cannot be combined",
                    );
                }
            }
            keys::NO_STATUS => self.verbs.no_status = value::flag(meta, key)?,
            other => return not_a_resource_key(cx, other, meta),
        }
        Ok(())
    }

    /// `derive = "..."`: an extra derive on the root type, which must
    /// parse as a path.
    fn parse_derive(
        &mut self,
        cx: &Ctxt,
        key: &'static str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        let (s, span) = value::string(meta, key)?;
        match syn::parse_str::<syn::Path>(&s) {
            Ok(p) => self.derives.push(p),
            Err(_) => cx.error_at(
                span,
                "`derive` must name a derive macro, e.g. \"PartialEq\"",
            ),
        }
        Ok(())
    }
}

/// One key inside `printcolumn(...)`: `type` must be a type the apiserver
/// accepts, `priority` is clamped to `i32`, an unknown key gets "did you
/// mean".
fn printcolumn_key(
    cx: &Ctxt,
    inner: &ParseNestedMeta<'_>,
    col: &mut PrinterColumn,
    path_span: &mut Option<Span>,
) -> syn::Result<()> {
    let name = if inner.path.is_ident("type") {
        "type".to_owned()
    } else {
        super::path_name(&inner.path)
    };
    match name.as_str() {
        "name" => col.name = value::string(inner, "name")?.0,
        "type" | "type_" => {
            let (t, span) = value::string(inner, "type")?;
            if !COLUMN_TYPES.contains(&t.as_str()) {
                cx.error_at(
                    span,
                    format!(
                        "printer column `type` must be one of {}",
                        COLUMN_TYPES.join(", ")
                    ),
                );
            }
            col.type_ = t;
        }
        "json_path" => {
            let (p, span) = value::string(inner, "json_path")?;
            col.json_path = p;
            *path_span = Some(span);
        }
        "description" => col.description = Some(value::string(inner, "description")?.0),
        "format" => col.format = Some(value::string(inner, "format")?.0),
        "priority" => {
            let p = value::unsigned(inner, "priority")?;
            col.priority = Some(i32::try_from(p).unwrap_or(i32::MAX));
        }
        "unchecked" => col.unchecked = value::flag(inner, "unchecked")?,
        other => {
            let known = [
                "name",
                "type",
                "json_path",
                "description",
                "format",
                "priority",
                "unchecked",
            ];
            let hint = kubegen_core::suggest::suggest(other, known)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            cx.error_spanned_by(
                &inner.path,
                format!("unknown key `{other}` in `printcolumn(...)`{hint}"),
            );
            value::skip(inner)?;
        }
    }
    Ok(())
}

/// Refuses a kubegen key that is not a resource key, and skips its value.
fn not_a_resource_key(cx: &Ctxt, key: &str, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    cx.error_spanned_by(
        &meta.path,
        format!("kubegen attribute `{key}` is not a resource attribute"),
    );
    value::skip(meta)
}
