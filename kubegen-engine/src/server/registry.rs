//! [`SharedRegistry`]: the one Prometheus registry of a process, shared by
//! the runtime's components and served by the metrics server.

use std::fmt;
use std::sync::Arc;

use prometheus_client::registry::Registry;

/// The Prometheus registry shared by the runtime's components (work queues,
/// informers, leader election, ...) and served on `/metrics`.
#[derive(Clone, Default)]
pub struct SharedRegistry(Arc<parking_lot::RwLock<Registry>>);

impl fmt::Debug for SharedRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SharedRegistry").finish_non_exhaustive()
    }
}

impl SharedRegistry {
    /// Wraps `registry` for sharing.
    pub fn new(registry: Registry) -> Self {
        SharedRegistry(Arc::new(parking_lot::RwLock::new(registry)))
    }

    /// Runs `register` with the registry, e.g.
    /// `shared.register(|r| WorkQueueMetrics::register(r))`.
    pub fn register<T>(&self, register: impl FnOnce(&mut Registry) -> T) -> T {
        register(&mut self.0.write())
    }

    /// The registry in Prometheus text format (OpenMetrics 1.0).
    pub fn encode(&self) -> Result<String, fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.0.read())?;
        Ok(text)
    }
}
