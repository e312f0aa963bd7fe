//! [`LeaderElectionConfig`]: the Lease a candidate campaigns for, its
//! identity and client-go's timings, checked by client-go's rules.

use std::time::Duration;

pub use crate::lease::{DEFAULT_LEASE_DURATION, DEFAULT_RENEW_DEADLINE, DEFAULT_RETRY_PERIOD};

/// client-go's jitter factor: the renew deadline must exceed this many
/// retry periods.
const JITTER_FACTOR: f64 = 1.2;

/// How a candidate takes part in leader election: the Lease
/// `namespace/lease_name`, its identity, and the timings (client-go's
/// defaults from [`LeaderElectionConfig::new`]).
///
/// Unlike client-go's `LeaderElectionConfig`, it holds neither the lock
/// object nor the callbacks: the Lease is named here and the client given
/// to [`LeaderElectorBuilder::from_config`](super::LeaderElectorBuilder::from_config),
/// and callbacks are set on that builder.
///
/// ```
/// use std::time::Duration;
/// use kubegen::leader_election::LeaderElectionConfig;
///
/// let config = LeaderElectionConfig {
///     lease_duration: Duration::from_secs(30),
///     renew_deadline: Duration::from_secs(20),
///     ..LeaderElectionConfig::new("operators", "my-operator-lock")
/// };
/// assert_eq!(config.retry_period, Duration::from_secs(2));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderElectionConfig {
    /// The namespace of the Lease.
    pub namespace: String,
    /// The name of the Lease.
    pub lease_name: String,
    /// This candidate's identity (`None`: `$POD_NAME` or the host name,
    /// plus `_` and a random suffix). Identities must be unique among the
    /// candidates.
    pub identity: Option<String>,
    /// How long a standby waits after the record last changed before taking
    /// the Lease over (stored in whole seconds, rounded up).
    pub lease_duration: Duration,
    /// How long a leader keeps leading without a successful renewal. Must
    /// be shorter than the lease duration.
    pub renew_deadline: Duration,
    /// How often to try to acquire or renew. The renew deadline must exceed
    /// 1.2 retry periods.
    pub retry_period: Duration,
    /// Whether to release the Lease at shutdown, so that a standby takes
    /// over at once instead of after the lease duration.
    pub release_on_cancel: bool,
}

impl LeaderElectionConfig {
    /// The Lease `namespace/lease_name` with client-go's defaults: lease
    /// duration 15 s, renew deadline 10 s, retry period 2 s, release on
    /// cancel, default identity.
    pub fn new(namespace: impl Into<String>, lease_name: impl Into<String>) -> Self {
        LeaderElectionConfig {
            namespace: namespace.into(),
            lease_name: lease_name.into(),
            identity: None,
            lease_duration: DEFAULT_LEASE_DURATION,
            renew_deadline: DEFAULT_RENEW_DEADLINE,
            retry_period: DEFAULT_RETRY_PERIOD,
            release_on_cancel: true,
        }
    }

    /// Checks client-go's rules: a named Lease, a positive retry period, a
    /// lease duration above the renew deadline, a renew deadline above 1.2
    /// retry periods, and no empty identity.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if self.lease_name.is_empty() {
            return Err(ConfigError("the lease name is empty".into()));
        }
        if self.retry_period.is_zero() {
            return Err(ConfigError("the retry period must be positive".into()));
        }
        if self.lease_duration <= self.renew_deadline {
            return Err(ConfigError(format!(
                "the lease duration ({:?}) must exceed the renew deadline ({:?})",
                self.lease_duration, self.renew_deadline
            )));
        }
        if self.renew_deadline.as_secs_f64() <= JITTER_FACTOR * self.retry_period.as_secs_f64() {
            return Err(ConfigError(format!(
                "the renew deadline ({:?}) must exceed {JITTER_FACTOR} retry periods ({:?})",
                self.renew_deadline, self.retry_period
            )));
        }
        if self.identity.as_deref() == Some("") {
            return Err(ConfigError("the identity is empty".into()));
        }
        Ok(())
    }
}

/// A leader election configuration that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid leader election configuration: {0}")]
pub struct ConfigError(String);
