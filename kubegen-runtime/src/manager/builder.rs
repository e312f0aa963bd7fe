//! [`ManagerBuilder`]: leader election, the server address, the drain
//! timeout and the informer factory's options, turned into a [`Manager`].

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use kube::Client;

use super::error::ManagerError;
use super::runner::{CACHES_SYNCED, Manager};
use super::term::{TermSlot, leader_work};
use crate::controller::ControllerMetrics;
use crate::factory::{FactoryBuilder, SharedInformerFactory};
use crate::informer::InformerMetrics;
use crate::leader_election::{LeaderElectionConfig, LeaderElectionMetrics, LeaderElectorBuilder};
use crate::server::{OperatorServer, ReadyFlag, SharedRegistry};

/// How long runnables get to return at shutdown by default
/// (controller-runtime's `GracefulShutdownTimeout`).
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

type ConfigureFactory = Box<dyn FnOnce(FactoryBuilder) -> FactoryBuilder + Send>;

/// Configures a [`Manager`]; see [`Manager::builder`].
pub struct ManagerBuilder {
    client: Client,
    leader_election: Option<LeaderElectionConfig>,
    server_addr: Option<SocketAddr>,
    drain_timeout: Duration,
    configure_factory: Option<ConfigureFactory>,
}

impl fmt::Debug for ManagerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManagerBuilder")
            .field("leader_election", &self.leader_election)
            .field("server_addr", &self.server_addr)
            .field("drain_timeout", &self.drain_timeout)
            .finish_non_exhaustive()
    }
}

impl Manager {
    /// Starts configuring a manager working through `client`: no leader
    /// election, no server, a [`DEFAULT_DRAIN_TIMEOUT`], an informer factory
    /// over all namespaces.
    pub fn builder(client: Client) -> ManagerBuilder {
        ManagerBuilder {
            client,
            leader_election: None,
            server_addr: None,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            configure_factory: None,
        }
    }
}

impl ManagerBuilder {
    /// Runs the leader-only runnables only while this replica holds the
    /// Lease `config` names; its state is the `leader-election` readiness
    /// check and the `leader_election_master_status` gauge.
    #[must_use]
    pub fn leader_election(mut self, config: LeaderElectionConfig) -> Self {
        self.leader_election = Some(config);
        self
    }

    /// Serves `/healthz`, `/readyz` and `/metrics` on `addr` (port 0 picks
    /// a free one; see [`Manager::server_addr`]).
    #[must_use]
    pub fn server_addr(mut self, addr: SocketAddr) -> Self {
        self.server_addr = Some(addr);
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
    /// and binds the server's socket.
    pub async fn build(self) -> Result<Manager, ManagerError> {
        let registry = SharedRegistry::default();
        let controller_metrics = registry.register(ControllerMetrics::register);
        let mut factory = SharedInformerFactory::builder(self.client.clone())
            .metrics(registry.register(InformerMetrics::register));
        if let Some(configure) = self.configure_factory {
            factory = configure(factory);
        }
        let elector = match self.leader_election {
            Some(config) => {
                let slot = TermSlot::default();
                let elector = LeaderElectorBuilder::from_config(self.client.clone(), config)
                    .metrics(registry.register(LeaderElectionMetrics::register))
                    .on_started_leading(leader_work(slot.clone()))
                    .on_new_leader(|leader| tracing::info!(leader, "new leader"))
                    .build()?;
                Some((elector, slot))
            }
            None => None,
        };
        let caches_synced = ReadyFlag::default();
        let server = match self.server_addr {
            Some(addr) => {
                let mut server = OperatorServer::builder()
                    .registry(registry.clone())
                    .readiness_flag(CACHES_SYNCED, &caches_synced);
                if let Some((elector, _)) = &elector {
                    server = server.leader_state(elector.state());
                }
                let server = server
                    .bind(addr)
                    .await
                    .map_err(|source| ManagerError::Bind { addr, source })?;
                Some(server)
            }
            None => None,
        };
        let server_addr = match &server {
            Some(server) => Some(server.local_addr().map_err(ManagerError::Server)?),
            None => None,
        };
        Ok(Manager {
            client: self.client,
            factory: factory.build(),
            registry,
            controller_metrics,
            server,
            server_addr,
            caches_synced,
            elector,
            drain_timeout: self.drain_timeout,
            runnables: Vec::new(),
        })
    }
}
