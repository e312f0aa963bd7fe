//! The MyApplication controller: for each MyApplication, a Deployment
//! `<name>-deployment` and a ClusterIP Service `<name>-service`, both owned
//! through a controller reference, declared with server-side apply
//! (`desired` builds their apply configurations: exactly the fields the
//! operator owns); the status reports what the Deployment achieved,
//! applied to the status subresource. Reads come from the shared
//! informers' listers, writes go through the generated clientset, and
//! nothing is written when what the operator owns already reads back as
//! declared (`kubegen::apply::is_applied`, `extract` on the cached object).
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

use kubegen::api::{DeleteParams, Preconditions};
use kubegen::apply::{ApplyConfiguration, ApplyOptions, from_typed, is_applied, is_status_applied};
use kubegen::client::ResourceClient;
use kubegen::events::object_reference;
use kubegen::k8s_openapi::jiff::Timestamp;
use kubegen::ownership::{is_controlled_by, owner_reference};
use kubegen::{EventRecorder, EventType, rbac};

use crate::api::MyApplication;
use crate::generated::applyconfigurations::stable_v1::MyApplicationApply;
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
    /// The replica's shards, when the operator is sharded: children are
    /// labelled with their owner's partition.
    pub shards: Option<kubegen::sharding::Shards>,
}

/// Why a reconcile failed (it is retried with per-key backoff).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A read or write was refused or failed.
    #[error(transparent)]
    Client(#[from] kubegen::ClientError),
    /// What the operator owns of a child or the status could not be read
    /// back (see `kubegen::apply::extract`).
    #[error(transparent)]
    Apply(#[from] kubegen::apply::ApplyError),
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
// from informers (list, watch), children are applied (server-side apply
// is `patch`, and also `create` when the apply makes the object) and
// deleted when an earlier
// incarnation left them, the status is applied (`patch`), repeated events
// are patched into a series, leader election reads, creates and renews
// its Lease.
#[rbac(groups = ["stable.example.com"], resources = ["myapplications"], verbs = ["list", "watch"])]
#[rbac(groups = ["stable.example.com"], resources = ["myapplications/status"], verbs = ["patch"])]
#[rbac(groups = ["apps"], resources = ["deployments"], verbs = ["list", "watch", "create", "patch", "delete"])]
#[rbac(groups = [""], resources = ["services"], verbs = ["list", "watch", "create", "patch", "delete"])]
#[rbac(groups = ["events.k8s.io"], resources = ["events"], verbs = ["create", "patch"])]
#[rbac(groups = ["coordination.k8s.io"], resources = ["leases"], verbs = ["get", "create", "update"])]
pub async fn reconcile(app: &MyApplication, ctx: &Context) -> Result<Next, Error> {
    let namespace = app.metadata.namespace.clone().unwrap_or_default();
    let name = app.metadata.name.clone().unwrap_or_default();
    let owner = owner_reference(app, true)?;
    let partition = ctx
        .shards
        .as_ref()
        .map(|shards| shards.owner_partition_label(&owner.uid));

    // 1. The Deployment; its reply is read when applied, as the status
    //    reports what it achieved.
    let deployment_name = desired::deployment_name(&name);
    let deployments = ctx.clientset.apps_v1().deployments(&namespace);
    let deployment = apply_child(
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
            desired: desired::deployment(app, &owner, partition.as_ref()),
            read_reply: true,
        },
    )
    .await?;

    // 2. The Service.
    let service_name = desired::service_name(&name);
    let services = ctx.clientset.core_v1().services(&namespace);
    let service = apply_child(
        ctx,
        app,
        Child {
            kind: "Service",
            name: &service_name,
            cached: ctx.services.namespace(&namespace).get(&service_name).ok(),
            client: services.inner(),
            desired: desired::service(app, &owner, partition.as_ref()),
            read_reply: false,
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
    apply_status(ctx, app, observed).await?;

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
struct Child<'a, A: ApplyConfiguration> {
    /// `Deployment` or `Service`, for events and messages.
    kind: &'static str,
    /// The child's name.
    name: &'a str,
    /// The object of that name in the informer's cache, if any (with the
    /// operator's own managed-fields entries, see `operator::start`).
    cached: Option<Arc<A::Resource>>,
    /// The kind's client, for the writes.
    client: &'a ResourceClient<A::Resource>,
    /// The child as the application declares it.
    desired: A,
    /// Whether the apply's reply is decoded (to report on it).
    read_reply: bool,
}

/// Where a child stands after [`apply_child`].
enum Ensured<'a, K> {
    /// The application's own: the object as it now is when the reconcile
    /// knows it (cached and already as declared, or the apply's reply when
    /// read); `None` after a replacement or an unread apply.
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

/// Declares one child with server-side apply. A child left by an earlier
/// incarnation of the application is deleted by uid (to be applied anew
/// on the next reconcile); one controlled by someone else is a conflict,
/// left alone; one whose owned fields already read back as declared
/// (`is_applied`: `extract` of the cached object) is not written. Else the
/// declaration is applied; fields another manager took over are reported
/// (a Warning event naming manager and field) and taken back with force,
/// as a controller that owns its children must. Each write is counted and
/// recorded as an event.
async fn apply_child<'a, A>(
    ctx: &Context,
    app: &MyApplication,
    child: Child<'a, A>,
) -> Result<Ensured<'a, A::Resource>, Error>
where
    A: ApplyConfiguration,
    A::Resource: kubegen::Resource<DynamicType = ()>,
{
    let Child {
        kind,
        name,
        cached,
        client,
        desired,
        read_reply,
    } = child;
    let options = ApplyOptions::new(FIELD_MANAGER);
    let write = match &cached {
        None => Write::Create(kind, name),
        Some(existing) => {
            if desired::from_earlier_incarnation(existing.as_ref(), app) {
                let earlier = uid_precondition(existing.as_ref());
                let deleted = client.delete(name, &earlier);
                replace_earlier(ctx, app, kind, name, deleted).await?;
                return Ok(Ensured::Owned(None));
            }
            if !is_controlled_by(existing.as_ref(), app) {
                return Ok(Ensured::Foreign(Foreign { kind, name }));
            }
            if is_applied(existing.as_ref(), &desired, &options)? {
                return Ok(Ensured::Owned(cached));
            }
            Write::Update(kind, name)
        }
    };
    let mut applied = send_apply(client, &desired, &options, read_reply).await;
    if let Err(error) = &applied {
        let conflicts = error.apply_conflicts();
        if !conflicts.is_empty() {
            report_takeover(ctx, app, kind, name, &conflicts);
            ctx.writes.inc();
            applied = send_apply(client, &desired, &options.force(), read_reply).await;
        }
    }
    let applied = child_write(ctx, app, write, async { applied }).await?;
    ctx.writes.inc();
    let (reason, action, message) = match write {
        Write::Create(..) => ("Created", "Create", format!("created {kind} {name}")),
        _ => ("Updated", "Update", format!("corrected {kind} {name}")),
    };
    note(ctx, app, EventType::Normal, reason, action, message);
    Ok(Ensured::Owned(applied.map(Arc::new)))
}

/// One apply request; the reply is decoded only when `read_reply`.
async fn send_apply<A: ApplyConfiguration>(
    client: &ResourceClient<A::Resource>,
    desired: &A,
    options: &ApplyOptions,
    read_reply: bool,
) -> Result<Option<A::Resource>, kubegen::ClientError>
where
    A::Resource: kubegen::Resource<DynamicType = ()>,
{
    if read_reply {
        client.apply(desired, options).await.map(Some)
    } else {
        client.apply_unread(desired, options).await.map(|()| None)
    }
}

/// A Warning event `FieldsTakenOver` naming the fields other managers had
/// set on a child, and who they were.
fn report_takeover(
    ctx: &Context,
    app: &MyApplication,
    kind: &str,
    name: &str,
    conflicts: &[kubegen::apply::FieldConflict],
) {
    let fields: Vec<String> = conflicts.iter().map(ToString::to_string).collect();
    let message = format!("took back fields of {kind} {name}: {}", fields.join(", "));
    note(
        ctx,
        app,
        EventType::Warning,
        "FieldsTakenOver",
        "Apply",
        message,
    );
}

/// Applies the status `observed` gives (as the field manager's status
/// apply configuration), unless what the operator owns of the status
/// already reads back so; the first time the application is ready, says
/// so in an event.
async fn apply_status(
    ctx: &Context,
    app: &MyApplication,
    observed: Observed<'_>,
) -> Result<(), Error> {
    let new_status = status::status(app, observed, Timestamp::now());
    let desired = status_apply(app, &new_status)?;
    let options = ApplyOptions::new(FIELD_MANAGER);
    if is_status_applied(app, &desired, &options)? {
        return Ok(());
    }
    let was_ready = is_ready(app.status.as_ref());
    send_status(ctx, app, &desired).await?;
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

/// `status` as the status apply configuration of `app`.
fn status_apply(
    app: &MyApplication,
    status: &crate::api::MyApplicationStatus,
) -> Result<MyApplicationApply, Error> {
    Ok(MyApplicationApply::new(
        app.metadata.name.as_deref().unwrap_or_default(),
        app.metadata.namespace.as_deref().unwrap_or_default(),
    )
    .with_status(from_typed(status)?))
}

/// Applies `desired` to the status subresource, forcing: the status is the
/// operator's alone.
async fn send_status(
    ctx: &Context,
    app: &MyApplication,
    desired: &MyApplicationApply,
) -> Result<(), Error> {
    let options = ApplyOptions::new(FIELD_MANAGER).force();
    ctx.clientset
        .stable_v1()
        .my_applications(app.metadata.namespace.as_deref().unwrap_or_default())
        .apply_status_unread(desired, &options)
        .await?;
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
fn uid_precondition<C: kubegen::Resource>(child: &C) -> DeleteParams {
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
        let applied = match status_apply(app, &new_status) {
            Ok(desired) => send_status(ctx, app, &desired).await,
            Err(error) => Err(error),
        };
        if let Err(error) = applied {
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
