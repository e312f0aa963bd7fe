//! The scale bench's timing of the operator's reactions from the audit log
//! (`benches/scale/reaction.rs`), tested here: the bench has no test
//! harness.

#[expect(
    dead_code,
    reason = "the audit policy's resources are the bench's to use"
)]
#[path = "../benches/scale/reaction.rs"]
mod reaction;

use std::time::Duration;

use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kubegen_testenv::{AuditRecord, AuditedWrite};
use my_application::controller::desired;
use reaction::reactions;

const OPERATOR: &str = "system:serviceaccount:scale-system:operator";

/// A write at `received` answered 2 ms later (times in ms).
fn write(
    user: &str,
    verb: &str,
    group: &str,
    resource: &str,
    name: &str,
    received: i64,
) -> AuditedWrite {
    let (resource, subresource) = resource.split_once('/').unwrap_or((resource, ""));
    let at = |ms: i64| Timestamp::from_millisecond(1_800_000_000_000 + ms).unwrap();
    AuditedWrite {
        user: user.into(),
        request: AuditRecord {
            verb: verb.into(),
            group: group.into(),
            resource: resource.into(),
            subresource: subresource.into(),
            namespace: "ns".into(),
            code: 200,
            authorized: true,
        },
        name: name.into(),
        received: at(received),
        completed: at(received + 2),
    }
}

/// One application's writes: created at 0 (answered at 2); the
/// operator's Deployment create at 5; the deployment controller's
/// status writes at 20 and 40 (answered at 22 and 42); the operator's
/// status patches at 8 and 45, and a later Deployment status write at
/// 60 that the operator did not answer.
fn one_application(name: &str) -> Vec<AuditedWrite> {
    let deployment = desired::deployment_name(name);
    let group = "stable.example.com";
    let deployment_status = |at| {
        write(
            "kcm",
            "update",
            "apps",
            "deployments/status",
            &deployment,
            at,
        )
    };
    vec![
        write("admin", "create", group, "myapplications", name, 0),
        write(OPERATOR, "create", "apps", "deployments", &deployment, 5),
        write(OPERATOR, "patch", group, "myapplications/status", name, 8),
        deployment_status(20),
        deployment_status(40),
        write(OPERATOR, "patch", group, "myapplications/status", name, 45),
        deployment_status(60),
    ]
}

#[test]
fn adds_the_reaction_to_the_create_and_to_the_last_status_before_ready() {
    // 5 - 2 = 3 ms to the create, 45 - 42 = 3 ms to the status.
    let reactions = reactions(&one_application("app-1"), OPERATOR, "warm-up");
    assert_eq!(reactions, [Duration::from_millis(6)]);
}

#[test]
fn skips_the_named_application_and_those_the_log_does_not_show_through() {
    let mut writes = one_application("warm-up");
    // Created, but never patched.
    writes.push(write(
        "admin",
        "create",
        "stable.example.com",
        "myapplications",
        "app-2",
        0,
    ));
    assert!(reactions(&writes, OPERATOR, "warm-up").is_empty());
}

#[test]
fn a_reaction_the_watch_delivered_before_the_answer_counts_as_zero() {
    let mut writes = one_application("app-1");
    // The operator's create arrives 1 ms before the application's
    // create was answered.
    writes[1].received = writes[0].completed - SignedDuration::from_millis(1);
    assert_eq!(
        reactions(&writes, OPERATOR, "warm-up"),
        [Duration::from_millis(3)]
    );
}

#[test]
fn writes_of_the_operator_are_not_mistaken_for_the_benchs_and_back() {
    let mut writes = one_application("app-1");
    // The operator created the application: no create by the bench.
    writes[0].user = OPERATOR.into();
    assert!(reactions(&writes, OPERATOR, "warm-up").is_empty());
}
