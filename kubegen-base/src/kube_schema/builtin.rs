//! `KubeSchema` and `Applicable` for every (non-generic) k8s-openapi type
//! of kubegen's built-in table, one pair of impls per row of
//! `kubegen_core::builtin`: the schema controller-gen embeds for the same
//! Go type, and the type applied whole.

/// Implements `KubeSchema` (the consts as [`KubeSchema`](super::KubeSchema)
/// documents them, read off the definition by the table's generator) and
/// `Applicable` for each row.
macro_rules! builtin_impls {
    ($($($seg:ident)::+ = $def:literal, [$($field:literal),*], [$($key:literal),*], $scalar:literal;)*) => {
        $(
            impl super::KubeSchema for ::k8s_openapi::$($seg)::+ {
                const FIELDS: &'static [&'static str] = &[$($field),*];
                const KEY_FIELDS: &'static [&'static str] = &[$($key),*];
                const SCALAR: bool = $scalar;
                #[inline]
                fn kube_schema() -> ::core::result::Result<::serde_json::Value, ::kubegen_core::schema::SchemaError> {
                    ::kubegen_core::builtin::schema_of($def)
                }
            }
            impl crate::apply::Applicable for ::k8s_openapi::$($seg)::+ {
                type Apply = Self;
            }
        )*

        /// Every row's definition with the consts its impl gives.
        #[cfg(test)]
        fn consts() -> ::std::vec::Vec<(&'static str, &'static [&'static str], &'static [&'static str], bool)> {
            use super::KubeSchema;
            ::std::vec![$((
                $def,
                <::k8s_openapi::$($seg)::+ as KubeSchema>::FIELDS,
                <::k8s_openapi::$($seg)::+ as KubeSchema>::KEY_FIELDS,
                <::k8s_openapi::$($seg)::+ as KubeSchema>::SCALAR,
            )),*]
        }
    };
}
kubegen_core::__builtin_rows!(builtin_impls);

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::PodTemplateSpec;

    use super::super::KubeSchema;
    use super::consts;

    /// One impl per type of the table, each giving the table's schema
    /// (the consts are checked against the schemas in kubegen-core).
    #[test]
    fn every_type_of_the_table_has_its_impl() {
        let types: Vec<_> = kubegen_core::builtin::types().collect();
        let consts = consts();
        assert_eq!(consts.len(), types.len());
        assert!(consts.len() > 600, "{}", consts.len());
        for (t, (definition, ..)) in types.iter().zip(&consts) {
            assert_eq!(t.definition(), *definition);
        }
        assert_eq!(
            PodTemplateSpec::kube_schema().unwrap(),
            kubegen_core::builtin::by_path("api::core::v1::PodTemplateSpec")
                .unwrap()
                .schema()
                .unwrap()
        );
        assert_eq!(PodTemplateSpec::FIELDS, ["metadata", "spec"]);
    }
}
