//! Finding messages in the field table: by index, and by apiVersion and
//! kind.

use super::fields::{KINDS, MESSAGES};
use super::table::Message;

/// The message at `index`.
pub(super) fn message(index: u16) -> &'static Message {
    &MESSAGES[usize::from(index)]
}

/// The message of a built-in kind, if the table has it.
pub(super) fn kind(api_version: &str, kind: &str) -> Option<&'static Message> {
    KINDS
        .binary_search_by(|k| (k.api_version, k.kind).cmp(&(api_version, kind)))
        .ok()
        .map(|i| message(KINDS[i].message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protobuf::table::{Shape, Value};

    #[test]
    fn kinds_are_sorted_and_find_their_messages() {
        assert!(
            KINDS
                .windows(2)
                .all(|w| (w[0].api_version, w[0].kind) < (w[1].api_version, w[1].kind))
        );
        assert_eq!(
            kind("v1", "ConfigMap").unwrap().name,
            "k8s.io/api/core/v1.ConfigMap"
        );
        assert_eq!(
            kind("apps/v1", "Deployment").unwrap().name,
            "k8s.io/api/apps/v1.Deployment"
        );
        assert!(kind("example.com/v1", "MyApplication").is_none());
    }

    #[test]
    fn every_message_index_is_in_the_table() {
        for m in &MESSAGES {
            for field in m.fields {
                if let Value::Message(i) = field.value {
                    assert!(usize::from(i) < MESSAGES.len(), "{}.{}", m.name, field.json);
                }
                assert_eq!(
                    field.json.is_empty(),
                    field.shape == Shape::Inline,
                    "{}",
                    m.name
                );
            }
        }
    }
}
