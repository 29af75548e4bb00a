//! Support for the generated revision modules: single-value discriminators (`"type": "text"`,
//! `"jsonrpc": "2.0"`, error `code: -32602`) as zero-sized types that accept only their value on
//! read and always write it on emit. Hand-written; the generator emits one macro call per
//! discriminator instead of a derived one-variant enum, which keeps the crate's compile time down.

use std::fmt;

use serde::de::{Deserializer, Error, Unexpected, Visitor};

/// Declares `pub struct $name;` that (de)serializes as exactly the JSON string `$lit`.
#[allow(unused_macros)] // unused when no revision feature is enabled
macro_rules! wire_const_str {
    ($(#[$attr:meta])* $name:ident = $lit:literal) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name;

        impl $name {
            /// The value on the wire.
            pub const VALUE: &'static str = $lit;
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::std::result::Result<S::Ok, S::Error> {
                s.serialize_str($lit)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::std::result::Result<Self, D::Error> {
                $crate::wire_const::expect_str(d, $lit).map(|()| $name)
            }
        }
    };
}

/// Declares `pub struct $name;` that (de)serializes as exactly the JSON integer `$lit`.
#[allow(unused_macros)] // only 2025-11-25 and later have integer discriminators
macro_rules! wire_const_int {
    ($(#[$attr:meta])* $name:ident = $lit:literal) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name;

        impl $name {
            /// The value on the wire.
            pub const VALUE: i64 = $lit;
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::std::result::Result<S::Ok, S::Error> {
                s.serialize_i64($lit)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::std::result::Result<Self, D::Error> {
                $crate::wire_const::expect_int(d, $lit).map(|()| $name)
            }
        }
    };
}

#[allow(unused_imports)] // a revision may use only one of the two
pub(crate) use {wire_const_int, wire_const_str};

/// Reads a string and checks that it is `expected`.
#[cfg_attr(not(any_revision), allow(dead_code))]
pub(crate) fn expect_str<'de, D: Deserializer<'de>>(
    d: D,
    expected: &'static str,
) -> Result<(), D::Error> {
    struct V(&'static str);
    impl Visitor<'_> for V {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "the string {:?}", self.0)
        }
        fn visit_str<E: Error>(self, v: &str) -> Result<(), E> {
            if v == self.0 {
                Ok(())
            } else {
                Err(E::invalid_value(Unexpected::Str(v), &self))
            }
        }
    }
    d.deserialize_str(V(expected))
}

/// Reads an integer and checks that it is `expected` (only 2025-11-25 and later have integer
/// discriminators).
#[cfg_attr(
    not(any(feature = "v2025_11_25", feature = "v2026_07_28")),
    allow(dead_code)
)]
pub(crate) fn expect_int<'de, D: Deserializer<'de>>(d: D, expected: i64) -> Result<(), D::Error> {
    struct V(i64);
    impl Visitor<'_> for V {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "the integer {}", self.0)
        }
        fn visit_i64<E: Error>(self, v: i64) -> Result<(), E> {
            if v == self.0 {
                Ok(())
            } else {
                Err(E::invalid_value(Unexpected::Signed(v), &self))
            }
        }
        fn visit_u64<E: Error>(self, v: u64) -> Result<(), E> {
            match i64::try_from(v) {
                Ok(v) => self.visit_i64(v),
                Err(_) => Err(E::invalid_value(Unexpected::Unsigned(v), &self)),
            }
        }
    }
    d.deserialize_i64(V(expected))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    wire_const_str!(Text = "text");
    wire_const_int!(Code = -32602);

    #[test]
    fn reads_only_its_value_and_writes_it() {
        assert_eq!((Text::VALUE, Code::VALUE), ("text", -32602));
        assert_eq!(serde_json::to_value(Text).unwrap(), json!("text"));
        assert!(serde_json::from_value::<Text>(json!("text")).is_ok());
        let err = serde_json::from_value::<Text>(json!("image")).unwrap_err();
        assert!(
            err.to_string().contains("expected the string \"text\""),
            "{err}"
        );
        assert_eq!(serde_json::to_value(Code).unwrap(), json!(-32602));
        assert!(serde_json::from_value::<Code>(json!(-32602)).is_ok());
        assert!(serde_json::from_value::<Code>(json!(-32600)).is_err());
        assert!(serde_json::from_value::<Code>(json!("-32602")).is_err());
    }
}
