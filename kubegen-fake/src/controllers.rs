//! The control-plane controllers whose effects an operator relies on,
//! run after each write until nothing changes: the garbage collector
//! (background, foreground and orphan deletion, dangling owner
//! references), the namespace controller (a deleted namespace empties,
//! then goes), and the CRD controllers (names accepted and established,
//! the custom resources served; their objects removed when the CRD is
//! deleted). Like kube-controller-manager's, they act after the request
//! that caused the work has been answered.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::resources::{self, Resource};
use crate::state::{State, finalizers, finished};
use crate::store::Key;
use crate::verbs::delete::{self, Options};
use crate::verbs::managed;

const CRD_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

/// Who writes (the field manager its user agent makes) and through which
/// subresource.
type Writer = (&'static str, Option<&'static str>);
/// kube-controller-manager's controllers, on the main resource.
const KCM: Writer = ("kube-controller-manager", None);
/// kube-controller-manager's namespace controller, on the status.
const KCM_STATUS: Writer = ("kube-controller-manager", Some("status"));
/// The apiextensions controllers inside kube-apiserver.
const APISERVER: Writer = ("kube-apiserver", None);
const APISERVER_STATUS: Writer = ("kube-apiserver", Some("status"));

/// Runs every controller until none has anything left to do; returns
/// whether anything was written.
pub fn settle(state: &mut State) -> bool {
    let mut any = false;
    // Bounded: each round removes work; a cycle would be a bug, not a
    // reason to hang a test.
    for _ in 0..1000 {
        let changed =
            crds(state) | garbage_collect(state) | namespaces(state) | namespace_contents(state);
        any |= changed;
        if !changed {
            break;
        }
    }
    any
}

fn deleting(o: &Value) -> bool {
    o.pointer("/metadata/deletionTimestamp").is_some()
}

/// Writes `f(object)` at `k`; an object being deleted whose last
/// finalizer `f` removed is deleted. Returns whether anything changed.
fn modify(state: &mut State, k: &Key, writer: Writer, f: impl FnOnce(&mut Value)) -> bool {
    let Some(old) = state.store.get(k).map(|o| (**o).clone()) else {
        return false;
    };
    let mut new = old.clone();
    f(&mut new);
    if new == old {
        return false;
    }
    if let Some(r) = resource_for(state, k).cloned() {
        let (manager, subresource) = writer;
        let now = state.clock.unix();
        // The controllers' writes are updates like any other.
        let _ = managed::update(&r, Some(&old), &mut new, manager, subresource, now);
    }
    if finished(&new) {
        state.commit(k.clone(), None);
    } else {
        state.commit(k.clone(), Some(new));
    }
    true
}

fn remove_finalizer(o: &mut Value, name: &str) {
    if let Some(f) = o
        .pointer_mut("/metadata/finalizers")
        .and_then(Value::as_array_mut)
    {
        f.retain(|x| x != name);
        if f.is_empty()
            && let Some(m) = o["metadata"].as_object_mut()
        {
            m.remove("finalizers");
        }
    }
}

fn resource_for<'a>(state: &'a State, k: &Key) -> Option<&'a Resource> {
    state
        .resources
        .iter()
        .find(|r| r.id() == k.resource && (r.storage || r.crd.is_none()))
        .or_else(|| state.resources.iter().find(|r| r.id() == k.resource))
}

fn delete(state: &mut State, k: &Key, policy: Option<&str>) -> bool {
    let Some(r) = resource_for(state, k).cloned() else {
        return false;
    };
    let o = policy.map(Options::with_policy).unwrap_or_default();
    let before = state.store.revision();
    let _ = delete::delete_key(state, &r, k.clone(), &o);
    state.store.revision() != before
}

/// The garbage collector.
fn garbage_collect(state: &mut State) -> bool {
    let live: BTreeMap<String, (Key, Value)> = state
        .store
        .all()
        .filter_map(|(k, o)| {
            let uid = o.pointer("/metadata/uid")?.as_str()?.to_string();
            Some((uid, (k.clone(), (**o).clone())))
        })
        .collect();
    let waiting = |uid: &str| {
        live.get(uid).is_some_and(|(_, o)| {
            deleting(o) && finalizers(o).iter().any(|f| f == "foregroundDeletion")
        })
    };
    let mut changed = false;
    for (k, o) in live.values() {
        let Some(refs) = o
            .pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
        else {
            continue;
        };
        let uid_of = |r: &Value| r["uid"].as_str().unwrap_or_default().to_string();
        let owner_here = |r: &Value| {
            live.get(&uid_of(r))
                .is_some_and(|(ok, _)| ok.namespace.is_empty() || ok.namespace == k.namespace)
        };
        let absent: BTreeSet<String> = refs.iter().filter(|r| !owner_here(r)).map(uid_of).collect();
        let wait: BTreeSet<String> = refs
            .iter()
            .filter(|r| owner_here(r) && waiting(&uid_of(r)))
            .map(uid_of)
            .collect();
        let solid = refs.len() - absent.len() - wait.len();
        if absent.is_empty() && wait.is_empty() {
            continue;
        }
        if solid > 0 {
            // Other owners remain: drop the references to the gone and
            // the going.
            changed |= modify(state, k, KCM, |d| {
                if let Some(rs) = d
                    .pointer_mut("/metadata/ownerReferences")
                    .and_then(Value::as_array_mut)
                {
                    rs.retain(|r| {
                        let u = r["uid"].as_str().unwrap_or_default();
                        !absent.contains(u) && !wait.contains(u)
                    });
                }
            });
        } else if !deleting(o) {
            let policy = if !wait.is_empty() {
                Some("Foreground")
            } else if finalizers(o).iter().any(|f| f == "orphan") {
                Some("Orphan")
            } else if finalizers(o).iter().any(|f| f == "foregroundDeletion") {
                Some("Foreground")
            } else {
                Some("Background")
            };
            changed |= delete(state, k, policy);
        }
    }
    // Owners being deleted with the orphan or foreground finalizer.
    for (uid, (k, o)) in &live {
        if !deleting(o) {
            continue;
        }
        let fins = finalizers(o);
        let dependents: Vec<(Key, bool)> = live
            .values()
            .filter_map(|(dk, d)| {
                let refs = d.pointer("/metadata/ownerReferences")?.as_array()?;
                let r = refs.iter().find(|r| r["uid"] == uid.as_str())?;
                Some((dk.clone(), r["blockOwnerDeletion"] == true))
            })
            .collect();
        if fins.iter().any(|f| f == "orphan") {
            for (dk, _) in &dependents {
                changed |= modify(state, dk, KCM, |d| {
                    if let Some(rs) = d
                        .pointer_mut("/metadata/ownerReferences")
                        .and_then(Value::as_array_mut)
                    {
                        rs.retain(|r| r["uid"] != uid.as_str());
                        if rs.is_empty()
                            && let Some(m) = d["metadata"].as_object_mut()
                        {
                            m.remove("ownerReferences");
                        }
                    }
                });
            }
            changed |= modify(state, k, KCM, |x| remove_finalizer(x, "orphan"));
        } else if fins.iter().any(|f| f == "foregroundDeletion")
            && !dependents
                .iter()
                .any(|(dk, blocking)| *blocking && state.store.get(dk).is_some())
        {
            changed |= modify(state, k, KCM, |x| remove_finalizer(x, "foregroundDeletion"));
        }
    }
    changed
}

/// The namespace controller: a namespace being deleted is emptied, then
/// its `kubernetes` finalizer removed.
fn namespaces(state: &mut State) -> bool {
    let terminating: Vec<(Key, Value)> = state
        .store
        .list("/namespaces", None, None, None)
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, o)| deleting(o))
        .map(|(k, o)| (k.clone(), (**o).clone()))
        .collect();
    let mut changed = false;
    for (nk, ns) in terminating {
        if ns.pointer("/status/phase") != Some(&json!("Terminating")) {
            changed |= modify(state, &nk, KCM_STATUS, |n| {
                n["status"]["phase"] = json!("Terminating")
            });
        }
        let contents: Vec<Key> = state
            .store
            .all()
            .filter(|(k, _)| k.namespace == nk.name)
            .map(|(k, _)| k.clone())
            .collect();
        let mut left = false;
        for k in contents {
            left = true;
            if state.store.get(&k).is_some_and(|o| !deleting(o)) {
                changed |= delete(state, &k, None);
            }
        }
        if !left {
            changed |= modify(state, &nk, KCM, |n| {
                if let Some(f) = n
                    .pointer_mut("/spec/finalizers")
                    .and_then(Value::as_array_mut)
                {
                    f.retain(|x| x != "kubernetes");
                }
            });
        }
    }
    changed
}

/// What kube-controller-manager puts in every active namespace: the
/// `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap (the
/// fake's CA is a placeholder, not a certificate).
fn namespace_contents(state: &mut State) -> bool {
    let active: Vec<String> = state
        .store
        .list("/namespaces", None, None, None)
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, o)| !deleting(o))
        .map(|(k, _)| k.name.clone())
        .collect();
    let mut changed = false;
    for ns in active {
        let wanted = [
            (
                "/serviceaccounts",
                "default",
                json!({"apiVersion": "v1", "kind": "ServiceAccount"}),
            ),
            (
                "/configmaps",
                "kube-root-ca.crt",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"ca.crt": "kubegen-fake: no certificate authority\n"}}),
            ),
        ];
        for (resource, name, mut object) in wanted {
            let k = Key {
                resource: resource.into(),
                namespace: ns.clone(),
                name: name.into(),
            };
            if state.store.get(&k).is_some() {
                continue;
            }
            object["metadata"] = json!({
                "name": name,
                "namespace": ns,
                "uid": state.clock.uid(),
                "creationTimestamp": state.clock.now(),
            });
            if name == "kube-root-ca.crt" {
                object["metadata"]["annotations"] = json!({"kubernetes.io/description": "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."});
            }
            state.commit(k, Some(object));
            changed = true;
        }
    }
    changed
}

/// The CRD controllers: new CRDs get their finalizer, accepted names and
/// `Established` condition and are served; deleted ones have their
/// objects removed, then stop being served.
fn crds(state: &mut State) -> bool {
    let all: Vec<(Key, Value)> = state
        .store
        .list(
            "apiextensions.k8s.io/customresourcedefinitions",
            None,
            None,
            None,
        )
        .unwrap_or_default()
        .into_iter()
        .map(|(k, o)| (k.clone(), (**o).clone()))
        .collect();
    let mut changed = false;
    let now = state.clock.now();
    let mut served = BTreeSet::new();
    for (k, crd) in &all {
        let plural = crd
            .pointer("/spec/names/plural")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let group = crd
            .pointer("/spec/group")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let id = format!("{group}/{plural}");
        if deleting(crd) {
            let objects: Vec<Key> = state.store.keys_of(&id).cloned().collect();
            for ok in &objects {
                if state.store.get(ok).is_some_and(|o| !deleting(o)) {
                    changed |= delete(state, ok, None);
                }
            }
            if objects.is_empty() {
                changed |= modify(state, k, APISERVER, |c| remove_finalizer(c, CRD_FINALIZER));
            } else {
                served.insert(id);
            }
            continue;
        }
        served.insert(id.clone());
        let established = crd
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .is_some_and(|cs| {
                cs.iter()
                    .any(|c| c["type"] == "Established" && c["status"] == "True")
            });
        let names = crd["spec"]["names"].clone();
        if !established || crd.pointer("/status/acceptedNames") != Some(&names) {
            changed |= modify(state, k, APISERVER_STATUS, |c| {
                if !finalizers(c).iter().any(|f| f == CRD_FINALIZER) {
                    let mut f = finalizers(c);
                    f.push(CRD_FINALIZER.into());
                    c["metadata"]["finalizers"] = json!(f);
                }
                let storage: Vec<Value> = c["spec"]["versions"]
                    .as_array()
                    .map(|vs| {
                        vs.iter()
                            .filter(|v| v["storage"] == true)
                            .map(|v| v["name"].clone())
                            .collect()
                    })
                    .unwrap_or_default();
                let mut stored = c
                    .pointer("/status/storedVersions")
                    .cloned()
                    .unwrap_or_else(|| json!([]));
                for s in storage {
                    if let Some(a) = stored.as_array_mut()
                        && !a.contains(&s)
                    {
                        a.push(s);
                    }
                }
                let condition = |t: &str, reason: &str, message: &str| json!({"type": t, "status": "True", "lastTransitionTime": now, "reason": reason, "message": message});
                c["status"] = json!({
                    "conditions": [
                        condition("NamesAccepted", "NoConflicts", "no conflicts found"),
                        condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
                    ],
                    "acceptedNames": names,
                    "storedVersions": stored,
                });
            });
        }
        let current = state.store.get(k).map(|c| (**c).clone());
        if let Some(c) = current {
            let fresh = resources::from_crd(&c);
            let same = state
                .resources
                .iter()
                .filter(|r| r.id() == id)
                .map(|r| (r.version.clone(), r.crd.clone()))
                .collect::<Vec<_>>()
                == fresh
                    .iter()
                    .map(|r| (r.version.clone(), r.crd.clone()))
                    .collect::<Vec<_>>();
            if !same {
                state.resources.retain(|r| r.id() != id);
                state.resources.extend(fresh);
            }
        }
    }
    let before = state.resources.len();
    state
        .resources
        .retain(|r| r.crd.is_none() || served.contains(&r.id()));
    changed || before != state.resources.len()
}
