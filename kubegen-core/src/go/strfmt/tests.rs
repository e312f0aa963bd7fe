//! The unit tests of [`super`] (formats.rs).

use super::*;

fn check(format: &str, good: &[&str], bad: &[&str]) {
    for s in good {
        assert!(validates(format, s), "{format}: {s:?} should be valid");
    }
    for s in bad {
        assert!(!validates(format, s), "{format}: {s:?} should be invalid");
    }
}

#[test]
fn names_normalize_and_unknown_formats_are_dropped() {
    assert!(
        is_supported("date-time") && is_supported("datetime") && is_supported("k8s-short-name")
    );
    assert!(is_supported("u-u-i-d") && is_known("byte"));
    for f in [
        "int32", "int64", "float", "double", "uint32", "binary", "foo", "",
    ] {
        assert!(!is_supported(f) && !is_known(f), "{f}");
    }
    assert!(!validates("int32", "1"));
}

#[test]
fn date() {
    check(
        "date",
        &[
            "2024-01-31",
            "2024-02-29",
            "2000-02-29",
            "0000-02-29",
            "9999-12-31",
        ],
        &[
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "2024-1-01",
            "24-01-01",
            "2024-01-01 ",
            "2024/01/01",
            "",
        ],
    );
}

#[test]
fn date_time() {
    check(
        "date-time",
        &[
            "2024-01-31T10:20:30Z",
            "2024-01-31t10:20:30z",
            "2024-01-31T23:59:59.123456+01:00",
            "2024-01-31T10:20:30x5Z",
            "2024-01-31T10:20:30-05:00",
            "2024-01-31T10:20:30ZTjunk",
            "2024-01-31T10:20:30\u{130}5Z",
        ],
        &[
            "2024-01-31T24:00:00Z",
            "2024-01-31T10:60:00Z",
            "2024-01-31T10:20:30",
            "2024-01-31 10:20:30Z",
            "2024-02-30T10:20:30Z",
            "2024-01-31T10:20:30.Z",
            "abc",
            "",
        ],
    );
}

#[test]
fn duration() {
    check(
        "duration",
        &[
            "1h",
            "1h30m",
            "-1.5s",
            "+2us",
            "3µs",
            "0",
            "300ms",
            "1.5h",
            ".5s",
            "5 days",
            "3weeks",
            "2 hours and 5 minutes",
            "10 nanoseconds",
            "7 Sec",
            "x1dayy",
        ],
        &[
            "x1dy",
            "",
            "h",
            "1",
            "1.s2",
            "5 x",
            "abc",
            "-",
            "99999999999999999999 s",
            "9223372036854775808ns",
        ],
    );
}

#[test]
fn byte_and_colors_and_ssn() {
    check(
        "byte",
        &["aGVsbG8=", "aGVsbG8h", "aGk=", "+/+/"],
        &["", "aGVsbG8", "aGk", "a===", "aGVs bG8="],
    );
    check(
        "hexcolor",
        &["#fff", "CCccCC", "f00"],
        &["", "#ff", "fff0", "#ff12FG"],
    );
    check(
        "rgbcolor",
        &["rgb(0,31,255)", "rgb(0,  31, 255)", "rgb( 1 ,2,3 )"],
        &["", "rgb(1,349,275)", "rgb(01,31,255)", "rgba(0,31,255)"],
    );
    check(
        "ssn",
        &["191 60 2869", "191-60-2869", "191-60 2869"],
        &["", "191-602869", "00-90-8787", "66690-76", "191602869"],
    );
    check("password", &["", "anything"], &[]);
}

#[test]
fn isbn_and_credit_card() {
    check(
        "isbn10",
        &["3836221195", "1-61729-085-8", "3 401 01319 X"],
        &["", "foo", "3423214121", "3836221195x"],
    );
    check(
        "isbn13",
        &["9784873113685", "978-4-87311-368-5", "978 3401013190"],
        &["", "3-8362-2119-5", "978 3 8362 2119 0"],
    );
    check("isbn", &["3836221195", "9784873113685"], &["3423214121"]);
    check(
        "creditcard",
        &[
            "4220855426222389",
            "4220 8554 2622 2389",
            "4220-8554-2622-2389",
            "5139288802098206",
            "374953669708156",
            "6011464355444102",
            "3548209662790989",
        ],
        &[
            "",
            "credit card",
            "4220855426213389",
            "30190239451016",
            "6521674451993089",
        ],
    );
}

#[test]
fn uuids_bson_and_names() {
    check(
        "uuid",
        &[
            "123e4567-e89b-12d3-a456-426614174000",
            "123E4567E89B12D3A456426614174000",
        ],
        &[
            "123e4567-e89b-12d3-a456-42661417400",
            "g23e4567-e89b-12d3-a456-426614174000",
        ],
    );
    check(
        "uuid3",
        &["123e4567-e89b-32d3-a456-426614174000"],
        &["123e4567-e89b-12d3-a456-426614174000"],
    );
    check(
        "uuid4",
        &["123e4567-e89b-42d3-a456-426614174000"],
        &["123e4567-e89b-42d3-c456-426614174000"],
    );
    check(
        "uuid5",
        &["123e4567-e89b-52d3-b456-426614174000"],
        &["123e4567-e89b-42d3-b456-426614174000"],
    );
    check(
        "bsonobjectid",
        &["507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011"],
        &["507f1f77bcf86cd79943901", "507f1f77bcf86cd79943901g"],
    );
    let long63 = "a".repeat(63);
    check(
        "k8s-short-name",
        &["a", "a-b", "0a", long63.as_str()],
        &["", "-a", "a-", "A", "a.b", &"a".repeat(64)],
    );
    check(
        "k8s-long-name",
        &["a.b", "a-b.c", "a"],
        &[
            "",
            "a..b",
            ".a",
            "a.",
            "A.b",
            &format!("{}.{}", "a".repeat(200), "b".repeat(60)),
        ],
    );
}

#[test]
fn hostname() {
    check(
        "hostname",
        &[
            "example.com",
            "a",
            "a-",
            "localhost",
            "xn--bcher-kva.example",
            "日本.jp",
            "a.b.c.de",
            "1a.com",
            "☃.net",
        ],
        &[
            "",
            "-a",
            "a_b.com",
            "example.c",
            "example.com.",
            "a..com",
            "has space.com",
            &format!("{}.com", "a".repeat(64)),
        ],
    );
}

#[test]
fn ip_addresses() {
    check(
        "ipv4",
        &[
            "1.2.3.4",
            "01.02.03.004",
            "255.255.255.255",
            "::ffff:1.2.3.4",
        ],
        &["", "1.2.3", "256.1.1.1", "1.2.3.4.5", "::1", "1.2.3.4 "],
    );
    check(
        "ipv6",
        &[
            "::1",
            "::",
            "2001:db8:0000:1:1:1:1:1",
            "::ffff:1.2.3.4",
            "1:2:3:4:5:6:1.2.3.4",
        ],
        &[
            "",
            "127.0.0.1",
            "1:2",
            "::1%eth0",
            "::ffff:01.2.3.4",
            "1::2::3",
            "12345::",
            "1:2:3:4:5:6:7:8:9",
            "1:2:3:4:5:6:7::8",
        ],
    );
    check(
        "cidr",
        &[
            "10.0.0.0/8",
            "010.0.0.0/08",
            "::/0",
            "2001:db8::/32",
            "1.2.3.4/32",
            "::ffff:1.2.3.4/128",
        ],
        &[
            "",
            "10.0.0.0",
            "10.0.0.0/33",
            "::/129",
            "10.0.0.0/-1",
            "10.0.0.0/8x",
            "a/8",
        ],
    );
    check(
        "mac",
        &[
            "3D:F2:C9:A6:B3:4F",
            "3d-f2-c9-a6-b3-4f",
            "3df2.c9a6.b34f",
            "3df2c9a6b34f",
            "00:00:5e:00:53:01:02:03",
        ],
        &[
            "",
            "3D-F2-C9-A6-B3:4F",
            "123",
            "abacaba",
            "3D:F2:C9:A6:B3:4",
            "3df2c9a6b34",
        ],
    );
}

#[test]
fn uri() {
    check(
        "uri",
        &[
            "http://foo.bar/#com",
            "http://foobar.com",
            "http://foobar.中文网/",
            "http://foobar.org:8080/",
            "http://user:pass@www.foobar.com/",
            "http://duckduckgo.com/?q=%2F",
            "xyz://foobar.com",
            "http://www.foo_bar.com/",
            "mailto:someone@example.com",
            "/abs/test/dir",
            "*",
            "http://[::1]:80/",
            "http://[fe80::1%25eth0]/",
            "foo://a:1:2/",
            "http://foobar.com/t$-_.+!*\\'(),",
        ],
        &[
            "",
            "foobar.com",
            "invalid.",
            ".com",
            "./rel/test/dir",
            "http://a b.com/",
            "http://a:b/",
            "http://a:1:2/",
            "http://[1.2.3.4]/",
            "http://x[::1]/",
            "http://a/%zz",
            ":foo",
            "http://a\u{7f}/",
            "http://us er@a/",
            "http://a%41/",
        ],
    );
}

#[test]
fn email() {
    check(
        "email",
        &[
            "a@b",
            "john.doe@example.com",
            "John Doe <john@example.com>",
            "\"quoted name\" <q@example.com>",
            "\"a b\"@example.com",
            "a@[1.2.3.4]",
            "a@b (comment)",
            "group: a@b;",
            "=?utf-8?q?J=C3=B6rg?= <j@example.com>",
            "x =?koi8-r?b?AAAA?= <k@example.com>",
            " a@b ",
        ],
        &[
            "",
            "plain",
            "a@",
            "@b",
            "a..b@c",
            ".a@b",
            "a.@b",
            "a@b c",
            "a@[1.2.3]",
            "<a@b",
            "group: ;",
            "group: a@b, c@d;",
            "a@b, c@d",
            "=?koi8-r?b?AAAA?= <k@example.com>",
            "\"\"@example.com",
            "a@b (unclosed",
        ],
    );
}
