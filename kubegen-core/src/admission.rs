//! Admission webhook configurations: the paths the operator's webhook
//! server answers on and the `ValidatingWebhookConfiguration` /
//! `MutatingWebhookConfiguration` that register them, from the resource
//! models that declare `admission(...)`.
//!
//! Choices, deliberately:
//! - `failurePolicy: Fail` unless `failure_policy = "Ignore"`: an object
//!   the webhook has not seen must not be stored unchecked or undefaulted;
//!   the webhook only intercepts its own kind, so an outage blocks writes of
//!   that kind only, never cluster-critical objects — and no namespace or
//!   object selector is needed to protect them.
//! - `timeoutSeconds: 10` (the API default, kubebuilder's): long enough for
//!   a loaded webhook, short enough to fail a client request clearly.
//! - `sideEffects: None`, `admissionReviewVersions: [v1]`,
//!   `matchPolicy: Equivalent` (a request at another version of the kind is
//!   converted and still checked), `reinvocationPolicy: Never` for
//!   defaulting (defaults do not depend on other mutating webhooks).

use serde_json::{Value, json};

use crate::model::{ResourceModel, WebhookTarget};

/// The path of a kind's validating (`prefix = "validate"`) or defaulting
/// (`"mutate"`) webhook, kubebuilder's form:
/// `/validate-stable-example-com-v1-myapplication`.
pub fn path(prefix: &str, group: &str, version: &str, kind: &str) -> String {
    format!(
        "/{prefix}-{}-{version}-{}",
        group.replace('.', "-"),
        kind.to_ascii_lowercase()
    )
}

fn client_config(target: &WebhookTarget, path: &str) -> Value {
    match target {
        WebhookTarget::Service {
            name,
            namespace,
            port,
            ..
        } => json!({"service": {
            "name": name, "namespace": namespace, "path": path, "port": port.unwrap_or(443),
        }}),
        WebhookTarget::Url(base) => json!({"url": format!("{}{path}", base.trim_end_matches('/'))}),
    }
}

/// The `ValidatingWebhookConfiguration` and `MutatingWebhookConfiguration`
/// (named `<name>-validating` / `<name>-mutating`) for every model with
/// `admission(...)`; `None` for a configuration with no webhook.
pub fn configurations<'a>(
    name: &str,
    models: impl IntoIterator<Item = &'a ResourceModel>,
) -> [Option<Value>; 2] {
    let mut validating = Vec::new();
    let mut mutating = Vec::new();
    let mut models: Vec<&ResourceModel> = models.into_iter().collect();
    crate::sorting::sort_by_key(&mut models, |m| {
        (m.group.clone(), m.kind.clone(), m.version.clone())
    });
    for m in models {
        let Some(a) = &m.admission else { continue };
        let webhook = |prefix: &str, letter: &str| {
            let path = path(prefix, &m.group, &m.version, &m.kind);
            let mut w = json!({
                "name": format!("{letter}{}-{}.{}", m.kind.to_ascii_lowercase(), m.version, m.group),
                "admissionReviewVersions": ["v1"],
                "clientConfig": client_config(&a.webhook, &path),
                "failurePolicy": a.failure_policy,
                "matchPolicy": "Equivalent",
                "rules": [{
                    "apiGroups": [m.group],
                    "apiVersions": [m.version],
                    "operations": a.operations,
                    "resources": [m.plural],
                    "scope": if m.namespaced { "Namespaced" } else { "Cluster" },
                }],
                "sideEffects": "None",
                "timeoutSeconds": a.timeout_seconds,
            });
            if prefix == "mutate" {
                w["reinvocationPolicy"] = "Never".into();
            }
            w
        };
        if a.validate {
            validating.push(webhook("validate", "v"));
        }
        if a.default {
            mutating.push(webhook("mutate", "m"));
        }
    }
    let config = |kind: &str, suffix: &str, webhooks: Vec<Value>| {
        (!webhooks.is_empty()).then(|| {
            crate::output::canonical(&json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": kind,
                "metadata": {"name": format!("{name}-{suffix}")},
                "webhooks": webhooks,
            }))
        })
    };
    [
        config("ValidatingWebhookConfiguration", "validating", validating),
        config("MutatingWebhookConfiguration", "mutating", mutating),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Admission;

    #[test]
    fn paths_follow_kubebuilder() {
        assert_eq!(
            path("validate", "stable.example.com", "v1", "MyApplication"),
            "/validate-stable-example-com-v1-myapplication"
        );
    }

    #[test]
    fn configurations_register_each_declared_webhook() {
        let mut m = ResourceModel {
            group: "shop.example.com".into(),
            version: "v2".into(),
            kind: "Cart".into(),
            plural: "carts".into(),
            namespaced: true,
            ..ResourceModel::default()
        };
        let none = configurations("shop", [&m]);
        assert_eq!(none, [None, None]);
        m.admission = Some(Admission {
            validate: true,
            default: false,
            webhook: WebhookTarget::Service {
                name: "shop-webhook".into(),
                namespace: "shop-system".into(),
                path: None,
                port: Some(443),
            },
            failure_policy: "Fail".into(),
            timeout_seconds: 10,
            operations: vec!["CREATE".into(), "UPDATE".into()],
        });
        let [validating, mutating] = configurations("shop", [&m]);
        assert!(mutating.is_none());
        let v = validating.unwrap();
        assert_eq!(v["metadata"]["name"], "shop-validating");
        let w = &v["webhooks"][0];
        assert_eq!(w["name"], "vcart-v2.shop.example.com");
        assert_eq!(
            w["clientConfig"]["service"]["path"],
            "/validate-shop-example-com-v2-cart"
        );
        assert_eq!(w["rules"][0]["resources"], json!(["carts"]));
        assert_eq!(w["sideEffects"], "None");
        assert_eq!(w["failurePolicy"], "Fail");

        if let Some(a) = m.admission.as_mut() {
            a.default = true;
            a.webhook = WebhookTarget::Url("https://127.0.0.1:9443/".into());
        }
        let [_, mutating] = configurations("shop", [&m]);
        let w = &mutating.unwrap()["webhooks"][0];
        assert_eq!(
            w["clientConfig"]["url"],
            "https://127.0.0.1:9443/mutate-shop-example-com-v2-cart"
        );
        assert_eq!(w["reinvocationPolicy"], "Never");
    }
}
