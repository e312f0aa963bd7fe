//! [`Api<K>`]: the typed verbs on one resource type, in one namespace or
//! all — `get`, `list`, `create`, `replace`, `patch`, `delete`, `watch`
//! and the subresources — with kube-client's names, signatures and
//! meanings. The requests are kube-core's ([`Request`]); this module sends
//! them and decodes the answers.

mod subresource;
mod verbs;

use std::fmt::Debug;

use kube_core::{DynamicResourceScope, NamespaceResourceScope, NamespaceScope, Resource};

use crate::client::Client;

pub use kube_core::{
    ResourceExt,
    dynamic::{ApiResource, DynamicObject},
    gvk::{GroupVersionKind, GroupVersionResource},
    metadata::{ListMeta, ObjectMeta, PartialObjectMeta, PartialObjectMetaExt, TypeMeta},
    object::{NotUsed, Object, ObjectList},
    params::{
        DeleteParams, GetParams, ListParams, Patch, PatchParams, PostParams, Preconditions,
        PropagationPolicy, ValidationDirective, VersionMatch, WatchParams,
    },
    request::Request,
    subresource::EvictParams,
    watch::WatchEvent,
};

/// The verbs on resources of type `K` in one namespace (or all, or a
/// cluster-scoped type's).
pub struct Api<K> {
    request: Request,
    client: Client,
    namespace: Option<String>,
    /// The type, erased: the URLs of other namespaces.
    resource: ApiResource,
    /// `K` is `PartialObjectMeta<_>`: requests ask for metadata only.
    metadata_api: bool,
    _kind: std::marker::PhantomData<fn() -> K>,
}

impl<K> Clone for Api<K> {
    fn clone(&self) -> Self {
        Api {
            request: self.request.clone(),
            client: self.client.clone(),
            namespace: self.namespace.clone(),
            resource: self.resource.clone(),
            metadata_api: self.metadata_api,
            _kind: std::marker::PhantomData,
        }
    }
}

impl<K: Resource> Api<K> {
    fn at(client: Client, dyntype: &K::DynamicType, namespace: Option<&str>) -> Self {
        Api {
            request: Request::new(K::url_path(dyntype, namespace)),
            client,
            namespace: namespace.map(str::to_owned),
            resource: ApiResource::erase::<K>(dyntype),
            metadata_api: K::metadata_api(),
            _kind: std::marker::PhantomData,
        }
    }

    /// Every namespace's objects (or a cluster-scoped type's), of a type
    /// known at run time (`dyntype`).
    pub fn all_with(client: Client, dyntype: &K::DynamicType) -> Self {
        Self::at(client, dyntype, None)
    }

    /// One namespace's objects of a type known at run time.
    pub fn namespaced_with(client: Client, ns: &str, dyntype: &K::DynamicType) -> Self
    where
        K: Resource<Scope = DynamicResourceScope>,
    {
        Self::at(client, dyntype, Some(ns))
    }

    /// The client's default namespace's objects of a type known at run
    /// time.
    pub fn default_namespaced_with(client: Client, dyntype: &K::DynamicType) -> Self
    where
        K: Resource<Scope = DynamicResourceScope>,
    {
        let ns = client.default_namespace().to_owned();
        Self::at(client, dyntype, Some(&ns))
    }

    /// The namespace this `Api` is in (`None`: all, or cluster-scoped).
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// This `Api` in namespace `ns` instead (an empty `ns`: in all), as
    /// kube-client's `constrain`.
    #[must_use]
    pub fn constrain(mut self, ns: &str) -> Self
    where
        K::Scope: NamespaceScope,
    {
        self.namespace = (!ns.is_empty()).then(|| ns.to_owned());
        self.request = Request::new(DynamicObject::url_path(
            &self.resource,
            self.namespace.as_deref(),
        ));
        self
    }

    /// This `Api` over every namespace (which can only list and watch).
    #[must_use]
    pub fn unconstrain(self) -> Self
    where
        K::Scope: NamespaceScope,
    {
        self.constrain("")
    }

    /// The client.
    pub fn into_client(self) -> Client {
        self.client
    }

    /// The collection's URL path (`/apis/group/version/namespaces/ns/plural`).
    pub fn resource_url(&self) -> &str {
        &self.request.url_path
    }
}

impl<K: Resource> Api<K>
where
    K::DynamicType: Default,
{
    /// Every namespace's objects (or a cluster-scoped type's).
    pub fn all(client: Client) -> Self {
        Self::at(client, &K::DynamicType::default(), None)
    }

    /// One namespace's objects.
    pub fn namespaced(client: Client, ns: &str) -> Self
    where
        K: Resource<Scope = NamespaceResourceScope>,
    {
        Self::at(client, &K::DynamicType::default(), Some(ns))
    }

    /// The client's default namespace's objects.
    pub fn default_namespaced(client: Client) -> Self
    where
        K: Resource<Scope = NamespaceResourceScope>,
    {
        let ns = client.default_namespace().to_owned();
        Self::namespaced(client, &ns)
    }
}

impl<K> From<Api<K>> for Client {
    fn from(api: Api<K>) -> Self {
        api.client
    }
}

impl<K> Debug for Api<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api")
            .field("url", &self.request.url_path)
            .field("namespace", &self.namespace)
            .finish_non_exhaustive()
    }
}
