//! [`Predicate`]: which updates of the primary resource are worth a reconcile.

use std::collections::BTreeMap;
use std::ops::BitOr;

use kubegen_client::Resource;
use kubegen_client::api::ObjectMeta;

/// A filter on the update events of the controller's primary resource,
/// comparing the old and the new object (controller-runtime's predicates).
///
/// Adds and deletes are never filtered. Combine predicates with
/// [`or`](Predicate::or) (or `|`): the update passes when any of them does.
///
/// ```
/// use kubegen::controller::Predicate;
/// let spec_or_labels = Predicate::GenerationChanged | Predicate::LabelsChanged;
/// assert_eq!(
///     spec_or_labels,
///     Predicate::Any(vec![Predicate::GenerationChanged, Predicate::LabelsChanged]),
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Predicate {
    /// `metadata.generation` changed: the spec changed (status and metadata
    /// updates leave it alone). Types without a generation (such as
    /// ConfigMaps) never pass.
    GenerationChanged,
    /// `metadata.labels` changed.
    LabelsChanged,
    /// `metadata.annotations` changed.
    AnnotationsChanged,
    /// `metadata.resourceVersion` changed: any real change passes, only the
    /// informer's periodic resyncs (old and new identical) are dropped.
    ResourceVersionChanged,
    /// Passes when any of the predicates passes (none: nothing passes).
    Any(Vec<Predicate>),
}

impl Predicate {
    /// A predicate passing when `self` or `other` passes.
    #[must_use]
    pub fn or(self, other: Predicate) -> Predicate {
        let mut all = match self {
            Predicate::Any(all) => all,
            one => vec![one],
        };
        match other {
            Predicate::Any(more) => all.extend(more),
            one => all.push(one),
        }
        Predicate::Any(all)
    }

    /// Whether the update from `old` to `new` passes.
    pub fn matches<K: Resource>(&self, old: &K, new: &K) -> bool {
        self.matches_meta(old.meta(), new.meta())
    }

    fn matches_meta(&self, old: &ObjectMeta, new: &ObjectMeta) -> bool {
        match self {
            Predicate::GenerationChanged => old.generation != new.generation,
            Predicate::LabelsChanged => non_empty(&old.labels) != non_empty(&new.labels),
            Predicate::AnnotationsChanged => {
                non_empty(&old.annotations) != non_empty(&new.annotations)
            }
            Predicate::ResourceVersionChanged => old.resource_version != new.resource_version,
            Predicate::Any(all) => all.iter().any(|p| p.matches_meta(old, new)),
        }
    }
}

impl BitOr for Predicate {
    type Output = Predicate;

    fn bitor(self, other: Predicate) -> Predicate {
        self.or(other)
    }
}

/// An absent map and an empty one are the same labels or annotations.
fn non_empty(map: &Option<BTreeMap<String, String>>) -> Option<&BTreeMap<String, String>> {
    map.as_ref().filter(|m| !m.is_empty())
}
