//! The book's structure and links: every page `SUMMARY.md` names exists
//! and every page under `src/` is in it; every relative link (after
//! `{{#include}}`s are expanded, as mdBook does) reaches a page of the
//! book, and its `#anchor`, when given, one of that page's headings.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

mod support;

/// mdBook's id for a heading: lowercase, spaces to `-`, only
/// alphanumerics, `-` and `_` kept.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings (outside code blocks).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut fenced = false;
    markdown
        .lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .filter_map(|line| line.strip_prefix('#'))
        .map(|rest| anchor(rest.trim_start_matches('#').replace('`', "").as_str()))
        .collect()
}

/// The inline link targets of a page (outside code blocks and code spans).
fn links(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans, which may hold `](`.
        let mut plain = String::new();
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                plain.push(c);
            }
        }
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// `path` with `.` and `..` resolved, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn summary_and_pages_agree() {
    let pages = support::pages();
    let listed: BTreeSet<PathBuf> = pages.iter().cloned().collect();
    assert_eq!(listed.len(), pages.len(), "a page is listed twice");
    let mut on_disk = BTreeSet::new();
    let src = support::book().join("src");
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") && !path.ends_with("SUMMARY.md") {
                on_disk.insert(path.strip_prefix(&src).unwrap().to_path_buf());
            }
        }
    }
    assert_eq!(
        listed, on_disk,
        "SUMMARY.md and the pages under src/ differ"
    );
}

#[test]
fn every_link_reaches_a_page_and_heading() {
    let pages = support::pages();
    let texts: Vec<(PathBuf, String)> = pages
        .iter()
        .map(|p| (p.clone(), support::rendered(p)))
        .collect();
    let mut problems = Vec::new();
    let mut checked = 0;
    for (page, text) in &texts {
        for link in links(text) {
            if link.starts_with("http://") || link.starts_with("https://") {
                continue;
            }
            checked += 1;
            let (file, fragment) = match link.split_once('#') {
                Some((file, fragment)) => (file, Some(fragment)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                page.clone()
            } else {
                normalize(&page.parent().unwrap().join(file))
            };
            let Some((_, target_text)) = texts.iter().find(|(p, _)| *p == target) else {
                problems.push(format!(
                    "{}: `{link}`: no page {}",
                    page.display(),
                    target.display()
                ));
                continue;
            };
            if let Some(fragment) = fragment
                && !anchors(target_text).contains(fragment)
            {
                problems.push(format!(
                    "{}: `{link}`: no heading #{fragment}",
                    page.display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked > 20, "only {checked} links checked");
}

#[test]
fn anchors_are_mdbooks() {
    assert_eq!(anchor(" 1. Install the CLI"), "1-install-the-cli");
    assert_eq!(anchor("From kube-derive"), "from-kube-derive");
    assert_eq!(links("see [a](b.md#c) and `[x](y)`"), ["b.md#c"]);
}
