//! The hand-picked scenarios: what an operator touches, each step built
//! to get the code it names.

use serde_json::{Value, json};

use super::script::{Scenario, Step, apply, patch, req};

pub const GROUP: &str = "conformance.kubegen.dev";
const CM: &str = "/api/v1/namespaces/{ns}/configmaps";
const W: &str = "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/widgets";
const MERGE: &str = "application/merge-patch+json";

/// The CRD the scenarios' custom resources belong to: defaults, bounds,
/// an enum, a pattern, a set, a list map, a CEL rule, a selectable
/// field, the status subresource.
pub fn crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{GROUP}")},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"}},
                "selectableFields": [{"jsonPath": ".spec.color"}],
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "required": ["color"],
                            "x-kubernetes-validations": [{"rule": "self.size <= 5 || self.color != 'red'", "message": "red widgets are small"}],
                            "properties": {
                                "size": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1},
                                "replicas": {"type": "integer", "format": "int32", "minimum": 0},
                                "color": {"type": "string", "enum": ["red", "green", "blue"]},
                                "label": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 12},
                                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                                "ports": {
                                    "type": "array",
                                    "x-kubernetes-list-type": "map",
                                    "x-kubernetes-list-map-keys": ["name"],
                                    "items": {"type": "object", "required": ["name"], "properties": {
                                        "name": {"type": "string"},
                                        "port": {"type": "integer", "format": "int32"}
                                    }}
                                },
                                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
                            }
                        },
                        "status": {"type": "object", "properties": {
                            "phase": {"type": "string"},
                            "replicas": {"type": "integer", "format": "int32"},
                            "selector": {"type": "string"},
                            "observedGeneration": {"type": "integer", "format": "int64"}
                        }}
                    }
                }}
            }]
        }
    })
}

pub fn cm(name: &str, labels: Value, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}, "data": data})
}

pub fn widget(name: &str, spec: Value) -> Value {
    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": name}, "spec": spec})
}

fn s(name: &str, steps: Vec<Step>) -> Scenario {
    Scenario {
        name: name.into(),
        steps,
    }
}

fn one(base: &str, name: &str) -> String {
    format!("{base}/{name}")
}

/// Every hand-picked scenario.
pub fn all() -> Vec<Scenario> {
    vec![
        s(
            "configmap crud",
            vec![
                req(
                    "POST",
                    CM,
                    Some(cm("a", json!({"app": "x"}), json!({"k": "v"}))),
                    201,
                ),
                req("GET", &one(CM, "a"), None, 200),
                req("POST", CM, Some(cm("a", json!({}), json!({}))), 409),
                req(
                    "PUT",
                    &one(CM, "a"),
                    Some(
                        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "resourceVersion": "${0:/metadata/resourceVersion}"}, "data": {"k": "w"}}),
                    ),
                    200,
                ),
                req(
                    "PUT",
                    &one(CM, "a"),
                    Some(
                        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "resourceVersion": "${0:/metadata/resourceVersion}"}, "data": {"k": "stale"}}),
                    ),
                    409,
                ),
                patch(
                    &one(CM, "a"),
                    MERGE,
                    json!({"data": {"k": null, "n": "1"}}),
                    200,
                ),
                req("DELETE", &one(CM, "a"), None, 200),
                req("GET", &one(CM, "a"), None, 404),
                req("DELETE", &one(CM, "a"), None, 404),
            ],
        ),
        s(
            "mismatched requests",
            vec![
                req(
                    "POST",
                    CM,
                    Some(
                        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "namespace": "elsewhere"}}),
                    ),
                    400,
                ),
                req(
                    "POST",
                    CM,
                    Some(json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b"}})),
                    400,
                ),
                req(
                    "POST",
                    CM,
                    Some(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})),
                    422,
                ),
                req(
                    "POST",
                    CM,
                    Some(
                        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Bad_Name"}}),
                    ),
                    422,
                ),
                req("POST", CM, Some(cm("b", json!({}), json!({}))), 201),
                req(
                    "PUT",
                    &one(CM, "b"),
                    Some(cm("c", json!({}), json!({}))),
                    400,
                ),
                req(
                    "PUT",
                    &one(CM, "missing"),
                    Some(cm("missing", json!({}), json!({}))),
                    404,
                ),
                req(
                    "POST",
                    "/api/v1/namespaces/no-such-namespace-kg/configmaps",
                    Some(cm("b", json!({}), json!({}))),
                    404,
                ),
                req(
                    "GET",
                    "/apis/conformance.kubegen.dev/v1/namespaces/{ns}/gadgets",
                    None,
                    404,
                ),
            ],
        ),
        s(
            "generate name",
            vec![
                req(
                    "POST",
                    CM,
                    Some(
                        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-"}}),
                    ),
                    201,
                ),
                req("GET", &one(CM, "${0:/metadata/name}"), None, 200),
            ],
        ),
        s(
            "no-op update writes nothing",
            vec![
                req(
                    "POST",
                    CM,
                    Some(cm("same", json!({"a": "b"}), json!({"k": "v"}))),
                    201,
                ),
                req(
                    "PUT",
                    &one(CM, "same"),
                    Some(cm("same", json!({"a": "b"}), json!({"k": "v"}))),
                    200,
                ),
                patch(&one(CM, "same"), MERGE, json!({"data": {"k": "v"}}), 200),
                req("GET", &one(CM, "same"), None, 200),
            ],
        ),
        s(
            "label and field selectors",
            vec![
                req(
                    "POST",
                    CM,
                    Some(cm("s1", json!({"tier": "web", "n": "1"}), json!({}))),
                    201,
                ),
                req(
                    "POST",
                    CM,
                    Some(cm("s2", json!({"tier": "db", "n": "2"}), json!({}))),
                    201,
                ),
                req(
                    "POST",
                    CM,
                    Some(cm("s3", json!({"n": "3"}), json!({}))),
                    201,
                ),
                req("GET", &format!("{CM}?labelSelector=tier%3Dweb"), None, 200),
                req(
                    "GET",
                    &format!("{CM}?labelSelector=tier%20in%20(web%2Cdb)%2Cn%21%3D2"),
                    None,
                    200,
                ),
                req("GET", &format!("{CM}?labelSelector=!tier%2Cn"), None, 200),
                req("GET", &format!("{CM}?labelSelector=n%3E1"), None, 200),
                req(
                    "GET",
                    &format!("{CM}?fieldSelector=metadata.name%3Ds2"),
                    None,
                    200,
                ),
                req(
                    "GET",
                    &format!("{CM}?fieldSelector=metadata.name%21%3Ds2&labelSelector=n"),
                    None,
                    200,
                ),
                req("GET", &format!("{CM}?fieldSelector=data.x%3Dy"), None, 400),
                req("GET", &format!("{CM}?labelSelector=a%20in%20b"), None, 400),
            ],
        ),
        s(
            "pagination",
            vec![
                req(
                    "POST",
                    CM,
                    Some(cm("p1", json!({"page": "y"}), json!({}))),
                    201,
                ),
                req(
                    "POST",
                    CM,
                    Some(cm("p2", json!({"page": "y"}), json!({}))),
                    201,
                ),
                req(
                    "POST",
                    CM,
                    Some(cm("p3", json!({"page": "y"}), json!({}))),
                    201,
                ),
                req(
                    "GET",
                    &format!("{CM}?labelSelector=page&limit=2"),
                    None,
                    200,
                ),
                req(
                    "POST",
                    CM,
                    Some(cm("p4", json!({"page": "y"}), json!({}))),
                    201,
                ),
                req(
                    "GET",
                    &format!("{CM}?labelSelector=page&limit=2&continue=${{3:/metadata/continue}}"),
                    None,
                    200,
                ),
                req(
                    "GET",
                    &format!("{CM}?labelSelector=page&limit=3"),
                    None,
                    200,
                ),
            ],
        ),
        s(
            "watch from a revision",
            vec![
                req(
                    "POST",
                    CM,
                    Some(cm("w1", json!({"w": "y"}), json!({"v": "1"}))),
                    201,
                ),
                patch(&one(CM, "w1"), MERGE, json!({"data": {"v": "2"}}), 200),
                patch(
                    &one(CM, "w1"),
                    MERGE,
                    json!({"metadata": {"labels": {"w": null}}}),
                    200,
                ),
                req("DELETE", &one(CM, "w1"), None, 200),
                Step::Watch {
                    path: format!(
                        "{CM}?watch=true&labelSelector=w&resourceVersion=${{0:/metadata/resourceVersion}}"
                    ),
                    events: 2,
                },
                Step::Watch {
                    path: format!(
                        "{CM}?watch=true&fieldSelector=metadata.name%3Dw1&resourceVersion=${{0:/metadata/resourceVersion}}"
                    ),
                    events: 3,
                },
            ],
        ),
        s(
            "watch with initial events",
            vec![
                req(
                    "POST",
                    CM,
                    Some(cm("i1", json!({"i": "y"}), json!({}))),
                    201,
                ),
                req(
                    "POST",
                    CM,
                    Some(cm("i2", json!({"i": "y"}), json!({}))),
                    201,
                ),
                Step::Watch {
                    path: format!("{CM}?watch=true&labelSelector=i"),
                    events: 2,
                },
                Step::Watch {
                    path: format!(
                        "{CM}?watch=true&labelSelector=i&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
                    ),
                    events: 3,
                },
            ],
        ),
        s(
            "finalizers hold a deletion",
            vec![
                req(
                    "POST",
                    CM,
                    Some(
                        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "f", "finalizers": ["example.com/hold"]}}),
                    ),
                    201,
                ),
                req("DELETE", &one(CM, "f"), None, 200),
                req("GET", &one(CM, "f"), None, 200),
                patch(
                    &one(CM, "f"),
                    MERGE,
                    json!({"metadata": {"finalizers": ["example.com/hold", "example.com/more"]}}),
                    422,
                ),
                req("DELETE", &one(CM, "f"), None, 200),
                patch(
                    &one(CM, "f"),
                    MERGE,
                    json!({"metadata": {"finalizers": null}}),
                    200,
                ),
                req("GET", &one(CM, "f"), None, 404),
            ],
        ),
        s(
            "delete preconditions",
            vec![
                req("POST", CM, Some(cm("d", json!({}), json!({}))), 201),
                req(
                    "DELETE",
                    &one(CM, "d"),
                    Some(json!({"preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}})),
                    409,
                ),
                req(
                    "DELETE",
                    &one(CM, "d"),
                    Some(json!({"preconditions": {"resourceVersion": "1"}})),
                    409,
                ),
                req(
                    "DELETE",
                    &one(CM, "d"),
                    Some(
                        json!({"preconditions": {"uid": "${0:/metadata/uid}", "resourceVersion": "${0:/metadata/resourceVersion}"}}),
                    ),
                    200,
                ),
            ],
        ),
        s(
            "garbage collection in the background",
            vec![
                req("POST", CM, Some(cm("owner", json!({}), json!({}))), 201),
                req(
                    "POST",
                    CM,
                    Some(
                        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "child", "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "${0:/metadata/uid}"}]}}),
                    ),
                    201,
                ),
                req("DELETE", &one(CM, "owner"), None, 200),
                Step::Await {
                    path: one(CM, "child"),
                    code: 404,
                    present: None,
                },
            ],
        ),
        s(
            "garbage collection in the foreground",
            vec![
                req("POST", CM, Some(cm("fowner", json!({}), json!({}))), 201),
                req(
                    "POST",
                    CM,
                    Some(
                        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fchild", "finalizers": ["example.com/hold"], "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "fowner", "uid": "${0:/metadata/uid}", "blockOwnerDeletion": true}]}}),
                    ),
                    201,
                ),
                req(
                    "DELETE",
                    &one(CM, "fowner"),
                    Some(json!({"propagationPolicy": "Foreground"})),
                    200,
                ),
                Step::Await {
                    path: one(CM, "fchild"),
                    code: 200,
                    present: Some("/metadata/deletionTimestamp"),
                },
                req("GET", &one(CM, "fowner"), None, 200),
                patch(
                    &one(CM, "fchild"),
                    MERGE,
                    json!({"metadata": {"finalizers": null}}),
                    200,
                ),
                Step::Await {
                    path: one(CM, "fowner"),
                    code: 404,
                    present: None,
                },
            ],
        ),
        s(
            "orphaning",
            vec![
                req("POST", CM, Some(cm("oowner", json!({}), json!({}))), 201),
                req(
                    "POST",
                    CM,
                    Some(
                        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ochild", "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "oowner", "uid": "${0:/metadata/uid}"}]}}),
                    ),
                    201,
                ),
                req(
                    "DELETE",
                    &one(CM, "oowner"),
                    Some(json!({"propagationPolicy": "Orphan"})),
                    200,
                ),
                Step::Await {
                    path: one(CM, "oowner"),
                    code: 404,
                    present: None,
                },
                req("GET", &one(CM, "ochild"), None, 200),
            ],
        ),
        s(
            "custom resource defaults, status and generation",
            vec![
                req("POST", W, Some(widget("w", json!({"color": "green"}))), 201),
                req(
                    "PUT",
                    &format!("{}/status", one(W, "w")),
                    Some(
                        json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "w", "resourceVersion": "${0:/metadata/resourceVersion}", "labels": {"ignored": "yes"}}, "spec": {"color": "blue"}, "status": {"phase": "Ready", "observedGeneration": 1}}),
                    ),
                    200,
                ),
                patch(
                    &one(W, "w"),
                    MERGE,
                    json!({"spec": {"size": 3}, "status": {"phase": "Ignored"}}),
                    200,
                ),
                patch(
                    &one(W, "w"),
                    MERGE,
                    json!({"metadata": {"labels": {"x": "y"}}}),
                    200,
                ),
                patch(
                    &format!("{}/status", one(W, "w")),
                    MERGE,
                    json!({"status": {"observedGeneration": 2}}),
                    200,
                ),
                req("GET", &one(W, "w"), None, 200),
                req(
                    "GET",
                    &format!("{W}?fieldSelector=spec.color%3Dgreen"),
                    None,
                    200,
                ),
                req(
                    "GET",
                    &format!("{W}?fieldSelector=spec.size%3D3"),
                    None,
                    400,
                ),
                patch(
                    &one(W, "w"),
                    "application/strategic-merge-patch+json",
                    json!({"spec": {"size": 2}}),
                    415,
                ),
                req(
                    "PUT",
                    &one(W, "w"),
                    Some(widget("w", json!({"color": "green"}))),
                    422,
                ),
            ],
        ),
        s(
            "custom resource validation",
            vec![
                req(
                    "POST",
                    W,
                    Some(widget(
                        "v1",
                        json!({"color": "purple", "size": 0, "label": "UPPER"}),
                    )),
                    422,
                ),
                req(
                    "POST",
                    W,
                    Some(widget("v2", json!({"color": "red", "size": 7}))),
                    422,
                ),
                req("POST", W, Some(widget("v3", json!({"size": 2}))), 422),
                req(
                    "POST",
                    W,
                    Some(widget(
                        "v4",
                        json!({"color": "red", "tags": ["a", "a"], "ports": [{"name": "x"}, {"name": "x"}]}),
                    )),
                    422,
                ),
                req(
                    "POST",
                    W,
                    Some(widget(
                        "v5",
                        json!({"color": "blue", "unknown": 1, "extra": {"kept": true}}),
                    )),
                    201,
                ),
                req(
                    "POST",
                    W,
                    Some(
                        json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "v6"}, "spec": {"color": "blue", "size": "big"}}),
                    ),
                    422,
                ),
                patch(
                    &one(W, "v5"),
                    MERGE,
                    json!({"spec": {"color": "red", "size": 9}}),
                    422,
                ),
            ],
        ),
        s(
            "scale subresource",
            vec![
                req(
                    "POST",
                    W,
                    Some(widget("sc", json!({"color": "blue", "replicas": 2}))),
                    201,
                ),
                patch(
                    &format!("{}/status", one(W, "sc")),
                    MERGE,
                    json!({"status": {"replicas": 2, "selector": "app=sc"}}),
                    200,
                ),
                req("GET", &format!("{}/scale", one(W, "sc")), None, 200),
                req(
                    "PUT",
                    &format!("{}/scale", one(W, "sc")),
                    Some(
                        json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "sc", "resourceVersion": "${2:/metadata/resourceVersion}"}, "spec": {"replicas": 5}}),
                    ),
                    200,
                ),
                req(
                    "PUT",
                    &format!("{}/scale", one(W, "sc")),
                    Some(
                        json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "sc", "resourceVersion": "${2:/metadata/resourceVersion}"}, "spec": {"replicas": 6}}),
                    ),
                    409,
                ),
                patch(
                    &format!("{}/scale", one(W, "sc")),
                    MERGE,
                    json!({"spec": {"replicas": 1}}),
                    200,
                ),
                req("GET", &one(W, "sc"), None, 200),
                req("GET", &format!("{}/scale", one(CM, "x")), None, 404),
            ],
        ),
        s(
            "server-side apply between managers",
            vec![
                apply(
                    &one(W, "ssa"),
                    "alice",
                    false,
                    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "ssa", "labels": {"a": "1"}}, "spec": {"color": "blue", "size": 2, "tags": ["x"], "ports": [{"name": "http", "port": 80}]}}),
                    201,
                ),
                apply(
                    &one(W, "ssa"),
                    "bob",
                    false,
                    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "ssa"}, "spec": {"color": "blue", "tags": ["y"], "ports": [{"name": "grpc", "port": 90}]}}),
                    200,
                ),
                apply(
                    &one(W, "ssa"),
                    "bob",
                    false,
                    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "ssa"}, "spec": {"color": "green", "size": 3}}),
                    409,
                ),
                apply(
                    &one(W, "ssa"),
                    "bob",
                    true,
                    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "ssa"}, "spec": {"color": "green", "size": 3}}),
                    200,
                ),
                apply(
                    &one(W, "ssa"),
                    "alice",
                    false,
                    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "ssa"}, "spec": {"color": "green"}}),
                    200,
                ),
                apply(
                    &format!("{}/status", one(W, "ssa")),
                    "carol",
                    false,
                    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "ssa"}, "status": {"phase": "Ready"}}),
                    200,
                ),
                patch(&one(W, "ssa"), MERGE, json!({"spec": {"size": 4}}), 200),
                apply(
                    &one(W, "ssa"),
                    "bob",
                    false,
                    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "ssa"}, "spec": {"color": "green", "size": 5}}),
                    409,
                ),
                apply(
                    &one(W, "ssa"),
                    "dave",
                    false,
                    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Gadget", "metadata": {"name": "ssa"}}),
                    400,
                ),
                apply(
                    &one(W, "ssa"),
                    "dave",
                    false,
                    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "other"}}),
                    400,
                ),
                apply(
                    &one(W, "ssa"),
                    "",
                    false,
                    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "ssa"}}),
                    422,
                ),
                apply(
                    &one(W, "ssa"),
                    "dave",
                    false,
                    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": "ssa"}, "spec": {"color": "purple"}}),
                    409,
                ),
                req("GET", &one(W, "ssa"), None, 200),
            ],
        ),
        s(
            "server-side apply of built-in kinds",
            vec![
                apply(
                    &one(CM, "applied"),
                    "alice",
                    false,
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied", "labels": {"x": "1"}, "finalizers": ["a/b"]}, "data": {"a": "1", "b": "2"}}),
                    201,
                ),
                apply(
                    &one(CM, "applied"),
                    "bob",
                    false,
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied"}, "data": {"a": "9"}}),
                    409,
                ),
                apply(
                    &one(CM, "applied"),
                    "bob",
                    true,
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied", "finalizers": ["c/d"]}, "data": {"a": "9", "c": "3"}}),
                    200,
                ),
                apply(
                    &one(CM, "applied"),
                    "alice",
                    false,
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied"}, "data": {"b": "2"}}),
                    200,
                ),
                req(
                    "PUT",
                    &one(CM, "applied"),
                    Some(
                        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied", "finalizers": ["c/d"], "labels": {"y": "2"}}, "data": {"z": "0"}}),
                    ),
                    200,
                ),
                patch(
                    &one(CM, "applied"),
                    "application/json-patch+json",
                    json!([{"op": "add", "path": "/data/j", "value": "1"}, {"op": "test", "path": "/data/z", "value": "0"}]),
                    200,
                ),
                patch(
                    &one(CM, "applied"),
                    "application/json-patch+json",
                    json!([{"op": "test", "path": "/data/z", "value": "nope"}]),
                    422,
                ),
                patch(
                    &one(CM, "applied"),
                    "application/strategic-merge-patch+json",
                    json!({"metadata": {"finalizers": ["e/f"], "$deleteFromPrimitiveList/finalizers": ["c/d"]}, "data": {"j": null}}),
                    200,
                ),
                patch(
                    &one(CM, "applied"),
                    "application/strategic-merge-patch+json",
                    json!({"metadata": {"finalizers": null}}),
                    200,
                ),
                patch(&one(CM, "applied"), "text/plain", json!({}), 415),
            ],
        ),
        s(
            "built-in kinds as written",
            vec![
                req(
                    "POST",
                    "/apis/apps/v1/namespaces/{ns}/deployments",
                    Some(
                        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {
                            "selector": {"matchLabels": {"app": "d"}},
                            "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
                        }}),
                    ),
                    201,
                ),
                req(
                    "POST",
                    "/api/v1/namespaces/{ns}/services",
                    Some(
                        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}], "selector": {"app": "d"}}}),
                    ),
                    201,
                ),
                apply(
                    "/apis/apps/v1/namespaces/{ns}/deployments/applied",
                    "operator",
                    false,
                    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "applied", "labels": {"app": "a"}}, "spec": {
                        "replicas": 2,
                        "selector": {"matchLabels": {"app": "a"}},
                        "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "nginx:1.27", "ports": [{"containerPort": 80}]}]}}
                    }}),
                    201,
                ),
                // The Deployment controller of the real plane writes to
                // the applied Deployment from here on; the fake runs none:
                // Services (which no controller writes) carry on.
                apply(
                    "/api/v1/namespaces/{ns}/services/web",
                    "operator",
                    false,
                    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {"ports": [{"name": "http", "port": 80}, {"name": "grpc", "port": 90}], "selector": {"app": "a"}}}),
                    201,
                ),
                apply(
                    "/api/v1/namespaces/{ns}/services/web",
                    "other",
                    false,
                    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {"ports": [{"name": "web", "port": 80, "targetPort": 8080}]}}),
                    409,
                ),
                apply(
                    "/api/v1/namespaces/{ns}/services/web",
                    "other",
                    true,
                    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "labels": {"x": "y"}}, "spec": {"ports": [{"name": "web", "port": 80, "targetPort": 8080}]}}),
                    200,
                ),
                patch(
                    "/api/v1/namespaces/{ns}/services/web",
                    "application/strategic-merge-patch+json",
                    json!({"spec": {"ports": [{"name": "admin", "port": 91}, {"$patch": "delete", "port": 90}]}}),
                    200,
                ),
                apply(
                    "/api/v1/namespaces/{ns}/services/web",
                    "operator",
                    false,
                    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {"ports": [{"name": "http", "port": 80}], "selector": {"app": "a"}}}),
                    409,
                ),
                req(
                    "POST",
                    "/api/v1/namespaces/{ns}/services",
                    Some(
                        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "np"}, "spec": {"type": "NodePort", "ports": [{"port": 80, "targetPort": "http"}], "selector": {"app": "a"}}}),
                    ),
                    201,
                ),
                req(
                    "POST",
                    "/api/v1/namespaces/{ns}/secrets",
                    Some(
                        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sec"}, "stringData": {"user": "admin"}, "data": {"pw": "c2VjcmV0"}}),
                    ),
                    201,
                ),
            ],
        ),
    ]
}
