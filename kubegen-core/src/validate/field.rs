//! The apiserver's field errors (k8s.io/apimachinery `field.Error`), with
//! their text exactly as `Error()` writes it: `<path>: <type>[: <value>][:
//! <detail>]`, the value rendered as Go renders it.

use std::fmt;

use serde_json::Value;

use crate::go::fmt::go_value;

/// `field.ErrorType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorType {
    /// `FieldValueNotFound`
    NotFound,
    /// `FieldValueRequired`
    Required,
    /// `FieldValueDuplicate`
    Duplicate,
    /// `FieldValueInvalid`
    Invalid,
    /// `FieldValueNotSupported`
    NotSupported,
    /// `FieldValueForbidden`
    Forbidden,
    /// `FieldValueTooLong`
    TooLong,
    /// `FieldValueTooMany`
    TooMany,
    /// `FieldValueTooFew`
    TooFew,
    /// `InternalError`
    Internal,
    /// `FieldValueTypeInvalid`
    TypeInvalid,
    /// `FieldValueTooShort`
    TooShort,
}

impl ErrorType {
    /// The reason the apiserver's `Status` causes carry (`FieldValueInvalid`).
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::TooFew => "FieldValueTooFew",
            ErrorType::Internal => "InternalError",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
            ErrorType::TooShort => "FieldValueTooShort",
        }
    }

    /// The words `Error()` starts the body with.
    pub fn words(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::TooFew => "Too few",
            ErrorType::Internal => "Internal error",
            ErrorType::TooShort => "Too short",
        }
    }
}

/// One field error.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// What kind.
    pub kind: ErrorType,
    /// The field's path as the apiserver writes it (`spec.ports[0].name`,
    /// `metadata.labels[app]`).
    pub field: String,
    /// The bad value; `None` where the apiserver omits it.
    pub value: Option<Value>,
    /// Why.
    pub detail: String,
    /// The value as Go prints it, where a Go struct's field order makes
    /// it differ from [`crate::go::fmt::go_value`] of `value`.
    pub shown: Option<String>,
}

impl FieldError {
    /// A field error.
    pub fn new(
        kind: ErrorType,
        field: impl Into<String>,
        value: Option<Value>,
        detail: impl Into<String>,
    ) -> FieldError {
        FieldError {
            kind,
            field: field.into(),
            value,
            detail: detail.into(),
            shown: None,
        }
    }

    /// The same error, its value printed as `shown`.
    pub fn shown_as(mut self, shown: String) -> FieldError {
        self.shown = Some(shown);
        self
    }

    /// `field.Required(path, detail)`.
    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> FieldError {
        FieldError::new(ErrorType::Required, field, None, detail)
    }

    /// `field.Invalid(path, value, detail)`.
    pub fn invalid(
        field: impl Into<String>,
        value: Value,
        detail: impl Into<String>,
    ) -> FieldError {
        FieldError::new(ErrorType::Invalid, field, Some(value), detail)
    }

    /// `ErrorBody()`: the text after the path.
    pub fn body(&self) -> String {
        let words = self.kind.words();
        let mut s = match (&self.value, self.kind) {
            (
                Some(v),
                ErrorType::Invalid
                | ErrorType::TypeInvalid
                | ErrorType::NotSupported
                | ErrorType::NotFound
                | ErrorType::Duplicate
                | ErrorType::TooMany
                | ErrorType::TooFew,
            ) => format!(
                "{words}: {}",
                self.shown.clone().unwrap_or_else(|| go_value(v))
            ),
            _ => words.to_string(),
        };
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

/// `Error()`.
impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn errors_read_as_the_apiserver_writes_them() {
        let e = FieldError::invalid(
            "spec.replicas",
            json!(0),
            "spec.replicas in body should be greater than or equal to 1",
        );
        assert_eq!(
            e.to_string(),
            "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"
        );
        assert_eq!(
            FieldError::required("spec.name", "").to_string(),
            "spec.name: Required value"
        );
        let n = FieldError::new(
            ErrorType::NotSupported,
            "spec.mode",
            Some(json!("c")),
            "supported values: \"a\", \"b\"",
        );
        assert_eq!(
            n.to_string(),
            "spec.mode: Unsupported value: \"c\": supported values: \"a\", \"b\""
        );
        let m = FieldError::invalid("spec", json!({"b": 1, "a": "<x>"}), "d");
        assert_eq!(
            m.to_string(),
            "spec: Invalid value: {\"a\":\"\\u003cx\\u003e\",\"b\":1}: d"
        );
        let f = FieldError::new(
            ErrorType::TooLong,
            "spec.s",
            None,
            "may not be more than 3 bytes",
        );
        assert_eq!(
            f.to_string(),
            "spec.s: Too long: may not be more than 3 bytes"
        );
    }
}
