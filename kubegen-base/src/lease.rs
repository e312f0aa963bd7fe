//! The pure part of holding a Lease — one leader election's, or one
//! partition's of a shard set: what a candidate decides from the Lease
//! record it reads and from its own clock, with no I/O, so that it can be
//! tested with a fake clock; and client-go's default timings.
//!
//! As in client-go, expiry is judged on the candidate's **local** clock: a
//! record is valid until `observed_at + leaseDurationSeconds`, where
//! `observed_at` is the local instant at which this candidate first saw the
//! record in its present form. The `renewTime` written in the record by the
//! holder is informational only, so clock skew between machines cannot make
//! two candidates lead at once.
//!
//! The duration is the record's own `leaseDurationSeconds`, taken as is,
//! as client-go's `LeaderElector.isLeaseValid` does
//! (`observedTime.Add(LeaseDurationSeconds * time.Second).After(now)`,
//! `tools/leaderelection/leaderelection.go`; `LeaseSpecToLeaderElectionRecord`
//! in `resourcelock/leaselock.go` reads a missing field as 0): a record
//! with a missing, zero or negative duration has expired when it is
//! observed, and is taken over. Never the observer's configured duration:
//! that belongs to the records it writes, not to other holders'. (client-go
//! takes `now` before its read and `observedTime` after it, so a record
//! first seen without a duration still holds it off for that one try;
//! kubegen judges at the read, and takes it over at once.)

use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::LeaseSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;

/// client-go's default lease duration: how long a standby waits, after it
/// last saw the record change, before it takes the Lease over.
pub const DEFAULT_LEASE_DURATION: Duration = Duration::from_secs(15);
/// client-go's default renew deadline: how long a holder keeps acting
/// without a successful renewal.
pub const DEFAULT_RENEW_DEADLINE: Duration = Duration::from_secs(10);
/// client-go's default retry period: how often candidates try to acquire
/// and holders renew.
pub const DEFAULT_RETRY_PERIOD: Duration = Duration::from_secs(2);

/// A Lease record as this candidate last saw it, and when (local clock).
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The record (the Lease's spec).
    pub spec: LeaseSpec,
    /// When this candidate first saw `spec` in this form.
    pub at: Instant,
}

impl Observation {
    /// The holder named in the record, if any (an empty name counts as none).
    pub fn holder(&self) -> Option<&str> {
        holder_of(&self.spec)
    }

    /// The local instant at which the record expires unless it changes:
    /// `at` plus the record's duration, where a missing or negative
    /// duration counts as zero (see the module docs).
    pub fn expires_at(&self) -> Instant {
        let seconds = self.spec.lease_duration_seconds.unwrap_or(0).max(0);
        self.at + Duration::from_secs(u64::from(seconds.unsigned_abs()))
    }
}

/// The holder named in a record, if any.
pub fn holder_of(spec: &LeaseSpec) -> Option<&str> {
    spec.holder_identity.as_deref().filter(|h| !h.is_empty())
}

/// Records `current` as observed at `now`, keeping the earlier observation
/// time when the record has not changed since (client-go's `observedTime`).
/// Returns true when the record changed.
pub fn observe(previous: &mut Option<Observation>, current: &LeaseSpec, now: Instant) -> bool {
    match previous {
        Some(seen) if seen.spec == *current => false,
        _ => {
            *previous = Some(Observation {
                spec: current.clone(),
                at: now,
            });
            true
        }
    }
}

/// What a candidate does after reading the Lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// No Lease exists: create it, naming this candidate.
    Create,
    /// The record names this candidate: renew it.
    Renew,
    /// The record names nobody, or its holder's lease has expired on this
    /// candidate's clock: take it over.
    TakeOver,
    /// Another candidate holds a valid lease until `until` (local clock).
    Wait {
        /// The current holder.
        holder: String,
        /// When the lease expires unless renewed.
        until: Instant,
    },
}

/// Decides what `identity` does with the observed record at `now`.
/// `None` means the Lease does not exist.
pub fn decide(identity: &str, observed: Option<&Observation>, now: Instant) -> Decision {
    let Some(observed) = observed else {
        return Decision::Create;
    };
    match observed.holder() {
        Some(holder) if holder == identity => Decision::Renew,
        Some(holder) => {
            let until = observed.expires_at();
            if now < until {
                Decision::Wait {
                    holder: holder.to_string(),
                    until,
                }
            } else {
                Decision::TakeOver
            }
        }
        None => Decision::TakeOver,
    }
}

/// The record a candidate writes for `decision` (not for `Wait`, which
/// writes nothing). `old` is the record read before.
pub fn next_record(
    decision: &Decision,
    identity: &str,
    old: Option<&LeaseSpec>,
    lease_duration: Duration,
    wall_now: Timestamp,
) -> LeaseSpec {
    let now = Some(MicroTime(wall_now));
    let mut spec = LeaseSpec {
        holder_identity: Some(identity.to_string()),
        lease_duration_seconds: Some(duration_seconds(lease_duration)),
        acquire_time: now.clone(),
        renew_time: now,
        lease_transitions: Some(0),
        ..LeaseSpec::default()
    };
    if let Some(old) = old {
        let transitions = old.lease_transitions.unwrap_or(0);
        match decision {
            Decision::Renew => {
                spec.acquire_time = old.acquire_time.clone().or(spec.acquire_time);
                spec.lease_transitions = Some(transitions);
            }
            _ => spec.lease_transitions = Some(transitions.saturating_add(1)),
        }
    }
    spec
}

/// The record a leader writes to release its lease: no holder and a
/// one-second duration, so that any candidate takes over at its next try.
pub fn released_record(old: &LeaseSpec, wall_now: Timestamp) -> LeaseSpec {
    let now = Some(MicroTime(wall_now));
    LeaseSpec {
        holder_identity: None,
        lease_duration_seconds: Some(1),
        acquire_time: now.clone(),
        renew_time: now,
        lease_transitions: old.lease_transitions,
        ..LeaseSpec::default()
    }
}

/// A lease duration in whole seconds as the Lease stores it (rounded up,
/// at least one).
pub fn duration_seconds(duration: Duration) -> i32 {
    let whole = duration.as_secs() + u64::from(duration.subsec_nanos() > 0);
    i32::try_from(whole.max(1)).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEASE: Duration = Duration::from_secs(15);

    fn held_by(holder: &str, seconds: i32) -> LeaseSpec {
        LeaseSpec {
            holder_identity: Some(holder.to_string()),
            lease_duration_seconds: Some(seconds),
            renew_time: Some(MicroTime(Timestamp::UNIX_EPOCH)),
            lease_transitions: Some(3),
            acquire_time: Some(MicroTime(Timestamp::UNIX_EPOCH)),
            ..LeaseSpec::default()
        }
    }

    #[test]
    fn missing_lease_is_created() {
        assert_eq!(decide("a", None, Instant::now()), Decision::Create);
    }

    #[test]
    fn valid_lease_of_another_is_waited_on_until_expiry() {
        let t0 = Instant::now();
        let mut seen = None;
        assert!(observe(&mut seen, &held_by("b", 15), t0));
        let until = t0 + LEASE;
        let wait = Decision::Wait {
            holder: "b".into(),
            until,
        };
        assert_eq!(decide("a", seen.as_ref(), t0), wait);
        assert_eq!(
            decide("a", seen.as_ref(), until - Duration::from_millis(1)),
            wait
        );
        assert_eq!(decide("a", seen.as_ref(), until), Decision::TakeOver);
    }

    #[test]
    fn expiry_uses_the_local_observation_time_not_the_renew_time() {
        // The record's renewTime is 1970: an observer trusting it would take
        // over at once. The observer counts from when it saw the record.
        let t0 = Instant::now();
        let mut seen = None;
        observe(&mut seen, &held_by("b", 15), t0);
        let later = t0 + Duration::from_secs(10);
        // The same record read again does not move the observation time...
        assert!(!observe(&mut seen, &held_by("b", 15), later));
        assert_eq!(seen.as_ref().map(|o| o.at), Some(t0));
        assert_eq!(decide("a", seen.as_ref(), t0 + LEASE), Decision::TakeOver);
        // ...but a renewal (any change of the record) restarts the clock.
        let mut renewed = held_by("b", 15);
        renewed.renew_time = Some(MicroTime(Timestamp::UNIX_EPOCH + Duration::from_secs(1)));
        assert!(observe(&mut seen, &renewed, later));
        assert!(matches!(
            decide("a", seen.as_ref(), t0 + LEASE),
            Decision::Wait { .. }
        ));
        assert_eq!(
            decide("a", seen.as_ref(), later + LEASE),
            Decision::TakeOver
        );
    }

    #[test]
    fn record_duration_wins_over_the_configured_one() {
        let t0 = Instant::now();
        let mut seen = None;
        observe(&mut seen, &held_by("b", 1), t0);
        assert_eq!(
            decide("a", seen.as_ref(), t0 + Duration::from_secs(1)),
            Decision::TakeOver
        );
    }

    /// Decision 3 (client-go's `isLeaseValid` takes `LeaseDurationSeconds`
    /// as is): a foreign record whose duration is missing, zero or negative
    /// has expired as soon as it is observed; the observer's own configured
    /// duration plays no part.
    #[test]
    fn record_without_a_positive_duration_has_expired_when_observed() {
        let t0 = Instant::now();
        for seconds in [None, Some(0), Some(-5)] {
            let mut record = held_by("b", 0);
            record.lease_duration_seconds = seconds;
            let mut seen = None;
            observe(&mut seen, &record, t0);
            assert_eq!(
                decide("a", seen.as_ref(), t0),
                Decision::TakeOver,
                "leaseDurationSeconds {seconds:?}"
            );
        }
    }

    #[test]
    fn own_lease_is_renewed_and_released_lease_is_taken_over() {
        let t0 = Instant::now();
        let mut seen = None;
        observe(&mut seen, &held_by("a", 15), t0);
        assert_eq!(decide("a", seen.as_ref(), t0), Decision::Renew);
        let released = released_record(&held_by("a", 15), Timestamp::UNIX_EPOCH);
        assert_eq!(released.holder_identity, None);
        assert_eq!(released.lease_duration_seconds, Some(1));
        observe(&mut seen, &released, t0);
        assert_eq!(decide("b", seen.as_ref(), t0), Decision::TakeOver);
        let mut empty = held_by("", 15);
        empty.lease_transitions = Some(4);
        observe(&mut seen, &empty, t0);
        assert_eq!(decide("b", seen.as_ref(), t0), Decision::TakeOver);
    }

    #[test]
    fn records_written_keep_or_bump_transitions() {
        let now = Timestamp::UNIX_EPOCH + Duration::from_secs(100);
        let old = held_by("b", 15);
        let created = next_record(&Decision::Create, "a", None, LEASE, now);
        assert_eq!(created.lease_transitions, Some(0));
        assert_eq!(created.holder_identity.as_deref(), Some("a"));
        assert_eq!(created.lease_duration_seconds, Some(15));
        assert_eq!(created.acquire_time, Some(MicroTime(now)));

        let taken = next_record(&Decision::TakeOver, "a", Some(&old), LEASE, now);
        assert_eq!(taken.lease_transitions, Some(4));
        assert_eq!(taken.acquire_time, Some(MicroTime(now)));
        assert_eq!(taken.renew_time, Some(MicroTime(now)));

        let renewed = next_record(&Decision::Renew, "b", Some(&old), LEASE, now);
        assert_eq!(renewed.lease_transitions, Some(3));
        assert_eq!(renewed.acquire_time, old.acquire_time);
        assert_eq!(renewed.renew_time, Some(MicroTime(now)));
    }

    #[test]
    fn durations_round_up_to_whole_seconds() {
        assert_eq!(duration_seconds(Duration::from_secs(15)), 15);
        assert_eq!(duration_seconds(Duration::from_millis(2_500)), 3);
        assert_eq!(duration_seconds(Duration::from_millis(10)), 1);
        assert_eq!(duration_seconds(Duration::ZERO), 1);
    }
}
