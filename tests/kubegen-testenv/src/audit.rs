//! The apiserver's audit log: every request made by a ServiceAccount is
//! recorded at `Metadata` level (who, which verb on which resource, and the
//! answer's code — never bodies), so that a test can derive the
//! permissions an operator really used and check its role against them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;

use crate::TestEnv;

/// The policy the apiserver runs with: ServiceAccounts at `Metadata`,
/// nothing else (the tests' admin traffic stays out of the log).
const POLICY: &str = "\
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  userGroups: [\"system:serviceaccounts\"]
- level: None
";

/// Writes the audit policy into `dir` and returns the apiserver flags that
/// enable it, logging to `log`.
pub(crate) fn flags(dir: &Path, log: &Path) -> Result<Vec<String>> {
    let policy = dir.join("audit-policy.yaml");
    std::fs::write(&policy, POLICY)?;
    Ok(vec![
        format!("--audit-policy-file={}", policy.display()),
        format!("--audit-log-path={}", log.display()),
        "--audit-log-format=json".into(),
        // Written before the response is sent: a test reads what it did.
        "--audit-log-mode=blocking".into(),
        "--audit-log-maxbackup=1".into(),
    ])
}

/// One request, as the audit log recorded it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct AuditRecord {
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, ...
    pub verb: String,
    /// The API group (`""` for the core group).
    pub group: String,
    /// The resource (`deployments`); empty for non-resource URLs.
    pub resource: String,
    /// The subresource (`status`), or empty.
    pub subresource: String,
    /// The namespace, or empty.
    pub namespace: String,
    /// The HTTP status code of the answer (0 when the log has none).
    pub code: u16,
    /// Whether authorization (RBAC) allowed the request — a `403` from
    /// admission (a quota, a webhook) comes after an allowed one.
    pub authorized: bool,
}

impl AuditRecord {
    /// `(verb, group, resource[/subresource])`: what a role must grant.
    pub fn permission(&self) -> (String, String, String) {
        let resource = if self.subresource.is_empty() {
            self.resource.clone()
        } else {
            format!("{}/{}", self.resource, self.subresource)
        };
        (self.verb.clone(), self.group.clone(), resource)
    }
}

impl TestEnv {
    /// The apiserver's audit log (JSON lines).
    pub fn audit_log(&self) -> PathBuf {
        self.dir.join("logs").join("audit.log")
    }

    /// Every request the ServiceAccount `namespace/name` made so far, once
    /// each distinct request shape (what a role must cover).
    pub fn audit_records(&self, namespace: &str, name: &str) -> Result<Vec<AuditRecord>> {
        let records: BTreeSet<AuditRecord> =
            self.audit_requests(namespace, name)?.into_iter().collect();
        Ok(records.into_iter().collect())
    }

    /// Every request the ServiceAccount `namespace/name` made so far, in
    /// the log's order, one record per request (for counting requests).
    pub fn audit_requests(&self, namespace: &str, name: &str) -> Result<Vec<AuditRecord>> {
        let user = format!("system:serviceaccount:{namespace}:{name}");
        let path = self.audit_log();
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading the audit log {}", path.display()))?;
        let mut records = Vec::new();
        for line in text.lines() {
            // A line being written when the file was read is incomplete.
            let Ok(event) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if event["user"]["username"].as_str() != Some(&user) {
                continue;
            }
            let field = |value: &Value| value.as_str().unwrap_or_default().to_owned();
            let object = &event["objectRef"];
            records.push(AuditRecord {
                verb: field(&event["verb"]),
                group: field(&object["apiGroup"]),
                resource: field(&object["resource"]),
                subresource: field(&object["subresource"]),
                namespace: field(&object["namespace"]),
                code: event["responseStatus"]["code"]
                    .as_u64()
                    .and_then(|c| u16::try_from(c).ok())
                    .unwrap_or(0),
                authorized: event["annotations"]["authorization.k8s.io/decision"].as_str()
                    == Some("allow"),
            });
        }
        Ok(records)
    }
}
