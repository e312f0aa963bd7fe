//! [`QueueLabels`]: the label set of every work queue series.

use prometheus_client::encoding::EncodeLabelSet;

/// The label set of every series: the queue's name, as client-go labels it.
#[derive(Debug, Clone, Hash, PartialEq, Eq, PartialOrd, Ord, EncodeLabelSet)]
pub(super) struct QueueLabels {
    pub(super) name: String,
}
