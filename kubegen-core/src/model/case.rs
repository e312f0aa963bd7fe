//! serde's `rename_all` case conventions, applied to fields and variants.

use serde::{Deserialize, Serialize};

/// A serde case convention.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    /// `lowercase`
    Lower,
    /// `UPPERCASE`
    Upper,
    /// `PascalCase`
    Pascal,
    /// `camelCase`
    Camel,
    /// `snake_case`
    Snake,
    /// `SCREAMING_SNAKE_CASE`
    ScreamingSnake,
    /// `kebab-case`
    Kebab,
    /// `SCREAMING-KEBAB-CASE`
    ScreamingKebab,
}

/// Every accepted spelling, for messages.
pub const RULE_NAMES: &[(&str, RenameRule)] = &[
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

impl RenameRule {
    /// Parses serde's spelling of a rule.
    pub fn parse(s: &str) -> Option<Self> {
        RULE_NAMES.iter().find(|(n, _)| *n == s).map(|(_, r)| *r)
    }

    /// Applies the rule to a `snake_case` Rust field name.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut out = String::new();
                let mut upper = true;
                for c in field.chars() {
                    if c == '_' {
                        upper = true;
                    } else if upper {
                        out.extend(c.to_uppercase());
                        upper = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            RenameRule::Camel => lower_first(&RenameRule::Pascal.apply_to_field(field)),
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// Applies the rule to a `PascalCase` Rust variant name.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => lower_first(variant),
            RenameRule::Snake => {
                let mut out = String::new();
                for (i, c) in variant.char_indices() {
                    if i > 0 && c.is_uppercase() {
                        out.push('_');
                    }
                    out.extend(c.to_lowercase());
                }
                out
            }
            RenameRule::ScreamingSnake => RenameRule::Snake
                .apply_to_variant(variant)
                .to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake
                .apply_to_variant(variant)
                .replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let cases = [
            ("lowercase", "outcome_wins"),
            ("UPPERCASE", "OUTCOME_WINS"),
            ("PascalCase", "OutcomeWins"),
            ("camelCase", "outcomeWins"),
            ("snake_case", "outcome_wins"),
            ("SCREAMING_SNAKE_CASE", "OUTCOME_WINS"),
            ("kebab-case", "outcome-wins"),
            ("SCREAMING-KEBAB-CASE", "OUTCOME-WINS"),
        ];
        for (rule, want) in cases {
            let rule = RenameRule::parse(rule).unwrap();
            assert_eq!(rule.apply_to_field("outcome_wins"), want);
        }
    }

    #[test]
    fn variants() {
        let cases = [
            ("lowercase", "veryfast"),
            ("UPPERCASE", "VERYFAST"),
            ("PascalCase", "VeryFast"),
            ("camelCase", "veryFast"),
            ("snake_case", "very_fast"),
            ("SCREAMING_SNAKE_CASE", "VERY_FAST"),
            ("kebab-case", "very-fast"),
            ("SCREAMING-KEBAB-CASE", "VERY-FAST"),
        ];
        for (rule, want) in cases {
            let rule = RenameRule::parse(rule).unwrap();
            assert_eq!(rule.apply_to_variant("VeryFast"), want);
        }
    }
}
