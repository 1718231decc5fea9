//! Python's view of JSON values, as the seed (which runs in Python) sees
//! them: a number is an `int` (any size) or a `float` by its text, a
//! `bool` is the `int` it is, and `==` compares them exactly.

pub use hwf_guest::runtime::python::{eq, repr, repr_str, type_name};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

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
    /// CPython 3.11's `repr` of these strings.
    #[test]
    fn strings_are_quoted_as_python_repr_quotes_them() {
        for (s, want) in [
            ("hermes.lister", "'hermes.lister'"),
            ("it's", "\"it's\""),
            ("it's \"x\"", "'it\\'s \"x\"'"),
            ("a\\b", "'a\\\\b'"),
            ("l1\nl2\t\r", "'l1\\nl2\\t\\r'"),
            ("\u{1}\u{7f}\u{85}\u{a0}", "'\\x01\\x7f\\x85\\xa0'"),
            ("z\u{200b}w\u{2028}", "'z\\u200bw\\u2028'"),
            ("tag\u{e0001}", "'tag\\U000e0001'"),
            ("étape 日本 🎉", "'étape 日本 🎉'"),
            ("", "''"),
        ] {
            assert_eq!(repr_str(s), want, "{s:?}");
        }
    }

    /// CPython 3.11's `repr` of what `json.loads` gives for these texts.
    #[test]
    fn values_are_written_as_python_repr_writes_them() {
        for (text, want) in [
            ("null", "None"),
            ("true", "True"),
            ("false", "False"),
            ("-0", "0"),
            ("18446744073709551617", "18446744073709551617"),
            ("1.0", "1.0"),
            ("-0.0", "-0.0"),
            ("2.5", "2.5"),
            ("1e16", "1e+16"),
            ("1e15", "1000000000000000.0"),
            ("0.0001", "0.0001"),
            ("0.00001", "1e-05"),
            ("1.5e-7", "1.5e-07"),
            ("5e-324", "5e-324"),
            ("1e300", "1e+300"),
            ("1e400", "inf"),
            ("123456.789", "123456.789"),
            ("[1, \"a\", null]", "[1, 'a', None]"),
            ("{\"k\": {\"n\": [true]}}", "{'k': {'n': [True]}}"),
        ] {
            let v: Value = serde_json::from_str(text).expect("json");
            assert_eq!(repr(&v), want, "{text}");
        }
    }
}
