//! The verbs on a collection and its objects: get, list, create, replace,
//! patch, delete, watch (and their metadata-only forms, which
//! `Api<PartialObjectMeta<K>>` uses for every read).

use std::fmt::Debug;

use either::Either;
use futures::Stream;
use kube_core::Status;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{
    Api, DeleteParams, GetParams, ListParams, ObjectList, PartialObjectMeta, Patch, PatchParams,
    PostParams, WatchEvent, WatchParams,
};
use crate::error::{Error, Result};

impl<K> Api<K>
where
    K: Clone + DeserializeOwned + Debug,
{
    /// The object named `name`; a 404 is [`Error::Api`] (see
    /// [`get_opt`](Api::get_opt)).
    pub async fn get(&self, name: &str) -> Result<K> {
        self.get_with(name, &GetParams::default()).await
    }

    /// The object named `name`, read as `gp` asks (`resourceVersion`).
    pub async fn get_with(&self, name: &str, gp: &GetParams) -> Result<K> {
        let request = if self.metadata_api {
            self.request.get_metadata(name, gp)
        } else {
            self.request.get(name, gp)
        };
        self.client
            .request(request.map_err(Error::BuildRequest)?)
            .await
    }

    /// The object named `name`, `None` if there is none.
    pub async fn get_opt(&self, name: &str) -> Result<Option<K>> {
        not_found_is_none(self.get(name).await)
    }

    /// The metadata of the object named `name`.
    pub async fn get_metadata(&self, name: &str) -> Result<PartialObjectMeta<K>> {
        let request = self.request.get_metadata(name, &GetParams::default());
        self.client
            .request(request.map_err(Error::BuildRequest)?)
            .await
    }

    /// The metadata of the object named `name`, `None` if there is none.
    pub async fn get_metadata_opt(&self, name: &str) -> Result<Option<PartialObjectMeta<K>>> {
        not_found_is_none(self.get_metadata(name).await)
    }

    /// The objects `lp` selects (a page of them if it sets a limit).
    pub async fn list(&self, lp: &ListParams) -> Result<ObjectList<K>> {
        let request = if self.metadata_api {
            self.request.list_metadata(lp)
        } else {
            self.request.list(lp)
        };
        self.client
            .request(request.map_err(Error::BuildRequest)?)
            .await
    }

    /// The metadata of the objects `lp` selects.
    pub async fn list_metadata(&self, lp: &ListParams) -> Result<ObjectList<PartialObjectMeta<K>>> {
        let request = self
            .request
            .list_metadata(lp)
            .map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }

    /// Creates `data`; the apiserver's copy is returned.
    pub async fn create(&self, pp: &PostParams, data: &K) -> Result<K>
    where
        K: Serialize,
    {
        let body = serde_json::to_vec(data).map_err(Error::SerdeError)?;
        let request = self.request.create(pp, body).map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }

    /// Replaces the object named `name` with `data` (whose
    /// `resourceVersion`, if set, must be the current one).
    pub async fn replace(&self, name: &str, pp: &PostParams, data: &K) -> Result<K>
    where
        K: Serialize,
    {
        let body = serde_json::to_vec(data).map_err(Error::SerdeError)?;
        let request = self
            .request
            .replace(name, pp, body)
            .map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }

    /// Patches the object named `name` (apply, JSON, merge or strategic
    /// merge, as `patch` is).
    pub async fn patch<P: Serialize + Debug>(
        &self,
        name: &str,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K> {
        let request = if self.metadata_api {
            self.request.patch_metadata(name, pp, patch)
        } else {
            self.request.patch(name, pp, patch)
        };
        self.client
            .request(request.map_err(Error::BuildRequest)?)
            .await
    }

    /// Patches the metadata of the object named `name`.
    pub async fn patch_metadata<P: Serialize + Debug>(
        &self,
        name: &str,
        pp: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<PartialObjectMeta<K>> {
        let request = self
            .request
            .patch_metadata(name, pp, patch)
            .map_err(Error::BuildRequest)?;
        self.client.request(request).await
    }

    /// Deletes the object named `name`: `Left` with the object while
    /// finalizers keep it, `Right` with the `Status` once it is gone.
    pub async fn delete(&self, name: &str, dp: &DeleteParams) -> Result<Either<K, Status>> {
        let request = self.request.delete(name, dp).map_err(Error::BuildRequest)?;
        self.client.request_status(request).await
    }

    /// Deletes the objects `lp` selects: `Left` with those that remain
    /// while finalizers keep them, `Right` with a `Status`.
    pub async fn delete_collection(
        &self,
        dp: &DeleteParams,
        lp: &ListParams,
    ) -> Result<Either<ObjectList<K>, Status>> {
        let request = self
            .request
            .delete_collection(dp, lp)
            .map_err(Error::BuildRequest)?;
        self.client.request_status(request).await
    }

    /// Watches the objects `wp` selects from `version` on (a
    /// `resourceVersion`; `"0"`: from any recent state).
    pub async fn watch(
        &self,
        wp: &WatchParams,
        version: &str,
    ) -> Result<impl Stream<Item = Result<WatchEvent<K>>> + use<K>> {
        let request = if self.metadata_api {
            self.request.watch_metadata(wp, version)
        } else {
            self.request.watch(wp, version)
        };
        self.client
            .request_events::<K>(request.map_err(Error::BuildRequest)?)
            .await
    }

    /// Watches the metadata of the objects `wp` selects.
    pub async fn watch_metadata(
        &self,
        wp: &WatchParams,
        version: &str,
    ) -> Result<impl Stream<Item = Result<WatchEvent<PartialObjectMeta<K>>>> + use<K>> {
        let request = self
            .request
            .watch_metadata(wp, version)
            .map_err(Error::BuildRequest)?;
        self.client
            .request_events::<PartialObjectMeta<K>>(request)
            .await
    }
}

/// A 404 as `None`.
pub(super) fn not_found_is_none<T>(result: Result<T>) -> Result<Option<T>> {
    match result {
        Ok(object) => Ok(Some(object)),
        Err(Error::Api(status)) if status.code == 404 => Ok(None),
        Err(error) => Err(error),
    }
}
