//! The server's state behind one lock: the store, the served resources,
//! the clock, the open watches and the injected faults; and the one
//! place a write goes through, which hands each change to every watch it
//! concerns, in order, before the write returns.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::clock::Clock;
use crate::faults::Faults;
use crate::resources::{self, Resource};
use crate::selector::{Fields, Labels};
use crate::status::ApiError;
use crate::store::{Change, Key, Store};

/// One open watch.
#[derive(Debug)]
pub struct Watcher {
    /// The resource (and version, in which objects are sent).
    pub resource: Resource,
    /// The namespace watched, or all.
    pub namespace: Option<String>,
    /// Its label selector.
    pub labels: Labels,
    /// Its field selector.
    pub fields: Fields,
    /// Where its events go.
    pub tx: mpsc::UnboundedSender<Value>,
}

impl Watcher {
    /// Whether `object` is one this watch sees.
    pub fn sees(&self, object: &Value) -> bool {
        selected(&self.resource, &self.labels, &self.fields, object)
    }
}

/// Whether `object` matches a label and a field selector.
pub fn selected(resource: &Resource, labels: &Labels, fields: &Fields, object: &Value) -> bool {
    labels.matches(object.pointer("/metadata/labels"))
        && fields.matches(|label| field_value(resource, object, label))
}

/// The value of field selector `label` on `object`, as the apiserver's
/// field set prints it.
pub fn field_value(resource: &Resource, object: &Value, label: &str) -> String {
    let pointer = match label {
        "metadata.name" => "/metadata/name".to_string(),
        "metadata.namespace" => "/metadata/namespace".to_string(),
        _ => match resource.selectable_fields.iter().find(|(l, _)| l == label) {
            Some((_, p)) => p.clone(),
            None => return String::new(),
        },
    };
    match object.pointer(&pointer) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        // Go's zero values for the built-in kinds' boolean fields.
        None if label == "spec.hostNetwork" || label == "spec.unschedulable" => "false".into(),
        _ => String::new(),
    }
}

/// Everything the server holds.
#[derive(Debug)]
pub struct State {
    /// The objects.
    pub store: Store,
    /// The served resources: the built-in table, then each established
    /// CRD's versions.
    pub resources: Vec<Resource>,
    /// Time and generated names.
    pub clock: Clock,
    /// Open watches.
    pub watchers: Vec<Watcher>,
    /// Injected faults.
    pub faults: Faults,
    /// Cluster IPs handed out (from 10.96.0.0/12, as the default service
    /// range).
    pub cluster_ips: u32,
    /// Node ports handed out (from 30000–32767).
    pub node_ports: u16,
}

impl State {
    /// A state with the built-in resources and the namespaces every
    /// cluster has.
    pub fn new(start_unix: i64, seed: u64, history: usize) -> State {
        let mut state = State {
            store: Store::new(1, history),
            resources: resources::builtins(),
            clock: Clock::new(start_unix, seed),
            watchers: Vec::new(),
            faults: Faults::default(),
            cluster_ips: 0,
            node_ports: 0,
        };
        for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
            let uid = state.clock.uid();
            let now = state.clock.now();
            state.commit(
                Key {
                    resource: "/namespaces".into(),
                    namespace: String::new(),
                    name: ns.into(),
                },
                Some(json!({
                    "kind": "Namespace",
                    "apiVersion": "v1",
                    "metadata": {
                        "name": ns,
                        "uid": uid,
                        "creationTimestamp": now,
                        "labels": {"kubernetes.io/metadata.name": ns},
                    },
                    "spec": {"finalizers": ["kubernetes"]},
                    "status": {"phase": "Active"},
                })),
            );
        }
        state
    }

    /// The resource served at `group`/`version`/`plural`.
    pub fn resource(&self, group: &str, version: &str, plural: &str) -> Option<&Resource> {
        self.resources
            .iter()
            .find(|r| r.group == group && r.version == version && r.plural == plural)
    }

    /// The resource of an object's `apiVersion` and `kind`.
    pub fn resource_of(&self, api_version: &str, kind: &str) -> Option<&Resource> {
        self.resources
            .iter()
            .find(|r| r.api_version() == api_version && r.kind == kind)
    }

    /// Writes (or, with `None`, deletes) the object at `key` and sends the
    /// change to every watch that sees it.
    pub fn commit(&mut self, key: Key, object: Option<Value>) -> Change {
        let change = self.store.write(key, object);
        self.dispatch(&change);
        change
    }

    fn dispatch(&mut self, change: &Change) {
        self.watchers.retain(|w| {
            if w.resource.id() != change.key.resource
                || w.namespace
                    .as_deref()
                    .is_some_and(|ns| ns != change.key.namespace)
            {
                return !w.tx.is_closed();
            }
            match event(w, change) {
                Some(e) => w.tx.send(e).is_ok(),
                None => !w.tx.is_closed(),
            }
        });
    }

    /// Ends every open watch (the server drops their connections).
    pub fn drop_watches(&mut self) {
        self.watchers.clear();
    }

    /// Refuses a request when a test injected a failure for it.
    pub fn injected(&mut self, write: bool) -> Result<(), ApiError> {
        match self.faults.take(write) {
            Some(code) => Err(ApiError::injected(code)),
            None => Ok(()),
        }
    }
}

/// `object` as served in `resource`'s version (custom resources are
/// converted as the `None` strategy converts them: only `apiVersion`).
pub fn as_version(resource: &Resource, object: &Value) -> Value {
    let mut o = object.clone();
    if resource.crd.is_some() {
        o["apiVersion"] = json!(resource.api_version());
    }
    o
}

/// The watch event a change makes for watch `w`, as the apiserver's
/// watch cache makes it: an object that starts matching is `ADDED`, one
/// that stops matching is `DELETED` (its previous state at the new
/// revision).
pub fn event(w: &Watcher, change: &Change) -> Option<Value> {
    let old = change.old.as_deref().filter(|o| w.sees(o));
    let new = change.new.as_deref().filter(|o| w.sees(o));
    let (kind, object) = match (old, new) {
        (None, Some(n)) => ("ADDED", n.clone()),
        (Some(_), Some(n)) => ("MODIFIED", n.clone()),
        (Some(o), None) => {
            let mut o = o.clone();
            o["metadata"]["resourceVersion"] = json!(change.rv.to_string());
            ("DELETED", o)
        }
        (None, None) => return None,
    };
    Some(json!({"type": kind, "object": as_version(&w.resource, &object)}))
}

/// Whether `a` and `b` differ anywhere but `metadata` and `status`.
pub fn spec_changed(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("metadata");
            o.remove("status");
        }
        v
    };
    strip(a) != strip(b)
}

/// The shared handle the service and the background tasks hold.
pub type Shared = Arc<parking_lot::Mutex<State>>;

/// An object's `metadata.finalizers`.
pub fn finalizers(o: &Value) -> Vec<String> {
    o.pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .map(|f| {
            f.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether an object being deleted has nothing left holding it: no
/// finalizer (and, for a namespace, no `spec.finalizers`).
pub fn finished(o: &Value) -> bool {
    let empty = |p: &str| {
        o.pointer(p)
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
    };
    o.pointer("/metadata/deletionTimestamp").is_some()
        && empty("/metadata/finalizers")
        && !(o["kind"] == "Namespace" && o["apiVersion"] == "v1" && !empty("/spec/finalizers"))
}
