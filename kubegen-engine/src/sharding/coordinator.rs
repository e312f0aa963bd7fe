//! The partition Leases: [`Coordinator`] keeps this replica's member Lease
//! alive, computes the balanced assignment of partitions to the live
//! members, and acquires, renews, drains and releases partition Leases so
//! that [`Shards`] always names partitions this replica may act on.
//!
//! Fencing follows leader election (client-go's, see
//! `lease`): expiry is judged on the local clock from
//! when a record was last seen changing, a holder acts on a partition only
//! until `renew_deadline` after the start of its last successful renewal,
//! and another replica takes the Lease over only `lease_duration` after it
//! last saw it change — later, since the lease duration exceeds the renew
//! deadline. A partition changes hands only when its holder released it
//! (after a drain) or its Lease expired.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use futures::future::join_all;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::jiff::Timestamp;
use kubegen_client::Client;
use kubegen_client::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams, Preconditions};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::assign::assign;
use super::config::ShardingConfig;
use super::partition::{PartitionSet, Partitions, shard_hash};
use super::shards::Shards;
use crate::lease::{
    self as record, Decision, Observation, holder_of, next_record, released_record,
};

/// The label naming the shard set a Lease belongs to.
pub const SHARD_SET_LABEL: &str = "kubegen.io/shard-set";
/// The label saying whether a Lease is a `partition`'s or a `member`'s.
pub const SHARD_ROLE_LABEL: &str = "kubegen.io/shard-role";
/// The label carrying the shard set's partition count, which every
/// replica checks against its own.
pub const SHARD_PARTITIONS_LABEL: &str = "kubegen.io/shard-partitions";

/// Why the coordinator stopped.
#[derive(Debug, thiserror::Error)]
pub enum ShardingError {
    /// Another replica of the set uses a different partition count.
    #[error(
        "Lease {lease} of shard set {set} says {theirs} partitions, this replica has {ours}; \
         every replica of a set must use the same count (stop them all, or use a new set name, to change it)"
    )]
    PartitionCount {
        /// The Lease that disagrees.
        lease: String,
        /// The shard set.
        set: String,
        /// Its count.
        theirs: String,
        /// Ours.
        ours: u32,
    },
}

/// What this replica knows of a partition it holds.
#[derive(Debug, Clone, Copy)]
struct Held {
    /// When the last successful write of its Lease started.
    renewed_at: Instant,
    /// Since when it has been handing the partition over.
    draining_since: Option<Instant>,
}

/// What to do with one Lease this tick.
#[derive(Debug)]
enum Step {
    Create(u32),
    Acquire(u32, Lease),
    Renew(u32, Lease),
    Release(u32, Lease),
}

/// Keeps [`Shards`] current from the Leases of one shard set.
pub(crate) struct Coordinator {
    api: Api<Lease>,
    config: ShardingConfig,
    partitions: Partitions,
    shards: Shards,
    member: String,
    observed: HashMap<String, Observation>,
    held: BTreeMap<u32, Held>,
}

impl Coordinator {
    /// The coordinator of `shards`, talking to the apiserver through
    /// `client`; `config` was validated into `shards`' partitions.
    pub(crate) fn new(client: Client, config: ShardingConfig, shards: Shards) -> Self {
        let member = format!(
            "{}-member-{:016x}",
            config.name,
            shard_hash(shards.identity())
        );
        Coordinator {
            api: Api::namespaced(client, &config.namespace),
            partitions: shards.partitions(),
            config,
            shards,
            member,
            observed: HashMap::new(),
            held: BTreeMap::new(),
        }
    }

    fn lease_name(&self, partition: u32) -> String {
        format!("{}-{partition:03}", self.config.name)
    }

    fn identity(&self) -> &str {
        self.shards.identity()
    }

    /// Runs until `shutdown` is cancelled, then drains and releases every
    /// partition and deletes the member Lease.
    pub(crate) async fn run(mut self, shutdown: CancellationToken) -> Result<(), ShardingError> {
        let mut next = Instant::now();
        loop {
            tokio::select! {
                biased;
                () = shutdown.cancelled() => break,
                () = tokio::time::sleep_until(next) => {}
            }
            let started = Instant::now();
            self.fence(started);
            // A round that does not answer (an apiserver that hangs) must
            // not keep this replica acting past a renew deadline: the
            // round is dropped at the earliest one, and its writes count
            // as failed.
            let deadline = self
                .held
                .values()
                .map(|held| held.renewed_at + self.config.renew_deadline)
                .fold(started + self.config.renew_deadline, Instant::min);
            match tokio::time::timeout_at(deadline, self.tick(started)).await {
                Ok(Ok(())) => {}
                Ok(Err(error)) => {
                    self.stop().await;
                    return Err(error);
                }
                Err(_) => tracing::warn!(
                    set = %self.config.name,
                    "the shard set's Lease requests did not answer before a renew deadline"
                ),
            }
            self.fence(Instant::now());
            next = self
                .held
                .values()
                .map(|held| held.renewed_at + self.config.renew_deadline)
                .fold(started + self.config.retry_period, Instant::min);
        }
        self.stop().await;
        Ok(())
    }

    /// One round: read the set's Leases, renew the member Lease, and act on
    /// every partition as the assignment says.
    async fn tick(&mut self, now: Instant) -> Result<(), ShardingError> {
        let selector = format!("{SHARD_SET_LABEL}={}", self.config.name);
        let leases = match self
            .api
            .list(&ListParams::default().labels(&selector))
            .await
        {
            Ok(list) => list.items,
            Err(error) => {
                tracing::warn!(%error, set = %self.config.name, "could not read the shard set's Leases");
                return Ok(());
            }
        };
        let mut by_name = HashMap::new();
        for lease in leases {
            let name = lease.metadata.name.clone().unwrap_or_default();
            self.check_count(&name, &lease)?;
            let spec = lease.spec.clone().unwrap_or_default();
            let mut seen = self.observed.remove(&name);
            record::observe(&mut seen, &spec, now.into_std());
            self.observed
                .insert(name.clone(), seen.expect("just observed"));
            by_name.insert(name, lease);
        }
        self.observed.retain(|name, _| by_name.contains_key(name));
        self.renew_member(by_name.remove(&self.member)).await;
        let now_std = now.into_std();
        let mut members = Vec::new();
        let mut stale = Vec::new();
        for (name, lease) in by_name
            .iter()
            .filter(|(_, lease)| role(lease) == Some("member"))
        {
            let seen = &self.observed[name];
            match seen.holder() {
                Some(holder) if now_std < seen.expires_at() => members.push(holder.to_string()),
                _ if self.long_gone(lease) => stale.push(lease.clone()),
                _ => {}
            }
        }
        self.collect(stale).await;
        members.push(self.identity().to_string());
        // Who holds each partition now, as its Lease says: the assignment
        // keeps partitions where they are when it can.
        let holders: BTreeMap<u32, String> =
            kubegen_core::sorting::collect_map((0..self.partitions.count()).filter_map(|p| {
                let holder = self.observed.get(&self.lease_name(p))?.holder()?;
                Some((p, holder.to_string()))
            }));
        let desired = assign(
            self.partitions,
            members.iter().map(String::as_str),
            &holders,
        );
        let mine = desired.get(self.identity()).copied().unwrap_or_default();
        let steps: Vec<Step> = (0..self.partitions.count())
            .filter_map(|p| {
                let lease = by_name.remove(&self.lease_name(p));
                self.step(p, lease, mine.contains(p), now)
            })
            .collect();
        let results = join_all(steps.into_iter().map(|step| self.execute(step))).await;
        for (partition, outcome, started) in results {
            self.record(partition, outcome, started);
        }
        self.publish();
        Ok(())
    }

    /// Whether member Lease `lease` was last renewed more than ten lease
    /// durations ago by its own timestamp: a replica that crashed, whose
    /// Lease nobody will delete otherwise (every restart is a new
    /// identity). Judged on the wall clock, so only with a margin far
    /// beyond any clock skew; and deleted only if unchanged since read.
    fn long_gone(&self, lease: &Lease) -> bool {
        let Some(renewed) = lease
            .spec
            .as_ref()
            .and_then(|spec| spec.renew_time.as_ref())
        else {
            return false;
        };
        let age = Timestamp::now().duration_since(renewed.0);
        let limit = self.config.lease_duration * 10;
        age.as_secs_f64() > limit.as_secs_f64()
    }

    /// Deletes the member Leases of replicas long gone, each only if it is
    /// still the version read.
    async fn collect(&self, stale: Vec<Lease>) {
        for lease in stale {
            let name = lease.metadata.name.clone().unwrap_or_default();
            let params = DeleteParams {
                preconditions: Some(Preconditions {
                    resource_version: lease.metadata.resource_version.clone(),
                    uid: lease.metadata.uid.clone(),
                }),
                ..DeleteParams::default()
            };
            match self.api.delete(&name, &params).await {
                Ok(_) => {
                    tracing::info!(lease = %name, "deleted the member Lease of a replica long gone")
                }
                Err(error) => {
                    tracing::debug!(lease = %name, %error, "could not delete a stale member Lease")
                }
            }
        }
    }

    /// Fails when `lease` says another partition count than ours.
    fn check_count(&self, name: &str, lease: &Lease) -> Result<(), ShardingError> {
        let theirs = lease
            .metadata
            .labels
            .as_ref()
            .and_then(|labels| labels.get(SHARD_PARTITIONS_LABEL));
        match theirs {
            Some(count) if *count != self.partitions.count().to_string() => {
                Err(ShardingError::PartitionCount {
                    lease: name.to_string(),
                    set: self.config.name.clone(),
                    theirs: count.clone(),
                    ours: self.partitions.count(),
                })
            }
            _ => Ok(()),
        }
    }

    /// What to do with partition `p`'s Lease (`None`: it does not exist),
    /// given whether the assignment gives `p` to this replica.
    fn step(&mut self, p: u32, lease: Option<Lease>, assigned: bool, now: Instant) -> Option<Step> {
        let Some(lease) = lease else {
            if self.held.remove(&p).is_some() {
                tracing::warn!(
                    partition = p,
                    "the partition's Lease was deleted; abandoning it"
                );
                self.shards.gate().abandon(p);
            }
            return assigned.then_some(Step::Create(p));
        };
        let name = self.lease_name(p);
        let seen = &self.observed[&name];
        let ours = seen.holder() == Some(self.identity());
        if !ours {
            if self.held.remove(&p).is_some() {
                tracing::warn!(partition = p, holder = ?seen.holder(), "another replica holds the partition; abandoning it");
                self.shards.gate().abandon(p);
            }
            let decision = record::decide(self.identity(), Some(seen), now.into_std());
            return (assigned && decision == Decision::TakeOver).then_some(Step::Acquire(p, lease));
        }
        let Some(held) = self.held.get_mut(&p) else {
            // Ours on the record but not acted on (a renewal that was
            // fenced off, say): adopt it if assigned, else give it back.
            return Some(if assigned {
                Step::Acquire(p, lease)
            } else {
                Step::Release(p, lease)
            });
        };
        if assigned {
            if held.draining_since.take().is_some() {
                tracing::info!(partition = p, "the partition stays; handover cancelled");
                self.shards.gate().grant(p);
            }
            return Some(Step::Renew(p, lease));
        }
        let since = *held.draining_since.get_or_insert_with(|| {
            tracing::info!(partition = p, "handing the partition over; draining");
            self.shards.gate().revoke(p);
            now
        });
        let gate = self.shards.gate();
        if gate.in_flight(p) == 0 {
            return Some(Step::Release(p, lease));
        }
        if now.duration_since(since) >= self.config.handover_timeout {
            tracing::warn!(
                partition = p,
                in_flight = gate.in_flight(p),
                "in-flight reconciles outlived the handover timeout; abandoning them"
            );
            gate.abandon(p);
        }
        Some(Step::Renew(p, lease))
    }

    /// Writes the Lease `step` says; returns the partition, the written
    /// Lease's holder (`Ok(None)`: released) or the error, and when the
    /// write started.
    async fn execute(
        &self,
        step: Step,
    ) -> (u32, Result<Option<String>, kubegen_client::Error>, Instant) {
        let started = Instant::now();
        let wall = Timestamp::now();
        let me = self.identity();
        let duration = self.config.lease_duration;
        let (p, result) = match step {
            Step::Create(p) => {
                let spec = next_record(&Decision::Create, me, None, duration, wall);
                let lease = Lease {
                    metadata: self.metadata(self.lease_name(p), "partition"),
                    spec: Some(spec),
                };
                (p, self.api.create(&PostParams::default(), &lease).await)
            }
            Step::Acquire(p, lease) | Step::Renew(p, lease) => {
                let decision = if holder_of(lease.spec.as_ref().unwrap_or(&LeaseSpec::default()))
                    == Some(me)
                {
                    Decision::Renew
                } else {
                    Decision::TakeOver
                };
                (
                    p,
                    self.write(lease, |old| next_record(&decision, me, old, duration, wall))
                        .await,
                )
            }
            Step::Release(p, lease) => (
                p,
                self.write(lease, |old| {
                    released_record(old.unwrap_or(&LeaseSpec::default()), wall)
                })
                .await,
            ),
        };
        let holder =
            result.map(|lease| lease.spec.as_ref().and_then(holder_of).map(str::to_string));
        (p, holder, started)
    }

    /// Replaces `lease`'s spec with `spec(old)`, conditioned on its
    /// `resourceVersion`.
    async fn write(
        &self,
        mut lease: Lease,
        spec: impl FnOnce(Option<&LeaseSpec>) -> LeaseSpec,
    ) -> Result<Lease, kubegen_client::Error> {
        lease.spec = Some(spec(lease.spec.as_ref()));
        let name = lease.metadata.name.clone().unwrap_or_default();
        self.api
            .replace(&name, &PostParams::default(), &lease)
            .await
    }

    /// Applies the outcome of a write of partition `p`'s Lease.
    fn record(
        &mut self,
        p: u32,
        outcome: Result<Option<String>, kubegen_client::Error>,
        started: Instant,
    ) {
        match outcome {
            Ok(Some(holder)) if holder == self.identity() => {
                let held = self.held.entry(p).or_insert_with(|| {
                    tracing::info!(partition = p, "acquired the partition");
                    Held {
                        renewed_at: started,
                        draining_since: None,
                    }
                });
                held.renewed_at = started;
                if held.draining_since.is_none() {
                    self.shards.gate().grant(p);
                }
            }
            Ok(_) => {
                if self.held.remove(&p).is_some() {
                    tracing::info!(partition = p, "released the partition");
                }
            }
            Err(kubegen_client::Error::Api(status)) if status.code == 409 => {
                tracing::debug!(partition = p, "the partition's Lease changed meanwhile");
            }
            Err(error) => {
                tracing::warn!(partition = p, %error, "could not write the partition's Lease")
            }
        }
    }

    /// Abandons every partition whose last renewal started more than the
    /// renew deadline before `now`.
    fn fence(&mut self, now: Instant) {
        let deadline = self.config.renew_deadline;
        let expired: Vec<u32> = self
            .held
            .iter()
            .filter(|(_, held)| now >= held.renewed_at + deadline)
            .map(|(p, _)| *p)
            .collect();
        for p in expired {
            tracing::warn!(
                partition = p,
                ?deadline,
                "no renewal of the partition's Lease within the renew deadline; abandoning it"
            );
            self.shards.gate().abandon(p);
            self.held.remove(&p);
        }
        self.publish();
    }

    /// Makes [`Shards::held`] the partitions held.
    fn publish(&self) {
        self.shards
            .set_held(self.held.keys().copied().collect::<PartitionSet>());
    }

    /// Keeps the member Lease alive (creates it when missing).
    async fn renew_member(&self, lease: Option<Lease>) {
        let wall = Timestamp::now();
        let me = self.identity();
        let duration = self.config.lease_duration;
        let result = match lease {
            None => {
                let lease = Lease {
                    metadata: self.metadata(self.member.clone(), "member"),
                    spec: Some(next_record(&Decision::Create, me, None, duration, wall)),
                };
                self.api.create(&PostParams::default(), &lease).await
            }
            Some(lease) => {
                self.write(lease, |old| {
                    next_record(&Decision::Renew, me, old, duration, wall)
                })
                .await
            }
        };
        if let Err(error) = result {
            tracing::warn!(%error, lease = %self.member, "could not renew the member Lease");
        }
    }

    fn metadata(&self, name: String, role: &str) -> ObjectMeta {
        ObjectMeta {
            name: Some(name),
            labels: Some(kubegen_core::sorting::collect_map(
                [
                    (SHARD_SET_LABEL, self.config.name.clone()),
                    (SHARD_ROLE_LABEL, role.to_string()),
                    (SHARD_PARTITIONS_LABEL, self.partitions.count().to_string()),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v)),
            )),
            ..ObjectMeta::default()
        }
    }

    /// At shutdown: stops acting on every partition, lets in-flight
    /// reconciles finish within the handover timeout (abandoning the rest),
    /// releases the Leases and deletes the member Lease, so that the other
    /// replicas take over at their next round.
    async fn stop(&mut self) {
        let gate = self.shards.gate();
        let partitions: Vec<u32> = self.held.keys().copied().collect();
        for p in &partitions {
            gate.revoke(*p);
        }
        let drained = join_all(partitions.iter().map(|p| gate.drained(*p)));
        if tokio::time::timeout(self.config.handover_timeout, drained)
            .await
            .is_err()
        {
            tracing::warn!(
                "in-flight reconciles outlived the handover timeout at shutdown; abandoning them"
            );
            for p in &partitions {
                gate.abandon(*p);
            }
            let _ = tokio::time::timeout(
                Duration::from_secs(1),
                join_all(partitions.iter().map(|p| gate.drained(*p))),
            )
            .await;
        }
        let fenced_until = |held: &Held| held.renewed_at + self.config.renew_deadline;
        let releases = self
            .held
            .iter()
            .filter(|(_, held)| Instant::now() < fenced_until(held))
            .map(|(p, _)| self.release_by_name(self.lease_name(*p)));
        // Unreleased Leases expire; an apiserver that hangs must not hold
        // the shutdown.
        if tokio::time::timeout(self.config.renew_deadline, join_all(releases))
            .await
            .is_err()
        {
            tracing::warn!("could not release every partition in time; they expire instead");
        }
        self.held.clear();
        self.publish();
        let params = DeleteParams::default();
        let delete = self.api.delete(&self.member, &params);
        match tokio::time::timeout(self.config.retry_period, delete).await {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => tracing::debug!(%error, "could not delete the member Lease"),
            Err(_) => tracing::debug!("the member Lease's deletion did not answer in time"),
        }
    }

    /// Reads partition Lease `name` and releases it if it still names this
    /// replica.
    async fn release_by_name(&self, name: String) {
        let wall = Timestamp::now();
        match self.api.get_opt(&name).await {
            Ok(Some(lease)) if lease.spec.as_ref().and_then(holder_of) == Some(self.identity()) => {
                if let Err(error) = self
                    .write(lease, |old| {
                        released_record(old.unwrap_or(&LeaseSpec::default()), wall)
                    })
                    .await
                {
                    tracing::warn!(%error, lease = %name, "could not release the partition");
                }
            }
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(%error, lease = %name, "could not read the partition's Lease")
            }
        }
    }
}

/// The `kubegen.io/shard-role` of `lease`.
fn role(lease: &Lease) -> Option<&str> {
    lease
        .metadata
        .labels
        .as_ref()?
        .get(SHARD_ROLE_LABEL)
        .map(String::as_str)
}
