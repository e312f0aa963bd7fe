//! [`shutdown_signal`]: resolves when the process is asked to stop.

use std::future::Future;
use std::io;

use tokio::signal::unix::{Signal, SignalKind, signal};

/// A future resolving at the first SIGTERM (what the kubelet sends when a
/// pod stops) or SIGINT (Ctrl-C), to pass to
/// [`Controller::run`](super::Controller::run) or a server's shutdown.
///
/// The signal handlers are installed when this function is called, so a
/// signal arriving before the future is first polled is not missed. Once
/// installed, they replace the default action (ending the process) for
/// the life of the process. If a handler cannot be installed, the error is
/// logged and only the other signal is awaited.
///
/// # Panics
///
/// When called outside a Tokio runtime.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    let terminate = signal(SignalKind::terminate());
    let interrupt = signal(SignalKind::interrupt());
    async move {
        tokio::select! {
            () = receive(terminate, "SIGTERM") => {}
            () = receive(interrupt, "SIGINT") => {}
        }
    }
}

/// Waits for one delivery of `signal`, forever when it could not be
/// installed.
async fn receive(signal: io::Result<Signal>, name: &str) {
    match signal {
        Ok(mut signal) => {
            if signal.recv().await.is_some() {
                tracing::info!(signal = name, "shutdown signal received");
                return;
            }
            tracing::warn!(signal = name, "signal stream ended");
        }
        Err(e) => tracing::error!(signal = name, "cannot install a signal handler: {e}"),
    }
    std::future::pending::<()>().await;
}
