//! The operator's own part of each application's creation → Ready, timed
//! by the apiserver from its audit log: from the answer to the write the
//! operator reacts to, to the arrival of the operator's write in reply.
//! Two reactions per application are added up:
//!
//! - the application's create answered → the operator's write that made
//!   its Deployment received (a create, or a server-side apply answered
//!   `201 Created`);
//! - the Deployment's last status write answered before the operator's
//!   last status patch of the application (the one that reports Ready) →
//!   that patch received.
//!
//! Each holds the watch delivering the event, the operator's queue and
//! reconcile, and its request reaching the apiserver; what the plane does
//! in between (the deployment controller, the scheduler and kwok making
//! the pod ready) and how long the apiserver takes to answer each write
//! are left out. The apiserver stamps a write's answer once it has sent
//! it, and a watch event can reach the operator sooner: such a reaction
//! counts as zero.

use std::collections::HashMap;
use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use kubegen_testenv::{AuditedResource, AuditedWrite};
use my_application::controller::desired;

/// The writes the audit log must record besides the operator's own: the
/// bench's creates of applications and the status writes of their
/// Deployments.
pub fn audited() -> Vec<AuditedResource> {
    vec![
        AuditedResource::new("stable.example.com", "myapplications"),
        AuditedResource::new("apps", "deployments/status"),
    ]
}

/// What the log shows of one application.
#[derive(Default)]
struct Application {
    /// When the apiserver had answered its create.
    created: Option<Timestamp>,
    /// When the operator's last status patch of it arrived.
    last_status_patch: Option<Timestamp>,
}

/// The operator's two reactions, added up, for every application created
/// by someone other than `operator` (a user name) that the log shows
/// through to its last status patch, except those named `skip`.
pub fn reactions(writes: &[AuditedWrite], operator: &str, skip: &str) -> Vec<Duration> {
    let mut applications: HashMap<(&str, &str), Application> = HashMap::new();
    // By (namespace, Deployment name).
    let mut deployment_creates: HashMap<(&str, &str), Timestamp> = HashMap::new();
    let mut deployment_status: HashMap<(&str, &str), Vec<Timestamp>> = HashMap::new();
    for write in writes {
        let request = &write.request;
        let key = (request.namespace.as_str(), write.name.as_str());
        let by_operator = write.user == operator;
        match (
            request.group.as_str(),
            request.resource.as_str(),
            request.subresource.as_str(),
            request.verb.as_str(),
        ) {
            ("stable.example.com", "myapplications", "", "create") if !by_operator => {
                applications.entry(key).or_default().created = Some(write.completed);
            }
            ("stable.example.com", "myapplications", "status", "patch") if by_operator => {
                let app = applications.entry(key).or_default();
                app.last_status_patch = app.last_status_patch.max(Some(write.received));
            }
            ("apps", "deployments", "", "create") if by_operator => {
                deployment_creates.entry(key).or_insert(write.received);
            }
            ("apps", "deployments", "", "patch") if by_operator && request.code == 201 => {
                deployment_creates.entry(key).or_insert(write.received);
            }
            ("apps", "deployments", "status", _) => {
                deployment_status
                    .entry(key)
                    .or_default()
                    .push(write.completed);
            }
            _ => {}
        }
    }
    let after = |later: Timestamp, earlier: Timestamp| {
        Duration::try_from(later.duration_since(earlier)).unwrap_or(Duration::ZERO)
    };
    applications
        .iter()
        .filter(|((_, name), _)| *name != skip)
        .filter_map(|(&(namespace, name), app)| {
            let deployment = desired::deployment_name(name);
            let created = app.created?;
            let patched = app.last_status_patch?;
            let deployment_created = *deployment_creates.get(&(namespace, deployment.as_str()))?;
            let available = deployment_status
                .get(&(namespace, deployment.as_str()))?
                .iter()
                .copied()
                .filter(|&at| at <= patched)
                .max()?;
            Some(after(deployment_created, created) + after(patched, available))
        })
        .collect()
}
