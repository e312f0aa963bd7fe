//! Kubernetes' quantity library (k8s.io/apiserver
//! `pkg/cel/library/quantity.go`) over a port of apimachinery's
//! `resource.Quantity` (`pkg/api/resource`): `quantity()` as
//! `ParseQuantity` reads a text (an `int64Amount` of a value and a
//! decimal scale where it fits, else an `inf.Dec` rounded up to
//! nanounits, binary amounts beyond `int64` clamped), `isQuantity`,
//! `sign`, `isInteger`, `asInteger`, `asApproximateFloat`, `add`, `sub`,
//! `isGreaterThan`, `isLessThan`, `compareTo` and `==`, with Go's
//! aliasing kept: a comparison with a decimal amount turns the receiver
//! into one in place (so `isInteger` is false after it), and `add`/`sub`
//! of a decimal amount write into the decimal the receiver shares with
//! its copy. `add` and `sub` give a `*Quantity`, which cannot be the
//! right operand of `==` (cel-go: `no such overload`).
//!
//! Decimal amounts whose digits would run past [`MAX_DIGITS`] (exponents
//! in the thousands, where Go computes with huge integers) are
//! unsupported.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::rc::Rc;

use super::opaque::{Dec, Quantity, Shared};
use super::value::Val;
use super::{EvalError, Res};
use crate::go::quantity::{Format, Parts, interpret, split};

/// The most decimal digits kubegen computes with; beyond them a quantity
/// is unsupported.
pub const MAX_DIGITS: usize = 4096;

/// `quantities must match the regular expression …` (`ErrFormatWrong`).
const FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/// `ErrNumeric`.
const NUMERIC: &str = "unable to parse numeric part of quantity";
/// `ErrSuffix`.
const SUFFIX: &str = "unable to parse quantity's suffix";

fn too_big() -> EvalError {
    EvalError::unsupported("a quantity with thousands of digits")
}

fn trim(mut mag: Vec<u8>) -> Vec<u8> {
    let zeros = mag.iter().take_while(|d| **d == 0).count();
    mag.drain(..zeros);
    mag
}

fn mag_cmp(a: &[u8], b: &[u8]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn mag_add(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let (mut i, mut j, mut carry) = (a.len(), b.len(), 0u8);
    while i > 0 || j > 0 || carry > 0 {
        let mut s = carry;
        if i > 0 {
            i -= 1;
            s += a[i];
        }
        if j > 0 {
            j -= 1;
            s += b[j];
        }
        out.push(s % 10);
        carry = s / 10;
    }
    out.reverse();
    trim(out)
}

/// `a - b` for `a >= b`.
fn mag_sub(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let (mut j, mut borrow) = (b.len(), 0i8);
    for i in (0..a.len()).rev() {
        let mut d = a[i] as i8 - borrow;
        if j > 0 {
            j -= 1;
            d -= b[j] as i8;
        }
        borrow = i8::from(d < 0);
        out.push((d + 10 * borrow) as u8);
    }
    out.reverse();
    trim(out)
}

fn mag_double(a: &[u8]) -> Vec<u8> {
    mag_add(a, a)
}

fn mag_of(v: u64) -> Vec<u8> {
    if v == 0 {
        Vec::new()
    } else {
        v.to_string().bytes().map(|c| c - b'0').collect()
    }
}

impl Dec {
    fn of_int(value: i64, scale: i64) -> Dec {
        Dec {
            neg: value < 0,
            mag: mag_of(value.unsigned_abs()),
            scale,
        }
    }

    /// The sign: -1, 0 or 1.
    fn sign(&self) -> i64 {
        match (self.mag.is_empty(), self.neg) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        }
    }

    /// The magnitude at `scale` (at least the current one).
    fn mag_at(&self, scale: i64) -> Result<Vec<u8>, EvalError> {
        let more = usize::try_from(scale - self.scale).map_err(|_| too_big())?;
        if self.mag.is_empty() {
            return Ok(Vec::new());
        }
        if self.mag.len() + more > MAX_DIGITS {
            return Err(too_big());
        }
        let mut m = self.mag.clone();
        m.resize(m.len() + more, 0);
        Ok(m)
    }

    /// `inf.Dec.Cmp`.
    fn cmp(&self, other: &Dec) -> Result<Ordering, EvalError> {
        let (s, t) = (self.sign(), other.sign());
        if s != t || s == 0 {
            return Ok(s.cmp(&t));
        }
        // Digits before the point first: values far apart compare without
        // rescaling.
        let whole = |d: &Dec| d.mag.len() as i64 - d.scale;
        let mut o = whole(self).cmp(&whole(other));
        if o == Ordering::Equal {
            let scale = self.scale.max(other.scale);
            o = mag_cmp(&self.mag_at(scale)?, &other.mag_at(scale)?);
        }
        Ok(if s < 0 { o.reverse() } else { o })
    }

    /// `inf.Dec.Add` (`negate`: `Sub`), at the larger scale.
    fn add(&self, other: &Dec, negate: bool) -> Result<Dec, EvalError> {
        let scale = self.scale.max(other.scale);
        let (a, b) = (self.mag_at(scale)?, other.mag_at(scale)?);
        let b_neg = other.neg != negate;
        let (neg, mag) = if self.neg == b_neg {
            (self.neg, mag_add(&a, &b))
        } else if mag_cmp(&a, &b) != Ordering::Less {
            (self.neg, mag_sub(&a, &b))
        } else {
            (b_neg, mag_sub(&b, &a))
        };
        Ok(Dec {
            neg: neg && !mag.is_empty(),
            mag,
            scale,
        })
    }

    /// `Round(x, scale, inf.RoundUp)` of a non-negative value: rescaled,
    /// away from zero when digits are dropped.
    fn round_up(&mut self, scale: i64) -> Result<(), EvalError> {
        if scale >= self.scale {
            self.mag = self.mag_at(scale)?;
        } else {
            let drop = usize::try_from(self.scale - scale).map_err(|_| too_big())?;
            let keep = self.mag.len().saturating_sub(drop);
            let inexact = self.mag[keep..].iter().any(|d| *d != 0);
            self.mag.truncate(keep);
            if inexact {
                self.mag = mag_add(&self.mag, &[1]);
            }
        }
        self.scale = scale;
        Ok(())
    }

    /// `big.Float.SetInt(unscaled).Float64()`: the nearest double.
    fn unscaled_f64(&self) -> f64 {
        if self.mag.is_empty() {
            return 0.0;
        }
        let text: String = self.mag.iter().map(|d| char::from(b'0' + d)).collect();
        let m: f64 = text.parse().unwrap_or(f64::INFINITY);
        if self.neg { -m } else { m }
    }
}

impl Quantity {
    fn int(value: i64, scale: i32) -> Quantity {
        Quantity {
            value,
            scale,
            dec: None,
        }
    }

    fn of_dec(d: Dec) -> Quantity {
        Quantity {
            value: 0,
            scale: 0,
            dec: Some(Rc::new(RefCell::new(d))),
        }
    }

    /// `AsDec`: the decimal, the amount turned into one if it was not.
    fn as_dec(&mut self) -> Rc<RefCell<Dec>> {
        if let Some(d) = &self.dec {
            return d.clone();
        }
        let d = Rc::new(RefCell::new(Dec::of_int(
            self.value,
            -i64::from(self.scale),
        )));
        self.value = 0;
        self.scale = 0;
        self.dec = Some(d.clone());
        d
    }

    /// `Sign`.
    fn sign(&self) -> i64 {
        match &self.dec {
            Some(d) => d.borrow().sign(),
            None => self.value.signum(),
        }
    }

    /// `AsInt64`.
    fn as_int64(&self) -> Option<i64> {
        if self.dec.is_some() {
            return None;
        }
        match self.scale.cmp(&0) {
            Ordering::Equal => Some(self.value),
            Ordering::Less => None,
            Ordering::Greater => positive_scale(self.value, self.scale),
        }
    }

    /// `AsApproximateFloat64`.
    fn approximate_float(&self) -> f64 {
        let (base, exponent) = match &self.dec {
            Some(d) => {
                let d = d.borrow();
                (d.unscaled_f64(), -d.scale)
            }
            None => (self.value as f64, i64::from(self.scale)),
        };
        if exponent == 0 {
            return base;
        }
        base * pow10(exponent)
    }

    /// `Cmp` (on the receiver, which a decimal operand turns into one).
    fn cmp(&mut self, other: &Quantity) -> Result<Ordering, EvalError> {
        if self.dec.is_none() && other.dec.is_none() {
            return Dec::of_int(self.value, -i64::from(self.scale))
                .cmp(&Dec::of_int(other.value, -i64::from(other.scale)));
        }
        let mine = self.as_dec();
        let theirs = other.clone().as_dec();
        mine.borrow().cmp(&theirs.borrow())
    }

    /// `Add` (`negate`: `Sub`) of `y`, a copy.
    fn add(&mut self, mut y: Quantity, negate: bool) -> Result<(), EvalError> {
        if self.dec.is_none() && y.dec.is_none() {
            // `Sub` adds `-b.value`, wrapping as Go's negation does.
            let b = if negate {
                y.value.wrapping_neg()
            } else {
                y.value
            };
            if let Some((value, scale)) = int_add(self.value, self.scale, b, y.scale) {
                self.value = value;
                self.scale = scale;
                return Ok(());
            }
        }
        let mine = self.as_dec();
        let theirs = y.as_dec();
        let sum = mine.borrow().add(&theirs.borrow(), negate)?;
        *mine.borrow_mut() = sum;
        Ok(())
    }
}

/// `int64Amount.Add`: the sum at the smaller scale, if it fits.
fn int_add(a: i64, a_scale: i32, b: i64, b_scale: i32) -> Option<(i64, i32)> {
    if b == 0 {
        return Some((a, a_scale));
    }
    if a == 0 {
        return Some((b, b_scale));
    }
    match a_scale.cmp(&b_scale) {
        Ordering::Equal => Some((a.checked_add(b)?, a_scale)),
        Ordering::Greater => {
            let c = positive_scale(a, a_scale.wrapping_sub(b_scale))?;
            Some((c.checked_add(b)?, b_scale))
        }
        Ordering::Less => {
            let c = positive_scale(b, b_scale.wrapping_sub(a_scale))?;
            Some((a.checked_add(c)?, a_scale))
        }
    }
}

/// `positiveScaleInt64`: `base × 10^scale`, if it fits.
fn positive_scale(base: i64, scale: i32) -> Option<i64> {
    if base == 0 {
        return Some(0);
    }
    let mut v = base;
    for _ in 0..scale {
        v = v.checked_mul(10)?;
    }
    Some(v)
}

/// Go's `math.Pow10`.
fn pow10(n: i64) -> f64 {
    const TAB: [f64; 32] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    ];
    const POS: [f64; 10] = [
        1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEG: [f64; 11] = [
        1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    if (0..=308).contains(&n) {
        return POS[n as usize / 32] * TAB[n as usize % 32];
    }
    if (-323..=0).contains(&n) {
        let m = (-n) as usize;
        return NEG[m / 32] / TAB[m % 32];
    }
    if n > 0 { f64::INFINITY } else { 0.0 }
}

/// Go's `strconv.ParseInt(s, 10, 64)` of digits.
fn parse_digits(s: &str) -> Option<i64> {
    s.parse().ok()
}

/// `resource.ParseQuantity`: the quantity, or Go's error (an
/// [`EvalError::Error`]); unsupported past [`MAX_DIGITS`].
pub fn parse(s: &str) -> Result<Quantity, EvalError> {
    let fail = |m: &str| EvalError::Error(m.to_string());
    if s.is_empty() {
        return Err(fail(FORMAT_WRONG));
    }
    if s == "0" {
        return Ok(Quantity::int(0, 0));
    }
    let Parts {
        positive,
        value,
        num,
        denom,
        suffix,
    } = split(s).ok_or_else(|| fail(FORMAT_WRONG))?;
    let (base, exponent, format) = interpret(suffix).ok_or_else(|| fail(SUFFIX))?;
    let binary = format == Format::BinarySI;
    let digits = (num.len() + denom.len()) as i32;
    let (mut scale, mantissa, precision) = if binary {
        if exponent >= 0 && denom.is_empty() {
            let p = 15 - num.len() as i32 - (exponent as f32 * 3.0 / 10.0) as i32 - 1;
            (0i32, 1i64 << exponent, p)
        } else {
            (0, 1, -1)
        }
    } else {
        (exponent, 1, 18 - digits)
    };
    if precision >= 0 {
        scale = scale.wrapping_sub(denom.len() as i32);
        if scale >= -9 {
            let shifted = format!("{num}{denom}");
            let v = parse_digits(&shifted).ok_or_else(|| fail(NUMERIC))?;
            if let Some(r) = v.checked_mul(mantissa) {
                return Ok(Quantity::int(if positive { r } else { -r }, scale));
            }
        }
    }
    // `inf.Dec.SetString(value)`: a sign, digits and one point.
    let body = value.strip_prefix(['+', '-']).unwrap_or(value);
    let (int_part, frac) = body.split_once('.').unwrap_or((body, ""));
    if int_part.is_empty() && frac.is_empty() {
        return Err(fail(NUMERIC));
    }
    let mag = trim(
        int_part
            .bytes()
            .chain(frac.bytes())
            .map(|c| c - b'0')
            .collect(),
    );
    if mag.len() > MAX_DIGITS {
        return Err(too_big());
    }
    let mut amount = Dec {
        neg: false,
        mag,
        scale: frac.len() as i64,
    };
    if base == 10 {
        amount.scale -= i64::from(exponent);
    } else {
        for _ in 0..exponent {
            amount.mag = mag_double(&amount.mag);
        }
    }
    if amount.scale.unsigned_abs() > MAX_DIGITS as u64 {
        return Err(too_big());
    }
    if !amount.mag.is_empty() {
        amount.round_up(9)?;
    }
    let max = Dec::of_int(i64::MAX, 0);
    if binary && amount.cmp(&max)? == Ordering::Greater {
        amount = max;
    }
    amount.neg = !positive && !amount.mag.is_empty();
    Ok(Quantity::of_dec(amount))
}

fn quantity(q: Quantity, pointer: bool) -> Val {
    Val::Quantity(Rc::new(RefCell::new(q)), pointer)
}

impl Quantity {
    /// `Quantity.Equal` with a quantity value (a `*Quantity`, the result
    /// of `add`/`sub`, is no quantity to cel-go on the right).
    pub(super) fn same(&self, other: &Quantity) -> Result<bool, EvalError> {
        let mut copy = self.clone();
        Ok(copy.cmp(other)? == Ordering::Equal)
    }
}

fn compare(a: &Shared, b: &Shared) -> Result<Ordering, EvalError> {
    let other = b.borrow().clone();
    a.borrow_mut().cmp(&other)
}

fn add(a: &Shared, b: Quantity, negate: bool) -> Res {
    let mut copy = a.borrow().clone();
    copy.add(b, negate)?;
    Ok(quantity(copy, true))
}

/// The quantity library's calls, `None` for others.
pub fn apply(function: &str, v: &[Val]) -> Option<Res> {
    use Val::{Bool, Int, Quantity as Q, String};
    Some(match (function, v) {
        ("quantity", [String(s)]) => parse(s).map(|q| quantity(q, false)),
        ("isQuantity", [String(s)]) => match parse(s) {
            Ok(_) => Ok(Bool(true)),
            Err(EvalError::Error(_)) => Ok(Bool(false)),
            Err(e) => Err(e),
        },
        ("sign", [Q(q, _)]) => Ok(Int(q.borrow().sign())),
        ("isInteger", [Q(q, _)]) => Ok(Bool(q.borrow().as_int64().is_some())),
        ("asInteger", [Q(q, _)]) => q
            .borrow()
            .as_int64()
            .map(Int)
            .ok_or_else(|| EvalError::Error("cannot convert value to integer".into())),
        ("asApproximateFloat", [Q(q, _)]) => Ok(Val::Double(q.borrow().approximate_float())),
        ("isGreaterThan", [Q(a, _), Q(b, _)]) => compare(a, b).map(|o| Bool(o.is_gt())),
        ("isLessThan", [Q(a, _), Q(b, _)]) => compare(a, b).map(|o| Bool(o.is_lt())),
        ("compareTo", [Q(a, _), Q(b, _)]) => compare(a, b).map(|o| Int(o as i64)),
        ("add" | "sub", [Q(a, _), Q(b, _)]) => {
            let other = b.borrow().clone();
            add(a, other, function == "sub")
        }
        ("add" | "sub", [Q(a, _), Int(i)]) => add(a, Quantity::int(*i, 0), function == "sub"),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(function: &str, args: &[Val]) -> String {
        match apply(function, args) {
            Some(Ok(Val::Bool(b))) => b.to_string(),
            Some(Ok(Val::Int(i))) => i.to_string(),
            Some(Ok(Val::Double(d))) => format!("{d:?}"),
            Some(Ok(Val::Quantity(..))) => "quantity".into(),
            Some(Err(EvalError::Error(e))) => format!("error: {e}"),
            other => format!("{other:?}"),
        }
    }

    fn q(s: &str) -> Val {
        match apply("quantity", &[Val::str(s)]) {
            Some(Ok(v)) => v,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn parses_as_parse_quantity() {
        for (s, float, int) in [
            ("1", "1.0", "1"),
            ("1Ki", "1024.0", "1024"),
            (
                "1.5Gi",
                "1610612736.0",
                "error: cannot convert value to integer",
            ),
            ("100m", "0.1", "error: cannot convert value to integer"),
            ("1e3", "1000.0", "1000"),
            ("1E-3", "0.001", "error: cannot convert value to integer"),
            (
                "0.0000000001",
                "1e-9",
                "error: cannot convert value to integer",
            ),
            (
                "-9Ei",
                "-9.223372036854776e18",
                "error: cannot convert value to integer",
            ),
            ("1e100", "1e100", "error: cannot convert value to integer"),
            ("0e400", "NaN", "0"),
            (".", "0.0", "0"),
        ] {
            assert_eq!(run("asApproximateFloat", &[q(s)]), float, "{s}");
            assert_eq!(run("asInteger", &[q(s)]), int, "{s}");
        }
        for (s, e) in [
            ("", FORMAT_WRONG),
            ("1x", FORMAT_WRONG),
            ("1-2x", FORMAT_WRONG),
            ("1Ki3", SUFFIX),
            ("1ki", SUFFIX),
            ("1e", SUFFIX),
            ("1e99999999999999999999", SUFFIX),
            (".Ei", NUMERIC),
        ] {
            assert_eq!(
                run("quantity", &[Val::str(s)]),
                format!("error: {e}"),
                "{s}"
            );
            assert_eq!(run("isQuantity", &[Val::str(s)]), "false");
        }
    }

    #[test]
    fn arithmetic_and_comparison_as_go() {
        assert_eq!(run("compareTo", &[q("1Ki"), q("1024")]), "0");
        assert_eq!(run("isGreaterThan", &[q("1.001k"), q("1Ki")]), "false");
        assert_eq!(run("isLessThan", &[q("999m"), q("1")]), "true");
        let sum = apply("add", &[q("9223372036854775807"), Val::Int(1)])
            .unwrap()
            .unwrap();
        assert_eq!(
            run("asApproximateFloat", std::slice::from_ref(&sum)),
            "9.223372036854776e18"
        );
        assert_eq!(run("isInteger", std::slice::from_ref(&sum)), "false");
        assert_eq!(
            run(
                "sign",
                &[apply("sub", &[q("1m"), q("2m")]).unwrap().unwrap()]
            ),
            "-1"
        );
        // A comparison with a decimal amount makes the receiver one.
        let one = q("1");
        assert_eq!(run("isInteger", std::slice::from_ref(&one)), "true");
        assert_eq!(run("isLessThan", &[one.clone(), q("1e-1000")]), "false");
        assert_eq!(run("isInteger", &[one]), "false");
        // `add` gives a pointer, no quantity on the right of `==`.
        let equal = super::super::value::equal;
        assert!(equal(&q("2"), &sum).is_err());
        assert!(!equal(&q("2"), &q("2.001")).unwrap());
    }
}
