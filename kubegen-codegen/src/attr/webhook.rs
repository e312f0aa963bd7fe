//! Parsing `conversion(...)` (where the apiserver reaches the kind's
//! conversion webhook, which version is the hub) and `admission(...)`
//! (validating and defaulting webhooks of one version).

use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use super::value;
use crate::ctxt::Ctxt;
use kubegen_core::model::{Admission, Conversion, WebhookTarget};

/// The keys `conversion(...)` accepts.
const CONVERSION_KEYS: &[&str] = &[
    "service",
    "namespace",
    "path",
    "port",
    "url",
    "hub",
    "external",
    "review_versions",
];

/// The path kubebuilder projects serve conversions on.
pub const DEFAULT_CONVERSION_PATH: &str = "/convert";

/// The Service port webhooks are reached on by default.
pub const DEFAULT_WEBHOOK_PORT: u16 = 443;

/// Whether `s` is a DNS-1123 label (Service names must also start with a
/// letter; namespaces may start with a digit).
fn dns_label(s: &str, letter_first: bool) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
        && (!letter_first || s.as_bytes()[0].is_ascii_lowercase())
}

/// The keys naming where the apiserver reaches a webhook, as written.
#[derive(Default)]
struct Target {
    service: Option<String>,
    namespace: Option<String>,
    port: Option<u16>,
    url: Option<String>,
}

impl Target {
    /// Parses `key` when it is one of `service`, `namespace`, `port`,
    /// `url`; `Ok(false)` for any other key.
    fn parse_key(
        &mut self,
        cx: &Ctxt,
        key: &str,
        inner: &ParseNestedMeta<'_>,
    ) -> syn::Result<bool> {
        match key {
            "service" => {
                let (s, span) = value::string(inner, "service")?;
                if !dns_label(&s, true) {
                    cx.error_at(span, "`service` must be a Service name: lower-case letters, digits and `-`, starting with a letter, at most 63 characters");
                }
                self.service = Some(s);
            }
            "namespace" => {
                let (s, span) = value::string(inner, "namespace")?;
                if !dns_label(&s, false) {
                    cx.error_at(span, "`namespace` must be a namespace name: lower-case letters, digits and `-`, at most 63 characters");
                }
                self.namespace = Some(s);
            }
            "port" => {
                let p = value::unsigned(inner, "port")?;
                match u16::try_from(p) {
                    Ok(p) if p > 0 => self.port = Some(p),
                    _ => cx.error_spanned_by(&inner.path, "`port` must be between 1 and 65535"),
                }
            }
            "url" => {
                let (s, span) = value::string(inner, "url")?;
                if !s.starts_with("https://") || s.contains(['?', '#']) {
                    cx.error_at(span, "`url` must be an `https://` URL without query or fragment: the apiserver calls webhooks over TLS only");
                }
                self.url = Some(s);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The apiserver's rules for `conversionReviewVersions` (not empty, no
/// duplicates, DNS-1035 labels, at least one version it sends: `v1` or
/// `v1beta1`); a webhook this crate serves answers `v1` only, so then
/// `v1` must be listed.
fn check_review_versions(versions: &[String], external: bool) -> Result<(), String> {
    if versions.is_empty() {
        return Err(
            "`review_versions` must list at least one ConversionReview version, e.g. [\"v1\"]"
                .into(),
        );
    }
    for (i, v) in versions.iter().enumerate() {
        if versions[..i].contains(v) {
            return Err(format!("`review_versions` lists \"{v}\" twice"));
        }
        if !dns_label(v, true) {
            return Err(format!(
                "`review_versions`: \"{v}\" is not a version name (a lower-case DNS label such as \"v1\")"
            ));
        }
    }
    if !versions.iter().any(|v| v == "v1" || v == "v1beta1") {
        return Err("`review_versions` must include \"v1\" or \"v1beta1\", the ConversionReview versions the apiserver sends".into());
    }
    if !external && !versions.iter().any(|v| v == "v1") {
        return Err("`review_versions` must include \"v1\": the conversion webhook this crate serves answers ConversionReview v1 only (add `external` if another program serves it)".into());
    }
    Ok(())
}

/// Parses `conversion(service = "...", namespace = "...", hub = "v2")`.
pub fn conversion(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<Conversion>> {
    let mut target = Target::default();
    let mut path = None;
    let mut hub = None;
    let mut external = false;
    let mut review_versions = Vec::new();
    let mut review_span = None;
    meta.parse_nested_meta(|inner| {
        let key = super::path_name(&inner.path);
        if target.parse_key(cx, &key, &inner)? {
            return Ok(());
        }
        match key.as_str() {
            "path" => {
                let (s, span) = value::string(&inner, "path")?;
                if !s.starts_with('/') || s.contains(['?', '#', ' ']) {
                    cx.error_at(
                        span,
                        "`path` must be a URL path starting with `/`, without query or fragment",
                    );
                }
                path = Some(s);
            }
            "external" => external = value::flag(&inner, "external")?,
            "review_versions" => {
                review_versions = value::string_list(&inner, "review_versions")?;
                review_span = Some(inner.path.span());
            }
            "hub" => {
                let (s, span) = value::string(&inner, "hub")?;
                if !dns_label(&s, true) {
                    cx.error_at(span, "`hub` must name a version of this kind, e.g. \"v2\"");
                }
                hub = Some(s);
            }
            other => {
                let hint = kubegen_core::suggest::suggest(other, CONVERSION_KEYS.iter().copied())
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                cx.error_spanned_by(
                    &inner.path,
                    format!("unknown key `{other}` in `conversion(...)`{hint}"),
                );
                value::skip(&inner)?;
            }
        }
        Ok(())
    })?;
    if let Some(span) = review_span
        && let Err(e) = check_review_versions(&review_versions, external)
    {
        cx.error_at(span, e);
    }
    let Some(webhook) = conversion_target(cx, meta, target, path, external) else {
        return Ok(None);
    };
    Ok(Some(Conversion {
        hub,
        webhook,
        external,
        review_versions,
    }))
}

/// Where the apiserver reaches a conversion webhook: `service` and
/// `namespace` (a webhook this crate serves gets its default path and port;
/// an external one keeps what was written), or `url` alone; `None` after
/// reporting any other combination.
fn conversion_target(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    target: Target,
    path: Option<String>,
    external: bool,
) -> Option<WebhookTarget> {
    let Target {
        service,
        namespace,
        port,
        url,
    } = target;
    let webhook = match (service, namespace, url) {
        (Some(name), Some(namespace), None) => WebhookTarget::Service {
            name,
            namespace,
            // A webhook this crate serves is at its path and port; an
            // external one keeps exactly what was written (absent: the
            // apiserver's `/` and 443).
            path: match path {
                None if !external => Some(DEFAULT_CONVERSION_PATH.to_owned()),
                given => given,
            },
            port: match port {
                None if !external => Some(DEFAULT_WEBHOOK_PORT),
                given => given,
            },
        },
        (None, None, Some(url)) if path.is_none() && port.is_none() => WebhookTarget::Url(url),
        (None, None, Some(_)) => {
            cx.error_spanned_by(
                &meta.path,
                "`url` already holds the port and path: leave out `path` and `port`",
            );
            return None;
        }
        (_, _, Some(_)) => {
            cx.error_spanned_by(
                &meta.path,
                "`conversion(...)` takes either `service` and `namespace` (in-cluster) or `url`, not both",
            );
            return None;
        }
        _ => {
            cx.error_spanned_by(
                &meta.path,
                "`conversion(...)` needs where the apiserver reaches the webhook: `service = \"...\"` and `namespace = \"...\"` (or `url = \"https://...\"`)",
            );
            return None;
        }
    };
    Some(webhook)
}

/// The keys `admission(...)` accepts.
const ADMISSION_KEYS: &[&str] = &[
    "validate",
    "default",
    "service",
    "namespace",
    "port",
    "url",
    "failure_policy",
    "timeout_seconds",
    "operations",
];

/// The operations an admission webhook may intercept.
const OPERATIONS: &[&str] = &["CREATE", "UPDATE", "DELETE", "CONNECT"];

/// Parses `admission(validate, default, service = "...", namespace = "...")`.
pub fn admission(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<Admission>> {
    let mut validate = false;
    let mut default = false;
    let mut target = Target::default();
    let mut failure_policy = "Fail".to_owned();
    let mut timeout_seconds = 10u8;
    let mut operations = vec!["CREATE".to_owned(), "UPDATE".to_owned()];
    meta.parse_nested_meta(|inner| {
        let key = super::path_name(&inner.path);
        if target.parse_key(cx, &key, &inner)? {
            return Ok(());
        }
        match key.as_str() {
            "validate" => validate = value::flag(&inner, "validate")?,
            "default" => default = value::flag(&inner, "default")?,
            "failure_policy" => {
                let (s, span) = value::string(&inner, "failure_policy")?;
                if s != "Fail" && s != "Ignore" {
                    cx.error_at(span, "`failure_policy` is \"Fail\" (refuse the request when the webhook is unreachable) or \"Ignore\"");
                }
                failure_policy = s;
            }
            "timeout_seconds" => {
                let t = value::unsigned(&inner, "timeout_seconds")?;
                match u8::try_from(t) {
                    Ok(t @ 1..=30) => timeout_seconds = t,
                    _ => cx.error_spanned_by(&inner.path, "`timeout_seconds` must be between 1 and 30 (the apiserver's limits)"),
                }
            }
            "operations" => {
                let list = value::string_list(&inner, "operations")?;
                for op in &list {
                    if !OPERATIONS.contains(&op.as_str()) {
                        cx.error_spanned_by(&inner.path, format!("unknown operation {op:?}; expected some of {}", OPERATIONS.join(", ")));
                    }
                }
                if list.is_empty() {
                    cx.error_spanned_by(&inner.path, "`operations` needs at least one operation");
                }
                operations = list;
            }
            other => {
                let hint = kubegen_core::suggest::suggest(other, ADMISSION_KEYS.iter().copied())
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                cx.error_spanned_by(
                    &inner.path,
                    format!("unknown key `{other}` in `admission(...)`{hint}"),
                );
                value::skip(&inner)?;
            }
        }
        Ok(())
    })?;
    if !validate && !default {
        cx.error_spanned_by(
            &meta.path,
            "`admission(...)` needs `validate`, `default` or both: which webhooks to register",
        );
        return Ok(None);
    }
    let Target {
        service,
        namespace,
        port,
        url,
    } = target;
    let webhook = match (service, namespace, url) {
        (Some(name), Some(namespace), None) => WebhookTarget::Service {
            name,
            namespace,
            path: None,
            port: Some(port.unwrap_or(DEFAULT_WEBHOOK_PORT)),
        },
        (None, None, Some(url)) if port.is_none() => WebhookTarget::Url(url),
        _ => {
            cx.error_spanned_by(
                &meta.path,
                "`admission(...)` needs where the apiserver reaches the webhook server: `service = \"...\"` and `namespace = \"...\"` (optionally `port`), or `url = \"https://...\"`",
            );
            return Ok(None);
        }
    };
    Ok(Some(Admission {
        validate,
        default,
        webhook,
        failure_policy,
        timeout_seconds,
        operations,
    }))
}
