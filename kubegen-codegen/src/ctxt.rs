//! An error collector that gathers every mistake in an input before reporting.

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// Collects `syn::Error`s while parsing and checking one derive input.
///
/// Like serde's `Ctxt`, it must be consumed with [`Ctxt::check`]; dropping it
/// with errors unread is a bug and is caught by a debug assertion.
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    /// A fresh collector.
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanned by the given tokens.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, msg: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), msg));
    }

    /// Records an error at a span.
    pub fn error_at<M: Display>(&self, span: proc_macro2::Span, msg: M) {
        self.syn_error(syn::Error::new(span, msg));
    }

    /// Records an existing `syn::Error`.
    pub fn syn_error(&self, err: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(err);
        }
    }

    /// Whether any error was recorded so far.
    pub fn has_errors(&self) -> bool {
        self.errors.borrow().as_ref().is_some_and(|e| !e.is_empty())
    }

    /// Consumes the collector, combining every recorded error into one.
    pub fn check(self) -> syn::Result<()> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        let mut iter = errors.into_iter();
        let Some(mut combined) = iter.next() else {
            return Ok(());
        };
        for err in iter {
            combined.combine(err);
        }
        Err(combined)
    }
}

impl Default for Ctxt {
    /// Same as [`Ctxt::new`] (a derived default would start closed and drop
    /// every error).
    fn default() -> Self {
        Ctxt::new()
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            debug_assert!(
                self.errors.borrow().is_none(),
                "Ctxt dropped without calling check()"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combines_errors() {
        let cx = Ctxt::new();
        cx.error_at(proc_macro2::Span::call_site(), "first");
        cx.error_at(proc_macro2::Span::call_site(), "second");
        assert!(cx.has_errors());
        let err = cx.check().unwrap_err();
        let msgs: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(msgs, ["first", "second"]);
    }

    #[test]
    fn empty_is_ok() {
        assert!(Ctxt::new().check().is_ok());
    }
}
