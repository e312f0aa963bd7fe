//! What a watcher yields: [`Event`]s and [`Error`]s.

use kubegen_client::core::Status;

/// One step of a watcher, as kube's watcher gives it: a list brackets its
/// objects between [`Event::Init`] and [`Event::InitDone`]; changes seen by
/// the watch after it are [`Event::Apply`] and [`Event::Delete`].
#[derive(Clone, Debug, PartialEq)]
pub enum Event<K> {
    /// An object was added or changed.
    Apply(K),
    /// An object was deleted (its last state).
    Delete(K),
    /// A list begins (the first, or again after `410 Gone`): the
    /// `InitApply` events that follow, up to `InitDone`, are the whole
    /// state; anything known before and not listed is gone.
    Init,
    /// An object of the list in progress.
    InitApply(K),
    /// The list is complete.
    InitDone,
}

impl<K> Event<K> {
    /// The event with its object, if any, mapped by `f`.
    pub fn map<T>(self, f: impl FnOnce(K) -> T) -> Event<T> {
        match self {
            Event::Apply(obj) => Event::Apply(f(obj)),
            Event::Delete(obj) => Event::Delete(f(obj)),
            Event::Init => Event::Init,
            Event::InitApply(obj) => Event::InitApply(f(obj)),
            Event::InitDone => Event::InitDone,
        }
    }

    /// The object the event carries, if any.
    pub fn object(&self) -> Option<&K> {
        match self {
            Event::Apply(obj) | Event::Delete(obj) | Event::InitApply(obj) => Some(obj),
            Event::Init | Event::InitDone => None,
        }
    }
}

/// Why a watcher step failed; the watcher goes on after it (from where it
/// was, or from an empty state after `410 Gone`), as kube's does.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A page of the initial list failed.
    #[error("failed to perform initial object list: {0}")]
    InitialListFailed(#[source] kubegen_client::Error),
    /// A watch request failed to start.
    #[error("failed to start watching object: {0}")]
    WatchStartFailed(#[source] kubegen_client::Error),
    /// The apiserver sent an `ERROR` event (a `410 Gone`, say).
    #[error("error returned by apiserver during watch: {0}")]
    WatchError(#[source] Box<Status>),
    /// A running watch failed (its connection, or an event that did not
    /// decode).
    #[error("watch stream failed: {0}")]
    WatchFailed(#[source] kubegen_client::Error),
    /// A list or an object carried no resourceVersion to resume from.
    #[error("no metadata.resourceVersion in watch result (does resource support watch?)")]
    NoResourceVersion,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keeps_the_kind_of_event() {
        let events = [
            Event::Apply(1),
            Event::Delete(2),
            Event::Init,
            Event::InitApply(3),
            Event::InitDone,
        ];
        let mapped: Vec<Event<String>> = events
            .iter()
            .cloned()
            .map(|e| e.map(|n| n.to_string()))
            .collect();
        assert_eq!(
            mapped,
            [
                Event::Apply("1".into()),
                Event::Delete("2".into()),
                Event::Init,
                Event::InitApply("3".into()),
                Event::InitDone,
            ]
        );
        assert_eq!(
            events
                .iter()
                .map(|e| e.object().copied())
                .collect::<Vec<_>>(),
            [Some(1), Some(2), None, Some(3), None]
        );
    }
}
