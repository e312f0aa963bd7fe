//! Kubernetes' format library (k8s.io/apiserver
//! `pkg/cel/library/format.go`): `format.named(name)`, the constant
//! formats (`format.dns1123Label()`, …) and `<format>.validate(s)`, an
//! optional list of apimachinery's messages — `NameIsDNSLabel`,
//! `NameIsDNSSubdomain`, `NameIsDNS1035Label` (with `prefix` for the
//! `…Prefix` formats), `IsQualifiedName`, `IsValidLabelValue`,
//! `url.ParseRequestURI`'s error, and strfmt's `uuid`, `byte`, `date` and
//! `datetime` checks. The message of a bracketed URI host Go's
//! `netip.ParseAddr` refuses is unsupported.

use std::rc::Rc;

use super::opaque::Format;
use super::value::Val;
use super::{EvalError, Res};
use crate::go::names::{
    is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, label_key, label_value,
    mask_trailing_dash,
};
use crate::go::strfmt::validates;

/// `ConstantFormats`, by the names `format.named` takes.
const FORMATS: &[Format] = &[
    Format {
        key: "dns1123Label",
        name: "DNS1123Label",
    },
    Format {
        key: "dns1123Subdomain",
        name: "DNS1123Subdomain",
    },
    Format {
        key: "dns1035Label",
        name: "DNS1035Label",
    },
    Format {
        key: "qualifiedName",
        name: "QualifiedName",
    },
    Format {
        key: "dns1123LabelPrefix",
        name: "DNS1123LabelPrefix",
    },
    Format {
        key: "dns1123SubdomainPrefix",
        name: "DNS1123SubdomainPrefix",
    },
    Format {
        key: "dns1035LabelPrefix",
        name: "DNS1035LabelPrefix",
    },
    Format {
        key: "labelValue",
        name: "LabelValue",
    },
    Format {
        key: "uri",
        name: "URI",
    },
    Format {
        key: "uuid",
        name: "uuid",
    },
    Format {
        key: "byte",
        name: "byte",
    },
    Format {
        key: "date",
        name: "date",
    },
    Format {
        key: "datetime",
        name: "datetime",
    },
];

/// A strfmt check's message when `s` fails it.
fn strfmt(format: &str, s: &str, message: &str) -> Vec<String> {
    if validates(format, s) {
        Vec::new()
    } else {
        vec![message.to_string()]
    }
}

/// The format's `ValidateFunc`.
fn validate(f: &Format, s: &str) -> Result<Vec<String>, EvalError> {
    let prefix = f.key.ends_with("Prefix");
    Ok(match f.key.trim_end_matches("Prefix") {
        "dns1123Label" => is_dns1123_label(&mask_trailing_dash(s, prefix)),
        "dns1123Subdomain" => is_dns1123_subdomain(&mask_trailing_dash(s, prefix), "characters"),
        "dns1035Label" => is_dns1035_label(&mask_trailing_dash(s, prefix)),
        "qualifiedName" => label_key(s),
        "labelValue" => label_value(s),
        "uri" => match super::url::parse_request_uri(s) {
            Ok(_) => Vec::new(),
            Err(super::url::UrlError::Go(m)) => vec![m],
            Err(super::url::UrlError::BadIpLiteral) => {
                return Err(EvalError::unsupported("netip's parse error"));
            }
        },
        "uuid" => strfmt("uuid", s, "does not match the UUID format"),
        "byte" => strfmt("byte", s, "invalid base64"),
        "date" => strfmt("date", s, "invalid date"),
        _ => strfmt("datetime", s, "invalid datetime"),
    })
}

impl Format {
    /// Its `MaxRegexSize`: the length of the regular expression the
    /// apiserver prices a validation against.
    pub fn max_regex_size(&self) -> u64 {
        match self.name {
            "DNS1123Label" | "DNS1035Label" | "DNS1123LabelPrefix" | "DNS1035LabelPrefix" => 30,
            "DNS1123Subdomain" | "QualifiedName" | "DNS1123SubdomainPrefix" => 60,
            "LabelValue" => 40,
            // govalidator's URL expression.
            "URI" => 1103,
            // `len(strfmt.UUIDPattern)`.
            "uuid" => 70,
            "byte" => 84,
            // `len(strfmt.DateTimePattern)`, for both.
            _ => 71,
        }
    }
}

/// The format library's calls, `None` for others.
pub fn apply(function: &str, v: &[Val]) -> Option<Res> {
    if let Some(key) = function.strip_prefix("format.")
        && v.is_empty()
    {
        return FORMATS
            .iter()
            .find(|f| f.key == key)
            .map(|f| Ok(Val::Format(f)));
    }
    Some(match (function, v) {
        ("format.named", [Val::String(name)]) => Ok(Val::Optional(
            FORMATS
                .iter()
                .find(|f| f.key == &**name)
                .map(|f| Rc::new(Val::Format(f))),
        )),
        ("validate", [Val::Format(f), Val::String(s)]) => validate(f, s).map(|errs| {
            Val::Optional(
                (!errs.is_empty())
                    .then(|| Rc::new(Val::list(errs.iter().map(|e| Val::str(e)).collect()))),
            )
        }),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(format: &str, s: &str) -> Vec<String> {
        let Some(Ok(f)) = apply(&format!("format.{format}"), &[]) else {
            panic!("{format}")
        };
        match apply("validate", &[f, Val::str(s)]) {
            Some(Ok(Val::Optional(None))) => Vec::new(),
            Some(Ok(Val::Optional(Some(l)))) => match &*l {
                Val::List(items, _) => items
                    .iter()
                    .map(|i| match i {
                        Val::String(s) => s.to_string(),
                        _ => panic!(),
                    })
                    .collect(),
                _ => panic!(),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn validates_as_apimachinery() {
        assert!(check("dns1123Label", "my-name").is_empty());
        assert_eq!(check("dns1123Label", "a.b"), ["must not contain dots"]);
        assert!(check("dns1123LabelPrefix", "my-").is_empty());
        assert_eq!(check("dns1123LabelPrefix", "aü-").len(), 1);
        assert_eq!(check("dns1123Label", "my-").len(), 1);
        assert!(check("dns1035Label", "1a")[0].starts_with("a DNS-1035 label"));
        assert!(check("qualifiedName", "example.com/Name").is_empty());
        assert_eq!(check("uri", "x"), ["parse \"x\": invalid URI for request"]);
        assert_eq!(check("byte", "!"), ["invalid base64"]);
        assert!(check("datetime", "2020-01-01T00:00:00Z").is_empty());
        assert!(matches!(
            apply("format.named", &[Val::str("nope")]),
            Some(Ok(Val::Optional(None)))
        ));
    }
}
