//! apimachinery's `resource.Quantity` as the apiserver reads and writes
//! it (`pkg/api/resource/quantity.go`): `ParseQuantity` with its cached
//! text (a quantity written as it was read when its text looks
//! canonical), `RoundUp`, and `MarshalJSON`'s canonical form.
//!
//! Amounts are exact: a magnitude (`u128`) and a decimal exponent; a
//! quantity whose digits do not fit 38 of them is not read (`None`), and
//! the caller keeps its text. The text is read by `crate::go::quantity`.

use crate::go::quantity::{Format, interpret, split};

/// A parsed quantity: `±mag × 10^exp`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Quantity {
    neg: bool,
    mag: u128,
    exp: i32,
    format: Format,
    /// Go's `inf.Dec` amount rather than its `int64Amount`.
    dec: bool,
    /// The text `MarshalJSON` writes as it is.
    cached: Option<String>,
}

/// The suffixes `MarshalJSON` writes, by exponent.
const DECIMAL: [(&str, i32); 10] = [
    ("n", -9),
    ("u", -6),
    ("m", -3),
    ("", 0),
    ("k", 3),
    ("M", 6),
    ("G", 9),
    ("T", 12),
    ("P", 15),
    ("E", 18),
];
const BINARY: [(&str, i32); 6] = [
    ("Ki", 10),
    ("Mi", 20),
    ("Gi", 30),
    ("Ti", 40),
    ("Pi", 50),
    ("Ei", 60),
];

fn pow10(n: u32) -> Option<u128> {
    10u128.checked_pow(n)
}

/// Go's `ParseQuantity` of a text `UnmarshalJSON` trimmed.
pub(super) fn parse(s: &str) -> Option<Quantity> {
    if s.is_empty() {
        return None;
    }
    if s == "0" {
        return Some(Quantity {
            neg: false,
            mag: 0,
            exp: 0,
            format: Format::DecimalSI,
            dec: false,
            cached: Some(s.to_string()),
        });
    }
    let p = split(s)?;
    let (base, exponent, format) = interpret(p.suffix)?;
    let digits = (p.num.len() + p.denom.len()) as i32;
    let (mut scale, precision, mantissa) = match format {
        Format::DecimalExponent | Format::DecimalSI => (exponent, 18 - digits, 1i64),
        Format::BinarySI if exponent >= 0 && p.denom.is_empty() => (
            0,
            15 - p.num.len() as i32 - exponent * 3 / 10 - 1,
            1i64 << exponent.min(62),
        ),
        Format::BinarySI => (0, -1, 1),
    };
    if precision >= 0 {
        scale -= p.denom.len() as i32;
        if scale >= -9 {
            let shifted = format!("{}{}", p.num, p.denom);
            let value: i64 = shifted.parse().ok()?;
            if let Some(result) = value.checked_mul(mantissa) {
                let keep = match format {
                    Format::BinarySI => exponent % 10 == 0 && value & 7 != 0,
                    _ => scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0'),
                };
                return Some(Quantity {
                    neg: !p.positive && result != 0,
                    mag: u128::from(result.unsigned_abs()),
                    exp: scale,
                    format,
                    dec: false,
                    cached: keep.then(|| s.to_string()),
                });
            }
        }
    }
    // inf.Dec's SetString of the numeric text.
    let text = p.value.trim_start_matches(['+', '-']);
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut mag: u128 = 0;
    for c in int.bytes().chain(frac.bytes()) {
        mag = mag.checked_mul(10)?.checked_add(u128::from(c - b'0'))?;
    }
    let mut exp = -(frac.len() as i32);
    if base == 10 {
        exp = exp.checked_add(exponent)?;
    } else {
        mag = mag.checked_mul(1u128.checked_shl(exponent as u32)?)?;
    }
    let mut q = Quantity {
        neg: !p.positive && mag != 0,
        mag,
        exp,
        format,
        dec: true,
        cached: None,
    };
    if q.mag != 0 {
        q.rescale_up(-9)?;
    }
    if format == Format::BinarySI {
        let max = u128::from(i64::MAX as u64);
        if q.cmp_int(max) == std::cmp::Ordering::Greater {
            q.mag = max;
            q.exp = 0;
        }
        if q.mag != 0 && q.cmp_int(1) == std::cmp::Ordering::Less {
            q.format = Format::DecimalSI;
        }
    }
    Some(q)
}

impl Quantity {
    /// `inf.Dec.Round(…, scale, RoundUp)` with `scale = -exp`: away from
    /// zero, the exponent set to `exp` exactly.
    fn rescale_up(&mut self, exp: i32) -> Option<()> {
        if self.exp < exp {
            let d = pow10((exp - self.exp) as u32)?;
            self.mag = self.mag / d + u128::from(!self.mag.is_multiple_of(d));
        } else {
            self.mag = self.mag.checked_mul(pow10((self.exp - exp) as u32)?)?;
        }
        self.exp = exp;
        Some(())
    }

    /// The magnitude against a whole number.
    fn cmp_int(&self, n: u128) -> std::cmp::Ordering {
        if self.exp >= 0 {
            match pow10(self.exp as u32).and_then(|p| self.mag.checked_mul(p)) {
                Some(v) => v.cmp(&n),
                None => std::cmp::Ordering::Greater,
            }
        } else {
            match pow10((-self.exp) as u32) {
                Some(p) => {
                    let whole = self.mag / p;
                    whole.cmp(&n).then(if !self.mag.is_multiple_of(p) {
                        std::cmp::Ordering::Greater
                    } else {
                        std::cmp::Ordering::Equal
                    })
                }
                None => 0.cmp(&n).then(std::cmp::Ordering::Greater),
            }
        }
    }

    /// `RoundUp(scale)` with `scale = exp` (`-3` for milli): the cached
    /// text dropped where the amount changes form.
    pub(super) fn round_up(&mut self, exp: i32) -> Option<()> {
        if self.dec {
            self.cached = None;
            return self.rescale_up(exp);
        }
        if self.exp >= exp {
            return Some(());
        }
        self.cached = None;
        self.rescale_up(exp)
    }

    /// What `MarshalJSON` writes (without the quotes).
    pub(super) fn marshal(&self) -> Option<String> {
        if let Some(s) = &self.cached {
            return Some(s.clone());
        }
        if self.mag == 0 {
            return Some("0".to_string());
        }
        let sign = if self.neg { "-" } else { "" };
        let mut format = self.format;
        if format == Format::BinarySI {
            let small = self.cmp_int(1024) == std::cmp::Ordering::Less;
            let exact = self.exp >= 0
                || pow10((-self.exp) as u32).is_some_and(|p| self.mag.is_multiple_of(p));
            if small || !exact {
                format = Format::DecimalSI;
            } else {
                let mut n = if self.exp >= 0 {
                    self.mag.checked_mul(pow10(self.exp as u32)?)?
                } else {
                    self.mag / pow10((-self.exp) as u32)?
                };
                let mut e = 0;
                while n % 1024 == 0 {
                    n /= 1024;
                    e += 10;
                }
                let suffix = BINARY.iter().find(|(_, x)| *x == e).map_or("", |(s, _)| *s);
                return Some(format!("{sign}{n}{suffix}"));
            }
        }
        let (mut m, mut e) = (self.mag, self.exp);
        while m % 10 == 0 {
            m /= 10;
            e += 1;
        }
        match e % 3 {
            1 | -2 => {
                m = m.checked_mul(10)?;
                e -= 1;
            }
            2 | -1 => {
                m = m.checked_mul(100)?;
                e -= 2;
            }
            _ => {}
        }
        let suffix = match format {
            Format::DecimalExponent if e == 0 => String::new(),
            Format::DecimalExponent => format!("e{e}"),
            _ => DECIMAL
                .iter()
                .find(|(_, x)| *x == e)
                .map_or("", |(s, _)| *s)
                .to_string(),
        };
        Some(format!("{sign}{m}{suffix}"))
    }
}
