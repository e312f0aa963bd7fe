//! apimachinery's checks of names and labels (`k8s.io/apimachinery/pkg/util/validation`
//! and `pkg/api/validation`): DNS-1123 labels and subdomains, qualified
//! names (label keys), label values, and object names as `NameIsDNSSubdomain`
//! checks them; their messages word for word. The metadata check and the
//! CEL format library both use them.

use std::borrow::Cow;

use regex::Regex;

pub(crate) const DNS1123_LABEL: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
pub(crate) const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const LABEL_KEY: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

pub(crate) fn subdomain() -> String {
    format!("{DNS1123_LABEL}(\\.{DNS1123_LABEL})*")
}

pub(crate) fn full(re: &str) -> Regex {
    Regex::new(&format!("^(?:{re})$")).expect("a fixed pattern")
}

/// `RegexError(msg, fmt, examples...)`.
pub(crate) fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    let mut out = msg.to_string();
    out.push_str(" (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push_str(&format!("'{e}', "));
    }
    out.push_str(&format!("regex used for validation is '{re}')"));
    out
}

/// util/validation's `IsDNS1123Subdomain` (lengths in characters).
pub(crate) fn is_dns1123_subdomain(v: &str, unit: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 253 {
        errs.push(format!("must be no more than 253 {unit}"));
    }
    if !full(&subdomain()).is_match(v) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            &subdomain(),
            &["example.com"],
        ));
    }
    errs
}

/// `IsDNS1123Label`: a valid subdomain that is no label has dots.
pub(crate) fn is_dns1123_label(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !full(DNS1123_LABEL).is_match(v) {
        if full(&subdomain()).is_match(v) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_MSG,
                DNS1123_LABEL,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

const DNS1035_LABEL: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/// `IsDNS1035Label`.
pub(crate) fn is_dns1035_label(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !full(DNS1035_LABEL).is_match(v) {
        errs.push(regex_error(
            DNS1035_LABEL_MSG,
            DNS1035_LABEL,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `maskTrailingDash` when `prefix`: a name that is only a prefix may end
/// with `-`.
pub(crate) fn mask_trailing_dash(name: &str, prefix: bool) -> Cow<'_, str> {
    if prefix && name.len() > 1 && name.ends_with('-') {
        // Go cuts bytes: a character cut in two leaves bytes no pattern
        // matches, as `!` matches none; the length in bytes is kept.
        let cut = name.len() - 2;
        let whole = (0..=cut)
            .rev()
            .find(|i| name.is_char_boundary(*i))
            .unwrap_or(0);
        Cow::Owned(format!("{}{}a", &name[..whole], "!".repeat(cut - whole)))
    } else {
        Cow::Borrowed(name)
    }
}

/// `NameIsDNSSubdomain`: a `generateName` may end with `-`.
pub(crate) fn name_errors(name: &str, prefix: bool) -> Vec<String> {
    is_dns1123_subdomain(&mask_trailing_dash(name, prefix), "characters")
}

/// content's `IsLabelKey` (`IsQualifiedName`).
pub(crate) fn label_key(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                for m in is_dns1123_subdomain(prefix, "bytes") {
                    errs.push(format!("prefix part {m}"));
                }
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 bytes".to_string());
    }
    if !full(LABEL_KEY).is_match(name) {
        errs.push(format!(
            "name part {}",
            regex_error(LABEL_KEY_MSG, LABEL_KEY, &["MyName", "my.name", "123-abc"])
        ));
    }
    errs
}

/// content's `IsLabelValue`.
pub(crate) fn label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 bytes".to_string());
    }
    let re = format!("({LABEL_KEY})?");
    if !full(&re).is_match(value) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            &re,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}
