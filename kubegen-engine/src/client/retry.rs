//! Retries of optimistic concurrency conflicts, as client-go's
//! `retry.RetryOnConflict`: run a read-modify-write again, after a jittered
//! backoff, while it fails with `409 Conflict`.
//!
//! ```no_run
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kubegen::Api;
//! use kubegen::client::retry_on_conflict;
//!
//! # async fn demo(api: Api<ConfigMap>) -> Result<(), kubegen::Error> {
//! // Re-read and retry when another writer changed the object meanwhile.
//! let updated = retry_on_conflict(|| async {
//!     let mut fresh = api.get("child").await?;
//!     fresh.data.get_or_insert_default().insert("seen".into(), "yes".into());
//!     api.replace("child", &Default::default(), &fresh).await
//! })
//! .await?;
//! # drop(updated);
//! # Ok(()) }
//! ```

use std::future::Future;

use crate::api_errors::IsConflict;
use crate::jitter::{Backoff, random_fraction};

/// Runs `attempt` (which should read the object afresh, modify and write
/// it) again while it fails with a conflict, with [`Backoff::DEFAULT_RETRY`];
/// returns the first success, the first other error, or the last conflict.
pub async fn retry_on_conflict<T, E, F, Fut>(attempt: F) -> Result<T, E>
where
    E: IsConflict,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    retry_on_conflict_with(Backoff::DEFAULT_RETRY, attempt).await
}

/// [`retry_on_conflict`] with a given backoff.
pub async fn retry_on_conflict_with<T, E, F, Fut>(backoff: Backoff, mut attempt: F) -> Result<T, E>
where
    E: IsConflict,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let mut n = 0;
    loop {
        match attempt().await {
            Err(error) if error.is_conflict() && n + 1 < backoff.steps => {
                tokio::time::sleep(backoff.wait(n, random_fraction())).await;
                n += 1;
            }
            result => return result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[derive(Debug)]
    struct Failure(bool);

    impl IsConflict for Failure {
        fn is_conflict(&self) -> bool {
            self.0
        }
    }

    #[tokio::test(start_paused = true)]
    async fn conflicts_are_retried_five_times_at_most() {
        let tries = AtomicU32::new(0);
        let result: Result<(), Failure> = retry_on_conflict(|| async {
            tries.fetch_add(1, Ordering::SeqCst);
            Err(Failure(true))
        })
        .await;
        assert!(result.is_err());
        assert_eq!(tries.load(Ordering::SeqCst), 5);

        let tries = AtomicU32::new(0);
        let result = retry_on_conflict(|| async {
            let n = tries.fetch_add(1, Ordering::SeqCst);
            if n < 2 { Err(Failure(true)) } else { Ok(n) }
        })
        .await;
        assert_eq!(result.unwrap(), 2);

        let tries = AtomicU32::new(0);
        let result: Result<(), Failure> = retry_on_conflict(|| async {
            tries.fetch_add(1, Ordering::SeqCst);
            Err(Failure(false))
        })
        .await;
        assert!(result.is_err());
        assert_eq!(tries.load(Ordering::SeqCst), 1);
    }
}
