//! The key reference (`docs/keys.md`, `kubegen explain --keys`), written
//! from the table so it cannot leave a key out.

use super::keys::{ALL, Applies, Effect, Key};

/// Where the key may be written, as the reference shows it.
fn scopes(k: &Key) -> String {
    k.scopes
        .iter()
        .map(|s| s.short())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the key does, as the reference shows it.
fn effect(k: &Key) -> String {
    match k.effect {
        Effect::Keyword(kw) => format!("`{kw}`"),
        Effect::Schema(kw) => format!("`{kw}` (schema builder)"),
        Effect::Rule { rule, .. } => format!("rule `{rule}`"),
        Effect::Model => "model".into(),
        Effect::Resource => "CRD".into(),
    }
}

/// The reference as Markdown: one table row per key, in table order.
pub fn markdown() -> String {
    let mut out = String::from(
        "# `#[kubegen(...)]` keys\n\n\
         <!-- @generated from kubegen-core/src/vocabulary/keys.rs; \
         `KUBEGEN_BLESS=1 cargo test -p kubegen-derive --test keys_documented` rewrites it -->\n\n\
         Every key, where it may be written (*resource*: the \
         `#[derive(CustomResource)]` spec struct; *type*: a struct or enum; \
         *field*: a named field; *items*: inside `items(...)`), the values it \
         applies to, how its value is written and what it writes. The derive \
         documentation (`kubegen-derive`) explains each with an example; \
         [markers.md](markers.md) maps controller-gen's markers to them.\n\n\
         | key | where | applies to | value | writes | |\n\
         |---|---|---|---|---|---|\n",
    );
    for k in ALL {
        let applies = match k.applies {
            Applies::Any => "",
            a => a.describe(),
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} e.g. `{}` |\n",
            k.name,
            scopes(k),
            applies,
            k.syntax.describe().replace('|', "\\|"),
            effect(k),
            k.doc.replace('|', "\\|"),
            k.example.replace('|', "\\|"),
        ));
    }
    out
}

/// The reference as plain text for a terminal: one block per key.
pub fn text() -> String {
    let mut out = String::new();
    for k in ALL {
        out.push_str(&format!(
            "{}  ({}; {})\n    {}\n    e.g. #[kubegen({})]\n",
            k.name,
            scopes(k),
            k.syntax.describe(),
            k.doc,
            k.example
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_key_has_a_row() {
        let md = super::markdown();
        for k in super::ALL {
            assert!(md.contains(&format!("| `{}` |", k.name)), "{}", k.name);
        }
    }
}
