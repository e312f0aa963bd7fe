//! The one pluralizer for resource names: a kind's default plural is the one
//! controller-gen gives it, `strings.ToLower(flect.Pluralize(kind))`
//! (controller-tools v0.23.0, `pkg/crd/spec.go`; lower-casing the kind
//! first would differ: `MyDNS` → `mydnses`, not `mydns`), with the rules of
//! github.com/gobuffalo/flect v1.0.3 (`pluralize.go`, `plural_rules.go`,
//! `ident.go`, `acronyms.go`) restated here:
//!
//! 1. flect splits the kind into words and inflects only the last: a word
//!    starts at a capital after a non-capital, or after a run of capitals
//!    that is an acronym (`HTTPRoute` → `HTTP` `Route`); a word (or the whole
//!    kind) that is an acronym is written in capitals (`dns` → `DNS`).
//! 2. A kind or last word in the dictionary maps to its plural (`Person` →
//!    `people`); one that is already a plural there is kept (`People`).
//! 3. Otherwise the first suffix rule that matches the last word, case
//!    sensitively, decides: dictionary words, latest first, then the suffix
//!    list in order; each rule keeps a word already ending in its plural.
//!    Only the rule `S` → `Ses` matches capitals: `DNS` → `dnses`, `SSH` →
//!    `sshs`, and a lower-case acronym ends up doubled (`dns` →
//!    `dnsdnses`), all as controller-gen writes them.
//! 4. Otherwise a word ending in `s` is kept (`Shapes`, `Endpoints`) and any
//!    other gets an `s`.
//!
//! There is no deliberate difference (Kubernetes' `Endpoints` needs no
//! exception: it ends in `s`), and the differential test
//! (`tests/plural_flect.rs`) compares every kind it tries against flect
//! itself. The domain is the one kubegen accepts, kinds of ASCII letters and
//! digits; flect's splitting at spaces, `_`, `-`, `:` and `/` is not modelled.

/// flect's dictionary, in its order: singular, plural, another plural
/// taken as already plural ("" if none), and how the entry is used.
const DICTIONARY: &[(&str, &str, &str, Use)] = &[
    ("aircraft", "aircraft", "", Both),
    ("beef", "beef", "beefs", Both),
    ("bison", "bison", "", Both),
    ("blues", "blues", "", OneWay),
    ("chassis", "chassis", "", Both),
    ("deer", "deer", "", Both),
    ("fish", "fish", "fishes", Both),
    ("moose", "moose", "", Both),
    ("police", "police", "", Both),
    ("salmon", "salmon", "salmons", Both),
    ("series", "series", "", Both),
    ("sheep", "sheep", "", Both),
    ("shrimp", "shrimp", "shrimps", Both),
    ("species", "species", "", Both),
    ("swine", "swine", "swines", Both),
    ("trout", "trout", "trouts", Both),
    ("tuna", "tuna", "tunas", Both),
    ("you", "you", "", Both),
    ("child", "children", "", Both),
    ("ox", "oxen", "", Exact),
    ("foot", "feet", "", Both),
    ("goose", "geese", "", Both),
    ("man", "men", "", Both),
    ("human", "humans", "", Both),
    ("louse", "lice", "", Exact),
    ("mouse", "mice", "", Both),
    ("tooth", "teeth", "", Both),
    ("woman", "women", "", Both),
    ("die", "dice", "", Exact),
    ("person", "people", "", Both),
    ("adieu", "adieux", "adieus", Both),
    ("fabliau", "fabliaux", "", Both),
    ("bureau", "bureaus", "bureaux", Both),
    ("criterion", "criteria", "", Both),
    ("ganglion", "ganglia", "ganglions", Both),
    ("lexicon", "lexica", "lexicons", Both),
    ("mitochondrion", "mitochondria", "mitochondrions", Both),
    ("noumenon", "noumena", "", Both),
    ("phenomenon", "phenomena", "", Both),
    ("taxon", "taxa", "", Both),
    ("media", "media", "", Both),
    ("medium", "media", "mediums", OneWay),
    ("stadium", "stadiums", "stadia", Both),
    ("aquarium", "aquaria", "aquariums", Both),
    ("auditorium", "auditoria", "auditoriums", Both),
    ("symposium", "symposia", "symposiums", Both),
    ("curriculum", "curriculums", "curricula", Both),
    ("quota", "quotas", "", Both),
    ("alumnus", "alumni", "alumnuses", Both),
    ("bacillus", "bacilli", "", Both),
    ("cactus", "cacti", "cactuses", Both),
    ("coccus", "cocci", "", Both),
    ("focus", "foci", "focuses", Both),
    ("locus", "loci", "locuses", Both),
    ("nucleus", "nuclei", "nucleuses", Both),
    ("octopus", "octupuses", "octopi", Both),
    ("radius", "radii", "radiuses", Both),
    ("syllabus", "syllabi", "", Both),
    ("corpus", "corpora", "corpuses", Both),
    ("genus", "genera", "", Both),
    ("alumna", "alumnae", "", Both),
    ("vertebra", "vertebrae", "", Both),
    ("differentia", "differentiae", "", Both),
    ("minutia", "minutiae", "", Both),
    ("vita", "vitae", "", Both),
    ("larva", "larvae", "", Both),
    ("postcava", "postcavae", "", Both),
    ("praecava", "praecavae", "", Both),
    ("uva", "uvae", "", Both),
    ("apex", "apices", "apexes", Both),
    ("codex", "codices", "codexes", Both),
    ("index", "indices", "indexes", Both),
    ("latex", "latices", "latexes", Both),
    ("vertex", "vertices", "vertexes", Both),
    ("vortex", "vortices", "vortexes", Both),
    ("appendix", "appendices", "appendixes", Both),
    ("radix", "radices", "radixes", Both),
    ("helix", "helices", "helixes", Both),
    ("axis", "axes", "", Exact),
    ("crisis", "crises", "", Both),
    ("ellipsis", "ellipses", "", OneWay),
    ("genesis", "geneses", "", Both),
    ("oasis", "oases", "", Both),
    ("thesis", "theses", "", Both),
    ("testis", "testes", "", Both),
    ("base", "bases", "", Both),
    ("basis", "bases", "", OneWay),
    ("alias", "aliases", "", Exact),
    ("vedalia", "vedalias", "", Both),
    ("use", "uses", "", Exact),
    ("abuse", "abuses", "", Both),
    ("cause", "causes", "", Both),
    ("clause", "clauses", "", Both),
    ("cruse", "cruses", "", Both),
    ("excuse", "excuses", "", Both),
    ("fuse", "fuses", "", Both),
    ("house", "houses", "", Both),
    ("misuse", "misuses", "", Both),
    ("muse", "muses", "", Both),
    ("pause", "pauses", "", Both),
    ("ache", "aches", "", Both),
    ("topaz", "topazes", "", Both),
    ("buffalo", "buffaloes", "buffalos", Both),
    ("potato", "potatoes", "", Both),
    ("tomato", "tomatoes", "", Both),
    ("equipment", "equipment", "", Both),
    ("information", "information", "", Both),
    ("jeans", "jeans", "", Both),
    ("money", "money", "", Both),
    ("news", "news", "", Both),
    ("rice", "rice", "", Both),
    ("dwarf", "dwarfs", "dwarves", Both),
    ("hoof", "hoofs", "hooves", Both),
    ("thief", "thieves", "", Both),
    ("chive", "chives", "", Both),
    ("hive", "hives", "", Both),
    ("move", "moves", "", Both),
    ("movie", "movies", "", Both),
    ("cookie", "cookies", "", Both),
    ("pretorium", "pretoriums", "", Both),
    ("agenda", "agendas", "", Both),
    ("formula", "formulas", "formulae", Both),
    ("shoe", "shoes", "", Both),
    ("toe", "toes", "", Exact),
    ("graffiti", "graffiti", "", Both),
    ("ID", "IDs", "", Exact),
];

/// How flect uses a dictionary entry.
#[derive(Clone, Copy, PartialEq)]
enum Use {
    /// Both ways, and as a suffix rule (`Salesperson` → `salespeople`).
    Both,
    /// Singular to plural only (the plural is not recognized as one), and as
    /// a suffix rule.
    OneWay,
    /// Both ways, for the whole word only (`Box` is not `Boxen`).
    Exact,
}
use Use::{Both, Exact, OneWay};

/// flect's suffix rules after the dictionary's, in order: singular suffix,
/// plural suffix (sic: `dula` → `bulae`, as flect has it).
const SUFFIXES: &[(&str, &str)] = &[
    ("tive", "tives"),
    ("eaf", "eaves"),
    ("oaf", "oaves"),
    ("afe", "aves"),
    ("arf", "arves"),
    ("rfe", "rves"),
    ("rf", "rves"),
    ("lf", "lves"),
    ("fe", "ves"),
    ("ay", "ays"),
    ("ey", "eys"),
    ("oy", "oys"),
    ("quy", "quies"),
    ("uy", "uys"),
    ("y", "ies"),
    ("eau", "eaux"),
    ("bula", "bulae"),
    ("dula", "bulae"),
    ("lula", "bulae"),
    ("nula", "bulae"),
    ("vula", "bulae"),
    ("hedron", "hedra"),
    ("ium", "ia"),
    ("seum", "seums"),
    ("eum", "ea"),
    ("oum", "oa"),
    ("stracum", "straca"),
    ("dum", "da"),
    ("elum", "ela"),
    ("ilum", "ila"),
    ("olum", "ola"),
    ("ulum", "ula"),
    ("llum", "lla"),
    ("ylum", "yla"),
    ("imum", "ima"),
    ("ernum", "erna"),
    ("gnum", "gna"),
    ("brum", "bra"),
    ("crum", "cra"),
    ("terum", "tera"),
    ("serum", "sera"),
    ("trum", "tra"),
    ("antum", "anta"),
    ("atum", "ata"),
    ("entum", "enta"),
    ("etum", "eta"),
    ("itum", "ita"),
    ("otum", "ota"),
    ("utum", "uta"),
    ("ctum", "cta"),
    ("ovum", "ova"),
    ("trix", "trices"),
    ("iasis", "iases"),
    ("mesis", "meses"),
    ("kinesis", "kineses"),
    ("resis", "reses"),
    ("gnosis", "gnoses"),
    ("opsis", "opses"),
    ("ysis", "yses"),
    ("ouse", "ouses"),
    ("lause", "lauses"),
    ("us", "uses"),
    ("ch", "ches"),
    ("io", "ios"),
    ("sh", "shes"),
    ("ss", "sses"),
    ("ez", "ezzes"),
    ("iz", "izzes"),
    ("tz", "tzes"),
    ("zz", "zzes"),
    ("ano", "anos"),
    ("lo", "los"),
    ("to", "tos"),
    ("oo", "oos"),
    ("o", "oes"),
    ("x", "xes"),
    ("S", "Ses"),
];

/// flect's acronyms that an upper-cased word can equal (it also lists
/// `gbps`, `kbps`, `Mbps`, `MoCA` and `WiFi`, which no upper-cased word is).
const ACRONYMS: &[&str] = &[
    "OK", "UTF8", "HTML", "JSON", "JWT", "ID", "UUID", "SQL", "ACK", "ACL", "ADSL", "AES", "ANSI",
    "API", "ARP", "ATM", "BGP", "BSS", "CCITT", "CHAP", "CIDR", "CIR", "CLI", "CPE", "CPU", "CRC",
    "CRT", "CSMA", "CMOS", "DCE", "DEC", "DES", "DHCP", "DNS", "DRAM", "DSL", "DSLAM", "DTE",
    "DMI", "EHA", "EIA", "EIGRP", "EOF", "ESS", "FCC", "FCS", "FDDI", "FTP", "GBIC", "GEPOF",
    "HDLC", "HTTP", "HTTPS", "IANA", "ICMP", "IDF", "IDS", "IEEE", "IETF", "IMAP", "IP", "IPS",
    "ISDN", "ISP", "LACP", "LAN", "LAPB", "LAPF", "LLC", "MAC", "MC", "MDF", "MIB", "MPLS", "MTU",
    "NAC", "NAT", "NBMA", "NIC", "NRZ", "NRZI", "NVRAM", "OSI", "OSPF", "OUI", "PAP", "PAT", "PC",
    "PIM", "PCM", "PDU", "POP3", "POTS", "PPP", "PPTP", "PTT", "PVST", "RAM", "RARP", "RFC", "RIP",
    "RLL", "ROM", "RSTP", "RTP", "RCP", "SDLC", "SFD", "SFP", "SLARP", "SLIP", "SMTP", "SNA",
    "SNAP", "SNMP", "SOF", "SRAM", "SSH", "SSID", "STP", "SYN", "TDM", "TFTP", "TIA", "TOFU",
    "UDP", "URL", "URI", "USB", "UTP", "VC", "VLAN", "VLSM", "VPN", "W3C", "WAN", "WEP", "WPA",
    "WWW",
];

/// The lower-case plural controller-gen gives `kind` (`NetworkPolicy` →
/// `networkpolicies`, `Shapes` → `shapes`, `Person` → `people`).
pub fn pluralize(kind: &str) -> String {
    let last = last_word(kind);
    if last.is_empty() {
        return String::new();
    }
    plural_of(kind, &last).to_ascii_lowercase()
}

/// flect's `Pluralize` of `kind`, whose last word is `last`, before
/// controller-gen lower-cases it.
fn plural_of(kind: &str, last: &str) -> String {
    if let Some(plural) = to_plural(kind) {
        return plural.to_owned();
    }
    let lower = last.to_ascii_lowercase();
    if is_plural(kind) || is_plural(&lower) {
        return kind.to_owned();
    }
    if let Some(plural) = to_plural(&lower) {
        return replace_last(kind, last, plural);
    }
    let rules = DICTIONARY
        .iter()
        .rev()
        .filter(|&&(_, _, _, how)| how != Exact)
        .map(|&(singular, plural, _, _)| (singular, plural))
        .chain(SUFFIXES.iter().copied());
    for (singular, plural) in rules {
        if last.ends_with(plural) {
            return kind.to_owned();
        }
        if let Some(stem) = last.strip_suffix(singular) {
            return replace_last(kind, last, &format!("{stem}{plural}"));
        }
    }
    if lower.ends_with('s') {
        kind.to_owned()
    } else {
        format!("{kind}s")
    }
}

/// The dictionary's plural of `word`.
fn to_plural(word: &str) -> Option<&'static str> {
    DICTIONARY
        .iter()
        .find(|(singular, ..)| *singular == word)
        .map(|&(_, plural, _, _)| plural)
}

/// Whether the dictionary knows `word` as a plural.
fn is_plural(word: &str) -> bool {
    DICTIONARY.iter().any(|&(_, plural, alternative, how)| {
        how != OneWay && (plural == word || alternative == word)
    })
}

/// flect's `ReplaceSuffix`: `kind` without `last` (if it ends so; an
/// upper-cased acronym does not) followed by `new`.
fn replace_last(kind: &str, last: &str, new: &str) -> String {
    format!("{}{new}", kind.strip_suffix(last).unwrap_or(kind))
}

/// The last word of `kind` as flect splits it, an acronym in capitals.
fn last_word(kind: &str) -> String {
    if is_acronym(kind) {
        return kind.to_ascii_uppercase();
    }
    let bytes = kind.as_bytes();
    let mut start = 0;
    for i in 1..bytes.len() {
        // Only ever at an ASCII byte, so `start` is a char boundary.
        if bytes[i].is_ascii_uppercase()
            && (!bytes[i - 1].is_ascii_uppercase() || is_acronym(&kind[start..i]))
        {
            start = i;
        }
    }
    let last = &kind[start..];
    if is_acronym(last) {
        last.to_ascii_uppercase()
    } else {
        last.to_owned()
    }
}

fn is_acronym(word: &str) -> bool {
    ACRONYMS.iter().any(|a| a.eq_ignore_ascii_case(word))
}

#[cfg(test)]
mod tests {
    use super::pluralize;

    #[test]
    fn table() {
        let cases = [
            ("Policy", "policies"),
            ("NetworkPolicy", "networkpolicies"),
            ("Ingress", "ingresses"),
            ("Endpoints", "endpoints"),
            ("Status", "statuses"),
            ("Proxy", "proxies"),
            ("Gateway", "gateways"),
            ("MyApplication", "myapplications"),
            ("Box", "boxes"),
            ("Mesh", "meshes"),
            ("Patch", "patches"),
            ("Key", "keys"),
            ("Pod", "pods"),
            ("Data", "data"),
            ("Metadata", "metadata"),
            ("News", "news"),
            // flect's rules, where the old pluralizer's differed (it gave
            // `shapeses`, `persons`, `indexes`, `videos`, ...).
            ("Shapes", "shapes"),
            ("Person", "people"),
            ("SalesPerson", "salespeople"),
            ("Index", "indices"),
            ("Knife", "knives"),
            ("Shelf", "shelves"),
            ("Potato", "potatoes"),
            ("Video", "videoes"),
            ("Radio", "radios"),
            ("Analysis", "analyses"),
            ("Quiz", "quizzes"),
            ("Fez", "fezzes"),
            ("Axis", "axes"),
            ("HTTPRoute", "httproutes"),
            ("APIService", "apiservices"),
            ("ServiceCIDR", "servicecidrs"),
            ("DNS", "dnses"),
            ("MyDNS", "mydnses"),
            ("SSH", "sshs"),
            ("dns", "dnsdnses"),
            ("", ""),
        ];
        for (kind, want) in cases {
            assert_eq!(pluralize(kind), want, "{kind}");
        }
    }
}
