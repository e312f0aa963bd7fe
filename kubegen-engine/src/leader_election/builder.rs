//! [`LeaderElectorBuilder`]: a [`LeaderElectionConfig`], metrics and the
//! callbacks, checked and turned into a [`LeaderElector`].

use std::fmt;
use std::future::Future;
use std::time::Duration;

use kubegen_client::Client;

use super::config::{ConfigError, LeaderElectionConfig};
use super::elector::{Callbacks, LeaderElector};
use super::identity::default_identity;
use super::lock::{ApiLock, LeaseLock};
use super::metrics::LeaderElectionMetrics;
use super::state::Leadership;

/// Builds a [`LeaderElector`]; see [`LeaderElector::builder`].
pub struct LeaderElectorBuilder {
    lock: Box<dyn LeaseLock>,
    config: LeaderElectionConfig,
    metrics: Option<LeaderElectionMetrics>,
    callbacks: Callbacks,
}

impl fmt::Debug for LeaderElectorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LeaderElectorBuilder")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl LeaderElector {
    /// Starts building an elector for the Lease `namespace/lease_name`,
    /// with client-go's defaults.
    pub fn builder(
        client: Client,
        namespace: impl Into<String>,
        lease_name: impl Into<String>,
    ) -> LeaderElectorBuilder {
        LeaderElectorBuilder::from_config(client, LeaderElectionConfig::new(namespace, lease_name))
    }
}

impl LeaderElectorBuilder {
    /// Starts building an elector configured by `config`.
    pub fn from_config(client: Client, config: LeaderElectionConfig) -> Self {
        let lock = ApiLock::new(client, &config.namespace, &config.lease_name);
        Self::with_lock(lock, config)
    }

    /// Starts building an elector configured by `config` that reaches its
    /// Lease through `lock` (a fake one in unit tests).
    pub(super) fn with_lock(lock: impl LeaseLock + 'static, config: LeaderElectionConfig) -> Self {
        LeaderElectorBuilder {
            lock: Box::new(lock),
            config,
            metrics: None,
            callbacks: Callbacks::default(),
        }
    }

    /// This candidate's identity (default: `$POD_NAME` or the host name,
    /// plus `_` and a random suffix). Identities must be unique among the
    /// candidates.
    pub fn identity(mut self, identity: impl Into<String>) -> Self {
        self.config.identity = Some(identity.into());
        self
    }

    /// How long a standby waits after the record last changed before taking
    /// the Lease over (default 15 s; stored in whole seconds, rounded up).
    pub fn lease_duration(mut self, duration: Duration) -> Self {
        self.config.lease_duration = duration;
        self
    }

    /// How long a leader keeps leading without a successful renewal
    /// (default 10 s). Must be shorter than the lease duration.
    pub fn renew_deadline(mut self, deadline: Duration) -> Self {
        self.config.renew_deadline = deadline;
        self
    }

    /// How often to try to acquire or renew (default 2 s). The renew
    /// deadline must exceed 1.2 retry periods.
    pub fn retry_period(mut self, period: Duration) -> Self {
        self.config.retry_period = period;
        self
    }

    /// Whether to release the Lease at shutdown (default true), so that a
    /// standby takes over at once instead of after the lease duration.
    pub fn release_on_cancel(mut self, release: bool) -> Self {
        self.config.release_on_cancel = release;
        self
    }

    /// Reports leadership in `leader_election_master_status{name}`.
    pub fn metrics(mut self, metrics: LeaderElectionMetrics) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Runs `work` at the start of each term of leadership, inside the
    /// elector's task. The term's [`Leadership`] tells the work when the
    /// term ends; the elector waits for the work to return then, before it
    /// campaigns again or releases the Lease.
    ///
    /// As with client-go's `OnStartedLeading`, the work returning does not
    /// end the term: the elector goes on renewing the Lease, leading with
    /// nothing to do, until shutdown or lost leadership. Work that cannot
    /// go on (a fatal error) should stop the process — resolve the
    /// shutdown future given to [`LeaderElector::run`] — so that a standby
    /// takes over.
    pub fn on_started_leading<F, Fut>(mut self, work: F) -> Self
    where
        F: FnMut(Leadership) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.callbacks.on_started(work);
        self
    }

    /// Called after each term of leadership ends (once it stepped down; at
    /// shutdown after the release).
    ///
    /// Unlike client-go's `OnStoppedLeading`, it is not called when the
    /// elector stops without having led.
    pub fn on_stopped_leading(mut self, callback: impl Fn() + Send + Sync + 'static) -> Self {
        self.callbacks.on_stopped(callback);
        self
    }

    /// Called with the holder's identity whenever this candidate sees the
    /// Lease change hands (itself included).
    pub fn on_new_leader(mut self, callback: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.callbacks.on_new_leader(callback);
        self
    }

    /// Checks the configuration (client-go's rules) and builds the elector.
    pub fn build(self) -> Result<LeaderElector, ConfigError> {
        self.config.validate()?;
        let identity = self
            .config
            .identity
            .clone()
            .unwrap_or_else(default_identity);
        Ok(LeaderElector::new(
            self.lock,
            self.config,
            identity,
            self.metrics,
            self.callbacks,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leader_election::LeaderState;

    fn client() -> Client {
        // A client that is never used: building one needs no server.
        let config = kubegen_client::Config::new("http://127.0.0.1:9".parse().unwrap());
        Client::try_from(config).unwrap()
    }

    #[tokio::test]
    async fn defaults_are_client_go_s_and_bad_ratios_are_refused() {
        let elector = LeaderElector::builder(client(), "ns", "lock")
            .build()
            .unwrap();
        assert_eq!(elector.lease_duration, Duration::from_secs(15));
        assert_eq!(elector.renew_deadline, Duration::from_secs(10));
        assert_eq!(elector.retry_period, Duration::from_secs(2));
        assert!(elector.release_on_cancel);
        assert_eq!(
            *elector.state().borrow(),
            LeaderState::Standby { leader: None }
        );

        let too_long = LeaderElector::builder(client(), "ns", "lock")
            .renew_deadline(Duration::from_secs(15))
            .build();
        assert!(too_long.is_err());
        let too_fast = LeaderElector::builder(client(), "ns", "lock")
            .retry_period(Duration::from_secs(9))
            .build();
        assert!(too_fast.is_err());
        let empty = LeaderElector::builder(client(), "ns", "lock")
            .identity("")
            .build();
        assert!(empty.is_err());
        let scaled = LeaderElector::builder(client(), "ns", "lock")
            .identity("me")
            .lease_duration(Duration::from_millis(3000))
            .renew_deadline(Duration::from_millis(2000))
            .retry_period(Duration::from_millis(400))
            .build()
            .unwrap();
        assert_eq!(scaled.identity(), "me");
    }
}
