//! What the book's tests share: where the book is, its pages in the order
//! of `SUMMARY.md`, and each page's fenced blocks.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The book's directory (`docs/book`).
pub fn book() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's root.
pub fn repo() -> PathBuf {
    book().join("../..").canonicalize().unwrap()
}

/// Every page `SUMMARY.md` links, relative to `src/`, in its order.
pub fn pages() -> Vec<PathBuf> {
    let summary = std::fs::read_to_string(book().join("src/SUMMARY.md")).unwrap();
    summary
        .lines()
        .filter_map(|line| {
            let start = line.find("](")? + 2;
            let end = start + line[start..].find(')')?;
            Some(PathBuf::from(&line[start..end]))
        })
        .collect()
}

/// A page's text as mdBook renders it: `{{#include path}}` lines replaced
/// by the file they name (relative to the page).
pub fn rendered(page: &Path) -> String {
    let path = book().join("src").join(page);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|line| match line.trim().strip_prefix("{{#include ") {
            Some(rest) => {
                let target = rest.trim_end_matches("}}").trim();
                let file = path.parent().unwrap().join(target);
                std::fs::read_to_string(&file).unwrap_or_else(|e| {
                    panic!("{}: include {}: {e}", page.display(), file.display())
                })
            }
            None => format!("{line}\n"),
        })
        .collect()
}

/// A fenced code block: its info string and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The words after the opening fence, e.g. `sh` or `rust,file=src/api.rs`.
    pub info: String,
    /// The lines between the fences.
    pub text: String,
    /// The line of the opening fence (1-based).
    pub line: usize,
}

/// The fenced blocks of `markdown`, in order.
pub fn blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in markdown.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => {
                open = Some(Block {
                    info: info.trim().to_string(),
                    text: String::new(),
                    line: i + 1,
                })
            }
            (Some(_), Some(rest)) if rest.trim().is_empty() => blocks.push(open.take().unwrap()),
            (Some(block), _) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "an unclosed code block");
    blocks
}
