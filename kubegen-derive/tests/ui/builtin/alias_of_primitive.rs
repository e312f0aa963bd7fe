use kubegen::KubeSchema;
use serde::{Deserialize, Serialize};

/// An alias the derive cannot see through: `Port` reaches it as a type
/// whose `KubeSchema` impl is asked for.
pub type Port = u16;

#[derive(KubeSchema, Serialize, Deserialize)]
pub struct Service {
    pub port: Port,
}

fn main() {}
