//! `watch`: the events of a collection from a revision on, as the
//! apiserver's watch cache sends them: synthetic `ADDED` events for the
//! current state when no revision (or `0`) is given, the writes since a
//! revision otherwise (`410 Gone` as an `ERROR` event once compacted),
//! the initial-events-end bookmark of a streaming list, periodic
//! bookmarks, and the end of the stream at `timeoutSeconds`.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::request::ResourceCall;
use crate::resources::Resource;
use crate::state::{State, Watcher, as_version, event};
use crate::status::ApiError;
use crate::store::Unreadable;

use super::read;

/// An open watch, registered with the state: its events arrive on `rx`.
#[derive(Debug)]
pub struct Opened {
    /// The events, in order.
    pub rx: mpsc::UnboundedReceiver<Value>,
    /// When the server ends the stream.
    pub timeout: Duration,
    /// Whether the client asked for bookmarks.
    pub bookmarks: bool,
}

/// A `BOOKMARK` event at revision `rv`.
pub fn bookmark(r: &Resource, rv: u64, initial_end: bool) -> Value {
    let mut meta = json!({"resourceVersion": rv.to_string()});
    if initial_end {
        meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    json!({
        "type": "BOOKMARK",
        "object": {"kind": r.kind, "apiVersion": r.api_version(), "metadata": meta},
    })
}

fn error_event(e: &ApiError) -> Value {
    json!({"type": "ERROR", "object": e.to_status()})
}

/// Opens a watch of `r` as `call` asks.
pub fn open(state: &mut State, r: &Resource, call: &ResourceCall) -> Result<Opened, ApiError> {
    let (labels, fields) = read::selectors(r, call)?;
    let q = |k: &str| call.query.get(k).map(String::as_str).unwrap_or("");
    let timeout = match q("timeoutSeconds") {
        "" => Duration::from_secs(1800),
        t => Duration::from_secs(
            t.parse()
                .map_err(|_| ApiError::bad_request(format!("invalid timeoutSeconds: {t}")))?,
        ),
    };
    let bookmarks = q("allowWatchBookmarks") == "true";
    let initial = q("sendInitialEvents") == "true";
    if initial && (q("resourceVersionMatch") != "NotOlderThan" || !bookmarks) {
        return Err(ApiError::invalid(
            "ListOptions",
            "meta.k8s.io",
            "",
            &[kubegen_core::validate::field::FieldError::new(
                kubegen_core::validate::field::ErrorType::Forbidden,
                "sendInitialEvents",
                None,
                "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled, resourceVersionMatch is set to NotOlderThan and allowWatchBookmarks is true",
            )],
        ));
    }
    let (tx, rx) = mpsc::unbounded_channel();
    let w = Watcher {
        resource: r.clone(),
        namespace: call.namespace.clone(),
        labels,
        fields,
        tx,
    };
    let rv = q("resourceVersion");
    if rv.is_empty() || rv == "0" || initial {
        let now = state.store.revision();
        let items = state
            .store
            .list(&r.id(), call.namespace.as_deref(), None, None)
            .unwrap_or_default();
        for (_, o) in items {
            if w.sees(o) {
                let _ =
                    w.tx.send(json!({"type": "ADDED", "object": as_version(r, o)}));
            }
        }
        if initial {
            let _ = w.tx.send(bookmark(r, now, true));
        }
    } else {
        let from = read::parse_rv(rv)?;
        match state.store.changes_since(from) {
            Ok(changes) => {
                for c in changes {
                    if c.key.resource == r.id()
                        && call
                            .namespace
                            .as_deref()
                            .is_none_or(|ns| ns == c.key.namespace)
                        && let Some(e) = event(&w, c)
                    {
                        let _ = w.tx.send(e);
                    }
                }
            }
            Err(Unreadable::Compacted(asked, oldest)) => {
                let _ = w.tx.send(error_event(&ApiError::expired(format!(
                    "too old resource version: {asked} ({oldest})"
                ))));
                return Ok(Opened {
                    rx,
                    timeout,
                    bookmarks,
                });
            }
            Err(Unreadable::Future(asked, current)) => {
                let _ = w.tx.send(error_event(&read::too_large(asked, current)));
                return Ok(Opened {
                    rx,
                    timeout,
                    bookmarks,
                });
            }
        }
    }
    state.watchers.push(w);
    Ok(Opened {
        rx,
        timeout,
        bookmarks,
    })
}
