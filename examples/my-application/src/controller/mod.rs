//! The MyApplication controller: for each MyApplication, a Deployment
//! `<name>-deployment` and a ClusterIP Service `<name>-service`, both owned
//! through a controller reference, kept free of drift; the status reports
//! what the Deployment achieved. Reads come from the shared informers'
//! listers, writes go through the generated clientset, and nothing is
//! written when nothing changed.
//!
//! A child still controlled by an earlier MyApplication of the same name
//! (deleted and re-created while the garbage collector lags) is deleted —
//! by uid, so nothing newer is touched — and recreated, instead of being
//! reported as a conflict.
//!
//! A write the apiserver refuses for good (invalid, forbidden, over quota:
//! [`kubegen::ClientError::is_refused`]) is reported on the application —
//! `Failed=True` with the apiserver's message, a Warning event (repeats
//! aggregate into one series) — and then retried with backoff, so the
//! application recovers by itself once the cause is gone.
//!
//! Deletion needs no finalizer: both children carry a controller owner
//! reference, so the garbage collector removes them when the MyApplication
//! goes, and the operator holds no state outside the cluster to clean up.

pub mod desired;
pub mod status;

use std::future::Future;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{DeleteParams, Patch, Preconditions};
use kubegen::events::object_reference;
use kubegen::k8s_openapi::jiff::Timestamp;
use kubegen::kube;
use kubegen::ownership::{is_controlled_by, owner_reference};
use kubegen::{EventRecorder, EventType, rbac};

use crate::api::MyApplication;
use crate::generated::clientset::Clientset;
use crate::generated::listers::apps_v1::DeploymentLister;
use crate::generated::listers::core_v1::ServiceLister;
use status::Observed;

/// The field manager of every write.
pub const FIELD_MANAGER: &str = "my-application-controller";
/// How often an application blocked by a foreign object is looked at again.
pub const CONFLICT_RETRY: Duration = Duration::from_secs(30);

/// What reconciles share: typed clients for writes, listers for reads, and
/// the event recorder.
pub struct Context {
    /// Writes.
    pub clientset: Clientset,
    /// Cached Deployments.
    pub deployments: DeploymentLister,
    /// Cached Services.
    pub services: ServiceLister,
    /// events.k8s.io/v1 events.
    pub recorder: EventRecorder,
    /// Counts the write requests reconciles make (served as
    /// `my_application_writes_total`; zero growth at steady state).
    pub writes: prometheus_client::metrics::counter::Counter,
}

/// Why a reconcile failed (it is retried with per-key backoff).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A read or write was refused or failed.
    #[error(transparent)]
    Client(#[from] kubegen::ClientError),
    /// The MyApplication has no name, namespace or uid yet.
    #[error("the MyApplication lacks metadata: {0}")]
    Metadata(#[from] kubegen::ownership::OwnershipError),
}

/// What one reconcile decided about the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Nothing to do until something changes.
    Done,
    /// Look again after this long.
    RequeueAfter(Duration),
}

/// Brings one MyApplication's children and status in line with its spec.
// Exactly what the operator uses — `tests/least_privilege_e2e.rs` derives
// the used set from the apiserver's audit log and compares: reads come
// from informers (list, watch), children are created and corrected with
// update (and deleted when an earlier incarnation left them), the status
// is merge-patched, repeated events are patched into a series, leader
// election reads, creates and renews its Lease.
#[rbac(groups = ["stable.example.com"], resources = ["myapplications"], verbs = ["list", "watch"])]
#[rbac(groups = ["stable.example.com"], resources = ["myapplications/status"], verbs = ["patch"])]
#[rbac(groups = ["apps"], resources = ["deployments"], verbs = ["list", "watch", "create", "update", "delete"])]
#[rbac(groups = [""], resources = ["services"], verbs = ["list", "watch", "create", "update", "delete"])]
#[rbac(groups = ["events.k8s.io"], resources = ["events"], verbs = ["create", "patch"])]
#[rbac(groups = ["coordination.k8s.io"], resources = ["leases"], verbs = ["get", "create", "update"])]
pub async fn reconcile(app: &MyApplication, ctx: &Context) -> Result<Next, Error> {
    let namespace = app.metadata.namespace.clone().unwrap_or_default();
    let name = app.metadata.name.clone().unwrap_or_default();
    let owner = owner_reference(app, true)?;

    let deployment_name = desired::deployment_name(&name);
    let cached = ctx
        .deployments
        .namespace(&namespace)
        .get(&deployment_name)
        .ok();
    let deployments = ctx.clientset.apps_v1().deployments(&namespace);
    let mut conflict = None;
    let deployment: Option<Deployment> = match cached {
        None => {
            // The reply is not decoded: a Deployment just created has no
            // status yet, which the status reports as absent (see
            // `status::Observed::Deployment`).
            child_write(
                ctx,
                app,
                Write::Create("Deployment", &deployment_name),
                deployments.create_unread(&desired::deployment(app, &owner)),
            )
            .await?;
            ctx.writes.inc();
            note(
                ctx,
                app,
                EventType::Normal,
                "Created",
                "Create",
                format!("created Deployment {deployment_name}"),
            );
            None
        }
        Some(existing) if desired::from_earlier_incarnation(existing.as_ref(), app) => {
            let earlier = uid_precondition(existing.as_ref());
            let deleted = deployments.delete(&deployment_name, &earlier);
            replace_earlier(ctx, app, "Deployment", &deployment_name, deleted).await?;
            None
        }
        Some(existing) if !is_controlled_by(existing.as_ref(), app) => {
            conflict = Some(("Deployment", deployment_name.clone()));
            None
        }
        Some(existing) => match desired::corrected_deployment(&existing, app) {
            Some(fixed) => {
                let updated = child_write(
                    ctx,
                    app,
                    Write::Update("Deployment", &deployment_name),
                    deployments.update(&fixed),
                )
                .await?;
                ctx.writes.inc();
                note(
                    ctx,
                    app,
                    EventType::Normal,
                    "Updated",
                    "Update",
                    format!("corrected Deployment {deployment_name}"),
                );
                Some(updated)
            }
            None => Some((*existing).clone()),
        },
    };

    let service_name = desired::service_name(&name);
    let services = ctx.clientset.core_v1().services(&namespace);
    match ctx.services.namespace(&namespace).get(&service_name).ok() {
        None => {
            child_write(
                ctx,
                app,
                Write::Create("Service", &service_name),
                services.create_unread(&desired::service(app, &owner)),
            )
            .await?;
            ctx.writes.inc();
            note(
                ctx,
                app,
                EventType::Normal,
                "Created",
                "Create",
                format!("created Service {service_name}"),
            );
        }
        Some(existing) if desired::from_earlier_incarnation(existing.as_ref(), app) => {
            let earlier = uid_precondition(existing.as_ref());
            let deleted = services.delete(&service_name, &earlier);
            replace_earlier(ctx, app, "Service", &service_name, deleted).await?;
        }
        Some(existing) if !is_controlled_by(existing.as_ref(), app) => {
            conflict.get_or_insert(("Service", service_name.clone()));
        }
        Some(existing) => {
            if let Some(fixed) = desired::corrected_service(&existing, app) {
                child_write(
                    ctx,
                    app,
                    Write::Update("Service", &service_name),
                    services.update_unread(&fixed),
                )
                .await?;
                ctx.writes.inc();
                note(
                    ctx,
                    app,
                    EventType::Normal,
                    "Updated",
                    "Update",
                    format!("corrected Service {service_name}"),
                );
            }
        }
    }

    let observed = match &conflict {
        Some((kind, name)) => Observed::Conflict { kind, name },
        None => Observed::Deployment(deployment.as_ref()),
    };
    let new_status = status::status(app, observed, Timestamp::now());
    if app.status.as_ref() != Some(&new_status) {
        let was_ready = is_ready(app.status.as_ref());
        ctx.clientset
            .stable_v1()
            .my_applications(&namespace)
            .patch_status_unread(
                &name,
                &Patch::Merge(serde_json::json!({ "status": new_status })),
            )
            .await?;
        ctx.writes.inc();
        if !was_ready && is_ready(Some(&new_status)) {
            note(
                ctx,
                app,
                EventType::Normal,
                "Synced",
                "Reconcile",
                "all replicas are available".into(),
            );
        }
    }
    match conflict {
        Some((kind, object)) => {
            let message =
                format!("{kind} {object} already exists and is not managed by this MyApplication");
            note(
                ctx,
                app,
                EventType::Warning,
                "ErrResourceExists",
                "Reconcile",
                message,
            );
            Ok(Next::RequeueAfter(CONFLICT_RETRY))
        }
        None => Ok(Next::Done),
    }
}

/// A write of a child: its kind and name.
#[derive(Debug, Clone, Copy)]
enum Write<'a> {
    Create(&'a str, &'a str),
    Update(&'a str, &'a str),
    Delete(&'a str, &'a str),
}

/// Deletes a child an earlier incarnation of `app` left behind (`delete`
/// is that request) and says so in an event; its deletion event brings
/// the application back to the reconcile, which then creates its own.
async fn replace_earlier(
    ctx: &Context,
    app: &MyApplication,
    kind: &str,
    name: &str,
    delete: impl Future<Output = Result<(), kubegen::ClientError>>,
) -> Result<(), Error> {
    child_write(ctx, app, Write::Delete(kind, name), delete).await?;
    ctx.writes.inc();
    let message = format!("deleted {kind} {name} of an earlier MyApplication of this name");
    note(ctx, app, EventType::Normal, "Replaced", "Delete", message);
    Ok(())
}

/// Delete only this very object (by uid), never a successor of its name.
fn uid_precondition<C: kube::Resource>(child: &C) -> DeleteParams {
    DeleteParams {
        preconditions: Some(Preconditions {
            uid: child.meta().uid.clone(),
            resource_version: None,
        }),
        ..DeleteParams::default()
    }
}

/// Awaits the write `request`. A refusal is reported on the application
/// first (see [`report_refusal`]); every error is returned, so that the
/// controller retries with backoff.
async fn child_write<T>(
    ctx: &Context,
    app: &MyApplication,
    write: Write<'_>,
    request: impl Future<Output = Result<T, kubegen::ClientError>>,
) -> Result<T, Error> {
    let result = request.await;
    if let Err(error) = &result
        && error.is_refused()
    {
        report_refusal(ctx, app, write, error).await;
    }
    Ok(result?)
}

/// Sets `Failed=True` (and `Ready=False`) with the apiserver's message and
/// records a Warning event `FailedCreate`/`FailedUpdate`; failures to
/// report are logged, the write's error is what the reconcile returns.
async fn report_refusal(
    ctx: &Context,
    app: &MyApplication,
    write: Write<'_>,
    error: &kubegen::ClientError,
) {
    let (reason, action, verb, kind, name) = match write {
        Write::Create(kind, name) => ("FailedCreate", "Create", "creating", kind, name),
        Write::Update(kind, name) => ("FailedUpdate", "Update", "updating", kind, name),
        Write::Delete(kind, name) => ("FailedDelete", "Delete", "deleting", kind, name),
    };
    let why = error
        .status()
        .map_or_else(|| error.to_string(), |s| s.message.clone());
    let message = format!("{verb} {kind} {name}: {why}");
    let observed = Observed::Refused {
        reason,
        message: &message,
    };
    let new_status = status::status(app, observed, Timestamp::now());
    if app.status.as_ref() != Some(&new_status) {
        ctx.writes.inc();
        let patched = ctx
            .clientset
            .stable_v1()
            .my_applications(app.metadata.namespace.as_deref().unwrap_or_default())
            .patch_status_unread(
                app.metadata.name.as_deref().unwrap_or_default(),
                &Patch::Merge(serde_json::json!({ "status": new_status })),
            )
            .await;
        if let Err(error) = patched {
            tracing::warn!(%error, "could not report a refused write in the status");
        }
    }
    note(ctx, app, EventType::Warning, reason, action, message);
}

fn is_ready(status: Option<&crate::api::MyApplicationStatus>) -> bool {
    status.is_some_and(|s| kubegen::conditions::is_condition_true(&s.conditions, "Ready"))
}

/// Records an event about `app` in the background (the reconcile does not
/// wait for the write); a failure to record it is logged, never a reason to
/// fail the reconcile.
fn note(
    ctx: &Context,
    app: &MyApplication,
    kind: EventType,
    reason: &str,
    action: &str,
    text: String,
) {
    ctx.recorder
        .record(object_reference(app), None, kind, reason, action, &text);
}
