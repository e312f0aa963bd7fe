//! Go's limits on an accepted expression: nested repetition counts, tree
//! height and compiled size.

use super::*;

/// Go's `repeatIsValid`: nested counted repetitions multiply to at most `n`
/// copies of the innermost expression.
pub(super) fn repeat_is_valid(node: &Node, mut n: u32) -> bool {
    if let Node::Repeat {
        min,
        max,
        counted: true,
        ..
    } = node
    {
        let m = match max {
            Some(0) => return true,
            Some(m) => *m,
            None => *min,
        };
        if m > n {
            return false;
        }
        // `{0,}` divides by nothing.
        n = n.checked_div(m).unwrap_or(n);
    }
    children(node).iter().all(|c| repeat_is_valid(c, n))
}

pub(super) fn children(node: &Node) -> &[Node] {
    match node {
        Node::Capture(sub) | Node::Repeat { sub, .. } => std::slice::from_ref(&**sub),
        Node::Concat(items) | Node::Alternate(items) => items,
        _ => &[],
    }
}

/// Go's tree height, literal runs counting as one node.
pub(super) fn height(node: &Node) -> usize {
    match node {
        Node::Concat(items) => {
            let mut parts = 0;
            let mut max = 0;
            let mut in_literal = false;
            for item in items {
                let literal = matches!(item, Node::Literal(..));
                if !(literal && in_literal) {
                    parts += 1;
                }
                in_literal = literal;
                max = max.max(height(item));
            }
            if parts == 1 { max } else { 1 + max }
        }
        other => 1 + children(other).iter().map(height).max().unwrap_or(0),
    }
}

/// Go's compiled-size estimate (`calcSize`).
pub(super) fn size(node: &Node) -> u64 {
    let s = match node {
        Node::Literal(..) => 1,
        Node::Capture(sub) => 2 + size(sub),
        Node::Concat(items) => items.iter().map(size).sum(),
        Node::Alternate(items) => {
            items.iter().map(size).sum::<u64>() + items.len().saturating_sub(1) as u64
        }
        Node::Repeat {
            sub,
            min,
            max,
            counted,
            ..
        } => {
            let sub = size(sub);
            match (counted, max) {
                (false, None) if *min == 0 => 2 + sub,
                (false, _) => 1 + sub,
                (true, None) if *min == 0 => 2 + sub,
                (true, None) => 1 + u64::from(*min) * sub,
                (true, Some(max)) => u64::from(*max) * sub + u64::from(max - min),
            }
        }
        _ => 0,
    };
    s.max(1)
}
