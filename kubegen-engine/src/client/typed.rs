//! [`typed_client!`](crate::typed_client): the macro generated clientsets
//! declare each kind's typed client with — a newtype over
//! [`ResourceClient<K>`](super::ResourceClient) exposing only the verbs the
//! kind allows, each forwarding to the generic client. The generated code
//! names the verbs; the methods, their signatures and docs live here once.

/// Declares the typed client of one kind: a newtype over
/// [`ResourceClient<K>`](crate::client::ResourceClient) with a method for
/// each verb listed and `inner()` (the generic client, for everything
/// else), documented as "The typed client of `Kind` (apiVersion): verbs".
///
/// Verbs: `get` (with `get_opt`), `list`, `watch`, `create`, `update`,
/// `update_status`, `patch`, `patch_status`, `delete`, `delete_collection`,
/// `apply`, `apply_status` — client-gen's verb set, as in
/// `+genclient:onlyVerbs`. `create`, `update`, `update_status`, `patch` and
/// `patch_status` each bring a `*_unread` twin that does not decode the
/// apiserver's reply. Generated clientsets call it; a hand-written
/// client can too (attributes before `pub struct` are kept):
///
/// ```
/// use kubegen::k8s_openapi::api::core::v1::ConfigMap;
///
/// kubegen::typed_client! {
///     /// Read-only.
///     pub struct ConfigMapReader(ConfigMap, "v1") { get, list, watch }
/// }
///
/// fn reader(client: kubegen::Client) -> ConfigMapReader {
///     ConfigMapReader(kubegen::client::ResourceClient::namespaced(client, "default"))
/// }
/// ```
///
/// A verb not listed is not there:
///
/// ```compile_fail
/// # use kubegen::k8s_openapi::api::core::v1::ConfigMap;
/// kubegen::typed_client! {
///     pub struct ConfigMapReader(ConfigMap, "v1") { get, list, watch }
/// }
///
/// async fn write(reader: &ConfigMapReader, config: &ConfigMap) {
///     let _ = reader.create(config).await;
/// }
/// ```
#[macro_export]
macro_rules! typed_client {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident($kind:ty, $api_version:literal) { $($verb:ident),* $(,)? }
    ) => {
        #[doc = ::core::concat!(
            " The typed client of `", ::core::stringify!($kind), "` (", $api_version, "): ",
            ::core::stringify!($($verb),*), "."
        )]
        $(#[$attr])*
        #[derive(Clone, Debug)]
        $vis struct $name($crate::client::ResourceClient<$kind>);
        impl $name {
            $($crate::__typed_client_verb!($verb, $kind);)*
            /// The generic client underneath (every verb, for what this
            /// typed client leaves out).
            pub fn inner(&self) -> &$crate::client::ResourceClient<$kind> {
                &self.0
            }
        }
    };
}

/// One verb's method(s) of a [`typed_client!`](crate::typed_client).
#[doc(hidden)]
#[macro_export]
macro_rules! __typed_client_verb {
    (get, $kind:ty) => {
        /// Reads one object; a missing one is an error with `is_not_found()`.
        pub async fn get(&self, name: &str) -> $crate::client::Result<$kind> {
            self.0.get(name).await
        }
        /// Reads one object, `None` when it does not exist.
        pub async fn get_opt(&self, name: &str) -> $crate::client::Result<Option<$kind>> {
            self.0.get_opt(name).await
        }
    };
    (list, $kind:ty) => {
        /// Lists objects (label/field selectors, pagination in `params`).
        pub async fn list(
            &self,
            params: &$crate::api::ListParams,
        ) -> $crate::client::Result<$crate::api::ObjectList<$kind>> {
            self.0.list(params).await
        }
    };
    (watch, $kind:ty) => {
        /// Watches objects from `resource_version` ("0" for any).
        pub async fn watch(
            &self,
            params: &$crate::api::WatchParams,
            resource_version: &str,
        ) -> $crate::client::Result<$crate::client::WatchStream<$kind>> {
            self.0.watch(params, resource_version).await
        }
    };
    (create, $kind:ty) => {
        /// Creates the object.
        pub async fn create(&self, obj: &$kind) -> $crate::client::Result<$kind> {
            self.0.create(obj).await
        }
        /// Creates the object without decoding the apiserver's reply.
        pub async fn create_unread(&self, obj: &$kind) -> $crate::client::Result<()> {
            self.0.create_unread(obj).await
        }
    };
    (update, $kind:ty) => {
        /// Replaces the object (a stale resourceVersion is a conflict).
        pub async fn update(&self, obj: &$kind) -> $crate::client::Result<$kind> {
            self.0.update(obj).await
        }
        /// Replaces the object without decoding the apiserver's reply.
        pub async fn update_unread(&self, obj: &$kind) -> $crate::client::Result<()> {
            self.0.update_unread(obj).await
        }
    };
    (update_status, $kind:ty) => {
        /// Replaces the object's status.
        pub async fn update_status(&self, obj: &$kind) -> $crate::client::Result<$kind> {
            self.0.update_status(obj).await
        }
        /// Replaces the object's status without decoding the apiserver's
        /// reply.
        pub async fn update_status_unread(&self, obj: &$kind) -> $crate::client::Result<()> {
            self.0.update_status_unread(obj).await
        }
    };
    (patch, $kind:ty) => {
        /// Patches the object (JSON, merge, strategic or apply patch).
        pub async fn patch<P: $crate::__private::serde::Serialize + ::std::fmt::Debug>(
            &self,
            name: &str,
            patch: &$crate::api::Patch<P>,
        ) -> $crate::client::Result<$kind> {
            self.0.patch(name, patch).await
        }
        /// Patches the object without decoding the apiserver's reply.
        pub async fn patch_unread<P: $crate::__private::serde::Serialize + ::std::fmt::Debug>(
            &self,
            name: &str,
            patch: &$crate::api::Patch<P>,
        ) -> $crate::client::Result<()> {
            self.0.patch_unread(name, patch).await
        }
    };
    (patch_status, $kind:ty) => {
        /// Patches the object's status.
        pub async fn patch_status<P: $crate::__private::serde::Serialize + ::std::fmt::Debug>(
            &self,
            name: &str,
            patch: &$crate::api::Patch<P>,
        ) -> $crate::client::Result<$kind> {
            self.0.patch_status(name, patch).await
        }
        /// Patches the object's status without decoding the apiserver's
        /// reply.
        pub async fn patch_status_unread<
            P: $crate::__private::serde::Serialize + ::std::fmt::Debug,
        >(
            &self,
            name: &str,
            patch: &$crate::api::Patch<P>,
        ) -> $crate::client::Result<()> {
            self.0.patch_status_unread(name, patch).await
        }
    };
    (delete, $kind:ty) => {
        /// Deletes the object.
        pub async fn delete(
            &self,
            name: &str,
            params: &$crate::api::DeleteParams,
        ) -> $crate::client::Result<()> {
            self.0.delete(name, params).await
        }
    };
    (delete_collection, $kind:ty) => {
        /// Deletes every object matching `list`.
        pub async fn delete_collection(
            &self,
            params: &$crate::api::DeleteParams,
            list: &$crate::api::ListParams,
        ) -> $crate::client::Result<()> {
            self.0.delete_collection(params, list).await
        }
    };
    (apply, $kind:ty) => {
        /// Server-side applies an apply configuration of this kind
        /// (client-go's `Apply`): exactly the fields it sets are owned by
        /// `options.field_manager`.
        pub async fn apply<A>(
            &self,
            config: &A,
            options: &$crate::apply::ApplyOptions,
        ) -> $crate::client::Result<$kind>
        where
            A: $crate::apply::ApplyConfiguration<Resource = $kind>,
        {
            self.0.apply(config, options).await
        }
        /// [`apply`](Self::apply) without decoding the apiserver's reply.
        pub async fn apply_unread<A>(
            &self,
            config: &A,
            options: &$crate::apply::ApplyOptions,
        ) -> $crate::client::Result<()>
        where
            A: $crate::apply::ApplyConfiguration<Resource = $kind>,
        {
            self.0.apply_unread(config, options).await
        }
    };
    (apply_status, $kind:ty) => {
        /// Server-side applies the status of an apply configuration
        /// (client-go's `ApplyStatus`).
        pub async fn apply_status<A>(
            &self,
            config: &A,
            options: &$crate::apply::ApplyOptions,
        ) -> $crate::client::Result<$kind>
        where
            A: $crate::apply::ApplyConfiguration<Resource = $kind>,
        {
            self.0.apply_status(config, options).await
        }
        /// [`apply_status`](Self::apply_status) without decoding the
        /// apiserver's reply.
        pub async fn apply_status_unread<A>(
            &self,
            config: &A,
            options: &$crate::apply::ApplyOptions,
        ) -> $crate::client::Result<()>
        where
            A: $crate::apply::ApplyConfiguration<Resource = $kind>,
        {
            self.0.apply_status_unread(config, options).await
        }
    };
}
