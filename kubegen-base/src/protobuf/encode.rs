//! Protobuf written by hand for tests: length-delimited and varint fields.

use super::wire_format::{put_bytes, put_varint};

/// Field `number` holding `data` (length-delimited).
pub(super) fn bytes(number: u32, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 4);
    put_bytes(&mut out, number, data);
    out
}

/// Field `number` holding the varint `value`.
pub(super) fn number(number: u32, value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, u64::from(number) << 3);
    put_varint(&mut out, value);
    out
}

/// An object's `k8s\0` + `runtime.Unknown` envelope around `raw`.
pub(super) fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let type_meta = [bytes(1, api_version.as_bytes()), bytes(2, kind.as_bytes())].concat();
    [b"k8s\0".to_vec(), bytes(1, &type_meta), bytes(2, raw)].concat()
}
