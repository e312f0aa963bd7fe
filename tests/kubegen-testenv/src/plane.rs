//! A control plane's life: its options and parts, start-up in named steps
//! (prepare the files, spawn etcd and the apiserver and wait for each, then
//! the controllers, then the fake nodes), the plane shared per test binary,
//! what a test may ask of it, and its end when dropped.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

use anyhow::Result;
use k8s_openapi::api::core::v1::{Node, ServiceAccount};
use kubegen_client::api::{Api, ListParams};

use crate::AuditedResource;
use crate::binaries::ControlPlaneDir;
use crate::nodes;
use crate::pki::Pki;
use crate::process::Component;
use crate::setup::Setup;

/// Environment variable that, when set, keeps a stopped environment's
/// directory (logs, PKI, etcd data) instead of deleting it.
pub const KEEP_ENV: &str = "KUBEGEN_KEEP_TESTENV";

/// How long start-up may take before it fails with the components' logs.
pub(crate) const START_TIMEOUT: Duration = Duration::from_secs(180);

/// How often [`TestEnv::start_with`] starts afresh after a port race.
const START_ATTEMPTS: usize = 3;

/// Whether a failed start is a component losing its port to another
/// process, which a start on fresh ports cures.
fn is_port_conflict(error: &anyhow::Error) -> bool {
    format!("{error:#}").contains("address already in use")
}

/// Options of a control plane.
#[derive(Debug, Clone)]
pub struct Options {
    /// Number of kwok fake nodes to create and await (default 3).
    pub nodes: usize,
    /// Resources whose writes the audit log records whoever makes them,
    /// not only ServiceAccounts (default none); read them back with
    /// [`TestEnv::audit_writes`].
    pub audited_writes: Vec<AuditedResource>,
    /// kube-apiserver feature gates as `Name=bool` (default none), e.g.
    /// `vec!["ShardedListAndWatch=true".into()]`, given as one
    /// `--feature-gates` flag at every start of the apiserver, restarts
    /// included.
    pub feature_gates: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            nodes: 3,
            audited_writes: Vec::new(),
            feature_gates: Vec::new(),
        }
    }
}

/// Which component of the control plane, for log access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// etcd.
    Etcd,
    /// kube-apiserver.
    ApiServer,
    /// kube-controller-manager.
    ControllerManager,
    /// kube-scheduler.
    Scheduler,
    /// The kwok controller.
    Kwok,
}

pub(crate) const ALL_PARTS: [Part; 5] = [
    Part::Etcd,
    Part::ApiServer,
    Part::ControllerManager,
    Part::Scheduler,
    Part::Kwok,
];

/// A running control plane. Every process is killed when it is dropped, and
/// also when the test process dies without running destructors.
pub struct TestEnv {
    pub(crate) dir: PathBuf,
    pub(crate) keep_dir: bool,
    pub(crate) binaries: &'static ControlPlaneDir,
    pub(crate) pki: Pki,
    pub(crate) apiserver_url: String,
    pub(crate) etcd_url: String,
    pub(crate) kubeconfig: PathBuf,
    pub(crate) components: [Mutex<Component>; 5],
    pub(crate) namespaces: AtomicUsize,
    pub(crate) startup: Duration,
}

impl TestEnv {
    /// Starts a control plane of its own, with default [`Options`]. Use it
    /// for tests that stop or restart components; other tests should share
    /// one through [`TestEnv::shared`].
    pub async fn start() -> Result<TestEnv> {
        Self::start_with(Options::default()).await
    }

    /// Starts a control plane with the given options.
    ///
    /// A component that cannot bind its port (another process took it
    /// between choosing and binding) fails the attempt; the control plane
    /// is then started afresh on new ports, up to three times.
    pub async fn start_with(options: Options) -> Result<TestEnv> {
        let mut attempt = 1;
        loop {
            match Self::start_once(&options).await {
                Err(e) if attempt < START_ATTEMPTS && is_port_conflict(&e) => {
                    eprintln!(
                        "kubegen-testenv: attempt {attempt} lost a port race, retrying: {e:#}"
                    );
                    attempt += 1;
                }
                outcome => return outcome,
            }
        }
    }

    /// One attempt: prepare the plane's files and ports, then boot it;
    /// a failed boot keeps the directory, whose logs the error names.
    async fn start_once(options: &Options) -> Result<TestEnv> {
        let begun = Instant::now();
        let mut env = TestEnv::new(Setup::prepare(options)?);
        match env.boot(options, begun + START_TIMEOUT).await {
            Ok(()) => {
                env.startup = begun.elapsed();
                Ok(env)
            }
            Err(e) => {
                // The error points at the logs: keep them.
                env.keep_dir = true;
                Err(e.context(format!(
                    "starting the control plane failed; logs are in {}",
                    env.dir.join("logs").display()
                )))
            }
        }
    }

    /// The plane `setup` describes, nothing started yet.
    fn new(setup: Setup) -> TestEnv {
        let components = setup.components().map(Mutex::new);
        let Setup {
            binaries,
            dir,
            pki,
            etcd_url,
            apiserver_url,
            kubeconfig,
            ..
        } = setup;
        TestEnv {
            keep_dir: std::env::var_os(KEEP_ENV).is_some(),
            dir,
            binaries,
            pki,
            apiserver_url,
            etcd_url,
            kubeconfig,
            components,
            namespaces: AtomicUsize::new(0),
            startup: Duration::ZERO,
        }
    }

    /// Starts the components in order and waits for the fake nodes and the
    /// `default` ServiceAccount.
    async fn boot(&self, options: &Options, deadline: Instant) -> Result<()> {
        self.start_etcd_at(deadline).await?;
        self.start_apiserver_at(deadline).await?;
        for part in [Part::ControllerManager, Part::Scheduler, Part::Kwok] {
            self.component(part).start()?;
        }
        let client = self.client().await?;
        self.create_fake_nodes(&client, options.nodes, deadline)
            .await?;
        self.wait_for_default_service_account(client, deadline)
            .await
    }

    /// Creates `count` kwok nodes and waits until they are Ready and
    /// untainted.
    async fn create_fake_nodes(
        &self,
        client: &kubegen_client::Client,
        count: usize,
        deadline: Instant,
    ) -> Result<()> {
        for i in 0..count {
            nodes::create(client, &nodes::node_name(i)).await?;
        }
        let node_api = Api::<Node>::all(client.clone());
        self.wait_until(deadline, "fake nodes to become Ready", || async {
            let list = node_api.list(&ListParams::default()).await?;
            Ok(list
                .items
                .iter()
                .filter(|n| nodes::is_schedulable(n))
                .count()
                >= count)
        })
        .await
    }

    /// The controller manager creates each namespace's `default`
    /// ServiceAccount, which pods need before they can be admitted.
    async fn wait_for_default_service_account(
        &self,
        client: kubegen_client::Client,
        deadline: Instant,
    ) -> Result<()> {
        let service_accounts = Api::<ServiceAccount>::namespaced(client, "default");
        self.wait_until(deadline, "the default ServiceAccount", || async {
            Ok(service_accounts.get_opt("default").await?.is_some())
        })
        .await
    }

    /// The control plane shared by all tests of this test binary, started on
    /// first use. Give every test its own namespace ([`TestEnv::namespace`]).
    pub async fn shared() -> Result<&'static TestEnv> {
        static SHARED: tokio::sync::OnceCell<TestEnv> = tokio::sync::OnceCell::const_new();
        SHARED.get_or_try_init(TestEnv::start).await
    }

    /// Path of the admin kubeconfig (usable with kubectl).
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The apiserver's URL, `https://127.0.0.1:<port>`.
    pub fn apiserver_url(&self) -> &str {
        &self.apiserver_url
    }

    /// etcd's client URL, `http://127.0.0.1:<port>` (for fault and
    /// compaction tests).
    pub fn etcd_url(&self) -> &str {
        &self.etcd_url
    }

    /// The environment's directory (logs, PKI, kubeconfigs, etcd data).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The directory holding the control-plane binaries, kubectl included.
    pub fn bin_dir(&self) -> PathBuf {
        self.binaries.bin_dir()
    }

    /// A `kubectl` command already pointed at this control plane.
    pub fn kubectl(&self) -> std::process::Command {
        let mut command = std::process::Command::new(self.binaries.bin("kubectl"));
        command.arg("--kubeconfig").arg(&self.kubeconfig);
        command
    }

    /// How long [`TestEnv::start`] took for this environment.
    pub fn startup_time(&self) -> Duration {
        self.startup
    }

    /// Path of one component's log file.
    pub fn log_path(&self, part: Part) -> PathBuf {
        self.component(part).log_path().to_path_buf()
    }

    /// Process ids of the running components (for memory measurements).
    pub fn pids(&self) -> Vec<(Part, u32)> {
        ALL_PARTS
            .iter()
            .filter_map(|&p| self.component(p).pid().map(|pid| (p, pid)))
            .collect()
    }
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        for part in ALL_PARTS.iter().rev() {
            self.component(*part).kill();
        }
        if self.keep_dir || std::thread::panicking() {
            eprintln!("kubegen-testenv: kept {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_port_is_told_apart_from_other_start_failures() {
        let lost = anyhow::anyhow!(
            "etcd exited with exit status: 1; last lines of etcd.log:\n{}",
            r#"{"level":"fatal","msg":"discovery failed","error":"listen tcp 127.0.0.1:42809: bind: address already in use"}"#
        )
        .context("starting the control plane failed");
        assert!(is_port_conflict(&lost));
        let other = anyhow::anyhow!("kube-apiserver exited with exit status: 1; unknown flag --x")
            .context("starting the control plane failed");
        assert!(!is_port_conflict(&other));
    }
}
