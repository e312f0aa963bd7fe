//! What the cluster shows, polled every 300 ms: the invariants on objects
//! that must hold at every moment (no two Deployments or Services
//! controlled by one application, no child without a controller), and
//! per-object convergence: when each application first matched its last
//! intended state.
//!
//! Converged, for a name whose last intent is a spec: the object with the
//! uid created last, `Ready=True`, `status.observedGeneration ==
//! metadata.generation`, its Deployment `<name>-deployment` controlled by
//! that uid with the spec's replicas and image, its Service
//! `<name>-service` controlled by that uid, and exactly one of each
//! controlled by it. For a name whose last intent is absence: no such
//! object, and no Deployment or Service left whose controller names it
//! (the controller-manager's garbage collector deletes them).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use anyhow::Result;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use kubegen::api::{Api, ListParams};
use kubegen::conditions::find_condition;
use my_application::api::MyApplication;

use super::churn::{Intent, SharedBook, Spec, lock};
use my_application_bench::condition;

/// Poll period.
pub const POLL: Duration = Duration::from_millis(300);
/// How long one list may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(5);

/// One consistent-enough view of the namespace.
pub struct Snapshot {
    /// When the first list was sent.
    pub taken_at: Instant,
    /// When the last list returned.
    pub done_at: Instant,
    apps: Vec<MyApplication>,
    deployments: Vec<Deployment>,
    services: Vec<Service>,
}

/// The admin's view of the soak's namespace.
#[derive(Clone)]
pub struct Cluster {
    apps: Api<MyApplication>,
    deployments: Api<Deployment>,
    services: Api<Service>,
}

fn controller(meta: &ObjectMeta) -> Option<&OwnerReference> {
    meta.owner_references
        .as_ref()?
        .iter()
        .find(|o| o.controller == Some(true))
}

fn name_of(meta: &ObjectMeta) -> &str {
    meta.name.as_deref().unwrap_or_default()
}

impl Cluster {
    /// The namespace `ns` through `admin`.
    pub fn new(admin: kubegen::Client, ns: &str) -> Cluster {
        Cluster {
            apps: Api::namespaced(admin.clone(), ns),
            deployments: Api::namespaced(admin.clone(), ns),
            services: Api::namespaced(admin, ns),
        }
    }

    /// Lists the three kinds; `None` while the plane does not answer.
    pub async fn snapshot(&self) -> Option<Snapshot> {
        let taken_at = Instant::now();
        let lp = ListParams::default();
        let (apps, deployments, services) = tokio::time::timeout(LIST_TIMEOUT, async {
            futures::try_join!(
                self.apps.list(&lp),
                self.deployments.list(&lp),
                self.services.list(&lp)
            )
        })
        .await
        .ok()?
        .ok()?;
        Some(Snapshot {
            taken_at,
            done_at: Instant::now(),
            apps: apps.items,
            deployments: deployments.items,
            services: services.items,
        })
    }
}

impl Snapshot {
    /// Violations of the always-true invariants: no two children of one
    /// kind controlled by one application (a duplicate), no child without
    /// a controller reference.
    pub fn always_violations(&self) -> Vec<String> {
        let mut out = Vec::new();
        let children = self
            .deployments
            .iter()
            .map(|d| ("Deployment", &d.metadata))
            .chain(self.services.iter().map(|s| ("Service", &s.metadata)));
        let mut by_owner: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
        for (kind, meta) in children {
            match controller(meta) {
                Some(owner) => by_owner
                    .entry((kind, owner.uid.as_str()))
                    .or_default()
                    .push(name_of(meta)),
                None => out.push(format!(
                    "{kind} {} has no controller reference",
                    name_of(meta)
                )),
            }
        }
        for ((kind, uid), names) in by_owner {
            if names.len() > 1 {
                out.push(format!(
                    "duplicate children: {} {kind}s controlled by uid {uid}: {names:?}",
                    names.len()
                ));
            }
        }
        out
    }

    /// Whether `name` reflects `intent`: `Err` says why not; `Ok(true)`
    /// when it is also Ready (or rightly absent), `Ok(false)` when its
    /// status rightly reports a Deployment whose pods the control plane
    /// has not made available yet.
    pub fn converged(&self, name: &str, intent: &Intent) -> Result<bool, String> {
        let deployment_name = format!("{name}-deployment");
        let service_name = format!("{name}-service");
        let app = self.apps.iter().find(|a| name_of(&a.metadata) == name);
        let Some(spec) = &intent.spec else {
            if app.is_some() {
                return Err("deleted, still listed".into());
            }
            let left: Vec<&str> = self
                .deployments
                .iter()
                .map(|d| &d.metadata)
                .chain(self.services.iter().map(|s| &s.metadata))
                .filter(|m| {
                    let child = name_of(m);
                    controller(m).is_some_and(|o| o.name == name)
                        || child == deployment_name
                        || child == service_name
                })
                .map(name_of)
                .collect();
            return match left.as_slice() {
                [] => Ok(true),
                _ => Err(format!("deleted, children left: {left:?}")),
            };
        };
        let Some(app) = app else {
            return Err("not listed".into());
        };
        let uid = app.metadata.uid.as_deref().unwrap_or_default();
        if intent.uid.as_deref() != Some(uid) {
            return Err(format!("uid {uid}, expected {:?}", intent.uid));
        }
        if Spec::of(app) != *spec {
            return Err(format!("spec {:?}, intended {spec:?}", Spec::of(app)));
        }
        let owned = |meta: &ObjectMeta| controller(meta).is_some_and(|o| o.uid == uid);
        let deployments: Vec<&Deployment> = self
            .deployments
            .iter()
            .filter(|d| owned(&d.metadata))
            .collect();
        let services = self.services.iter().filter(|s| owned(&s.metadata)).count();
        let [deployment] = deployments.as_slice() else {
            return Err(format!("{} Deployments controlled", deployments.len()));
        };
        if services != 1 {
            return Err(format!("{services} Services controlled"));
        }
        if name_of(&deployment.metadata) != deployment_name
            || !self
                .services
                .iter()
                .any(|s| owned(&s.metadata) && name_of(&s.metadata) == service_name)
        {
            return Err("children misnamed".into());
        }
        let d_spec = deployment.spec.as_ref();
        let replicas = d_spec.and_then(|s| s.replicas);
        let image = d_spec
            .and_then(|s| s.template.spec.as_ref())
            .and_then(|p| p.containers.first())
            .and_then(|c| c.image.clone());
        if replicas != Some(spec.replicas) || image.as_deref() != Some(spec.image.as_str()) {
            return Err(format!(
                "Deployment has replicas {replicas:?} image {image:?}, intended {spec:?}"
            ));
        }
        let status = app.status.clone().unwrap_or_default();
        if status.observed_generation != app.metadata.generation {
            return Err(format!(
                "observedGeneration {:?} of {:?}",
                status.observed_generation, app.metadata.generation
            ));
        }
        // The status says what the Deployment says (the operator's rule:
        // Ready once the rollout of this generation is complete).
        let d = deployment.status.clone().unwrap_or_default();
        let available = d.available_replicas.unwrap_or(0);
        let generation = deployment.metadata.generation;
        let complete = generation.is_some()
            && d.observed_generation >= generation
            && available >= spec.replicas
            && d.updated_replicas.unwrap_or(0) >= spec.replicas;
        let ready = condition(&status, "Ready") == Some("True");
        if ready != complete || status.available_replicas != Some(available) {
            let reason = find_condition(&status.conditions, "Ready").map(|c| &c.reason);
            return Err(format!(
                "status (Ready {ready} {reason:?}, available {:?}) does not reflect the Deployment (generation {generation:?} observed {:?}, updated {:?}, available {:?})",
                status.available_replicas,
                d.observed_generation,
                d.updated_replicas,
                d.available_replicas
            ));
        }
        Ok(ready)
    }

    /// Children whose controller is no live application (to be collected).
    pub fn orphans(&self) -> Vec<String> {
        let live: BTreeSet<&str> = self
            .apps
            .iter()
            .filter_map(|a| a.metadata.uid.as_deref())
            .collect();
        self.deployments
            .iter()
            .map(|d| ("Deployment", &d.metadata))
            .chain(self.services.iter().map(|s| ("Service", &s.metadata)))
            .filter(|(_, m)| controller(m).is_none_or(|o| !live.contains(o.uid.as_str())))
            .map(|(kind, m)| format!("{kind} {}", name_of(m)))
            .collect()
    }
}

/// Per-change convergence times.
#[derive(Debug, Default)]
pub struct Samples {
    /// From a change until the object reflected it (children and status).
    pub reflected: Vec<Duration>,
    /// From a change until the object was also Ready (or gone).
    pub ready: Vec<Duration>,
}

/// Records every name that reflected its last change, or became Ready
/// since, in `snapshot`: the time each took, from the change to the end of
/// the snapshot that showed it. Names changed after the snapshot began, or
/// with a change under way, are left for a later snapshot.
pub fn record_convergence(book: &SharedBook, snapshot: &Snapshot, samples: &mut Samples) {
    let mut book = lock(book);
    for (name, intent) in book.intents.iter_mut() {
        if intent.pending
            || intent.changed_at >= snapshot.taken_at
            || intent.ready == Some(intent.version)
        {
            continue;
        }
        let Ok(ready) = snapshot.converged(name, intent) else {
            continue;
        };
        let took = snapshot.done_at - intent.changed_at;
        if intent.reflected != Some(intent.version) {
            intent.reflected = Some(intent.version);
            samples.reflected.push(took);
        }
        if ready {
            intent.ready = Some(intent.version);
            samples.ready.push(took);
        }
    }
}

/// The names that do not reflect their last intent in `snapshot`, with
/// the reason, and how many present ones are not Ready.
pub fn unconverged(book: &SharedBook, snapshot: &Snapshot) -> (Vec<(String, String)>, usize) {
    let book = lock(book);
    let mut out = Vec::new();
    let mut not_ready = 0;
    for (name, intent) in &book.intents {
        match snapshot.converged(name, intent) {
            Ok(true) => {}
            Ok(false) => not_ready += 1,
            Err(why) => out.push((name.clone(), why)),
        }
    }
    (out, not_ready)
}
