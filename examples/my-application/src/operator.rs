//! The operator process: a [`Manager`] running the MyApplication controller
//! (only while this instance holds the leader Lease), serving /healthz,
//! /readyz on a plain port, /metrics over HTTPS to authorized callers and,
//! given a certificate, the v1 ↔ v2 conversion webhook.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, Result};
use kubegen::informer::watcher::InitialListStrategy;
use kubegen::k8s_openapi::api::apps::v1::Deployment;
use kubegen::k8s_openapi::api::core::v1::Service;
use kubegen::leader_election::default_identity;
use kubegen::sharding::{ServerSideFiltering, ShardingConfig};
use kubegen::{
    Action, Controller, EventRecorder, LeaderElectionConfig, Manager, ServingCert, WebhookServer,
};
use prometheus_client::metrics::counter::Counter;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::api::MyApplication;
use crate::controller::{Context, FIELD_MANAGER, Next, reconcile};
use crate::generated::clientset::Clientset;
use crate::generated::conversion::converter;
use crate::generated::informers::SharedInformerFactory;

/// How the operator runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Watch only this namespace (all namespaces when `None`).
    pub namespace: Option<String>,
    /// Hold a Lease so that of several replicas only one reconciles.
    pub leader_election: bool,
    /// Namespace of the Lease.
    pub lease_namespace: String,
    /// Name of the Lease.
    pub lease_name: String,
    /// This instance's identity (default: POD_NAME or the hostname, plus a
    /// random suffix).
    pub identity: Option<String>,
    /// Lease duration (client-go's default 15 s); renew deadline and retry
    /// period keep client-go's ratios (2/3 and 2/15 of it).
    pub lease_duration: Duration,
    /// Address of /healthz and /readyz (plain HTTP, no credentials).
    pub health_probe_addr: SocketAddr,
    /// Address of /metrics: HTTPS, for callers the apiserver authorizes
    /// for `get` on `/metrics` (the operator needs `system:auth-delegator`).
    pub metrics_addr: SocketAddr,
    /// Directory holding the metrics certificate as `tls.crt`/`tls.key`
    /// (reloaded when it changes); self-signed when `None`.
    pub metrics_cert_dir: Option<PathBuf>,
    /// Serve /metrics over plain HTTP without authentication (local
    /// development only).
    pub insecure_metrics: bool,
    /// Serve the conversion webhook (v1 ↔ v2) over HTTPS on
    /// [`webhook_addr`](Self::webhook_addr) with the certificate in this
    /// directory (`tls.crt`/`tls.key`, reloaded when it changes); no
    /// webhook server when `None`.
    pub webhook_cert_dir: Option<PathBuf>,
    /// Address of the webhook server (kubebuilder's 9443).
    pub webhook_addr: SocketAddr,
    /// Concurrent reconciles.
    pub workers: usize,
    /// Fill the informers' caches with paginated LIST requests instead of
    /// streaming lists (a watch with `sendInitialEvents`, the default) —
    /// for apiservers behind proxies that cut long watches. Informers fall
    /// back to paginated lists by themselves when the apiserver rejects
    /// streaming ones; this is why the role grants `list`.
    pub paginated_lists: bool,
    /// Cache MyApplications and the Deployments and Services the operator
    /// owns as their JSON with a bounded working set decoded (the objects
    /// read or changed most recently), encoding them after the transform
    /// that keeps the operator's own managed fields
    /// ([`compact_for`](kubegen::FactoryBuilder::compact_for)): less memory
    /// per object, and a decode only for a read outside the working set.
    /// On by default; off, they are cached decoded
    /// ([`decoded_for`](kubegen::FactoryBuilder::decoded_for)).
    pub compact_caches: bool,
    /// Split the applications between the replicas instead of electing a
    /// leader (see `kubegen::sharding`): the shard set is named after the
    /// Lease ([`lease_name`](Self::lease_name), in
    /// [`lease_namespace`](Self::lease_namespace)), with this many
    /// partitions, the lease timings above, and the apiserver filtering by
    /// shard when it can ([`shard_filtering`](Self::shard_filtering)).
    /// Every replica then reconciles its share; leader election is off.
    pub shard_partitions: Option<u32>,
    /// Whether sharded informers ask the apiserver to filter
    /// (`ShardedListAndWatch`, Kubernetes 1.36+).
    pub shard_filtering: ServerSideFiltering,
    /// The apiserver's `host:port`, which labels the count of the
    /// operator's requests (`rest_client_requests_total`, as
    /// controller-runtime counts them); not counted when `None`.
    pub apiserver_host: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            namespace: None,
            leader_election: true,
            lease_namespace: "default".into(),
            lease_name: "my-application-controller".into(),
            identity: None,
            lease_duration: Duration::from_secs(15),
            health_probe_addr: SocketAddr::from(([0, 0, 0, 0], 8081)),
            metrics_addr: SocketAddr::from(([0, 0, 0, 0], 8443)),
            metrics_cert_dir: None,
            insecure_metrics: false,
            webhook_cert_dir: None,
            webhook_addr: SocketAddr::from(([0, 0, 0, 0], 9443)),
            workers: 2,
            paginated_lists: false,
            compact_caches: true,
            shard_partitions: None,
            shard_filtering: ServerSideFiltering::Auto,
            apiserver_host: None,
        }
    }
}

impl Options {
    /// Options for an operator confined to one namespace (its Lease lives
    /// there too), serving probes and metrics on free loopback ports.
    pub fn for_namespace(namespace: &str) -> Self {
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        Options {
            namespace: Some(namespace.into()),
            lease_namespace: namespace.into(),
            health_probe_addr: loopback,
            metrics_addr: loopback,
            webhook_addr: loopback,
            ..Options::default()
        }
    }
}

/// The operator's manager, with the MyApplication controller added; the
/// counter of the writes its reconciles make (served on /metrics as
/// `my_application_writes_total`); and its event recorder, to
/// [`flush`](EventRecorder::flush) once the manager has stopped.
pub async fn manager(
    client: kubegen::Client,
    options: &Options,
) -> Result<(Manager, Counter, EventRecorder)> {
    let identity = options.identity.clone().unwrap_or_else(default_identity);
    let mut builder = Manager::builder(client.clone())
        .health_probe_addr(options.health_probe_addr)
        .metrics_addr(options.metrics_addr);
    if let Some(dir) = &options.metrics_cert_dir {
        builder = builder.metrics_cert(ServingCert::from_dir(dir));
    }
    if options.insecure_metrics {
        builder = builder.insecure_metrics();
    }
    if let Some(host) = &options.apiserver_host {
        builder = builder.rest_client_metrics(host.clone());
    }
    if let Some(dir) = &options.webhook_cert_dir {
        let webhooks = WebhookServer::builder(ServingCert::from_dir(dir)).conversion(converter());
        builder = builder.webhook_server(options.webhook_addr, webhooks);
    }
    let namespace = options.namespace.clone();
    let paginated_lists = options.paginated_lists;
    let compact_caches = options.compact_caches;
    builder = builder.informer_factory(move |mut factory| {
        // Of each object's managed fields, the operator's own applied
        // entries are kept: what `extract` reads to skip no-op applies.
        factory = factory.transform(kubegen::apply::keep_applied_by(FIELD_MANAGER));
        factory = if compact_caches {
            factory
                .compact_for::<Deployment>()
                .compact_for::<Service>()
                .compact_for::<MyApplication>()
        } else {
            factory
                .decoded_for::<Deployment>()
                .decoded_for::<Service>()
                .decoded_for::<MyApplication>()
        };
        if let Some(namespace) = namespace {
            factory = factory.namespace(namespace);
        }
        if paginated_lists {
            factory = factory.tweak_list_params(|watcher| {
                watcher.initial_list_strategy = InitialListStrategy::ListWatch;
            });
        }
        factory
    });
    if let Some(partitions) = options.shard_partitions {
        builder = builder.sharding(ShardingConfig {
            identity: Some(identity.clone()),
            partitions,
            lease_duration: options.lease_duration,
            renew_deadline: options.lease_duration * 2 / 3,
            retry_period: options.lease_duration * 2 / 15,
            handover_timeout: options.lease_duration / 3,
            server_side: options.shard_filtering,
            ..ShardingConfig::new(&options.lease_namespace, &options.lease_name)
        });
    } else if options.leader_election {
        builder = builder.leader_election(LeaderElectionConfig {
            identity: Some(identity.clone()),
            lease_duration: options.lease_duration,
            renew_deadline: options.lease_duration * 2 / 3,
            retry_period: options.lease_duration * 2 / 15,
            ..LeaderElectionConfig::new(&options.lease_namespace, &options.lease_name)
        });
    }
    let mut manager = builder.build().await?;
    let writes = Counter::default();
    manager.registry().register(|r| {
        r.register(
            "my_application_writes",
            "Write requests made by reconciles",
            writes.clone(),
        )
    });

    let factory = SharedInformerFactory::from_factory(manager.factory().clone());
    let deployments = factory.apps().v1().deployments();
    let services = factory.core().v1().services();
    // The manager's client: its requests are counted with the manager's.
    let client = manager.client().clone();
    let recorder = EventRecorder::new(
        client.clone(),
        "stable.example.com/my-application-controller",
        identity,
    );
    let ctx = Arc::new(Context {
        clientset: Clientset::new(client.clone()).with_field_manager(FIELD_MANAGER),
        deployments: deployments.lister(),
        services: services.lister(),
        recorder: recorder.clone(),
        writes: writes.clone(),
        shards: manager.shards().cloned(),
    });
    let mut controller =
        Controller::builder(factory.stable().v1().my_applications().informer().clone())
            .name("myapplication")
            // Children carry their owner's partition label, so a sharded
            // replica's Deployment and Service informers select only its
            // share (see `Context::shards`).
            .owns_labelled(deployments.informer().clone())
            .owns_labelled(services.informer().clone())
            .workers(options.workers)
            .metrics(manager.controller_metrics());
    if let Some(shards) = manager.shards() {
        controller = controller.shards(shards);
    }
    let controller = controller.reconcile(
        |app: Arc<MyApplication>, ctx: Arc<Context>| async move {
            match reconcile(&app, &ctx).await? {
                Next::Done => Ok::<_, crate::controller::Error>(Action::done()),
                Next::RequeueAfter(delay) => Ok(Action::requeue_after(delay)),
            }
        },
        ctx,
    );
    manager.add(controller);
    Ok((manager, writes, recorder))
}

/// An operator running in the background (for tests and embedding; the
/// binary runs the [`manager`] itself).
pub struct RunningOperator {
    stop: CancellationToken,
    task: JoinHandle<Result<()>>,
    health_probe_addr: SocketAddr,
    webhook_addr: Option<SocketAddr>,
    writes: Counter,
}

impl RunningOperator {
    /// Where /healthz and /readyz are served.
    pub fn health_probe_addr(&self) -> SocketAddr {
        self.health_probe_addr
    }

    /// Where the conversion webhook is served, when it is.
    pub fn webhook_addr(&self) -> Option<SocketAddr> {
        self.webhook_addr
    }

    /// Write requests (create, update, patch) made by reconciles so far.
    pub fn writes(&self) -> u64 {
        self.writes.get()
    }

    /// Stops taking new work, lets in-flight reconciles finish, releases
    /// the Lease, stops the informers and the server and waits for the
    /// events still being written.
    pub async fn shutdown(self) -> Result<()> {
        self.stop.cancel();
        self.task.await.context("the operator task panicked")?
    }
}

/// Starts the operator with `client`'s identity; it runs until
/// [`RunningOperator::shutdown`].
pub async fn start(client: kubegen::Client, options: Options) -> Result<RunningOperator> {
    let (manager, writes, recorder) = manager(client, &options).await?;
    let health_probe_addr = manager
        .health_probe_addr()
        .context("the manager serves probes")?;
    let webhook_addr = manager.webhook_addr();
    let stop = CancellationToken::new();
    let run = manager.run_until(stop.clone().cancelled_owned());
    let task = tokio::spawn(async move {
        run.await?;
        recorder.flush().await;
        Ok(())
    });
    Ok(RunningOperator {
        stop,
        task,
        health_probe_addr,
        webhook_addr,
        writes,
    })
}
