//! [`LeaseLock`]: how an elector reads and writes its Lease — client-go's
//! `resourcelock.Interface` cut down to get, create and update — and
//! [`ApiLock`], its implementation over the API server.
//!
//! The elector only ever talks to its Lease through this trait, so unit
//! tests can put a fake behind it and inject conflicts, errors and
//! requests that never answer.

use futures::future::BoxFuture;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use kubegen_client::Client;
use kubegen_client::api::{Api, ObjectMeta, PostParams};

/// Access to one Lease. Writes are conditional: [`update`](Self::update)
/// carries the `resourceVersion` of the object it is given, and fails with
/// `409 Conflict` when the Lease changed since.
pub(super) trait LeaseLock: Send + Sync {
    /// Reads the Lease; `None` when it does not exist.
    fn get(&self) -> BoxFuture<'_, Result<Option<Lease>, kubegen_client::Error>>;
    /// Creates the Lease with `spec` (`409 AlreadyExists` if it exists).
    fn create(&self, spec: LeaseSpec) -> BoxFuture<'_, Result<Lease, kubegen_client::Error>>;
    /// Replaces the Lease with `lease`, conditioned on its
    /// `resourceVersion`; returns the Lease as written.
    fn update(&self, lease: Lease) -> BoxFuture<'_, Result<Lease, kubegen_client::Error>>;
}

/// The Lease `namespace/name` on the API server.
pub(super) struct ApiLock {
    api: Api<Lease>,
    name: String,
}

impl ApiLock {
    /// The Lease `namespace/name`, reached through `client`.
    pub(super) fn new(client: Client, namespace: &str, name: &str) -> Self {
        ApiLock {
            api: Api::namespaced(client, namespace),
            name: name.to_string(),
        }
    }
}

impl LeaseLock for ApiLock {
    fn get(&self) -> BoxFuture<'_, Result<Option<Lease>, kubegen_client::Error>> {
        Box::pin(self.api.get_opt(&self.name))
    }

    fn create(&self, spec: LeaseSpec) -> BoxFuture<'_, Result<Lease, kubegen_client::Error>> {
        Box::pin(async move {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(self.name.clone()),
                    ..ObjectMeta::default()
                },
                spec: Some(spec),
            };
            self.api.create(&PostParams::default(), &lease).await
        })
    }

    fn update(&self, lease: Lease) -> BoxFuture<'_, Result<Lease, kubegen_client::Error>> {
        Box::pin(async move {
            self.api
                .replace(&self.name, &PostParams::default(), &lease)
                .await
        })
    }
}
