//! What a subscriber prints, captured as text: for this module's tests and,
//! through the `test-support` feature, the engine's (its controller's
//! reconcile spans). Not built into operators.

use std::sync::Arc;

use parking_lot::Mutex;

use super::{LogFormat, parse_filter, subscriber};

/// Collects what a subscriber writes.
#[derive(Clone, Default)]
pub(crate) struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock()).into_owned()
    }
}

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `log` with a `format` subscriber at level debug and returns
/// what it printed.
pub fn capture(format: LogFormat, log: impl FnOnce()) -> String {
    capture_styled("debug", format, false, log)
}

/// Runs `log` with a `format` subscriber filtered by `filter`, coloured
/// when `ansi`, and returns what it printed.
pub(crate) fn capture_styled(
    filter: &str,
    format: LogFormat,
    ansi: bool,
    log: impl FnOnce(),
) -> String {
    let out = Captured::default();
    let writer = out.clone();
    let sub = subscriber(format, parse_filter(filter).unwrap(), ansi, move || {
        writer.clone()
    });
    tracing::subscriber::with_default(sub, log);
    out.text()
}
