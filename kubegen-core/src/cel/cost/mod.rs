//! The apiserver's static cost estimate of a checked rule: cel-go's
//! `checker.Cost` with the apiserver's options (a presence test costs
//! nothing), the Kubernetes libraries' estimator (k8s.io/apiserver's
//! `library.CostEstimator`), the lists and sets extensions' estimators, and
//! the CRD's schema as the size estimator — so a rule's estimated cost, and
//! with it the apiserver's verdict on its budget, is known before a cluster
//! sees it (proven by `tests/cel_differential.rs`).

mod coster;
mod library;
mod slice;

use super::checked::Node;
use super::sizes::Sizes;
use super::types::Type;
use slice::Path;

/// The most a single expression may cost, times the number of times it
/// can run in one object (`StaticEstimatedCostLimit`).
pub const PER_EXPRESSION_LIMIT: u64 = 10_000_000;

/// The most all the rules of one CRD version's schema may cost together
/// (`StaticEstimatedCRDCostLimit`).
pub const PER_CRD_LIMIT: u64 = 100_000_000;

/// A range of cost, or of size (characters, bytes, items, entries), that
/// saturates instead of overflowing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    /// The least.
    pub min: u64,
    /// The most.
    pub max: u64,
}

impl Estimate {
    /// Exactly `n`.
    pub const fn fixed(n: u64) -> Estimate {
        Estimate { min: n, max: n }
    }

    /// Anything from 0 to the largest value.
    pub const fn unknown() -> Estimate {
        Estimate {
            min: 0,
            max: u64::MAX,
        }
    }

    /// The sum.
    pub fn plus(self, o: Estimate) -> Estimate {
        Estimate {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }

    /// The product.
    pub fn times(self, o: Estimate) -> Estimate {
        Estimate {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }

    /// Times a cost factor, rounded up.
    pub fn factor(self, f: f64) -> Estimate {
        Estimate {
            min: by_factor(self.min, f),
            max: by_factor(self.max, f),
        }
    }

    /// The range covering both.
    pub fn union(self, o: Estimate) -> Estimate {
        Estimate {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

/// `x × y` rounded up, as cel-go's `multiplyByCostFactor` computes it in
/// float64.
fn by_factor(x: u64, y: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && y > 0.0 && xf > u64::MAX as f64 / y {
        return u64::MAX;
    }
    let ceil = (xf * y).ceil();
    if ceil >= 2f64.powi(64) {
        return u64::MAX;
    }
    ceil as u64
}

/// A node as the estimators see it (cel-go's `AstNode`).
#[derive(Clone, Debug)]
struct AstNode<'a> {
    /// The field path from a variable to the node's value, if it is one.
    path: Path,
    /// Its type.
    ty: Type,
    /// The node, if it is one of the expression.
    expr: Option<&'a Node>,
    /// The size the expression itself shows (a literal's, a concatenation's).
    computed: Option<Estimate>,
}

/// Where a value's size comes from when the expression does not show it:
/// the schema (cel-go's `CostEstimator.EstimateSize`).
trait SizeEstimator {
    /// The size of the value at `node`'s path, if the schema bounds it.
    fn estimate_size(&mut self, node: &AstNode<'_>) -> Option<Estimate>;
}

/// What estimating a rule found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cost {
    /// The estimated cost of one evaluation.
    pub estimate: Estimate,
    /// The schema nodes (paths below the rule's node, `.a[*].b`) whose
    /// size was estimated from the request size because the schema does
    /// not bound them, and the keyword that would (`items.maxLength` for
    /// a list's items: the list's `items` schema bounds them).
    pub unbounded: Vec<(String, &'static str)>,
    /// The estimate read the size of a node whose type the code generator
    /// could not see: the figure is not the apiserver's.
    pub undecidable: bool,
}

/// The apiserver's estimated cost of the checked expression `tree`,
/// declared on the schema node whose sizes are `sizes`.
pub fn estimate(tree: &Node, sizes: &Sizes) -> Cost {
    coster::Coster::new(sizes).run(tree)
}

/// The apiserver's message for an expression (or a CRD) over its budget:
/// `<what> exceeds budget by factor of <f> (try simplifying …)`.
pub fn over_budget_message(what: &str, cost: u64, limit: u64) -> String {
    let exceed = cost as f64 / limit as f64;
    let factor = if exceed > 100.0 {
        "more than 100x".to_string()
    } else if exceed < 1.5 {
        format!("{exceed:.6}x")
    } else {
        format!("{exceed:.1}x")
    };
    format!(
        "{what} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_saturate_and_round_up_as_cel_go_does() {
        assert_eq!(
            Estimate::fixed(u64::MAX).plus(Estimate::fixed(1)),
            Estimate::fixed(u64::MAX)
        );
        assert_eq!(
            Estimate::fixed(1 << 40).times(Estimate::fixed(1 << 40)),
            Estimate::fixed(u64::MAX)
        );
        assert_eq!(Estimate::fixed(11).factor(0.1), Estimate::fixed(2));
        assert_eq!(
            Estimate::unknown().factor(0.1).max,
            1_844_674_407_370_955_264
        );
        assert_eq!(Estimate::unknown().factor(1.0).max, u64::MAX);
    }

    #[test]
    fn over_budget_messages_word_the_factor_as_the_apiserver() {
        assert!(
            over_budget_message("estimated rule cost", 12_000_000, PER_EXPRESSION_LIMIT)
                .starts_with("estimated rule cost exceeds budget by factor of 1.200000x (try")
        );
        assert!(
            over_budget_message("x", 25_000_000, PER_EXPRESSION_LIMIT).contains("factor of 2.5x")
        );
        assert!(
            over_budget_message("x", u64::MAX, PER_EXPRESSION_LIMIT)
                .contains("factor of more than 100x")
        );
    }
}
