//! The rules of one schema node — a field, list items or a type — over the
//! keys written on it. [`node`] lists them; each rule is one function
//! named after what it demands, reporting at the key it is about.

use proc_macro2::Span;

use super::overrides::check_overrides;
use super::values::{article, contains_float, format_mismatch, value_errors};
use crate::attr::{KeySpans, keys};
use crate::ctxt::Ctxt;
use kubegen_core::model::{Constraints, Field, Ty};
use kubegen_core::vocabulary::{Applies, Effect};

/// One node under check: its JSON (`ty`; for overridden nodes the type the
/// override names), its keywords `c` written at `keys` (or `span`), and
/// what messages call it (`place`).
pub(super) struct Node<'a> {
    pub cx: &'a Ctxt,
    pub ty: &'a Ty,
    pub c: &'a Constraints,
    pub keys: &'a KeySpans,
    pub span: Span,
    pub place: &'a str,
}

impl Node<'_> {
    /// Where `key` was written (the node's span when it has none).
    fn at(&self, key: &str) -> Span {
        self.keys.get(key).copied().unwrap_or(self.span)
    }

    /// The JSON the node holds: `IntOrString` under `int_or_string`, the
    /// type without `Option`s otherwise.
    fn target(&self) -> &Ty {
        if self.c.int_or_string {
            &Ty::IntOrString
        } else {
            self.ty.unwrap_option()
        }
    }

    /// A node whose shape the keys cannot judge: a nested type (checked
    /// where it is defined), arbitrary JSON, or unknown fields kept.
    fn opaque(&self) -> bool {
        matches!(self.target(), Ty::Named { .. } | Ty::Json)
            || self.c.schemaless
            || self.c.preserve_unknown_fields
    }
}

/// Rules of one field, reported at its keys (or its type when no key
/// applies): floats only when allowed, the override rules, the node
/// rules, and no keywords on a flattened field.
pub(super) fn field(cx: &Ctxt, f: &Field, keys: &KeySpans, span: Span) {
    let c = &f.constraints;
    let explicit = c.schemaless || c.schema_type.is_some() || c.schema_json.is_some();
    if contains_float(&f.ty) && !c.allow_float && !explicit {
        cx.error_at(span, "floating-point fields are refused: Kubernetes API conventions discourage floats (they do not round-trip exactly); use an integer or a Quantity, or add `#[kubegen(allow_float)]`");
    }
    check_overrides(cx, c, keys, span, "field");
    node(&Node {
        cx,
        ty: &f.ty,
        c,
        keys,
        span,
        place: "field",
    });
    if f.flatten && !c.is_empty() {
        cx.error_at(span, "schema keywords on a `#[serde(flatten)]` field have no property to apply to; put them on the flattened type's fields");
    }
}

/// The rules of one node, in the order they report. A `schema_json` node
/// is checked where its JSON is read (other keys beside it are refused by
/// the override rules).
pub(super) fn node(n: &Node<'_>) {
    if n.c.schema_json.is_some() {
        return;
    }
    keys_apply_to_the_nodes_kind(n);
    format_fits_the_json_type(n);
    unsigned_minimum_not_negative(n);
    lower_bound_not_above_upper(n);
    list_type_fits_the_items(n);
    unique_items_is_a_set(n);
    list_map_keys_need_a_map_list(n);
    values_fit_the_node(n);
    enum_values_fit_the_type(n);
    items_rules(n);
}

/// Rule: a key applies to the JSON kinds the vocabulary says
/// ([`Applies`]): `min_length` to strings, `min_items` to lists, …
fn keys_apply_to_the_nodes_kind(n: &Node<'_>) {
    if n.opaque() {
        return;
    }
    let target = n.target();
    let numeric = matches!(
        target,
        Ty::Int { .. } | Ty::Float { .. } | Ty::IntOrString | Ty::Quantity
    );
    let stringy = matches!(
        target,
        Ty::String { .. }
            | Ty::DateTime
            | Ty::Duration
            | Ty::Bytes
            | Ty::IntOrString
            | Ty::Quantity
    );
    let list = matches!(target, Ty::List { .. });
    let map = matches!(target, Ty::Map(_) | Ty::IntKeyMap { .. } | Ty::ObjectMeta);
    let boolean = matches!(target, Ty::Bool);
    for k in keys::ALL.iter().filter(|k| n.keys.contains_key(k.name)) {
        let ok = match k.applies {
            Applies::Any => true,
            Applies::Numbers => numeric,
            Applies::Strings => stringy,
            Applies::Lists => list,
            Applies::Maps => map,
            Applies::Scalars => numeric || stringy || boolean,
        };
        if !ok {
            n.cx.error_at(
                n.at(k.name),
                format!(
                    "`{}` applies to {}, but this {} is {} {}",
                    k.name,
                    k.applies.describe(),
                    n.place,
                    article(target.json_kind()),
                    target.json_kind()
                ),
            );
        }
    }
}

/// Rule: a `format` describes the node's JSON type (`int64` an integer,
/// `date-time` a string, …).
fn format_fits_the_json_type(n: &Node<'_>) {
    if !n.opaque()
        && let Some(format) = &n.c.format
        && let Some(message) = format_mismatch(format, n.target(), n.place)
    {
        n.cx.error_at(n.at(keys::FORMAT), message);
    }
}

/// Rule: an unsigned integer has no negative `minimum`.
fn unsigned_minimum_not_negative(n: &Node<'_>) {
    if let (Ty::Int { signed: false, .. }, Some(min)) = (n.target(), &n.c.minimum)
        && min.as_f64().is_some_and(|m| m < 0.0)
    {
        n.cx.error_at(
            n.at(keys::MINIMUM),
            "an unsigned field cannot have a negative minimum",
        );
    }
}

/// Rule: each lower bound (`minimum`, `min_length`, `min_items`,
/// `min_properties`) is at most its upper bound.
fn lower_bound_not_above_upper(n: &Node<'_>) {
    let c = n.c;
    let pairs = [
        (
            c.minimum.as_ref().and_then(|n| n.as_f64()),
            c.maximum.as_ref().and_then(|n| n.as_f64()),
            keys::MINIMUM,
            keys::MAXIMUM,
        ),
        (
            c.min_length.map(|n| n as f64),
            c.max_length.map(|n| n as f64),
            keys::MIN_LENGTH,
            keys::MAX_LENGTH,
        ),
        (
            c.min_items.map(|n| n as f64),
            c.max_items.map(|n| n as f64),
            keys::MIN_ITEMS,
            keys::MAX_ITEMS,
        ),
        (
            c.min_properties.map(|n| n as f64),
            c.max_properties.map(|n| n as f64),
            keys::MIN_PROPERTIES,
            keys::MAX_PROPERTIES,
        ),
    ];
    for (lo, hi, klo, khi) in pairs {
        if let (Some(lo), Some(hi)) = (lo, hi)
            && lo > hi
        {
            n.cx.error_at(n.at(klo), format!("`{klo}` is greater than `{khi}`"));
        }
    }
}

/// Whether list items can be members of a set: scalars, or nested types
/// (whose own schema decides).
fn set_member(item: &Ty) -> bool {
    item.is_scalar() || matches!(item.unwrap_option(), Ty::Named { .. })
}

/// Rule: `list_type = "map"` has keys and object items; a Rust set type is
/// always a `set`; a `set` has scalar items.
fn list_type_fits_the_items(n: &Node<'_>) {
    let Ty::List { item, set, .. } = n.target() else {
        return;
    };
    let at = n.at(keys::LIST_TYPE);
    match n.c.list_type.as_deref() {
        Some("map") if n.c.list_map_keys.is_empty() => {
            n.cx.error_at(at, "`list_type = \"map\"` needs `list_map_keys = [...]`")
        }
        Some("map") if item.is_scalar() => {
            n.cx.error_at(at, "`list_type = \"map\"` needs items that are objects")
        }
        Some(t) if *set && t != "set" => n.cx.error_at(
            at,
            format!("a set type is always `list_type = \"set\"`, not \"{t}\""),
        ),
        Some("set") if !set_member(item) => {
            n.cx.error_at(at, "`list_type = \"set\"` needs scalar items")
        }
        _ => {}
    }
}

/// Rule: `unique_items` is `list_type = "set"` on the apiserver, so it
/// needs set members and no other list type.
fn unique_items_is_a_set(n: &Node<'_>) {
    let (Ty::List { item, .. }, true) = (n.target(), n.c.unique_items) else {
        return;
    };
    let at = n.at(keys::UNIQUE_ITEMS);
    match n.c.list_type.as_deref() {
        Some(t) if t != "set" => n.cx.error_at(
            at,
            format!(
                "`unique_items` is `list_type = \"set\"` on the apiserver; it conflicts with `list_type = \"{t}\"`"
            ),
        ),
        _ if !set_member(item) => n.cx.error_at(
            at,
            "`unique_items` (`list_type = \"set\"` on the apiserver) needs scalar items",
        ),
        _ => {}
    }
}

/// Rule: `list_map_keys` only with `list_type = "map"`.
fn list_map_keys_need_a_map_list(n: &Node<'_>) {
    if matches!(n.target(), Ty::List { .. })
        && !n.c.list_map_keys.is_empty()
        && n.c.list_type.as_deref() != Some("map")
    {
        n.cx.error_at(
            n.at(keys::LIST_MAP_KEYS),
            "`list_map_keys` requires `list_type = \"map\"`",
        );
    }
}

/// Rule: a value a key gives for the node (`default`, `example`, `neq`: the
/// keys whose value must fit the node) fits its type — and, for values the
/// apiserver stores, its keywords; each keyword is reported once, at the
/// key written for it.
fn values_fit_the_node(n: &Node<'_>) {
    let fits = || keys::ALL.iter().filter(|k| k.value_fits_node);
    let mut reported: Vec<Option<&str>> = Vec::new();
    for k in fits() {
        let Some(v) = k.get(n.c) else { continue };
        let keyword = k.effect.keyword();
        if reported.contains(&keyword) {
            continue;
        }
        reported.push(keyword);
        // The message names the group's first key (`default` for
        // `default_json`), placed at the key that was written.
        let group = || fits().filter(move |o| o.effect.keyword() == keyword);
        let label = group().next().map_or(k.name, |g| g.name);
        let at = group()
            .find_map(|o| n.keys.get(o.name).copied())
            .unwrap_or(n.span);
        let errs = if matches!(k.effect, Effect::Rule { .. }) {
            value_errors(&v, n.ty, &Constraints::default())
        } else {
            value_errors(&v, n.ty, n.c)
        };
        if !errs.is_empty() {
            n.cx.error_at(
                at,
                format!(
                    "`{label}` does not fit the {}: {}",
                    n.place,
                    errs.join("; ")
                ),
            );
        }
    }
}

/// Rule: every `enum_values` entry is a value of the node's type.
fn enum_values_fit_the_type(n: &Node<'_>) {
    let Some(values) = &n.c.enum_values else {
        return;
    };
    let plain = Constraints {
        int_or_string: n.c.int_or_string,
        ..Constraints::default()
    };
    for v in values {
        let errs = value_errors(v, n.ty, &plain);
        if !errs.is_empty() {
            n.cx.error_at(
                n.at(keys::ENUM_VALUES),
                format!(
                    "`enum_values` entry does not fit the {}: {}",
                    n.place,
                    errs.join("; ")
                ),
            );
        }
    }
}

/// Rule: the keys inside `items(...)` obey the override and node rules for
/// the list's item (reported at `items`: they have no spans of their own).
fn items_rules(n: &Node<'_>) {
    let (Ty::List { item, .. }, Some(ic)) = (n.target(), n.c.items.as_deref()) else {
        return;
    };
    let items_at = n.at(keys::ITEMS);
    let item_keys: KeySpans = keys::present(ic)
        .into_iter()
        .map(|k| (k, items_at))
        .collect();
    check_overrides(n.cx, ic, &item_keys, items_at, "`items(...)`");
    node(&Node {
        cx: n.cx,
        ty: item,
        c: ic,
        keys: &item_keys,
        span: items_at,
        place: "list's item",
    });
}
