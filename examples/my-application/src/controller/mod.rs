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

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Service;
use kube::api::{DeleteParams, Patch, Preconditions};
use kubegen::client::ResourceClient;
use kubegen::events::object_reference;
use kubegen::k8s_openapi::jiff::Timestamp;
use kubegen::kube;
use kubegen::ownership::{is_controlled_by, owner_reference};
use kubegen::{EventRecorder, EventType, rbac};

use crate::api::MyApplication;
use crate::generated::clientset::Clientset;
use crate::generated::listers::apps_v1::DeploymentLister;
use crate::generated::listers::core_v1::ServiceLister;
use serde::Serialize;
use serde::de::DeserializeOwned;
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

    // 1. The Deployment; its reply is read when corrected, as the status
    //    reports what it achieved.
    let deployment_name = desired::deployment_name(&name);
    let deployments = ctx.clientset.apps_v1().deployments(&namespace);
    let deployment = ensure_child(
        ctx,
        app,
        Child {
            kind: "Deployment",
            name: &deployment_name,
            cached: ctx
                .deployments
                .namespace(&namespace)
                .get(&deployment_name)
                .ok(),
            client: deployments.inner(),
            desired: || desired::deployment(app, &owner),
            corrected: |existing: &Deployment| desired::corrected_deployment(existing, app),
            read_update: true,
        },
    )
    .await?;

    // 2. The Service.
    let service_name = desired::service_name(&name);
    let services = ctx.clientset.core_v1().services(&namespace);
    let service = ensure_child(
        ctx,
        app,
        Child {
            kind: "Service",
            name: &service_name,
            cached: ctx.services.namespace(&namespace).get(&service_name).ok(),
            client: services.inner(),
            desired: || desired::service(app, &owner),
            corrected: |existing: &Service| desired::corrected_service(existing, app),
            read_update: false,
        },
    )
    .await?;

    // 3. The status: the first child someone else owns, else what the
    //    Deployment achieved.
    let conflict = deployment.foreign().or(service.foreign());
    let observed = match conflict {
        Some(Foreign { kind, name }) => Observed::Conflict { kind, name },
        None => Observed::Deployment(deployment.current()),
    };
    update_status(ctx, app, observed).await?;

    // 4. A conflict is reported and looked at again later.
    match conflict {
        Some(foreign) => {
            report_conflict(ctx, app, foreign);
            Ok(Next::RequeueAfter(CONFLICT_RETRY))
        }
        None => Ok(Next::Done),
    }
}

/// One child of the application, and how to bring it in line.
struct Child<'a, K, D, C> {
    /// `Deployment` or `Service`, for events and messages.
    kind: &'static str,
    /// The child's name.
    name: &'a str,
    /// The object of that name in the informer's cache, if any.
    cached: Option<Arc<K>>,
    /// The kind's client, for the writes.
    client: &'a ResourceClient<K>,
    /// The child as the application wants it, to create.
    desired: D,
    /// The cached child corrected, `None` when it is as it should be.
    corrected: C,
    /// Whether a correction's reply is decoded (to report on it).
    read_update: bool,
}

/// Where a child stands after [`ensure_child`].
enum Ensured<'a, K> {
    /// The application's own: the object as it now is when the reconcile
    /// knows it (cached and unchanged, or the correction's reply when
    /// read); `None` after a create or a replacement, as a Deployment just
    /// created has no status yet (see `status::Observed::Deployment`).
    Owned(Option<Arc<K>>),
    /// An object of the child's name the application does not control.
    Foreign(Foreign<'a>),
}

/// A same-named object not controlled by the application.
#[derive(Clone, Copy)]
struct Foreign<'a> {
    kind: &'static str,
    name: &'a str,
}

impl<'a, K> Ensured<'a, K> {
    /// The child's object, when the reconcile knows it.
    fn current(&self) -> Option<&K> {
        match self {
            Ensured::Owned(current) => current.as_deref(),
            Ensured::Foreign(_) => None,
        }
    }

    /// The foreign object in the child's place, if any.
    fn foreign(&self) -> Option<Foreign<'a>> {
        match self {
            Ensured::Owned(_) => None,
            Ensured::Foreign(foreign) => Some(*foreign),
        }
    }
}

/// The ladder every child goes through (controller-runtime's
/// `CreateOrUpdate`, plus the two cases an owner meets besides): absent,
/// it is created; left by an earlier incarnation of the application, it is
/// deleted (to be created on the next reconcile); controlled by someone
/// else, it is a conflict; else it is corrected if it drifted. Each write
/// is counted and recorded as an event; a create's reply is not decoded.
async fn ensure_child<'a, K, D, C>(
    ctx: &Context,
    app: &MyApplication,
    child: Child<'a, K, D, C>,
) -> Result<Ensured<'a, K>, Error>
where
    K: kube::Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug,
    D: FnOnce() -> K,
    C: FnOnce(&K) -> Option<K>,
{
    let Child {
        kind,
        name,
        cached,
        client,
        desired,
        corrected,
        read_update,
    } = child;
    let Some(existing) = cached else {
        child_write(
            ctx,
            app,
            Write::Create(kind, name),
            client.create_unread(&desired()),
        )
        .await?;
        ctx.writes.inc();
        let message = format!("created {kind} {name}");
        note(ctx, app, EventType::Normal, "Created", "Create", message);
        return Ok(Ensured::Owned(None));
    };
    if desired::from_earlier_incarnation(existing.as_ref(), app) {
        let earlier = uid_precondition(existing.as_ref());
        let deleted = client.delete(name, &earlier);
        replace_earlier(ctx, app, kind, name, deleted).await?;
        return Ok(Ensured::Owned(None));
    }
    if !is_controlled_by(existing.as_ref(), app) {
        return Ok(Ensured::Foreign(Foreign { kind, name }));
    }
    let Some(fixed) = corrected(&existing) else {
        return Ok(Ensured::Owned(Some(existing)));
    };
    let write = Write::Update(kind, name);
    let updated = if read_update {
        Some(Arc::new(
            child_write(ctx, app, write, client.update(&fixed)).await?,
        ))
    } else {
        child_write(ctx, app, write, client.update_unread(&fixed)).await?;
        None
    };
    ctx.writes.inc();
    let message = format!("corrected {kind} {name}");
    note(ctx, app, EventType::Normal, "Updated", "Update", message);
    Ok(Ensured::Owned(updated))
}

/// Merge-patches the status `observed` gives, unless it is already so;
/// the first time the application is ready, says so in an event.
async fn update_status(
    ctx: &Context,
    app: &MyApplication,
    observed: Observed<'_>,
) -> Result<(), Error> {
    let new_status = status::status(app, observed, Timestamp::now());
    if app.status.as_ref() == Some(&new_status) {
        return Ok(());
    }
    let was_ready = is_ready(app.status.as_ref());
    ctx.clientset
        .stable_v1()
        .my_applications(app.metadata.namespace.as_deref().unwrap_or_default())
        .patch_status_unread(
            app.metadata.name.as_deref().unwrap_or_default(),
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
    Ok(())
}

/// A Warning event `ErrResourceExists` naming the foreign object.
fn report_conflict(ctx: &Context, app: &MyApplication, foreign: Foreign<'_>) {
    let Foreign { kind, name } = foreign;
    let message = format!("{kind} {name} already exists and is not managed by this MyApplication");
    note(
        ctx,
        app,
        EventType::Warning,
        "ErrResourceExists",
        "Reconcile",
        message,
    );
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
