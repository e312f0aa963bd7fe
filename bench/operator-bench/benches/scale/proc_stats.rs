//! What the scale benchmarks read of an operator process from `/proc` —
//! peak memory, sampled anonymous memory, CPU seconds — and their
//! environment knobs; shared by `scale.rs` and `sharded_scale.rs`.

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
