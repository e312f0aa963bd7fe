//! The chart's own templates: helpers, the operator's Deployment, its
//! ServiceAccount and bindings, Services, certificates and network policy.
//! They hold what `kubegen new`'s kustomize files hold (the same ports,
//! probes, flags, Pod Security `restricted` context and metrics
//! authorization), with names and the namespace from the release.
//!
//! `CHART` stands for the chart's name, which the caller puts in.

use std::collections::{BTreeMap, BTreeSet};

/// Named templates every file uses.
const HELPERS: &str = r#"{{/* The name of every object: the release's name, followed by the chart's
unless the release's name holds it already, cut to 63 characters. */}}
{{- define "CHART.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains "CHART" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name "CHART" | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "CHART.selectorLabels" -}}
app.kubernetes.io/name: CHART
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "CHART.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "CHART.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "CHART.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "CHART.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "CHART.issuerRef" -}}
{{- if .Values.certManager.issuerRef.name -}}
name: {{ .Values.certManager.issuerRef.name }}
kind: {{ .Values.certManager.issuerRef.kind }}
{{- else -}}
name: {{ include "CHART.fullname" . }}-selfsigned
kind: Issuer
{{- end -}}
{{- end -}}
"#;

/// The webhook certificate without cert-manager: the Secret's when the
/// release has one (an upgrade keeps it), else a CA and a serving
/// certificate generated once per render, shared by every template that
/// includes it (memoised in `.Values`).
const WEBHOOK_CERTIFICATE: &str = r#"
{{- define "CHART.webhookCertificate" -}}
{{- if not (hasKey .Values "kubegenWebhookCertificate") -}}
{{- $secret := lookup "v1" "Secret" .Release.Namespace (printf "%s-webhook-cert" (include "CHART.fullname" .)) -}}
{{- if and $secret (hasKey $secret.data "ca.crt") (hasKey $secret.data "tls.crt") (hasKey $secret.data "tls.key") -}}
{{- $_ := set .Values "kubegenWebhookCertificate" (dict "ca" (index $secret.data "ca.crt") "crt" (index $secret.data "tls.crt") "key" (index $secret.data "tls.key")) -}}
{{- else -}}
{{- $names := list -}}
{{- range $service := list SERVICES -}}
{{- $names = append $names (printf "%s.%s.svc" $service $.Release.Namespace) -}}
{{- $names = append $names (printf "%s.%s.svc.cluster.local" $service $.Release.Namespace) -}}
{{- end -}}
{{- $ca := genCA (printf "%s-webhook-ca" (include "CHART.fullname" .)) 3650 -}}
{{- $cert := genSignedCert (first $names) nil $names 3650 $ca -}}
{{- $_ := set .Values "kubegenWebhookCertificate" (dict "ca" ($ca.Cert | b64enc) "crt" ($cert.Cert | b64enc) "key" ($cert.Key | b64enc)) -}}
{{- end -}}
{{- end -}}
{{- toJson (get .Values "kubegenWebhookCertificate") -}}
{{- end -}}

{{- define "CHART.webhookCA" -}}
{{- (include "CHART.webhookCertificate" . | fromJson).ca -}}
{{- end -}}
"#;

const SERVICE_ACCOUNT: &str = r#"{{- if .Values.serviceAccount.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "CHART.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
{{- end }}
---
# Lets the operator ask the apiserver who a scraper is (TokenReview) and
# whether it may read /metrics (SubjectAccessReview).
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ include "CHART.fullname" . }}-auth-delegator
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:auth-delegator
subjects:
- kind: ServiceAccount
  name: {{ include "CHART.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
---
# Grants reading the operator's /metrics: bind it to your scraper's
# ServiceAccount.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ include "CHART.fullname" . }}-metrics-reader
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
rules:
- nonResourceURLs:
  - /metrics
  verbs:
  - get
"#;

const DEPLOYMENT: &str = r#"{{- if and (not .Values.leaderElection.enabled) (gt (int .Values.replicas) 1) }}
{{- fail "replicas > 1 needs leaderElection.enabled: without it every replica reconciles every object" }}
{{- end }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "CHART.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      {{- include "CHART.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "CHART.selectorLabels" . | nindent 8 }}
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with .Values.podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      serviceAccountName: {{ include "CHART.serviceAccountName" . }}
      {{- with .Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml .Values.podSecurityContext | nindent 8 }}
      containers:
      - name: manager
        image: {{ printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) | quote }}
        imagePullPolicy: {{ .Values.image.pullPolicy }}
        args:
        {{- if eq .Values.logFormat "json" }}
        - --json-logs
        {{- end }}
        {{- if not .Values.leaderElection.enabled }}
        - --no-leader-elect
        {{- end }}
        - --lease-namespace={{ .Release.Namespace }}
        {{- if .Values.certManager.enabled }}
        - --metrics-cert-dir=/tmp/k8s-metrics-server/metrics-certs
        {{- end }}
WEBHOOK_ARGS        {{- with .Values.extraArgs }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        env:
        - name: POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        - name: POD_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
        # /healthz and /readyz: plain HTTP for the kubelet. /metrics: HTTPS,
        # answered only for tokens the apiserver authorizes for `get` on
        # /metrics (the metrics-reader ClusterRole).
        ports:
        - name: probes
          containerPort: 8081
        - name: https
          containerPort: 8443
WEBHOOK_PORT        livenessProbe:
          httpGet:
            path: /healthz
            port: probes
          periodSeconds: 10
        readinessProbe:
          httpGet:
            path: /readyz
            port: probes
          periodSeconds: 5
        resources:
          {{- toYaml .Values.resources | nindent 10 }}
        securityContext:
          {{- toYaml .Values.securityContext | nindent 10 }}
        volumeMounts:
WEBHOOK_MOUNT        {{- if .Values.certManager.enabled }}
        - name: metrics-cert
          mountPath: /tmp/k8s-metrics-server/metrics-certs
          readOnly: true
        {{- end }}
      volumes:
WEBHOOK_VOLUME      {{- if .Values.certManager.enabled }}
      - name: metrics-cert
        secret:
          secretName: {{ include "CHART.fullname" . }}-metrics-cert
      {{- end }}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
"#;

const WEBHOOK_ARGS: &str = "        - --webhook-cert-dir=/tmp/k8s-webhook-server/serving-certs\n";
const WEBHOOK_PORT: &str = "        # Every replica serves the webhooks, leader or not.
        - name: webhook
          containerPort: 9443
";
const WEBHOOK_MOUNT: &str = "        - name: webhook-cert
          mountPath: /tmp/k8s-webhook-server/serving-certs
          readOnly: true
";
const WEBHOOK_VOLUME: &str = r#"      - name: webhook-cert
        secret:
          secretName: {{ include "CHART.fullname" . }}-webhook-cert
"#;

const METRICS_SERVICE: &str = r#"# The metrics endpoint: scrape port `https` at /metrics with a token bound
# to the metrics-reader ClusterRole.
apiVersion: v1
kind: Service
metadata:
  name: {{ include "CHART.fullname" . }}-metrics
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
    app.kubernetes.io/component: metrics
spec:
  selector:
    {{- include "CHART.selectorLabels" . | nindent 4 }}
  ports:
  - name: https
    port: 8443
    targetPort: https
    protocol: TCP
"#;

/// One webhook Service: `SERVICE` is the name the model's
/// `conversion(...)`/`admission(...)` give, `PORTS` its ports.
const WEBHOOK_SERVICE: &str = r#"---
apiVersion: v1
kind: Service
metadata:
  name: SERVICE
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
    app.kubernetes.io/component: webhook
spec:
  selector:
    {{- include "CHART.selectorLabels" . | nindent 4 }}
  ports:
PORTS"#;

const CERTIFICATES: &str = r#"{{- if .Values.certManager.enabled }}
{{- if not .Values.certManager.issuerRef.name }}
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: {{ include "CHART.fullname" . }}-selfsigned
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
spec:
  selfSigned: {}
---
{{- end }}
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{ include "CHART.fullname" . }}-metrics
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
spec:
  secretName: {{ include "CHART.fullname" . }}-metrics-cert
  dnsNames:
  - {{ include "CHART.fullname" . }}-metrics.{{ .Release.Namespace }}.svc
  - {{ include "CHART.fullname" . }}-metrics.{{ .Release.Namespace }}.svc.cluster.local
  issuerRef:
    {{- include "CHART.issuerRef" . | nindent 4 }}
WEBHOOK_CERTIFICATE{{- end }}
"#;

const WEBHOOK_CERT_MANAGER: &str = r#"---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{ include "CHART.fullname" . }}-webhook
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
spec:
  secretName: {{ include "CHART.fullname" . }}-webhook-cert
  dnsNames:
  {{- range $service := list SERVICES }}
  - {{ $service }}.{{ $.Release.Namespace }}.svc
  - {{ $service }}.{{ $.Release.Namespace }}.svc.cluster.local
  {{- end }}
  issuerRef:
    {{- include "CHART.issuerRef" . | nindent 4 }}
"#;

const WEBHOOK_SECRET: &str = r#"{{- if not .Values.certManager.enabled }}
{{- $certificate := include "CHART.webhookCertificate" . | fromJson }}
# The webhook's serving certificate and its CA, generated at install and
# kept on upgrade (see the CHART.webhookCertificate helper).
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "CHART.fullname" . }}-webhook-cert
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
type: kubernetes.io/tls
data:
  ca.crt: {{ $certificate.ca }}
  tls.crt: {{ $certificate.crt }}
  tls.key: {{ $certificate.key }}
{{- end }}
"#;

const NETWORK_POLICY: &str = r#"{{- if .Values.networkPolicy.enabled }}
{{- if not .Values.networkPolicy.apiserverCIDR }}
{{- fail "networkPolicy.enabled needs networkPolicy.apiserverCIDR: the control plane's address block" }}
{{- end }}
# The webhook port is reachable only from the apiserver's addresses; the
# metrics and probe ports stay open.
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "CHART.fullname" . }}-webhook-from-apiserver
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "CHART.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "CHART.selectorLabels" . | nindent 6 }}
  policyTypes:
  - Ingress
  ingress:
  - from:
    - ipBlock:
        cidr: {{ .Values.networkPolicy.apiserverCIDR | quote }}
    ports:
    - port: 9443
      protocol: TCP
  - ports:
    - port: 8443
      protocol: TCP
    - port: 8081
      protocol: TCP
{{- end }}
"#;

/// The webhook Services the model names, each with its ports.
pub type WebhookServices = BTreeMap<String, BTreeSet<u16>>;

/// The services as a template list literal: `"a" "b"`.
fn service_list(services: &WebhookServices) -> String {
    services
        .keys()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every template file of this module, by path under `templates/`.
pub fn files(services: &WebhookServices) -> Vec<(&'static str, String)> {
    let webhooks = !services.is_empty();
    let pick = |text: &'static str| if webhooks { text } else { "" };
    let mut helpers = HELPERS.to_string();
    if webhooks {
        helpers.push_str(&WEBHOOK_CERTIFICATE.replace("SERVICES", &service_list(services)));
    }
    let deployment = DEPLOYMENT
        .replace("WEBHOOK_ARGS", pick(WEBHOOK_ARGS))
        .replace("WEBHOOK_PORT", pick(WEBHOOK_PORT))
        .replace("WEBHOOK_MOUNT", pick(WEBHOOK_MOUNT))
        .replace("WEBHOOK_VOLUME", pick(WEBHOOK_VOLUME));
    let mut services_text = METRICS_SERVICE.to_string();
    for (service, ports) in services {
        let ports: String = ports
            .iter()
            .map(|p| format!("  - name: webhook-{p}\n    port: {p}\n    targetPort: webhook\n    protocol: TCP\n"))
            .collect();
        services_text.push_str(
            &WEBHOOK_SERVICE
                .replace("SERVICE", service)
                .replace("PORTS", &ports),
        );
    }
    let webhook_certificate = if webhooks {
        WEBHOOK_CERT_MANAGER.replace("SERVICES", &service_list(services))
    } else {
        String::new()
    };
    let certificates = CERTIFICATES.replace("WEBHOOK_CERTIFICATE", &webhook_certificate);
    let mut files = vec![
        ("_helpers.tpl", helpers),
        ("serviceaccount.yaml", SERVICE_ACCOUNT.to_string()),
        ("deployment.yaml", deployment),
        ("services.yaml", services_text),
        ("certificates.yaml", certificates),
    ];
    if webhooks {
        files.push(("webhook-secret.yaml", WEBHOOK_SECRET.to_string()));
        files.push(("networkpolicy.yaml", NETWORK_POLICY.to_string()));
    }
    files
}
