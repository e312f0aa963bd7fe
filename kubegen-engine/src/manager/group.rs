//! A [`Group`] of runnables running as tasks and stopped together: drained
//! within a deadline, or aborted at once.

use std::collections::HashMap;

use tokio::task::{Id, JoinError, JoinSet};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::runnable::{BoxError, Runnable};

/// A runnable that returned an error or panicked.
#[derive(Debug)]
pub(super) struct Failure {
    pub(super) name: String,
    pub(super) error: BoxError,
}

/// Runnables started together, sharing one shutdown token.
pub(super) struct Group {
    shutdown: CancellationToken,
    tasks: JoinSet<Result<(), BoxError>>,
    names: HashMap<Id, String>,
}

impl Group {
    /// Spawns every runnable.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    pub(super) fn start(runnables: Vec<Box<dyn Runnable>>) -> Self {
        let shutdown = CancellationToken::new();
        let mut tasks = JoinSet::new();
        let mut names = HashMap::new();
        for runnable in runnables {
            let name = runnable.name().to_owned();
            tracing::info!(runnable = %name, "starting");
            let task = tasks.spawn(runnable.run(shutdown.clone()));
            names.insert(task.id(), name);
        }
        Group {
            shutdown,
            tasks,
            names,
        }
    }

    /// Resolves when a runnable fails; pending while none does, forever once
    /// all have returned. Cancel-safe.
    pub(super) async fn failure(&mut self) -> Failure {
        loop {
            match self.tasks.join_next_with_id().await {
                Some(joined) => {
                    if let Some(failure) = self.ended(joined) {
                        return failure;
                    }
                }
                None => std::future::pending().await,
            }
        }
    }

    /// Records that a task ended; the failure, if it failed.
    fn ended(&mut self, joined: Result<(Id, Result<(), BoxError>), JoinError>) -> Option<Failure> {
        let (id, error) = match joined {
            Ok((id, Ok(()))) => (id, None),
            Ok((id, Err(error))) => (id, Some(error)),
            Err(join) if join.is_panic() => (join.id(), Some(join.to_string().into())),
            Err(join) => (join.id(), None),
        };
        let name = self.names.remove(&id).unwrap_or_default();
        match error {
            None => {
                tracing::info!(runnable = %name, "stopped");
                None
            }
            Some(error) => Some(Failure { name, error }),
        }
    }

    /// Cancels the token and waits until `deadline` for every runnable to
    /// return; aborts those still running then and returns their names,
    /// sorted. Failures during the drain are logged.
    pub(super) async fn drain(mut self, deadline: Instant) -> Vec<String> {
        self.shutdown.cancel();
        let drained = tokio::time::timeout_at(deadline, async {
            while let Some(joined) = self.tasks.join_next_with_id().await {
                if let Some(Failure { name, error }) = self.ended(joined) {
                    tracing::error!(runnable = %name, %error, "failed while stopping");
                }
            }
        })
        .await;
        if drained.is_ok() {
            return Vec::new();
        }
        let mut aborted: Vec<String> = self.names.values().cloned().collect();
        kubegen_core::sorting::sort(&mut aborted);
        tracing::warn!(runnables = ?aborted, "still running at the drain deadline; aborting");
        self.abort().await;
        aborted
    }

    /// Cancels the token, aborts every runnable at once and waits for the
    /// tasks to end.
    pub(super) async fn abort(mut self) {
        self.shutdown.cancel();
        self.tasks.abort_all();
        while self.tasks.join_next().await.is_some() {}
    }
}
