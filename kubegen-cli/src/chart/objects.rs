//! The chart's templates of what the model defines — the CRDs, the RBAC
//! rules and the admission webhook configurations — built from the very
//! objects `kubegen generate` writes to `config/`, so the chart and the
//! kustomize files cannot drift. Only the release's namespace and names,
//! the chart's labels, the CA bundle and the annotations Helm and
//! cert-manager read are templated.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::splice::Template;

/// The release namespace.
const NAMESPACE: &str = "{{ .Release.Namespace }}";

/// Labels every object of the release carries.
const LABELS: &str = r#"{{- include "CHART.labels" . | nindent {indent} }}"#;

/// The object at `pointer` in `value` as a map, created empty when absent.
fn map_at<'a>(value: &'a mut Value, pointer: &str) -> &'a mut Map<String, Value> {
    let mut at = value;
    for key in pointer.split('/').filter(|k| !k.is_empty()) {
        let object = at.as_object_mut().expect("an object on the way");
        at = object
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !at.is_object() {
            *at = Value::Object(Map::new());
        }
    }
    at.as_object_mut().expect("an object")
}

/// Adds the entries `lines` stand for to the map at `pointer`.
fn add_lines(t: &mut Template, value: &mut Value, pointer: &str, lines: &[&str]) {
    let key = t.lines(lines);
    map_at(value, pointer).insert(key, Value::Null);
}

/// The cert-manager CA injection annotation, when cert-manager is on.
fn inject_ca() -> [&'static str; 3] {
    [
        "{{- if .Values.certManager.enabled }}",
        r#"cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/{{ include "CHART.fullname" . }}-webhook"#,
        "{{- end }}",
    ]
}

/// Points a webhook `clientConfig` at the release's namespace and gives it
/// the chart's CA, when it names a Service; whether it did.
fn service_client_config(t: &mut Template, value: &mut Value, pointer: &str) -> bool {
    let Some(config) = value.pointer_mut(pointer) else {
        return false;
    };
    let Some(service) = config.get_mut("service").and_then(Value::as_object_mut) else {
        return false;
    };
    service.insert("namespace".into(), t.inline(NAMESPACE));
    let key = t.lines(&[
        "{{- if not .Values.certManager.enabled }}",
        r#"caBundle: {{ include "CHART.webhookCA" . }}"#,
        "{{- end }}",
    ]);
    config
        .as_object_mut()
        .expect("clientConfig is an object")
        .insert(key, Value::Null);
    true
}

/// `templates/crds/<file>` for each CRD: installed when `crds.install`,
/// kept on uninstall when `crds.keep`.
pub fn crds(crds: &BTreeMap<String, Value>) -> Vec<(String, String)> {
    crds.iter()
        .map(|(file, crd)| {
            let mut crd = crd.clone();
            let mut t = Template::for_value(&crd);
            let converts =
                service_client_config(&mut t, &mut crd, "/spec/conversion/webhook/clientConfig");
            let mut annotations = vec![
                "{{- if .Values.crds.keep }}",
                "helm.sh/resource-policy: keep",
                "{{- end }}",
            ];
            if converts {
                annotations.extend(inject_ca());
            }
            add_lines(&mut t, &mut crd, "/metadata/annotations", &annotations);
            add_lines(&mut t, &mut crd, "/metadata/labels", &[LABELS]);
            let body = t.render(&crd);
            (
                format!("crds/{file}"),
                format!("{{{{- if .Values.crds.install }}}}\n{body}{{{{- end }}}}\n"),
            )
        })
        .collect()
}

/// `templates/rbac.yaml`: the model's ClusterRole and Roles (named after
/// the release; a Role keeps the namespace its rules name) and their
/// bindings to the operator's ServiceAccount.
pub fn rbac(roles: &[Value]) -> String {
    let mut docs = Vec::new();
    for role in roles {
        let namespaced = role["kind"] == "Role";
        let mut role = role.clone();
        let mut t = Template::for_value(&role);
        role["metadata"]["name"] = t.inline(r#"{{ include "CHART.fullname" . }}-manager"#);
        add_lines(&mut t, &mut role, "/metadata/labels", &[LABELS]);
        docs.push(t.render(&role));

        let mut binding = json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": if namespaced { "RoleBinding" } else { "ClusterRoleBinding" },
            "metadata": {"name": null},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": role["kind"],
                "name": null,
            },
            "subjects": [{"kind": "ServiceAccount", "name": null, "namespace": null}],
        });
        if namespaced {
            binding["metadata"]["namespace"] = role["metadata"]["namespace"].clone();
        }
        let mut t = Template::for_value(&binding);
        binding["metadata"]["name"] = t.inline(r#"{{ include "CHART.fullname" . }}-manager"#);
        binding["roleRef"]["name"] = t.inline(r#"{{ include "CHART.fullname" . }}-manager"#);
        binding["subjects"][0]["name"] = t.inline(r#"{{ include "CHART.serviceAccountName" . }}"#);
        binding["subjects"][0]["namespace"] = t.inline(NAMESPACE);
        add_lines(&mut t, &mut binding, "/metadata/labels", &[LABELS]);
        docs.push(t.render(&binding));
    }
    docs.join("---\n")
}

/// `templates/webhook-configurations.yaml`: the model's validating and
/// mutating webhook configurations, named after the release, calling the
/// Services in its namespace with the chart's CA.
pub fn webhook_configurations(configurations: &[Value]) -> String {
    let mut docs = Vec::new();
    for configuration in configurations {
        let mut value = configuration.clone();
        let mut t = Template::for_value(&value);
        let suffix = match value["kind"].as_str() {
            Some("MutatingWebhookConfiguration") => "mutating",
            _ => "validating",
        };
        value["metadata"]["name"] =
            t.inline(&format!(r#"{{{{ include "CHART.fullname" . }}}}-{suffix}"#));
        let count = value["webhooks"].as_array().map_or(0, Vec::len);
        let mut services = false;
        for i in 0..count {
            services |=
                service_client_config(&mut t, &mut value, &format!("/webhooks/{i}/clientConfig"));
        }
        if services {
            add_lines(&mut t, &mut value, "/metadata/annotations", &inject_ca());
        }
        add_lines(&mut t, &mut value, "/metadata/labels", &[LABELS]);
        docs.push(t.render(&value));
    }
    docs.join("---\n")
}
