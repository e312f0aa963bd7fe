//! Admission webhooks against a real API server: a validating webhook
//! denies with our message (and admits with warnings), a defaulting
//! webhook's patch is stored, fields the Rust type does not know survive
//! the patch, and the configurations are the ones `kubegen generate`
//! writes (from the same models), pointed at this process.

use std::time::Duration;

use anyhow::{Context, Result};
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen::api::ApiResource;
use kubegen::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kubegen::server::Operation;
use kubegen::{CustomResource, CustomResourceExt};
use kubegen_core::model::WebhookTarget;
use kubegen_testenv::{TestEnv, eventually, install_crd};
use serde::{Deserialize, Serialize};
use serde_json::json;

mod support;

const WAIT: Duration = Duration::from_secs(30);

/// An order.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kubegen(
    group = "admission.kubegen.dev",
    version = "v1",
    kind = "Order",
    namespaced,
    admission(
        validate,
        default,
        service = "orders-webhook",
        namespace = "orders-system"
    )
)]
pub struct OrderSpec {
    /// What is ordered.
    pub item: String,
    /// How many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<i32>,
    /// Who pays; defaulted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer: Option<String>,
    /// Anything else the client sends is kept.
    #[kubegen(preserve_unknown_fields)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<serde_json::Value>,
}

fn order(name: &str, item: &str, quantity: Option<i32>) -> Order {
    Order::new(
        name,
        OrderSpec {
            item: item.into(),
            quantity,
            payer: None,
            extra: None,
        },
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validating_and_defaulting_webhooks_on_the_real_apiserver() -> Result<()> {
    let env = TestEnv::shared().await?;
    let client = env.client().await?;
    let ns = env.namespace("admission").await?;
    let webhooks = support::serve(|server| {
        server
            .validate::<Order>(|request| {
                let Some(order) = &request.object else {
                    return Ok(vec![]);
                };
                if order.spec.item == "forbidden" {
                    return Err(format!("item {:?} is not sold here", order.spec.item));
                }
                if request.operation == Operation::Update && order.spec.quantity.is_none() {
                    return Ok(vec!["an update without a quantity orders one".into()]);
                }
                Ok(if order.spec.quantity == Some(0) {
                    vec!["an order of 0 items does nothing".into()]
                } else {
                    vec![]
                })
            })
            .default::<Order>(|order| {
                if order.spec.payer.is_none() {
                    order.spec.payer = Some("the-house".into());
                }
            })
    })
    .await?;
    let (addr, ca) = (webhooks.running.addr, &webhooks.ca);

    let crd: CustomResourceDefinition = serde_json::from_value(Order::crd_json()?)?;
    install_crd(&client, &crd).await?;
    // The configurations kubegen generate writes, pointed at this process.
    let mut model = Order::resource_model();
    let admission = model
        .admission
        .as_mut()
        .context("no admission in the model")?;
    assert!(admission.validate && admission.default);
    admission.webhook = WebhookTarget::Url(format!("https://{addr}"));
    let [validating, mutating] =
        kubegen_core::admission::configurations(&format!("orders-{ns}"), [&model]);
    let bundle = serde_json::to_value(k8s_openapi::ByteString(ca.pem().into_bytes()))?;
    let mut validating = validating.context("no validating configuration")?;
    let mut mutating = mutating.context("no mutating configuration")?;
    for config in [&mut validating, &mut mutating] {
        config["webhooks"][0]["clientConfig"]["caBundle"] = bundle.clone();
        // Only this test's namespace.
        config["webhooks"][0]["namespaceSelector"] =
            json!({"matchLabels": {"kubernetes.io/metadata.name": ns}});
    }
    let apply = PatchParams::apply("admission-e2e").force();
    let validating: ValidatingWebhookConfiguration = serde_json::from_value(validating)?;
    let mutating: MutatingWebhookConfiguration = serde_json::from_value(mutating)?;
    Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .patch(
            &format!("orders-{ns}-validating"),
            &apply,
            &Patch::Apply(&validating),
        )
        .await?;
    Api::<MutatingWebhookConfiguration>::all(client.clone())
        .patch(
            &format!("orders-{ns}-mutating"),
            &apply,
            &Patch::Apply(&mutating),
        )
        .await?;

    let orders = Api::<Order>::namespaced(client.clone(), &ns);
    // Webhook configurations take effect shortly after they are created.
    let refused = eventually(WAIT, "the validating webhook to deny", || async {
        match orders
            .create(&PostParams::default(), &order("bad", "forbidden", Some(1)))
            .await
        {
            Err(kubegen::Error::Api(e)) => Ok(Some(e)),
            Ok(_) => {
                orders.delete("bad", &Default::default()).await?;
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    })
    .await?;
    assert_eq!(refused.code, 403, "{refused:?}");
    assert!(
        refused
            .message
            .contains("item \"forbidden\" is not sold here"),
        "{}",
        refused.message
    );

    // Defaulted on create; what the Rust type does not model survives.
    let dynamic = Api::<DynamicObject>::namespaced_with(
        client.clone(),
        &ns,
        &ApiResource::erase::<Order>(&()),
    );
    let mut raw: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "admission.kubegen.dev/v1", "kind": "Order",
        "metadata": {"name": "good"},
        "spec": {"item": "tea", "quantity": 2, "extra": {"gift": {"wrap": true}}},
    }))?;
    raw = dynamic.create(&PostParams::default(), &raw).await?;
    assert_eq!(raw.data["spec"]["payer"], "the-house");
    assert_eq!(raw.data["spec"]["extra"], json!({"gift": {"wrap": true}}));
    let stored = orders.get("good").await?;
    assert_eq!(stored.spec.payer.as_deref(), Some("the-house"));
    // A payer given is kept.
    let mut mine = order("mine", "tea", Some(1));
    mine.spec.payer = Some("me".into());
    assert_eq!(
        orders
            .create(&PostParams::default(), &mine)
            .await?
            .spec
            .payer
            .as_deref(),
        Some("me")
    );

    // Warnings reach the client; the object is admitted.
    let zero = orders
        .create(&PostParams::default(), &order("zero", "tea", Some(0)))
        .await?;
    assert_eq!(zero.spec.quantity, Some(0));
    let out = env
        .kubectl()
        .args([
            "-n",
            &ns,
            "patch",
            "order.admission.kubegen.dev",
            "zero",
            "--type=json",
        ])
        .args(["-p", r#"[{"op":"remove","path":"/spec/quantity"}]"#])
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("Warning: an update without a quantity orders one"),
        "{stderr}"
    );

    webhooks.running.shut().await
}
