//! Supervision of one control-plane process: start with its log captured,
//! stop gracefully or kill, and never outlive the test process.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// One component of the control plane (etcd, kube-apiserver, ...).
pub(crate) struct Component {
    name: &'static str,
    program: PathBuf,
    args: Vec<OsString>,
    /// Flags added after `args` (see [`Component::set_extra_args`]).
    extra_args: Vec<OsString>,
    log: PathBuf,
    child: Option<Child>,
}

impl Component {
    pub(crate) fn new(
        name: &'static str,
        program: PathBuf,
        args: Vec<OsString>,
        log_dir: &Path,
    ) -> Self {
        Component {
            name,
            program,
            args,
            extra_args: Vec::new(),
            log: log_dir.join(format!("{name}.log")),
            child: None,
        }
    }

    /// The component's name, as used for its log file.
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    /// Path of the log file that receives the process's stdout and stderr
    /// (appended across restarts).
    pub(crate) fn log_path(&self) -> &Path {
        &self.log
    }

    /// Replaces the flags added after the component's own from its next
    /// start on (a later flag overrides an earlier one in Kubernetes
    /// components).
    pub(crate) fn set_extra_args(&mut self, extra: Vec<OsString>) {
        self.extra_args = extra;
    }

    /// Starts the process. Its output is appended to the log file.
    pub(crate) fn start(&mut self) -> Result<()> {
        if self.is_running() {
            bail!("{} is already running", self.name);
        }
        let log = File::options()
            .create(true)
            .append(true)
            .open(&self.log)
            .with_context(|| format!("opening {}", self.log.display()))?;
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .args(&self.extra_args)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        let child = spawn_on_keeper(command)
            .with_context(|| format!("starting {} ({})", self.name, self.program.display()))?;
        self.child = Some(child);
        Ok(())
    }

    /// The process id while the process runs.
    pub(crate) fn pid(&mut self) -> Option<u32> {
        if self.is_running() {
            self.child.as_ref().map(Child::id)
        } else {
            None
        }
    }

    /// Whether the process was started and has not exited.
    pub(crate) fn is_running(&mut self) -> bool {
        match &mut self.child {
            Some(child) => matches!(child.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// Fails with the log's tail when the process has exited.
    pub(crate) fn ensure_running(&mut self) -> Result<()> {
        if let Some(child) = &mut self.child
            && let Ok(Some(status)) = child.try_wait()
        {
            bail!(
                "{} exited with {status}; last lines of {}:\n{}",
                self.name,
                self.log.display(),
                self.log_tail(40)
            );
        }
        Ok(())
    }

    /// Sends SIGTERM and waits up to `grace` for the process to exit, then
    /// SIGKILLs it.
    pub(crate) fn stop(&mut self, grace: Duration) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        signal(&child, libc::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if matches!(child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// SIGKILLs the process and reaps it.
    pub(crate) fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The last `lines` lines of the component's log.
    pub(crate) fn log_tail(&self, lines: usize) -> String {
        tail(&self.log, lines)
    }
}

impl Drop for Component {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The last `lines` lines of a text file (reads at most its last 64 KiB).
pub(crate) fn tail(path: &Path, lines: usize) -> String {
    let Ok(mut file) = File::open(path) else {
        return format!("(no log at {})", path.display());
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = file.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)));
    let mut text = String::new();
    let mut bytes = Vec::new();
    let _ = file.read_to_end(&mut bytes);
    text.push_str(&String::from_utf8_lossy(&bytes));
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn signal(child: &Child, signal: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) on the pid of a child we have not reaped yet, so
        // the pid cannot have been reused.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(pid, signal);
        }
    }
}

type SpawnRequest = (Command, mpsc::Sender<std::io::Result<Child>>);

/// Spawns `command` from a thread that lives as long as the process, with
/// PR_SET_PDEATHSIG=SIGKILL: the kernel kills the child when that thread
/// (and so the test process) goes away, also on panic, `process::exit` or
/// SIGKILL — cases where no destructor runs. The death signal follows the
/// *thread* that spawned the child, which is why a test thread (which ends
/// after its test) must not spawn directly.
fn spawn_on_keeper(command: Command) -> Result<Child> {
    static KEEPER: OnceLock<mpsc::Sender<SpawnRequest>> = OnceLock::new();
    let keeper = KEEPER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnRequest>();
        std::thread::Builder::new()
            .name("kubegen-testenv-keeper".into())
            .spawn(move || {
                for (mut command, reply) in rx {
                    let _ = reply.send(spawn_with_death_signal(&mut command));
                }
                // The channel's sender lives in a static, so this loop never
                // ends while the process runs.
            })
            .expect("spawning the keeper thread");
        tx
    });
    let (reply_tx, reply_rx) = mpsc::channel();
    keeper
        .send((command, reply_tx))
        .map_err(|_| anyhow::anyhow!("keeper thread is gone"))?;
    Ok(reply_rx.recv()??)
}

fn spawn_with_death_signal(command: &mut Command) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs between fork and exec and only calls prctl(2),
    // which is async-signal-safe.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command.spawn()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sleeper(dir: &Path) -> Component {
        Component::new(
            "sleeper",
            PathBuf::from("/bin/sh"),
            vec!["-c".into(), "echo started; exec sleep 30".into()],
            dir,
        )
    }

    #[test]
    fn start_stop_and_log() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = sleeper(dir.path());
        assert!(!c.is_running());
        c.start().unwrap();
        assert!(c.is_running());
        assert!(c.start().is_err(), "double start must fail");
        let deadline = Instant::now() + Duration::from_secs(5);
        while c.log_tail(5).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        c.stop(Duration::from_secs(5));
        assert!(!c.is_running());
        assert_eq!(c.log_tail(5), "started");
        // Restart appends to the same log.
        c.start().unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while c.log_tail(5) != "started\nstarted" && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(c.log_tail(5), "started\nstarted");
        c.kill();
        assert!(!c.is_running());
    }

    #[test]
    fn ensure_running_reports_exit_with_log() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Component::new(
            "failing",
            PathBuf::from("/bin/sh"),
            vec!["-c".into(), "echo 'fatal: bad flag' >&2; exit 3".into()],
            dir.path(),
        );
        c.start().unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while c.is_running() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let err = c.ensure_running().unwrap_err().to_string();
        assert!(err.contains("exit status: 3"), "{err}");
        assert!(err.contains("fatal: bad flag"), "{err}");
    }

    #[test]
    fn tail_keeps_last_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, "a\nb\nc\nd\n").unwrap();
        assert_eq!(tail(&path, 2), "c\nd");
        assert_eq!(tail(&path, 10), "a\nb\nc\nd");
        assert!(tail(&dir.path().join("missing"), 3).starts_with("(no log"));
    }
}
