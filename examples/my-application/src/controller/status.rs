//! The MyApplication status the operator reports, computed from what it
//! observed (pure, unit tested): conditions keep their lastTransitionTime
//! unless their status flips, so an unchanged world yields an unchanged
//! status and no write.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kubegen::conditions::set_condition_at;
use kubegen::k8s_openapi::jiff::Timestamp;

use super::desired::selector_string;
use crate::api::{ApplicationCondition, MyApplication, MyApplicationStatus};

/// What the reconcile saw of the application's children.
#[derive(Debug, Clone, Copy)]
pub enum Observed<'a> {
    /// The Deployment, controlled by the application (absent if just created).
    Deployment(Option<&'a Deployment>),
    /// The apiserver refused a write of a child (invalid, forbidden, over
    /// quota).
    Refused {
        /// `FailedCreate` or `FailedUpdate`.
        reason: &'a str,
        /// What was written, and the apiserver's message.
        message: &'a str,
    },
    /// A same-named object not controlled by the application blocks it.
    Conflict {
        /// `Deployment` or `Service`.
        kind: &'a str,
        /// The object's name.
        name: &'a str,
    },
}

fn condition(type_: &str, holds: bool, reason: &str, message: String) -> ApplicationCondition {
    ApplicationCondition {
        type_: type_.to_string(),
        status: if holds { "True" } else { "False" }.to_string(),
        reason: reason.to_string(),
        message,
        last_transition_time: Time(Timestamp::UNIX_EPOCH),
    }
}

/// The status to report at `now`, starting from the current one.
pub fn status(app: &MyApplication, observed: Observed<'_>, now: Timestamp) -> MyApplicationStatus {
    let name = app.metadata.name.as_deref().unwrap_or_default();
    let mut status = app.status.clone().unwrap_or_default();
    status.observed_generation = app.metadata.generation;
    status.selector = Some(selector_string(name));
    let want = app.spec.replicas;
    let (ready, progressing, failed) = match observed {
        Observed::Conflict { kind, name } => {
            let message =
                format!("{kind} {name} exists and is not controlled by this MyApplication");
            status.available_replicas = Some(0);
            (
                condition("Ready", false, "ErrResourceExists", message.clone()),
                condition("Progressing", false, "ErrResourceExists", message.clone()),
                condition("Failed", true, "ErrResourceExists", message),
            )
        }
        Observed::Refused { reason, message } => (
            condition("Ready", false, reason, message.to_owned()),
            condition("Progressing", false, reason, message.to_owned()),
            condition("Failed", true, reason, message.to_owned()),
        ),
        Observed::Deployment(deployment) => {
            let d_status = deployment
                .and_then(|d| d.status.clone())
                .unwrap_or_default();
            let available = d_status.available_replicas.unwrap_or(0);
            status.available_replicas = Some(available);
            let generation = deployment.and_then(|d| d.metadata.generation);
            let observed_latest =
                generation.is_some() && d_status.observed_generation >= generation;
            let updated = d_status.updated_replicas.unwrap_or(0);
            let is_ready = observed_latest && available >= want && updated >= want;
            let deadline = d_status
                .conditions
                .unwrap_or_default()
                .into_iter()
                .find(|c| {
                    c.type_ == "Progressing"
                        && c.status == "False"
                        && c.reason.as_deref() == Some("ProgressDeadlineExceeded")
                });
            let progress = format!("{available}/{want} replicas available");
            match deadline {
                Some(c) => {
                    let message = c
                        .message
                        .unwrap_or_else(|| "the rollout exceeded its progress deadline".into());
                    (
                        condition("Ready", false, "ProgressDeadlineExceeded", progress),
                        condition(
                            "Progressing",
                            false,
                            "ProgressDeadlineExceeded",
                            message.clone(),
                        ),
                        condition("Failed", true, "ProgressDeadlineExceeded", message),
                    )
                }
                None if is_ready => (
                    condition("Ready", true, "DeploymentAvailable", progress.clone()),
                    condition("Progressing", false, "RolloutComplete", progress),
                    condition("Failed", false, "Healthy", String::new()),
                ),
                None => (
                    condition("Ready", false, "RollingOut", progress.clone()),
                    condition("Progressing", true, "RollingOut", progress),
                    condition("Failed", false, "Healthy", String::new()),
                ),
            }
        }
    };
    for c in [ready, progressing, failed] {
        set_condition_at(&mut status.conditions, c, now);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::MyApplicationSpec;

    fn app() -> MyApplication {
        let mut app = MyApplication::new(
            "web",
            MyApplicationSpec {
                image: "nginx".into(),
                replicas: 3,
                port: 80,
            },
        );
        app.metadata.generation = Some(2);
        app
    }

    fn deployment(available: i32, observed_generation: i64) -> Deployment {
        serde_json::from_value(serde_json::json!({
            "metadata": { "name": "web-deployment", "generation": 4 },
            "status": { "availableReplicas": available, "updatedReplicas": available, "observedGeneration": observed_generation },
        }))
        .unwrap()
    }

    fn get<'a>(s: &'a MyApplicationStatus, t: &str) -> &'a ApplicationCondition {
        s.conditions.iter().find(|c| c.type_ == t).unwrap()
    }

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_second(1_700_000_000 + secs).unwrap()
    }

    #[test]
    fn ready_needs_all_replicas_and_the_latest_generation() {
        let a = app();
        let rolling = status(&a, Observed::Deployment(Some(&deployment(1, 4))), at(0));
        assert_eq!(get(&rolling, "Ready").status, "False");
        assert_eq!(get(&rolling, "Progressing").status, "True");
        assert_eq!(rolling.available_replicas, Some(1));
        assert_eq!(rolling.observed_generation, Some(2));
        assert_eq!(
            rolling.selector.as_deref(),
            Some("app=my-application,myapplication_cr=web")
        );
        let stale = status(&a, Observed::Deployment(Some(&deployment(3, 3))), at(0));
        assert_eq!(
            get(&stale, "Ready").status,
            "False",
            "an old generation is not ready"
        );
        let ready = status(&a, Observed::Deployment(Some(&deployment(3, 4))), at(0));
        assert_eq!(get(&ready, "Ready").status, "True");
        assert_eq!(get(&ready, "Progressing").status, "False");
        assert_eq!(get(&ready, "Failed").status, "False");
    }

    /// The reconcile does not decode the Deployment it just created and
    /// reports it as absent: the status must be what the created object
    /// (generation 1, no status yet) would have given.
    #[test]
    fn a_deployment_just_created_reports_as_absent() {
        let a = app();
        let created: Deployment = serde_json::from_value(serde_json::json!({
            "metadata": { "name": "web-deployment", "generation": 1, "uid": "u" },
            "spec": { "replicas": 3, "selector": {}, "template": {} },
        }))
        .unwrap();
        let absent = status(&a, Observed::Deployment(None), at(0));
        assert_eq!(
            status(&a, Observed::Deployment(Some(&created)), at(0)),
            absent
        );
        assert_eq!(get(&absent, "Ready").status, "False");
        assert_eq!(get(&absent, "Progressing").reason, "RollingOut");
        assert_eq!(absent.available_replicas, Some(0));
    }

    #[test]
    fn transition_time_moves_only_on_a_flip() {
        let mut a = app();
        a.status = Some(status(
            &a,
            Observed::Deployment(Some(&deployment(1, 4))),
            at(0),
        ));
        let later = status(&a, Observed::Deployment(Some(&deployment(2, 4))), at(60));
        assert_eq!(
            get(&later, "Ready").last_transition_time.0,
            at(0),
            "still False: time kept"
        );
        assert_eq!(get(&later, "Ready").message, "2/3 replicas available");
        a.status = Some(later);
        let flipped = status(&a, Observed::Deployment(Some(&deployment(3, 4))), at(120));
        assert_eq!(get(&flipped, "Ready").last_transition_time.0, at(120));
        a.status = Some(flipped.clone());
        let same = status(&a, Observed::Deployment(Some(&deployment(3, 4))), at(500));
        assert_eq!(same, flipped, "nothing changed, so nothing to write");
    }

    #[test]
    fn conflicts_and_deadlines_fail() {
        let a = app();
        let s = status(
            &a,
            Observed::Conflict {
                kind: "Deployment",
                name: "web-deployment",
            },
            at(0),
        );
        assert_eq!(get(&s, "Failed").status, "True");
        assert_eq!(get(&s, "Failed").reason, "ErrResourceExists");
        let mut d = deployment(1, 4);
        d.status.as_mut().unwrap().conditions = Some(vec![serde_json::from_value(serde_json::json!({
            "type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded", "message": "too slow",
        })).unwrap()]);
        let s = status(&a, Observed::Deployment(Some(&d)), at(0));
        assert_eq!(get(&s, "Failed").reason, "ProgressDeadlineExceeded");
        assert_eq!(get(&s, "Failed").message, "too slow");
        let mut a = app();
        a.status = Some(status(
            &a,
            Observed::Deployment(Some(&deployment(3, 4))),
            at(0),
        ));
        let refused = status(
            &a,
            Observed::Refused {
                reason: "FailedCreate",
                message: "creating Service web-service: exceeded quota",
            },
            at(10),
        );
        assert_eq!(get(&refused, "Failed").status, "True");
        assert_eq!(get(&refused, "Failed").reason, "FailedCreate");
        assert_eq!(
            get(&refused, "Ready").message,
            "creating Service web-service: exceeded quota"
        );
        assert_eq!(get(&refused, "Ready").last_transition_time.0, at(10));
        assert_eq!(
            refused.available_replicas,
            Some(3),
            "what the Deployment achieved stays reported"
        );
    }
}
