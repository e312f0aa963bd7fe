//! [`DevCa`]'s certificates as Go's `crypto/x509` reads and verifies them
//! — the apiserver's library for a webhook's serving certificate and for
//! the client certificate a server of ours requires — over generated name
//! sets (DNS names with hyphens and digits, IPv4 and IPv6 addresses, one
//! to five of them): `go run ./tests/x509-go` parses each CA, serving and
//! client certificate and verifies them. Every serving certificate must
//! verify for a name it was issued for and fail for one it was not, fail
//! against another CA of the same name, and Go must read back the names,
//! subjects, validity, serial and key usages written.
//!
//! `KUBEGEN_X509_CASES` (default 200) name sets from seed
//! `KUBEGEN_X509_SEED` (default 1).

use std::io::Write as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use kubegen::server::DevCa;
use kubegen_core::rng::Rng;
use serde_json::{Value, json};

const HOUR: i64 = 3600;
const DAY: i64 = 24 * HOUR;

fn env_or(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A DNS name: one to four labels of letters, digits and inner hyphens.
fn dns_name(rng: &mut Rng) -> String {
    const INNER: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-";
    const EDGE: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let labels: Vec<String> = (0..1 + rng.below(4))
        .map(|_| {
            let len = 1 + rng.below(15);
            (0..len)
                .map(|i| {
                    let set = if i == 0 || i == len - 1 { EDGE } else { INNER };
                    char::from(*rng.pick(set))
                })
                .collect()
        })
        .collect();
    labels.join(".")
}

fn ipv4(rng: &mut Rng) -> IpAddr {
    IpAddr::V4(Ipv4Addr::from(rng.next_u64() as u32))
}

/// An IPv6 address, often with runs of zero groups (written `::`), never
/// IPv4-mapped (its first group is not zero) unless it is `::1`.
fn ipv6(rng: &mut Rng) -> IpAddr {
    if rng.chance(1, 20) {
        return IpAddr::V6(Ipv6Addr::LOCALHOST);
    }
    let mut groups = [0u16; 8];
    let any = 1 + (rng.next_u64() as u16 >> 1);
    groups[0] = *rng.pick(&[0x2001, 0xfd12, 0xfe80, any]);
    for group in &mut groups[1..] {
        if !rng.chance(1, 3) {
            *group = rng.next_u64() as u16;
        }
    }
    IpAddr::V6(Ipv6Addr::from(groups))
}

/// One to five names, DNS names half the time.
fn names(rng: &mut Rng) -> Vec<String> {
    (0..1 + rng.below(5))
        .map(|_| match rng.below(4) {
            0 | 1 => dns_name(rng),
            2 => ipv4(rng).to_string(),
            _ => ipv6(rng).to_string(),
        })
        .collect()
}

/// A name of the same kind as `name` that is not among `names`.
fn wrong_name(rng: &mut Rng, name: &str, names: &[String], case: usize) -> String {
    loop {
        let wrong = match name.parse::<IpAddr>() {
            Ok(IpAddr::V4(_)) => ipv4(rng).to_string(),
            Ok(IpAddr::V6(_)) => ipv6(rng).to_string(),
            Err(_) => format!("not-issued-{case}.{}", dns_name(rng)),
        };
        if !names.contains(&wrong) {
            return wrong;
        }
    }
}

/// A common name: ASCII, with spaces, or beyond ASCII (a UTF8String).
fn common_name(rng: &mut Rng, prefix: &str) -> String {
    let tail = *rng.pick(&["", " dev", "-ünïcode", " 证书", "-0"]);
    format!("{prefix}-{}{tail}", rng.below(1000))
}

/// A generated case: the files of its directory and what was asked for.
struct Case {
    dir: PathBuf,
    names: Vec<String>,
    name: String,
    wrong: String,
    ca_name: String,
    client_name: String,
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Go's answer for each of `requests`, from one `go run`.
fn go(requests: &[Value]) -> Vec<Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/x509-go");
    let mut child = Command::new("go")
        .args(["run", "."])
        .current_dir(&dir)
        .env("GOTOOLCHAIN", "local")
        .env("GOFLAGS", "-mod=mod")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "this test checks certificates with Go's crypto/x509 through `go`, which could \
                 not be run ({e}): install Go 1.26 and put `go` on PATH"
            )
        });
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "go run ./tests/x509-go: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), requests.len(), "one answer per case");
    answers
}

/// What is wrong with Go's reading of `case` (`started..=finished`: when
/// the certificates were made).
fn problems(case: &Case, go: &Value, started: i64, finished: i64) -> Vec<String> {
    let mut found = Vec::new();
    let mut expect = |ok: bool, what: String| {
        if !ok {
            found.push(what);
        }
    };
    expect(
        go["error"].is_null(),
        format!("unreadable: {}", go["error"]),
    );
    if !go["error"].is_null() {
        return found;
    }
    let (ca, server, client) = (&go["ca"], &go["server"], &go["client"]);
    let (dns, ips): (Vec<&String>, Vec<&String>) = case
        .names
        .iter()
        .partition(|n| n.parse::<IpAddr>().is_err());
    let ips: Vec<IpAddr> = ips.iter().map(|n| n.parse().unwrap()).collect();
    let go_ips: Vec<IpAddr> = server["ips"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|ip| ip.as_str().unwrap().parse().unwrap())
        .collect();
    let go_dns: Vec<&str> = server["dns"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| n.as_str().unwrap())
        .collect();
    expect(go_dns == dns, format!("DNS names {go_dns:?}"));
    expect(go_ips == ips, format!("IP addresses {go_ips:?}"));
    expect(
        ca["subject"] == case.ca_name.as_str(),
        format!("CA {}", ca["subject"]),
    );
    expect(
        client["subject"] == case.client_name.as_str(),
        format!("client {}", client["subject"]),
    );
    // Go's KeyUsage bits: DigitalSignature 1, CertSign 32, CRLSign 64;
    // ExtKeyUsage: ServerAuth 1, ClientAuth 2.
    expect(
        ca["is_ca"] == true && ca["key_usage"] == 96,
        format!("CA {ca}"),
    );
    expect(
        server["is_ca"] == false
            && server["key_usage"] == 1
            && server["ext_key_usage"] == json!([1]),
        format!("server usages {server}"),
    );
    expect(
        client["is_ca"] == false
            && client["key_usage"] == 1
            && client["ext_key_usage"] == json!([2]),
        format!("client usages {client}"),
    );
    for (what, cert, days) in [
        ("CA", ca, 3650),
        ("server", server, 365),
        ("client", client, 365),
    ] {
        let (from, to) = (cert["not_before"].as_i64(), cert["not_after"].as_i64());
        let from_ok = from.is_some_and(|t| (started - HOUR..=finished - HOUR).contains(&t));
        let to_ok = from
            .zip(to)
            .is_some_and(|(f, t)| t - f == days * DAY + HOUR);
        expect(
            from_ok && to_ok,
            format!("{what} validity {from:?}..{to:?}"),
        );
        // 16 random bytes, the first 0b01xx_xxxx: in [2^126, 2^127).
        let serial = cert["serial"].as_str().and_then(|s| s.parse::<u128>().ok());
        let serial_ok = serial.is_some_and(|s| s >> 126 == 1);
        expect(serial_ok, format!("{what} serial {}", cert["serial"]));
    }
    let verified = |key: &str| go[key].as_str() == Some("");
    let refused = |key: &str, because: &str| go[key].as_str().is_some_and(|e| e.contains(because));
    expect(
        verified("server_verified"),
        format!("{} for {}", go["server_verified"], case.name),
    );
    expect(
        verified("client_verified"),
        format!("client: {}", go["client_verified"]),
    );
    expect(
        refused("wrong_name", "valid for"),
        format!("{} for {}: {}", case.wrong, case.name, go["wrong_name"]),
    );
    expect(
        refused("other_ca", "unknown authority"),
        format!("another CA: {}", go["other_ca"]),
    );
    for key in ["client_as_server", "server_as_client"] {
        expect(
            refused(key, "incompatible key usage"),
            format!("{key}: {}", go[key]),
        );
    }
    found
}

#[test]
fn go_verifies_dev_ca_certificates_for_their_names_only() {
    let cases = env_or("KUBEGEN_X509_CASES", 200) as usize;
    let seed = env_or("KUBEGEN_X509_SEED", 1);
    let mut rng = Rng::new(seed);
    let tmp = tempfile::tempdir().unwrap();
    let started = now();
    let mut generated = Vec::with_capacity(cases);
    let mut requests = Vec::with_capacity(cases);
    let mut ca = None;
    for i in 0..cases {
        if i % 10 == 0 {
            let name = common_name(&mut rng, "kubegen-dev-ca");
            // A CA of the same name and another key: issued nothing here.
            let impostor = tmp.path().join(format!("impostor-{i}.crt"));
            std::fs::write(&impostor, DevCa::new(&name).unwrap().pem()).unwrap();
            ca = Some((DevCa::new(&name).unwrap(), name, impostor));
        }
        let (dev_ca, ca_name, impostor) = ca.as_ref().unwrap();
        let names = names(&mut rng);
        let name = rng.pick(&names).clone();
        let wrong = wrong_name(&mut rng, &name, &names, i);
        let client_name = common_name(&mut rng, "caller");
        let dir = tmp.path().join(format!("case-{i}"));
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        dev_ca.issue(&dir, &refs).unwrap();
        dev_ca.issue_client(&dir, &client_name).unwrap();
        requests.push(json!({
            "ca": dir.join("ca.crt"), "server": dir.join("tls.crt"),
            "client": dir.join("client.crt"), "other_ca": impostor,
            "name": name, "wrong": wrong,
        }));
        generated.push(Case {
            dir,
            names,
            name,
            wrong,
            ca_name: ca_name.clone(),
            client_name,
        });
    }
    let finished = now();
    let answers = go(&requests);
    let mut failures = Vec::new();
    for (case, answer) in generated.iter().zip(&answers) {
        let found = problems(case, answer, started, finished);
        if !found.is_empty() {
            failures.push(format!(
                "{} {:?}:\n  {}",
                case.dir.display(),
                case.names,
                found.join("\n  ")
            ));
        }
    }
    let ips = generated
        .iter()
        .flat_map(|c| &c.names)
        .filter(|n| n.parse::<IpAddr>().is_ok())
        .count();
    let names = generated.iter().map(|c| c.names.len()).sum::<usize>();
    println!(
        "x509 differential: {cases} name sets (seed {seed}), {names} names ({ips} IP addresses), \
         {} cases Go disagreed with",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed (seed {seed}):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
