//! The leader election gauge, under client-go's name
//! `leader_election_master_status{name}`.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

/// Labels of the gauge: the Lease's name, as client-go labels it.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LeaseLabels {
    name: String,
}

/// Leader election metrics, registered once and shared by any number of
/// electors (each labelled with its Lease's name).
///
/// | name | type | meaning |
/// |---|---|---|
/// | `leader_election_master_status{name}` | gauge | 1 while this process leads the Lease `name`, else 0 |
#[derive(Debug, Clone, Default)]
pub struct LeaderElectionMetrics {
    status: Family<LeaseLabels, Gauge>,
}

impl LeaderElectionMetrics {
    /// Creates the metrics and registers them into `registry`.
    pub fn register(registry: &mut Registry) -> Self {
        let metrics = Self::default();
        registry.register(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
            metrics.status.clone(),
        );
        metrics
    }

    /// Sets the gauge of the Lease `name`.
    pub(crate) fn set_leading(&self, name: &str, leading: bool) {
        self.status
            .get_or_create(&LeaseLabels {
                name: name.to_string(),
            })
            .set(i64::from(leading));
    }
}
