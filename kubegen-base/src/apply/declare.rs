//! The macros generated apply configurations are written in: `kubegen
//! generate` writes each module's structs as one [`apply_structs!`] and
//! each kind's root items as one [`apply_root!`], so a generated module
//! holds the fields and their JSON names, and the code they stand for
//! (serde attributes, `with_*` builders, `new`, `extract`, the metadata
//! builders, the [`ApplyConfiguration`](super::ApplyConfiguration) impl)
//! is written once, here. Expanded, they are what client-go's
//! applyconfiguration-gen writes in Go.
//!
//! Builders by field kind: `set` takes `impl Into<T>`, `value` a `T`,
//! `boxed` a `T` it boxes, `list` appends items, `map` inserts entries (a
//! key given again replaces it), as client-go's builders do.
//!
//! ```
//! kubegen::apply_structs! {
//!     serde = "::kubegen::__private::serde";
//!     /// A port.
//!     pub struct PortApply {
//!         /// The port's name.
//!         name "name" with_name: set ::std::string::String,
//!         container_port "containerPort" with_container_port: set i32,
//!         hosts "hosts" with_hosts: list ::std::string::String,
//!         tags "tags" with_tags: map ::std::string::String,
//!     }
//! }
//! let port = PortApply::default()
//!     .with_name("http")
//!     .with_container_port(8080)
//!     .with_hosts(["a".to_string()])
//!     .with_hosts(["b".to_string()])
//!     .with_tags([("tier", "web".to_string())]);
//! assert_eq!(
//!     serde_json::to_value(&port).unwrap(),
//!     serde_json::json!({"name": "http", "containerPort": 8080, "hosts": ["a", "b"], "tags": {"tier": "web"}})
//! );
//! ```

/// Apply configuration structs: each field an `Option` serialized under
/// its JSON name only when set, deserialized with every field optional,
/// and a `with_*` builder per field. Written by `kubegen generate`; see
/// the [module](crate::apply) for what apply configurations are.
///
/// Each field is `ident "jsonName" builder: kind Type,` where kind is
/// `set`, `value`, `boxed`, `list` (Type is the item's) or `map` (Type is
/// the value's). `serde` names the path serde is reached by, as serde's
/// `crate` attribute takes it.
#[macro_export]
macro_rules! apply_structs {
    (
        serde = $serde:literal;
        $(
            $(#[$attr:meta])*
            pub struct $name:ident {
                $(
                    $(#[$field_attr:meta])*
                    $field:ident $json:literal $builder:ident : $kind:ident $ty:ty,
                )*
            }
        )*
    ) => {
        $(
            $(#[$attr])*
            #[derive(
                Clone,
                Debug,
                Default,
                PartialEq,
                $crate::__private::serde::Serialize,
                $crate::__private::serde::Deserialize
            )]
            #[serde(crate = $serde, default)]
            pub struct $name {
                $(
                    $(#[$field_attr])*
                    #[serde(rename = $json, skip_serializing_if = "::std::option::Option::is_none")]
                    pub $field: ::std::option::Option<$crate::__apply_field_type!($kind $ty)>,
                )*
            }
            impl $name {
                $($crate::__apply_builder!($kind $field $json $builder $ty);)*
            }
        )*
    };
}

/// The type a field of kind `$kind` holds.
#[doc(hidden)]
#[macro_export]
macro_rules! __apply_field_type {
    (set $ty:ty) => { $ty };
    (value $ty:ty) => { $ty };
    (boxed $ty:ty) => { ::std::boxed::Box<$ty> };
    (list $ty:ty) => { ::std::vec::Vec<$ty> };
    (map $ty:ty) => { ::std::collections::BTreeMap<::std::string::String, $ty> };
}

/// The `with_*` builder of a field of kind `$kind`.
#[doc(hidden)]
#[macro_export]
macro_rules! __apply_builder {
    (set $field:ident $json:literal $builder:ident $ty:ty) => {
        #[doc = ::core::concat!("Sets `", $json, "`.")]
        pub fn $builder(mut self, value: impl ::std::convert::Into<$ty>) -> Self {
            self.$field = ::std::option::Option::Some(value.into());
            self
        }
    };
    (value $field:ident $json:literal $builder:ident $ty:ty) => {
        #[doc = ::core::concat!("Sets `", $json, "`.")]
        pub fn $builder(mut self, value: $ty) -> Self {
            self.$field = ::std::option::Option::Some(value);
            self
        }
    };
    (boxed $field:ident $json:literal $builder:ident $ty:ty) => {
        #[doc = ::core::concat!("Sets `", $json, "`.")]
        pub fn $builder(mut self, value: $ty) -> Self {
            self.$field = ::std::option::Option::Some(::std::boxed::Box::new(value));
            self
        }
    };
    (list $field:ident $json:literal $builder:ident $ty:ty) => {
        #[doc = ::core::concat!("Appends to `", $json, "`.")]
        pub fn $builder(mut self, values: impl ::std::iter::IntoIterator<Item = $ty>) -> Self {
            self.$field
                .get_or_insert_with(::std::default::Default::default)
                .extend(values);
            self
        }
    };
    (map $field:ident $json:literal $builder:ident $ty:ty) => {
        #[doc = ::core::concat!("Adds entries to `", $json, "` (a key given again replaces it).")]
        pub fn $builder<K: ::std::convert::Into<::std::string::String>>(
            mut self,
            entries: impl ::std::iter::IntoIterator<Item = (K, $ty)>,
        ) -> Self {
            self.$field
                .get_or_insert_with(::std::default::Default::default)
                .extend(entries.into_iter().map(|(k, v)| (k.into(), v)));
            self
        }
    };
}

/// A kind's root apply configuration items, for a struct (declared by
/// [`apply_structs!`]) with `api_version`, `kind` and `metadata` fields:
/// `new` (namespaced: name and namespace; cluster: name), `extract` (and
/// `extract_status` with `status: true`), the metadata builders listed in
/// `metadata: [...]` (`labels`, `annotations`, `owner_references`,
/// `finalizers`, each forwarded to [`ObjectMetaApply`](super::ObjectMetaApply)),
/// and the [`ApplyConfiguration`](super::ApplyConfiguration) impl whose
/// schema is the CRD's version (`schema: crd "v1"`) or a built-in
/// definition (`schema: builtin "io.k8s.api.apps.v1.Deployment"`). Written
/// by `kubegen generate` and `#[kubegen(apply)]`.
///
/// ```
/// use kubegen::apply::ApplyConfiguration;
/// use kubegen::k8s_openapi::api::core::v1::ConfigMap;
///
/// kubegen::apply_structs! {
///     serde = "::kubegen::__private::serde";
///     pub struct ConfigMapApply {
///         api_version "apiVersion" with_api_version: set ::std::string::String,
///         kind "kind" with_kind: set ::std::string::String,
///         metadata "metadata" with_metadata: value ::kubegen::apply::ObjectMetaApply,
///         data "data" with_data: map ::std::string::String,
///     }
/// }
/// kubegen::apply_root! {
///     ConfigMapApply for ConfigMap {
///         api_version: "v1",
///         kind: "ConfigMap",
///         scope: namespaced,
///         status: false,
///         metadata: [labels],
///         schema: builtin "io.k8s.api.core.v1.ConfigMap",
///     }
/// }
/// let config = ConfigMapApply::new("settings", "default")
///     .with_labels([("app", "web")])
///     .with_data([("mode", "fast".to_string())]);
/// assert_eq!(
///     serde_json::to_value(&config).unwrap(),
///     serde_json::json!({
///         "apiVersion": "v1",
///         "kind": "ConfigMap",
///         "metadata": {"name": "settings", "namespace": "default", "labels": {"app": "web"}},
///         "data": {"mode": "fast"},
///     })
/// );
/// assert!(ConfigMapApply::schema().is_ok());
/// ```
#[macro_export]
macro_rules! apply_root {
    (
        $name:ident for $resource:ty {
            api_version: $api_version:literal,
            kind: $kind:literal,
            scope: $scope:ident,
            status: $status:ident,
            metadata: [$($forward:ident)*],
            schema: $source:ident $definition:literal $(,)?
        }
    ) => {
        impl $name {
            $crate::__apply_new!($scope $name $api_version $kind);
            #[doc = ::core::concat!(
                "Reads back the fields `field_manager` owns in `object` (the main resource): client-go's `Extract",
                $kind,
                "`."
            )]
            pub fn extract(
                object: &$resource,
                field_manager: &str,
            ) -> ::std::result::Result<Self, $crate::apply::ApplyError> {
                $crate::apply::extract(object, field_manager, ::std::option::Option::None)
            }
            $crate::__apply_extract_status!($status $resource, $kind);
            $($crate::__apply_metadata_builder!($forward);)*
        }
        impl $crate::apply::ApplyConfiguration for $name {
            type Resource = $resource;
            fn schema() -> ::std::result::Result<
                &'static $crate::apply::MergeShape,
                $crate::apply::ApplyError,
            > {
                static SCHEMA: $crate::apply::SchemaCell = $crate::apply::SchemaCell::new();
                $crate::__apply_schema!($source $resource, &SCHEMA, $definition)
            }
            fn metadata(&self) -> ::std::option::Option<&$crate::apply::ObjectMetaApply> {
                self.metadata.as_ref()
            }
        }
    };
}

/// A root's `new`.
#[doc(hidden)]
#[macro_export]
macro_rules! __apply_new {
    (namespaced $name:ident $api_version:literal $kind:literal) => {
        #[doc = ::core::concat!("`", $kind, "` `name` in `namespace`, with `apiVersion`, `kind` set.")]
        pub fn new(
            name: impl ::std::convert::Into<::std::string::String>,
            namespace: impl ::std::convert::Into<::std::string::String>,
        ) -> Self {
            $name {
                api_version: ::std::option::Option::Some($api_version.into()),
                kind: ::std::option::Option::Some($kind.into()),
                metadata: ::std::option::Option::Some(
                    $crate::apply::ObjectMetaApply::default()
                        .with_name(name)
                        .with_namespace(namespace),
                ),
                ..::std::default::Default::default()
            }
        }
    };
    (cluster $name:ident $api_version:literal $kind:literal) => {
        #[doc = ::core::concat!("`", $kind, "` `name`, with `apiVersion`, `kind` set.")]
        pub fn new(name: impl ::std::convert::Into<::std::string::String>) -> Self {
            $name {
                api_version: ::std::option::Option::Some($api_version.into()),
                kind: ::std::option::Option::Some($kind.into()),
                metadata: ::std::option::Option::Some(
                    $crate::apply::ObjectMetaApply::default().with_name(name),
                ),
                ..::std::default::Default::default()
            }
        }
    };
}

/// A root's `extract_status`, for a kind with a status subresource.
#[doc(hidden)]
#[macro_export]
macro_rules! __apply_extract_status {
    (false $resource:ty, $kind:literal) => {};
    (true $resource:ty, $kind:literal) => {
        #[doc = ::core::concat!(
            "Reads back the fields `field_manager` owns in `object`'s status subresource: client-go's `Extract",
            $kind,
            "Status`."
        )]
        pub fn extract_status(
            object: &$resource,
            field_manager: &str,
        ) -> ::std::result::Result<Self, $crate::apply::ApplyError> {
            $crate::apply::extract(object, field_manager, ::std::option::Option::Some("status"))
        }
    };
}

/// A root's builder forwarded to its `ObjectMetaApply`.
#[doc(hidden)]
#[macro_export]
macro_rules! __apply_metadata_builder {
    (labels) => {
        $crate::__apply_metadata_builder!(pairs with_labels "Adds labels to `metadata` (a key given again replaces the value).");
    };
    (annotations) => {
        $crate::__apply_metadata_builder!(pairs with_annotations "Adds annotations to `metadata` (a key given again replaces the value).");
    };
    (pairs $method:ident $doc:literal) => {
        #[doc = $doc]
        pub fn $method<
            K: ::std::convert::Into<::std::string::String>,
            V: ::std::convert::Into<::std::string::String>,
        >(
            mut self,
            entries: impl ::std::iter::IntoIterator<Item = (K, V)>,
        ) -> Self {
            self.metadata = ::std::option::Option::Some(
                self.metadata.take().unwrap_or_default().$method(entries),
            );
            self
        }
    };
    (owner_references) => {
        /// Appends owner references to `metadata`.
        pub fn with_owner_references(
            mut self,
            references: impl ::std::iter::IntoIterator<Item = $crate::apply::OwnerReferenceApply>,
        ) -> Self {
            self.metadata = ::std::option::Option::Some(
                self.metadata
                    .take()
                    .unwrap_or_default()
                    .with_owner_references(references),
            );
            self
        }
    };
    (finalizers) => {
        /// Appends finalizers to `metadata`.
        pub fn with_finalizers<S: ::std::convert::Into<::std::string::String>>(
            mut self,
            finalizers: impl ::std::iter::IntoIterator<Item = S>,
        ) -> Self {
            self.metadata = ::std::option::Option::Some(
                self.metadata
                    .take()
                    .unwrap_or_default()
                    .with_finalizers(finalizers),
            );
            self
        }
    };
}
