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
//! let configmaps = kubegen_client::Api::<ConfigMap>::namespaced(env.client().await?, &ns);
//! assert!(configmaps.list(&Default::default()).await?.items.is_empty());
//! # Ok(()) }
//! ```

mod audit;
mod binaries;
mod clients;
mod components;
mod crd;
mod etcd;
mod files;
mod http;
mod kubeconfig;
mod nodes;
mod pki;
mod plane;
mod pod_security;
mod ports;
mod process;
mod setup;
mod tls;
mod tools;
mod wait;

pub use audit::{AuditRecord, AuditedResource, AuditedWrite};
pub use binaries::{CONTROL_PLANE_DIR_ENV, ControlPlaneDir, build_script};
pub use crd::install_crd;
pub use etcd::EtcdEntry;
pub use http::{HttpsResponse, http_get, https_get};
pub use nodes::FAKE_NODE_ANNOTATION;
pub use pki::CertFiles;
pub use plane::{KEEP_ENV, Options, Part, TestEnv};
pub use pod_security::read_deployment;
pub use ports::free_loopback_port;
pub use tools::{cert_manager_module, go_install, helm};
pub use wait::eventually;
