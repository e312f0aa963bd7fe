//! How a [`Store`](super::Store) holds one object: decoded and shared
//! (`Arc<K>`), or compact — the object's JSON or, for a built-in kind
//! received so, its protobuf envelope, decoded again on a read that misses
//! the store's working set ([`Store::compact`](super::Store::compact)).

use std::sync::Arc;

use kube_core::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// One cached object.
pub(super) enum Entry<K> {
    /// The decoded object, handed out by cloning the `Arc`.
    Shared(Arc<K>),
    /// The object's JSON, or its protobuf envelope (which starts with
    /// `k8s\0`, where JSON starts with `{`); its resourceVersion is kept
    /// beside it so that repeats and relists are recognised without
    /// decoding.
    Encoded {
        bytes: Box<[u8]>,
        resource_version: Option<Box<str>>,
    },
}

impl<K: Resource> Entry<K> {
    /// The cached resourceVersion.
    pub(super) fn resource_version(&self) -> Option<&str> {
        match self {
            Entry::Shared(obj) => obj.meta().resource_version.as_deref(),
            Entry::Encoded {
                resource_version, ..
            } => resource_version.as_deref(),
        }
    }
}

/// Writes an object as JSON.
type Encode<K> = fn(&K) -> serde_json::Result<Vec<u8>>;

/// Turns objects into compact entries and back: JSON through `K`'s own
/// serde implementations, and protobuf envelopes received for built-in
/// kinds through [`crate::protobuf::decode`].
#[doc(hidden)]
pub struct Codec<K> {
    /// Absent for [`Codec::received`].
    encode: Option<Encode<K>>,
    decode: fn(&[u8]) -> serde_json::Result<K>,
    decode_protobuf: fn(&[u8]) -> Result<K, crate::protobuf::Error>,
}

impl<K> Clone for Codec<K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for Codec<K> {}

impl<K: Serialize + DeserializeOwned> Codec<K> {
    /// The JSON codec (which also reads protobuf envelopes).
    #[doc(hidden)]
    pub fn json() -> Self {
        Codec {
            encode: Some(|obj| serde_json::to_vec(obj)),
            ..Codec::received()
        }
    }
}

impl<K: DeserializeOwned> Codec<K> {
    /// A codec that keeps only the bytes an object was received as (JSON
    /// or a protobuf envelope) and never encodes: an object applied without
    /// them stays decoded. Needs no `Serialize`, so it is the informers'
    /// default.
    #[doc(hidden)]
    pub fn received() -> Self {
        Codec {
            encode: None,
            decode: |bytes| crate::json_text::from_bytes(bytes),
            decode_protobuf: crate::protobuf::decode,
        }
    }
}

impl<K: Resource> Codec<K> {
    /// The entry `obj` is kept as. `received` is JSON or a protobuf
    /// envelope that `obj` was just decoded from, kept as it is. Otherwise
    /// `obj`'s own JSON when that decodes back into a `K`, checked here so
    /// that reads cannot fail; and failing that (a type whose `Serialize`
    /// output its `Deserialize` refuses, or a value JSON cannot hold) the
    /// decoded object, so nothing is lost.
    pub(super) fn entry(&self, obj: &Arc<K>, received: Option<Box<[u8]>>) -> Entry<K> {
        let resource_version = || obj.meta().resource_version.as_deref().map(Box::from);
        if let Some(bytes) = received {
            return Entry::Encoded {
                bytes,
                resource_version: resource_version(),
            };
        }
        let Some(encode) = self.encode else {
            return Entry::Shared(obj.clone());
        };
        match encode(obj) {
            Ok(bytes) if (self.decode)(&bytes).is_ok() => Entry::Encoded {
                bytes: bytes.into_boxed_slice(),
                resource_version: resource_version(),
            },
            Ok(_) => {
                tracing::debug!("object's JSON does not decode back into its type; cached decoded");
                Entry::Shared(obj.clone())
            }
            Err(error) => {
                tracing::debug!(%error, "object cannot be written as JSON; cached decoded");
                Entry::Shared(obj.clone())
            }
        }
    }
}

/// The object an entry holds; `codec` is the store's (a store without one
/// holds only [`Entry::Shared`]).
pub(super) fn load<K>(codec: Option<&Codec<K>>, entry: &Entry<K>) -> Arc<K> {
    match (entry, codec) {
        (Entry::Shared(obj), _) => obj.clone(),
        (Entry::Encoded { bytes, .. }, Some(codec)) => {
            Arc::new(if crate::protobuf::is_envelope(bytes) {
                (codec.decode_protobuf)(bytes).expect("received protobuf decodes again")
            } else {
                (codec.decode)(bytes).expect("compact entries are checked to decode when stored")
            })
        }
        (Entry::Encoded { .. }, None) => {
            unreachable!("only a store with a codec makes compact entries")
        }
    }
}
