//! The in-process API server against the real one: the same scenario
//! scripts (hand-picked, and generated from a seed) run on the fake and
//! on the real control plane `kubegen-testenv` builds, every answer
//! normalised and compared. The same scripts are the fake's own tests:
//! each step is built to get the code it names.
//!
//! `KUBEGEN_CONFORMANCE_CASES` (default 40) generated scenarios,
//! `KUBEGEN_CONFORMANCE_SEED` (default 1); `make differential` runs more.

#![recursion_limit = "256"]

#[path = "conformance/generated.rs"]
mod generated;
#[path = "conformance/normalize.rs"]
mod normalize;
#[path = "conformance/scenarios.rs"]
mod scenarios;
#[path = "conformance/script.rs"]
mod script;

use anyhow::Result;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen_fake::ApiServer;

use normalize::{Normalizer, differences};
use script::{Answer, Scenario};

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The hand-picked scenarios, then the generated ones.
fn every_scenario() -> Vec<Scenario> {
    let seed = env_number("KUBEGEN_CONFORMANCE_SEED", 1);
    let cases = env_number("KUBEGEN_CONFORMANCE_CASES", 40) as usize;
    let mut all = scenarios::all();
    all.extend(generated::scenarios(seed, cases));
    all
}

/// Differences between the fake and the real apiserver that are known,
/// each with its reason: (scenario, step, path prefix, reason).
const KNOWN: &[(&str, usize, &str, &str)] = &[];

async fn on_fake(scenario: &Scenario, ns: &str) -> Result<Vec<Answer>> {
    let server = ApiServer::builder().seed(7).build();
    server
        .install_crd(&scenarios::crd())
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let client = server.client();
    script::namespace(&client, ns).await?;
    script::run(&client, ns, scenario).await
}

#[tokio::test]
async fn the_fake_meets_every_scenarios_expectations() -> Result<()> {
    let mut unexpected = Vec::new();
    let mut steps = 0;
    for scenario in every_scenario() {
        let answers = on_fake(&scenario, "conf-fake").await?;
        steps += answers.len();
        unexpected.extend(script::unexpected(&scenario, &answers));
    }
    assert!(
        unexpected.is_empty(),
        "{} unexpected answers:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert!(steps > 200, "only {steps} steps ran");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fake_answers_as_the_real_apiserver() -> Result<()> {
    let env = kubegen_testenv::TestEnv::shared().await?;
    let real = env.client().await?;
    let crd: CustomResourceDefinition = serde_json::from_value(scenarios::crd())?;
    kubegen_testenv::install_crd(&real, &crd).await?;
    let mut found = Vec::new();
    let mut known = Vec::new();
    let mut used = vec![false; KNOWN.len()];
    let (mut compared, mut unexpected_real) = (0, Vec::new());
    let all = every_scenario();
    for scenario in &all {
        let ns = env.namespace("conf").await?;
        let real_answers = script::run(&real, &ns, scenario).await?;
        unexpected_real.extend(script::unexpected(scenario, &real_answers));
        let fake_answers = on_fake(scenario, &ns).await?;
        let (mut nf, mut nr) = (Normalizer::new(&ns), Normalizer::new(&ns));
        for (i, (f, r)) in fake_answers.iter().zip(&real_answers).enumerate() {
            compared += 1;
            let at = format!("{}#{i}", scenario.name);
            let (f, r) = (nf.answer(f, &at), nr.answer(r, &at));
            let mut d = Vec::new();
            if f.code != r.code {
                d.push(format!("code: fake {} vs real {}", f.code, r.code));
            }
            differences(&f.body, &r.body, "", &mut d);
            for line in d {
                let entry = format!("{at}: {line}");
                match KNOWN
                    .iter()
                    .position(|(s, n, p, _)| *s == scenario.name && *n == i && line.starts_with(p))
                {
                    Some(k) => {
                        used[k] = true;
                        known.push(format!("{entry} ({})", KNOWN[k].3));
                    }
                    None => found.push(entry),
                }
            }
        }
        found.extend(nf.violations.iter().map(|v| format!("fake: {v}")));
        found.extend(nr.violations.iter().map(|v| format!("real: {v}")));
    }
    eprintln!(
        "conformance: {} scenarios ({} generated), {compared} requests compared, {} known differences, {} new",
        all.len(),
        all.len() - scenarios::all().len(),
        known.len(),
        found.len()
    );
    for k in &known {
        eprintln!("  known: {k}");
    }
    let stale: Vec<_> = KNOWN
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(k, _)| format!("{}#{} {}", k.0, k.1, k.2))
        .collect();
    assert!(
        stale.is_empty(),
        "known differences that explain nothing: {stale:?}"
    );
    assert!(
        found.is_empty(),
        "{} differences:\n{}",
        found.len(),
        found.join("\n")
    );
    assert!(
        unexpected_real.is_empty(),
        "scenarios built wrong (the real apiserver disagrees with their expectation):\n{}",
        unexpected_real.join("\n")
    );
    Ok(())
}
