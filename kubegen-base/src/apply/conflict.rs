//! Server-side apply conflicts, typed: a `409 Conflict` to an apply names
//! each conflicting field with the manager that owns it in the Status
//! causes (`type: FieldManagerConflict`, `field: .spec.replicas`, `message:
//! conflict with "kubectl" using apps/v1: .spec.replicas`). Read them with
//! `kubegen::ClientError::apply_conflicts`.

use kube_core::Status;

/// One field another manager owns, which an apply without `force` tried to
/// set to a different value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldConflict {
    /// The manager that owns the field (`kubectl`, `hpa-controller`, …).
    pub manager: String,
    /// The field, as the apiserver writes it (`.spec.replicas`,
    /// `.spec.template.spec.containers[name="app"].image`).
    pub field: String,
    /// The apiserver's message.
    pub message: String,
}

impl std::fmt::Display for FieldConflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is owned by {}", self.field, self.manager)
    }
}

/// The field conflicts a Status reports (none unless it is an apply
/// conflict).
pub fn conflicts(status: &Status) -> Vec<FieldConflict> {
    if status.code != 409 || status.reason != "Conflict" {
        return Vec::new();
    }
    let Some(details) = &status.details else {
        return Vec::new();
    };
    details
        .causes
        .iter()
        .filter(|c| c.reason == "FieldManagerConflict")
        .map(|c| FieldConflict {
            manager: manager_of(&c.message).unwrap_or_default(),
            field: c.field.clone(),
            message: c.message.clone(),
        })
        .collect()
}

/// `kubectl` in `conflict with "kubectl" using apps/v1: .spec.replicas`
/// (a manager name is a JSON-quoted Go string).
fn manager_of(message: &str) -> Option<String> {
    let rest = message.strip_prefix("conflict with ")?;
    let mut end = None;
    let mut escaped = false;
    for (i, c) in rest.char_indices().skip(1) {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => {
                end = Some(i);
                break;
            }
            _ => escaped = false,
        }
    }
    serde_json::from_str(&rest[..=end?]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16, reason: &str, causes: serde_json::Value) -> Status {
        serde_json::from_value(serde_json::json!({
            "status": "Failure", "code": code, "reason": reason,
            "message": "Apply failed with 1 conflict",
            "details": {"causes": causes},
        }))
        .unwrap()
    }

    #[test]
    fn reads_manager_and_field_of_each_cause() {
        let s = status(
            409,
            "Conflict",
            serde_json::json!([
                {"reason": "FieldManagerConflict", "field": ".spec.replicas",
                 "message": "conflict with \"kube\\\"ctl\" using apps/v1: .spec.replicas"},
                {"reason": "FieldManagerConflict", "field": ".status.x",
                 "message": "conflict with \"hpa\" with subresource \"scale\" using apps/v1: .status.x"},
            ]),
        );
        let found = conflicts(&s);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].manager, "kube\"ctl");
        assert_eq!(found[0].field, ".spec.replicas");
        assert_eq!(found[1].manager, "hpa");
        assert_eq!(found[0].to_string(), ".spec.replicas is owned by kube\"ctl");
    }

    #[test]
    fn other_errors_have_no_field_conflicts() {
        let causes =
            serde_json::json!([{"reason": "FieldValueInvalid", "field": "spec", "message": "m"}]);
        assert!(conflicts(&status(422, "Invalid", causes.clone())).is_empty());
        assert!(conflicts(&status(409, "Conflict", causes)).is_empty());
        assert!(manager_of("something else").is_none());
    }
}
