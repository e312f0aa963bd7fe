//! The apiserver's audit log: every request made by a ServiceAccount is
//! recorded at `Metadata` level (who, which verb on which resource, and the
//! answer's code — never bodies), so that a test can derive the
//! permissions an operator really used and check its role against them.
//! Writes of the resources an environment names in
//! [`Options::audited_writes`](crate::Options::audited_writes) are recorded
//! too, whoever makes them, so that a benchmark can time an operator's
//! reaction to other clients' writes ([`TestEnv::audit_writes`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

use crate::TestEnv;

/// A resource whose writes (create, update, patch) the audit log records
/// whoever makes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditedResource {
    /// The API group (`""` for the core group).
    pub group: String,
    /// The resource, or `resource/subresource` (`deployments/status`).
    pub resource: String,
}

impl AuditedResource {
    /// The resource `resource` (or `resource/subresource`) of `group`.
    pub fn new(group: &str, resource: &str) -> Self {
        AuditedResource {
            group: group.to_owned(),
            resource: resource.to_owned(),
        }
    }
}

/// The policy the apiserver runs with: ServiceAccounts at `Metadata`, then
/// the writes of `audited` by anyone, nothing else (the tests' admin
/// traffic stays out of the log).
fn policy(audited: &[AuditedResource]) -> String {
    let mut policy = String::from(
        "apiVersion: audit.k8s.io/v1\n\
         kind: Policy\n\
         omitStages: [RequestReceived]\n\
         rules:\n\
         - level: Metadata\n  userGroups: [\"system:serviceaccounts\"]\n",
    );
    if !audited.is_empty() {
        policy.push_str("- level: Metadata\n  verbs: [create, update, patch]\n  resources:\n");
        for resource in audited {
            // A JSON string is a YAML scalar that means what it says,
            // whatever it holds.
            policy.push_str(&format!(
                "  - group: {}\n    resources: [{}]\n",
                Value::from(resource.group.as_str()),
                Value::from(resource.resource.as_str())
            ));
        }
    }
    policy.push_str("- level: None\n");
    policy
}

/// Writes the audit policy into `dir` and returns the apiserver flags that
/// enable it, logging to `log`.
pub(crate) fn flags(dir: &Path, log: &Path, audited: &[AuditedResource]) -> Result<Vec<String>> {
    let policy_file = dir.join("audit-policy.yaml");
    std::fs::write(&policy_file, policy(audited))?;
    Ok(vec![
        format!("--audit-policy-file={}", policy_file.display()),
        format!("--audit-log-path={}", log.display()),
        "--audit-log-format=json".into(),
        // Written before the response is sent: a test reads what it did.
        "--audit-log-mode=blocking".into(),
        // Never rotated (the default rotates at 100 MB, which a scale run
        // approaches): readers see every request.
        "--audit-log-maxsize=0".into(),
    ])
}

/// One write, as the audit log recorded it, with who made it, on which
/// object, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditedWrite {
    /// Who made it (`system:serviceaccount:ns:name`, `kubernetes-admin`).
    pub user: String,
    /// The request: a write ([`AuditRecord::is_write`]).
    pub request: AuditRecord,
    /// The object's name (a create's too), or empty.
    pub name: String,
    /// When the apiserver received the request.
    pub received: Timestamp,
    /// When the apiserver had answered it.
    pub completed: Timestamp,
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

/// The verbs that write.
const WRITE_VERBS: [&str; 5] = ["create", "update", "patch", "delete", "deletecollection"];

impl AuditRecord {
    /// The request one audit event records.
    fn of(event: &Value) -> Self {
        let object = &event["objectRef"];
        AuditRecord {
            verb: text(&event["verb"]),
            group: text(&object["apiGroup"]),
            resource: text(&object["resource"]),
            subresource: text(&object["subresource"]),
            namespace: text(&object["namespace"]),
            code: event["responseStatus"]["code"]
                .as_u64()
                .and_then(|c| u16::try_from(c).ok())
                .unwrap_or(0),
            authorized: event["annotations"]["authorization.k8s.io/decision"].as_str()
                == Some("allow"),
        }
    }

    /// Whether the request writes (create, update, patch, delete,
    /// deletecollection).
    pub fn is_write(&self) -> bool {
        WRITE_VERBS.contains(&self.verb.as_str())
    }

    /// `(verb, group, resource[/subresource])`: what a role must grant.
    pub fn permission(&self) -> (String, String, String) {
        let resource = if self.subresource.is_empty() {
            self.resource.clone()
        } else {
            format!("{}/{}", self.resource, self.subresource)
        };
        (self.verb.clone(), self.group.clone(), resource)
    }

    /// Every permission the request needed: its [`permission`](Self::permission),
    /// and for a `patch` answered `201 Created` — a server-side apply that
    /// made the object, which the apiserver also authorizes as `create`,
    /// though the audit event says `patch` — the `create` permission too.
    pub fn permissions(&self) -> Vec<(String, String, String)> {
        let (verb, group, resource) = self.permission();
        let created = verb == "patch" && self.code == 201;
        let create = created.then(|| ("create".to_string(), group.clone(), resource.clone()));
        std::iter::once((verb, group, resource))
            .chain(create)
            .collect()
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
        Ok(self
            .audit_events()?
            .iter()
            .filter(|event| event["user"]["username"].as_str() == Some(&user))
            .map(AuditRecord::of)
            .collect())
    }

    /// Every write (create, update, patch, delete) the log holds, by anyone,
    /// in the log's order: ServiceAccounts' writes and those of the
    /// resources in [`Options::audited_writes`](crate::Options::audited_writes).
    pub fn audit_writes(&self) -> Result<Vec<AuditedWrite>> {
        Ok(self
            .audit_events()?
            .iter()
            .filter_map(audited_write)
            .collect())
    }

    /// The events of the log, in order.
    fn audit_events(&self) -> Result<Vec<Value>> {
        let path = self.audit_log();
        let log = std::fs::read_to_string(&path)
            .with_context(|| format!("reading the audit log {}", path.display()))?;
        // A line being written when the file was read is incomplete.
        Ok(log
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect())
    }
}

/// A string field of an event, empty when absent.
fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// The write `event` records, if it records a write answered.
fn audited_write(event: &Value) -> Option<AuditedWrite> {
    let request = AuditRecord::of(event);
    if !request.is_write() || event["stage"].as_str() != Some("ResponseComplete") {
        return None;
    }
    let time = |value: &Value| value.as_str()?.parse::<Timestamp>().ok();
    Some(AuditedWrite {
        user: text(&event["user"]["username"]),
        request,
        name: text(&event["objectRef"]["name"]),
        received: time(&event["requestReceivedTimestamp"])?,
        completed: time(&event["stageTimestamp"])?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules of a policy, as the apiserver reads them (YAML).
    fn rules(audited: &[AuditedResource]) -> Vec<serde_yaml::Value> {
        let policy: serde_yaml::Value = serde_yaml::from_str(&policy(audited)).unwrap();
        policy["rules"].as_sequence().unwrap().clone()
    }

    #[test]
    fn the_default_policy_records_service_accounts_only() {
        let rules = rules(&[]);
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0]["userGroups"][0], "system:serviceaccounts");
        assert_eq!(rules[1]["level"], "None");
    }

    #[test]
    fn audited_resources_add_a_rule_for_their_writes_before_the_catch_all() {
        // A name YAML would read as something else unquoted.
        let rules = rules(&[
            AuditedResource::new("apps", "deployments/status"),
            AuditedResource::new("", "no: [x]"),
        ]);
        assert_eq!(rules.len(), 3);
        let writes = &rules[1];
        assert_eq!(writes["level"], "Metadata");
        assert_eq!(
            writes["verbs"],
            serde_yaml::from_str::<serde_yaml::Value>("[create, update, patch]").unwrap()
        );
        assert_eq!(writes["resources"][0]["group"], "apps");
        assert_eq!(writes["resources"][0]["resources"][0], "deployments/status");
        assert_eq!(writes["resources"][1]["group"], "");
        assert_eq!(writes["resources"][1]["resources"][0], "no: [x]");
        assert_eq!(rules[2]["level"], "None");
    }

    #[test]
    fn a_write_is_read_with_its_times_and_other_lines_are_skipped() {
        let line = r#"{"kind":"Event","stage":"ResponseComplete","verb":"create","user":{"username":"kubernetes-admin"},"objectRef":{"resource":"myapplications","namespace":"a","name":"app-1","apiGroup":"stable.example.com"},"requestReceivedTimestamp":"2026-11-27T15:01:02.123456Z","stageTimestamp":"2026-11-27T15:01:02.125956Z"}"#;
        // As the log is read: a line that does not parse is skipped.
        let read = |line: &str| audited_write(&serde_json::from_str(line).ok()?);
        let write = read(line).unwrap();
        assert_eq!(write.user, "kubernetes-admin");
        assert_eq!(
            (write.request.verb.as_str(), write.name.as_str()),
            ("create", "app-1")
        );
        assert_eq!(write.request.group, "stable.example.com");
        assert_eq!(write.request.subresource, "");
        assert_eq!(
            write.completed.duration_since(write.received),
            k8s_openapi::jiff::SignedDuration::from_micros(2500)
        );
        // A read, a write not answered yet, a line cut short.
        assert!(read(&line.replace("\"create\"", "\"get\"")).is_none());
        assert!(read(&line.replace("ResponseComplete", "ResponseStarted")).is_none());
        assert!(read(&line[..line.len() - 5]).is_none());
    }
}
