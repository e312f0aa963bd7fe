//! The spans a subscriber knows: their data by id, reference counted as
//! `tracing` clones and closes handles, and which ones each thread has
//! entered.
//!
//! Ids count up from 1 and are never reused. A span holds a reference to
//! its parent, and entering a span holds one to it, so an event's span and
//! its ancestors are alive while it is printed.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use parking_lot::RwLock;
use tracing::Metadata;
use tracing::span::Id;

use super::format::SpanFields;
use crate::fast_hash::HashMap;

/// What is kept of a live span.
pub(crate) struct SpanData {
    pub(crate) metadata: &'static Metadata<'static>,
    pub(crate) parent: Option<Id>,
    pub(crate) fields: SpanFields,
    /// Open handles, the child spans' references and the entries in the
    /// threads' stacks.
    refs: usize,
}

/// The spans of one subscriber.
pub(crate) struct Spans {
    /// Tells this subscriber's entries in the threads' stacks from those of
    /// other subscribers (tests run several).
    owner: usize,
    next_id: AtomicU64,
    live: RwLock<HashMap<u64, SpanData>>,
}

/// A span a thread has entered.
struct Entered {
    owner: usize,
    id: Id,
    /// Entered again while already on the stack: holds no reference and is
    /// never the current span (as `tracing_subscriber::Registry` does).
    duplicate: bool,
}

thread_local! {
    static ENTERED: RefCell<Vec<Entered>> = const { RefCell::new(Vec::new()) };
}

impl Spans {
    pub(crate) fn new() -> Self {
        static OWNERS: AtomicUsize = AtomicUsize::new(0);
        Spans {
            owner: OWNERS.fetch_add(1, Ordering::Relaxed),
            next_id: AtomicU64::new(1),
            live: RwLock::new(HashMap::default()),
        }
    }

    /// Stores a new span with one reference (its handle); `parent` gets one
    /// more.
    pub(crate) fn insert(
        &self,
        metadata: &'static Metadata<'static>,
        parent: Option<Id>,
        fields: SpanFields,
    ) -> Id {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut live = self.live.write();
        let parent = parent.filter(|p| match live.get_mut(&p.into_u64()) {
            Some(p) => {
                p.refs += 1;
                true
            }
            None => false,
        });
        let data = SpanData {
            metadata,
            parent,
            fields,
            refs: 1,
        };
        live.insert(id, data);
        Id::from_u64(id)
    }

    /// Calls `f` with span `id` and each of its ancestors, innermost first,
    /// while no span can close.
    pub(crate) fn with_scope<R>(
        &self,
        id: Option<&Id>,
        f: impl FnOnce(&mut dyn Iterator<Item = &SpanData>) -> R,
    ) -> R {
        let live = self.live.read();
        let mut next = id.cloned();
        let mut scope = std::iter::from_fn(|| {
            let span = live.get(&next.take()?.into_u64())?;
            next = span.parent.clone();
            Some(span)
        });
        f(&mut scope)
    }

    /// Changes span `id`'s fields, if it is alive.
    pub(crate) fn update(&self, id: &Id, f: impl FnOnce(&mut SpanFields)) {
        if let Some(span) = self.live.write().get_mut(&id.into_u64()) {
            f(&mut span.fields);
        }
    }

    /// One more reference to span `id`.
    pub(crate) fn clone_ref(&self, id: &Id) {
        if let Some(span) = self.live.write().get_mut(&id.into_u64()) {
            span.refs += 1;
        }
    }

    /// Drops a reference to span `id`; returns whether that closed it. A
    /// closed span releases its parent.
    pub(crate) fn release(&self, id: &Id) -> bool {
        let mut live = self.live.write();
        let mut next = Some(id.into_u64());
        let mut closed_first = None;
        while let Some(id) = next.take() {
            let Some(span) = live.get_mut(&id) else { break };
            span.refs -= 1;
            let closed = span.refs == 0;
            closed_first.get_or_insert(closed);
            if closed && let Some(span) = live.remove(&id) {
                next = span.parent.map(|p| p.into_u64());
            }
        }
        closed_first.unwrap_or(false)
    }

    /// How many spans are alive.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.live.read().len()
    }

    /// The calling thread entered span `id`.
    pub(crate) fn enter(&self, id: &Id) {
        let pushed = ENTERED.try_with(|stack| {
            let mut stack = stack.borrow_mut();
            let duplicate = stack.iter().any(|e| e.owner == self.owner && e.id == *id);
            stack.push(Entered {
                owner: self.owner,
                id: id.clone(),
                duplicate,
            });
            duplicate
        });
        if let Ok(false) = pushed {
            self.clone_ref(id);
        }
    }

    /// The calling thread left span `id` (its latest entry).
    pub(crate) fn exit(&self, id: &Id) {
        let left = ENTERED.try_with(|stack| {
            let mut stack = stack.borrow_mut();
            let at = stack
                .iter()
                .rposition(|e| e.owner == self.owner && e.id == *id)?;
            Some(stack.remove(at).duplicate)
        });
        if let Ok(Some(false)) = left {
            self.release(id);
        }
    }

    /// The span the calling thread is in: the latest one it entered and
    /// has not left, re-entries aside.
    pub(crate) fn current(&self) -> Option<(Id, &'static Metadata<'static>)> {
        let id = ENTERED
            .try_with(|stack| {
                stack
                    .borrow()
                    .iter()
                    .rev()
                    .find(|e| e.owner == self.owner && !e.duplicate)
                    .map(|e| e.id.clone())
            })
            .ok()??;
        let metadata = self.live.read().get(&id.into_u64())?.metadata;
        Some((id, metadata))
    }
}
