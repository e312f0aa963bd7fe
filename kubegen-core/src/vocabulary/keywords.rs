//! Every schema keyword the apiserver accepts in a CRD's OpenAPI v3 schema,
//! once, with what each place that reads schemas needs to know of it: the
//! structural checker (known at all, allowed inside junctors), the schema
//! builder (narrowing or fixed when a field tightens its type), `kubegen
//! explain` (shown as a constraint), `kubegen import` (accounted for by a
//! Rust type, allowed at a version's root) and the built-in types'
//! flattener (documentation, entry wins).

/// One OpenAPI keyword or Kubernetes extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keyword {
    /// The keyword as it appears in a schema (`maxLength`).
    pub name: &'static str,
    /// Allowed inside `allOf`/`anyOf`/`oneOf`/`not` (the apiserver's
    /// structural rule: value validations only).
    pub in_junctors: bool,
    /// Only narrows which values a node accepts, so a node may carry
    /// several (a field's and its type's) under `allOf`.
    pub narrowing: bool,
    /// Says what a node is or how it merges, so it cannot hold two values:
    /// a field may repeat its type's value but not change it.
    pub fixed: bool,
    /// Shown by `kubegen explain` among a field's constraints (in table
    /// order).
    pub explained: bool,
    /// Accounted for by the Rust type (or the slot) `kubegen import` plans
    /// for a node, rather than by a `#[kubegen]` key.
    pub typed: bool,
    /// Allowed in a version's root schema (apiextensions validation's
    /// `allowedFieldsAtRootSchema`).
    pub at_root: bool,
    /// Documents a node rather than constraining it: never merged from a
    /// referenced type or embedded struct into the schema holding it.
    pub documentation: bool,
    /// When controller-gen flattens an `allOf`, an entry's value replaces
    /// the holder's (the extensions that say how a node merges).
    pub entry_wins: bool,
}

const fn kw(name: &'static str) -> Keyword {
    Keyword {
        name,
        in_junctors: true,
        narrowing: false,
        fixed: false,
        explained: false,
        typed: false,
        at_root: false,
        documentation: false,
        entry_wins: false,
    }
}

impl Keyword {
    const fn outside_junctors(mut self) -> Self {
        self.in_junctors = false;
        self
    }
    const fn narrowing(mut self) -> Self {
        self.narrowing = true;
        self
    }
    const fn fixed(mut self) -> Self {
        self.fixed = true;
        self
    }
    const fn explained(mut self) -> Self {
        self.explained = true;
        self
    }
    const fn typed(mut self) -> Self {
        self.typed = true;
        self
    }
    const fn at_root(mut self) -> Self {
        self.at_root = true;
        self
    }
    const fn documentation(mut self) -> Self {
        self.documentation = true;
        self
    }
    const fn entry_wins(mut self) -> Self {
        self.entry_wins = true;
        self
    }
}

/// Every keyword, explained ones first in the order `kubegen explain`
/// lists them.
pub const KEYWORDS: &[Keyword] = &[
    kw("default").outside_junctors().explained(),
    kw("enum").narrowing().explained(),
    kw("format").fixed().explained().typed().at_root(),
    kw("minimum").narrowing().explained().at_root(),
    kw("maximum").narrowing().explained().at_root(),
    kw("exclusiveMinimum").narrowing().explained().at_root(),
    kw("exclusiveMaximum").narrowing().explained().at_root(),
    kw("multipleOf").narrowing().explained().at_root(),
    kw("minLength").narrowing().explained().at_root(),
    kw("maxLength").narrowing().explained().at_root(),
    kw("pattern").narrowing().explained().at_root(),
    kw("minItems").narrowing().explained().at_root(),
    kw("maxItems").narrowing().explained().at_root(),
    kw("uniqueItems").explained().at_root(),
    kw("minProperties").narrowing().explained(),
    kw("maxProperties").narrowing().explained(),
    kw("nullable").outside_junctors().explained(),
    kw("x-kubernetes-list-type")
        .outside_junctors()
        .fixed()
        .explained()
        .entry_wins(),
    kw("x-kubernetes-list-map-keys")
        .outside_junctors()
        .fixed()
        .explained()
        .entry_wins(),
    kw("x-kubernetes-map-type")
        .outside_junctors()
        .fixed()
        .explained()
        .entry_wins(),
    kw("type").outside_junctors().fixed().typed().at_root(),
    kw("title").outside_junctors().at_root().documentation(),
    kw("description")
        .outside_junctors()
        .typed()
        .at_root()
        .documentation(),
    kw("example").at_root().documentation(),
    kw("required").typed().at_root(),
    kw("items").typed().at_root(),
    kw("properties").typed().at_root(),
    kw("additionalProperties").typed(),
    kw("allOf"),
    // `IntOrString` is `anyOf: [{type: integer}, {type: string}]`.
    kw("anyOf").typed(),
    kw("oneOf"),
    kw("not"),
    kw("externalDocs").at_root().documentation(),
    kw("x-kubernetes-preserve-unknown-fields")
        .outside_junctors()
        .at_root()
        .entry_wins(),
    kw("x-kubernetes-embedded-resource").outside_junctors(),
    kw("x-kubernetes-int-or-string").outside_junctors().typed(),
    kw("x-kubernetes-validations").outside_junctors().at_root(),
];

/// The keyword named `name`, if the apiserver knows it.
pub fn keyword(name: &str) -> Option<&'static Keyword> {
    KEYWORDS.iter().find(|k| k.name == name)
}

/// Whether the apiserver accepts `name` as a schema keyword.
pub fn is_known(name: &str) -> bool {
    keyword(name).is_some()
}

/// Names of the keywords with property `p`, in table order.
pub fn names_where(p: impl Fn(&Keyword) -> bool) -> impl Iterator<Item = &'static str> {
    KEYWORDS.iter().filter(move |k| p(k)).map(|k| k.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_keyword_once() {
        let mut names: Vec<&str> = KEYWORDS.iter().map(|k| k.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
    }

    #[test]
    fn narrowing_keywords_are_value_validations() {
        // A narrowing keyword moves under `allOf`, so the apiserver must
        // accept it inside junctors; a fixed one never narrows.
        for k in KEYWORDS {
            assert!(!k.narrowing || k.in_junctors, "{}", k.name);
            assert!(!(k.narrowing && k.fixed), "{}", k.name);
        }
        assert!(!is_known("x-kubernetes-unknown"));
        assert!(keyword("maxLength").is_some_and(|k| k.narrowing));
    }
}
