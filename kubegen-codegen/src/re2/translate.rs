//! The Rust `regex` pattern that matches what a parsed Go expression
//! matches.

use super::*;

/// Writes `c` so that Rust's parser reads exactly `c`, in or out of a class.
pub(super) fn emit_char(c: char, out: &mut String) {
    if c.is_ascii_alphanumeric() || (!c.is_ascii() && !c.is_control() && !c.is_whitespace()) {
        out.push(c);
    } else if c.is_ascii_punctuation() && !matches!(c, '<' | '>') {
        out.push('\\');
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", c as u32));
    }
}

pub(super) fn emit_class_item(item: &ClassItem, out: &mut String) {
    match item {
        ClassItem::Range(lo, hi) => {
            emit_char(*lo, out);
            if lo != hi {
                out.push('-');
                emit_char(*hi, out);
            }
        }
        ClassItem::Ascii(set, negated) => {
            out.push('[');
            if *negated {
                out.push('^');
            }
            for &(lo, hi) in *set {
                emit_class_item(&ClassItem::Range(lo, hi), out);
            }
            out.push(']');
        }
        // Surrogates: in no string, so Rust has no class of them.
        ClassItem::Unicode(name, negated) if SURROGATES.contains(name) => {
            out.push_str(if *negated {
                "[\\x{0}-\\x{10FFFF}]"
            } else {
                "[^\\x{0}-\\x{10FFFF}]"
            });
        }
        ClassItem::Unicode(name, negated) => {
            out.push_str(if *negated { "\\P{" } else { "\\p{" });
            out.push_str(name);
            out.push('}');
        }
    }
}

pub(super) fn emit(node: &Node, out: &mut String) {
    match node {
        Node::Empty => out.push_str("(?:)"),
        Node::Literal(c, fold) => {
            if *fold {
                out.push_str("(?i:");
                emit_char(*c, out);
                out.push(')');
            } else {
                emit_char(*c, out);
            }
        }
        // Nothing (Go's surrogate escapes, or a class of them).
        Node::Class(items, false, _) if items.is_empty() => out.push_str("[^\\x{0}-\\x{10FFFF}]"),
        Node::Class(items, true, _) if items.is_empty() => out.push_str("(?s:.)"),
        Node::Class(items, negated, fold) => {
            if *fold {
                out.push_str("(?i:");
            }
            out.push('[');
            if *negated {
                out.push('^');
            }
            for item in items {
                emit_class_item(item, out);
            }
            out.push(']');
            if *fold {
                out.push(')');
            }
        }
        Node::Dot(true) => out.push_str("(?s:.)"),
        Node::Dot(false) => out.push_str("[^\\n]"),
        Node::Begin(true) => out.push_str("(?m:^)"),
        Node::Begin(false) => out.push_str("\\A"),
        Node::End(true) => out.push_str("(?m:$)"),
        Node::End(false) => out.push_str("\\z"),
        Node::WordBoundary(true) => out.push_str("(?-u:\\b)"),
        Node::WordBoundary(false) => out.push_str("(?-u:\\B)"),
        Node::Capture(sub) => {
            out.push_str("(?:");
            emit(sub, out);
            out.push(')');
        }
        Node::Repeat {
            sub,
            min,
            max,
            greedy,
            ..
        } => {
            out.push_str("(?:");
            emit(sub, out);
            out.push(')');
            match (min, max) {
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (0, Some(1)) => out.push('?'),
                (n, None) => out.push_str(&format!("{{{n},}}")),
                (n, Some(m)) if n == m => out.push_str(&format!("{{{n}}}")),
                (n, Some(m)) => out.push_str(&format!("{{{n},{m}}}")),
            }
            if !greedy {
                out.push('?');
            }
        }
        Node::Concat(items) => items.iter().for_each(|i| emit(i, out)),
        Node::Alternate(items) => {
            out.push_str("(?:");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                emit(item, out);
            }
            out.push(')');
        }
    }
}
