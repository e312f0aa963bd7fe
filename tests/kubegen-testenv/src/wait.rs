//! Waiting for a cluster to converge: poll a check until it yields a value.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};

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
