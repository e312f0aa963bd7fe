//! Status conditions with Kubernetes semantics (apimachinery's
//! `meta.SetStatusCondition`): one condition per type, whose
//! `lastTransitionTime` moves only when its status changes, while reason,
//! message and observed generation follow the latest report.
//!
//! The functions work with k8s-openapi's [`Condition`] and with any user
//! condition struct that implements [`StatusCondition`].
//!
//! ```
//! use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
//! use kubegen::conditions::{is_condition_true, new_condition, set_condition, ConditionStatus};
//!
//! let mut conditions: Vec<Condition> = Vec::new();
//! set_condition(
//!     &mut conditions,
//!     new_condition("Ready", ConditionStatus::True, "Synced", "all replicas are up", Some(3)),
//! );
//! assert!(is_condition_true(&conditions, "Ready"));
//! ```

use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;

/// The status of a condition: `True`, `False` or `Unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConditionStatus {
    /// The condition holds.
    True,
    /// The condition does not hold.
    False,
    /// It is not known whether the condition holds.
    Unknown,
}

impl ConditionStatus {
    /// The string Kubernetes uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ConditionStatus::True => "True",
            ConditionStatus::False => "False",
            ConditionStatus::Unknown => "Unknown",
        }
    }
}

impl From<bool> for ConditionStatus {
    fn from(holds: bool) -> Self {
        if holds {
            ConditionStatus::True
        } else {
            ConditionStatus::False
        }
    }
}

impl fmt::Display for ConditionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A status condition: k8s-openapi's [`Condition`], or a user struct with
/// the same fields. Implement it for your own condition type to use
/// [`set_condition`] and friends on it.
pub trait StatusCondition {
    /// The condition's type (`Ready`, `Progressing`, ...).
    fn condition_type(&self) -> &str;
    /// The status string (`True`, `False`, `Unknown`).
    fn status(&self) -> &str;
    /// The last time the status changed, if set.
    fn last_transition_time(&self) -> Option<Timestamp>;
    /// Sets the last time the status changed.
    fn set_last_transition_time(&mut self, time: Timestamp);
    /// Copies status, reason, message and observed generation from `other`
    /// (not the type, not the transition time).
    fn update_from(&mut self, other: &Self);
}

impl StatusCondition for Condition {
    fn condition_type(&self) -> &str {
        &self.type_
    }

    fn status(&self) -> &str {
        &self.status
    }

    fn last_transition_time(&self) -> Option<Timestamp> {
        // The zero value of a Go `metav1.Time` means "not set".
        Some(self.last_transition_time.0).filter(|t| *t != Timestamp::UNIX_EPOCH)
    }

    fn set_last_transition_time(&mut self, time: Timestamp) {
        self.last_transition_time = Time(time);
    }

    fn update_from(&mut self, other: &Self) {
        self.status.clone_from(&other.status);
        self.reason.clone_from(&other.reason);
        self.message.clone_from(&other.message);
        self.observed_generation = other.observed_generation;
    }
}

/// A [`Condition`] with no transition time yet ([`set_condition`] stamps it).
pub fn new_condition(
    condition_type: &str,
    status: ConditionStatus,
    reason: &str,
    message: &str,
    observed_generation: Option<i64>,
) -> Condition {
    Condition {
        type_: condition_type.to_string(),
        status: status.as_str().to_string(),
        reason: reason.to_string(),
        message: message.to_string(),
        observed_generation,
        last_transition_time: Time(Timestamp::UNIX_EPOCH),
    }
}

/// Sets `new` in `conditions`, at the current time; see
/// [`set_condition_at`]. Returns whether anything changed.
pub fn set_condition<C: StatusCondition + Clone + PartialEq>(
    conditions: &mut Vec<C>,
    new: C,
) -> bool {
    set_condition_at(conditions, new, Timestamp::now())
}

/// Sets `new` in `conditions`:
///
/// * absent type: `new` is added, its transition time set to `now` unless
///   it has one;
/// * status changed: the transition time becomes `new`'s, else `now`;
/// * status unchanged: the transition time is kept;
/// * in both cases status, reason, message and observed generation are
///   taken from `new`.
///
/// Returns whether anything changed.
pub fn set_condition_at<C: StatusCondition + Clone + PartialEq>(
    conditions: &mut Vec<C>,
    mut new: C,
    now: Timestamp,
) -> bool {
    let Some(existing) = conditions
        .iter_mut()
        .find(|c| c.condition_type() == new.condition_type())
    else {
        if new.last_transition_time().is_none() {
            new.set_last_transition_time(now);
        }
        conditions.push(new);
        return true;
    };
    let transition = if existing.status() != new.status() {
        new.last_transition_time().unwrap_or(now)
    } else {
        existing.last_transition_time().unwrap_or(now)
    };
    let previous = existing.clone();
    existing.update_from(&new);
    existing.set_last_transition_time(transition);
    *existing != previous
}

/// Removes the condition of `condition_type`; returns whether one was there.
pub fn remove_condition<C: StatusCondition>(conditions: &mut Vec<C>, condition_type: &str) -> bool {
    let before = conditions.len();
    conditions.retain(|c| c.condition_type() != condition_type);
    conditions.len() != before
}

/// The condition of `condition_type`, if present.
pub fn find_condition<'a, C: StatusCondition>(
    conditions: &'a [C],
    condition_type: &str,
) -> Option<&'a C> {
    conditions
        .iter()
        .find(|c| c.condition_type() == condition_type)
}

/// Whether the condition of `condition_type` is present with status `True`.
pub fn is_condition_true<C: StatusCondition>(conditions: &[C], condition_type: &str) -> bool {
    is_condition_status(conditions, condition_type, ConditionStatus::True)
}

/// Whether the condition of `condition_type` is present with status `False`.
pub fn is_condition_false<C: StatusCondition>(conditions: &[C], condition_type: &str) -> bool {
    is_condition_status(conditions, condition_type, ConditionStatus::False)
}

/// Whether the condition of `condition_type` is present with `status`.
pub fn is_condition_status<C: StatusCondition>(
    conditions: &[C],
    condition_type: &str,
    status: ConditionStatus,
) -> bool {
    find_condition(conditions, condition_type).is_some_and(|c| c.status() == status.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(seconds: u64) -> Timestamp {
        Timestamp::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + seconds)
    }

    #[test]
    fn new_conditions_are_stamped_now_unless_they_carry_a_time() {
        let mut conditions = Vec::new();
        assert!(set_condition_at(
            &mut conditions,
            new_condition("Ready", ConditionStatus::False, "Starting", "", Some(1)),
            at(0)
        ));
        assert_eq!(conditions[0].last_transition_time, Time(at(0)));
        let mut timed = new_condition("Synced", ConditionStatus::True, "Ok", "", None);
        timed.last_transition_time = Time(at(5));
        set_condition_at(&mut conditions, timed, at(9));
        assert_eq!(
            find_condition(&conditions, "Synced")
                .unwrap()
                .last_transition_time,
            Time(at(5))
        );
        assert_eq!(conditions.len(), 2);
    }

    #[test]
    fn transition_time_moves_only_when_the_status_changes() {
        let mut conditions = Vec::new();
        set_condition_at(
            &mut conditions,
            new_condition("Ready", ConditionStatus::False, "Starting", "wait", Some(1)),
            at(0),
        );
        // Same status, new reason, message and generation: time kept.
        assert!(set_condition_at(
            &mut conditions,
            new_condition("Ready", ConditionStatus::False, "Scaling", "2/3", Some(2)),
            at(10)
        ));
        let ready = find_condition(&conditions, "Ready").unwrap();
        assert_eq!(ready.last_transition_time, Time(at(0)));
        assert_eq!(ready.reason, "Scaling");
        assert_eq!(ready.message, "2/3");
        assert_eq!(ready.observed_generation, Some(2));
        // Identical report: nothing changes.
        assert!(!set_condition_at(
            &mut conditions,
            new_condition("Ready", ConditionStatus::False, "Scaling", "2/3", Some(2)),
            at(15)
        ));
        assert_eq!(conditions[0].last_transition_time, Time(at(0)));
        // Status flips: time moves.
        assert!(set_condition_at(
            &mut conditions,
            new_condition("Ready", ConditionStatus::True, "Up", "3/3", Some(2)),
            at(20)
        ));
        assert_eq!(conditions[0].last_transition_time, Time(at(20)));
        assert!(is_condition_true(&conditions, "Ready"));
        assert!(!is_condition_false(&conditions, "Ready"));
        assert!(!is_condition_true(&conditions, "Missing"));
        assert_eq!(conditions.len(), 1);
    }

    #[test]
    fn conditions_are_removed_by_type() {
        let mut conditions = vec![new_condition("A", ConditionStatus::Unknown, "R", "", None)];
        assert!(is_condition_status(
            &conditions,
            "A",
            ConditionStatus::Unknown
        ));
        assert!(!remove_condition(&mut conditions, "B"));
        assert!(remove_condition(&mut conditions, "A"));
        assert!(conditions.is_empty());
    }

    /// A user condition type with fewer fields.
    #[derive(Debug, Clone, PartialEq)]
    struct MyCondition {
        kind: String,
        status: String,
        since: Option<Timestamp>,
        note: String,
    }

    impl StatusCondition for MyCondition {
        fn condition_type(&self) -> &str {
            &self.kind
        }
        fn status(&self) -> &str {
            &self.status
        }
        fn last_transition_time(&self) -> Option<Timestamp> {
            self.since
        }
        fn set_last_transition_time(&mut self, time: Timestamp) {
            self.since = Some(time);
        }
        fn update_from(&mut self, other: &Self) {
            self.status.clone_from(&other.status);
            self.note.clone_from(&other.note);
        }
    }

    #[test]
    fn user_condition_types_get_the_same_semantics() {
        let my = |status: bool, note: &str| MyCondition {
            kind: "Healthy".into(),
            status: ConditionStatus::from(status).to_string(),
            since: None,
            note: note.into(),
        };
        let mut conditions = Vec::new();
        set_condition_at(&mut conditions, my(true, "a"), at(1));
        set_condition_at(&mut conditions, my(true, "b"), at(2));
        assert_eq!(conditions[0].since, Some(at(1)));
        assert_eq!(conditions[0].note, "b");
        set_condition_at(&mut conditions, my(false, "c"), at(3));
        assert_eq!(conditions[0].since, Some(at(3)));
        assert!(is_condition_false(&conditions, "Healthy"));
    }
}
