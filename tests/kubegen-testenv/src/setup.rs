//! What one plane is made of before anything starts: a fresh directory, the
//! PKI, four free ports, the admin kubeconfig, kwok's stages and the audit
//! policy — and, from them, each component's command line.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, bail};

use crate::kubeconfig::{self, Credentials};
use crate::pki::Pki;
use crate::process::Component;
use crate::{ControlPlaneDir, FAKE_NODE_ANNOTATION, Options, audit, ports};

/// The files, ports and URLs of one plane, ready for its components.
pub(crate) struct Setup {
    pub(crate) binaries: &'static ControlPlaneDir,
    pub(crate) dir: PathBuf,
    logs: PathBuf,
    pub(crate) pki: Pki,
    pub(crate) etcd_url: String,
    etcd_peer_port: u16,
    apiserver_port: u16,
    pub(crate) apiserver_url: String,
    kwok_port: u16,
    /// The admin's kubeconfig, which the controllers use too.
    pub(crate) kubeconfig: PathBuf,
    kwok_config: PathBuf,
    /// The apiserver's audit flags (policy and log).
    audit: Vec<String>,
    /// The apiserver's `--feature-gates` flag, when any gate is set.
    feature_gates: Option<String>,
}

impl Setup {
    /// Locates the binaries; creates a fresh directory with the PKI, the
    /// admin kubeconfig, kwok's config and the audit policy; chooses ports.
    pub(crate) fn prepare(options: &Options) -> Result<Setup> {
        let binaries = ControlPlaneDir::locate()?;
        let dir = fresh_env_dir()?;
        let logs = dir.join("logs");
        std::fs::create_dir_all(&logs)?;
        let pki = Pki::generate(&dir.join("pki"))?;
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
        let feature_gates = feature_gates_flag(&options.feature_gates);
        Ok(Setup {
            binaries,
            dir,
            logs,
            pki,
            etcd_url,
            etcd_peer_port,
            apiserver_port,
            apiserver_url,
            kwok_port,
            kubeconfig,
            kwok_config,
            audit,
            feature_gates,
        })
    }

    /// The five components, in [`Part`](crate::Part) order.
    pub(crate) fn components(&self) -> [Component; 5] {
        [
            self.etcd(),
            self.apiserver(),
            self.controller_manager(),
            self.scheduler(),
            self.kwok(),
        ]
    }

    fn etcd(&self) -> Component {
        let Setup {
            etcd_url,
            etcd_peer_port,
            ..
        } = self;
        Component::new(
            "etcd",
            self.binaries.bin("etcd"),
            args(&[
                "--name=default".into(),
                format!("--data-dir={}", self.dir.join("etcd").display()),
                format!("--listen-client-urls={etcd_url}"),
                format!("--advertise-client-urls={etcd_url}"),
                format!("--listen-peer-urls=http://127.0.0.1:{etcd_peer_port}"),
                format!("--initial-advertise-peer-urls=http://127.0.0.1:{etcd_peer_port}"),
                format!("--initial-cluster=default=http://127.0.0.1:{etcd_peer_port}"),
                "--unsafe-no-fsync".into(),
                "--log-level=warn".into(),
            ]),
            &self.logs,
        )
    }

    fn apiserver(&self) -> Component {
        let Setup {
            pki,
            etcd_url,
            apiserver_port,
            ..
        } = self;
        Component::new(
            "kube-apiserver",
            self.binaries.bin("kube-apiserver"),
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
            .chain(self.audit.iter().map(OsString::from))
            .chain(self.feature_gates.iter().map(OsString::from))
            .collect(),
            &self.logs,
        )
    }

    fn controller_manager(&self) -> Component {
        let Setup {
            pki, kubeconfig, ..
        } = self;
        Component::new(
            "kube-controller-manager",
            self.binaries.bin("kube-controller-manager"),
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
            &self.logs,
        )
    }

    fn scheduler(&self) -> Component {
        let kubeconfig = &self.kubeconfig;
        Component::new(
            "kube-scheduler",
            self.binaries.bin("kube-scheduler"),
            args(&[
                format!("--kubeconfig={}", kubeconfig.display()),
                "--leader-elect=false".into(),
                "--secure-port=0".into(),
                "--kube-api-qps=200".into(),
                "--kube-api-burst=400".into(),
                "--profiling=false".into(),
            ]),
            &self.logs,
        )
    }

    fn kwok(&self) -> Component {
        let Setup {
            kubeconfig,
            kwok_config,
            kwok_port,
            ..
        } = self;
        Component::new(
            "kwok",
            self.binaries.bin("kwok"),
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
            &self.logs,
        )
    }
}

/// One `--feature-gates` flag for `gates` (`Name=bool` each), none for no
/// gates.
fn feature_gates_flag(gates: &[String]) -> Option<String> {
    (!gates.is_empty()).then(|| format!("--feature-gates={}", gates.join(",")))
}

fn args(list: &[String]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_gates_become_one_flag_or_none() {
        assert_eq!(feature_gates_flag(&[]), None);
        assert_eq!(
            feature_gates_flag(&["ShardedListAndWatch=true".into(), "WatchList=false".into()])
                .as_deref(),
            Some("--feature-gates=ShardedListAndWatch=true,WatchList=false")
        );
    }
}
