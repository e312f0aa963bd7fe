//! Differential test of `kubegen_core::plural::pluralize` against the plural
//! controller-gen v0.23.0 writes, `strings.ToLower(flect.Pluralize(kind))`
//! with github.com/gobuffalo/flect v1.0.3, run by `tests/flect/main.go`.
//!
//! The kinds: every Kubernetes type name in the built-in table
//! (`kubegen_core::builtin`), every word in flect's own tables (`plural_rules.go`, `acronyms.go`, read from
//! the module cache) in several spellings, hand-picked ones (the examples'
//! and fixtures' kinds, flect's corner cases) and a seeded set of generated
//! CamelCase kinds from English nouns and made-up words with varied endings.
//!
//! Needs `go` (1.26) on `PATH` and flect v1.0.3 in the module cache or from
//! the module proxy. `KUBEGEN_PLURAL_SEED` sets the seed.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use kubegen_core::plural::pluralize;
use kubegen_core::rng::Rng;
use regex::Regex;

const FLECT: &str = "github.com/gobuffalo/flect";
const FLECT_VERSION: &str = "v1.0.3";
const GENERATED: usize = 3000;

/// Kinds worth naming: the examples' and fixtures' kinds, the unit table's,
/// and flect's corners (acronyms, exact dictionary words as a last word,
/// capitalized suffixes); and the empty kind.
const HAND_PICKED: &str = "\
    A B C Bad Cart Carrier Costly Everything Foo Gadget JobCarrier Keyed MyApplication Named \
    Note Probe Report Runner Shape Shapes Warehouse Workload postgresql Policy NetworkPolicy \
    Ingress Endpoints Status Proxy Gateway Box Mesh Patch Key Pod Data Metadata News Person \
    SalesPerson Salesperson Index Knife Shelf Video Radio Analysis Quiz Fez Axis FireAxis \
    Fireaxis Ox BigOx ID IDs Id ClusterID ClusterIDs DNS Dns DnS dns MyDNS mydns SSH ssh \
    HTTPSRoute HTTPRoute APIService ServiceCIDR PortIo AboutUs PointX Pop3 POP3 W3C Matrix \
    Modula Tofu TOFU HTTPS IDS IPs";

#[test]
fn pluralize_matches_controller_gen() {
    let seed = std::env::var("KUBEGEN_PLURAL_SEED")
        .ok()
        .map(|s| s.parse::<u64>().expect("KUBEGEN_PLURAL_SEED is a number"))
        .unwrap_or(0x006b_7562_6567_656e);
    let builtin = builtin_type_names();
    let tables = flect_table_words();
    let generated = generated_kinds(seed);
    assert!(builtin.len() > 400, "{} built-in names", builtin.len());
    assert!(tables.len() > 300, "{} flect table words", tables.len());

    let hand_picked: Vec<&str> = HAND_PICKED.split_whitespace().chain([""]).collect();
    let mut kinds: BTreeSet<String> = hand_picked.iter().map(|k| (*k).to_owned()).collect();
    kinds.extend(builtin.iter().cloned());
    for word in &tables {
        kinds.extend(spellings(word));
    }
    kinds.extend(generated);
    let kinds: Vec<String> = kinds.into_iter().collect();

    let theirs = flect(&kinds);
    let mismatches: Vec<String> = kinds
        .iter()
        .zip(&theirs)
        .filter(|(kind, want)| pluralize(kind) != **want)
        .map(|(kind, want)| format!("{kind:?}: kubegen {:?}, flect {want:?}", pluralize(kind)))
        .collect();
    println!(
        "plural vs flect {FLECT_VERSION}: {} kinds compared ({} built-in type names, {} flect \
         table words in several spellings, {} hand-picked, {GENERATED} generated, seed {seed:#x})",
        kinds.len(),
        builtin.len(),
        tables.len(),
        hand_picked.len(),
    );
    assert!(
        mismatches.is_empty(),
        "{} of {} kinds pluralized unlike controller-gen:\n{}",
        mismatches.len(),
        kinds.len(),
        mismatches.join("\n")
    );
}

/// Ways a word can appear in a kind: alone in each case, as the last word of
/// a CamelCase kind, glued onto a lower-case word, after an acronym.
fn spellings(word: &str) -> Vec<String> {
    let capital = capitalize(word);
    vec![
        word.to_owned(),
        word.to_ascii_lowercase(),
        word.to_ascii_uppercase(),
        capital.clone(),
        format!("Cluster{capital}"),
        format!("Cluster{}", word.to_ascii_lowercase()),
        format!("DNS{capital}"),
        format!("My{}", word.to_ascii_uppercase()),
    ]
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase())
        .into_iter()
        .chain(chars)
        .collect()
}

/// Every type name under a k8s-openapi module path in the built-in table
/// (`api::core::v1::Pod`, `apimachinery::pkg::apis::meta::v1::Time`).
fn builtin_type_names() -> BTreeSet<String> {
    kubegen_core::builtin::types()
        .filter(|t| {
            let path = t.path();
            ["api::", "apimachinery::", "apiextensions_apiserver::"]
                .iter()
                .any(|p| path.starts_with(p))
        })
        .map(|t| t.name().to_owned())
        .collect()
}

/// Every word quoted in flect's plural rules and acronyms, read from the
/// module the helper builds with.
fn flect_table_words() -> BTreeSet<String> {
    let out = run(
        go().args(["list", "-m", "-f", "{{.Version}} {{.Dir}}", FLECT]),
        "",
    );
    let line = String::from_utf8(out).unwrap();
    let (version, dir) = line.trim().split_once(' ').unwrap();
    assert_eq!(version, FLECT_VERSION, "tests/flect/go.mod");
    let quoted = Regex::new(r#""([A-Za-z0-9]+)""#).unwrap();
    let mut words = BTreeSet::new();
    for file in ["plural_rules.go", "acronyms.go"] {
        let source = std::fs::read_to_string(Path::new(dir).join(file))
            .unwrap_or_else(|e| panic!("{dir}/{file}: {e}"));
        words.extend(quoted.captures_iter(&source).map(|c| c[1].to_owned()));
    }
    words
}

/// Common nouns, chosen for their endings (-s, -ss, -us, -is, -x, -z, -ch,
/// -sh, -y after vowel and consonant, -o, -f, -fe, -um, -on, -a, -ex, -ix,
/// -eau, -ouse, -man, -child, -person, ...).
const NOUNS: &str = "\
    policy proxy gateway key day toy guy soliloquy entry registry ingress class address process \
    status bus campus virus corpus census analysis basis thesis synopsis diagnosis crisis axis \
    chassis box index matrix suffix prefix fox mailbox sandbox quiz fez waltz buzz topaz batch \
    match watch branch switch mesh hash push dish video radio photo piano hero echo tomato zoo \
    tattoo memo silo portfolio scenario repo leaf loaf wolf half shelf scarf roof chief proof \
    knife life wife safe giraffe native objective directive archive curriculum datum medium \
    museum forum album quorum stadium premium maximum minimum spectrum quantum criterion \
    phenomenon polyhedron electron schema formula nebula quota agenda area replica vertex apex \
    complex annex appendix helix bureau plateau tableau house mouse warehouse clause cause pause \
    use fuse man woman human german shaman child person tooth foot goose sheep fish deer series \
    species news data metadata money information equipment rice police people children men feet \
    mice teeth indices endpoints shapes secrets credentials settings pod node service secret job \
    task run build image volume claim snapshot backup restore database cluster tenant project \
    user group role binding account token certificate issuer route domain record zone bucket \
    queue topic stream pipeline release chart app application workflow template config profile \
    limit quota alert rule monitor probe target scale autoscaler lease event eviction review \
    request cache ox box die louse toe shoe movie cookie hive move thief dwarf hoof alias canvas \
    atlas gas iris tennis lotus octopus cactus focus radius genus larva vita alumna id uuid dns \
    ip api cidr ssh https tls vpn url json";

/// Prefixes of generated kinds: none, words, acronyms, digits.
const PREFIXES: &[&str] = &[
    "", "", "", "", "Network", "Cluster", "Pod", "My", "Storage", "Service", "Resource", "Volume",
    "Backup", "Tenant", "DNS", "HTTP", "HTTPS", "API", "IP", "ID", "TLS", "CSI", "VPN", "SSH",
    "Ec2", "S3", "V2", "K8s", "X", "Io", "Us", "Man", "Person", "Data",
];

/// Syllables and endings of made-up words.
const SYLLABLES: &[&str] = &[
    "ka", "zo", "mi", "ter", "lan", "qu", "vor", "bri", "nel", "sta", "pho", "gra", "tri", "dex",
];
const ENDINGS: &[&str] = &[
    "s", "ss", "us", "is", "sis", "x", "ix", "ex", "trix", "z", "ez", "iz", "tz", "zz", "ch", "sh",
    "y", "ay", "ey", "oy", "uy", "quy", "o", "io", "oo", "lo", "to", "ano", "f", "fe", "lf", "rf",
    "eaf", "afe", "tive", "um", "ium", "eum", "seum", "dum", "trum", "atum", "on", "hedron", "a",
    "bula", "dula", "eau", "ouse", "lause", "man", "person", "child", "foot", "e", "er", "ing",
    "ata", "ia", "ies", "es", "ves", "ices", "men", "people", "",
];

/// `GENERATED` distinct kinds: a prefix, then a noun or made-up word in
/// capitals, lower case or (mostly) capitalized, sometimes a digit.
fn generated_kinds(seed: u64) -> BTreeSet<String> {
    let nouns: Vec<&str> = NOUNS.split_whitespace().collect();
    let mut rng = Rng::new(seed);
    let mut kinds = BTreeSet::new();
    while kinds.len() < GENERATED {
        let word = if rng.below(2) == 0 {
            rng.pick(&nouns).to_string()
        } else {
            let mut w: String = (0..1 + rng.below(3))
                .map(|_| *rng.pick(SYLLABLES))
                .collect();
            w.push_str(rng.pick::<&str>(ENDINGS));
            w
        };
        let word = match rng.below(10) {
            0 => word.to_ascii_uppercase(),
            1 => word,
            _ => capitalize(&word),
        };
        let mut kind = format!("{}{word}", *rng.pick(PREFIXES));
        if rng.below(20) == 0 {
            kind.push(char::from(b'0' + rng.below(10) as u8));
        }
        kinds.insert(kind);
    }
    kinds
}

/// controller-gen's plural of each kind, from one run of the helper.
fn flect(kinds: &[String]) -> Vec<String> {
    let mut input = kinds.join("\n");
    input.push('\n');
    let out = String::from_utf8(run(go().args(["run", "."]), &input)).unwrap();
    let answers: Vec<(&str, &str)> = out
        .lines()
        .map(|l| l.split_once('\t').expect("kind\\tplural"))
        .collect();
    assert_eq!(answers.len(), kinds.len(), "one answer per kind");
    kinds
        .iter()
        .zip(answers)
        .map(|(kind, (echo, plural))| {
            assert_eq!(kind, echo);
            plural.to_owned()
        })
        .collect()
}

/// A `go` command in the helper module: the local toolchain, go.sum
/// completed if needed.
fn go() -> Command {
    let mut go = Command::new("go");
    go.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/flect"))
        .env("GOTOOLCHAIN", "local")
        .env("GOFLAGS", "-mod=mod");
    go
}

/// Runs `command` with `input` on stdin; its stdout, or a panic that says
/// why.
fn run(command: &mut Command, input: &str) -> Vec<u8> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "this test compares the pluralizer with flect through `go`, which could not \
                 be run ({e}): install Go 1.26 and put `go` on PATH"
            )
        });
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        status.success(),
        "{command:?}: {status}\n{}",
        String::from_utf8_lossy(&stderr)
    );
    stdout
}
