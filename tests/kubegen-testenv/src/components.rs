//! Each component of a running plane on its own: stop, kill and start
//! again (for fault tests), wait until it serves, and wait for a condition
//! while failing at once when a started component exits.

use std::sync::MutexGuard;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

use crate::http::http_get_plain;
use crate::plane::{ALL_PARTS, START_TIMEOUT};
use crate::process::Component;
use crate::{Part, TestEnv};

/// How long one component may take to stop after SIGTERM.
const STOP_GRACE: Duration = Duration::from_secs(10);

impl TestEnv {
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
    ///
    /// A `--feature-gates` flag here adds to
    /// [`Options::feature_gates`](crate::Options::feature_gates) rather than
    /// replacing them: the apiserver merges repeated `--feature-gates`
    /// flags, and for a gate named in both, the flag given here wins (it
    /// comes later). Write gates without the `kube:` component prefix, as
    /// the apiserver refuses a mix of the two forms.
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

    pub(crate) async fn start_etcd_at(&self, deadline: Instant) -> Result<()> {
        self.component(Part::Etcd).start()?;
        let health = format!("{}/health", self.etcd_url);
        self.wait_until(deadline, "etcd to serve", || async {
            Ok(http_get_plain(&health)
                .await
                .is_ok_and(|b| b.contains("\"health\":\"true\"")))
        })
        .await
    }

    pub(crate) async fn start_apiserver_at(&self, deadline: Instant) -> Result<()> {
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
    pub(crate) async fn wait_until<F, Fut>(
        &self,
        deadline: Instant,
        what: &str,
        mut ready: F,
    ) -> Result<()>
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

    pub(crate) fn component(&self, part: Part) -> MutexGuard<'_, Component> {
        let index = ALL_PARTS.iter().position(|&p| p == part).unwrap_or(0);
        self.components[index]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
