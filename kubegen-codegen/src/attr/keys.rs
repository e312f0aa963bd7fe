//! Every `#[kubegen(...)]` key, as constants, with the places it may appear.

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
}

macro_rules! keys {
    ($($konst:ident = $name:literal in [$($scope:ident),*];)*) => {
        $(
            #[doc = concat!("The `", $name, "` key.")]
            pub const $konst: &str = $name;
        )*
        /// Every key with the scopes that accept it.
        pub const ALL: &[(&str, &[Scope])] = &[$(($name, &[$(Scope::$scope),*])),*];
    };
}

keys! {
    GROUP = "group" in [Resource];
    VERSION = "version" in [Resource];
    KIND = "kind" in [Resource];
    NAMESPACED = "namespaced" in [Resource];
    PLURAL = "plural" in [Resource];
    SINGULAR = "singular" in [Resource];
    LIST_KIND = "list_kind" in [Resource];
    SHORTNAME = "shortname" in [Resource];
    CATEGORY = "category" in [Resource];
    STATUS = "status" in [Resource];
    SCALE = "scale" in [Resource];
    PRINTCOLUMN = "printcolumn" in [Resource];
    SELECTABLE_FIELD = "selectable_field" in [Resource];
    STORAGE = "storage" in [Resource];
    SERVED = "served" in [Resource];
    DEPRECATED = "deprecated" in [Resource];
    DEPRECATION_WARNING = "deprecation_warning" in [Resource];
    KIND_DESCRIPTION = "kind_description" in [Resource];
    OPTIONAL_SPEC = "optional_spec" in [Resource];
    REQUIRED_METADATA = "required_metadata" in [Resource];
    STATUS_SUBRESOURCE = "status_subresource" in [Resource];
    ALLOW_LOSSY_VERSIONS = "allow_lossy_versions" in [Resource];
    FLATTEN_SPEC = "flatten_spec" in [Resource];
    TYPE_META_SCHEMA_JSON = "type_meta_schema_json" in [Resource];
    CRD_LABEL = "crd_label" in [Resource];
    CRD_ANNOTATION = "crd_annotation" in [Resource];
    VERBS = "verbs" in [Resource];
    NO_STATUS = "no_status" in [Resource];
    MAX_DESCRIPTION_LEN = "max_description_len" in [Resource];
    MAX_NAME_LENGTH = "max_name_length" in [Resource];
    NAME_PATTERN = "name_pattern" in [Resource];
    DERIVE = "derive" in [Resource];
    CONVERSION = "conversion" in [Resource];
    ADMISSION = "admission" in [Resource];
    CRATE = "crate" in [Resource, Type];
    MINIMUM = "minimum" in [Type, Field, Items];
    MAXIMUM = "maximum" in [Type, Field, Items];
    EXCLUSIVE_MINIMUM = "exclusive_minimum" in [Type, Field, Items];
    EXCLUSIVE_MAXIMUM = "exclusive_maximum" in [Type, Field, Items];
    MULTIPLE_OF = "multiple_of" in [Type, Field, Items];
    MIN_LENGTH = "min_length" in [Type, Field, Items];
    MAX_LENGTH = "max_length" in [Type, Field, Items];
    PATTERN = "pattern" in [Type, Field, Items];
    FORMAT = "format" in [Type, Field, Items];
    MIN_ITEMS = "min_items" in [Type, Field, Items];
    MAX_ITEMS = "max_items" in [Type, Field, Items];
    UNIQUE_ITEMS = "unique_items" in [Type, Field, Items];
    ITEMS = "items" in [Type, Field];
    MIN_PROPERTIES = "min_properties" in [Type, Field, Items];
    MAX_PROPERTIES = "max_properties" in [Type, Field, Items];
    ENUM_VALUES = "enum_values" in [Type, Field, Items];
    NULLABLE = "nullable" in [Field];
    DEFAULT = "default" in [Field];
    DEFAULT_JSON = "default_json" in [Field];
    EXAMPLE = "example" in [Type, Field];
    EXAMPLE_JSON = "example_json" in [Type, Field];
    TITLE = "title" in [Type, Field];
    EXTERNAL_DOCS = "external_docs" in [Type, Field];
    DESCRIPTION = "description" in [Type, Field];
    VALIDATION = "validation" in [Type, Field, Items];
    IMMUTABLE = "immutable" in [Field];
    EXACTLY_ONE_OF = "exactly_one_of" in [Type];
    AT_MOST_ONE_OF = "at_most_one_of" in [Type];
    AT_LEAST_ONE_OF = "at_least_one_of" in [Type];
    LIST_TYPE = "list_type" in [Type, Field];
    LIST_MAP_KEYS = "list_map_keys" in [Type, Field];
    MAP_TYPE = "map_type" in [Type, Field];
    STRUCT_TYPE = "struct_type" in [Type, Field];
    PRESERVE_UNKNOWN_FIELDS = "preserve_unknown_fields" in [Type, Field, Items];
    EMBEDDED_RESOURCE = "embedded_resource" in [Type, Field, Items];
    INT_OR_STRING = "int_or_string" in [Type, Field, Items];
    SCHEMALESS = "schemaless" in [Type, Field, Items];
    SCHEMA_TYPE = "schema_type" in [Type, Field, Items];
    SCHEMA_JSON = "schema_json" in [Type, Field, Items];
    ALLOW_FLOAT = "allow_float" in [Field];
    REQUIRED = "required" in [Field];
    OPTIONAL = "optional" in [Type, Field];
    SCHEMARS = "schemars" in [Field];
    NO_SCHEMA_DEFAULT = "no_schema_default" in [Field];
}

/// The scopes a key is valid in, or `None` for an unknown key.
pub fn scopes_of(name: &str) -> Option<&'static [Scope]> {
    ALL.iter().find(|(k, _)| *k == name).map(|(_, s)| *s)
}

/// Keys valid in any of the scopes (for suggestions).
pub fn names_in(scopes: &[Scope]) -> impl Iterator<Item = &'static str> {
    ALL.iter()
        .filter(move |(_, s)| s.iter().any(|s| scopes.contains(s)))
        .map(|(k, _)| *k)
}

/// The key constant for `name` if it is accepted in one of `scopes`.
pub fn lookup(name: &str, scopes: &[Scope]) -> Option<&'static str> {
    names_in(scopes).find(|k| *k == name)
}

/// Keys that may be given more than once.
pub fn repeatable(key: &str) -> bool {
    [
        SHORTNAME,
        CATEGORY,
        PRINTCOLUMN,
        SELECTABLE_FIELD,
        CRD_LABEL,
        CRD_ANNOTATION,
        VALIDATION,
        DERIVE,
        EXACTLY_ONE_OF,
        AT_MOST_ONE_OF,
        AT_LEAST_ONE_OF,
    ]
    .contains(&key)
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
        None => match kubegen_core::suggest::suggest(name, names_in(scopes)) {
            Some(s) => format!("unknown kubegen attribute `{name}`; did you mean `{s}`?"),
            None => format!("unknown kubegen attribute `{name}`"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique() {
        let mut names: Vec<&str> = ALL.iter().map(|(k, _)| *k).collect();
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
}
