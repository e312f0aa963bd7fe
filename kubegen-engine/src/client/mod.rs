//! Typed clients: [`ResourceClient<K>`] carries every verb client-gen
//! generates (get, list, watch, create, update, update_status, patch,
//! patch_status, delete, delete_collection, apply, apply_status) for any
//! resource type. Generated clientsets are thin shims that expose the verbs
//! each resource allows, declared with [`typed_client!`](crate::typed_client).
//!
//! Each write also comes as `*_unread` (`create_unread`, `update_unread`,
//! `update_status_unread`, `patch_unread`, `patch_status_unread`): the same
//! request, the same errors, but the object the apiserver sends back is
//! not decoded. client-go and controller-runtime always decode it; a
//! reconcile that does not look at it saves the decode (managed fields
//! included), which is most of what a write costs the client.

mod apply;
mod error;
mod metrics;
mod retry;
mod typed;

use std::fmt::Debug;
use std::sync::Arc;

use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use kubegen_client::Resource;
use kubegen_client::api::{
    Api, DeleteParams, ListParams, ObjectList, Patch, PatchParams, PostParams, WatchEvent,
    WatchParams,
};
use kubegen_client::core::{ClusterResourceScope, NamespaceResourceScope, Request};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::apply::{ApplyConfiguration, ApplyOptions};

pub use apply::{apply, apply_status};
pub use error::Error;
/// The body of a request or response, for a custom transport
/// ([`Client::new`](kubegen_client::Client::new)).
pub use kubegen_client::Body;
pub use metrics::RestClientMetrics;
pub use retry::{retry_on_conflict, retry_on_conflict_with};

/// The jittered exponential backoff [`retry_on_conflict_with`] waits by.
pub use crate::jitter::Backoff;

/// Result of a typed client call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The stream of typed watch events [`ResourceClient::watch`] returns.
pub type WatchStream<K> = BoxStream<'static, Result<WatchEvent<K>>>;

/// The field manager used for writes when none is set.
pub const DEFAULT_FIELD_MANAGER: &str = "kubegen";

/// A typed client for one resource type, in one namespace, across all
/// namespaces, or cluster-wide for cluster-scoped kinds.
pub struct ResourceClient<K> {
    api: Api<K>,
    /// The client of `api`, for requests whose reply is not decoded.
    client: kubegen_client::Client,
    field_manager: Arc<str>,
}

impl<K: Clone> Clone for ResourceClient<K> {
    fn clone(&self) -> Self {
        ResourceClient {
            api: self.api.clone(),
            client: self.client.clone(),
            field_manager: self.field_manager.clone(),
        }
    }
}

impl<K> Debug for ResourceClient<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceClient")
            .field("field_manager", &self.field_manager)
            .finish_non_exhaustive()
    }
}

impl<K> ResourceClient<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug,
{
    /// A client for namespaced kind `K` in `namespace`.
    pub fn namespaced(client: kubegen_client::Client, namespace: &str) -> Self
    where
        K: Resource<Scope = NamespaceResourceScope>,
    {
        Self::from_api(Api::namespaced(client, namespace))
    }

    /// A client for cluster-scoped kind `K`.
    pub fn cluster(client: kubegen_client::Client) -> Self
    where
        K: Resource<Scope = ClusterResourceScope>,
    {
        Self::from_api(Api::all(client))
    }

    /// A client for namespaced kind `K` across all namespaces (list, watch
    /// and delete_collection make sense; writes need a namespace).
    pub fn all_namespaces(client: kubegen_client::Client) -> Self
    where
        K: Resource<Scope = NamespaceResourceScope>,
    {
        Self::from_api(Api::all(client))
    }

    /// Wraps an existing `kubegen::Api`.
    pub fn from_api(api: Api<K>) -> Self {
        ResourceClient {
            client: api.clone().into_client(),
            api,
            field_manager: Arc::from(DEFAULT_FIELD_MANAGER),
        }
    }

    /// Sets the field manager recorded for every write (and used for
    /// server-side apply).
    pub fn with_field_manager(mut self, field_manager: &str) -> Self {
        self.field_manager = Arc::from(field_manager);
        self
    }

    /// The field manager of this client.
    pub fn field_manager(&self) -> &str {
        &self.field_manager
    }

    /// The underlying `kubegen::Api`, for anything not covered here.
    pub fn api(&self) -> &Api<K> {
        &self.api
    }

    fn post_params(&self) -> PostParams {
        PostParams {
            dry_run: false,
            field_manager: Some(self.field_manager.to_string()),
        }
    }

    fn patch_params(&self) -> PatchParams {
        PatchParams {
            field_manager: Some(self.field_manager.to_string()),
            ..PatchParams::default()
        }
    }

    fn name_of(obj: &K) -> Result<String> {
        obj.meta().name.clone().ok_or(Error::MissingName)
    }

    /// A request builder for this client's resource URL (namespace
    /// included), as `api` builds its own.
    fn request(&self) -> Request {
        Request::new(self.api.resource_url())
    }

    /// Sends a write built by [`request`](Self::request), labelled `verb`
    /// as kube labels its own, and reads the reply without decoding it:
    /// a failure `Status` is the error, as for the decoding verbs.
    async fn send_unread(
        &self,
        request: Result<http::Request<Vec<u8>>, kubegen_client::core::request::Error>,
        verb: &'static str,
    ) -> Result<()> {
        let mut request = request.map_err(kubegen_client::Error::BuildRequest)?;
        request.extensions_mut().insert(verb);
        self.client.request_text(request).await?;
        Ok(())
    }

    fn body(obj: &K) -> Result<Vec<u8>> {
        Ok(serde_json::to_vec(obj).map_err(kubegen_client::Error::SerdeError)?)
    }

    /// Reads one object; a missing object is an error with
    /// [`Error::is_not_found`].
    pub async fn get(&self, name: &str) -> Result<K> {
        Ok(self.api.get(name).await?)
    }

    /// Reads one object, `None` when it does not exist.
    pub async fn get_opt(&self, name: &str) -> Result<Option<K>> {
        Ok(self.api.get_opt(name).await?)
    }

    /// Lists objects (label/field selectors, pagination in `params`).
    pub async fn list(&self, params: &ListParams) -> Result<ObjectList<K>> {
        Ok(self.api.list(params).await?)
    }

    /// Watches objects from `resource_version` ("0" for any).
    pub async fn watch(
        &self,
        params: &WatchParams,
        resource_version: &str,
    ) -> Result<WatchStream<K>>
    where
        K: Send + 'static,
    {
        let stream = self.api.watch(params, resource_version).await?;
        Ok(stream.map_err(Error::from).boxed())
    }

    /// Creates the object.
    pub async fn create(&self, obj: &K) -> Result<K> {
        Ok(self.api.create(&self.post_params(), obj).await?)
    }

    /// Creates the object, as [`create`](Self::create), without decoding
    /// the created object the apiserver sends back.
    pub async fn create_unread(&self, obj: &K) -> Result<()> {
        let request = self.request().create(&self.post_params(), Self::body(obj)?);
        self.send_unread(request, "create").await
    }

    /// Replaces the object (optimistic concurrency on its resourceVersion:
    /// a stale one gives [`Error::is_conflict`]). The status is ignored.
    pub async fn update(&self, obj: &K) -> Result<K> {
        let name = Self::name_of(obj)?;
        Ok(self.api.replace(&name, &self.post_params(), obj).await?)
    }

    /// Replaces the object, as [`update`](Self::update), without decoding
    /// the apiserver's reply.
    pub async fn update_unread(&self, obj: &K) -> Result<()> {
        let name = Self::name_of(obj)?;
        let request = self
            .request()
            .replace(&name, &self.post_params(), Self::body(obj)?);
        self.send_unread(request, "replace").await
    }

    /// Replaces the object's status subresource.
    pub async fn update_status(&self, obj: &K) -> Result<K> {
        let name = Self::name_of(obj)?;
        Ok(self
            .api
            .replace_status(&name, &self.post_params(), obj)
            .await?)
    }

    /// Replaces the object's status, as [`update_status`](Self::update_status),
    /// without decoding the apiserver's reply.
    pub async fn update_status_unread(&self, obj: &K) -> Result<()> {
        let name = Self::name_of(obj)?;
        let request = self.request().replace_subresource(
            "status",
            &name,
            &self.post_params(),
            Self::body(obj)?,
        );
        self.send_unread(request, "replace_status").await
    }

    /// Patches the object (JSON, merge, strategic or apply patch).
    pub async fn patch<P: Serialize + Debug>(&self, name: &str, patch: &Patch<P>) -> Result<K> {
        Ok(self.api.patch(name, &self.patch_params(), patch).await?)
    }

    /// Patches the object, as [`patch`](Self::patch), without decoding the
    /// apiserver's reply.
    pub async fn patch_unread<P: Serialize + Debug>(
        &self,
        name: &str,
        patch: &Patch<P>,
    ) -> Result<()> {
        let request = self.request().patch(name, &self.patch_params(), patch);
        self.send_unread(request, "patch").await
    }

    /// Patches the object's status subresource.
    pub async fn patch_status<P: Serialize + Debug>(
        &self,
        name: &str,
        patch: &Patch<P>,
    ) -> Result<K> {
        Ok(self
            .api
            .patch_status(name, &self.patch_params(), patch)
            .await?)
    }

    /// Patches the object's status, as [`patch_status`](Self::patch_status),
    /// without decoding the apiserver's reply.
    pub async fn patch_status_unread<P: Serialize + Debug>(
        &self,
        name: &str,
        patch: &Patch<P>,
    ) -> Result<()> {
        let request = self
            .request()
            .patch_subresource("status", name, &self.patch_params(), patch);
        self.send_unread(request, "patch_status").await
    }

    /// Deletes the object. Deleting a missing object is an error with
    /// [`Error::is_not_found`].
    pub async fn delete(&self, name: &str, params: &DeleteParams) -> Result<()> {
        self.api.delete(name, params).await?;
        Ok(())
    }

    /// Deletes every object matching `list` (namespace-wide for namespaced
    /// clients).
    pub async fn delete_collection(&self, params: &DeleteParams, list: &ListParams) -> Result<()> {
        self.api.delete_collection(params, list).await?;
        Ok(())
    }

    /// Server-side applies the apply configuration `config` (which carries
    /// apiVersion, kind and name) as `options.field_manager`, and returns
    /// the object as stored — client-go's `Apply(ctx, config, opts)`. A
    /// field another manager owns with a different value fails with a
    /// conflict ([`Error::apply_conflicts`] names manager and field) unless
    /// `options.force`.
    pub async fn apply<A: ApplyConfiguration<Resource = K>>(
        &self,
        config: &A,
        options: &ApplyOptions,
    ) -> Result<K> {
        let name = Self::config_name(config)?;
        Ok(self
            .api
            .patch(&name, &options.patch_params(), &Patch::Apply(config))
            .await?)
    }

    /// [`apply`](Self::apply) without decoding the apiserver's reply.
    pub async fn apply_unread<A: ApplyConfiguration<Resource = K>>(
        &self,
        config: &A,
        options: &ApplyOptions,
    ) -> Result<()> {
        let name = Self::config_name(config)?;
        let request = self
            .request()
            .patch(&name, &options.patch_params(), &Patch::Apply(config));
        self.send_unread(request, "patch").await
    }

    /// Server-side applies `config` to the status subresource (only its
    /// `status` is taken) — client-go's `ApplyStatus`.
    pub async fn apply_status<A: ApplyConfiguration<Resource = K>>(
        &self,
        config: &A,
        options: &ApplyOptions,
    ) -> Result<K> {
        let name = Self::config_name(config)?;
        Ok(self
            .api
            .patch_status(&name, &options.patch_params(), &Patch::Apply(config))
            .await?)
    }

    /// [`apply_status`](Self::apply_status) without decoding the
    /// apiserver's reply.
    pub async fn apply_status_unread<A: ApplyConfiguration<Resource = K>>(
        &self,
        config: &A,
        options: &ApplyOptions,
    ) -> Result<()> {
        let name = Self::config_name(config)?;
        let request = self.request().patch_subresource(
            "status",
            &name,
            &options.patch_params(),
            &Patch::Apply(config),
        );
        self.send_unread(request, "patch_status").await
    }

    /// Server-side apply of the whole object `obj` (which must carry
    /// apiVersion, kind and name) with this client's field manager, through
    /// [`apply`](crate::client::apply()): every field it serializes is
    /// owned, defaults and zero values included — prefer an apply
    /// configuration and [`apply`](Self::apply). `force` takes over fields
    /// owned by other managers instead of failing with a conflict.
    pub async fn apply_object(&self, obj: &K, force: bool) -> Result<K> {
        let name = Self::name_of(obj)?;
        Ok(apply(&self.api, &name, obj, &self.field_manager, force).await?)
    }

    /// [`apply_object`](Self::apply_object) on the status subresource.
    pub async fn apply_object_status(&self, obj: &K, force: bool) -> Result<K> {
        let name = Self::name_of(obj)?;
        Ok(apply_status(&self.api, &name, obj, &self.field_manager, force).await?)
    }

    fn config_name<A: ApplyConfiguration>(config: &A) -> Result<String> {
        config
            .metadata()
            .and_then(|m| m.name.clone())
            .ok_or(Error::MissingName)
    }
}
