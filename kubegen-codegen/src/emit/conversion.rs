//! The conversion module: one `Converter` with every kind that declares
//! `conversion(...)` (each spoke registered with its hub), and a property
//! test per kind proving spoke → hub → spoke and hub → spoke → hub are the
//! identity on values drawn from the versions' CRD schemas.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::names::{kind_type, snake_case};

/// A kind whose versions convert through a hub.
#[derive(Clone)]
pub struct ConversionKind {
    /// The kind (`Cart`).
    pub kind: String,
    /// The API group.
    pub group: String,
    /// The hub version's Rust type.
    pub hub: syn::Path,
    /// Every other version's Rust type.
    pub spokes: Vec<syn::Path>,
}

/// Cases per direction and spoke version in the generated property test.
const CASES: usize = 256;

fn registrations(kind: &ConversionKind) -> TokenStream {
    let hub = &kind.hub;
    if kind.spokes.is_empty() {
        return quote!(.hub::<#hub>());
    }
    let spokes = &kind.spokes;
    quote!(#(.spoke::<#spokes, #hub>())*)
}

/// The module's items.
pub fn module(kinds: &[ConversionKind]) -> TokenStream {
    let all = kinds.iter().map(registrations);
    let cases = proc_macro2::Literal::usize_unsuffixed(CASES);
    let tests = kinds.iter().map(|k| {
        let name = format_ident!("{}_versions_round_trip", snake_case(&kind_type(&k.kind)));
        let registrations = registrations(k);
        let doc = format!(
            " Every version of `{}.{}` converts to the hub and back unchanged (values drawn from the CRD schemas).",
            k.kind, k.group
        );
        quote! {
            #[doc = #doc]
            #[test]
            fn #name() {
                let converter = ::kubegen::conversion::Converter::new() #registrations;
                if let Err(failure) = ::kubegen::conversion::testing::check_round_trips(&converter, #cases, 0) {
                    panic!("{failure}");
                }
            }
        }
    });
    quote! {
        /// Converts between the versions of every kind of this crate that
        /// declares `conversion(...)`, through each kind's hub. Serve it with
        /// `kubegen::server::WebhookServer::builder(cert).conversion(converter())`
        /// (or `Manager::builder(client).webhook_server(addr, ..)`).
        pub fn converter() -> ::kubegen::conversion::Converter {
            ::kubegen::conversion::Converter::new() #(#all)*
        }

        #[cfg(test)]
        mod tests {
            #(#tests)*
        }
    }
}
