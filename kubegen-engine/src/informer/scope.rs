//! [`ApiScope`]: building an `Api<K>` restricted to a namespace for any
//! resource scope (for the factory's informers, and for a sharded
//! informer's `Api` over its selecting client).

use kubegen_client::core::{ClusterResourceScope, DynamicResourceScope, NamespaceResourceScope};
use kubegen_client::{Api, Client, Resource};

/// Builds the `Api` an informer of a type with this scope watches: within
/// one namespace or across all of them. Cluster-scoped types ignore the
/// namespace.
pub trait ApiScope {
    /// An `Api<K>` over `namespace` (`None`: all namespaces).
    fn api<K: Resource<Scope = Self>>(
        client: Client,
        namespace: Option<&str>,
        dyntype: &K::DynamicType,
    ) -> Api<K>;
}

/// All namespaces, or only `namespace`.
fn all_or_in<K>(api: Api<K>, namespace: Option<&str>) -> Api<K>
where
    K: Resource,
    K::Scope: kubegen_client::core::NamespaceScope,
{
    match namespace {
        Some(ns) => api.constrain(ns),
        None => api,
    }
}

impl ApiScope for NamespaceResourceScope {
    fn api<K: Resource<Scope = Self>>(
        client: Client,
        namespace: Option<&str>,
        dyntype: &K::DynamicType,
    ) -> Api<K> {
        all_or_in(Api::all_with(client, dyntype), namespace)
    }
}

impl ApiScope for DynamicResourceScope {
    fn api<K: Resource<Scope = Self>>(
        client: Client,
        namespace: Option<&str>,
        dyntype: &K::DynamicType,
    ) -> Api<K> {
        all_or_in(Api::all_with(client, dyntype), namespace)
    }
}

impl ApiScope for ClusterResourceScope {
    fn api<K: Resource<Scope = Self>>(
        client: Client,
        _namespace: Option<&str>,
        dyntype: &K::DynamicType,
    ) -> Api<K> {
        Api::all_with(client, dyntype)
    }
}
