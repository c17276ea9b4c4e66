//! The values a host law plug-in may give, the same for Python and Rust plug-ins: a value
//! outside them is the plug-in's fault (the run stops naming the plug-in, the hook, the flow
//! and the time), never a window or a rate the connection runs on.
//!
//! | value | allowed | why |
//! |---|---|---|
//! | `cwnd` | 0 to [`MAX_WINDOW`] bytes | no flow could use more; a u64 difference that went below zero (`cwnd - 10 * cwnd`) lands near 2^64, far above |
//! | `ssthresh` | 0 to [`MAX_WINDOW`] bytes, or 2^64 - 1 (no threshold) | as `cwnd` |
//! | pacing rate | 1 bit/s to [`MAX_PACING_RATE`] | 0 would never send (no pacing is None); above, a wrapped or mistaken value |
//!
//! Python values are numbers (`crates/fctlab-py` converts them: ints as they are, floats
//! rounded down to whole bytes or bits per second, negative, NaN and infinite refused naming
//! the field); both kinds of plug-in then pass through the checks here.

use crate::limits::{MAX_BYTES, MAX_RATE};

/// The largest `cwnd` or `ssthresh` a plug-in may set: 2^50 bytes (about 1.13e15).
///
/// Above the largest byte count a scenario may give ([`MAX_BYTES`], 10^15 bytes: a flow's size,
/// a buffer), so no flow sized in a scenario, nor a buffer, could use such a window; and far
/// below 2^63, so that a window computed as a u64 difference that went below zero (2^64 minus
/// the shortfall, the usual mistake) is refused however large the shortfall. A legal window is
/// still bounded in what it sends: a TCP sender keeps at most
/// [`crate::transport::tcp::MAX_FLIGHT_SEGMENTS`] segments in flight, whatever its window.
pub const MAX_WINDOW: u64 = 1 << 50;

/// [`MAX_WINDOW`] as messages write it.
pub const MAX_WINDOW_SHOWN: &str = "2^50 B (1.1e15 B)";

/// The fastest pacing rate a plug-in may give: [`MAX_RATE`], 10^15 bit/s, the fastest link a
/// scenario may hold. A pacing rate above the host's own link only means no pacing; one above
/// every link is a wrapped value or a unit mistake.
pub const MAX_PACING_RATE: u64 = MAX_RATE.0;

const _: () = assert!(MAX_WINDOW > MAX_BYTES && MAX_WINDOW < 1 << 63);

/// `value` as the window field `field` (`"cwnd"` or `"ssthresh"`), or the one-line reason it
/// is refused (the field, the value, what was expected).
pub fn window_field(field: &str, value: u64) -> Result<u64, String> {
    if value <= MAX_WINDOW || (field == "ssthresh" && value == u64::MAX) {
        Ok(value)
    } else {
        let cause = match value {
            u64::MAX => Cause::NoThreshold,
            v if v > 1 << 63 => Cause::Wrapped,
            _ => Cause::None,
        };
        Err(window_too_large(field, &value.to_string(), cause))
    }
}

/// What a window above [`MAX_WINDOW`] usually comes from, for its message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// Nothing to say.
    None,
    /// Near 2^64: a difference that went below zero.
    Wrapped,
    /// Exactly 2^64 - 1: ssthresh's "no threshold", copied into cwnd.
    NoThreshold,
}

/// The reason a window field of `shown` bytes (above [`MAX_WINDOW`]) is refused, with its
/// usual `cause`.
pub fn window_too_large(field: &str, shown: &str, cause: Cause) -> String {
    let none = if field == "ssthresh" { ", or 2^64 - 1 for no threshold" } else { "" };
    let cause = match cause {
        Cause::None => "",
        Cause::NoThreshold if field == "cwnd" => {
            " (2^64 - 1 is ssthresh's \"no threshold\": cwnd usually gets it from the default on_recovery_end, cwnd = \
             ssthresh, after a loss reaction that left ssthresh unset)"
        }
        Cause::Wrapped | Cause::NoThreshold => {
            " (a value near 2^64 is a difference of unsigned integers that went below zero)"
        }
    };
    format!("{field} = {shown} B: expected at most {MAX_WINDOW_SHOWN}{none}{cause}")
}

/// A pacing rate in bit/s, or the reason it is refused.
pub fn pacing_rate(bps: u64) -> Result<u64, String> {
    if (1..=MAX_PACING_RATE).contains(&bps) {
        Ok(bps)
    } else {
        Err(pacing_rate_refused(&bps.to_string()))
    }
}

/// The reason a pacing rate of `shown` bit/s is refused.
pub fn pacing_rate_refused(shown: &str) -> String {
    format!(
        "pacing_rate = {shown} bit/s: expected 1 bit/s to 1e15 bit/s (the fastest link a scenario may hold), or none \
         for no pacing"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_up_to_the_bound_pass_and_a_wrapped_one_is_refused_naming_field_and_value() {
        assert_eq!(window_field("cwnd", 0), Ok(0));
        assert_eq!(window_field("cwnd", MAX_WINDOW), Ok(MAX_WINDOW));
        assert_eq!(window_field("ssthresh", u64::MAX), Ok(u64::MAX), "no threshold");
        let wrapped = 14_600u64.wrapping_sub(146_000);
        let e = window_field("cwnd", wrapped).unwrap_err();
        assert_eq!(
            e,
            "cwnd = 18446744073709420216 B: expected at most 2^50 B (1.1e15 B) (a value near 2^64 is a difference of \
             unsigned integers that went below zero)"
        );
        let e = window_field("cwnd", u64::MAX).unwrap_err();
        assert!(e.contains("the default on_recovery_end, cwnd = ssthresh"), "{e}");
        let e = window_field("ssthresh", MAX_WINDOW + 1).unwrap_err();
        assert!(e.starts_with("ssthresh = 1125899906842625 B: expected at most") && e.contains("no threshold"), "{e}");
        assert!(!e.contains("below zero"), "{e}");
    }

    #[test]
    fn pacing_rates_between_one_bit_and_the_fastest_link_pass() {
        assert_eq!(pacing_rate(1), Ok(1));
        assert_eq!(pacing_rate(MAX_PACING_RATE), Ok(MAX_PACING_RATE));
        assert!(pacing_rate(0).unwrap_err().starts_with("pacing_rate = 0 bit/s: expected"));
        assert!(pacing_rate(MAX_PACING_RATE + 1).is_err());
    }
}
