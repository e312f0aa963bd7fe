//! Hub-and-spoke conversion without a server: the stash keeps what a spoke
//! cannot hold, edits through the spoke win, reviews keep uid and order,
//! and the property test catches a lossy conversion.

use kubegen::conversion::{Converter, STASH_ANNOTATION, testing::check_round_trips};
use kubegen::core::conversion::{ConversionRequest, ConversionReview};
use serde_json::{Value, json};

mod support;

use support::carts::{converter, v1, v2};

fn hub_cart() -> Value {
    json!({
        "apiVersion": "shop.example.com/v2", "kind": "Cart",
        "metadata": {"name": "c", "namespace": "ns", "uid": "u1", "resourceVersion": "7",
                     "labels": {"team": "a"}},
        "spec": {"lines": [{"sku": "a", "quantity": 3}, {"sku": "b", "quantity": 1}], "note": "n"},
        "status": {"total": 400},
    })
}

#[test]
fn a_spoke_that_holds_less_loses_nothing() {
    let c = converter();
    let old = c.convert(hub_cart(), "shop.example.com/v1").unwrap();
    assert_eq!(old["apiVersion"], "shop.example.com/v1");
    assert_eq!(old["spec"], json!({"items": ["a", "b"], "note": "n"}));
    assert_eq!(old["status"], json!({"total": 400}));
    assert_eq!(old["metadata"]["labels"], json!({"team": "a"}));
    assert_eq!(old["metadata"]["resourceVersion"], "7");
    assert!(old["metadata"]["annotations"][STASH_ANNOTATION].is_string());
    // Back at the hub: exactly what was there, stash gone.
    let back = c.convert(old, "shop.example.com/v2").unwrap();
    assert_eq!(back, hub_cart());
}

#[test]
fn a_spoke_that_holds_everything_gets_no_stash() {
    let c = converter();
    let mut hub = hub_cart();
    hub["spec"]["lines"] = json!([{"sku": "a", "quantity": 1}]);
    let old = c.convert(hub.clone(), "shop.example.com/v1").unwrap();
    assert!(old["metadata"].get("annotations").is_none(), "{old}");
    assert_eq!(c.convert(old, "shop.example.com/v2").unwrap(), hub);
}

#[test]
fn edits_through_the_spoke_win_and_the_rest_is_restored() {
    let c = converter();
    let mut old = c.convert(hub_cart(), "shop.example.com/v1").unwrap();
    // Only the note changes through v1: the quantities come back.
    old["spec"]["note"] = json!("edited");
    let back = c.convert(old.clone(), "shop.example.com/v2").unwrap();
    assert_eq!(back["spec"]["note"], "edited");
    assert_eq!(back["spec"]["lines"], hub_cart()["spec"]["lines"]);
    // An item added and one removed through v1: lines are a keyed list
    // (by sku), so the quantity of the line that stays comes back, the
    // removed line stays removed, the new one has v1's default.
    old["spec"]["items"] = json!(["a", "c"]);
    let back = c.convert(old, "shop.example.com/v2").unwrap();
    assert_eq!(
        back["spec"]["lines"],
        json!([{"sku": "a", "quantity": 3}, {"sku": "c", "quantity": 1}])
    );
    assert!(back["metadata"].get("annotations").is_none());
}

#[test]
fn user_metadata_changes_cannot_leak() {
    // The apiserver refuses conversions that change metadata; the original
    // metadata is always what comes out.
    let c = converter();
    let mut hub = hub_cart();
    hub["metadata"]["annotations"] = json!({"keep": "me"});
    let old = c.convert(hub.clone(), "shop.example.com/v1").unwrap();
    let mut expected = hub["metadata"].clone();
    expected["annotations"][STASH_ANNOTATION] =
        old["metadata"]["annotations"][STASH_ANNOTATION].clone();
    assert_eq!(old["metadata"], expected);
}

#[test]
fn reviews_keep_uid_and_order_and_report_failures() {
    let c = converter();
    let mut one = hub_cart();
    one["metadata"]["name"] = json!("one");
    let review: ConversionReview = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "abc-123", "desiredAPIVersion": "shop.example.com/v1",
                    "objects": [one, hub_cart()]}
    }))
    .unwrap();
    let answer = serde_json::to_value(c.review(review)).unwrap();
    assert_eq!(answer["response"]["uid"], "abc-123");
    assert_eq!(answer["response"]["result"]["status"], "Success");
    let objects = answer["response"]["convertedObjects"].as_array().unwrap();
    assert_eq!(objects.len(), 2);
    assert_eq!(objects[0]["metadata"]["name"], "one");
    assert_eq!(objects[1]["metadata"]["name"], "c");

    let mut broken = hub_cart();
    broken["metadata"]["name"] = json!("broken");
    broken["spec"]["lines"] = json!("not a list");
    let request = ConversionRequest {
        types: None,
        uid: "u-2".into(),
        desired_api_version: "shop.example.com/v1".into(),
        objects: vec![hub_cart(), broken],
    };
    let review: ConversionReview = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": request,
    }))
    .unwrap();
    let answer = serde_json::to_value(c.review(review)).unwrap();
    assert_eq!(answer["response"]["uid"], "u-2");
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    let message = answer["response"]["result"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("broken: converting shop.example.com/v2 to shop.example.com/v1"),
        "{message}"
    );
    assert!(
        answer["response"]
            .get("convertedObjects")
            .is_none_or(|o| o.as_array().is_some_and(Vec::is_empty))
    );

    let unknown =
        json!({"apiVersion": "other.example.com/v1", "kind": "Cart", "metadata": {"name": "x"}});
    let e = c.convert(unknown, "other.example.com/v2").unwrap_err();
    assert!(
        e.0.contains("does not convert Cart (other.example.com/v1)"),
        "{e}"
    );
}

#[test]
fn the_property_test_passes_for_lossless_conversions() {
    let report = check_round_trips(&converter(), 200, 1).unwrap();
    assert_eq!(report.checked, 400, "{report:?}");
}

mod lossy {
    //! A conversion that forgets the note: the property test must catch it.
    use super::{v1, v2};
    use serde::{Deserialize, Serialize};

    /// Wraps v1 with a buggy conversion.
    #[derive(Serialize, Deserialize, Clone, Debug)]
    #[serde(transparent)]
    pub struct Forgetful(pub v1::Cart);

    impl kubegen::k8s_openapi::Resource for Forgetful {
        const API_VERSION: &'static str = "shop.example.com/v1";
        const GROUP: &'static str = "shop.example.com";
        const KIND: &'static str = "Cart";
        const VERSION: &'static str = "v1";
        const URL_PATH_SEGMENT: &'static str = "carts";
        type Scope = kubegen::k8s_openapi::NamespaceResourceScope;
    }

    impl kubegen::CustomResourceExt for Forgetful {
        fn resource_model() -> kubegen::__private::ResourceModel {
            <v1::Cart as kubegen::CustomResourceExt>::resource_model()
        }
        fn crd_json() -> Result<serde_json::Value, kubegen::CrdError> {
            <v1::Cart as kubegen::CustomResourceExt>::crd_json()
        }
    }

    impl From<Forgetful> for v2::Cart {
        fn from(old: Forgetful) -> Self {
            let mut hub = v2::Cart::from(old.0);
            hub.spec.note = None;
            hub
        }
    }

    impl From<v2::Cart> for Forgetful {
        fn from(new: v2::Cart) -> Self {
            Forgetful(new.into())
        }
    }
}

#[test]
fn the_property_test_catches_a_lossy_conversion() {
    let c = Converter::new().spoke::<lossy::Forgetful, v2::Cart>();
    let failure = check_round_trips(&c, 200, 1).unwrap_err();
    assert!(
        failure
            .path
            .contains("Cart shop.example.com/v1 → shop.example.com/v2 → shop.example.com/v1"),
        "{failure}"
    );
    assert!(failure.input["spec"].get("note").is_some(), "{failure}");
}

#[test]
fn a_spoke_richer_than_the_hub_loses_nothing_either() {
    // Before storage moves to the new version, the old one is the hub and
    // the new one holds more: its data rides on the hub object.
    let c = Converter::new().spoke::<v2::Cart, v1::Cart>();
    let stored = c.convert(hub_cart(), "shop.example.com/v1").unwrap();
    assert_eq!(stored["spec"]["items"], json!(["a", "b"]));
    let stash = stored["metadata"]["annotations"][STASH_ANNOTATION]
        .as_str()
        .unwrap();
    let stash: Value = serde_json::from_str(stash).unwrap();
    assert_eq!(stash["apiVersion"], "shop.example.com/v2");
    assert_eq!(
        c.convert(stored.clone(), "shop.example.com/v2").unwrap(),
        hub_cart()
    );
    // An edit at the hub of a field both hold keeps the quantities.
    let mut edited = stored;
    edited["spec"]["note"] = json!("from v1");
    let mut want = hub_cart();
    want["spec"]["note"] = json!("from v1");
    assert_eq!(c.convert(edited, "shop.example.com/v2").unwrap(), want);
    check_round_trips(&c, 200, 7).unwrap();
}
