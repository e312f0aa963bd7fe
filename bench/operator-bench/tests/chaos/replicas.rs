//! The operator replicas, supervised the way a kubelet would: two slots
//! (`a`, `b`), each running the `my-application-controller` binary; a
//! process that exits on its own (lost leadership → exit 1) is restarted
//! at once, one that the soak killed is restarted after the delay the fault
//! chose.
//!
//! Every incarnation runs as a ServiceAccount of its own (`op-a-0`,
//! `op-a-1`, ...) and with `POD_NAME` = `a-0`, `a-1`, ... (the prefix of its
//! Lease identity), so that the apiserver's audit log tells apart not only
//! the two replicas but also a replica from its restarted self — a handover
//! from a killed leader to its own restart is checked like any other.
//! The ClusterRole is bound to the namespace's ServiceAccount group.
//!
//! Sharded (`--shard-partitions N`, see [`Replicas::sharded`]) there are
//! three slots (`a`, `b`, `c`), not all of them running at once: the soak
//! scales between one and three ([`Replicas::scale_up`],
//! [`Replicas::stop_slot`], which stops a slot by SIGTERM — a graceful
//! handover of its partitions — or by kill -9), and kills random running
//! replicas ([`Replicas::kill_incarnation`]).

use std::path::PathBuf;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use kubegen_testenv::TestEnv;

/// The two replica slots.
pub const SLOTS: [&str; 2] = ["a", "b"];

/// The slots of the sharded soak.
pub const SHARDED_SLOTS: [&str; 3] = ["a", "b", "c"];

/// The Lease name, the shard set's name when sharded (its partition Leases
/// are `<LEASE_NAME>-000`, ...).
pub const LEASE_NAME: &str = "my-application-controller";

/// How long a replica stopped by SIGTERM may take to hand its partitions
/// over and exit before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(15);

/// Lease duration given to the operators (seconds); renew deadline and
/// retry period follow as 2/3 and 2/15 of it (2 s, 0.4 s).
pub const LEASE_DURATION_SECS: u64 = 3;

/// The ServiceAccount of incarnation `n` of `slot`.
pub fn service_account(slot: &str, n: usize) -> String {
    format!("op-{slot}-{n}")
}

/// The audit username prefix shared by every incarnation in `ns`.
pub fn username_prefix(ns: &str) -> String {
    format!("system:serviceaccount:{ns}:op-")
}

/// One running (or exited) operator process.
struct Incarnation {
    /// `a-3`: POD_NAME, prefix of the Lease identity, suffix of the SA.
    name: String,
    child: Child,
    /// Its log.
    log: PathBuf,
}

/// One slot: at most one incarnation at a time.
struct Slot {
    name: &'static str,
    current: Option<Incarnation>,
    /// Incarnations started so far.
    started: usize,
    /// When to start the next one (`None`: one is running).
    restart_at: Option<Instant>,
}

/// What happened to the replicas, for the report.
#[derive(Debug, Default, Clone)]
pub struct ReplicaStats {
    /// Processes started, the first two included.
    pub starts: usize,
    /// Processes killed (-9) by the soak: leaders, or sharded replicas.
    pub killed: usize,
    /// Exits the soak did not cause, by exit code (`-1`: by a signal).
    pub exits: std::collections::BTreeMap<i32, usize>,
    /// Log files of every incarnation.
    pub logs: Vec<PathBuf>,
    /// Processes stopped by SIGTERM, by exit code (`-1`: by a signal).
    pub terminated: std::collections::BTreeMap<i32, usize>,
    /// Processes that did not exit within [`STOP_GRACE`] of SIGTERM (then
    /// killed).
    pub stop_timeouts: usize,
}

/// The supervised replicas.
pub struct Replicas {
    env: std::sync::Arc<TestEnv>,
    ns: String,
    /// Arguments every process gets besides the common ones.
    extra_args: Vec<String>,
    slots: Mutex<Vec<Slot>>,
    stats: Mutex<ReplicaStats>,
}

impl Replicas {
    /// Two empty slots in `ns`; [`Replicas::tick`] starts them.
    pub fn new(env: std::sync::Arc<TestEnv>, ns: &str) -> Self {
        Self::with_slots(env, ns, &SLOTS, SLOTS.len(), Vec::new())
    }

    /// The [`SHARDED_SLOTS`] in `ns`, running `--shard-partitions
    /// partitions`; [`Replicas::tick`] starts the first `running` of them.
    pub fn sharded(
        env: std::sync::Arc<TestEnv>,
        ns: &str,
        partitions: u32,
        running: usize,
    ) -> Self {
        let extra_args = vec!["--shard-partitions".into(), partitions.to_string()];
        Self::with_slots(env, ns, &SHARDED_SLOTS, running, extra_args)
    }

    fn with_slots(
        env: std::sync::Arc<TestEnv>,
        ns: &str,
        names: &[&'static str],
        running: usize,
        extra_args: Vec<String>,
    ) -> Self {
        let now = Instant::now();
        Replicas {
            env,
            ns: ns.to_string(),
            extra_args,
            slots: Mutex::new(
                names
                    .iter()
                    .enumerate()
                    .map(|(i, name)| Slot {
                        name,
                        current: None,
                        started: 0,
                        restart_at: (i < running).then_some(now),
                    })
                    .collect(),
            ),
            stats: Mutex::new(ReplicaStats::default()),
        }
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, Vec<Slot>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stats_mut(&self) -> std::sync::MutexGuard<'_, ReplicaStats> {
        self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A copy of the figures so far.
    pub fn stats(&self) -> ReplicaStats {
        self.stats_mut().clone()
    }

    /// One round of supervision: reaps processes that exited on their own
    /// (scheduling their restart at once) and starts those whose restart
    /// is due. Starting needs the apiserver (a ServiceAccount and a token
    /// for the new incarnation); while it is down the start is retried on
    /// the next round.
    pub async fn tick(&self) {
        let now = Instant::now();
        let mut due = Vec::new();
        {
            let mut slots = self.slots();
            for slot in slots.iter_mut() {
                if let Some(incarnation) = &mut slot.current
                    && let Ok(Some(status)) = incarnation.child.try_wait()
                {
                    let code = status.code().unwrap_or(-1);
                    eprintln!(
                        "chaos: replica {} exited on its own ({status})",
                        incarnation.name
                    );
                    *self.stats_mut().exits.entry(code).or_default() += 1;
                    slot.current = None;
                    slot.restart_at = Some(now);
                }
                if slot.current.is_none() && slot.restart_at.is_some_and(|at| at <= now) {
                    due.push((slot.name, slot.started));
                }
            }
        }
        for (slot, n) in due {
            match self.spawn(slot, n).await {
                Ok(incarnation) => {
                    let mut slots = self.slots();
                    if let Some(s) = slots.iter_mut().find(|s| s.name == slot) {
                        s.current = Some(incarnation);
                        s.started += 1;
                        s.restart_at = None;
                    }
                    self.stats_mut().starts += 1;
                }
                Err(e) => eprintln!("chaos: starting replica {slot}-{n} failed, retrying: {e:#}"),
            }
        }
    }

    /// Starts incarnation `n` of `slot` as its own ServiceAccount.
    async fn spawn(&self, slot: &str, n: usize) -> Result<Incarnation> {
        let name = format!("{slot}-{n}");
        let kubeconfig = tokio::time::timeout(
            Duration::from_secs(10),
            self.env
                .kubeconfig_for_service_account(&self.ns, &service_account(slot, n)),
        )
        .await
        .context("minting a token timed out")??;
        let log_path = self.env.dir().join(format!("operator-{name}.log"));
        let log = std::fs::File::create(&log_path)?;
        let child = Command::new(my_application_bench::operator_binary()?)
            .args(["--namespace", &self.ns, "--lease-namespace", &self.ns])
            .args(["--lease-duration", &LEASE_DURATION_SECS.to_string()])
            .args(&self.extra_args)
            .args(["--health-probe-bind-address", "127.0.0.1:0"])
            .args([
                "--metrics-bind-address",
                "127.0.0.1:0",
                "--insecure-metrics",
            ])
            .env("KUBECONFIG", kubeconfig)
            .env("POD_NAME", &name)
            // Exit 1 on lost leadership without an error backtrace (a
            // panic's backtrace still follows RUST_BACKTRACE).
            .env("RUST_LIB_BACKTRACE", "0")
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()?;
        self.stats_mut().logs.push(log_path.clone());
        Ok(Incarnation {
            name,
            child,
            log: log_path,
        })
    }

    /// SIGKILLs the running incarnation whose Lease identity is `holder`
    /// (`<POD_NAME>_<random>`), to be restarted after `restart_after`;
    /// returns its name, or `None` when no running process holds it.
    pub fn kill_holder(&self, holder: &str, restart_after: Duration) -> Option<String> {
        let mut slots = self.slots();
        let slot = slots.iter_mut().find(|s| {
            s.current
                .as_ref()
                .is_some_and(|i| holder.starts_with(&format!("{}_", i.name)))
        })?;
        let mut incarnation = slot.current.take()?;
        if let Ok(Some(status)) = incarnation.child.try_wait() {
            // It died on its own just now: the next tick restarts it.
            slot.restart_at = Some(Instant::now());
            let code = status.code().unwrap_or(-1);
            *self.stats_mut().exits.entry(code).or_default() += 1;
            return None;
        }
        let _ = incarnation.child.kill();
        let _ = incarnation.child.wait();
        slot.restart_at = Some(Instant::now() + restart_after);
        self.stats_mut().killed += 1;
        Some(incarnation.name)
    }

    /// The running incarnations, as `(name, log)`.
    pub fn running(&self) -> Vec<(String, PathBuf)> {
        self.slots()
            .iter()
            .filter_map(|s| s.current.as_ref())
            .map(|i| (i.name.clone(), i.log.clone()))
            .collect()
    }

    /// Slots running or about to be restarted: those the soak has not
    /// stopped.
    pub fn active(&self) -> usize {
        self.slots()
            .iter()
            .filter(|s| s.current.is_some() || s.restart_at.is_some())
            .count()
    }

    /// Starts stopped slots until `target` are active; returns those
    /// started ([`Replicas::tick`] spawns them).
    pub fn scale_up(&self, target: usize) -> Vec<&'static str> {
        let now = Instant::now();
        let mut slots = self.slots();
        let mut active = slots
            .iter()
            .filter(|s| s.current.is_some() || s.restart_at.is_some())
            .count();
        let mut started = Vec::new();
        for slot in slots.iter_mut() {
            if active >= target {
                break;
            }
            if slot.current.is_none() && slot.restart_at.is_none() {
                slot.restart_at = Some(now);
                started.push(slot.name);
                active += 1;
            }
        }
        started
    }

    /// SIGKILLs the running incarnation `name` (`a-3`); it is restarted
    /// after `restart_after`. `None` when it is not running.
    pub fn kill_incarnation(&self, name: &str, restart_after: Duration) -> Option<String> {
        let holder = format!("{name}_");
        self.kill_holder(&holder, restart_after)
    }

    /// Stops slot number `index` among the active ones for good (until
    /// [`Replicas::scale_up`]): by SIGTERM when `graceful` (waiting up to
    /// [`STOP_GRACE`] for the process to hand over and exit, then
    /// SIGKILL), else by SIGKILL. Returns the incarnation stopped (`None`
    /// when the slot was waiting for a restart) and how it ended.
    pub async fn stop_slot(&self, index: usize, graceful: bool) -> Option<(String, String)> {
        let incarnation = {
            let mut slots = self.slots();
            let slot = slots
                .iter_mut()
                .filter(|s| s.current.is_some() || s.restart_at.is_some())
                .nth(index)?;
            slot.restart_at = None;
            slot.current.take()
        };
        let mut incarnation = incarnation?;
        if let Ok(Some(status)) = incarnation.child.try_wait() {
            let code = status.code().unwrap_or(-1);
            *self.stats_mut().exits.entry(code).or_default() += 1;
            return Some((
                incarnation.name,
                format!("had exited on its own ({status})"),
            ));
        }
        if !graceful {
            let _ = incarnation.child.kill();
            let _ = incarnation.child.wait();
            self.stats_mut().killed += 1;
            return Some((incarnation.name, "killed (SIGKILL)".into()));
        }
        let pid = incarnation.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + STOP_GRACE;
        let outcome = loop {
            match incarnation.child.try_wait() {
                Ok(Some(status)) => {
                    let code = status.code().unwrap_or(-1);
                    *self.stats_mut().terminated.entry(code).or_default() += 1;
                    break format!("stopped by SIGTERM ({status})");
                }
                Ok(None) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                _ => {
                    let _ = incarnation.child.kill();
                    let _ = incarnation.child.wait();
                    self.stats_mut().stop_timeouts += 1;
                    break format!("did not exit within {STOP_GRACE:?} of SIGTERM; killed");
                }
            }
        };
        Some((incarnation.name, outcome))
    }

    /// SIGKILLs every running incarnation (the end of the soak).
    pub fn kill_all(&self) {
        for slot in self.slots().iter_mut() {
            if let Some(mut incarnation) = slot.current.take() {
                let _ = incarnation.child.kill();
                let _ = incarnation.child.wait();
            }
            slot.restart_at = None;
        }
    }
}

impl Drop for Replicas {
    fn drop(&mut self) {
        self.kill_all();
    }
}
