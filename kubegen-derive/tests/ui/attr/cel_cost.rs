use kubegen::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

/// The apiserver estimates each rule's cost at CRD creation and refuses
/// one over its budget; the derive estimates it the same way, so the rule
/// is refused here instead.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kubegen(group = "ui.kubegen.dev", version = "v1", kind = "Costly", namespaced)]
pub struct CostlySpec {
    // `string(int)` has no size bound: the concatenation's cost has none.
    #[kubegen(validation(
        rule = "self.size() <= 3",
        message_expression = "'too many: ' + string(self.size())"
    ))]
    pub few: Vec<String>,
    // Every pair of an unbounded list of unbounded strings.
    #[kubegen(validation(rule = "self.all(x, self.exists_one(y, y == x))"))]
    pub unique: Vec<String>,
}

/// Not a resource: its rules are costed as if it occurred once.
#[derive(KubeSchema, Serialize, Deserialize)]
pub struct Names {
    #[kubegen(validation(rule = "self.all(n, n.matches('^[a-z]+$'))"))]
    pub names: Vec<String>,
    // Bounded: within budget.
    #[kubegen(max_items = 10)]
    #[kubegen(validation(rule = "self.all(n, n.size() < 64)"))]
    pub few: Vec<String>,
}

fn main() {}
