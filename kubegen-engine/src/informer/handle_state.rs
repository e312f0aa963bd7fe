//! The state an informer's handles share with its watch task ([`Shared`]):
//! its store and handlers, whether it has synced or stopped, and the task
//! itself.

use std::sync::Arc;

use kubegen_client::Api;
use parking_lot::Mutex;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use super::config::InformerConfig;
use super::processor::Processor;
use super::sharded::InformerShard;
use crate::store::Store;

/// State shared by the handles and the watch task.
pub(super) struct Shared<K> {
    /// The resource type name, for metrics and logs.
    pub(super) name: String,
    /// Whether the watch asks for protobuf (a built-in kind, not opted
    /// out with [`InformerConfig::json`]).
    pub(super) protobuf: bool,
    pub(super) api: Api<K>,
    pub(super) config: InformerConfig<K>,
    pub(super) store: Arc<Store<K>>,
    /// The dispatch lock: held while the store changes and the change is
    /// queued for the handlers, and while a handler is registered.
    pub(super) processor: Mutex<Processor<K>>,
    pub(super) state: watch::Sender<Lifecycle>,
    pub(super) control: Mutex<Control>,
    /// How the informer is sharded, if it is; read when the watch starts.
    pub(super) shard: Mutex<Option<InformerShard<K>>>,
    /// Whether the apiserver filters the sharded informer's lists and
    /// watches, once the watch has found out.
    pub(super) server_side: Mutex<Option<bool>>,
}

/// Whether the cache has synced and whether the informer has stopped, as
/// waiters see it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Lifecycle {
    pub(super) synced: bool,
    pub(super) stopped: bool,
}

/// The watch task and how to stop it.
#[derive(Default)]
pub(super) struct Control {
    pub(super) started: bool,
    pub(super) stopped: bool,
    pub(super) stop: Option<oneshot::Sender<()>>,
    pub(super) task: Option<JoinHandle<()>>,
}
