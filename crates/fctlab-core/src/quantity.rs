//! Scenario quantities with units: `"10Gbps"`, `"40ms"`, `"5MB"`, or plain numbers.
//!
//! A plain number is in the base unit (bits/s, seconds, bytes). Strings carry a unit suffix.
//! Decimal prefixes throughout (1 MB = 10^6 B, 1 Gbps = 10^9 b/s), as in networking papers;
//! `KiB`, `MiB`, `GiB` are binary. Negative, zero (for rates), non-finite values and values
//! beyond the bounds of [`crate::limits`] are refused with a message naming what was seen and
//! what was expected, never saturated; serde_path_to_error adds the field's path.

use crate::limits::{shown, MAX_BYTES, MAX_BYTES_SHOWN, MAX_RATE, MAX_RATE_SHOWN, MAX_TIME, MAX_TIME_SHOWN};
use crate::units::{Rate, Time};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// A number in the scenario, or a string with a unit.
#[derive(Clone, Debug)]
enum Raw {
    Num(f64),
    Str(String),
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Raw, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Raw;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a string with a unit")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Raw, E> {
                Ok(Raw::Num(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw, E> {
                Ok(Raw::Num(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw, E> {
                Ok(Raw::Num(v as f64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Raw, E> {
                Ok(Raw::Str(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// Splits `"12.5ms"` into `(12.5, "ms")`.
fn split_unit(s: &str) -> Option<(f64, String)> {
    let s = s.trim();
    let idx = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
        .unwrap_or(s.len());
    // 'e' may start a unit only if it is not an exponent; no unit here starts with 'e'.
    let (num, unit) = s.split_at(idx);
    let v: f64 = num.trim().parse().ok()?;
    Some((v, unit.trim().to_string()))
}

/// What one kind of quantity accepts.
struct Kind {
    /// "a rate", "a duration", "a size".
    what: &'static str,
    /// An example for messages.
    example: &'static str,
    /// Unit suffixes and their multiples of the base unit.
    units: &'static [(&'static str, f64)],
    /// Whether zero is a valid value.
    allow_zero: bool,
    /// Largest value in base units, and how messages write it.
    max: (f64, &'static str),
}

/// The value in base units, with the text the user wrote (for messages).
fn parse_with<E: de::Error>(raw: Raw, kind: &Kind) -> Result<(f64, String), E> {
    let Kind { what, example, units, allow_zero, max } = *kind;
    let (v, shown) = match raw {
        Raw::Num(v) => (v, shown(v)),
        Raw::Str(s) => {
            let Some((num, unit)) = split_unit(&s) else {
                return Err(E::custom(format!("expected {what} like {example}, got \"{s}\"")));
            };
            let Some((_, mult)) = units.iter().find(|(u, _)| *u == unit) else {
                let known: Vec<&str> = units.iter().map(|(u, _)| *u).filter(|u| !u.is_empty()).collect();
                return Err(E::custom(format!(
                    "unknown unit \"{unit}\" in \"{s}\"; expected one of {}",
                    known.join(", ")
                )));
            };
            (num * mult, format!("\"{s}\""))
        }
    };
    if v.is_nan() || v < 0.0 || (!allow_zero && v == 0.0) {
        let bound = if allow_zero { ">= 0" } else { "> 0" };
        return Err(E::custom(format!("expected {what} {bound}, got {shown}")));
    }
    if v > max.0 {
        return Err(E::custom(format!("expected {what} <= {}, got {shown}", max.1)));
    }
    Ok((v, shown))
}

const RATE_UNITS: &[(&str, f64)] =
    &[("", 1.0), ("bps", 1.0), ("Kbps", 1e3), ("kbps", 1e3), ("Mbps", 1e6), ("Gbps", 1e9), ("Tbps", 1e12)];
const TIME_UNITS: &[(&str, f64)] = &[("", 1.0), ("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("ps", 1e-12)];
const BYTE_UNITS: &[(&str, f64)] = &[
    ("", 1.0),
    ("B", 1.0),
    ("KB", 1e3),
    ("kB", 1e3),
    ("MB", 1e6),
    ("GB", 1e9),
    ("KiB", 1024.0),
    ("MiB", 1048576.0),
    ("GiB", 1073741824.0),
];

const RATE: Kind = Kind {
    what: "a rate",
    example: "\"10Gbps\"",
    units: RATE_UNITS,
    allow_zero: false,
    max: (MAX_RATE.0 as f64, MAX_RATE_SHOWN),
};
const DURATION: Kind = Kind {
    what: "a duration",
    example: "\"40ms\"",
    units: TIME_UNITS,
    allow_zero: true,
    max: (MAX_TIME.0 as f64 * 1e-12, MAX_TIME_SHOWN),
};
const SIZE: Kind = Kind {
    what: "a size",
    example: "\"5MB\"",
    units: BYTE_UNITS,
    allow_zero: true,
    max: (MAX_BYTES as f64, MAX_BYTES_SHOWN),
};

/// A rate in the scenario: `"10Gbps"` or a number of bits per second; must be in
/// [1 bit/s, [`MAX_RATE`]] once rounded to a whole bit per second.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RateQ(pub Rate);

impl<'de> Deserialize<'de> for RateQ {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RateQ, D::Error> {
        let (v, shown) = parse_with::<D::Error>(Raw::deserialize(d)?, &RATE)?;
        // A rate that rounds to 0 bit/s would never serialize a packet.
        if v < 0.5 {
            return Err(de::Error::custom(format!("expected a rate >= 1 bit/s, got {shown}")));
        }
        Ok(RateQ(Rate(v.round() as u64)))
    }
}

/// A duration in the scenario: `"40ms"` or a number of seconds; must be in [0, [`MAX_TIME`]].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TimeQ(pub Time);

impl<'de> Deserialize<'de> for TimeQ {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TimeQ, D::Error> {
        let (v, _) = parse_with::<D::Error>(Raw::deserialize(d)?, &DURATION)?;
        Ok(TimeQ(Time::from_secs_f64(v)))
    }
}

/// A size in the scenario: `"5MB"` or a number of bytes; must be in [0, [`MAX_BYTES`]].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BytesQ(pub u64);

impl<'de> Deserialize<'de> for BytesQ {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<BytesQ, D::Error> {
        let (v, _) = parse_with::<D::Error>(Raw::deserialize(d)?, &SIZE)?;
        Ok(BytesQ(v.round() as u64))
    }
}

/// A duration field of a parameter struct that deserializes itself (`#[serde(deserialize_with =
/// "crate::quantity::time")]`): a [`TimeQ`] read as a [`Time`].
pub fn time<'de, D: Deserializer<'de>>(d: D) -> Result<Time, D::Error> {
    TimeQ::deserialize(d).map(|t| t.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(s: &str) -> Result<RateQ, String> {
        serde_json::from_str::<RateQ>(s).map_err(|e| e.to_string())
    }

    #[test]
    fn units_are_decimal() {
        assert_eq!(rate("\"10Gbps\"").unwrap().0, Rate::from_gbps(10));
        assert_eq!(rate("1e9").unwrap().0, Rate::from_gbps(1));
        let t: TimeQ = serde_json::from_str("\"40ms\"").unwrap();
        assert_eq!(t.0, Time::from_ms(40));
        let b: BytesQ = serde_json::from_str("\"5MB\"").unwrap();
        assert_eq!(b.0, 5_000_000);
        let b: BytesQ = serde_json::from_str("\"64KiB\"").unwrap();
        assert_eq!(b.0, 65536);
    }

    #[test]
    fn bad_values_say_what_was_expected() {
        let e = rate("\"-1Gbps\"").unwrap_err();
        assert!(e.contains("expected a rate > 0") && e.contains("-1Gbps"), "{e}");
        let e = rate("\"10Gbs\"").unwrap_err();
        assert!(e.contains("unknown unit \"Gbs\""), "{e}");
        let e = rate("0").unwrap_err();
        assert!(e.contains("> 0"), "{e}");
    }

    fn time(s: &str) -> Result<TimeQ, String> {
        serde_json::from_str::<TimeQ>(s).map_err(|e| e.to_string())
    }

    fn size(s: &str) -> Result<BytesQ, String> {
        serde_json::from_str::<BytesQ>(s).map_err(|e| e.to_string())
    }

    #[test]
    fn times_beyond_the_largest_are_refused_not_saturated() {
        // 1e9 s is 1e21 ps, beyond u64 picoseconds: it used to saturate at 2^64 - 1 ps.
        let e = time("\"1e9s\"").unwrap_err();
        assert!(e.contains("expected a duration <= 1e6 s (11.6 days), got \"1e9s\""), "{e}");
        let e = time("1000000.5").unwrap_err();
        assert!(e.contains("<= 1e6 s") && e.contains("got 1000000.5"), "{e}");
        assert_eq!(time("\"1000000s\"").unwrap().0, MAX_TIME);
        assert_eq!(time("\"1e9us\"").unwrap().0, Time::from_secs(1000));
    }

    #[test]
    fn rates_beyond_the_largest_or_below_one_bit_per_second_are_refused() {
        let e = rate("9223372036854775808").unwrap_err();
        assert!(e.contains("expected a rate <= 1e15 bit/s (1000 Tbps), got 9.223372036854776e18"), "{e}");
        let e = rate("\"2000Tbps\"").unwrap_err();
        assert!(e.contains("<= 1e15 bit/s") && e.contains("\"2000Tbps\""), "{e}");
        assert_eq!(rate("\"1000Tbps\"").unwrap().0, MAX_RATE);
        let e = rate("0.4").unwrap_err();
        assert!(e.contains("expected a rate >= 1 bit/s, got 0.4"), "{e}");
        assert_eq!(rate("0.5").unwrap().0, Rate(1));
    }

    #[test]
    fn sizes_beyond_the_largest_are_refused_not_saturated() {
        let e = size("1e20").unwrap_err();
        assert!(e.contains("expected a size <= 1e15 B (1 PB), got 1e20"), "{e}");
        let e = size("\"2000000GB\"").unwrap_err();
        assert!(e.contains("<= 1e15 B") && e.contains("\"2000000GB\""), "{e}");
        assert_eq!(size("\"1000000GB\"").unwrap().0, MAX_BYTES);
    }
}
