//! Exact decimal numbers: a JSON number's value read from its text,
//! whatever the size of its exponent, so that `1e99999999999999999999` is
//! not `1` ([`super::number_eq`], spec §1.3, §8.10).

/// A JSON number's exact value: sign, significant digits without leading
/// or trailing zeros, and the power of ten of the last digit, of any size.
/// Zero is `negative: false`, no digits, exponent 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    /// Below zero.
    pub negative: bool,
    /// The significant digits, ASCII, neither starting nor ending with `0`.
    pub digits: String,
    /// The power of ten of the last digit.
    pub exponent: BigInt,
}

impl Decimal {
    /// Reads the text of a JSON number (as `serde_json` keeps it with
    /// `arbitrary_precision`; a leading `+` is accepted). Text that is not
    /// a number reads as whatever digits it holds; it never panics.
    pub fn parse(text: &str) -> Decimal {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], BigInt::parse(&rest[i + 1..])),
            None => (rest, BigInt::zero()),
        };
        let (int_part, frac_part) = match mantissa.find('.') {
            Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
            None => (mantissa, ""),
        };
        let all: String = int_part
            .chars()
            .chain(frac_part.chars())
            .filter(char::is_ascii_digit)
            .collect();
        let significant = all.trim_end_matches('0');
        let trailing = all.len() - significant.len();
        let digits = significant.trim_start_matches('0').to_string();
        if digits.is_empty() {
            return Decimal {
                negative: false,
                digits,
                exponent: BigInt::zero(),
            };
        }
        // Both lengths are at most the text's length, so they fit an i128.
        let shift = trailing as i128 - frac_part.len() as i128;
        Decimal {
            negative,
            digits,
            exponent: exponent.add(&BigInt::from_i128(shift)),
        }
    }
}

impl std::fmt::Display for Decimal {
    /// The canonical text ([`canonical_number`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.digits.is_empty() {
            return f.write_str("0");
        }
        let sign = if self.negative { "-" } else { "" };
        write!(f, "{sign}{}e{}", self.digits, self.exponent)
    }
}

/// A whole number of any size, in decimal (the exponent of a
/// [`Decimal`]): a sign and its digits without leading zeros; zero has no
/// digits and is not negative.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BigInt {
    pub(crate) negative: bool,
    pub(crate) digits: Vec<u8>,
}

impl BigInt {
    pub(crate) fn zero() -> BigInt {
        BigInt {
            negative: false,
            digits: Vec::new(),
        }
    }

    /// An optional sign and decimal digits; other characters are ignored.
    pub(crate) fn parse(text: &str) -> BigInt {
        let negative = text.starts_with('-');
        let digits: Vec<u8> = text
            .bytes()
            .filter(u8::is_ascii_digit)
            .map(|b| b - b'0')
            .skip_while(|&d| d == 0)
            .collect();
        BigInt::new(negative, digits)
    }

    pub(crate) fn new(negative: bool, digits: Vec<u8>) -> BigInt {
        let negative = negative && !digits.is_empty();
        BigInt { negative, digits }
    }

    pub(crate) fn from_i128(n: i128) -> BigInt {
        BigInt::parse(&n.to_string())
    }

    /// Below zero.
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// The value, when it fits an `i64`.
    pub fn to_i64(&self) -> Option<i64> {
        if self.digits.len() > 18 {
            return None;
        }
        let magnitude = self
            .digits
            .iter()
            .fold(0i64, |acc, &d| acc * 10 + i64::from(d));
        Some(if self.negative { -magnitude } else { magnitude })
    }

    pub(crate) fn add(&self, other: &BigInt) -> BigInt {
        if self.negative == other.negative {
            return BigInt::new(self.negative, add_magnitudes(&self.digits, &other.digits));
        }
        match compare_magnitudes(&self.digits, &other.digits) {
            std::cmp::Ordering::Equal => BigInt::zero(),
            std::cmp::Ordering::Greater => BigInt::new(
                self.negative,
                subtract_magnitudes(&self.digits, &other.digits),
            ),
            std::cmp::Ordering::Less => BigInt::new(
                other.negative,
                subtract_magnitudes(&other.digits, &self.digits),
            ),
        }
    }
}

impl std::fmt::Display for BigInt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.digits.is_empty() {
            return f.write_str("0");
        }
        if self.negative {
            f.write_str("-")?;
        }
        let text: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        f.write_str(&text)
    }
}

/// Compares two magnitudes (digits, most significant first, no leading
/// zeros).
fn compare_magnitudes(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn add_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let (mut i, mut j, mut carry) = (a.len(), b.len(), 0u8);
    while i > 0 || j > 0 || carry > 0 {
        let mut sum = carry;
        if i > 0 {
            i -= 1;
            sum += a[i];
        }
        if j > 0 {
            j -= 1;
            sum += b[j];
        }
        out.push(sum % 10);
        carry = sum / 10;
    }
    out.reverse();
    out
}

/// `a - b` for `a >= b`.
fn subtract_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let (mut i, mut j, mut borrow) = (a.len(), b.len(), 0i8);
    while i > 0 {
        i -= 1;
        let mut d = a[i] as i8 - borrow;
        if j > 0 {
            j -= 1;
            d -= b[j] as i8;
        }
        borrow = i8::from(d < 0);
        out.push((d + 10 * borrow) as u8);
    }
    while out.len() > 1 && out.last() == Some(&0) {
        out.pop();
    }
    out.reverse();
    if out == [0] {
        out.clear();
    }
    out
}
