//! Cart at two versions for the conversion tests: v1 holds item names,
//! v2 (the hub) lines with quantities; `From` both ways (v2 → v1 loses the
//! quantities, which the stash keeps).

use kubegen::conversion::Converter;

pub mod v1 {
    use kubegen::{CustomResource, KubeSchema};
    use serde::{Deserialize, Serialize};

    /// A cart (old).
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[kubegen(
        group = "shop.example.com",
        version = "v1",
        kind = "Cart",
        namespaced,
        storage = false,
        status = "CartStatus"
    )]
    pub struct CartSpec {
        /// Items.
        pub items: Vec<String>,
        /// A note both versions hold.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub note: Option<String>,
    }

    /// Status.
    #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    pub struct CartStatus {
        /// Total.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub total: Option<i64>,
    }
}

pub mod v2 {
    use kubegen::{CustomResource, KubeSchema};
    use serde::{Deserialize, Serialize};

    /// A cart (hub).
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[kubegen(
        group = "shop.example.com",
        version = "v2",
        kind = "Cart",
        namespaced,
        status = "CartStatus",
        conversion(service = "shop-webhook", namespace = "shop-system")
    )]
    pub struct CartSpec {
        /// Lines.
        #[kubegen(list_type = "map", list_map_keys = ["sku"])]
        pub lines: Vec<Line>,
        /// A note both versions hold.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub note: Option<String>,
    }

    /// A line.
    #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
    pub struct Line {
        /// SKU.
        pub sku: String,
        /// How many.
        #[kubegen(minimum = 1)]
        pub quantity: i32,
    }

    /// Status.
    #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    pub struct CartStatus {
        /// Total.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub total: Option<i64>,
    }
}

impl From<v1::Cart> for v2::Cart {
    fn from(old: v1::Cart) -> Self {
        let lines = old
            .spec
            .items
            .into_iter()
            .map(|sku| v2::Line { sku, quantity: 1 })
            .collect();
        v2::Cart {
            metadata: old.metadata,
            spec: v2::CartSpec {
                lines,
                note: old.spec.note,
            },
            status: old.status.map(|s| v2::CartStatus { total: s.total }),
        }
    }
}

impl From<v2::Cart> for v1::Cart {
    fn from(new: v2::Cart) -> Self {
        v1::Cart {
            metadata: new.metadata,
            spec: v1::CartSpec {
                items: new.spec.lines.into_iter().map(|l| l.sku).collect(),
                note: new.spec.note,
            },
            status: new.status.map(|s| v1::CartStatus { total: s.total }),
        }
    }
}

/// The converter of the two versions.
pub fn converter() -> Converter {
    Converter::new().spoke::<v1::Cart, v2::Cart>()
}
