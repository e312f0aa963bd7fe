//! Unit tests of the elector against a [`FakeLock`](fake_lock::FakeLock):
//! client-go's own `tools/leaderelection` tests ported case by case (each
//! names the Go test it ports), and regressions. Time is tokio's, paused.

mod config_validation;
mod fake_lock;
mod fast_path;
mod release;
mod started_leading;
mod try_acquire_or_renew;

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::LeaseSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use parking_lot::Mutex;

use super::builder::LeaderElectorBuilder;
use super::config::LeaderElectionConfig;
use fake_lock::FakeLock;

/// The candidate under test, named as in client-go's tests.
const ME: &str = "baz";
/// Another candidate.
const OTHER: &str = "bing";

/// A configuration for [`ME`] with these timings.
fn config(lease: u64, renew: u64, retry: u64) -> LeaderElectionConfig {
    LeaderElectionConfig {
        identity: Some(ME.to_string()),
        lease_duration: Duration::from_secs(lease),
        renew_deadline: Duration::from_secs(renew),
        retry_period: Duration::from_secs(retry),
        ..LeaderElectionConfig::new("foo", "bar")
    }
}

/// A record naming `holder` (`""`: nobody) for `seconds`, as client-go
/// writes one: every field set.
fn record(holder: &str, seconds: i32) -> LeaseSpec {
    LeaseSpec {
        holder_identity: Some(holder.to_string()),
        lease_duration_seconds: Some(seconds),
        acquire_time: Some(MicroTime(Timestamp::UNIX_EPOCH)),
        renew_time: Some(MicroTime(Timestamp::UNIX_EPOCH)),
        lease_transitions: Some(0),
        ..LeaseSpec::default()
    }
}

/// What the callbacks reported, in order.
#[derive(Debug, Clone, Default)]
struct Events(Arc<Mutex<Vec<String>>>);

impl Events {
    fn push(&self, event: String) {
        self.0.lock().push(event);
    }

    fn all(&self) -> Vec<String> {
        self.0.lock().clone()
    }
}

/// A builder for `config` over `lock`, logging every callback into
/// `events`; the work of a term returns at once, like the
/// `OnStartedLeading` of client-go's tests.
fn builder(lock: &FakeLock, config: LeaderElectionConfig, events: &Events) -> LeaderElectorBuilder {
    let (started, stopped, new_leader) = (events.clone(), events.clone(), events.clone());
    LeaderElectorBuilder::with_lock(lock.clone(), config)
        .on_started_leading(move |leadership| {
            started.push(format!("started {}", leadership.identity()));
            async {}
        })
        .on_stopped_leading(move || stopped.push("stopped".to_string()))
        .on_new_leader(move |leader| new_leader.push(format!("new leader {leader}")))
}

/// Compiles only while `LeaderElector::run` returns a boxed future made in
/// the engine: as an `async fn`, its campaign and terms would be compiled
/// again in each crate awaiting it.
#[test]
fn the_run_future_is_boxed() {
    type Boxed = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;
    let _: fn(super::LeaderElector, std::future::Pending<()>) -> Boxed = super::LeaderElector::run;
}
