//! `kubegen_core::defaults` against kube-apiserver's own defaulting (`go
//! run ./tests/defaults`: k8s.io/kubernetes v1.36.3's legacyscheme with
//! the install packages of the groups in scope, every feature gate at its
//! v1.36 default, the apiserver's JSON serializer and encoding/json):
//! seeded random objects of every kind in scope, built from the shapes of
//! `src/builtin/definitions.json` — fields present, absent, empty or null
//! at random, realistic enum values so that defaults both trigger and do
//! not, images with and without tags, `:latest`, digests, quantities in
//! every suffix, unknown and miscased fields — plus hand-picked cases and
//! every kind's zero object. The written object must be the same.
//!
//! Needs `go` (1.26) on `PATH`. `KUBEGEN_DEFAULTS_CASES` sets the number
//! of random cases (default 1,500), `KUBEGEN_DEFAULTS_SEED` the seed.
//!
//! A Pod's `spec.resources` is left out of the random objects: the
//! `PodLevelResources` defaulting is not ported (see the module doc).

use kubegen_core::builtin;
use kubegen_core::defaults::{default_builtin, kinds, zero_object};
use kubegen_core::rng::Rng;
use serde_json::{Map, Value, json};

#[path = "support/differences.rs"]
mod differences;
#[path = "support/go_helper.rs"]
mod go_helper;

const IMAGES: &[&str] = &[
    "nginx",
    "nginx:latest",
    "nginx:1.25",
    "library/nginx:latest",
    "docker.io/library/busybox",
    "registry.example.com:5000/team/app:v1.2",
    "registry.example.com/team/app",
    "localhost/app:latest",
    "ghcr.io/org/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "app:v1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "app@sha256:0123",
    "Nginx:1",
    "UPPER/app",
    "",
    "a:b:c",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "[::1]:5000/app:latest",
];

const QUANTITIES: &[&str] = &[
    "0",
    "1",
    "100m",
    "0.5",
    "1.500",
    "1000",
    "1k",
    "1Ki",
    "1.5Ki",
    "8Ki",
    "128Mi",
    "1Gi",
    "0.5Gi",
    "2E",
    "1e3",
    "1E-3",
    "1n",
    "1500u",
    "+5",
    "-1",
    "012",
    "12345678901234567890",
    "1.0000000001",
    " 2 ",
    "1024",
    "9Ei",
    "3e0",
    "100M",
    "2.5T",
];

const TIMES: &[&str] = &[
    "2024-05-01T10:00:00Z",
    "2024-05-01T10:00:00.5Z",
    "2024-05-01T12:00:00+02:00",
    "0001-01-01T00:00:00Z",
];

/// Realistic values of string fields by name, so that defaults trigger
/// and do not.
fn enum_values(field: &str) -> Option<&'static [&'static str]> {
    Some(match field {
        "imagePullPolicy" | "pullPolicy" => &["", "Always", "IfNotPresent", "Never"],
        "image" | "reference" => IMAGES,
        "protocol" => &["", "TCP", "UDP", "SCTP"],
        "type" => &[
            "",
            "ClusterIP",
            "NodePort",
            "LoadBalancer",
            "ExternalName",
            "RollingUpdate",
            "Recreate",
            "OnDelete",
            "Opaque",
            "Resource",
            "Utilization",
            "Pods",
            "Percent",
            "Directory",
        ],
        "sessionAffinity" => &["", "None", "ClientIP"],
        "restartPolicy" => &["", "Always", "OnFailure", "Never"],
        "dnsPolicy" => &["", "ClusterFirst", "Default", "None"],
        "kind" => &["", "User", "Group", "ServiceAccount", "Deployment"],
        "apiGroup" => &["", "rbac.authorization.k8s.io", "apps"],
        "apiVersion" => &["", "v1", "apps/v1"],
        "status" => &["", "True", "False"],
        "phase" => &["", "Pending", "Active", "Running"],
        "concurrencyPolicy" => &["", "Allow", "Forbid"],
        "podManagementPolicy" => &["", "OrderedReady", "Parallel"],
        "whenDeleted" | "whenScaled" => &["", "Retain", "Delete"],
        "completionMode" => &["NonIndexed", "Indexed"],
        "podReplacementPolicy" => &["Failed", "TerminatingOrFailed"],
        "selectPolicy" => &["Max", "Min", "Disabled"],
        "ipMode" => &["VIP", "Proxy"],
        "ip" => &["", "10.0.0.1"],
        "externalTrafficPolicy" | "internalTrafficPolicy" => &["", "Cluster", "Local"],
        "path" => &["", "/", "/healthz"],
        "scheme" => &["", "HTTP", "HTTPS"],
        "volumeMode" => &["Filesystem", "Block"],
        "policyTypes" => &["Ingress", "Egress"],
        "name" => &["", "a", "web", "kube-system"],
        _ => return None,
    })
}

struct Gen<'a> {
    rng: Rng,
    defs: &'a Map<String, Value>,
    pod: bool,
}

impl Gen<'_> {
    fn scalar_int(&mut self) -> Value {
        json!(*self.rng.pick(&[0, 0, 1, 2, 5, 80, 443, 8080, -1]))
    }

    fn value(&mut self, name: &str, schema: &Value, depth: usize) -> Value {
        if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
            let def = r.rsplit('/').next().unwrap_or_default();
            return self.named(name, def, depth);
        }
        if schema.get("x-kubernetes-int-or-string") == Some(&json!(true)) {
            return self.int_or_string();
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("object") => {
                if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                    self.object(props, depth)
                } else if let Some(items) = schema.get("additionalProperties") {
                    let mut m = Map::new();
                    for i in 0..self.rng.below(3) {
                        let key =
                            *self
                                .rng
                                .pick(&["a", "b", "cpu", "memory", "app", "hugepages-2Mi"]);
                        let _ = i;
                        m.insert(key.to_string(), self.value(key, items, depth + 1));
                    }
                    Value::Object(m)
                } else {
                    json!({"x": self.rng.below(3)})
                }
            }
            Some("array") => {
                let items = schema
                    .get("items")
                    .cloned()
                    .unwrap_or(json!({"type": "string"}));
                let n = if depth > 8 {
                    self.rng.below(2)
                } else {
                    self.rng.below(3)
                };
                Value::Array(
                    (0..n)
                        .map(|_| self.value(name, &items, depth + 1))
                        .collect(),
                )
            }
            Some("integer") | Some("number") => self.scalar_int(),
            Some("boolean") => json!(self.rng.chance(1, 2)),
            Some("string") => match schema.get("format").and_then(Value::as_str) {
                Some("byte") => json!(*self.rng.pick(&["", "aGVsbG8=", "YQ=="])),
                Some("date-time") => json!(*self.rng.pick(TIMES)),
                _ => match enum_values(name) {
                    Some(values) => json!(*self.rng.pick(values)),
                    None => json!(*self.rng.pick(&["", "x", "web", "a b"])),
                },
            },
            _ => json!(self.rng.below(2)),
        }
    }

    fn int_or_string(&mut self) -> Value {
        match self.rng.below(6) {
            0 => json!(0),
            1 => json!(""),
            2 => json!(8080),
            3 => json!("http"),
            4 => json!("25%"),
            _ => json!(1),
        }
    }

    fn named(&mut self, name: &str, def: &str, depth: usize) -> Value {
        match def {
            "io.k8s.apimachinery.pkg.api.resource.Quantity" => {
                if self.rng.chance(1, 8) {
                    json!(*self.rng.pick(&[1, 2, 0]))
                } else {
                    json!(*self.rng.pick(QUANTITIES))
                }
            }
            "io.k8s.apimachinery.pkg.util.intstr.IntOrString" => self.int_or_string(),
            "io.k8s.apimachinery.pkg.apis.meta.v1.Time" => json!(*self.rng.pick(TIMES)),
            "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime" => {
                json!(
                    *self
                        .rng
                        .pick(&["2024-05-01T10:00:00.123456Z", "2024-05-01T10:00:00.000000Z"])
                )
            }
            "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1" => {
                json!({"f:metadata": {"f:name": {}}})
            }
            _ => match self.defs.get(def) {
                Some(schema) => self.value(name, &schema.clone(), depth),
                None => Value::Null,
            },
        }
    }

    fn object(&mut self, props: &Map<String, Value>, depth: usize) -> Value {
        let mut m = Map::new();
        let (num, den) = match depth {
            0..=2 => (2, 3),
            3..=5 => (1, 2),
            6..=8 => (1, 4),
            _ => (1, 10),
        };
        for (k, schema) in props {
            if depth > 14 || (self.pod && depth == 1 && k == "resources") {
                continue;
            }
            if !self.rng.chance(num, den) {
                continue;
            }
            let v = match self.rng.below(12) {
                0 => Value::Null,
                1 => match schema.get("type").and_then(Value::as_str) {
                    Some("array") => json!([]),
                    Some("object") => json!({}),
                    _ => self.value(k, schema, depth + 1),
                },
                _ => self.value(k, schema, depth + 1),
            };
            m.insert(k.clone(), v);
        }
        if self.rng.chance(1, 20) {
            m.insert("unknownField".into(), json!(1));
        }
        if self.rng.chance(1, 20) {
            m.insert("Name".into(), json!("miscased"));
        }
        Value::Object(m)
    }
}

fn definition_of(api_version: &str, kind: &str) -> String {
    let (group, version) = api_version.split_once('/').unwrap_or(("core", api_version));
    let group = group.strip_suffix(".k8s.io").unwrap_or(group);
    let group = group
        .strip_suffix(".authorization")
        .map_or(group.to_string(), |g| g.to_string());
    format!("io.k8s.api.{group}.{version}.{kind}")
}

fn random_object(g: &mut Gen<'_>, api_version: &str, kind: &str) -> Value {
    let def = definition_of(api_version, kind);
    g.pod = kind == "Pod" && api_version == "v1";
    let mut v = g.named("", &def, 0);
    if !v.is_object() {
        v = json!({});
    }
    v["apiVersion"] = json!(api_version);
    v["kind"] = json!(kind);
    v
}

fn hand_picked() -> Vec<Value> {
    let mut cases = vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
               "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
                 "spec": {"containers": [{"name": "web", "image": "nginx", "ports": [{"containerPort": 80}],
                   "livenessProbe": {"httpGet": {"port": 80}}, "readinessProbe": {"grpc": {"port": 9000}},
                   "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}}}],
                   "volumes": [{"name": "a"}, {"name": "b", "secret": {"secretName": "s"}},
                     {"name": "c", "image": {"reference": "repo/img:latest"}},
                     {"name": "d", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}},
                     {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "1.5Gi"}}}}}}]}}}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
               "spec": {"type": "LoadBalancer", "ports": [{"port": 80}], "sessionAffinity": "ClientIP"},
               "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}, {"hostname": "x"}]}}}),
        json!({"apiVersion": "v1", "kind": "Service", "spec": {"externalIPs": ["1.1.1.1"], "ports": [{"port": 53, "protocol": "UDP", "targetPort": ""}]}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
               "spec": {"hostNetwork": true, "containers": [{"name": "a", "image": "x:latest", "ports": [{"containerPort": 8080}],
                 "resources": {"limits": {"cpu": "1n"}, "requests": {"memory": "1Ki"}}}],
                 "initContainers": [{"name": "i", "image": "y", "resources": {"limits": {"cpu": "2"}}}],
                 "ephemeralContainers": [{"name": "e", "image": "z@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}]}}),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "labels": {"a": "b"}}}),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"generateName": "team-"}}),
        json!({"apiVersion": "v1", "kind": "Secret", "data": {"a": "aGVsbG8="}, "stringData": {"b": "c"}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap"}),
        json!({"apiVersion": "batch/v1", "kind": "Job", "spec": {"backoffLimitPerIndex": 1, "template": {"metadata": {"labels": {"a": "b"}}}}}),
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "spec": {"jobTemplate": {"spec": {"podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}}}}}),
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {}}}}),
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "spec": {"updateStrategy": {"type": "OnDelete"}}}),
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "spec": {"egress": [{"ports": [{"port": 53}]}]}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "roleRef": {"kind": "Role", "name": "r"},
               "subjects": [{"kind": "User", "name": "u"}, {"kind": "ServiceAccount", "name": "s"}, {"kind": "Group", "name": "g", "apiGroup": "x"}]}),
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "spec": {"behavior": {"scaleUp": {"selectPolicy": "Min", "tolerance": "0.05"}}}}),
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "spec": {"resources": {"requests": {"storage": "1.0001m"}}}}),
    ];
    for image in IMAGES {
        cases.push(json!({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "a", "image": image}]}}));
    }
    cases
}

#[test]
fn defaults_match_kube_apiserver() {
    let n: usize = std::env::var("KUBEGEN_DEFAULTS_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1500);
    let seed: u64 = std::env::var("KUBEGEN_DEFAULTS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let table = builtin::table().unwrap();
    let kinds = kinds();
    assert_eq!(kinds.len(), 24, "{kinds:?}");
    let mut g = Gen {
        rng: Rng::new(seed),
        defs: &table.definitions,
        pod: false,
    };
    let mut objects = hand_picked();
    for i in 0..n {
        let (api_version, kind) = kinds[i % kinds.len()];
        objects.push(random_object(&mut g, api_version, kind));
    }
    let mut lines: Vec<String> = kinds
        .iter()
        .map(|(a, k)| json!({"zero": {"apiVersion": a, "kind": k}}).to_string())
        .collect();
    lines.extend(objects.iter().map(|o| json!({"object": o}).to_string()));
    let answers = go_helper::run("defaults", &[], &lines);
    let mut differences = Vec::new();
    for (i, answer) in answers.iter().enumerate() {
        let Some(want) = answer.get("result") else {
            differences.push(format!(
                "case {i}: Go failed: {answer}\n  input: {}",
                lines[i]
            ));
            continue;
        };
        let got = if i < kinds.len() {
            zero_object(kinds[i].0, kinds[i].1)
        } else {
            let mut o = objects[i - kinds.len()].clone();
            let (a, k) = (
                o["apiVersion"].as_str().unwrap_or_default().to_string(),
                o["kind"].as_str().unwrap_or_default().to_string(),
            );
            default_builtin(&a, &k, &mut o).map(|()| o)
        };
        if got.as_ref() != Some(want) {
            differences.push(format!(
                "case {i}:\n  input: {}\n  go:    {want}\n  ours:  {}",
                lines[i],
                got.unwrap_or(Value::Null)
            ));
        }
    }
    eprintln!(
        "{} cases ({} random, seed {seed}), {} differences",
        lines.len(),
        n,
        differences.len()
    );
    differences::assert_none(&differences, 5);
}
