//! Subresources: status, scale, eviction and any other by name.

use std::fmt::Debug;

use k8s_openapi::api::authentication::v1::TokenRequest;
use k8s_openapi::api::autoscaling::v1::Scale;
use k8s_openapi::api::core::v1::{Pod, ServiceAccount};
use kube_core::Status;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Api, EvictParams, Patch, PatchParams, PostParams};
use crate::error::{Error, Result};

impl<K> Api<K>
where
    K: Clone + DeserializeOwned + Debug,
{
    /// The object named `name` through its subresource `subresource`.
    pub async fn get_subresource(&self, subresource: &str, name: &str) -> Result<K> {
        let request = self
            .request
            .get_subresource(subresource, name)
            .map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }

    /// Posts `data` to the subresource `subresource` of the object named
    /// `name`.
    pub async fn create_subresource<T: DeserializeOwned>(
        &self,
        subresource: &str,
        name: &str,
        pp: &PostParams,
        data: Vec<u8>,
    ) -> Result<T> {
        let request = self
            .request
            .create_subresource(subresource, name, pp, data)
            .map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }

    /// Patches the subresource `subresource` of the object named `name`.
    pub async fn patch_subresource<P: Serialize + Debug>(
        &self,
        subresource: &str,
        name: &str,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K> {
        let request = self
            .request
            .patch_subresource(subresource, name, pp, patch)
            .map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }

    /// Replaces the subresource `subresource` of the object named `name`.
    pub async fn replace_subresource(
        &self,
        subresource: &str,
        name: &str,
        pp: &PostParams,
        data: Vec<u8>,
    ) -> Result<K> {
        let request = self
            .request
            .replace_subresource(subresource, name, pp, data)
            .map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }

    /// The object named `name` through its `status` subresource.
    pub async fn get_status(&self, name: &str) -> Result<K> {
        self.get_subresource("status", name).await
    }

    /// Patches the `status` of the object named `name`.
    pub async fn patch_status<P: Serialize + Debug>(
        &self,
        name: &str,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K> {
        self.patch_subresource("status", name, pp, patch).await
    }

    /// Replaces the `status` of the object named `name` with `data`'s.
    pub async fn replace_status(&self, name: &str, pp: &PostParams, data: &K) -> Result<K>
    where
        K: Serialize,
    {
        let body = serde_json::to_vec(data).map_err(Error::SerdeError)?;
        self.replace_subresource("status", name, pp, body).await
    }

    /// The `scale` of the object named `name`.
    pub async fn get_scale(&self, name: &str) -> Result<Scale> {
        let request = self
            .request
            .get_subresource("scale", name)
            .map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }

    /// Patches the `scale` of the object named `name`.
    pub async fn patch_scale<P: Serialize + Debug>(
        &self,
        name: &str,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<Scale> {
        let request = self
            .request
            .patch_subresource("scale", name, pp, patch)
            .map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }

    /// Replaces the `scale` of the object named `name`.
    pub async fn replace_scale(&self, name: &str, pp: &PostParams, data: &Scale) -> Result<Scale> {
        let body = serde_json::to_vec(data).map_err(Error::SerdeError)?;
        let request = self
            .request
            .replace_subresource("scale", name, pp, body)
            .map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }
}

impl Api<Pod> {
    /// Evicts the pod named `name` (the eviction API: disruption budgets
    /// apply).
    pub async fn evict(&self, name: &str, ep: &EvictParams) -> Result<Status> {
        let request = self.request.evict(name, ep).map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }
}

impl Api<ServiceAccount> {
    /// Asks for a token of the service account named `name` (the
    /// `token` subresource: the TokenRequest API).
    pub async fn create_token_request(
        &self,
        name: &str,
        pp: &PostParams,
        data: &TokenRequest,
    ) -> Result<TokenRequest> {
        let body = serde_json::to_vec(data).map_err(Error::SerdeError)?;
        let request = self
            .request
            .create_subresource("token", name, pp, body)
            .map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }
}
