//! The client-go programs the benchmarks compare against
//! (`bench/peer-client-go/`): built once through its `build.sh` (Go module
//! proxy, cached under `~/.cache/kubegen/peer-client-go/`) and run as child
//! processes that print JSON lines.

use std::path::PathBuf;
use std::process::Command;

/// The client-go version the programs pin (`bench/peer-client-go/go.mod`).
pub fn client_go_version() -> String {
    let go_mod = repo().join("bench/peer-client-go/go.mod");
    std::fs::read_to_string(go_mod)
        .ok()
        .and_then(|text| {
            text.lines()
                .map(str::trim)
                .find_map(|l| l.strip_prefix("k8s.io/client-go "))
                .map(|v| v.split_whitespace().next().unwrap_or(v).to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// Path of the built program `name`, or why there is none (no Go, a
/// failed build): the benchmark then reports kubegen alone.
pub fn program(name: &str) -> Result<PathBuf, String> {
    let script = repo().join("bench/peer-client-go/build.sh");
    let output = Command::new("bash")
        .arg(&script)
        .output()
        .map_err(|e| format!("running {}: {e}", script.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let dir = stdout.lines().last().unwrap_or_default().trim();
    let path = PathBuf::from(dir).join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!("{} did not build {name}", script.display()))
    }
}

/// Runs `command` and parses every stdout line as JSON.
pub fn json_lines(command: &mut Command) -> Result<Vec<serde_json::Value>, String> {
    let output = command
        .output()
        .map_err(|e| format!("running {command:?}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{command:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{e}: {l}")))
        .collect()
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}
