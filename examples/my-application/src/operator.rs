//! The operator process: shared informers, the controller (run only while
//! this instance holds the leader Lease), and the HTTP server with
//! /healthz, /readyz and /metrics.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, Result};
use kubegen::controller::{Action, Controller, ControllerMetrics};
use kubegen::events::EventRecorder;
use kubegen::leader_election::{LeaderElectionMetrics, LeaderElector, default_identity};
use kubegen::server::{OperatorServer, ReadyFlag, SharedRegistry};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::registry::Registry;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::api::MyApplication;
use crate::controller::{Context, FIELD_MANAGER, Next, reconcile};
use crate::generated::clientset::Clientset;
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
    /// Address of the /healthz, /readyz and /metrics server.
    pub metrics_addr: SocketAddr,
    /// Concurrent reconciles.
    pub workers: usize,
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
            metrics_addr: SocketAddr::from(([0, 0, 0, 0], 8080)),
            workers: 2,
        }
    }
}

impl Options {
    /// Options for an operator confined to one namespace (its Lease lives
    /// there too), serving metrics on a free loopback port.
    pub fn for_namespace(namespace: &str) -> Self {
        Options {
            namespace: Some(namespace.into()),
            lease_namespace: namespace.into(),
            metrics_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            ..Options::default()
        }
    }
}

/// A started operator.
pub struct RunningOperator {
    stop: CancellationToken,
    task: JoinHandle<Result<()>>,
    metrics_addr: SocketAddr,
    writes: Counter,
}

impl RunningOperator {
    /// Where /healthz, /readyz and /metrics are served.
    pub fn metrics_addr(&self) -> SocketAddr {
        self.metrics_addr
    }

    /// Write requests (create, update, patch) made by reconciles so far.
    pub fn writes(&self) -> u64 {
        self.writes.get()
    }

    /// Stops taking new work, lets in-flight reconciles finish, releases
    /// the Lease and stops the informers and the server.
    pub async fn shutdown(self) -> Result<()> {
        self.stop.cancel();
        self.wait().await
    }

    /// Waits until the operator stops (after `shutdown_signal` or an error).
    pub async fn wait(self) -> Result<()> {
        self.task.await.context("the operator task panicked")?
    }

    /// A token that stops the operator when cancelled.
    pub fn stop_token(&self) -> CancellationToken {
        self.stop.clone()
    }
}

/// Starts the operator with `client`'s identity.
pub async fn start(client: kube::Client, options: Options) -> Result<RunningOperator> {
    let identity = options.identity.clone().unwrap_or_else(default_identity);
    let mut registry = Registry::default();
    let controller_metrics = ControllerMetrics::register(&mut registry);
    let election_metrics = LeaderElectionMetrics::register(&mut registry);
    let writes = Counter::default();
    registry.register(
        "my_application_writes",
        "Write requests made by reconciles",
        writes.clone(),
    );
    let registry = SharedRegistry::new(registry);

    let mut factory = kubegen::factory::SharedInformerFactory::builder(client.clone());
    if let Some(namespace) = &options.namespace {
        factory = factory.namespace(namespace.clone());
    }
    let factory = SharedInformerFactory::from_factory(factory.build());
    let apps = factory.stable().v1().my_applications();
    let deployments = factory.apps().v1().deployments();
    let services = factory.core().v1().services();
    let ctx = Arc::new(Context {
        clientset: Clientset::new(client.clone()).with_field_manager(FIELD_MANAGER),
        deployments: deployments.lister(),
        services: services.lister(),
        recorder: EventRecorder::new(
            client.clone(),
            "stable.example.com/my-application-controller",
            identity.clone(),
        ),
        writes: writes.clone(),
    });
    factory.start();

    let build_controller = {
        let (apps, deployments, services) = (apps.clone(), deployments.clone(), services.clone());
        let (ctx, metrics, workers) = (ctx.clone(), controller_metrics.clone(), options.workers);
        move || -> Controller<MyApplication> {
            Controller::builder(apps.informer().clone())
                .name("myapplication")
                .owns(deployments.informer().clone())
                .owns(services.informer().clone())
                .workers(workers)
                .metrics(&metrics)
                .reconcile(
                    |app: Arc<MyApplication>, ctx: Arc<Context>| async move {
                        match reconcile(&app, &ctx).await? {
                            Next::Done => Ok::<_, crate::controller::Error>(Action::done()),
                            Next::RequeueAfter(delay) => Ok(Action::requeue_after(delay)),
                        }
                    },
                    ctx.clone(),
                )
        }
    };

    let stop = CancellationToken::new();
    let synced = ReadyFlag::default();
    let mut server = OperatorServer::builder()
        .registry(registry.clone())
        .readiness_flag("informers", &synced);
    let elector = if options.leader_election {
        let elector = LeaderElector::builder(
            client.clone(),
            options.lease_namespace.clone(),
            options.lease_name.clone(),
        )
        .identity(identity.clone())
        .lease_duration(options.lease_duration)
        .renew_deadline(options.lease_duration * 2 / 3)
        .retry_period(options.lease_duration * 2 / 15)
        .metrics(election_metrics)
        .on_started_leading({
            let build_controller = build_controller.clone();
            move |leadership| {
                let controller = build_controller();
                async move {
                    tracing::info!(
                        identity = leadership.identity(),
                        "leading: starting the controller"
                    );
                    if let Err(error) = controller.run(async move { leadership.lost().await }).await
                    {
                        tracing::error!(%error, "the controller stopped");
                    }
                }
            }
        })
        .build()?;
        server = server.leader_state(elector.state());
        Some(elector)
    } else {
        None
    };
    let server = server.bind(options.metrics_addr).await?;
    let metrics_addr = server.local_addr()?;

    let task = tokio::spawn({
        let stop = stop.clone();
        async move {
            let server_stop = stop.clone();
            let server =
                tokio::spawn(async move { server.serve(server_stop.cancelled_owned()).await });
            let results = factory.wait_for_cache_sync().await;
            synced.set(results.values().all(|ok| *ok));
            match elector {
                Some(elector) => elector.run(stop.clone().cancelled_owned()).await,
                None => {
                    build_controller()
                        .run(stop.clone().cancelled_owned())
                        .await?
                }
            }
            stop.cancel();
            factory.shutdown().await;
            server.await.context("the server task panicked")??;
            Ok(())
        }
    });
    Ok(RunningOperator {
        stop,
        task,
        metrics_addr,
        writes,
    })
}
