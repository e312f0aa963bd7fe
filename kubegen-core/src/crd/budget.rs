//! The size budget: a CRD must fit in what etcd stores for one object.

use serde_json::Value;

use super::CrdError;
use crate::model::ResourceModel;
use crate::output::{self, SizeCheck};

/// Refuses a CRD over etcd's limit. The limit applies to what the
/// apiserver stores: compact JSON (the indentation of a pretty rendering
/// is not stored).
pub(super) fn check_stored_size(res: &ResourceModel, crd: &Value) -> Result<(), CrdError> {
    let stored = serde_json::to_string(crd).unwrap_or_default();
    if let SizeCheck::TooLarge(bytes) = output::check_size(&stored) {
        return Err(CrdError::TooLarge {
            crd: res.crd_name(),
            bytes,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use crate::crd::{crd_json, fixtures};
    use crate::output;

    #[test]
    fn the_size_limit_counts_what_the_apiserver_stores() {
        // Deeply nested properties: the pretty rendering's indentation
        // alone would pass the limit, the stored (compact) JSON does not.
        let mut node = json!({"type": "string"});
        for i in 0..40 {
            node = json!({"type": "object", "properties": {format!("p{i}"): node}});
        }
        let mut props = Map::new();
        for i in 0..800 {
            props.insert(format!("f{i}"), node.clone());
        }
        let spec = json!({"type": "object", "properties": props});
        let crd = crd_json(&fixtures::bare_res(), spec, None).unwrap();
        let compact = serde_json::to_string(&crd).unwrap().len();
        assert!(compact <= output::MAX_BYTES, "{compact}");
        assert!(output::to_json(&crd).len() > output::MAX_BYTES);
    }
}
