//! The flow's byte stream cut into segments: each write is cut into MSS-sized pieces, the
//! last one possibly short, so segment `i` is a fixed byte range for the whole connection.
//!
//! Writes are kept as runs of equal writes, so an application that writes the same chunk
//! every interval (a scheduled writer: 12,500 writes of 1,024 B in 10 s) costs one run, not one
//! entry per write: the connection's memory does not grow with time, and finding a segment's
//! bytes is arithmetic on its run instead of a binary search over every write.

/// `count` consecutive writes of `len` bytes, the first at byte `byte0` and segment `seg0`;
/// each write is `per_write` segments.
#[derive(Copy, Clone, Debug)]
struct Run {
    byte0: u64,
    seg0: u64,
    len: u64,
    per_write: u64,
    count: u64,
}

impl Run {
    /// Byte range of segment `i` of this run, with segments of `mss` bytes.
    #[inline]
    fn range(&self, i: u64, mss: u64) -> (u64, u64) {
        let off = i - self.seg0;
        let (k, j) = if self.count == 1 { (0, off) } else { (off / self.per_write, off % self.per_write) };
        let write0 = self.byte0 + k * self.len;
        let start = write0 + j * mss;
        (start, (start + mss).min(write0 + self.len))
    }

    /// Whole segments of this run below byte `b` (`b` at or after the run's first byte).
    #[inline]
    fn segs_below(&self, b: u64, mss: u64) -> u64 {
        let off = b - self.byte0;
        let (k, rest) = if self.count == 1 { (0, off) } else { (off / self.len, off % self.len) };
        self.seg0 + k * self.per_write + rest / mss
    }
}

/// Segment boundaries of the data written so far.
#[derive(Clone, Debug)]
pub struct Segments {
    mss: u64,
    /// The writes, as runs of equal writes in stream order.
    runs: Vec<Run>,
    written: u64,
    count: u32,
}

impl Segments {
    /// No data yet.
    pub fn new(mss: u32) -> Segments {
        Segments { mss: mss as u64, runs: Vec::new(), written: 0, count: 0 }
    }

    /// The application wrote `n` more bytes.
    pub fn write(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        let segs = n.div_ceil(self.mss);
        let total = self.count as u64 + segs;
        match self.runs.last_mut() {
            // The segment count saturates (a long-lived writer's huge write): no run extends
            // past it, so a later write starts a run of its own at the saturated count.
            Some(r) if r.len == n && total <= u32::MAX as u64 => r.count += 1,
            _ => {
                self.runs.push(Run { byte0: self.written, seg0: self.count as u64, len: n, per_write: segs, count: 1 })
            }
        }
        self.count = total.min(u32::MAX as u64) as u32;
        self.written += n;
    }

    /// Drops every segment from `seg` on (a long-lived writer stopped): the stream ends there.
    pub fn truncate(&mut self, seg: u32) {
        if seg >= self.count {
            return;
        }
        let end = if seg == 0 { 0 } else { self.range(seg - 1).1 };
        self.runs.retain(|r| r.seg0 < seg as u64);
        if let Some(r) = self.runs.pop() {
            // The run holding segment seg - 1: its whole writes before that segment's write,
            // then that write cut after it.
            let last = (seg - 1) as u64;
            let k = if r.count == 1 { 0 } else { (last - r.seg0) / r.per_write };
            if k > 0 {
                self.runs.push(Run { count: k, ..r });
            }
            let byte0 = r.byte0 + k * r.len;
            let seg0 = r.seg0 + k * r.per_write;
            self.runs.push(Run { byte0, seg0, len: end - byte0, per_write: last + 1 - seg0, count: 1 });
        }
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

    /// The run holding segment `i` (which must exist).
    #[inline]
    fn run_of_seg(&self, i: u64) -> &Run {
        match self.runs.as_slice() {
            [r] => r,
            runs => &runs[runs.partition_point(|r| r.seg0 <= i) - 1],
        }
    }

    /// Byte range `[start, end)` of segment `i` (which must exist).
    #[inline]
    pub fn range(&self, i: u32) -> (u64, u64) {
        self.run_of_seg(i as u64).range(i as u64, self.mss)
    }

    /// Number of whole segments below byte `ack` (the cumulative ACK point).
    pub fn segs_below(&self, ack: u64) -> u32 {
        if ack >= self.written {
            return self.count;
        }
        let r = match self.runs.as_slice() {
            [r] => r,
            runs => &runs[runs.partition_point(|r| r.byte0 <= ack) - 1],
        };
        r.segs_below(ack, self.mss) as u32
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

    /// The segments of every write, listed one by one: what the runs must reproduce.
    fn listed(mss: u64, writes: &[u64], cut: Option<u32>) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut b = 0;
        for &n in writes {
            let mut s = b;
            while s < b + n {
                out.push((s, (s + mss).min(b + n)));
                s += mss;
            }
            b += n;
        }
        if let Some(c) = cut {
            out.truncate(c as usize);
        }
        out
    }

    #[test]
    fn runs_of_equal_writes_give_the_segments_of_each_write() {
        let mut rng = crate::rng::Rng::new(7);
        for case in 0..300 {
            let mss = [1000, 1460, 536][case % 3];
            // Repeated chunks (runs), with a different size now and then.
            let mut writes = Vec::new();
            let mut chunk = 1 + rng.below(4000);
            for _ in 0..1 + rng.below(40) {
                if rng.below(4) == 0 {
                    chunk = 1 + rng.below(4000);
                }
                writes.push(chunk);
            }
            let mut s = Segments::new(mss as u32);
            for &n in &writes {
                s.write(n);
            }
            let cut = (case % 2 == 1).then(|| rng.below(s.count() as u64 + 1) as u32);
            if let Some(c) = cut {
                s.truncate(c);
            }
            let want = listed(mss, &writes, cut);
            assert_eq!(s.count() as usize, want.len(), "case {case}");
            assert_eq!(s.written(), want.last().map_or(0, |r| r.1), "case {case}");
            for (i, &r) in want.iter().enumerate() {
                assert_eq!(s.range(i as u32), r, "case {case}, segment {i}");
                assert_eq!(s.bytes_below(i as u32), r.0, "case {case}, segment {i}");
                for b in [r.0, r.1 - 1, (r.0 + r.1) / 2] {
                    assert_eq!(s.segs_below(b), i as u32 + (b >= r.1) as u32, "case {case}, byte {b}");
                }
                assert_eq!(s.first_at_or_after(r.0), i as u32, "case {case}, byte {}", r.0);
                assert_eq!(s.first_at_or_after(r.0 + 1), i as u32 + 1, "case {case}, byte {}", r.0 + 1);
            }
        }
    }

    #[test]
    fn a_scheduled_writer_is_one_run() {
        let mut s = Segments::new(1460);
        for _ in 0..12_500 {
            s.write(1024);
        }
        assert_eq!(s.runs.len(), 1);
        assert_eq!(s.range(12_499), (12_499 * 1024, 12_500 * 1024));
    }
}
