//! CEL helpers: escaping property names for use in `x-kubernetes-validations` rules.

const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// A JSON property name as the apiserver's CEL environment names it.
pub fn ident(name: &str) -> String {
    if RESERVED.contains(&name) {
        return format!("__{name}__");
    }
    name.replace("__", "__underscores__")
        .replace('.', "__dot__")
        .replace('-', "__dash__")
        .replace('/', "__slash__")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(ident("replicas"), "replicas");
        assert_eq!(ident("max-size"), "max__dash__size");
        assert_eq!(ident("a.b"), "a__dot__b");
        assert_eq!(ident("a__b"), "a__underscores__b");
        assert_eq!(ident("namespace"), "__namespace__");
    }
}
