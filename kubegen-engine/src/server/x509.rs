//! X.509 v3 certificates written in DER (RFC 5280) and signed with ECDSA
//! P-256 by `ring`: the CA and certificates of [`DevCa`](super::DevCa) and
//! the certificate of
//! [`ServingCert::SelfSigned`](super::ServingCert::SelfSigned).
//!
//! Only what those need is written. Every key is a fresh ECDSA P-256 key
//! (PKCS#8, as rustls and PEM `PRIVATE KEY` take it); every certificate
//! has a random positive 16-byte serial, a subject with one common name,
//! and is signed with ecdsa-with-SHA256. Extensions:
//!
//! * a CA: basicConstraints `CA:TRUE` and keyUsage `keyCertSign`,
//!   `cRLSign`, both critical;
//! * a serving certificate: subjectAltName (a `dNSName`, or an
//!   `iPAddress` for a name that parses as an IPv4 or IPv6 address),
//!   basicConstraints `CA:FALSE` and keyUsage `digitalSignature`
//!   (critical), extKeyUsage `serverAuth`; its common name is its first
//!   name when that fits the 64 characters X.520 allows, else `kubegen`;
//! * a client certificate: as a serving certificate, with extKeyUsage
//!   `clientAuth` and no subjectAltName;
//! * all: subjectKeyIdentifier (the first 20 bytes of the SHA-256 of the
//!   public key, RFC 7093's first method) and authorityKeyIdentifier (the
//!   signer's, equal to the certificate's own when self-signed).
//!
//! Validity starts an hour ago, so a peer whose clock is a little behind
//! accepts the certificate at once, and lasts ten years for a CA (a
//! development CA outlives what it issues) and one year for the others
//! (a self-signed certificate is made afresh at each start; `DevCa`
//! issues again to rotate).
//!
//! Go's `crypto/x509` (the apiserver's), rustls's webpki and openssl read
//! what is written here: see `dev_ca`'s tests and
//! `tests/x509_differential.rs`.

use std::io;
use std::net::IpAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use kubegen_core::go::time::civil_from_days;
use ring::rand::{SecureRandom as _, SystemRandom};
use ring::signature::{ECDSA_P256_SHA256_ASN1_SIGNING, EcdsaKeyPair, KeyPair as _};

const HOUR: i64 = 3600;
const DAY: i64 = 24 * HOUR;

// Object identifiers, as arcs.
const ECDSA_WITH_SHA256: &[u64] = &[1, 2, 840, 10045, 4, 3, 2];
const EC_PUBLIC_KEY: &[u64] = &[1, 2, 840, 10045, 2, 1];
const PRIME256V1: &[u64] = &[1, 2, 840, 10045, 3, 1, 7];
const COMMON_NAME: &[u64] = &[2, 5, 4, 3];
const SUBJECT_KEY_ID: &[u64] = &[2, 5, 29, 14];
const KEY_USAGE: &[u64] = &[2, 5, 29, 15];
const SUBJECT_ALT_NAME: &[u64] = &[2, 5, 29, 17];
const BASIC_CONSTRAINTS: &[u64] = &[2, 5, 29, 19];
const AUTHORITY_KEY_ID: &[u64] = &[2, 5, 29, 35];
const EXT_KEY_USAGE: &[u64] = &[2, 5, 29, 37];
const SERVER_AUTH: &[u64] = &[1, 3, 6, 1, 5, 5, 7, 3, 1];
const CLIENT_AUTH: &[u64] = &[1, 3, 6, 1, 5, 5, 7, 3, 2];

/// What a certificate is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Ca,
    Server,
    Client,
}

/// A certificate with its private key.
pub(crate) struct Certificate {
    der: Vec<u8>,
    /// The subject `Name`, DER: the issuer of what this one signs.
    subject: Vec<u8>,
    key_id: [u8; 20],
    key: EcdsaKeyPair,
    pkcs8: Vec<u8>,
}

impl Certificate {
    /// A self-signed CA named `common_name`.
    pub(crate) fn ca(common_name: &str) -> io::Result<Certificate> {
        make(Role::Ca, common_name, &[], None)
    }

    /// A serving certificate for `names` (DNS names or IP addresses),
    /// signed by `issuer`, or by its own key without one.
    pub(crate) fn server(names: &[&str], issuer: Option<&Certificate>) -> io::Result<Certificate> {
        let common_name = match names.first() {
            Some(first) if (1..=64).contains(&first.chars().count()) => first,
            _ => "kubegen",
        };
        make(Role::Server, common_name, names, issuer)
    }

    /// A client certificate for `common_name`, signed by `issuer`.
    pub(crate) fn client(common_name: &str, issuer: &Certificate) -> io::Result<Certificate> {
        make(Role::Client, common_name, &[], Some(issuer))
    }

    /// The certificate, DER.
    pub(crate) fn der(&self) -> &[u8] {
        &self.der
    }

    /// The private key, PKCS#8 DER.
    pub(crate) fn key_der(&self) -> &[u8] {
        &self.pkcs8
    }

    /// The certificate, PEM.
    pub(crate) fn pem(&self) -> String {
        pem("CERTIFICATE", &self.der)
    }

    /// The private key, PEM.
    pub(crate) fn key_pem(&self) -> String {
        pem("PRIVATE KEY", &self.pkcs8)
    }
}

fn crypto_error(what: &str) -> io::Error {
    io::Error::other(format!("certificate: {what} failed"))
}

fn make(
    role: Role,
    common_name: &str,
    names: &[&str],
    issuer: Option<&Certificate>,
) -> io::Result<Certificate> {
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng)
        .map_err(|_| crypto_error("key generation"))?;
    let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng)
        .map_err(|_| crypto_error("key generation"))?;
    let public = key.public_key().as_ref();
    let key_id = key_id(public);
    let subject = name(common_name);
    let mut serial = [0u8; 16];
    rng.fill(&mut serial)
        .map_err(|_| crypto_error("serial generation"))?;
    // Positive, and never shorter than 16 bytes.
    serial[0] = serial[0] & 0x7f | 0x40;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(io::Error::other)?
        .as_secs();
    let now = i64::try_from(now).map_err(io::Error::other)?;
    let days = if role == Role::Ca { 3650 } else { 365 };
    let (issuer_name, issuer_id, signer) = match issuer {
        Some(ca) => (ca.subject.as_slice(), ca.key_id, &ca.key),
        None => (subject.as_slice(), key_id, &key),
    };
    let extensions = extensions(role, names, &key_id, &issuer_id)?;
    let tbs = seq(&[
        &tlv(0xa0, &uint(&[2])), // version: v3
        &uint(&serial),
        &algorithm(),
        issuer_name,
        &seq(&[&time(now - HOUR), &time(now + days * DAY)]),
        &subject,
        &seq(&[
            &seq(&[&oid(EC_PUBLIC_KEY), &oid(PRIME256V1)]),
            &bit_string(public),
        ]),
        &tlv(0xa3, &seq(&[&extensions])),
    ]);
    let signature = signer
        .sign(&rng, &tbs)
        .map_err(|_| crypto_error("signing"))?;
    Ok(Certificate {
        der: seq(&[&tbs, &algorithm(), &bit_string(signature.as_ref())]),
        subject,
        key_id,
        key,
        pkcs8: pkcs8.as_ref().to_vec(),
    })
}

/// The extensions of a certificate for `role`, concatenated.
fn extensions(role: Role, names: &[&str], key_id: &[u8], issuer_id: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    if !names.is_empty() {
        out.extend(extension(SUBJECT_ALT_NAME, false, &general_names(names)?));
    }
    let (constraints, usage) = match role {
        Role::Ca => (seq(&[&[0x01, 0x01, 0xff]]), named_bits(&[5, 6])),
        Role::Server | Role::Client => (seq(&[]), named_bits(&[0])),
    };
    out.extend(extension(BASIC_CONSTRAINTS, true, &constraints));
    out.extend(extension(KEY_USAGE, true, &usage));
    match role {
        Role::Ca => {}
        Role::Server => out.extend(extension(EXT_KEY_USAGE, false, &seq(&[&oid(SERVER_AUTH)]))),
        Role::Client => out.extend(extension(EXT_KEY_USAGE, false, &seq(&[&oid(CLIENT_AUTH)]))),
    }
    out.extend(extension(SUBJECT_KEY_ID, false, &tlv(0x04, key_id)));
    out.extend(extension(
        AUTHORITY_KEY_ID,
        false,
        &seq(&[&tlv(0x80, issuer_id)]),
    ));
    Ok(out)
}

/// `Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }`.
fn extension(id: &[u64], critical: bool, value: &[u8]) -> Vec<u8> {
    let critical: &[u8] = if critical { &[0x01, 0x01, 0xff] } else { &[] };
    seq(&[&oid(id), critical, &tlv(0x04, value)])
}

/// `GeneralNames`: an `iPAddress` for each name that parses as an IP
/// address, a `dNSName` for the others.
fn general_names(names: &[&str]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    for name in names {
        match name.parse::<IpAddr>() {
            Ok(IpAddr::V4(ip)) => out.extend(tlv(0x87, &ip.octets())),
            Ok(IpAddr::V6(ip)) => out.extend(tlv(0x87, &ip.octets())),
            Err(_) if !name.is_empty() && name.is_ascii() => out.extend(tlv(0x82, name.as_bytes())),
            Err(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "certificate name {name:?} is neither an IP address nor an ASCII DNS name"
                    ),
                ));
            }
        }
    }
    Ok(tlv(0x30, &out))
}

/// A `Name` of one common name.
fn name(common_name: &str) -> Vec<u8> {
    let attribute = seq(&[&oid(COMMON_NAME), &tlv(0x0c, common_name.as_bytes())]);
    seq(&[&tlv(0x31, &attribute)])
}

/// `AlgorithmIdentifier` ecdsa-with-SHA256, parameters absent (RFC 5758).
fn algorithm() -> Vec<u8> {
    seq(&[&oid(ECDSA_WITH_SHA256)])
}

/// RFC 7093's first method: the leftmost 160 bits of the SHA-256 of the
/// subjectPublicKey bits.
fn key_id(public: &[u8]) -> [u8; 20] {
    let digest = ring::digest::digest(&ring::digest::SHA256, public);
    let mut id = [0; 20];
    id.copy_from_slice(&digest.as_ref()[..20]);
    id
}

/// PEM: base64 in 64-character lines between the `label`'s lines.
fn pem(label: &str, der: &[u8]) -> String {
    let text = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    let mut rest = text.as_str();
    while !rest.is_empty() {
        let (line, tail) = rest.split_at(rest.len().min(64));
        out.push_str(line);
        out.push('\n');
        rest = tail;
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

// The DER writer.

/// Tag, definite length (short form below 128, else long form) and
/// `content`.
fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let len = content.len();
    let mut out = vec![tag];
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let significant = &bytes[len.leading_zeros() as usize / 8..];
        out.push(0x80 | significant.len() as u8);
        out.extend_from_slice(significant);
    }
    out.extend_from_slice(content);
    out
}

/// A SEQUENCE of `parts`, each already encoded.
fn seq(parts: &[&[u8]]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

/// The INTEGER whose unsigned big-endian magnitude is `magnitude`: no
/// redundant leading zero byte, one added when the high bit is set (the
/// value would read as negative without it).
fn uint(magnitude: &[u8]) -> Vec<u8> {
    let trimmed = match magnitude.iter().position(|&b| b != 0) {
        Some(first) => &magnitude[first..],
        None => &[0],
    };
    if trimmed[0] & 0x80 == 0 {
        tlv(0x02, trimmed)
    } else {
        tlv(0x02, &[&[0], trimmed].concat())
    }
}

/// An OBJECT IDENTIFIER: the first two arcs as `40 × first + second`,
/// each arc in base 128, big-endian, high bit set on all but its last
/// byte.
fn oid(arcs: &[u64]) -> Vec<u8> {
    let mut body = Vec::new();
    let first = arcs[0] * 40 + arcs[1];
    for &arc in std::iter::once(&first).chain(&arcs[2..]) {
        let mut groups = vec![(arc & 0x7f) as u8];
        let mut rest = arc >> 7;
        while rest > 0 {
            groups.push((rest & 0x7f) as u8 | 0x80);
            rest >>= 7;
        }
        body.extend(groups.iter().rev());
    }
    tlv(0x06, &body)
}

/// A BIT STRING of whole bytes (no unused bits).
fn bit_string(bytes: &[u8]) -> Vec<u8> {
    tlv(0x03, &[&[0], bytes].concat())
}

/// A named-bit BIT STRING (keyUsage) with `bits` (each below 8) set:
/// trailing zero bits dropped, as DER requires.
fn named_bits(bits: &[u8]) -> Vec<u8> {
    let byte = bits.iter().fold(0u8, |byte, bit| byte | 0x80 >> bit);
    tlv(0x03, &[byte.trailing_zeros() as u8, byte])
}

/// `Time`: UTCTime (`YYMMDDHHMMSSZ`) for the years 1950 to 2049,
/// GeneralizedTime (`YYYYMMDDHHMMSSZ`) outside them (RFC 5280
/// §4.1.2.5); `unix` is seconds since 1970, UTC.
fn time(unix: i64) -> Vec<u8> {
    let (year, month, day) = civil_from_days(unix.div_euclid(DAY));
    let second = unix.rem_euclid(DAY);
    let clock = format!(
        "{month:02}{day:02}{:02}{:02}{:02}Z",
        second / HOUR,
        second / 60 % 60,
        second % 60
    );
    if (1950..2050).contains(&year) {
        tlv(0x17, format!("{:02}{clock}", year % 100).as_bytes())
    } else {
        tlv(0x18, format!("{year:04}{clock}").as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header `tlv` writes before `len` bytes of content.
    fn header(len: usize) -> Vec<u8> {
        let encoded = tlv(0x04, &vec![0; len]);
        encoded[..encoded.len() - len].to_vec()
    }

    #[test]
    fn lengths_are_short_below_128_and_long_from_there() {
        assert_eq!(header(0), [0x04, 0x00]);
        assert_eq!(header(127), [0x04, 0x7f]);
        assert_eq!(header(128), [0x04, 0x81, 0x80]);
        assert_eq!(header(255), [0x04, 0x81, 0xff]);
        assert_eq!(header(256), [0x04, 0x82, 0x01, 0x00]);
        assert_eq!(header(65_535), [0x04, 0x82, 0xff, 0xff]);
        assert_eq!(header(65_536), [0x04, 0x83, 0x01, 0x00, 0x00]);
    }

    #[test]
    fn integers_are_minimal_and_positive() {
        assert_eq!(uint(&[]), [0x02, 0x01, 0x00]);
        assert_eq!(uint(&[0, 0]), [0x02, 0x01, 0x00]);
        assert_eq!(uint(&[2]), [0x02, 0x01, 0x02]);
        assert_eq!(uint(&[0x7f]), [0x02, 0x01, 0x7f]);
        // The high bit set: a zero byte keeps the value positive.
        assert_eq!(uint(&[0x80]), [0x02, 0x02, 0x00, 0x80]);
        assert_eq!(uint(&[0xff, 0x01]), [0x02, 0x03, 0x00, 0xff, 0x01]);
        // Redundant leading zeros go, unless the next byte needs one.
        assert_eq!(uint(&[0, 0, 0x01, 0x00]), [0x02, 0x02, 0x01, 0x00]);
        assert_eq!(uint(&[0, 0, 0x80, 0x01]), [0x02, 0x03, 0x00, 0x80, 0x01]);
        let mut twenty = vec![0x02, 0x15, 0x00];
        twenty.extend([0xff; 20]);
        assert_eq!(uint(&[0xff; 20]), twenty);
    }

    #[test]
    fn object_identifiers_match_their_registered_bytes() {
        let cases: [(&[u64], &[u8]); 6] = [
            (
                ECDSA_WITH_SHA256,
                &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02],
            ),
            (
                PRIME256V1,
                &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07],
            ),
            (COMMON_NAME, &[0x06, 0x03, 0x55, 0x04, 0x03]),
            (
                SERVER_AUTH,
                &[0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01],
            ),
            // Microsoft's arc: 311 takes two bytes.
            (
                &[1, 3, 6, 1, 4, 1, 311],
                &[0x06, 0x07, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37],
            ),
            // X.690's example: the first two arcs combine past 127.
            (&[2, 999, 3], &[0x06, 0x03, 0x88, 0x37, 0x03]),
        ];
        for (arcs, bytes) in cases {
            assert_eq!(oid(arcs), bytes, "{arcs:?}");
        }
    }

    #[test]
    fn bit_strings() {
        assert_eq!(bit_string(&[0xab]), [0x03, 0x02, 0x00, 0xab]);
        // keyUsage digitalSignature (bit 0): seven unused bits.
        assert_eq!(named_bits(&[0]), [0x03, 0x02, 0x07, 0x80]);
        // keyCertSign (5) and cRLSign (6): one unused bit.
        assert_eq!(named_bits(&[5, 6]), [0x03, 0x02, 0x01, 0x06]);
    }

    /// The text of an encoded time, and whether it is a UTCTime.
    fn time_text(unix: i64) -> (bool, String) {
        let encoded = time(unix);
        assert_eq!(usize::from(encoded[1]), encoded.len() - 2);
        let text = String::from_utf8(encoded[2..].to_vec()).unwrap();
        match encoded[0] {
            0x17 => (true, text),
            0x18 => (false, text),
            tag => panic!("tag {tag:#x}"),
        }
    }

    #[test]
    fn times_switch_to_generalized_time_in_2050() {
        // Seconds from `date -u -d … +%s`.
        let cases = [
            (0, true, "700101000000Z"),
            (951_827_696, true, "000229123456Z"), // a leap day of a century leap year
            (946_684_799, true, "991231235959Z"),
            (2_466_547_200, true, "480229000000Z"),
            (2_524_607_999, true, "491231235959Z"), // the last second of UTCTime
            (2_524_608_000, false, "20500101000000Z"),
            (4_107_542_399, false, "21000228235959Z"), // 2100 is no leap year
            (4_107_542_400, false, "21000301000000Z"),
            (-631_152_000, true, "500101000000Z"),
            (-631_152_001, false, "19491231235959Z"),
        ];
        for (unix, utc, text) in cases {
            assert_eq!(time_text(unix), (utc, text.to_owned()), "{unix}");
        }
    }

    #[test]
    fn pem_lines_are_64_characters_and_read_back() {
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject;

        let ca = Certificate::ca("pem test").unwrap();
        let text = ca.pem();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "-----BEGIN CERTIFICATE-----");
        assert_eq!(*lines.last().unwrap(), "-----END CERTIFICATE-----");
        let body = &lines[1..lines.len() - 1];
        assert!(body[..body.len() - 1].iter().all(|l| l.len() == 64));
        assert!((1..=64).contains(&body[body.len() - 1].len()));
        let read = CertificateDer::from_pem_slice(text.as_bytes()).unwrap();
        assert_eq!(read.as_ref(), ca.der());
        assert!(ca.key_pem().starts_with("-----BEGIN PRIVATE KEY-----\n"));
    }

    #[test]
    fn serials_are_positive_sixteen_byte_integers() {
        for _ in 0..64 {
            let der = Certificate::ca("serial").unwrap().der;
            // Certificate and TBSCertificate headers (long form, two length
            // bytes each: a certificate is 256 to 65,535 bytes), then the
            // version, then the serial.
            assert_eq!(&der[..2], [0x30, 0x82]);
            assert_eq!(&der[4..6], [0x30, 0x82]);
            assert_eq!(&der[8..13], [0xa0, 0x03, 0x02, 0x01, 0x02]);
            assert_eq!(&der[13..15], [0x02, 0x10], "a 16-byte INTEGER");
            assert_eq!(der[15] & 0xc0, 0x40, "positive, no leading zero");
        }
    }

    #[test]
    fn names_that_are_not_ascii_are_refused() {
        let Err(e) = Certificate::server(&["bücher.example"], None) else {
            panic!("a non-ASCII dNSName was written");
        };
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(Certificate::server(&[""], None).is_err());
    }
}
