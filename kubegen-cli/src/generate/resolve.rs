//! Schema evaluation for the CLI: the same `schema_for` the derive runs,
//! with nested types looked up in the crate's parsed sources instead of
//! through trait impls.

use std::cell::Cell;

use serde_json::Value;
use syn::spanned::Spanned;

use super::Analyzed;
use super::k8s_types;
use crate::source::Diagnostic;
use kubegen_codegen::parse::ResolverKind;
use kubegen_core::schema::{self, SchemaError};

/// Looks types up among the analyzed types of one crate.
pub struct Resolver<'a> {
    types: &'a [Analyzed],
    depth: Cell<u32>,
}

/// Where a nested type's schema comes from.
enum Target<'a> {
    Local(&'a Analyzed),
    K8s(fn() -> Result<Value, SchemaError>),
}

impl<'a> Resolver<'a> {
    /// A resolver over `types`.
    pub fn new(types: &'a [Analyzed]) -> Self {
        Resolver {
            types,
            depth: Cell::new(0),
        }
    }

    /// One diagnostic per nested type that cannot be resolved, located at
    /// the type as written.
    pub fn unresolved(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for t in self.types {
            for r in &t.analysis.container.resolvers {
                if let Err(message) = self.target(t, &r.ty, r.kind) {
                    let start = r.ty.span().start();
                    out.push(Diagnostic {
                        file: t.input.file.clone(),
                        line: start.line,
                        column: start.column + 1,
                        message,
                    });
                }
            }
        }
        out
    }

    /// The structural schema of an analyzed type.
    pub fn schema(&self, t: &Analyzed) -> Result<Value, SchemaError> {
        let model = &t.analysis.container.model;
        let depth = self.depth.get() + 1;
        if depth > kubegen_core::rt::MAX_DEPTH {
            return Err(SchemaError {
                path: model.name.clone(),
                message: "types nest more than 64 levels deep".into(),
            });
        }
        self.depth.set(depth);
        let result = schema::schema_for(model, &|i| {
            let r = t
                .analysis
                .container
                .resolvers
                .get(i)
                .ok_or_else(|| SchemaError {
                    path: model.name.clone(),
                    message: format!("no resolver {i}"),
                })?;
            match self.target(t, &r.ty, r.kind) {
                Ok(Target::Local(nested)) => self.schema(nested),
                Ok(Target::K8s(f)) => f(),
                Err(message) => Err(SchemaError {
                    path: model.name.clone(),
                    message,
                }),
            }
        });
        self.depth.set(depth - 1);
        result
    }

    /// The analyzed status type named by a resource's `status = "..."`.
    pub fn status_type(&self, resource: &Analyzed, ty: &syn::Type) -> Result<&'a Analyzed, String> {
        match self.target(resource, ty, ResolverKind::KubeSchema)? {
            Target::Local(t) => Ok(t),
            Target::K8s(_) => Err("a status type must derive `KubeSchema`".into()),
        }
    }

    fn target(
        &self,
        from: &Analyzed,
        ty: &syn::Type,
        kind: ResolverKind,
    ) -> Result<Target<'a>, String> {
        let written = quote::ToTokens::to_token_stream(ty)
            .to_string()
            .replace(' ', "");
        let syn::Type::Path(path) = ty else {
            return Err(format!(
                "cannot resolve type `{written}`: only named types are supported"
            ));
        };
        let segments: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let name = segments.last().cloned().unwrap_or_default();
        if kind == ResolverKind::Schemars {
            return k8s_types::schema_fn(&name).map(Target::K8s).ok_or_else(|| {
                format!(
                    "`{written}` takes its schema from schemars, which the kubegen CLI cannot \
                     evaluate without compiling your crate; derive `KubeSchema` on it instead \
                     (the CLI knows these k8s-openapi types: Condition, EnvVar, PodSpec, \
                     ResourceRequirements, ...)"
                )
            });
        }
        let candidates: Vec<&'a Analyzed> = self
            .types
            .iter()
            .filter(|t| t.input.derive_input.ident == name.as_str())
            .collect();
        if let Some(module) = qualified_module(&from.input.module, &segments)
            && let Some(t) = candidates.iter().find(|t| t.input.module == module)
        {
            return Ok(Target::Local(t));
        }
        if let Some(t) = candidates
            .iter()
            .find(|t| t.input.module == from.input.module)
        {
            return Ok(Target::Local(t));
        }
        match candidates.as_slice() {
            [one] => Ok(Target::Local(one)),
            [] => Err(format!(
                "cannot resolve type `{written}`: no type of that name derives `KubeSchema` \
                 in the scanned modules; add `#[derive(KubeSchema)]` to it (or add its module \
                 to `modules` in [package.metadata.kubegen])"
            )),
            many => Err(format!(
                "type `{written}` is ambiguous: it is defined in modules {}; write its path \
                 (`crate::module::{name}`)",
                many.iter()
                    .map(|t| format!("`crate::{}`", t.input.module.join("::")))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

/// The module a qualified path (`crate::a::T`, `super::T`, `self::a::T`,
/// `a::T`) points into, relative to module `from`.
fn qualified_module(from: &[String], segments: &[String]) -> Option<Vec<String>> {
    let (head, rest) = segments.split_last().map(|(_, r)| r.split_first())??;
    let mut module = match head.as_str() {
        "crate" => Vec::new(),
        "self" => from.to_vec(),
        "super" => {
            let mut m = from.to_vec();
            m.pop();
            m
        }
        other => {
            let mut m = from.to_vec();
            m.push(other.to_string());
            m
        }
    };
    for s in rest {
        if s == "super" {
            module.pop();
        } else {
            module.push(s.clone());
        }
    }
    Some(module)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn qualified_paths_resolve_relative_to_the_module() {
        let from = v(&["api", "v1"]);
        assert_eq!(qualified_module(&from, &v(&["T"])), None);
        assert_eq!(
            qualified_module(&from, &v(&["crate", "common", "T"])),
            Some(v(&["common"]))
        );
        assert_eq!(
            qualified_module(&from, &v(&["super", "T"])),
            Some(v(&["api"]))
        );
        assert_eq!(
            qualified_module(&from, &v(&["super", "shared", "T"])),
            Some(v(&["api", "shared"]))
        );
        assert_eq!(
            qualified_module(&from, &v(&["self", "inner", "T"])),
            Some(v(&["api", "v1", "inner"]))
        );
        assert_eq!(
            qualified_module(&from, &v(&["inner", "T"])),
            Some(v(&["api", "v1", "inner"]))
        );
    }
}
