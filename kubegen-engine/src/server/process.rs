//! Process metrics read from procfs at every scrape, under the names of
//! the Prometheus client libraries' process collectors.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

/// Clock ticks per second in procfs times: Linux's `USER_HZ`, 100 on every
/// architecture's user-space ABI.
const TICKS_PER_SECOND: f64 = 100.0;

/// Collects `process_*` metrics of this process from `/proc/self`.
///
/// | name | type |
/// |---|---|
/// | `process_cpu_seconds_total` | counter |
/// | `process_resident_memory_bytes` | gauge |
/// | `process_virtual_memory_bytes` | gauge |
/// | `process_start_time_seconds` | gauge |
/// | `process_open_fds` | gauge |
/// | `process_max_fds` | gauge |
///
/// A value that cannot be read (no procfs) is left out.
#[derive(Debug, Default)]
pub struct ProcessCollector;

/// One reading of the process's figures.
#[derive(Debug, Default, PartialEq)]
struct Reading {
    cpu_seconds: Option<f64>,
    resident_bytes: Option<f64>,
    virtual_bytes: Option<f64>,
    start_time_seconds: Option<f64>,
    open_fds: Option<f64>,
    max_fds: Option<f64>,
}

impl Reading {
    fn now() -> Reading {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let stat = read("/proc/self/stat").as_deref().and_then(parse_stat);
        let boot_time = read("/proc/stat").as_deref().and_then(parse_boot_time);
        Reading {
            cpu_seconds: stat.as_ref().map(|s| s.cpu_ticks as f64 / TICKS_PER_SECOND),
            resident_bytes: read("/proc/self/status")
                .as_deref()
                .and_then(parse_resident_bytes),
            virtual_bytes: stat.as_ref().map(|s| s.virtual_bytes as f64),
            start_time_seconds: stat
                .as_ref()
                .zip(boot_time)
                .map(|(s, boot)| boot as f64 + s.start_ticks as f64 / TICKS_PER_SECOND),
            open_fds: std::fs::read_dir("/proc/self/fd")
                .ok()
                .map(|d| d.count() as f64),
            max_fds: read("/proc/self/limits").as_deref().and_then(parse_max_fds),
        }
    }
}

/// The figures of `/proc/self/stat` used here.
#[derive(Debug, PartialEq)]
struct Stat {
    cpu_ticks: u64,
    start_ticks: u64,
    virtual_bytes: u64,
}

/// Parses `/proc/<pid>/stat`. The command name (field 2) may hold spaces
/// and parentheses, so fields are counted from the last `)`.
fn parse_stat(text: &str) -> Option<Stat> {
    let after_name = &text[text.rfind(')')? + 1..];
    // Fields from 3 (state) on; utime is field 14, stime 15, starttime 22,
    // vsize 23.
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    Some(Stat {
        cpu_ticks: field(14)? + field(15)?,
        start_ticks: field(22)?,
        virtual_bytes: field(23)?,
    })
}

/// The boot time (`btime`, seconds since the epoch) from `/proc/stat`.
fn parse_boot_time(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix("btime "))
        .and_then(|v| v.trim().parse().ok())
}

/// `VmRSS` from `/proc/<pid>/status`, in bytes.
fn parse_resident_bytes(text: &str) -> Option<f64> {
    let value = text.lines().find_map(|line| line.strip_prefix("VmRSS:"))?;
    let kib: f64 = value.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024.0)
}

/// The soft limit of open files from `/proc/<pid>/limits`.
fn parse_max_fds(text: &str) -> Option<f64> {
    let line = text
        .lines()
        .find(|line| line.starts_with("Max open files"))?;
    let soft = line
        .trim_start_matches("Max open files")
        .split_whitespace()
        .next()?;
    soft.parse().ok()
}

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let reading = Reading::now();
        if let Some(v) = reading.cpu_seconds {
            let counter = ConstCounter::new(v);
            let metric = encoder.encode_descriptor(
                "process_cpu_seconds",
                "Total user and system CPU time spent in seconds.",
                None,
                counter.metric_type(),
            )?;
            counter.encode(metric)?;
        }
        let gauges = [
            (
                "process_resident_memory_bytes",
                "Resident memory size in bytes.",
                reading.resident_bytes,
            ),
            (
                "process_virtual_memory_bytes",
                "Virtual memory size in bytes.",
                reading.virtual_bytes,
            ),
            (
                "process_start_time_seconds",
                "Start time of the process since unix epoch in seconds.",
                reading.start_time_seconds,
            ),
            (
                "process_open_fds",
                "Number of open file descriptors.",
                reading.open_fds,
            ),
            (
                "process_max_fds",
                "Maximum number of open file descriptors.",
                reading.max_fds,
            ),
        ];
        for (name, help, value) in gauges {
            if let Some(v) = value {
                let gauge = ConstGauge::new(v);
                let metric = encoder.encode_descriptor(name, help, None, gauge.metric_type())?;
                gauge.encode(metric)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_command_name() {
        let line = "1234 (my (odd) cmd) S 1 1234 1234 0 -1 4194560 500 0 0 0 250 50 0 0 20 0 4 0 987654 123456789 2048 18446744073709551615";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                cpu_ticks: 300,
                start_ticks: 987654,
                virtual_bytes: 123456789
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn status_stat_and_limits_are_parsed() {
        assert_eq!(
            parse_boot_time("cpu 1 2 3\nbtime 1700000000\nprocesses 5\n"),
            Some(1_700_000_000)
        );
        assert_eq!(
            parse_resident_bytes("Name:\tx\nVmRSS:\t    2048 kB\nThreads: 3\n"),
            Some(2048.0 * 1024.0)
        );
        let limits = "Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n";
        assert_eq!(parse_max_fds(limits), Some(1024.0));
    }

    #[test]
    fn this_process_can_be_read() {
        let reading = Reading::now();
        assert!(reading.resident_bytes.is_some_and(|b| b > 0.0));
        assert!(reading.open_fds.is_some_and(|n| n >= 3.0));
        assert!(reading.start_time_seconds.is_some_and(|t| t > 1.5e9));
        assert!(reading.cpu_seconds.is_some());
    }
}
