//! The chart's `values.yaml` (every value, documented, with the defaults
//! the kustomize files of `kubegen new` use) and `values.schema.json`,
//! which Helm checks every install, upgrade, template and lint against: a
//! misspelt or mistyped value is refused by name instead of ignored.

use serde_json::{Value, json};

use super::Chart;

/// `values.yaml`.
pub fn yaml(chart: &Chart) -> String {
    let webhooks = if chart.webhook_services.is_empty() {
        ""
    } else {
        "
# The webhook port reachable only from the apiserver's addresses (the
# apiserver calls webhooks from the control plane's network, not from a
# pod). Metrics (8443) and probes (8081) stay open.
networkPolicy:
  enabled: false
  # The control plane's address block, e.g. 10.0.0.0/24; required when
  # enabled.
  apiserverCIDR: \"\"
"
    };
    format!(
        r#"{header}# Values of the {name} chart. Every value is checked against
# values.schema.json: an unknown or mistyped value is an error.

image:
  repository: {image}
  # Defaults to the chart's appVersion.
  tag: ""
  pullPolicy: IfNotPresent
imagePullSecrets: []

# With leader election on, one replica leads (a coordination.k8s.io Lease
# in the release namespace) and the others stand by warm.
replicas: 2
leaderElection:
  # Off, more than one replica would reconcile the same objects: the chart
  # refuses replicas > 1 then.
  enabled: true

# json (one object per line) or text.
logFormat: json

# Arguments appended to the operator's command line.
extraArgs: []

resources:
  requests:
    cpu: 50m
    memory: 64Mi
  limits:
    memory: 256Mi

crds:
  # Install the CRDs with the release (templates/crds).
  install: true
  # Keep the CRDs, and so every custom resource, when the release is
  # uninstalled (helm.sh/resource-policy: keep).
  keep: true

serviceAccount:
  create: true
  # Defaults to the release's full name.
  name: ""

# cert-manager issues the webhook's serving certificate and the metrics
# certificate, and injects the webhook CA into the CRDs and webhook
# configurations. Off, the chart generates a CA and a serving certificate
# at install (kept on upgrade), and the operator signs its own metrics
# certificate.
certManager:
  enabled: false
  # An existing Issuer or ClusterIssuer; empty, the chart creates a
  # self-signed Issuer.
  issuerRef:
    name: ""
    kind: Issuer
{webhooks}
# Pod Security `restricted`: non-root, the runtime's seccomp profile, no
# privilege escalation, every capability dropped.
podSecurityContext:
  runAsNonRoot: true
  runAsUser: 65532
  seccompProfile:
    type: RuntimeDefault
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  runAsNonRoot: true
  capabilities:
    drop:
    - ALL

podAnnotations: {{}}
podLabels: {{}}
nodeSelector: {{}}
tolerations: []
affinity: {{}}
# Set to override the release's full name in every object's name.
fullnameOverride: ""
"#,
        header = kubegen_core::output::YAML_HEADER,
        name = chart.name,
        image = serde_json::Value::from(chart.image.as_str()),
    )
}

/// `values.schema.json`.
pub fn schema(chart: &Chart) -> Value {
    let object = |properties: Value, required: &[&str]| {
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": required,
            "properties": properties,
        })
    };
    let map = json!({"type": "object"});
    let list = json!({"type": "array"});
    let string = json!({"type": "string"});
    let boolean = json!({"type": "boolean"});
    let mut properties = json!({
        "image": object(json!({
            "repository": {"type": "string", "minLength": 1},
            "tag": string,
            "pullPolicy": {"enum": ["Always", "IfNotPresent", "Never"]},
        }), &["repository", "tag", "pullPolicy"]),
        "imagePullSecrets": {"type": "array", "items": object(json!({"name": {"type": "string", "minLength": 1}}), &["name"])},
        "replicas": {"type": "integer", "minimum": 0},
        "leaderElection": object(json!({"enabled": boolean}), &["enabled"]),
        "logFormat": {"enum": ["json", "text"]},
        "extraArgs": {"type": "array", "items": string},
        "resources": map,
        "crds": object(json!({"install": boolean, "keep": boolean}), &["install", "keep"]),
        "serviceAccount": object(json!({"create": boolean, "name": string}), &["create", "name"]),
        "certManager": object(json!({
            "enabled": boolean,
            "issuerRef": object(json!({
                "name": string,
                "kind": {"enum": ["Issuer", "ClusterIssuer"]},
            }), &["name", "kind"]),
        }), &["enabled", "issuerRef"]),
        "podSecurityContext": map,
        "securityContext": map,
        "podAnnotations": {"type": "object", "additionalProperties": string},
        "podLabels": {"type": "object", "additionalProperties": string},
        "nodeSelector": {"type": "object", "additionalProperties": string},
        "tolerations": list,
        "affinity": map,
        "fullnameOverride": {"type": "string", "maxLength": 63},
    });
    if !chart.webhook_services.is_empty() {
        properties["networkPolicy"] = object(
            json!({"enabled": boolean, "apiserverCIDR": string}),
            &["enabled", "apiserverCIDR"],
        );
    }
    let mut schema = object(properties, &[]);
    schema["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    schema["title"] = json!(format!("Values of the {} chart", chart.name));
    schema
}
