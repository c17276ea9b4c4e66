//! A congestion header on the wire, what every protocol's `header.rs` shares: the words and
//! the checks of their decoding (each `header.rs` encodes its own; `../header.rs` joins them).
//! A leaf: it imports nothing of the crate.

/// A congestion header's fields on the wire: three 32-bit words after a one-byte tag.
pub type Words = [u32; 3];

/// Refuses words a header leaves unused unless they are zero (a garbage value is not ignored).
pub(crate) fn unused_zero(w: &[u32]) -> Result<(), &'static str> {
    if w.iter().all(|&x| x == 0) {
        Ok(())
    } else {
        Err("cc")
    }
}

/// A float field that holds a number (XCP's window and feedback, JetMax's interval): NaN and
/// both infinities are refused (an infinite window or feedback would become a window of
/// 2^64 - 1 bytes at the sender).
pub(crate) fn finite(bits: u32, name: &'static str) -> Result<f32, &'static str> {
    let x = f32::from_bits(bits);
    if x.is_finite() {
        Ok(x)
    } else {
        Err(name)
    }
}

/// A rate field (JetMax's and PIQI-RCP's): a number, or +infinity for "no rate yet", which
/// their senders read as no limit; NaN and -infinity are refused.
pub(crate) fn rate_or_infinite(bits: u32, name: &'static str) -> Result<f32, &'static str> {
    let x = f32::from_bits(bits);
    if x.is_nan() || x == f32::NEG_INFINITY {
        Err(name)
    } else {
        Ok(x)
    }
}
