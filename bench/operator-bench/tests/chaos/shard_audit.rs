//! The sharded soak's invariants, from the apiserver's audit log (read as
//! in `audit.rs`: every request of the operators' ServiceAccounts, one
//! ServiceAccount per process), the churn's record of which object each
//! application name stood for when, and what a watch of the shard set's
//! Leases saw of them.
//!
//! A *write* is as in `audit.rs` (a 2xx create, update, patch or delete of
//! a Deployment, a Service or a MyApplication's status). Each is traced to
//! the application it was for — the MyApplication of that name, or the
//! owner of `<name>-deployment` / `<name>-service` — and so to a partition:
//! `Partitions::of_uid` of the application's uid, which its children
//! follow. A name the churn deleted and created again stood for several
//! applications; a write is for one that existed when it was received or
//! was deleted at most [`STALE_GRACE`] earlier (a reconcile working from a
//! cache that had not seen the delete yet), the one whose partition its
//! writer held when there are two.
//!
//! A *partition Lease write* is a 2xx create or update of `<set>-NNN`.
//! The audit log says who wrote, not what: whether an update renewed the
//! Lease or released it is read from the Lease watch — every update names
//! the `resourceVersion` it replaces, which is the version the previous
//! write made, and the watch saw most versions with their holder.
//!
//! Checked:
//!
//! 1. **fenced writes**: every write comes at most the renew deadline (+
//!    [`LEASE_SLACK`]) after its process's own last write of its
//!    partition's Lease, with no other process's write of that Lease in
//!    between (else two processes acted on one partition: a *double-acting
//!    window*), and not after that Lease write released the partition;
//! 2. **handovers of an application**: when two consecutive writes for one
//!    application come from different processes, the later one acquired
//!    the partition (the start of its run of writes of the partition's
//!    Lease) after the earlier one's write completed (else a double-acting
//!    window) — and so, with 1, the earlier one did not write for it again
//!    while the later one held it;
//! 3. **handovers of a partition**: a partition Lease changes holder only
//!    after its holder released it, or at least the lease duration (−
//!    [`LEASE_SLACK`]) after the holder's last write of it (expiry).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use anyhow::Result;
use kubegen::sharding::Partitions;

use super::audit::{LEASE_SLACK, RENEW_DEADLINE, Request, SECOND, read};
use super::churn::Incarnation;
use super::replicas::LEASE_DURATION_SECS;

/// How long after its delete was confirmed an application may still be
/// what a write of its name was for.
pub const STALE_GRACE: i64 = 10 * SECOND;

/// What the Lease watch saw: the holder of every version it saw, by
/// `resourceVersion` (`None`: released).
pub type LeaseStates = HashMap<String, Option<String>>;

/// One change of writer of one application.
#[derive(Debug, Clone)]
pub struct ObjectHandover {
    /// The application's name.
    pub app: String,
    /// Its partition.
    pub partition: u32,
    /// The process that wrote before.
    pub from: String,
    /// The process that wrote next.
    pub to: String,
    /// From the end of `from`'s last write to the start of `to`'s first
    /// (µs; negative: they overlapped).
    pub gap: i64,
}

/// What the audit log shows of the sharded operators.
#[derive(Debug, Default, Clone)]
pub struct ShardAuditFigures {
    /// Successful writes, by resource and verb.
    pub writes: BTreeMap<String, usize>,
    /// Writes refused or cut off (not 2xx).
    pub failed_writes: usize,
    /// Processes that wrote.
    pub writers: usize,
    /// Successful writes of partition Leases.
    pub lease_writes: usize,
    /// Changes of a partition Lease's writer.
    pub partition_handovers: usize,
    /// Of those, the ones after a release.
    pub released: usize,
    /// Of those, the ones after the lease duration (expiry).
    pub expired: usize,
    /// Of those, the ones before the lease duration of a version the watch
    /// did not see (so neither a release nor a takeover can be told).
    pub unverified: usize,
    /// The least time from a holder's last write of a partition Lease to
    /// the next holder's first, after a release (µs).
    pub min_release_handover: Option<i64>,
    /// The same, after expiry (µs).
    pub min_expiry_handover: Option<i64>,
    /// Every change of writer of one application.
    pub object_handovers: Vec<ObjectHandover>,
    /// The longest time between a write and its process's last write of
    /// its partition's Lease before it (µs).
    pub max_since_renew: Option<i64>,
    /// Writes for an application its name no longer (or not yet) stood
    /// for within [`STALE_GRACE`] (traced to the last one before).
    pub stale: usize,
    /// Windows in which two processes acted on one partition.
    pub double_acting: usize,
    /// Broken invariants.
    pub violations: Vec<String>,
}

impl ShardAuditFigures {
    /// Successful writes in all.
    pub fn total_writes(&self) -> usize {
        self.writes.values().sum()
    }

    /// The change of writer of one application with the least gap.
    pub fn min_gap(&self) -> Option<&ObjectHandover> {
        self.object_handovers.iter().min_by_key(|h| h.gap)
    }
}

/// The partition of Lease `name` of shard set `set`, if it is one.
fn lease_partition(set: &str, name: &str, partitions: Partitions) -> Option<u32> {
    let digits = name.strip_prefix(set)?.strip_prefix('-')?;
    if digits.len() != 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|p| *p < partitions.count())
}

/// The application a write is for, by name.
fn app_of(r: &Request) -> &str {
    let suffix = match r.resource.as_str() {
        "deployments" => "-deployment",
        "services" => "-service",
        _ => "",
    };
    r.name.strip_suffix(suffix).unwrap_or(&r.name)
}

/// Whether Lease holder `identity` (`a-3_x7k2q`: POD_NAME and a random
/// suffix) is process `who` (`op-a-3`).
fn is_process(identity: &str, who: &str) -> bool {
    who.strip_prefix("op-").is_some_and(|pod| {
        identity
            .strip_prefix(pod)
            .is_some_and(|r| r.starts_with('_'))
    })
}

fn secs(micros: i64) -> f64 {
    micros as f64 / SECOND as f64
}

/// The writes of one partition's Lease, oldest first, and what each did.
struct LeaseLog<'a> {
    writes: Vec<&'a Request>,
    /// Per write: whether it released the Lease (`None`: unknown — the
    /// last write, or a version the watch did not see).
    released: Vec<Option<bool>>,
}

impl<'a> LeaseLog<'a> {
    fn new(mut writes: Vec<&'a Request>, states: &LeaseStates) -> Self {
        writes.sort_by_key(|r| (r.received, r.completed));
        // The version a write made is the one the next update replaces.
        let released = (0..writes.len())
            .map(|i| {
                let next = writes.get(i + 1).filter(|n| n.verb == "update")?;
                states.get(&next.resource_version).map(Option::is_none)
            })
            .collect();
        LeaseLog { writes, released }
    }

    /// The index of the last write received at or before `t`.
    fn last_at(&self, t: i64) -> Option<usize> {
        self.writes
            .partition_point(|r| r.received <= t)
            .checked_sub(1)
    }

    /// The first write of the run of one writer's writes ending at `i`.
    fn run_start(&self, i: usize) -> usize {
        let who = &self.writes[i].who;
        (0..=i)
            .rev()
            .take_while(|j| self.writes[*j].who == *who)
            .last()
            .unwrap_or(i)
    }
}

/// Why a write is not fenced by its partition's Lease.
enum Unfenced<'a> {
    /// The writer never wrote the Lease before.
    Never,
    /// Another process wrote the Lease last.
    HeldBy(&'a Request),
    /// The writer's last write of the Lease released it.
    Released(&'a Request),
    /// The writer's last write of the Lease is older than the renew
    /// deadline.
    Stale(i64),
}

/// Whether `w` is fenced by its writer's writes of `lease`: `Ok` with the
/// time since the last one.
fn fence<'a>(lease: &LeaseLog<'a>, w: &Request) -> Result<i64, Unfenced<'a>> {
    let Some(i) = lease.last_at(w.received) else {
        return Err(Unfenced::Never);
    };
    let last = lease.writes[i];
    if last.who != w.who {
        let ever = lease.writes[..i].iter().any(|r| r.who == w.who);
        return Err(if ever {
            Unfenced::HeldBy(last)
        } else {
            Unfenced::Never
        });
    }
    if lease.released[i] == Some(true) {
        return Err(Unfenced::Released(last));
    }
    let since = w.received - last.received;
    if since > RENEW_DEADLINE + LEASE_SLACK {
        return Err(Unfenced::Stale(since));
    }
    Ok(since)
}

/// The applications a write of `app`'s name received at `t` may be for,
/// newest first: those created before `t` and not deleted more than
/// [`STALE_GRACE`] before it; else the last one created before `t`
/// (`true`: stale).
fn candidates(incarnations: &[Incarnation], t: i64) -> (Vec<&Incarnation>, bool) {
    let live: Vec<&Incarnation> = incarnations
        .iter()
        .rev()
        .filter(|i| i.created <= t && i.deleted.is_none_or(|d| t <= d + STALE_GRACE))
        .collect();
    if !live.is_empty() {
        return (live, false);
    }
    let last = incarnations.iter().rev().find(|i| i.created <= t);
    (last.into_iter().collect(), true)
}

/// Reads the audit log at `path` and checks the sharded operators in `ns`
/// (shard set `set` of `partitions`) against the invariants above, with
/// the applications each name stood for (`incarnations`, from the churn)
/// and the Lease versions the watch saw (`states`).
pub fn analyze(
    path: &Path,
    ns: &str,
    set: &str,
    partitions: Partitions,
    incarnations: &BTreeMap<String, Vec<Incarnation>>,
    states: &LeaseStates,
) -> Result<ShardAuditFigures> {
    let requests = read(path, ns)?;
    let mut figures = ShardAuditFigures::default();
    let mut writes: Vec<&Request> = Vec::new();
    let mut by_partition: BTreeMap<u32, Vec<&Request>> = BTreeMap::new();
    for r in &requests {
        if r.is_write() {
            if r.ok() {
                *figures
                    .writes
                    .entry(format!("{} {}", r.verb, r.resource))
                    .or_default() += 1;
                writes.push(r);
            } else {
                figures.failed_writes += 1;
            }
        } else if r.is_lease_write()
            && r.ok()
            && let Some(p) = lease_partition(set, &r.name, partitions)
        {
            by_partition.entry(p).or_default().push(r);
        }
    }
    writes.sort_by_key(|r| (r.received, r.completed));
    figures.writers = writes.iter().map(|w| &w.who).collect::<BTreeSet<_>>().len();
    let leases: BTreeMap<u32, LeaseLog<'_>> = (0..partitions.count())
        .map(|p| {
            let log = LeaseLog::new(by_partition.remove(&p).unwrap_or_default(), states);
            (p, log)
        })
        .collect();
    figures.lease_writes = leases.values().map(|l| l.writes.len()).sum();

    // 1. Every write fenced by its writer's own renewal of its partition.
    let none = Vec::new();
    // Per application (name, uid): its writes, oldest first.
    let mut by_app: BTreeMap<(&str, &str), (u32, Vec<&Request>)> = BTreeMap::new();
    for w in &writes {
        let name = app_of(w);
        let (candidates, stale) = candidates(incarnations.get(name).unwrap_or(&none), w.received);
        if candidates.is_empty() {
            figures.violations.push(format!(
                "a write for an application the churn had not created: {}",
                w.describe()
            ));
            continue;
        }
        figures.stale += usize::from(stale);
        let fenced = candidates.iter().find_map(|c| {
            let p = partitions.of_uid(&c.uid);
            fence(&leases[&p], w).ok().map(|since| (*c, p, since))
        });
        let (app, p) = match fenced {
            Some((app, p, since)) => {
                figures.max_since_renew = Some(figures.max_since_renew.unwrap_or(0).max(since));
                (app, p)
            }
            None => {
                let app = candidates[0];
                let p = partitions.of_uid(&app.uid);
                let Err(why) = fence(&leases[&p], w) else {
                    unreachable!("not fenced")
                };
                let what = format!("{} (partition {p} of uid {})", w.describe(), app.uid);
                figures.violations.push(match why {
                    Unfenced::Never => {
                        format!("a write by a process that never held its partition: {what}")
                    }
                    Unfenced::HeldBy(other) => {
                        figures.double_acting += 1;
                        format!(
                            "two processes acting on one partition: {what} while its Lease was last written by another ({})",
                            other.describe()
                        )
                    }
                    Unfenced::Released(release) => format!(
                        "a write after its process released the partition ({}): {what}",
                        release.describe()
                    ),
                    Unfenced::Stale(since) => format!(
                        "a write {:.3} s after its process last renewed the partition: {what}",
                        secs(since)
                    ),
                });
                (app, p)
            }
        };
        by_app
            .entry((name, &app.uid))
            .or_insert((p, Vec::new()))
            .1
            .push(w);
    }

    // 2. A change of writer of one application only after the new writer
    // acquired its partition, once the old one's last write was done.
    for ((name, _), (p, app_writes)) in &by_app {
        let lease = &leases[p];
        for pair in app_writes.windows(2) {
            let [w1, w2] = pair else { continue };
            if w1.who == w2.who {
                continue;
            }
            figures.object_handovers.push(ObjectHandover {
                app: name.to_string(),
                partition: *p,
                from: w1.who.clone(),
                to: w2.who.clone(),
                gap: w2.received - w1.completed,
            });
            // A write not fenced by its writer's Lease was reported above.
            let Some(i) = lease
                .last_at(w2.received)
                .filter(|i| lease.writes[*i].who == w2.who)
            else {
                continue;
            };
            let acquired = lease.writes[lease.run_start(i)];
            if acquired.received < w1.completed {
                figures.double_acting += 1;
                figures.violations.push(format!(
                    "two processes acting on one application: {} acquired partition {p} ({}) before the last write of {} completed ({})",
                    w2.who,
                    acquired.describe(),
                    w1.who,
                    w1.describe()
                ));
            }
        }
    }

    // 3. A partition Lease changes holder only after a release or expiry.
    for (p, lease) in &leases {
        for i in 1..lease.writes.len() {
            let (before, after) = (lease.writes[i - 1], lease.writes[i]);
            if before.who == after.who {
                continue;
            }
            figures.partition_handovers += 1;
            let gap = after.received - before.received;
            let min = |m: &mut Option<i64>| *m = Some(m.map_or(gap, |m| m.min(gap)));
            if lease.released[i - 1] == Some(true) {
                figures.released += 1;
                min(&mut figures.min_release_handover);
                continue;
            }
            if gap >= LEASE_DURATION_SECS as i64 * SECOND - LEASE_SLACK {
                figures.expired += 1;
                min(&mut figures.min_expiry_handover);
                continue;
            }
            match states.get(&after.resource_version) {
                Some(Some(holder)) if is_process(holder, &before.who) => {
                    figures.violations.push(format!(
                        "partition {p}'s Lease taken {:.3} s after its holder's last write ({}), neither released nor expired: {}",
                        secs(gap),
                        before.describe(),
                        after.describe()
                    ));
                }
                _ => figures.unverified += 1,
            }
        }
    }
    Ok(figures)
}
