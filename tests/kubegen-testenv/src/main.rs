//! `kubegen-testenv`: starts the local control plane for people (`up`) and
//! measures its start-up (`bench-startup`).

use anyhow::{Context, Result, bail};
use kubegen_testenv::{Options, TestEnv};

const USAGE: &str = "\
usage: kubegen-testenv <command> [options]

commands:
  up [--nodes N]                 start a local control plane (etcd, kube-apiserver,
                                 kube-controller-manager, kube-scheduler, kwok with N
                                 fake nodes, default 3) and keep it running until Ctrl-C
  bench-startup [--runs N]       start and stop a control plane N times (default 5) with
                                 the binaries already built; print each start-up time,
                                 the median and the plane's memory
  build                          build the control-plane binaries (if missing) and print
                                 their directory
";

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, rest) = args
        .split_first()
        .map_or(("", &[][..]), |(c, r)| (c.as_str(), r));
    match command {
        "up" => {
            up(Options {
                nodes: flag(rest, "--nodes", 3)?,
                ..Options::default()
            })
            .await
        }
        "bench-startup" => bench_startup(flag(rest, "--runs", 5)?).await,
        "build" => {
            let dir = kubegen_testenv::ControlPlaneDir::locate()?;
            println!("{}", dir.bin_dir().display());
            Ok(())
        }
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            Ok(())
        }
        other => {
            eprint!("{USAGE}");
            bail!("unknown command {other:?}")
        }
    }
}

fn flag(args: &[String], name: &str, default: usize) -> Result<usize> {
    let mut iter = args.iter();
    let mut value = default;
    while let Some(arg) = iter.next() {
        if arg == name {
            let v = iter
                .next()
                .with_context(|| format!("{name} needs a value"))?;
            value = v.parse().with_context(|| format!("{name} {v:?}"))?;
        } else {
            bail!("unknown option {arg:?}\n{USAGE}");
        }
    }
    Ok(value)
}

async fn up(options: Options) -> Result<()> {
    let env = TestEnv::start_with(options).await?;
    let kubeconfig = env.kubeconfig().display().to_string();
    println!(
        "control plane ready in {:.1} s",
        env.startup_time().as_secs_f64()
    );
    println!("apiserver:  {}", env.apiserver_url());
    println!("kubeconfig: {kubeconfig}");
    println!("logs:       {}", env.dir().join("logs").display());
    println!();
    println!("export KUBECONFIG={kubeconfig}");
    println!("export PATH={}:$PATH", env.bin_dir().display());
    println!();
    println!("Press Ctrl-C to stop.");
    wait_for_shutdown_signal().await?;
    println!("stopping control plane");
    drop(env);
    Ok(())
}

async fn wait_for_shutdown_signal() -> Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r?,
        _ = term.recv() => {}
    }
    Ok(())
}

async fn bench_startup(runs: usize) -> Result<()> {
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    // Build (or find) the binaries first so no run includes the build.
    kubegen_testenv::ControlPlaneDir::locate()?;
    let mut times = Vec::with_capacity(runs);
    for run in 1..=runs {
        let env = TestEnv::start().await?;
        let startup = env.startup_time();
        let rss = env.pids().iter().map(|(_, pid)| rss_kib(*pid)).sum::<u64>();
        println!(
            "run {run}: ready in {:.2} s, plane RSS {:.0} MiB",
            startup.as_secs_f64(),
            rss as f64 / 1024.0
        );
        if run == runs {
            for (part, pid) in env.pids() {
                println!("  {part:?}: {:.0} MiB", rss_kib(pid) as f64 / 1024.0);
            }
        }
        times.push(startup);
        drop(env);
    }
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "start-up over {runs} runs: median {:.2} s, min {:.2} s, max {:.2} s",
        median.as_secs_f64(),
        times[0].as_secs_f64(),
        times[times.len() - 1].as_secs_f64()
    );
    Ok(())
}

/// Resident set size of a process in KiB, from /proc (0 when unknown).
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
