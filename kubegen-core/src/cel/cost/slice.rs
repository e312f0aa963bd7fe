//! Field paths with Go's slice semantics. cel-go's estimator builds a
//! node's path by `append(parentPath, field)`, so two paths appended to
//! the same parent with spare capacity share (and overwrite) one backing
//! array; the apiserver's estimate depends on that, so kubegen's must
//! too.

use std::cell::RefCell;
use std::rc::Rc;

/// A Go `[]string`: a window on a shared backing array.
#[derive(Clone, Debug, Default)]
pub(super) struct Path {
    buf: Option<Rc<RefCell<Vec<String>>>>,
    len: usize,
    cap: usize,
}

impl Path {
    /// `[]string{first}`.
    pub fn one(first: &str) -> Path {
        Path {
            buf: Some(Rc::new(RefCell::new(vec![first.to_string()]))),
            len: 1,
            cap: 1,
        }
    }

    /// A fresh copy (`make` + `copy`), with `extra` appended.
    pub fn copy_with(&self, extra: &str) -> Path {
        let mut v = self.elements();
        v.push(extra.to_string());
        let n = v.len();
        Path {
            buf: Some(Rc::new(RefCell::new(v))),
            len: n,
            cap: n,
        }
    }

    /// Go's `append(p, s)`: in place when there is capacity left, else
    /// into a new array of twice the capacity.
    pub fn append(&self, s: &str) -> Path {
        match &self.buf {
            Some(buf) if self.len < self.cap => {
                let mut b = buf.borrow_mut();
                if b.len() > self.len {
                    b[self.len] = s.to_string();
                } else {
                    b.push(s.to_string());
                }
                Path {
                    buf: Some(buf.clone()),
                    len: self.len + 1,
                    cap: self.cap,
                }
            }
            _ => {
                let cap = if self.cap == 0 { 1 } else { self.cap * 2 };
                let mut v = self.elements();
                v.push(s.to_string());
                Path {
                    buf: Some(Rc::new(RefCell::new(v))),
                    len: self.len + 1,
                    cap,
                }
            }
        }
    }

    /// The elements it shows now.
    pub fn elements(&self) -> Vec<String> {
        match &self.buf {
            Some(b) => b.borrow()[..self.len].to_vec(),
            None => Vec::new(),
        }
    }

    /// `len(p)`.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The first element.
    pub fn first(&self) -> Option<String> {
        self.elements().into_iter().next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_to_a_parent_with_capacity_share_its_array_as_in_go() {
        let p = Path::one("self").append("a").append("b"); // len 3, cap 4
        let x = p.append("x");
        let y = p.append("y");
        assert_eq!(
            x.elements(),
            ["self", "a", "b", "y"],
            "overwritten, as in Go"
        );
        assert_eq!(y.elements(), ["self", "a", "b", "y"]);
        let q = Path::one("self").append("a"); // len 2, cap 2: no sharing
        let (c, d) = (q.append("c"), q.append("d"));
        assert_eq!(c.elements(), ["self", "a", "c"]);
        assert_eq!(d.elements(), ["self", "a", "d"]);
    }
}
