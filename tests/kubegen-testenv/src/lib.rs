//! A real local Kubernetes control plane for kubegen's end-to-end tests and
//! demos: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
//! kwok (fake nodes and pod lifecycles), all built from Go modules by
//! `tests/control-plane/build.sh` and started on free loopback ports.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use k8s_openapi::api::core::v1::ConfigMap;
//! let env = kubegen_testenv::TestEnv::shared().await?;
//! let ns = env.namespace("demo").await?;
//! let configmaps = kube::Api::<ConfigMap>::namespaced(env.client().await?, &ns);
//! assert!(configmaps.list(&Default::default()).await?.items.is_empty());
//! # Ok(()) }
//! ```

mod audit;
mod binaries;
mod etcd;
mod files;
mod kubeconfig;
mod nodes;
mod pki;
mod pod_security;
mod ports;
mod process;
mod tls;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::{Namespace, Node, ServiceAccount};
use kube::api::{Api, ListParams, PostParams};

pub use binaries::{CONTROL_PLANE_DIR_ENV, ControlPlaneDir, build_script};
pub use etcd::EtcdEntry;
pub use nodes::FAKE_NODE_ANNOTATION;
pub use pki::CertFiles;

pub use audit::{AuditRecord, AuditedResource, AuditedWrite};
use kubeconfig::Credentials;
pub use pod_security::read_deployment;
use process::Component;

/// Environment variable that, when set, keeps a stopped environment's
/// directory (logs, PKI, etcd data) instead of deleting it.
pub const KEEP_ENV: &str = "KUBEGEN_KEEP_TESTENV";

/// How long start-up may take before it fails with the components' logs.
const START_TIMEOUT: Duration = Duration::from_secs(180);

/// A loopback port that is free now and lies below the kernel's ephemeral
/// range, for a process a test starts beside the control plane (an
/// operator's metrics endpoint, say). Outgoing connections never take it.
pub fn free_loopback_port() -> Result<u16> {
    let [port] = ports::free_ports::<1>()?;
    Ok(port)
}

/// How often [`TestEnv::start_with`] starts afresh after a port race.
const START_ATTEMPTS: usize = 3;

/// Whether a failed start is a component losing its port to another
/// process, which a start on fresh ports cures.
fn is_port_conflict(error: &anyhow::Error) -> bool {
    format!("{error:#}").contains("address already in use")
}
/// How long one component may take to stop after SIGTERM.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// Options of a control plane.
#[derive(Debug, Clone)]
pub struct Options {
    /// Number of kwok fake nodes to create and await (default 3).
    pub nodes: usize,
    /// Resources whose writes the audit log records whoever makes them,
    /// not only ServiceAccounts (default none); read them back with
    /// [`TestEnv::audit_writes`].
    pub audited_writes: Vec<AuditedResource>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            nodes: 3,
            audited_writes: Vec::new(),
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

const ALL_PARTS: [Part; 5] = [
    Part::Etcd,
    Part::ApiServer,
    Part::ControllerManager,
    Part::Scheduler,
    Part::Kwok,
];

/// A running control plane. Every process is killed when it is dropped, and
/// also when the test process dies without running destructors.
pub struct TestEnv {
    dir: PathBuf,
    keep_dir: bool,
    binaries: &'static ControlPlaneDir,
    pki: pki::Pki,
    apiserver_url: String,
    etcd_url: String,
    kubeconfig: PathBuf,
    components: [Mutex<Component>; 5],
    namespaces: AtomicUsize,
    startup: Duration,
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

    async fn start_once(options: &Options) -> Result<TestEnv> {
        let begun = Instant::now();
        let binaries = ControlPlaneDir::locate()?;
        let dir = fresh_env_dir()?;
        let logs = dir.join("logs");
        std::fs::create_dir_all(&logs)?;
        let pki = pki::Pki::generate(&dir.join("pki"))?;
        let [etcd_port, etcd_peer_port, apiserver_port, kwok_port] = ports::free_ports::<4>()?;
        let etcd_url = format!("http://127.0.0.1:{etcd_port}");
        let apiserver_url = format!("https://127.0.0.1:{apiserver_port}");
        let kubeconfig = kubeconfig::write(
            &dir.join("kubeconfig"),
            &apiserver_url,
            &pki.ca_cert,
            Credentials::ClientCert {
                cert: &pki.admin.cert,
                key: &pki.admin.key,
            },
        )?;
        let kwok_config = write_kwok_config(&dir, &binaries.stages_dir())?;
        let audit = audit::flags(&dir, &logs.join("audit.log"), &options.audited_writes)?;

        let etcd = Component::new(
            "etcd",
            binaries.bin("etcd"),
            args(&[
                "--name=default".into(),
                format!("--data-dir={}", dir.join("etcd").display()),
                format!("--listen-client-urls={etcd_url}"),
                format!("--advertise-client-urls={etcd_url}"),
                format!("--listen-peer-urls=http://127.0.0.1:{etcd_peer_port}"),
                format!("--initial-advertise-peer-urls=http://127.0.0.1:{etcd_peer_port}"),
                format!("--initial-cluster=default=http://127.0.0.1:{etcd_peer_port}"),
                "--unsafe-no-fsync".into(),
                "--log-level=warn".into(),
            ]),
            &logs,
        );
        let apiserver = Component::new(
            "kube-apiserver",
            binaries.bin("kube-apiserver"),
            args(&[
                format!("--etcd-servers={etcd_url}"),
                "--bind-address=127.0.0.1".into(),
                "--advertise-address=127.0.0.1".into(),
                format!("--secure-port={apiserver_port}"),
                format!("--tls-cert-file={}", pki.serving.cert.display()),
                format!("--tls-private-key-file={}", pki.serving.key.display()),
                format!("--client-ca-file={}", pki.ca_cert.display()),
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
                format!(
                    "--service-account-key-file={}",
                    pki.service_account_pub.display()
                ),
                format!(
                    "--service-account-signing-key-file={}",
                    pki.service_account_key.display()
                ),
                "--service-cluster-ip-range=10.96.0.0/16".into(),
                "--authorization-mode=RBAC".into(),
                "--allow-privileged=true".into(),
                // No kubelet or proxy runs, so nothing would use the
                // endpoints of the `kubernetes` Service.
                "--endpoint-reconciler-type=none".into(),
                "--profiling=false".into(),
            ])
            .into_iter()
            .chain(audit.into_iter().map(OsString::from))
            .collect(),
            &logs,
        );
        let controller_manager = Component::new(
            "kube-controller-manager",
            binaries.bin("kube-controller-manager"),
            args(&[
                format!("--kubeconfig={}", kubeconfig.display()),
                "--leader-elect=false".into(),
                "--secure-port=0".into(),
                "--use-service-account-credentials=false".into(),
                format!(
                    "--service-account-private-key-file={}",
                    pki.service_account_key.display()
                ),
                format!("--root-ca-file={}", pki.ca_cert.display()),
                "--controllers=*".into(),
                // Client-side throttling at the default 20 QPS would make
                // the controllers, not the code under test, the bottleneck.
                "--kube-api-qps=200".into(),
                "--kube-api-burst=400".into(),
                "--profiling=false".into(),
            ]),
            &logs,
        );
        let scheduler = Component::new(
            "kube-scheduler",
            binaries.bin("kube-scheduler"),
            args(&[
                format!("--kubeconfig={}", kubeconfig.display()),
                "--leader-elect=false".into(),
                "--secure-port=0".into(),
                "--kube-api-qps=200".into(),
                "--kube-api-burst=400".into(),
                "--profiling=false".into(),
            ]),
            &logs,
        );
        let kwok = Component::new(
            "kwok",
            binaries.bin("kwok"),
            args(&[
                format!("--kubeconfig={}", kubeconfig.display()),
                format!("--config={}", kwok_config.display()),
                "--manage-all-nodes=false".into(),
                format!(
                    "--manage-nodes-with-annotation-selector={}={}",
                    FAKE_NODE_ANNOTATION.0, FAKE_NODE_ANNOTATION.1
                ),
                "--manage-nodes-with-label-selector=".into(),
                "--disregard-status-with-annotation-selector=kwok.x-k8s.io/status=custom".into(),
                "--disregard-status-with-label-selector=".into(),
                "--cidr=10.244.0.1/16".into(),
                "--node-ip=127.0.0.1".into(),
                "--node-lease-duration-seconds=40".into(),
                format!("--server-address=127.0.0.1:{kwok_port}"),
            ]),
            &logs,
        );

        let mut env = TestEnv {
            keep_dir: std::env::var_os(KEEP_ENV).is_some(),
            dir,
            binaries,
            pki,
            apiserver_url,
            etcd_url,
            kubeconfig,
            components: [
                Mutex::new(etcd),
                Mutex::new(apiserver),
                Mutex::new(controller_manager),
                Mutex::new(scheduler),
                Mutex::new(kwok),
            ],
            namespaces: AtomicUsize::new(0),
            startup: Duration::ZERO,
        };
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

    async fn boot(&self, options: &Options, deadline: Instant) -> Result<()> {
        self.start_etcd_at(deadline).await?;
        self.start_apiserver_at(deadline).await?;
        for part in [Part::ControllerManager, Part::Scheduler, Part::Kwok] {
            self.component(part).start()?;
        }
        let client = self.client().await?;
        for i in 0..options.nodes {
            nodes::create(&client, &nodes::node_name(i)).await?;
        }
        let node_api = Api::<Node>::all(client.clone());
        self.wait_until(deadline, "fake nodes to become Ready", || async {
            let list = node_api.list(&ListParams::default()).await?;
            Ok(list
                .items
                .iter()
                .filter(|n| nodes::is_schedulable(n))
                .count()
                >= options.nodes)
        })
        .await?;
        // The controller manager creates each namespace's `default`
        // ServiceAccount, which pods need before they can be admitted.
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

    /// A client authenticated as `kubegen-admin` in `system:masters`.
    ///
    /// Build a client per test (per tokio runtime): a client's connections
    /// belong to the runtime that opened them.
    pub async fn client(&self) -> Result<kube::Client> {
        kubeconfig::client(&self.kubeconfig).await
    }

    /// A client authenticated by a fresh client certificate as `user`,
    /// member of `group` when given. It has only the permissions RBAC grants
    /// to that user or group.
    pub async fn client_for_user(&self, user: &str, group: Option<&str>) -> Result<kube::Client> {
        let cert = self.pki.issue_client(user, group)?;
        let path = kubeconfig::write(
            &self.dir.join(format!("kubeconfig-{}", sanitize(user))),
            &self.apiserver_url,
            &self.pki.ca_cert,
            Credentials::ClientCert {
                cert: &cert.cert,
                key: &cert.key,
            },
        )?;
        kubeconfig::client(&path).await
    }

    /// A client authenticated with a token of the ServiceAccount
    /// `namespace/name` (created when missing), obtained through the
    /// TokenRequest API; it has exactly that ServiceAccount's permissions.
    pub async fn client_for_service_account(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<kube::Client> {
        let path = self.kubeconfig_for_service_account(namespace, name).await?;
        kubeconfig::client(&path).await
    }

    /// Like [`TestEnv::client_for_service_account`], but returns the path of
    /// a kubeconfig file, for processes started by a test (e.g. an operator
    /// binary run as that ServiceAccount).
    pub async fn kubeconfig_for_service_account(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<PathBuf> {
        let token = self.service_account_token(namespace, name).await?;
        kubeconfig::write(
            &self.dir.join(format!(
                "kubeconfig-sa-{}-{}",
                sanitize(namespace),
                sanitize(name)
            )),
            &self.apiserver_url,
            &self.pki.ca_cert,
            Credentials::Token(&token),
        )
    }

    /// A bearer token (valid for an hour) of the ServiceAccount
    /// `namespace/name`, created when missing, obtained through the
    /// TokenRequest API — what a scraper or another client would present.
    pub async fn service_account_token(&self, namespace: &str, name: &str) -> Result<String> {
        let accounts = Api::<ServiceAccount>::namespaced(self.client().await?, namespace);
        if accounts.get_opt(name).await?.is_none() {
            let account = ServiceAccount {
                metadata: kube::api::ObjectMeta {
                    name: Some(name.to_string()),
                    ..Default::default()
                },
                ..Default::default()
            };
            accounts.create(&PostParams::default(), &account).await?;
        }
        let request = TokenRequest {
            spec: TokenRequestSpec {
                expiration_seconds: Some(3600),
                ..Default::default()
            }
            .into(),
            ..Default::default()
        };
        accounts
            .create_token_request(name, &PostParams::default(), &request)
            .await?
            .status
            .and_then(|s| s.token)
            .context("TokenRequest returned no token")
    }

    /// Creates a namespace with a unique name starting with `prefix` and
    /// returns its name.
    pub async fn namespace(&self, prefix: &str) -> Result<String> {
        let n = self.namespaces.fetch_add(1, Ordering::Relaxed);
        let prefix: String = sanitize(prefix).chars().take(40).collect();
        let name = format!("{prefix}-{}-{n}", std::process::id());
        let ns = Namespace {
            metadata: kube::api::ObjectMeta {
                name: Some(name.clone()),
                ..Default::default()
            },
            ..Default::default()
        };
        Api::<Namespace>::all(self.client().await?)
            .create(&PostParams::default(), &ns)
            .await
            .with_context(|| format!("creating namespace {name}"))?;
        Ok(name)
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

    /// Stops the apiserver (SIGTERM, then SIGKILL after a grace period).
    pub fn stop_apiserver(&self) {
        self.component(Part::ApiServer).stop(STOP_GRACE);
    }

    /// Kills the apiserver with SIGKILL.
    pub fn kill_apiserver(&self) {
        self.component(Part::ApiServer).kill();
    }

    /// Starts the apiserver again and waits until it is ready.
    pub async fn start_apiserver(&self) -> Result<()> {
        self.start_apiserver_at(Instant::now() + START_TIMEOUT)
            .await
    }

    /// Starts the stopped apiserver again with `flags` added to its own
    /// (e.g. `--feature-gates=WatchList=false`, to play an apiserver without
    /// streaming lists) and waits until it is ready. The flags stay for
    /// later restarts; an empty slice removes them.
    pub async fn start_apiserver_with_flags(&self, flags: &[&str]) -> Result<()> {
        self.component(Part::ApiServer)
            .set_extra_args(flags.iter().map(Into::into).collect());
        self.start_apiserver().await
    }

    /// Stops kube-controller-manager (SIGTERM, then SIGKILL after a grace
    /// period): no garbage collection, quota counting or ReplicaSets until
    /// [`TestEnv::start_controller_manager`] — e.g. to hold the children of
    /// a deleted object in place.
    pub fn stop_controller_manager(&self) {
        self.component(Part::ControllerManager).stop(STOP_GRACE);
    }

    /// Starts kube-controller-manager again.
    pub fn start_controller_manager(&self) -> Result<()> {
        self.component(Part::ControllerManager).start()
    }

    /// Stops etcd (SIGTERM, then SIGKILL after a grace period). Its data is
    /// kept, so [`TestEnv::start_etcd`] resumes with the same contents.
    pub fn stop_etcd(&self) {
        self.component(Part::Etcd).stop(STOP_GRACE);
    }

    /// Kills etcd with SIGKILL.
    pub fn kill_etcd(&self) {
        self.component(Part::Etcd).kill();
    }

    /// Starts etcd again and waits until it serves.
    pub async fn start_etcd(&self) -> Result<()> {
        self.start_etcd_at(Instant::now() + START_TIMEOUT).await
    }

    async fn start_etcd_at(&self, deadline: Instant) -> Result<()> {
        self.component(Part::Etcd).start()?;
        let health = format!("{}/health", self.etcd_url);
        self.wait_until(deadline, "etcd to serve", || async {
            Ok(http_get_plain(&health)
                .await
                .is_ok_and(|b| b.contains("\"health\":\"true\"")))
        })
        .await
    }

    async fn start_apiserver_at(&self, deadline: Instant) -> Result<()> {
        self.component(Part::ApiServer).start()?;
        let client = self.client().await?;
        self.wait_until(deadline, "kube-apiserver /readyz", || async {
            let request = http::Request::get("/readyz").body(Vec::new())?;
            Ok(client
                .request_text(request)
                .await
                .is_ok_and(|t| t.trim() == "ok"))
        })
        .await
    }

    /// Polls `ready` every 100 ms until it returns true; fails at the
    /// deadline, or at once when a started component exits, with the tail of
    /// the relevant logs.
    async fn wait_until<F, Fut>(&self, deadline: Instant, what: &str, mut ready: F) -> Result<()>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<bool>>,
    {
        let mut last_error = None;
        loop {
            for part in ALL_PARTS {
                self.component(part).ensure_running()?;
            }
            match ready().await {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(e) => last_error = Some(e),
            }
            if Instant::now() > deadline {
                let mut message = format!("timed out waiting for {what}");
                if let Some(e) = last_error {
                    message.push_str(&format!(" (last error: {e:#})"));
                }
                for part in ALL_PARTS {
                    let c = self.component(part);
                    message.push_str(&format!("\n--- {} ---\n{}", c.name(), c.log_tail(15)));
                }
                bail!(message);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn component(&self, part: Part) -> MutexGuard<'_, Component> {
        let index = ALL_PARTS.iter().position(|&p| p == part).unwrap_or(0);
        self.components[index]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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

fn args(list: &[String]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
}

fn sanitize(s: &str) -> String {
    s.to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// A new directory under `$TMPDIR/kubegen-testenv/`, named after this
/// process. Directories of processes that no longer exist (a test binary that
/// was killed, or the shared environment, which is never dropped) are removed
/// first.
fn fresh_env_dir() -> Result<PathBuf> {
    static SEQ: AtomicUsize = AtomicUsize::new(0);
    let root = std::env::temp_dir().join("kubegen-testenv");
    std::fs::create_dir_all(&root)?;
    for entry in std::fs::read_dir(&root)?.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_string_lossy()
            .split('-')
            .next()
            .unwrap_or("")
            .to_string();
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(&pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let dir = root.join(format!(
        "{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Concatenates the kwok stages into one config file: every `*.yaml` that
/// `build.sh` copied into the stages directory (the one list of stages
/// lives there), in name order.
fn write_kwok_config(dir: &Path, stages: &Path) -> Result<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(stages)
        .with_context(|| format!("reading {}", stages.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        bail!("no kwok stages in {}", stages.display());
    }
    let mut config = String::new();
    for path in paths {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading kwok stage {}", path.display()))?;
        config.push_str("---\n");
        config.push_str(&text);
        if !text.ends_with('\n') {
            config.push('\n');
        }
    }
    let path = dir.join("kwok.yaml");
    std::fs::write(&path, config)?;
    Ok(path)
}

/// A minimal HTTP/1.0 GET over plain TCP (etcd's health endpoint).
async fn http_get_plain(url: &str) -> Result<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").context("not an http URL")?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut stream =
        tokio::time::timeout(Duration::from_secs(2), tokio::net::TcpStream::connect(host))
            .await??;
    stream
        .write_all(format!("GET /{path} HTTP/1.0\r\nHost: {host}\r\n\r\n").as_bytes())
        .await?;
    let mut body = String::new();
    tokio::time::timeout(Duration::from_secs(2), stream.read_to_string(&mut body)).await??;
    Ok(body)
}

/// A minimal HTTP/1.1 GET against a plain-HTTP server on this machine (an
/// operator's probe server): the status code and the body.
pub async fn http_get(addr: std::net::SocketAddr, path: &str) -> Result<(u16, String)> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    exchange(stream, path, None).await
}

/// What [`https_get`] got back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpsResponse {
    /// The status code.
    pub status: u16,
    /// The body.
    pub body: String,
    /// The server's leaf certificate (DER), to check which one it served.
    pub certificate: Vec<u8>,
}

/// A minimal HTTP/1.1 GET over TLS against a server on this machine (an
/// operator's metrics server), with `Authorization: Bearer <token>` when a
/// token is given. The server's certificate is **not verified** — such
/// servers are often self-signed — but returned, so a test can check it.
pub async fn https_get(
    addr: std::net::SocketAddr,
    path: &str,
    token: Option<&str>,
) -> Result<HttpsResponse> {
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(std::sync::Arc::new(tls::AnyCertificate(provider)))
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(addr).await?;
    let stream = connector
        .connect(rustls::pki_types::ServerName::try_from("localhost")?, tcp)
        .await?;
    let certificate = stream
        .get_ref()
        .1
        .peer_certificates()
        .and_then(|chain| chain.first())
        .context("the server sent no certificate")?
        .to_vec();
    let (status, body) = exchange(stream, path, token).await?;
    Ok(HttpsResponse {
        status,
        body,
        certificate,
    })
}

/// Sends one GET on `stream` and reads the response to its end.
async fn exchange<S>(mut stream: S, path: &str, token: Option<&str>) -> Result<(u16, String)>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let authorization = token
        .map(|token| format!("Authorization: Bearer {token}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: localhost\r\n{authorization}Connection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await?;
    let mut response = Vec::new();
    // A TLS peer may close without close_notify after the body.
    if let Err(error) = stream.read_to_end(&mut response).await
        && (response.is_empty() || error.kind() != std::io::ErrorKind::UnexpectedEof)
    {
        return Err(error.into());
    }
    let response = String::from_utf8(response)?;
    let status = response
        .split_whitespace()
        .nth(1)
        .context("no status line")?
        .parse()?;
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Ok((status, body))
}

/// Polls `check` every 200 ms until it yields `Some`, for at most `timeout`.
/// Fails with `what` and the last error seen. Tests use it to wait for
/// controllers to converge.
pub async fn eventually<T, F, Fut>(timeout: Duration, what: &str, mut check: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Option<T>>>,
{
    let deadline = Instant::now() + timeout;
    let mut last_error = None;
    loop {
        match check().await {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => {}
            Err(e) => last_error = Some(e),
        }
        if Instant::now() > deadline {
            match last_error {
                Some(e) => {
                    bail!("timed out after {timeout:?} waiting for {what}; last error: {e:#}")
                }
                None => bail!("timed out after {timeout:?} waiting for {what}"),
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Applies `crd` with server-side apply (idempotent, so tests sharing a
/// control plane may all call it) and waits until it is Established.
pub async fn install_crd(
    client: &kube::Client,
    crd: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
) -> Result<()> {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let name = crd.metadata.name.clone().context("the CRD has no name")?;
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    crds.patch(
        &name,
        &kube::api::PatchParams::apply("kubegen-testenv").force(),
        &kube::api::Patch::Apply(crd),
    )
    .await
    .with_context(|| format!("applying CRD {name}"))?;
    eventually(
        Duration::from_secs(60),
        &format!("CRD {name} to be Established"),
        || async {
            let crd = crds.get(&name).await?;
            let established = crd
                .status
                .and_then(|s| s.conditions)
                .unwrap_or_default()
                .iter()
                .any(|c| c.type_ == "Established" && c.status == "True");
            Ok(established.then_some(()))
        },
    )
    .await
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
