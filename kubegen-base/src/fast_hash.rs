//! Hash maps for the hot paths (the work queue's sets, the cache's items
//! and indexes): std's maps with foldhash's per-process randomly seeded
//! hasher instead of SipHash, which costs several times more per key.
//! Keys come from the apiserver, so the seed stays random, as Go's map
//! seed does for client-go.

/// [`std::collections::HashMap`] with foldhash.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// [`std::collections::HashSet`] with foldhash.
pub(crate) type HashSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
