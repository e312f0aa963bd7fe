//! [`ManagerBuilder`]: leader election, the probe and metrics servers, the
//! drain timeout and the informer factory's options, turned into a
//! [`Manager`].

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use futures::future::BoxFuture;
use kubegen_client::Client;

use super::error::ManagerError;
use super::runner::{CACHES_SYNCED, Manager};
use super::term::{TermSlot, leader_work};
use crate::client::RestClientMetrics;
use crate::controller::ControllerMetrics;
use crate::factory::{FactoryBuilder, SharedInformerFactory};
use crate::informer::InformerMetrics;
use crate::leader_election::{
    LeaderElectionConfig, LeaderElectionMetrics, LeaderElectorBuilder, default_identity,
};
use crate::server::{
    Budget, DelegatedAuth, Limits, MetricsServer, ProbeServer, ReadyFlag, ServingCert,
    SharedRegistry, WebhookPanics, WebhookServerBuilder,
};
use crate::sharding::{Coordinator, ShardingConfig, Shards};

/// How long runnables get to return at shutdown by default
/// (controller-runtime's `GracefulShutdownTimeout`).
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

type ConfigureFactory = Box<dyn FnOnce(FactoryBuilder) -> FactoryBuilder + Send>;

/// Configures a [`Manager`]; see [`Manager::builder`].
pub struct ManagerBuilder {
    client: Client,
    leader_election: Option<LeaderElectionConfig>,
    health_probe_addr: Option<SocketAddr>,
    metrics_addr: Option<SocketAddr>,
    /// `None`: plain HTTP without authentication.
    metrics_cert: Option<ServingCert>,
    drain_timeout: Duration,
    warm_standby: bool,
    configure_factory: Option<ConfigureFactory>,
    webhooks: Option<(SocketAddr, WebhookServerBuilder)>,
    limits: Limits,
    /// The apiserver host the client's requests are counted under.
    rest_client_host: Option<String>,
    sharding: Option<ShardingConfig>,
}

impl fmt::Debug for ManagerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManagerBuilder")
            .field("leader_election", &self.leader_election)
            .field("health_probe_addr", &self.health_probe_addr)
            .field("metrics_addr", &self.metrics_addr)
            .field("metrics_cert", &self.metrics_cert)
            .field("drain_timeout", &self.drain_timeout)
            .field("warm_standby", &self.warm_standby)
            .field("webhooks", &self.webhooks)
            .field("limits", &self.limits)
            .field("sharding", &self.sharding)
            .finish_non_exhaustive()
    }
}

impl Manager {
    /// Starts configuring a manager working through `client`: no leader
    /// election, no servers, a [`DEFAULT_DRAIN_TIMEOUT`], an informer
    /// factory over all namespaces.
    pub fn builder(client: Client) -> ManagerBuilder {
        ManagerBuilder {
            client,
            leader_election: None,
            health_probe_addr: None,
            metrics_addr: None,
            metrics_cert: Some(ServingCert::self_signed(["localhost"])),
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            warm_standby: true,
            configure_factory: None,
            webhooks: None,
            limits: Limits::default(),
            rest_client_host: None,
            sharding: None,
        }
    }
}

impl ManagerBuilder {
    /// Counts every request of the manager's client (the one
    /// [`Manager::client`] returns, which its informers, elector and
    /// servers use) in `rest_client_requests_total{code,method,host}`, as
    /// controller-runtime does by default, labelled with `host`: the
    /// apiserver's `host:port` as its URL names it
    /// (`config.cluster_url.authority()`), which a `kubegen::Client` does not
    /// tell. Requests made through another clone of the client given to
    /// [`Manager::builder`] are not counted.
    #[must_use]
    pub fn rest_client_metrics(mut self, host: impl Into<String>) -> Self {
        self.rest_client_host = Some(host.into());
        self
    }

    /// Runs the leader-only runnables only while this replica holds the
    /// Lease `config` names; its state is the `leader-election` readiness
    /// check and the `leader_election_master_status` gauge.
    #[must_use]
    pub fn leader_election(mut self, config: LeaderElectionConfig) -> Self {
        self.leader_election = Some(config);
        self
    }

    /// Joins the shard set `config` names (see [`crate::sharding`]): this
    /// replica keeps a member Lease alive, holds the partitions the
    /// balanced assignment gives it through their Leases, and
    /// [`Manager::shards`] tells its sharded controllers
    /// ([`ControllerBuilder::shards`](crate::controller::ControllerBuilder::shards))
    /// which. Sharded controllers run on every replica. With leader
    /// election as well, the runnables that need it still run on the
    /// leader only; without it, [`Manager::run`] refuses runnables that
    /// need leader election.
    #[must_use]
    pub fn sharding(mut self, config: ShardingConfig) -> Self {
        self.sharding = Some(config);
        self
    }

    /// Serves `/healthz`, `/livez` and `/readyz` over plain HTTP on `addr`
    /// (port 0 picks a free one; see [`Manager::health_probe_addr`]); the
    /// kubelet's probes carry no credentials. kubebuilder's port is 8081.
    #[must_use]
    pub fn health_probe_addr(mut self, addr: SocketAddr) -> Self {
        self.health_probe_addr = Some(addr);
        self
    }

    /// Serves `/metrics` on `addr` (port 0 picks a free one; see
    /// [`Manager::metrics_addr`]) over HTTPS, to callers the apiserver
    /// authenticates and authorizes for `get` on `/metrics`
    /// ([`DelegatedAuth`], through the manager's client, which then needs
    /// the `system:auth-delegator` ClusterRole). The certificate is
    /// self-signed for `localhost` unless [`metrics_cert`](Self::metrics_cert)
    /// names one. kubebuilder's port is 8443.
    #[must_use]
    pub fn metrics_addr(mut self, addr: SocketAddr) -> Self {
        self.metrics_addr = Some(addr);
        self
    }

    /// The metrics server's certificate, e.g.
    /// `ServingCert::from_dir("/tmp/k8s-metrics-server/metrics-certs")` for a
    /// cert-manager Secret mounted there; it is reloaded when it changes.
    #[must_use]
    pub fn metrics_cert(mut self, cert: ServingCert) -> Self {
        self.metrics_cert = Some(cert);
        self
    }

    /// Serves `/metrics` over plain HTTP to anyone who can connect — for
    /// local development only; undoes [`metrics_cert`](Self::metrics_cert).
    #[must_use]
    pub fn insecure_metrics(mut self) -> Self {
        self.metrics_cert = None;
        self
    }

    /// Serves the webhooks of `server` (conversion, admission) on `addr`
    /// (port 0 picks a free one; see [`Manager::webhook_addr`]), with
    /// request metrics in the manager's registry. Every replica serves
    /// them from the start, leader or not and before caches sync — the
    /// apiserver needs conversions to serve the informers' own lists.
    /// kubebuilder's port is 9443.
    #[must_use]
    pub fn webhook_server(mut self, addr: SocketAddr, server: WebhookServerBuilder) -> Self {
        self.webhooks = Some((addr, server));
        self
    }

    /// What one caller may cost the webhook and metrics servers, which
    /// share one [`Budget`](crate::server::Budget) of requests and bytes in
    /// flight (default [`Limits::default`]: 7 MiB admission bodies, 3 MiB
    /// objects in conversions, 64 requests and 48 MiB in flight).
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// How long runnables get to return once shutdown begins (default
    /// [`DEFAULT_DRAIN_TIMEOUT`]); those still running then are aborted.
    /// Keep it, plus the Lease release, below the pod's termination grace
    /// period.
    #[must_use]
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
        self
    }

    /// Whether a standby replica starts its informers and syncs their
    /// caches before it leads (default `true`: a *warm standby*, like
    /// controller-runtime's `EnableWarmup`; a new leader reconciles as soon
    /// as it holds the Lease). With `false` (a *cold standby*) the
    /// informers start only once this replica leads, so a standby holds no
    /// caches and costs the apiserver no watches — at the price of a full
    /// list before the new leader acts; `/readyz` then reports
    /// `caches-synced` as passing while standing by and as the real state
    /// once leading. Runnables that do not need leader election start at
    /// once in that mode. Without leader election this has no effect.
    #[must_use]
    pub fn warm_standby(mut self, warm: bool) -> Self {
        self.warm_standby = warm;
        self
    }

    /// Adjusts the shared informer factory's options (namespace,
    /// selectors, resync, transforms); its metrics are the manager's.
    #[must_use]
    pub fn informer_factory(
        mut self,
        configure: impl FnOnce(FactoryBuilder) -> FactoryBuilder + Send + 'static,
    ) -> Self {
        self.configure_factory = Some(Box::new(configure));
        self
    }

    /// Registers the metrics, builds the informer factory and the elector,
    /// and binds the servers' sockets (loading the metrics certificate).
    ///
    /// The future is boxed so that its body is compiled once, in kubegen,
    /// not in every crate that awaits it (see [`Manager::run_until`]).
    pub fn build(self) -> BoxFuture<'static, Result<Manager, ManagerError>> {
        Box::pin(self.build_inner())
    }

    async fn build_inner(self) -> Result<Manager, ManagerError> {
        let registry = SharedRegistry::default();
        let controller_metrics = registry.register(ControllerMetrics::register);
        // Registered whether or not webhooks are served, as
        // controller-runtime registers them.
        let webhook_panics = registry.register(WebhookPanics::register);
        let client = match &self.rest_client_host {
            Some(host) => registry
                .register(RestClientMetrics::register)
                .instrument(self.client, host.clone()),
            None => self.client,
        };
        let mut factory = SharedInformerFactory::builder(client.clone())
            .metrics(registry.register(InformerMetrics::register));
        if let Some(configure) = self.configure_factory {
            factory = configure(factory);
        }
        let elector = match self.leader_election {
            Some(config) => {
                let slot = TermSlot::default();
                let elector = LeaderElectorBuilder::from_config(client.clone(), config)
                    .metrics(registry.register(LeaderElectionMetrics::register))
                    .on_started_leading(leader_work(slot.clone()))
                    .on_new_leader(|leader| tracing::info!(leader, "new leader"))
                    .build()?;
                Some((elector, slot))
            }
            None => None,
        };
        let sharding = match self.sharding {
            Some(config) => {
                let partitions = config.validate()?;
                let identity = config.identity.clone().unwrap_or_else(default_identity);
                let shards = Shards::new(partitions, identity, config.server_side);
                let coordinator = Coordinator::new(client.clone(), config, shards.clone());
                Some((shards, coordinator))
            }
            None => None,
        };
        let caches_synced = ReadyFlag::default();
        let probes = match self.health_probe_addr {
            Some(addr) => {
                let mut probes = ProbeServer::builder();
                probes = match &elector {
                    Some((elector, _)) if !self.warm_standby => {
                        // A cold standby has no caches, and needs none.
                        let state = elector.state();
                        let synced = caches_synced.clone();
                        probes.readiness_check(CACHES_SYNCED, move || {
                            synced.get() || !state.borrow().is_leader()
                        })
                    }
                    _ => probes.readiness_flag(CACHES_SYNCED, &caches_synced),
                };
                if let Some((elector, _)) = &elector {
                    probes = probes.leader_state(elector.state());
                }
                let probes = probes
                    .bind(addr)
                    .await
                    .map_err(|source| ManagerError::Bind { addr, source })?;
                let bound = probes.local_addr().map_err(ManagerError::Server)?;
                Some((probes, bound))
            }
            None => None,
        };
        let budget = Budget::new(self.limits);
        let metrics = match self.metrics_addr {
            Some(addr) => {
                let metrics = match self.metrics_cert {
                    Some(cert) => MetricsServer::secure(
                        registry.clone(),
                        cert,
                        DelegatedAuth::new(client.clone()),
                    ),
                    None => MetricsServer::insecure(registry.clone()),
                }
                .budget(budget.clone())
                .bind(addr)
                .await
                .map_err(|source| ManagerError::Bind { addr, source })?;
                let bound = metrics.local_addr().map_err(ManagerError::Server)?;
                Some((metrics, bound))
            }
            None => None,
        };
        let webhooks = match self.webhooks {
            Some((addr, server)) => {
                let server = server
                    .metrics(registry.clone())
                    .panics(webhook_panics.clone())
                    .budget(budget.clone())
                    .bind(addr)
                    .await
                    .map_err(|source| ManagerError::Bind { addr, source })?;
                let bound = server.local_addr().map_err(ManagerError::Server)?;
                Some((server, bound))
            }
            None => None,
        };
        Ok(Manager {
            client,
            webhook_addr: webhooks.as_ref().map(|(_, addr)| *addr),
            webhooks: webhooks.map(|(server, _)| server),
            factory: factory.build(),
            registry,
            controller_metrics,
            health_probe_addr: probes.as_ref().map(|(_, addr)| *addr),
            metrics_addr: metrics.as_ref().map(|(_, addr)| *addr),
            probes: probes.map(|(probes, _)| probes),
            metrics: metrics.map(|(metrics, _)| metrics),
            caches_synced,
            elector,
            drain_timeout: self.drain_timeout,
            warm_standby: self.warm_standby,
            runnables: Vec::new(),
            sharding,
        })
    }
}
