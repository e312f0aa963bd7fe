//! Fan-out of notifications to handlers: one FIFO queue and one task per
//! handler, so each handler sees every change in order.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use kubegen_client::Resource;
use tokio::runtime::Handle;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;

use super::handler::{EventHandler, HandlerRegistration, deliver};
use crate::store::{Notification, Store};

/// What a handler's queue carries.
enum Message<K> {
    Notify(Notification<K>),
    /// Everything before this is the initial state.
    Synced,
}

/// A handler registered before the informer started, waiting for a runtime.
struct Parked<K> {
    rx: UnboundedReceiver<Message<K>>,
    handler: Box<dyn EventHandler<K>>,
    synced: Arc<AtomicBool>,
}

struct Listener<K> {
    id: u64,
    tx: UnboundedSender<Message<K>>,
    parked: Option<Parked<K>>,
    task: Option<JoinHandle<()>>,
}

/// The registered handlers. It lives behind the informer's dispatch lock,
/// which is also held while the store changes, so a handler registered at
/// any moment sees the cache contents followed by exactly the later
/// changes.
pub(crate) struct Processor<K> {
    listeners: Vec<Listener<K>>,
    next_id: u64,
    runtime: Option<Handle>,
    synced: bool,
    stopped: bool,
}

impl<K: Resource + Send + Sync + 'static> Processor<K> {
    pub(crate) fn new() -> Self {
        Processor {
            listeners: Vec::new(),
            next_id: 0,
            runtime: None,
            synced: false,
            stopped: false,
        }
    }

    /// Registers a handler; it first gets an add for everything in `store`.
    pub(crate) fn add(
        &mut self,
        handler: Box<dyn EventHandler<K>>,
        store: &Store<K>,
    ) -> HandlerRegistration {
        let id = self.next_id;
        self.next_id += 1;
        let synced = Arc::new(AtomicBool::new(false));
        let registration = HandlerRegistration {
            id,
            synced: synced.clone(),
        };
        if self.stopped {
            return registration;
        }
        let (tx, rx) = unbounded_channel();
        for obj in store.list() {
            let _ = tx.send(Message::Notify(Notification::Add(obj)));
        }
        if self.synced {
            let _ = tx.send(Message::Synced);
        }
        let mut listener = Listener {
            id,
            tx,
            parked: None,
            task: None,
        };
        let parked = Parked {
            rx,
            handler,
            synced,
        };
        match &self.runtime {
            Some(runtime) => listener.task = Some(runtime.spawn(run_listener(parked))),
            None => listener.parked = Some(parked),
        }
        self.listeners.push(listener);
        registration
    }

    /// Unregisters a handler; it still gets the changes already queued.
    pub(crate) fn remove(&mut self, id: u64) -> bool {
        let before = self.listeners.len();
        self.listeners.retain(|l| l.id != id);
        before != self.listeners.len()
    }

    /// Starts the tasks of handlers registered before now, and of all later
    /// ones, on `runtime`.
    pub(crate) fn start(&mut self, runtime: Handle) {
        for listener in &mut self.listeners {
            if let Some(parked) = listener.parked.take() {
                listener.task = Some(runtime.spawn(run_listener(parked)));
            }
        }
        self.runtime = Some(runtime);
    }

    /// Queues `changes` for every handler.
    pub(crate) fn distribute(&self, changes: Vec<Notification<K>>) {
        if self.listeners.is_empty() {
            return;
        }
        for change in changes {
            for listener in &self.listeners {
                let _ = listener.tx.send(Message::Notify(change.clone()));
            }
        }
    }

    /// Marks the end of the initial state for the handlers (once).
    pub(crate) fn mark_synced(&mut self) {
        if !self.synced {
            self.synced = true;
            for listener in &self.listeners {
                let _ = listener.tx.send(Message::Synced);
            }
        }
    }

    pub(crate) fn has_listeners(&self) -> bool {
        !self.listeners.is_empty()
    }

    /// Closes every queue; returns the handler tasks, which end once they
    /// have drained their queues.
    pub(crate) fn stop(&mut self) -> Vec<JoinHandle<()>> {
        self.stopped = true;
        self.listeners.drain(..).filter_map(|l| l.task).collect()
    }
}

async fn run_listener<K: 'static>(parked: Parked<K>) {
    let Parked {
        mut rx,
        handler,
        synced,
    } = parked;
    // Everything before the `Synced` message is the initial state.
    let mut initial = true;
    while let Some(message) = rx.recv().await {
        match message {
            Message::Notify(change) => {
                let delivered =
                    catch_unwind(AssertUnwindSafe(|| deliver(change, &*handler, initial)));
                if delivered.is_err() {
                    tracing::error!(
                        "an informer event handler panicked; continuing with the next event"
                    );
                }
            }
            Message::Synced => {
                initial = false;
                synced.store(true, Ordering::Release);
            }
        }
    }
}
