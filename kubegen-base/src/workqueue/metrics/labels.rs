//! [`QueueLabels`]: the label set of every work queue series, and
//! [`DepthLabels`], `workqueue_depth`'s.

use prometheus_client::encoding::EncodeLabelSet;

/// The label set of every series, as controller-runtime's work queue
/// metrics provider labels it: the queue's name, and the controller it
/// belongs to, which is the same name.
#[derive(Debug, Clone, Hash, PartialEq, Eq, PartialOrd, Ord, EncodeLabelSet)]
pub(super) struct QueueLabels {
    pub(super) name: String,
    pub(super) controller: String,
}

/// `workqueue_depth`'s label set: a queue's, and the priority
/// controller-runtime's priority queues report depth by (empty: one
/// queue, no priorities).
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(super) struct DepthLabels {
    pub(super) name: String,
    pub(super) controller: String,
    pub(super) priority: String,
}

impl QueueLabels {
    /// The labels of the queue called `name`.
    pub(super) fn of(name: &str) -> QueueLabels {
        QueueLabels {
            name: name.to_owned(),
            controller: name.to_owned(),
        }
    }

    /// Its `workqueue_depth` labels.
    pub(super) fn depth(&self) -> DepthLabels {
        DepthLabels {
            name: self.name.clone(),
            controller: self.controller.clone(),
            priority: String::new(),
        }
    }
}
