//! Rust names for imported schemas: JSON property names become snake-case
//! fields (with a serde rename whenever serde would not write the JSON name
//! back), nodes become PascalCase types, enum values become variants; each
//! namespace hands out a name only once.

pub use kubegen_codegen::names::Namespace;
use kubegen_codegen::names::snake_case;

/// Rust keywords that cannot be plain identifiers (`r#` works for all but
/// the path keywords).
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Keywords `r#` cannot escape.
const PATH_KEYWORDS: &[&str] = &["crate", "self", "Self", "super", "_"];

/// Words of a JSON name: split at non-alphanumerics and case changes.
fn words(name: &str) -> Vec<String> {
    let snake = snake_case(name);
    snake
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// A snake-case Rust identifier for the JSON name `name` (keywords get
/// `r#`, or a trailing `_` where `r#` is not allowed).
pub fn field_ident(name: &str) -> String {
    let mut ident = words(name).join("_");
    if ident.is_empty() {
        ident = "field".into();
    }
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, '_');
    }
    escape(ident)
}

/// A PascalCase Rust type or variant name for `name`.
pub fn type_ident(name: &str) -> String {
    let mut ident: String = words(name)
        .iter()
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    if ident.is_empty() {
        ident = "Empty".into();
    }
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, 'V');
    }
    escape(ident)
}

fn escape(ident: String) -> String {
    if PATH_KEYWORDS.contains(&ident.as_str()) {
        format!("{ident}_")
    } else if KEYWORDS.contains(&ident.as_str()) {
        format!("r#{ident}")
    } else {
        ident
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_snake_case_and_escaped() {
        assert_eq!(field_ident("secretName"), "secret_name");
        assert_eq!(field_ident("type"), "r#type");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("x-forwarded-for"), "x_forwarded_for");
        assert_eq!(field_ident("$ref"), "r#ref");
        assert_eq!(field_ident("3scale"), "_3scale");
        assert_eq!(field_ident("@type"), "r#type");
        assert_eq!(field_ident("---"), "field");
        assert_eq!(field_ident("HTTPRoute"), "http_route");
    }

    #[test]
    fn types_are_pascal_case() {
        assert_eq!(type_ident("secretRef"), "SecretRef");
        assert_eq!(type_ident("HTTPRoute"), "HttpRoute");
        assert_eq!(type_ident("tls-1.2"), "Tls12");
        assert_eq!(type_ident("1.2"), "V12");
        assert_eq!(type_ident(""), "Empty");
        assert_eq!(type_ident("Self"), "Self_");
    }
}
