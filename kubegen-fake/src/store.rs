//! Objects as etcd keeps them for the apiserver: every revision of every
//! key under one global revision counter (the `resourceVersion`), reads
//! at the newest or at an older revision, the ordered log of writes that
//! watches replay, and compaction, after which older revisions answer
//! `410 Gone` as they do on a real cluster.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;

/// Where an object lives: its resource (`apps/deployments`, `/pods` for
/// the core group), its namespace (empty for cluster-scoped objects) and
/// its name. Ordered as the apiserver's storage keys are, so lists come
/// out sorted by namespace, then name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// `<group>/<plural>`.
    pub resource: String,
    /// The namespace, empty for cluster-scoped objects.
    pub namespace: String,
    /// The object's name.
    pub name: String,
}

/// One write: the object before and after (`None` where it did not
/// exist), at revision `rv`.
#[derive(Clone, Debug)]
pub struct Change {
    /// The revision this write created.
    pub rv: u64,
    /// The object written.
    pub key: Key,
    /// The object before the write.
    pub old: Option<Arc<Value>>,
    /// The object after the write; `None` for a deletion.
    pub new: Option<Arc<Value>>,
}

/// A revision the store no longer holds (compacted), or one it has not
/// reached yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unreadable {
    /// Older than the last compaction: `(asked, oldest readable)`.
    Compacted(u64, u64),
    /// Newer than the newest write: `(asked, current)`.
    Future(u64, u64),
}

#[derive(Clone, Debug)]
struct Revision {
    rv: u64,
    object: Option<Arc<Value>>,
}

/// The store: a multi-version map from [`Key`] to objects.
#[derive(Debug)]
pub struct Store {
    keys: BTreeMap<Key, Vec<Revision>>,
    log: VecDeque<Change>,
    rv: u64,
    compacted: u64,
    history: usize,
}

impl Store {
    /// An empty store whose first write is revision `first`, keeping the
    /// last `history` writes readable.
    pub fn new(first: u64, history: usize) -> Store {
        Store {
            keys: BTreeMap::new(),
            log: VecDeque::new(),
            rv: first.saturating_sub(1),
            compacted: first.saturating_sub(1),
            history: history.max(1),
        }
    }

    /// The newest revision.
    pub fn revision(&self) -> u64 {
        self.rv
    }

    /// The object at `key` now.
    pub fn get(&self, key: &Key) -> Option<&Arc<Value>> {
        self.keys
            .get(key)
            .and_then(|revs| revs.last())
            .and_then(|r| r.object.as_ref())
    }

    /// Checks that revision `rv` can be read.
    pub fn readable(&self, rv: u64) -> Result<(), Unreadable> {
        if rv > self.rv {
            Err(Unreadable::Future(rv, self.rv))
        } else if rv < self.compacted {
            Err(Unreadable::Compacted(rv, self.compacted))
        } else {
            Ok(())
        }
    }

    /// Writes `object` (or deletes, with `None`) at `key` as the next
    /// revision, stamping `metadata.resourceVersion`; returns the change.
    /// A deletion stores nothing but the tombstone; the change's `old`
    /// is the object as it was.
    pub fn write(&mut self, key: Key, object: Option<Value>) -> Change {
        self.rv += 1;
        let rv = self.rv;
        let object = object.map(|mut o| {
            if let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.insert("resourceVersion".into(), Value::String(rv.to_string()));
            }
            Arc::new(o)
        });
        let revs = self.keys.entry(key.clone()).or_default();
        let old = revs.last().and_then(|r| r.object.clone());
        revs.push(Revision {
            rv,
            object: object.clone(),
        });
        let change = Change {
            rv,
            key,
            old,
            new: object,
        };
        self.log.push_back(change.clone());
        if self.log.len() > self.history {
            let upto = self.log[self.log.len() - self.history].rv - 1;
            self.compact(upto);
        }
        change
    }

    /// Forgets revisions up to `upto`, as etcd's compaction does: reads at
    /// them, watches from them and list continuations at them fail with
    /// `410 Gone` afterwards.
    pub fn compact(&mut self, upto: u64) {
        let upto = upto.min(self.rv);
        if upto <= self.compacted {
            return;
        }
        self.compacted = upto;
        while self.log.front().is_some_and(|c| c.rv <= upto) {
            self.log.pop_front();
        }
        self.keys.retain(|_, revs| {
            // Keep the newest revision at or before `upto` (the state
            // then) and every later one.
            let keep_from = revs.iter().rposition(|r| r.rv <= upto).unwrap_or(0);
            revs.drain(..keep_from);
            !(revs.len() == 1 && revs[0].object.is_none() && revs[0].rv <= upto)
        });
    }

    /// The objects of `resource` (in `namespace`, or all) at revision `rv`
    /// (the newest when `None`), in key order, starting after `after`.
    pub fn list(
        &self,
        resource: &str,
        namespace: Option<&str>,
        rv: Option<u64>,
        after: Option<&Key>,
    ) -> Result<Vec<(&Key, &Arc<Value>)>, Unreadable> {
        let at = rv.unwrap_or(self.rv);
        self.readable(at)?;
        let start = Key {
            resource: resource.to_string(),
            namespace: namespace.unwrap_or("").to_string(),
            name: String::new(),
        };
        let mut out = Vec::new();
        for (key, revs) in self.keys.range(start..) {
            if key.resource != resource || namespace.is_some_and(|ns| key.namespace != ns) {
                break;
            }
            if after.is_some_and(|a| key <= a) {
                continue;
            }
            let found = revs.iter().rev().find(|r| r.rv <= at);
            if let Some(object) = found.and_then(|r| r.object.as_ref()) {
                out.push((key, object));
            }
        }
        Ok(out)
    }

    /// The writes after revision `rv`, oldest first, for a watch that
    /// starts there.
    pub fn changes_since(&self, rv: u64) -> Result<impl Iterator<Item = &Change>, Unreadable> {
        self.readable(rv)?;
        Ok(self.log.iter().filter(move |c| c.rv > rv))
    }

    /// Every key of `resource` holding an object now (all namespaces).
    pub fn keys_of<'a>(&'a self, resource: &'a str) -> impl Iterator<Item = &'a Key> + 'a {
        let start = Key {
            resource: resource.to_string(),
            namespace: String::new(),
            name: String::new(),
        };
        self.keys
            .range(start..)
            .take_while(move |(k, _)| k.resource == resource)
            .filter(|(_, revs)| revs.last().is_some_and(|r| r.object.is_some()))
            .map(|(k, _)| k)
    }

    /// Every object now, of every resource.
    pub fn all(&self) -> impl Iterator<Item = (&Key, &Arc<Value>)> {
        self.keys
            .iter()
            .filter_map(|(k, revs)| revs.last()?.object.as_ref().map(|o| (k, o)))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn key(name: &str) -> Key {
        Key {
            resource: "/configmaps".into(),
            namespace: "ns".into(),
            name: name.into(),
        }
    }

    fn cm(name: &str, v: i64) -> Value {
        json!({"metadata": {"name": name}, "data": {"v": v.to_string()}})
    }

    #[test]
    fn reads_at_a_revision_see_that_revisions_state() {
        let mut s = Store::new(10, 100);
        s.write(key("a"), Some(cm("a", 1)));
        s.write(key("b"), Some(cm("b", 1)));
        let at = s.revision();
        s.write(key("a"), Some(cm("a", 2)));
        s.write(key("b"), None);
        let then = s.list("/configmaps", Some("ns"), Some(at), None).unwrap();
        assert_eq!(then.len(), 2);
        assert_eq!(then[0].1["data"]["v"], "1");
        assert_eq!(then[0].1["metadata"]["resourceVersion"], "10");
        let now = s.list("/configmaps", None, None, None).unwrap();
        assert_eq!(now.len(), 1);
        assert_eq!(now[0].1["data"]["v"], "2");
        let after = s
            .list("/configmaps", None, Some(at), Some(&key("a")))
            .unwrap();
        assert_eq!(after.len(), 1);
        assert_eq!(after[0].0.name, "b");
    }

    #[test]
    fn compaction_makes_old_revisions_unreadable_and_keeps_the_state() {
        let mut s = Store::new(1, 3);
        for v in 0..5 {
            s.write(key("a"), Some(cm("a", v)));
        }
        s.write(key("gone"), Some(cm("gone", 0)));
        s.write(key("gone"), None);
        // 7 writes, 3 kept: revisions 1..=4 compacted.
        assert_eq!(s.readable(3), Err(Unreadable::Compacted(3, 4)));
        assert!(s.readable(4).is_ok());
        assert_eq!(s.readable(9), Err(Unreadable::Future(9, 7)));
        assert_eq!(
            s.list("/configmaps", None, Some(4), None).unwrap()[0].1["data"]["v"],
            "3"
        );
        assert_eq!(s.changes_since(4).unwrap().count(), 3);
        assert!(s.changes_since(2).is_err());
        assert_eq!(s.get(&key("a")).unwrap()["data"]["v"], "4");
        assert_eq!(s.keys_of("/configmaps").count(), 1);
    }
}
