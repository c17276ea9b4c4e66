//! The flow's byte stream cut into segments: each write is cut into MSS-sized pieces, the
//! last one possibly short, so segment `i` is a fixed byte range for the whole connection.

/// Segment boundaries of the data written so far.
#[derive(Clone, Debug)]
pub struct Segments {
    mss: u64,
    /// (first byte, first segment index) of each write.
    writes: Vec<(u64, u32)>,
    written: u64,
    count: u32,
}

impl Segments {
    /// No data yet.
    pub fn new(mss: u32) -> Segments {
        Segments { mss: mss as u64, writes: Vec::new(), written: 0, count: 0 }
    }

    /// The application wrote `n` more bytes.
    pub fn write(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        self.writes.push((self.written, self.count));
        let segs = n.div_ceil(self.mss);
        self.count = (self.count as u64 + segs).min(u32::MAX as u64) as u32;
        self.written += n;
    }

    /// Drops every segment from `seg` on (a long-lived writer stopped): the stream ends there.
    pub fn truncate(&mut self, seg: u32) {
        if seg >= self.count {
            return;
        }
        let end = if seg == 0 { 0 } else { self.range(seg - 1).1 };
        self.writes.retain(|&(_, s)| s < seg);
        self.written = end;
        self.count = seg;
    }

    /// Payload bytes of a full segment.
    #[inline]
    pub fn mss(&self) -> u64 {
        self.mss
    }

    /// Segments written so far.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Bytes below segment `i`: what a cumulative acknowledgment of the first `i` segments
    /// covers (all written bytes once `i` reaches the count).
    pub fn bytes_below(&self, i: u32) -> u64 {
        if i >= self.count {
            self.written
        } else {
            self.range(i).0
        }
    }

    /// Byte range `[start, end)` of segment `i` (which must exist).
    #[inline]
    pub fn range(&self, i: u32) -> (u64, u64) {
        let w = if self.writes.len() == 1 { 0 } else { self.writes.partition_point(|&(_, s)| s <= i) - 1 };
        let (byte0, seg0) = self.writes[w];
        let limit = self.writes.get(w + 1).map_or(self.written, |&(b, _)| b);
        let start = byte0 + (i - seg0) as u64 * self.mss;
        (start, (start + self.mss).min(limit))
    }

    /// Number of whole segments below byte `ack` (the cumulative ACK point).
    pub fn segs_below(&self, ack: u64) -> u32 {
        if ack >= self.written {
            return self.count;
        }
        let w = self.writes.partition_point(|&(b, _)| b <= ack) - 1;
        let (byte0, seg0) = self.writes[w];
        seg0 + ((ack - byte0) / self.mss) as u32
    }

    /// First segment that starts at or after byte `b`.
    pub fn first_at_or_after(&self, b: u64) -> u32 {
        if b >= self.written {
            return self.count;
        }
        let i = self.segs_below(b);
        if self.range(i).0 >= b {
            i
        } else {
            i + 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_write_is_cut_into_mss_pieces_with_a_short_tail() {
        let mut s = Segments::new(1000);
        s.write(2500);
        assert_eq!(s.count(), 3);
        assert_eq!(s.range(0), (0, 1000));
        assert_eq!(s.range(2), (2000, 2500));
        assert_eq!(s.segs_below(1999), 1);
        assert_eq!(s.segs_below(2500), 3);
        assert_eq!(s.first_at_or_after(1500), 2);
    }

    #[test]
    fn each_write_starts_a_new_segment() {
        let mut s = Segments::new(1000);
        s.write(1500);
        s.write(700);
        assert_eq!(s.count(), 3);
        assert_eq!(s.range(1), (1000, 1500));
        assert_eq!(s.range(2), (1500, 2200));
        assert_eq!(s.segs_below(1500), 2);
        assert_eq!(s.segs_below(2199), 2);
    }

    #[test]
    fn truncation_ends_the_stream_at_a_segment() {
        let mut s = Segments::new(1000);
        s.write(1 << 40);
        s.truncate(5);
        assert_eq!((s.count(), s.written()), (5, 5000));
    }
}
