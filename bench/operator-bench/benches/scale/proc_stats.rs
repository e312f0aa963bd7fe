//! What the scale benchmarks read of an operator process from `/proc` —
//! peak memory, sampled anonymous memory, CPU seconds — how they start it
//! (under a wrapper, when asked), and their environment knobs; shared by
//! `scale.rs` and `sharded_scale.rs`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The number in environment variable `name`, else `default`.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The command running `binary` under the wrapper command in environment
/// variable `wrapper_var` (program and arguments, split at whitespace; e.g.
/// valgrind, for `bench/layout/order.py`'s trace of the functions the
/// operator runs), or directly when it is unset or empty.
pub fn wrapped_command(wrapper_var: &str, binary: &std::path::Path) -> std::process::Command {
    let wrapper = std::env::var(wrapper_var).unwrap_or_default();
    match wrapper.split_whitespace().collect::<Vec<_>>().split_first() {
        Some((program, args)) => {
            let mut command = std::process::Command::new(program);
            command.args(args).arg(binary);
            command
        }
        None => std::process::Command::new(binary),
    }
}

/// A field of `/proc/<pid>/status` (`VmHWM:`, `RssAnon:`), in KiB.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field))
                .map(|v| v.trim().trim_end_matches("kB").trim().to_string())
        })
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Samples the `RssAnon` of process `pid` every 50 ms and keeps the
/// highest in `peak` (KiB) until aborted: the kernel keeps a high-water
/// mark of the whole RSS only (`VmHWM`), not of its anonymous part.
pub fn sample_peak_anon(pid: u32, peak: Arc<AtomicU64>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            peak.fetch_max(status_kib(pid, "RssAnon:"), Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
}

/// User + system CPU seconds of a process (`/proc/<pid>/stat` fields 14 and
/// 15, in USER_HZ = 100 ticks per second on Linux).
pub fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return f64::NAN;
    };
    // The command name (field 2) may hold spaces; fields restart after ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok());
    match (ticks(11), ticks(12)) {
        (Some(user), Some(system)) => (user + system) / 100.0,
        _ => f64::NAN,
    }
}
