//! [`ObjectKey`]: how the cache names an object (namespace and name).

use std::fmt;

use kube_core::Resource;

/// The identity of a cached object: its namespace (`None` for cluster-scoped
/// objects) and its name. Displayed as `namespace/name` or `name`, like
/// client-go's `MetaNamespaceKeyFunc`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectKey {
    /// The namespace, `None` for cluster-scoped objects.
    pub namespace: Option<String>,
    /// The object's name.
    pub name: String,
}

impl ObjectKey {
    /// The key of a namespaced object.
    pub fn namespaced(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        ObjectKey {
            namespace: Some(namespace.into()),
            name: name.into(),
        }
    }

    /// The key of a cluster-scoped object.
    pub fn cluster(name: impl Into<String>) -> Self {
        ObjectKey {
            namespace: None,
            name: name.into(),
        }
    }

    /// The key of `obj`, read from its metadata (an empty namespace counts
    /// as none).
    pub fn of<K: Resource>(obj: &K) -> Self {
        let meta = obj.meta();
        ObjectKey {
            namespace: meta.namespace.clone().filter(|ns| !ns.is_empty()),
            name: meta.name.clone().unwrap_or_default(),
        }
    }

    /// Parses `namespace/name` or `name` (the [`Display`](fmt::Display)
    /// form). Returns `None` for an empty name or more than one `/`.
    pub fn parse(key: &str) -> Option<Self> {
        let (namespace, name) = match key.split_once('/') {
            Some((ns, name)) => (Some(ns), name),
            None => (None, key),
        };
        if name.is_empty() || name.contains('/') || namespace == Some("") {
            return None;
        }
        Some(ObjectKey {
            namespace: namespace.map(str::to_string),
            name: name.to_string(),
        })
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{ns}/{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse_round_trip() {
        let key = ObjectKey::namespaced("ns", "a");
        assert_eq!(key.to_string(), "ns/a");
        assert_eq!(ObjectKey::parse("ns/a"), Some(key));
        assert_eq!(ObjectKey::parse("a"), Some(ObjectKey::cluster("a")));
        assert_eq!(ObjectKey::parse(""), None);
        assert_eq!(ObjectKey::parse("/a"), None);
        assert_eq!(ObjectKey::parse("a/b/c"), None);
    }
}
