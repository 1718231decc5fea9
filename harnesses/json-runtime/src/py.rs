//! Python's view of JSON values, as the seed (which runs in Python) sees
//! them: a number is an `int` (any size) or a `float` by its text, a
//! `bool` is the `int` it is, and `==` compares them exactly.

use serde_json::Value;

/// The name of the Python type the seed sees for a JSON value
/// (`type(v).__name__`): `int` or `float` by the number's text.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.to_string().contains(['.', 'e', 'E']) => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// A JSON number as Python's `json` reads it: an `int` of any size
/// (sign and digits, no leading zeros; `-0` is `0`) when its text has no
/// fraction or exponent, else a `float`.
#[derive(Debug, PartialEq)]
enum PyNum {
    Int { negative: bool, digits: String },
    Float(f64),
}

impl PyNum {
    fn of(v: &Value) -> Option<Self> {
        let text = match v {
            Value::Bool(b) => return Some(Self::int(false, if *b { "1" } else { "0" })),
            Value::Number(n) => n.to_string(),
            _ => return None,
        };
        if text.contains(['.', 'e', 'E']) {
            // `1e400` is `inf`, as Python's `float()` reads it.
            return text.parse::<f64>().ok().map(Self::Float);
        }
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.as_str()),
        };
        Some(Self::int(negative, digits))
    }

    fn int(negative: bool, digits: &str) -> Self {
        let digits = digits.trim_start_matches('0');
        Self::Int {
            negative: negative && !digits.is_empty(),
            digits: digits.to_owned(),
        }
    }

    /// A float's exact value as an `Int`, if it is a whole number.
    fn whole(f: f64) -> Option<Self> {
        if !f.is_finite() || f.fract() != 0.0 {
            return None;
        }
        // mantissa · 2^exp, the mantissa below 2^53.
        let bits = f.abs().to_bits();
        let exp_bits = i32::try_from(bits >> 52).ok()?;
        let frac = bits & ((1 << 52) - 1);
        let (mut mantissa, mut exp) = if exp_bits == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), exp_bits - 1075)
        };
        while exp < 0 {
            // Whole, so the low bits shifted out are zeros.
            mantissa >>= 1;
            exp += 1;
        }
        // Little-endian decimal digits, doubled `exp` times.
        let mut digits: Vec<u8> = mantissa.to_string().bytes().rev().map(|b| b - b'0').collect();
        for _ in 0..exp {
            let mut carry = 0;
            for d in &mut digits {
                let x = *d * 2 + carry;
                *d = x % 10;
                carry = x / 10;
            }
            if carry > 0 {
                digits.push(carry);
            }
        }
        let text: String = digits.iter().rev().map(|d| char::from(b'0' + d)).collect();
        Some(Self::int(f.is_sign_negative(), &text))
    }
}

/// Python's `==` on two numbers: ints by their digits, floats by value, an
/// int and a float exactly (`9007199254740993 != 9007199254740992.0`).
fn py_num_eq(a: &PyNum, b: &PyNum) -> bool {
    match (a, b) {
        (PyNum::Float(x), PyNum::Float(y)) => x == y,
        (PyNum::Float(f), i @ PyNum::Int { .. }) | (i @ PyNum::Int { .. }, PyNum::Float(f)) => {
            PyNum::whole(*f).is_some_and(|w| w == *i)
        }
        (x, y) => x == y,
    }
}

/// Python-style equality, as the seed compares in Python: numbers by value
/// (`1 == 1.0`, exactly: big ints by their digits, an int and a float
/// without rounding), a `bool` as the `int` it is (`true == 1`,
/// `false == 0`), lists item by item and objects key by key with the same
/// rule (`[1, 2] == [1.0, 2.0]`).
pub fn eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, p)| y.get(k).is_some_and(|q| eq(p, q)))
        }
        _ => match (PyNum::of(a), PyNum::of(b)) {
            (Some(x), Some(y)) => py_num_eq(&x, &y),
            _ => a == b,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eq(a: &str, b: &str) -> bool {
        let parse = |t: &str| serde_json::from_str::<Value>(t).expect("json");
        super::eq(&parse(a), &parse(b))
    }

    /// Python's answers, from CPython 3.
    #[test]
    fn numbers_compare_exactly_as_python_compares_them() {
        assert!(eq("1", "1.0"));
        assert!(eq("true", "1"));
        assert!(eq("true", "1.0"));
        assert!(eq("false", "0"));
        assert!(eq("-0", "0"));
        assert!(eq("0", "-0.0"));
        assert!(eq("[1, 2]", "[1.0, 2.0]"));
        assert!(!eq("1", "1.5"));
        assert!(!eq("9007199254740993", "9007199254740992.0"));
        assert!(eq("9007199254740992", "9007199254740992.0"));
        assert!(!eq("18446744073709551617", "18446744073709551616"));
        assert!(eq("18446744073709551617", "18446744073709551617"));
        assert!(!eq("-18446744073709551617", "18446744073709551617"));
        assert!(eq("18446744073709551616", "1.8446744073709552e19"));
        assert!(!eq("18446744073709551617", "1.8446744073709552e19"));
        assert!(eq("1e400", "1e401"));
        assert!(!eq("1e400", "100000000000000000000"));
        assert!(!eq("1e300", &format!("1{}", "0".repeat(300))));
        assert!(eq(
            "1e300",
            "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160"
        ));
        assert!(!eq("5e-324", "0"));
        assert!(eq("0.1", "0.10"));
        assert!(!eq("1", "\"1\""));
        assert!(eq("null", "null"));
    }
}
