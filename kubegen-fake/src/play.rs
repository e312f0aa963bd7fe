//! Playing the built-in controllers the fake does not run: the status a
//! Deployment, StatefulSet, ReplicaSet or Job controller would write once
//! its pods are up (or done), written through the status subresource as
//! kube-controller-manager writes it, so informers and watches see it as
//! they would on a cluster.

use serde_json::{Value, json};

use crate::state::State;
use crate::status::ApiError;
use crate::store::Key;
use crate::verbs::managed;

/// What a controller reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rollout {
    /// `n` replicas up to date, ready and available at the object's
    /// generation (Deployment, StatefulSet, ReplicaSet).
    Available(i32),
    /// A Job whose pods all succeeded.
    Complete,
}

fn status_of(kind: &str, object: &Value, rollout: Rollout, now: &str) -> Result<Value, String> {
    let generation = object
        .pointer("/metadata/generation")
        .cloned()
        .unwrap_or(json!(1));
    let condition = |t: &str, reason: &str, message: String| json!({"type": t, "status": "True", "lastUpdateTime": now, "lastTransitionTime": now, "reason": reason, "message": message});
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match (kind, rollout) {
        ("Deployment", Rollout::Available(n)) => Ok(json!({
            "observedGeneration": generation,
            "replicas": n,
            "updatedReplicas": n,
            "readyReplicas": n,
            "availableReplicas": n,
            "conditions": [
                condition("Available", "MinimumReplicasAvailable", "Deployment has minimum availability.".into()),
                condition("Progressing", "NewReplicaSetAvailable", format!("ReplicaSet \"{name}\" has successfully progressed.")),
            ],
        })),
        ("StatefulSet", Rollout::Available(n)) => Ok(json!({
            "observedGeneration": generation,
            "replicas": n,
            "readyReplicas": n,
            "currentReplicas": n,
            "updatedReplicas": n,
            "availableReplicas": n,
        })),
        ("ReplicaSet", Rollout::Available(n)) => Ok(json!({
            "observedGeneration": generation,
            "replicas": n,
            "fullyLabeledReplicas": n,
            "readyReplicas": n,
            "availableReplicas": n,
        })),
        ("Job", Rollout::Complete) => {
            let completions = object
                .pointer("/spec/completions")
                .and_then(Value::as_i64)
                .unwrap_or(1);
            let mut complete = condition(
                "Complete",
                "CompletionsReached",
                "Reached expected number of succeeded pods".into(),
            );
            if let Some(c) = complete.as_object_mut() {
                c.remove("lastUpdateTime");
                c.insert("lastProbeTime".into(), json!(now));
            }
            Ok(json!({
                "startTime": now,
                "completionTime": now,
                "succeeded": completions,
                "ready": 0,
                "terminating": 0,
                "uncountedTerminatedPods": {},
                "conditions": [complete],
            }))
        }
        (kind, rollout) => Err(format!("kubegen-fake cannot play {rollout:?} for a {kind}")),
    }
}

/// Writes the status the built-in controller of `kind` would write for
/// `rollout` of object `name` in `namespace`.
pub fn play(
    state: &mut State,
    kind: &str,
    namespace: &str,
    name: &str,
    rollout: Rollout,
) -> Result<(), ApiError> {
    let resource = match kind {
        "Deployment" | "StatefulSet" | "ReplicaSet" => {
            format!("apps/{}s", kind.to_ascii_lowercase())
        }
        "Job" => "batch/jobs".to_string(),
        other => {
            return Err(ApiError::bad_request(format!(
                "kubegen-fake plays no {other} controller"
            )));
        }
    };
    let (group, plural) = resource.split_once('/').unwrap_or_default();
    let key = Key {
        resource: resource.clone(),
        namespace: namespace.into(),
        name: name.into(),
    };
    let r = state
        .resources
        .iter()
        .find(|r| r.group == group && r.plural == plural)
        .cloned()
        .ok_or_else(ApiError::no_route)?;
    let old = state
        .store
        .get(&key)
        .map(|o| (**o).clone())
        .ok_or_else(|| ApiError::not_found(&r.qualified(), &r.group, &r.plural, name))?;
    let now = state.clock.now();
    let mut new = old.clone();
    new["status"] = status_of(kind, &old, rollout, &now).map_err(ApiError::bad_request)?;
    if new == old {
        return Ok(());
    }
    let unix = state.clock.unix();
    managed::update(
        &r,
        Some(&old),
        &mut new,
        "kube-controller-manager",
        Some("status"),
        unix,
    )?;
    state.commit(key, Some(new));
    Ok(())
}
