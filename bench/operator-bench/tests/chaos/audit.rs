//! The apiserver's audit log, read raw: every request of the operators'
//! ServiceAccounts with its timestamps (`requestReceivedTimestamp`, and
//! `stageTimestamp` of stage `ResponseComplete`), from which the leader
//! invariants are checked after the soak.
//!
//! A *write* is a create, update, patch or delete of a Deployment, a
//! Service or a MyApplication's status — what the controller does as
//! leader (Lease and Event writes are not acting on applications). Only
//! successful (2xx) writes acted; a write refused or cut off by a fault
//! changed nothing. Each write spans `[received, completed]`.
//!
//! Every operator process runs as its own ServiceAccount (see
//! `replicas.rs`), so "who" is one process, and a killed leader and its
//! restart count as two writers.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context as _, Result};
use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

use super::replicas::{LEASE_DURATION_SECS, username_prefix};

/// Microseconds.
pub(super) const SECOND: i64 = 1_000_000;

/// The least gap, between the last write of one process and the first
/// write of the next, that passes. Leader election guarantees
/// `lease_duration − renew_deadline` (3 s − 2 s = 1 s): the old leader
/// stops at its renew deadline, 2 s after its last successful renew was
/// sent; the new one acquires only after it saw that renew unchanged for
/// the 3 s lease duration. Half of that margin goes to jitter on a loaded
/// two-core machine (a reconcile's write sent just before the deadline,
/// timers firing late, the audit log written in blocking mode); a gap
/// below 0.5 s, let alone an overlap, means two processes acted at once.
pub const MIN_HANDOVER_GAP: i64 = SECOND / 2;

/// Jitter allowed on top of the renew deadline (2 s) between a write and
/// the same process's last successful Lease write before it.
pub const LEASE_SLACK: i64 = SECOND / 2;

/// The renew deadline: 2/3 of the lease duration (see `operator.rs`).
pub(super) const RENEW_DEADLINE: i64 = LEASE_DURATION_SECS as i64 * SECOND * 2 / 3;

/// One request of an operator process.
#[derive(Debug, Clone)]
pub(super) struct Request {
    /// The process: the ServiceAccount's name (`op-a-3`).
    pub(super) who: String,
    pub(super) verb: String,
    /// `deployments`, `services`, `myapplications/status`, `leases`, ...
    pub(super) resource: String,
    pub(super) name: String,
    /// The `resourceVersion` the request carried (an update's
    /// precondition: the version it replaces); empty when none.
    pub(super) resource_version: String,
    pub(super) code: u64,
    /// Microseconds since the epoch.
    pub(super) received: i64,
    pub(super) completed: i64,
}

impl Request {
    pub(super) fn ok(&self) -> bool {
        (200..300).contains(&self.code)
    }

    pub(super) fn is_write(&self) -> bool {
        matches!(
            self.resource.as_str(),
            "deployments" | "services" | "myapplications/status"
        ) && matches!(self.verb.as_str(), "create" | "update" | "patch" | "delete")
    }

    pub(super) fn is_lease_write(&self) -> bool {
        self.resource == "leases" && matches!(self.verb.as_str(), "create" | "update")
    }

    pub(super) fn describe(&self) -> String {
        format!(
            "{} {} {} {} ({}) at {}",
            self.who,
            self.verb,
            self.resource,
            self.name,
            self.code,
            Timestamp::from_microsecond(self.received)
                .map_or_else(|_| "?".into(), |t| t.to_string())
        )
    }
}

/// One change of writer.
#[derive(Debug, Clone)]
pub struct Handover {
    /// The process that wrote before.
    pub from: String,
    /// The process that wrote next.
    pub to: String,
    /// From the end of the last write of anyone else to the start of
    /// `to`'s first write (µs; negative: they overlapped).
    pub gap: i64,
}

/// What the audit log shows.
#[derive(Debug, Default, Clone)]
pub struct AuditFigures {
    /// Successful writes, by resource and verb.
    pub writes: BTreeMap<String, usize>,
    /// Writes refused or cut off (not 2xx).
    pub failed_writes: usize,
    /// Processes that wrote.
    pub writers: usize,
    /// Every change of writer.
    pub handovers: Vec<Handover>,
    /// Successful Lease writes (acquisitions and renewals).
    pub lease_writes: usize,
    /// Changes of Lease holder, and the least time between the old
    /// holder's last renewal and the new holder's acquisition (µs).
    pub lease_handovers: usize,
    /// See [`AuditFigures::lease_handovers`].
    pub min_lease_handover: Option<i64>,
    /// The longest time between a write and its process's last successful
    /// Lease write before it (µs).
    pub max_since_renew: Option<i64>,
    /// Broken invariants.
    pub violations: Vec<String>,
}

impl AuditFigures {
    /// Successful writes in all.
    pub fn total_writes(&self) -> usize {
        self.writes.values().sum()
    }

    /// The handover with the least gap.
    pub fn min_gap(&self) -> Option<&Handover> {
        self.handovers.iter().min_by_key(|h| h.gap)
    }
}

fn micros(value: &Value) -> Option<i64> {
    value
        .as_str()?
        .parse::<Timestamp>()
        .ok()
        .map(|t| t.as_microsecond())
}

/// The completed requests of the operator processes in `ns`, in log order.
pub(super) fn read(path: &Path, ns: &str) -> Result<Vec<Request>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the audit log {}", path.display()))?;
    let prefix = username_prefix(ns);
    let mut out = Vec::new();
    for line in text.lines() {
        // A line cut by a kill -9 of the apiserver does not parse.
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(user) = event["user"]["username"].as_str() else {
            continue;
        };
        let Some(who) = user.strip_prefix(&prefix) else {
            continue;
        };
        if event["stage"].as_str() != Some("ResponseComplete") {
            continue;
        }
        let object = &event["objectRef"];
        let field = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let mut resource = field(&object["resource"]);
        if let Some(sub) = object["subresource"].as_str().filter(|s| !s.is_empty()) {
            resource = format!("{resource}/{sub}");
        }
        let (Some(received), Some(completed)) = (
            micros(&event["requestReceivedTimestamp"]),
            micros(&event["stageTimestamp"]),
        ) else {
            continue;
        };
        out.push(Request {
            who: format!("op-{who}"),
            verb: field(&event["verb"]),
            resource,
            name: field(&object["name"]),
            resource_version: field(&object["resourceVersion"]),
            code: event["responseStatus"]["code"].as_u64().unwrap_or(0),
            received,
            completed,
        });
    }
    Ok(out)
}

/// Reads the audit log at `path` and checks, for the operator processes
/// in `ns`:
///
/// 1. **never two leaders acting**: sorted by arrival, every write starts
///    at least [`MIN_HANDOVER_GAP`] after the last write of any other
///    process completed — whenever the writer changes there was a quiet
///    gap, and no process writes again after another wrote without one;
/// 2. **writes are fenced by the Lease**: every write comes at most the
///    renew deadline (+ [`LEASE_SLACK`]) after a successful Lease write
///    (acquire or renew) of the same process — a process that never held
///    the Lease, or stopped renewing it, does not write;
/// 3. **the Lease changes holder only after it expired**: a process's
///    first successful Lease write comes at least the lease duration
///    (− [`LEASE_SLACK`]) after the previous holder's last one.
pub fn analyze(path: &Path, ns: &str) -> Result<AuditFigures> {
    let requests = read(path, ns)?;
    let mut figures = AuditFigures::default();
    let mut writes: Vec<&Request> = Vec::new();
    let mut leases: Vec<&Request> = Vec::new();
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
        } else if r.is_lease_write() && r.ok() {
            leases.push(r);
        }
    }
    writes.sort_by_key(|r| (r.received, r.completed));
    leases.sort_by_key(|r| (r.received, r.completed));
    figures.lease_writes = leases.len();

    // 1. Never two leaders acting.
    let mut last_end: BTreeMap<&str, (i64, &Request)> = BTreeMap::new();
    let mut previous: Option<&str> = None;
    for w in &writes {
        let others = last_end
            .iter()
            .filter(|(who, _)| **who != w.who)
            .max_by_key(|(_, (end, _))| *end);
        if let Some((_, (end, last))) = others {
            let gap = w.received - end;
            if gap < MIN_HANDOVER_GAP {
                figures.violations.push(format!(
                    "two leaders acting: {} came {:.3} s after {} completed",
                    w.describe(),
                    gap as f64 / SECOND as f64,
                    last.describe()
                ));
            }
            if previous.is_some_and(|p| p != w.who) {
                figures.handovers.push(Handover {
                    from: previous.unwrap_or_default().to_string(),
                    to: w.who.clone(),
                    gap,
                });
            }
        }
        let entry = last_end.entry(&w.who).or_insert((w.completed, w));
        if w.completed >= entry.0 {
            *entry = (w.completed, w);
        }
        previous = Some(&w.who);
    }
    figures.writers = last_end.len();

    // 2. Every write fenced by its process's own Lease writes.
    for w in &writes {
        let renewed = leases
            .iter()
            .filter(|l| l.who == w.who && l.received <= w.received)
            .map(|l| l.received)
            .max();
        match renewed {
            None => figures.violations.push(format!(
                "a write by a process that never held the Lease: {}",
                w.describe()
            )),
            Some(at) => {
                let since = w.received - at;
                figures.max_since_renew = Some(figures.max_since_renew.unwrap_or(0).max(since));
                if since > RENEW_DEADLINE + LEASE_SLACK {
                    figures.violations.push(format!(
                        "a write {:.3} s after its process last renewed the Lease: {}",
                        since as f64 / SECOND as f64,
                        w.describe()
                    ));
                }
            }
        }
    }

    // 3. The Lease changes holder only once it expired.
    let mut holder: Option<&Request> = None;
    for l in &leases {
        if let Some(h) = holder
            && h.who != l.who
        {
            let gap = l.received - h.received;
            figures.lease_handovers += 1;
            figures.min_lease_handover =
                Some(figures.min_lease_handover.map_or(gap, |m| m.min(gap)));
            if gap < LEASE_DURATION_SECS as i64 * SECOND - LEASE_SLACK {
                figures.violations.push(format!(
                    "the Lease was taken {:.3} s after its holder's last renewal ({}): {}",
                    gap as f64 / SECOND as f64,
                    h.describe(),
                    l.describe()
                ));
            }
        }
        holder = Some(l);
    }
    Ok(figures)
}
