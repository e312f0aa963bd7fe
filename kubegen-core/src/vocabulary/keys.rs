//! Every `#[kubegen(...)]` key, once: where it may be written, which JSON
//! values it applies to, what it does to the schema, how its value is
//! written, where the model keeps it, its doc line and an example. Key
//! parsing, the applicability rule, schema emission, `kubegen import`'s
//! inverse, `kubegen explain --keys`, the derive docs' key list and
//! `docs/keys.md` all read this table.
//!
//! A new key is one entry here; its schema effect too when it sets one
//! keyword ([`Effect::Keyword`]) or adds one CEL rule ([`Effect::Rule`]),
//! with its value kept by name ([`Store::ByName`]).

use serde_json::{Number, Value};

use crate::model::Constraints;

/// Where an attribute key was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// On the spec struct of `#[derive(CustomResource)]`.
    Resource,
    /// On a struct or enum deriving `KubeSchema` or `CustomResource`.
    Type,
    /// On a named field.
    Field,
    /// Inside `items(...)` on a list field.
    Items,
}

impl Scope {
    /// A human description used in "belongs on" messages.
    pub fn describe(self) -> &'static str {
        match self {
            Scope::Resource => "the `#[derive(CustomResource)]` spec struct",
            Scope::Type => "a struct or enum",
            Scope::Field => "a field",
            Scope::Items => "`items(...)`",
        }
    }

    /// The short name the key reference uses.
    pub fn short(self) -> &'static str {
        match self {
            Scope::Resource => "resource",
            Scope::Type => "type",
            Scope::Field => "field",
            Scope::Items => "items",
        }
    }
}

/// The JSON values a key's keyword constrains; written on a node of
/// another kind, the key is refused (the applicability rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applies {
    /// Any node.
    Any,
    /// Numbers (integers, floats, int-or-string, quantities).
    Numbers,
    /// Strings (and what serializes as one: dates, durations, bytes,
    /// int-or-string, quantities).
    Strings,
    /// Lists.
    Lists,
    /// Maps (objects with arbitrary keys, `metadata`).
    Maps,
    /// Strings, numbers and booleans.
    Scalars,
}

impl Applies {
    /// The plural noun of messages ("`min_length` applies to strings").
    pub fn describe(self) -> &'static str {
        match self {
            Applies::Any => "any value",
            Applies::Numbers => "numbers",
            Applies::Strings => "strings",
            Applies::Lists => "lists",
            Applies::Maps => "maps",
            Applies::Scalars => "strings, numbers and booleans",
        }
    }
}

/// How a key's value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `key` or `key = true|false`.
    Flag,
    /// `key = N`, N ≥ 0.
    Count,
    /// `key = N` (integer or float).
    Number,
    /// `key = N` or a bare flag modifying the matching bound.
    BoundOrFlag,
    /// `key = "text"`.
    Text,
    /// `key = "one"` of the listed values.
    Choice(&'static [&'static str]),
    /// `key = ["a", "b"]`.
    Texts,
    /// `key = <literal>`: a Rust literal, array or `{...}` JSON-like value.
    Literal,
    /// `key = [<literal>, ...]`, non-empty.
    Literals,
    /// `key = r#"<json>"#`.
    JsonText,
    /// `key = "<JSON type>"` (`string`, `integer`, …).
    JsonType,
    /// `key(inner = ..., ...)`.
    Nested,
    /// `key = "<CEL rule>"` or `key(rule = "...", message = "...", ...)`.
    Rule,
    /// `key = "::path::to::crate"`.
    Path,
}

impl Syntax {
    /// How the key reference describes the value.
    pub fn describe(self) -> String {
        match self {
            Syntax::Flag => "flag".into(),
            Syntax::Count => "count (N ≥ 0)".into(),
            Syntax::Number => "number".into(),
            Syntax::BoundOrFlag => "flag, or a number (sets the bound too)".into(),
            Syntax::Text => "string".into(),
            Syntax::Choice(c) => format!("one of {}", c.join(", ")),
            Syntax::Texts => "list of strings".into(),
            Syntax::Literal => "literal value".into(),
            Syntax::Literals => "non-empty list of literals".into(),
            Syntax::JsonText => "JSON text".into(),
            Syntax::JsonType => "JSON type name".into(),
            Syntax::Nested => "nested keys".into(),
            Syntax::Rule => "CEL rule, or nested rule keys".into(),
            Syntax::Path => "Rust path".into(),
        }
    }
}

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Sets this schema keyword to the key's value.
    Keyword(&'static str),
    /// Adds one `x-kubernetes-validations` rule: `rule` and `message` with
    /// `{}` replaced by the value (as a CEL literal in the rule, as text in
    /// the message).
    Rule {
        /// The CEL rule's template.
        rule: &'static str,
        /// The message's template.
        message: &'static str,
    },
    /// A named step of the schema builder writes this keyword
    /// (`kubegen_core::schema`).
    Schema(&'static str),
    /// Shapes the model (required, optional, descriptions, the crate path)
    /// rather than one keyword.
    Model,
    /// A resource (CRD-level) setting.
    Resource,
}

impl Effect {
    /// The schema keyword the key writes, if one.
    pub fn keyword(self) -> Option<&'static str> {
        match self {
            Effect::Keyword(k) | Effect::Schema(k) => Some(k),
            Effect::Rule { .. } => Some("x-kubernetes-validations"),
            Effect::Model | Effect::Resource => None,
        }
    }
}

/// Where the model keeps a key's value.
#[derive(Clone, Copy)]
pub enum Store {
    /// Not in [`Constraints`] (resource keys; keys that shape the model).
    Elsewhere,
    /// An `Option<Number>` field.
    Number(
        fn(&Constraints) -> &Option<Number>,
        fn(&mut Constraints) -> &mut Option<Number>,
    ),
    /// An `Option<u64>` field.
    Count(
        fn(&Constraints) -> &Option<u64>,
        fn(&mut Constraints) -> &mut Option<u64>,
    ),
    /// A `bool` field.
    Flag(fn(&Constraints) -> &bool, fn(&mut Constraints) -> &mut bool),
    /// An `Option<String>` field.
    Text(
        fn(&Constraints) -> &Option<String>,
        fn(&mut Constraints) -> &mut Option<String>,
    ),
    /// A `Vec<String>` field.
    Texts(
        fn(&Constraints) -> &Vec<String>,
        fn(&mut Constraints) -> &mut Vec<String>,
    ),
    /// An `Option<Value>` field.
    Json(
        fn(&Constraints) -> &Option<Value>,
        fn(&mut Constraints) -> &mut Option<Value>,
    ),
    /// An `Option<Vec<Value>>` field.
    List(
        fn(&Constraints) -> &Option<Vec<Value>>,
        fn(&mut Constraints) -> &mut Option<Vec<Value>>,
    ),
    /// A field the key's own parser fills; only whether it is set is
    /// read generically.
    Special(fn(&Constraints) -> bool),
    /// `Constraints::by_name`, under the key's name: what a new key needs.
    ByName,
}

impl Store {
    /// Whether the table keeps the key's value itself (so [`Key::get`]
    /// returns it and [`Key::set`] stores it), rather than a key parser of
    /// its own ([`Store::Special`]) or the model elsewhere
    /// ([`Store::Elsewhere`]).
    pub fn holds_value(&self) -> bool {
        !matches!(self, Store::Elsewhere | Store::Special(_))
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Store::Elsewhere => "Elsewhere",
            Store::Number(..) => "Number",
            Store::Count(..) => "Count",
            Store::Flag(..) => "Flag",
            Store::Text(..) => "Text",
            Store::Texts(..) => "Texts",
            Store::Json(..) => "Json",
            Store::List(..) => "List",
            Store::Special(_) => "Special",
            Store::ByName => "ByName",
        })
    }
}

/// One `#[kubegen(...)]` key.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The key as written (`min_length`).
    pub name: &'static str,
    /// Where it may be written.
    pub scopes: &'static [Scope],
    /// The JSON values it applies to.
    pub applies: Applies,
    /// How its value is written.
    pub syntax: Syntax,
    /// What it does.
    pub effect: Effect,
    /// Where the model keeps its value.
    pub store: Store,
    /// May be given more than once.
    pub repeatable: bool,
    /// Its value must fit the node's type and keys (as a `default` must).
    pub value_fits_node: bool,
    /// `kubegen import` writes this key for its keyword (one key per
    /// keyword).
    pub import: bool,
    /// One line of documentation.
    pub doc: &'static str,
    /// An example, as written inside `#[kubegen(...)]`.
    pub example: &'static str,
}

const RESOURCE: &[Scope] = &[Scope::Resource];
const RESOURCE_TYPE: &[Scope] = &[Scope::Resource, Scope::Type];
const ANYWHERE: &[Scope] = &[Scope::Type, Scope::Field, Scope::Items];
const TYPE_FIELD: &[Scope] = &[Scope::Type, Scope::Field];
const TYPE: &[Scope] = &[Scope::Type];
const FIELD: &[Scope] = &[Scope::Field];
const TOPOLOGY: &[&str] = &["granular", "atomic"];

const fn key(
    name: &'static str,
    scopes: &'static [Scope],
    syntax: Syntax,
    doc: &'static str,
    example: &'static str,
) -> Key {
    Key {
        name,
        scopes,
        applies: Applies::Any,
        syntax,
        effect: Effect::Model,
        store: Store::Elsewhere,
        repeatable: false,
        value_fits_node: false,
        import: false,
        doc,
        example,
    }
}

/// A resource key: a CRD-level setting.
const fn resource(
    name: &'static str,
    syntax: Syntax,
    doc: &'static str,
    example: &'static str,
) -> Key {
    let mut k = key(name, RESOURCE, syntax, doc, example);
    k.effect = Effect::Resource;
    k
}

impl Key {
    const fn applies(mut self, a: Applies) -> Self {
        self.applies = a;
        self
    }
    /// Sets `keyword` to the value; `kubegen import` writes the key back.
    const fn keyword(mut self, keyword: &'static str, store: Store) -> Self {
        self.effect = Effect::Keyword(keyword);
        self.store = store;
        self.import = true;
        self
    }
    const fn schema(mut self, keyword: &'static str, store: Store) -> Self {
        self.effect = Effect::Schema(keyword);
        self.store = store;
        self
    }
    const fn rule(mut self, rule: &'static str, message: &'static str) -> Self {
        self.effect = Effect::Rule { rule, message };
        self.store = Store::ByName;
        self
    }
    const fn store(mut self, store: Store) -> Self {
        self.store = store;
        self
    }
    const fn repeatable(mut self) -> Self {
        self.repeatable = true;
        self
    }
    const fn fits_node(mut self) -> Self {
        self.value_fits_node = true;
        self
    }
    const fn not_imported(mut self) -> Self {
        self.import = false;
        self
    }
    const fn imported(mut self) -> Self {
        self.import = true;
        self
    }

    /// The value `c` holds for this key, as the JSON the key's keyword
    /// takes; `None` when unset. Keys with [`Store::Special`] give `true`
    /// when set; [`Store::Elsewhere`] keys give `None`.
    pub fn get(&self, c: &Constraints) -> Option<Value> {
        match self.store {
            Store::Elsewhere => None,
            Store::Number(get, _) => get(c).clone().map(Value::Number),
            Store::Count(get, _) => get(c).map(Value::from),
            Store::Flag(get, _) => get(c).then_some(Value::Bool(true)),
            Store::Text(get, _) => get(c).clone().map(Value::String),
            Store::Texts(get, _) => {
                let v = get(c);
                (!v.is_empty()).then(|| Value::from(v.clone()))
            }
            Store::Json(get, _) => get(c).clone(),
            Store::List(get, _) => get(c).clone().map(Value::Array),
            Store::Special(is_set) => is_set(c).then_some(Value::Bool(true)),
            Store::ByName => c.by_name.get(self.name).cloned(),
        }
    }

    /// Whether `c` sets this key.
    pub fn is_set(&self, c: &Constraints) -> bool {
        self.get(c).is_some()
    }

    /// Stores `v` in `c`; values of the wrong JSON kind clear the key (the
    /// parser only stores values of the key's [`Syntax`]). Returns `false`
    /// for keys the table cannot store ([`Store::Special`],
    /// [`Store::Elsewhere`]), which their own parsers fill.
    pub fn set(&self, c: &mut Constraints, v: Value) -> bool {
        match self.store {
            Store::Elsewhere | Store::Special(_) => return false,
            Store::Number(_, set) => *set(c) = v.as_number().cloned(),
            Store::Count(_, set) => *set(c) = v.as_u64(),
            Store::Flag(_, set) => *set(c) = v == Value::Bool(true),
            Store::Text(_, set) => *set(c) = v.as_str().map(str::to_owned),
            Store::Texts(_, set) => {
                *set(c) = v
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default()
            }
            Store::Json(_, set) => *set(c) = Some(v),
            Store::List(_, set) => *set(c) = v.as_array().cloned(),
            Store::ByName => {
                c.by_name.insert(self.name.to_owned(), v);
            }
        }
        true
    }

    /// Whether the key may be written in one of `scopes`.
    pub fn allowed_in(&self, scopes: &[Scope]) -> bool {
        self.scopes.iter().any(|s| scopes.contains(s))
    }

    /// Whether the key is a schema keyword of a node (written on a type, a
    /// field or in `items(...)`).
    pub fn is_schema_key(&self) -> bool {
        self.allowed_in(&[Scope::Type, Scope::Field, Scope::Items])
    }
}

/// The [`Store`] of variant `$store` for field `$f` of [`Constraints`].
macro_rules! field {
    ($store:ident, $f:ident) => {
        Store::$store(|c| &c.$f, |c| &mut c.$f)
    };
}

macro_rules! keys {
    ($($konst:ident: $entry:expr;)*) => {
        $(
            #[doc = concat!("The `", stringify!($konst), "` key's name (see [`ALL`]).")]
            pub const $konst: &str = $entry.name;
        )*
        /// Every key, in the order the key reference lists them.
        pub const ALL: &[Key] = &[$($entry),*];
    };
}

keys! {
    GROUP: resource("group", Syntax::Text, "The API group.", "group = \"example.com\"");
    VERSION: resource("version", Syntax::Text, "The API version.", "version = \"v1\"");
    KIND: resource("kind", Syntax::Text, "The kind.", "kind = \"MyApp\"");
    NAMESPACED: resource("namespaced", Syntax::Flag, "Namespaced scope (the default is cluster scope).", "namespaced");
    PLURAL: resource("plural", Syntax::Text, "The plural resource name (default: controller-gen's plural of the kind).", "plural = \"myapps\"");
    SINGULAR: resource("singular", Syntax::Text, "The singular name (default: the lowercase kind).", "singular = \"myapp\"");
    LIST_KIND: resource("list_kind", Syntax::Text, "The list kind (default: the kind with `List` appended).", "list_kind = \"MyAppList\"");
    SHORTNAME: resource("shortname", Syntax::Text, "A short name for kubectl.", "shortname = \"ma\"").repeatable();
    CATEGORY: resource("category", Syntax::Text, "A category (`kubectl get all`).", "category = \"all\"").repeatable();
    ALLOW_BREAKING: resource("allow_breaking", Syntax::Text, "A breaking change `kubegen check` accepts: the change's id as it prints it, a colon, and why.", "allow_breaking = \"field-removed v1 .spec.legacy: replaced by .spec.modern, announced in v0.4\"").repeatable();
    STATUS: resource("status", Syntax::Text, "The status type; enables the status subresource.", "status = \"MyAppStatus\"");
    SCALE: resource("scale", Syntax::Nested, "The scale subresource's paths.", "scale(spec_replicas_path = \".spec.replicas\", status_replicas_path = \".status.replicas\")");
    PRINTCOLUMN: resource("printcolumn", Syntax::Nested, "An additional printer column.", "printcolumn(name = \"Ready\", json_path = \".status.ready\")").repeatable();
    SELECTABLE_FIELD: resource("selectable_field", Syntax::Nested, "A field selectable by field selectors.", "selectable_field(json_path = \".spec.color\")").repeatable();
    STORAGE: resource("storage", Syntax::Flag, "Whether this version is the storage version (default true).", "storage = false");
    SERVED: resource("served", Syntax::Flag, "Whether this version is served (default true).", "served = false");
    DEPRECATED: resource("deprecated", Syntax::Flag, "Marks the version deprecated.", "deprecated");
    DEPRECATION_WARNING: resource("deprecation_warning", Syntax::Text, "The warning clients get for a deprecated version.", "deprecation_warning = \"use v2\"");
    KIND_DESCRIPTION: resource("kind_description", Syntax::Text, "The description of the whole object (default: the spec's doc comment).", "kind_description = \"A MyApp.\"");
    OPTIONAL_SPEC: resource("optional_spec", Syntax::Flag, "`spec` may be left out.", "optional_spec");
    REQUIRED_METADATA: resource("required_metadata", Syntax::Flag, "Lists `metadata` as required.", "required_metadata");
    STATUS_SUBRESOURCE: resource("status_subresource", Syntax::Flag, "Overrides whether the status subresource follows `status`.", "status_subresource = false");
    ALLOW_LOSSY_VERSIONS: resource("allow_lossy_versions", Syntax::Flag, "Serves versions with different fields without a conversion webhook.", "allow_lossy_versions");
    FLATTEN_SPEC: resource("flatten_spec", Syntax::Flag, "The struct's fields are the object's top-level fields.", "flatten_spec");
    TYPE_META_SCHEMA_JSON: resource("type_meta_schema_json", Syntax::JsonText, "The schema of `apiVersion` and `kind`, as JSON.", "type_meta_schema_json = r#\"{}\"#");
    CRD_LABEL: resource("crd_label", Syntax::Nested, "A label on the CRD object.", "crd_label(key = \"team\", value = \"a\")").repeatable();
    CRD_ANNOTATION: resource("crd_annotation", Syntax::Nested, "An annotation on the CRD object.", "crd_annotation(key = \"k\", value = \"v\")").repeatable();
    VERBS: resource("verbs", Syntax::Nested, "The verbs the generated client offers (`only` or `skip`).", "verbs(only = [\"get\", \"list\", \"watch\"])");
    NO_STATUS: resource("no_status", Syntax::Flag, "No status type, no status subresource.", "no_status");
    MAX_DESCRIPTION_LEN: resource("max_description_len", Syntax::Count, "Cuts descriptions as controller-gen's `maxDescLen` does.", "max_description_len = 0");
    MAX_NAME_LENGTH: resource("max_name_length", Syntax::Count, "The longest `metadata.name` accepted.", "max_name_length = 63");
    NAME_PATTERN: resource("name_pattern", Syntax::Text, "The pattern `metadata.name` must match.", "name_pattern = \"^[a-z]+$\"");
    DERIVE: resource("derive", Syntax::Text, "An extra derive on the generated root type.", "derive = \"PartialEq\"").repeatable();
    CONVERSION: resource("conversion", Syntax::Nested, "The conversion webhook between versions.", "conversion(service = \"shop-webhook\", namespace = \"shop-system\", hub = \"v2\")");
    ADMISSION: resource("admission", Syntax::Nested, "Validating and defaulting admission webhooks for the version.", "admission(validate, default, service = \"shop-webhook\", namespace = \"shop-system\")");
    APPLY: key("apply", TYPE, Syntax::Flag, "Derives the type's apply configuration `<Type>Apply` for server-side apply (and `<Kind>Apply` for a resource).", "apply");
    CRATE: key("crate", RESOURCE_TYPE, Syntax::Path, "The path of the `kubegen` crate in generated code.", "crate = \"::kubegen\"");
    MINIMUM: key("minimum", ANYWHERE, Syntax::Number, "The smallest value (`minimum`).", "minimum = 1")
        .applies(Applies::Numbers).keyword("minimum", field!(Number, minimum));
    MAXIMUM: key("maximum", ANYWHERE, Syntax::Number, "The largest value (`maximum`).", "maximum = 10")
        .applies(Applies::Numbers).keyword("maximum", field!(Number, maximum));
    EXCLUSIVE_MINIMUM: key("exclusive_minimum", ANYWHERE, Syntax::BoundOrFlag, "The minimum itself is refused (`exclusiveMinimum`).", "exclusive_minimum = 0")
        .applies(Applies::Numbers).keyword("exclusiveMinimum", field!(Flag, exclusive_minimum));
    EXCLUSIVE_MAXIMUM: key("exclusive_maximum", ANYWHERE, Syntax::BoundOrFlag, "The maximum itself is refused (`exclusiveMaximum`).", "exclusive_maximum = 100")
        .applies(Applies::Numbers).keyword("exclusiveMaximum", field!(Flag, exclusive_maximum));
    MULTIPLE_OF: key("multiple_of", ANYWHERE, Syntax::Number, "The value is a multiple of this (> 0) (`multipleOf`).", "multiple_of = 5")
        .applies(Applies::Numbers).keyword("multipleOf", field!(Number, multiple_of));
    MIN_LENGTH: key("min_length", ANYWHERE, Syntax::Count, "The fewest characters (`minLength`).", "min_length = 1")
        .applies(Applies::Strings).keyword("minLength", field!(Count, min_length));
    MAX_LENGTH: key("max_length", ANYWHERE, Syntax::Count, "The most characters (`maxLength`).", "max_length = 63")
        .applies(Applies::Strings).keyword("maxLength", field!(Count, max_length));
    PATTERN: key("pattern", ANYWHERE, Syntax::Text, "A Go RE2 pattern the string matches (`pattern`).", "pattern = \"^[a-z]+$\"")
        .applies(Applies::Strings).keyword("pattern", field!(Text, pattern));
    FORMAT: key("format", ANYWHERE, Syntax::Text, "The value's format (`format`); must fit the JSON type.", "format = \"date-time\"")
        .keyword("format", field!(Text, format));
    MIN_ITEMS: key("min_items", ANYWHERE, Syntax::Count, "The fewest items (`minItems`).", "min_items = 1")
        .applies(Applies::Lists).keyword("minItems", field!(Count, min_items));
    MAX_ITEMS: key("max_items", ANYWHERE, Syntax::Count, "The most items (`maxItems`).", "max_items = 10")
        .applies(Applies::Lists).keyword("maxItems", field!(Count, max_items));
    UNIQUE_ITEMS: key("unique_items", ANYWHERE, Syntax::Flag, "No item twice: written `x-kubernetes-list-type: set`, as the apiserver refuses `uniqueItems: true`.", "unique_items")
        .applies(Applies::Lists).schema("x-kubernetes-list-type", field!(Flag, unique_items));
    ITEMS: key("items", TYPE_FIELD, Syntax::Nested, "Keys for the list's items.", "items(min_length = 1)")
        .applies(Applies::Lists).schema("items", Store::Special(|c| c.items.is_some()));
    MIN_PROPERTIES: key("min_properties", ANYWHERE, Syntax::Count, "The fewest entries (`minProperties`).", "min_properties = 1")
        .applies(Applies::Maps).keyword("minProperties", field!(Count, min_properties));
    MAX_PROPERTIES: key("max_properties", ANYWHERE, Syntax::Count, "The most entries (`maxProperties`).", "max_properties = 10")
        .applies(Applies::Maps).keyword("maxProperties", field!(Count, max_properties));
    ENUM_VALUES: key("enum_values", ANYWHERE, Syntax::Literals, "The values allowed (`enum`).", "enum_values = [\"a\", \"b\"]")
        .keyword("enum", field!(List, enum_values));
    NEQ: key("neq", ANYWHERE, Syntax::Literal, "A value the node may not hold (Kubernetes' `+k8s:neq`), as a CEL rule.", "neq = \"forbidden\"")
        .applies(Applies::Scalars).rule("self != {}", "must not be equal to {}").fits_node();
    NULLABLE: key("nullable", FIELD, Syntax::Flag, "`null` is accepted (`nullable`).", "nullable")
        .keyword("nullable", field!(Flag, nullable));
    DEFAULT: key("default", FIELD, Syntax::Literal, "The default the apiserver fills in (`default`).", "default = 3")
        .keyword("default", field!(Json, default)).not_imported().fits_node();
    DEFAULT_JSON: key("default_json", FIELD, Syntax::JsonText, "The default, as JSON.", "default_json = r#\"{\"a\": 1}\"#")
        .keyword("default", field!(Json, default)).fits_node();
    EXAMPLE: key("example", TYPE_FIELD, Syntax::Literal, "An example value (`example`).", "example = \"x\"")
        .keyword("example", field!(Json, example)).not_imported().fits_node();
    EXAMPLE_JSON: key("example_json", TYPE_FIELD, Syntax::JsonText, "An example value, as JSON.", "example_json = r#\"[1]\"#")
        .keyword("example", field!(Json, example)).fits_node();
    TITLE: key("title", TYPE_FIELD, Syntax::Text, "A title (`title`).", "title = \"Replicas\"")
        .keyword("title", field!(Text, title));
    EXTERNAL_DOCS: key("external_docs", TYPE_FIELD, Syntax::Nested, "A link to more documentation (`externalDocs`).", "external_docs(url = \"https://example.com\")")
        .schema("externalDocs", Store::Special(|c| c.external_docs.is_some()));
    DESCRIPTION: key("description", TYPE_FIELD, Syntax::Text, "The description, instead of the doc comment.", "description = \"Replicas.\"");
    VALIDATION: key("validation", ANYWHERE, Syntax::Rule, "A CEL rule (`x-kubernetes-validations`).", "validation(rule = \"self > 0\", message = \"must be positive\")")
        .schema("x-kubernetes-validations", Store::Special(|c| !c.validations.is_empty())).repeatable().imported();
    IMMUTABLE: key("immutable", FIELD, Syntax::Flag, "The value cannot change once set (rule `self == oldSelf`).", "immutable")
        .schema("x-kubernetes-validations", field!(Flag, immutable));
    EXACTLY_ONE_OF: key("exactly_one_of", TYPE, Syntax::Texts, "Exactly one of these fields is set (a CEL rule).", "exactly_one_of = [\"a\", \"b\"]")
        .schema("x-kubernetes-validations", Store::Special(|c| c.one_of.iter().any(|o| o.kind == crate::model::OneOfKind::ExactlyOne))).repeatable();
    AT_MOST_ONE_OF: key("at_most_one_of", TYPE, Syntax::Texts, "At most one of these fields is set (a CEL rule).", "at_most_one_of = [\"a\", \"b\"]")
        .schema("x-kubernetes-validations", Store::Special(|c| c.one_of.iter().any(|o| o.kind == crate::model::OneOfKind::AtMostOne))).repeatable();
    AT_LEAST_ONE_OF: key("at_least_one_of", TYPE, Syntax::Texts, "At least one of these fields is set (a CEL rule).", "at_least_one_of = [\"a\", \"b\"]")
        .schema("x-kubernetes-validations", Store::Special(|c| c.one_of.iter().any(|o| o.kind == crate::model::OneOfKind::AtLeastOne))).repeatable();
    LIST_TYPE: key("list_type", TYPE_FIELD, Syntax::Choice(&["atomic", "set", "map"]), "How server-side apply merges the list (`x-kubernetes-list-type`).", "list_type = \"map\"")
        .applies(Applies::Lists).keyword("x-kubernetes-list-type", field!(Text, list_type));
    LIST_MAP_KEYS: key("list_map_keys", TYPE_FIELD, Syntax::Texts, "The keys of a `list_type = \"map\"` list (`x-kubernetes-list-map-keys`).", "list_map_keys = [\"name\"]")
        .applies(Applies::Lists).keyword("x-kubernetes-list-map-keys", field!(Texts, list_map_keys));
    MAP_TYPE: key("map_type", TYPE_FIELD, Syntax::Choice(TOPOLOGY), "How server-side apply merges the map (`x-kubernetes-map-type`).", "map_type = \"atomic\"")
        .applies(Applies::Maps).keyword("x-kubernetes-map-type", field!(Text, map_type));
    STRUCT_TYPE: key("struct_type", TYPE_FIELD, Syntax::Choice(TOPOLOGY), "How server-side apply merges the struct (`x-kubernetes-map-type`, controller-gen's `structType`).", "struct_type = \"atomic\"")
        .keyword("x-kubernetes-map-type", field!(Text, struct_type)).not_imported();
    PRESERVE_UNKNOWN_FIELDS: key("preserve_unknown_fields", ANYWHERE, Syntax::Flag, "Unknown fields are kept, not pruned (`x-kubernetes-preserve-unknown-fields`).", "preserve_unknown_fields")
        .keyword("x-kubernetes-preserve-unknown-fields", field!(Flag, preserve_unknown_fields));
    EMBEDDED_RESOURCE: key("embedded_resource", ANYWHERE, Syntax::Flag, "The value is a whole Kubernetes object (`x-kubernetes-embedded-resource`).", "embedded_resource")
        .keyword("x-kubernetes-embedded-resource", field!(Flag, embedded_resource));
    INT_OR_STRING: key("int_or_string", ANYWHERE, Syntax::Flag, "An integer or a string (`x-kubernetes-int-or-string`); replaces the schema.", "int_or_string")
        .schema("x-kubernetes-int-or-string", field!(Flag, int_or_string));
    SCHEMALESS: key("schemaless", ANYWHERE, Syntax::Flag, "No schema: any value, kept as it is.", "schemaless")
        .schema("x-kubernetes-preserve-unknown-fields", field!(Flag, schemaless));
    SCHEMA_TYPE: key("schema_type", ANYWHERE, Syntax::JsonType, "The node's `type`, whatever the Rust type (its shape is not read).", "schema_type = \"string\"")
        .schema("type", Store::Special(|c| c.schema_type.is_some()));
    SCHEMA_JSON: key("schema_json", ANYWHERE, Syntax::JsonText, "The node's whole schema, as JSON.", "schema_json = r#\"{\"type\": \"string\"}\"#")
        .schema("type", Store::Special(|c| c.schema_json.is_some()));
    ALLOW_FLOAT: key("allow_float", FIELD, Syntax::Flag, "Allows a floating-point field.", "allow_float")
        .store(field!(Flag, allow_float));
    REQUIRED: key("required", FIELD, Syntax::Flag, "The field is required, whatever its type.", "required");
    OPTIONAL: key("optional", TYPE_FIELD, Syntax::Flag, "The field (or every field of the type) is optional.", "optional");
    SCHEMARS: key("schemars", FIELD, Syntax::Flag, "The field's schema comes from `schemars::JsonSchema` (needs kubegen's `schemars` feature).", "schemars");
    NO_SCHEMA_DEFAULT: key("no_schema_default", FIELD, Syntax::Flag, "A `#[serde(default)]` field without a schema default, on purpose.", "no_schema_default");
}

/// The key named `name`, if there is one.
pub fn find(name: &str) -> Option<&'static Key> {
    ALL.iter().find(|k| k.name == name)
}

/// The scopes a key is valid in, or `None` for an unknown key.
pub fn scopes_of(name: &str) -> Option<&'static [Scope]> {
    find(name).map(|k| k.scopes)
}

/// Keys valid in any of the scopes (for suggestions).
pub fn names_in(scopes: &[Scope]) -> impl Iterator<Item = &'static str> {
    ALL.iter()
        .filter(move |k| k.allowed_in(scopes))
        .map(|k| k.name)
}

/// The key's name (a `&'static str`) if it is accepted in one of `scopes`.
pub fn lookup(name: &str, scopes: &[Scope]) -> Option<&'static str> {
    names_in(scopes).find(|k| *k == name)
}

/// Whether `key` may be given more than once.
pub fn repeatable(key: &str) -> bool {
    find(key).is_some_and(|k| k.repeatable)
}

/// The diagnostic for a key that is not accepted in `scopes`.
pub fn misplaced_or_unknown(name: &str, scopes: &[Scope]) -> String {
    let here = scopes.first().map_or("here", |s| s.describe());
    match scopes_of(name) {
        Some(valid) => {
            let places: Vec<&str> = valid.iter().map(|s| s.describe()).collect();
            format!(
                "`{name}` is not valid on {here}; it belongs on {}",
                places.join(" or ")
            )
        }
        None => match crate::suggest::suggest(name, names_in(scopes)) {
            Some(s) => format!("unknown kubegen attribute `{name}`; did you mean `{s}`?"),
            None => format!("unknown kubegen attribute `{name}`"),
        },
    }
}

/// The keys set in `c`, in table order (for `items(...)`, whose keys have
/// no spans of their own).
pub fn present(c: &Constraints) -> Vec<&'static str> {
    ALL.iter().filter(|k| k.is_set(c)).map(|k| k.name).collect()
}

/// The key `kubegen import` writes for `keyword`, if one.
pub fn imported_for(keyword: &str) -> Option<&'static Key> {
    ALL.iter()
        .find(|k| k.import && k.effect.keyword() == Some(keyword))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique() {
        let mut names: Vec<&str> = ALL.iter().map(|k| k.name).collect();
        names.sort_unstable();
        let len = names.len();
        names.dedup();
        assert_eq!(len, names.len());
    }

    #[test]
    fn messages() {
        assert_eq!(
            misplaced_or_unknown("min_lenght", &[Scope::Field]),
            "unknown kubegen attribute `min_lenght`; did you mean `min_length`?"
        );
        assert!(misplaced_or_unknown("group", &[Scope::Field]).contains("belongs on the"));
        assert_eq!(
            misplaced_or_unknown("zzz", &[Scope::Type]),
            "unknown kubegen attribute `zzz`"
        );
    }

    #[test]
    fn every_keyword_a_key_writes_is_one_the_apiserver_knows() {
        for k in ALL {
            if let Some(kw) = k.effect.keyword() {
                assert!(super::super::keywords::is_known(kw), "{}: {kw}", k.name);
            }
        }
    }

    #[test]
    fn keys_the_builder_writes_generically_hold_their_value() {
        // `schema::apply` writes each `Keyword` key's stored value and each
        // `Rule` key's rule from it: such a key must keep a value, not just
        // whether it is set.
        for k in ALL {
            if matches!(k.effect, Effect::Keyword(_) | Effect::Rule { .. }) {
                assert!(k.store.holds_value(), "{}", k.name);
            }
        }
    }

    #[test]
    fn import_writes_one_key_per_keyword() {
        for kw in super::super::keywords::KEYWORDS {
            let writers: Vec<&str> = ALL
                .iter()
                .filter(|k| k.import && k.effect.keyword() == Some(kw.name))
                .map(|k| k.name)
                .collect();
            assert!(writers.len() <= 1, "{}: {writers:?}", kw.name);
        }
    }

    #[test]
    fn stored_values_read_back() {
        // Every key the table stores reads back what it stored, and only
        // that key reads as set.
        for k in ALL {
            let sample = match k.syntax {
                Syntax::Flag | Syntax::BoundOrFlag => Value::Bool(true),
                Syntax::Count | Syntax::Number => Value::from(3u64),
                Syntax::Texts | Syntax::Literals => serde_json::json!(["a", "b"]),
                Syntax::Choice(c) => Value::from(c[0]),
                _ => Value::from("x"),
            };
            let mut c = Constraints::default();
            if k.set(&mut c, sample.clone()) {
                assert_eq!(k.get(&c), Some(sample), "{}", k.name);
                let others: Vec<&str> = present(&c)
                    .into_iter()
                    .filter(|n| *n != k.name)
                    .filter(|n| find(n).is_some_and(|o| o.effect.keyword() != k.effect.keyword()))
                    .collect();
                assert!(others.is_empty(), "{}: {others:?}", k.name);
            } else {
                assert!(!k.store.holds_value(), "{}", k.name);
            }
        }
    }
}
