//! Errors located in source files, printed as `file:line:col: error: ...`.

use std::fmt;
use std::path::{Path, PathBuf};

/// One error in one input file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    /// The file, as given to or found by the generator.
    pub file: PathBuf,
    /// 1-based line (0 when the error has no position, e.g. a missing file).
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong and, where it helps, what to do.
    pub message: String,
}

impl Diagnostic {
    /// An error about a whole file.
    pub fn file(file: &Path, message: impl Into<String>) -> Self {
        Diagnostic {
            file: file.to_path_buf(),
            line: 0,
            column: 0,
            message: message.into(),
        }
    }

    /// One diagnostic per error combined in `error`, located by their spans
    /// (which must come from parsing `file`'s text with proc-macro2's span
    /// locations enabled).
    pub fn from_syn(file: &Path, error: &syn::Error) -> Vec<Self> {
        error
            .clone()
            .into_iter()
            .map(|e| {
                let start = e.span().start();
                Diagnostic {
                    file: file.to_path_buf(),
                    line: start.line,
                    column: start.column + 1,
                    message: e.to_string(),
                }
            })
            .collect()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: error: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: error: {}",
                self.file.display(),
                self.line,
                self.column,
                self.message
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syn_errors_carry_line_and_column() {
        let err = syn::parse_file("struct A {\n    x: ,\n}\n").unwrap_err();
        let diags = Diagnostic::from_syn(Path::new("src/lib.rs"), &err);
        assert_eq!(diags.len(), 1);
        assert_eq!((diags[0].line, diags[0].column), (2, 8));
        assert!(
            diags[0].to_string().starts_with("src/lib.rs:2:8: error: "),
            "{}",
            diags[0]
        );
    }

    #[test]
    fn file_level_errors_have_no_position() {
        let d = Diagnostic::file(Path::new("Cargo.toml"), "no [package]");
        assert_eq!(d.to_string(), "Cargo.toml: error: no [package]");
    }
}
