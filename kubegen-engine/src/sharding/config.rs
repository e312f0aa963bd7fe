//! [`ShardingConfig`]: the shard set a replica joins — its Leases'
//! namespace and name, the partition count, the timings — and
//! [`ServerSideFiltering`], whether informers ask the apiserver to filter.

use std::time::Duration;

use crate::lease::{DEFAULT_LEASE_DURATION, DEFAULT_RENEW_DEADLINE, DEFAULT_RETRY_PERIOD};

use super::partition::{MAX_PARTITIONS, Partitions};

/// The partition count of [`ShardingConfig::new`].
pub const DEFAULT_PARTITIONS: u32 = 16;

/// How long a replica giving a partition away waits for its in-flight
/// reconciles before abandoning them, by default.
pub const DEFAULT_HANDOVER_TIMEOUT: Duration = Duration::from_secs(5);

/// Whether sharded informers send the apiserver a `shardSelector`
/// (Kubernetes 1.36+, alpha feature gate `ShardedListAndWatch`, KEP-5866).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServerSideFiltering {
    /// Probe each sharded resource once when its informer starts (a list
    /// of one object with a whole-range selector, which the apiserver
    /// echoes in `metadata.shardInfo` when it filtered a built-in kind;
    /// else — 1.36 filters custom resources' lists without echoing — a
    /// list with a selector of one hash, which an apiserver that filters
    /// answers without the object the first list returned; for an empty
    /// collection, a selector of an empty range, which only an apiserver
    /// that parses selectors refuses); filter on the server when it does,
    /// else on the client, and log which.
    #[default]
    Auto,
    /// Always filter on the server; an apiserver that does not filter is an
    /// error of the informer (retried with backoff), never a silent
    /// fallback.
    Required,
    /// Always filter on the client: every replica receives every event of
    /// the sharded kinds and drops those of partitions it does not hold.
    Off,
}

/// The shard set a replica joins (see [`crate::sharding`]): the Leases
/// `namespace/name-NN` (one per partition) and `namespace/name-member-…`
/// (one per replica), the partition count — the same on every replica —
/// and the timings, whose defaults and rules are leader election's
/// (client-go's).
///
/// ```
/// use kubegen::sharding::ShardingConfig;
///
/// let config = ShardingConfig {
///     partitions: 32,
///     ..ShardingConfig::new("operators", "my-operator")
/// };
/// assert_eq!(config.retry_period, std::time::Duration::from_secs(2));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardingConfig {
    /// The namespace of the Leases.
    pub namespace: String,
    /// The shard set's name: the prefix of its Leases' names and the value
    /// of their `kubegen.io/shard-set` label (a DNS label of at most 40
    /// characters).
    pub name: String,
    /// This replica's identity (`None`: `$POD_NAME` or the host name, plus
    /// `_` and a random suffix); unique among the replicas.
    pub identity: Option<String>,
    /// How many partitions the key space is split into, `1..=256`; more
    /// partitions balance more evenly and cost one Lease renewal each per
    /// retry period across the set.
    pub partitions: u32,
    /// How long a replica waits after a partition's Lease last changed
    /// before taking it over, and after a member's Lease last changed
    /// before counting it gone.
    pub lease_duration: Duration,
    /// How long a replica acts on a partition without a successful renewal
    /// of its Lease. Must be shorter than the lease duration.
    pub renew_deadline: Duration,
    /// How often Leases are read, acquired and renewed.
    pub retry_period: Duration,
    /// How long a replica giving a partition away lets in-flight reconciles
    /// of it finish before abandoning them and releasing the Lease.
    pub handover_timeout: Duration,
    /// Whether informers filter on the apiserver.
    pub server_side: ServerSideFiltering,
}

impl ShardingConfig {
    /// The shard set `namespace/name` with [`DEFAULT_PARTITIONS`]
    /// partitions, leader election's default timings (15 s, 10 s, 2 s),
    /// [`DEFAULT_HANDOVER_TIMEOUT`], the default identity and
    /// [`ServerSideFiltering::Auto`].
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        ShardingConfig {
            namespace: namespace.into(),
            name: name.into(),
            identity: None,
            partitions: DEFAULT_PARTITIONS,
            lease_duration: DEFAULT_LEASE_DURATION,
            renew_deadline: DEFAULT_RENEW_DEADLINE,
            retry_period: DEFAULT_RETRY_PERIOD,
            handover_timeout: DEFAULT_HANDOVER_TIMEOUT,
            server_side: ServerSideFiltering::Auto,
        }
    }

    /// The partitions, checked with the rest: a DNS-label name of at most
    /// 40 characters, `1..=256` partitions, leader election's timing rules,
    /// a handover timeout below the renew deadline, no empty identity.
    pub(crate) fn validate(&self) -> Result<Partitions, ShardingConfigError> {
        let fail = |why: String| Err(ShardingConfigError(why));
        let label = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
        if self.name.is_empty()
            || self.name.len() > 40
            || !self.name.chars().all(label)
            || self.name.starts_with('-')
            || self.name.ends_with('-')
        {
            return fail(format!(
                "the shard set name {:?} must be a DNS label (a-z, 0-9, '-') of 1 to 40 characters",
                self.name
            ));
        }
        let Some(partitions) = Partitions::new(self.partitions) else {
            return fail(format!(
                "{} partitions: the count must be 1 to {MAX_PARTITIONS}",
                self.partitions
            ));
        };
        if self.retry_period.is_zero() {
            return fail("the retry period must be positive".into());
        }
        if self.lease_duration <= self.renew_deadline {
            return fail(format!(
                "the lease duration ({:?}) must exceed the renew deadline ({:?})",
                self.lease_duration, self.renew_deadline
            ));
        }
        if self.renew_deadline.as_secs_f64() <= 1.2 * self.retry_period.as_secs_f64() {
            return fail(format!(
                "the renew deadline ({:?}) must exceed 1.2 retry periods ({:?})",
                self.renew_deadline, self.retry_period
            ));
        }
        if self.handover_timeout >= self.renew_deadline {
            return fail(format!(
                "the handover timeout ({:?}) must be shorter than the renew deadline ({:?})",
                self.handover_timeout, self.renew_deadline
            ));
        }
        if self.identity.as_deref() == Some("") {
            return fail("the identity is empty".into());
        }
        Ok(partitions)
    }
}

/// A sharding configuration that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid sharding configuration: {0}")]
pub struct ShardingConfigError(String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid_and_each_rule_refuses() {
        let ok = ShardingConfig::new("ns", "op");
        assert_eq!(ok.validate().unwrap().count(), DEFAULT_PARTITIONS);
        let refused = |config: ShardingConfig, needle: &str| {
            let error = config.validate().unwrap_err().to_string();
            assert!(error.contains(needle), "{error}");
        };
        refused(
            ShardingConfig {
                name: "Op_1".into(),
                ..ok.clone()
            },
            "DNS label",
        );
        refused(
            ShardingConfig {
                partitions: 0,
                ..ok.clone()
            },
            "1 to 256",
        );
        refused(
            ShardingConfig {
                partitions: 257,
                ..ok.clone()
            },
            "1 to 256",
        );
        refused(
            ShardingConfig {
                renew_deadline: ok.lease_duration,
                ..ok.clone()
            },
            "must exceed the renew deadline",
        );
        refused(
            ShardingConfig {
                handover_timeout: ok.renew_deadline,
                ..ok.clone()
            },
            "handover timeout",
        );
        refused(
            ShardingConfig {
                identity: Some(String::new()),
                ..ok
            },
            "identity",
        );
    }
}
