//! The defaulting functions of apps/v1, batch/v1, networking.k8s.io/v1,
//! rbac.authorization.k8s.io/v1 and autoscaling/v2 (policy/v1,
//! coordination.k8s.io/v1 and events.k8s.io/v1 have none), by definition
//! name without `io.k8s.api.`.

use serde_json::{Value, json};

use super::fields::{default_if_empty, default_if_nil, field, is_nil, len, set, text, with};

/// Runs the defaulting function of the struct type `short`, if it has one.
pub(super) fn set_defaults(short: &str, v: &mut Value) {
    match short {
        "apps.v1.Deployment" => deployment(v),
        "apps.v1.DaemonSet" => daemon_set(v),
        "apps.v1.StatefulSet" => stateful_set(v),
        "apps.v1.ReplicaSet" => {
            if let Some(spec) = field(v, "spec") {
                default_if_nil(spec, "replicas", json!(1));
            }
        }
        "batch.v1.Job" => job(v),
        "batch.v1.CronJob" => {
            if let Some(spec) = field(v, "spec") {
                default_if_empty(spec, "concurrencyPolicy", "Allow");
                default_if_nil(spec, "suspend", json!(false));
                default_if_nil(spec, "successfulJobsHistoryLimit", json!(3));
                default_if_nil(spec, "failedJobsHistoryLimit", json!(1));
            }
        }
        "batch.v1.PodFailurePolicyOnPodConditionsPattern" => default_if_empty(v, "status", "True"),
        "networking.v1.NetworkPolicyPort" => default_if_nil(v, "protocol", json!("TCP")),
        "networking.v1.NetworkPolicy" => {
            if let Some(spec) = field(v, "spec")
                && len(spec, "policyTypes") == 0
            {
                let mut types = vec![json!("Ingress")];
                if len(spec, "egress") != 0 {
                    types.push(json!("Egress"));
                }
                set(spec, "policyTypes", Value::Array(types));
            }
        }
        "rbac.v1.ClusterRoleBinding" | "rbac.v1.RoleBinding" => {
            if let Some(role_ref) = field(v, "roleRef") {
                default_if_empty(role_ref, "apiGroup", "rbac.authorization.k8s.io");
            }
        }
        "rbac.v1.Subject"
            if text(v, "apiGroup").is_empty() && matches!(text(v, "kind"), "User" | "Group") =>
        {
            set(v, "apiGroup", json!("rbac.authorization.k8s.io"));
        }
        "autoscaling.v2.HorizontalPodAutoscaler" => hpa(v),
        _ => {}
    }
}

fn deployment(v: &mut Value) {
    let Some(spec) = field(v, "spec") else {
        return;
    };
    default_if_nil(spec, "replicas", json!(1));
    if let Some(strategy) = field(spec, "strategy") {
        default_if_empty(strategy, "type", "RollingUpdate");
        if text(strategy, "type") == "RollingUpdate" {
            default_if_nil(
                strategy,
                "rollingUpdate",
                with("io.k8s.api.apps.v1.RollingUpdateDeployment", json!({})),
            );
            if let Some(ru) = field(strategy, "rollingUpdate") {
                default_if_nil(ru, "maxUnavailable", json!("25%"));
                default_if_nil(ru, "maxSurge", json!("25%"));
            }
        }
    }
    default_if_nil(spec, "revisionHistoryLimit", json!(10));
    default_if_nil(spec, "progressDeadlineSeconds", json!(600));
}

fn daemon_set(v: &mut Value) {
    let Some(spec) = field(v, "spec") else {
        return;
    };
    if let Some(strategy) = field(spec, "updateStrategy") {
        default_if_empty(strategy, "type", "RollingUpdate");
        if text(strategy, "type") == "RollingUpdate" {
            default_if_nil(
                strategy,
                "rollingUpdate",
                with("io.k8s.api.apps.v1.RollingUpdateDaemonSet", json!({})),
            );
            if let Some(ru) = field(strategy, "rollingUpdate") {
                default_if_nil(ru, "maxUnavailable", json!(1));
                default_if_nil(ru, "maxSurge", json!(0));
            }
        }
    }
    default_if_nil(spec, "revisionHistoryLimit", json!(10));
}

fn stateful_set(v: &mut Value) {
    let Some(spec) = field(v, "spec") else {
        return;
    };
    default_if_empty(spec, "podManagementPolicy", "OrderedReady");
    if let Some(strategy) = field(spec, "updateStrategy") {
        if text(strategy, "type").is_empty() {
            set(strategy, "type", json!("RollingUpdate"));
            default_if_nil(
                strategy,
                "rollingUpdate",
                with(
                    "io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy",
                    json!({}),
                ),
            );
        }
        if text(strategy, "type") == "RollingUpdate"
            && let Some(ru) = field(strategy, "rollingUpdate").filter(|r| !r.is_null())
        {
            // MaxUnavailableStatefulSet is off at v1.36: no maxUnavailable.
            default_if_nil(ru, "partition", json!(0));
        }
    }
    default_if_nil(
        spec,
        "persistentVolumeClaimRetentionPolicy",
        with(
            "io.k8s.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy",
            json!({}),
        ),
    );
    if let Some(policy) = field(spec, "persistentVolumeClaimRetentionPolicy") {
        default_if_empty(policy, "whenDeleted", "Retain");
        default_if_empty(policy, "whenScaled", "Retain");
    }
    default_if_nil(spec, "replicas", json!(1));
    default_if_nil(spec, "revisionHistoryLimit", json!(10));
}

fn job(v: &mut Value) {
    let template_labels = v["spec"]["template"]["metadata"]["labels"].clone();
    let Some(spec) = field(v, "spec") else {
        return;
    };
    if is_nil(spec, "completions") && is_nil(spec, "parallelism") {
        set(spec, "completions", json!(1));
        set(spec, "parallelism", json!(1));
    }
    default_if_nil(spec, "parallelism", json!(1));
    if is_nil(spec, "backoffLimit") {
        let limit = if is_nil(spec, "backoffLimitPerIndex") {
            6
        } else {
            i32::MAX
        };
        set(spec, "backoffLimit", json!(limit));
    }
    default_if_nil(spec, "completionMode", json!("NonIndexed"));
    default_if_nil(spec, "suspend", json!(false));
    if is_nil(spec, "podReplacementPolicy") {
        let policy = if is_nil(spec, "podFailurePolicy") {
            "TerminatingOrFailed"
        } else {
            "Failed"
        };
        set(spec, "podReplacementPolicy", json!(policy));
    }
    default_if_nil(spec, "manualSelector", json!(false));
    if !template_labels.is_null()
        && let Some(meta) = field(v, "metadata")
        && len(meta, "labels") == 0
    {
        set(meta, "labels", template_labels);
    }
}

/// `defaultHPAScaleUpRules` or `defaultHPAScaleDownRules`.
fn scaling_rules(up: bool) -> Value {
    let policy = |kind: &str, value: i32| {
        with(
            "io.k8s.api.autoscaling.v2.HPAScalingPolicy",
            json!({"type": kind, "value": value, "periodSeconds": 15}),
        )
    };
    let (window, policies) = if up {
        (json!(0), vec![policy("Pods", 4), policy("Percent", 100)])
    } else {
        (Value::Null, vec![policy("Percent", 100)])
    };
    with(
        "io.k8s.api.autoscaling.v2.HPAScalingRules",
        json!({"stabilizationWindowSeconds": window, "selectPolicy": "Max", "policies": policies}),
    )
}

/// `copyHPAScalingRules(from, defaults)`.
fn merge_rules(from: &Value, up: bool) -> Value {
    let mut to = scaling_rules(up);
    if from.is_null() {
        return to;
    }
    for k in [
        "selectPolicy",
        "stabilizationWindowSeconds",
        "policies",
        "tolerance",
    ] {
        if !is_nil(from, k) {
            set(&mut to, k, from[k].clone());
        }
    }
    to
}

fn hpa(v: &mut Value) {
    let Some(spec) = field(v, "spec") else {
        return;
    };
    default_if_nil(spec, "minReplicas", json!(1));
    if len(spec, "metrics") == 0 {
        let target = with(
            "io.k8s.api.autoscaling.v2.MetricTarget",
            json!({"type": "Utilization", "averageUtilization": 80}),
        );
        let resource = with(
            "io.k8s.api.autoscaling.v2.ResourceMetricSource",
            json!({"name": "cpu", "target": target}),
        );
        let metric = with(
            "io.k8s.api.autoscaling.v2.MetricSpec",
            json!({"type": "Resource", "resource": resource}),
        );
        set(spec, "metrics", json!([metric]));
    }
    if let Some(behavior) = field(spec, "behavior").filter(|b| !b.is_null()) {
        let up = merge_rules(&behavior["scaleUp"], true);
        let down = merge_rules(&behavior["scaleDown"], false);
        set(behavior, "scaleUp", up);
        set(behavior, "scaleDown", down);
    }
}
