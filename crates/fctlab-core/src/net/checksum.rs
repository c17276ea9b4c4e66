//! The Internet checksum (RFC 1071) of IPv4 and TCP headers: the capture writes it
//! (`capture::frame`), the emulator's raw-socket tap checks it (`fctlab-emu`'s `raw.rs`).

/// The ones' complement sum of `b` as 16-bit big-endian words (an odd last byte padded with a
/// zero), added to `sum`.
pub fn sum16(mut sum: u32, b: &[u8]) -> u32 {
    let mut chunks = b.chunks_exact(2);
    for c in &mut chunks {
        sum += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        sum += (*last as u32) << 8;
    }
    sum
}

/// The checksum of a ones' complement sum: the sum folded to 16 bits, complemented. Over data
/// that holds its own correct checksum it is 0.
pub fn checksum(mut sum: u32) -> u16 {
    while sum >> 16 != 0 {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_1071s_example_sums_and_its_checksum_verifies() {
        // RFC 1071 sec. 3: the words 0001 f203 f4f5 f6f7 sum (folded) to ddf2.
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(checksum(sum16(0, &data)), !0xddf2);
        let mut with = data.to_vec();
        with.extend_from_slice(&checksum(sum16(0, &data)).to_be_bytes());
        assert_eq!(checksum(sum16(0, &with)), 0);
        assert_eq!(sum16(0, &[0xAB]), 0xAB00, "an odd byte is the high half of a word");
    }
}
