//! Test fixtures the references' tests share: flows, tolerances and random instances.

use super::shared::PsFlow;
use crate::rng::Rng;

/// 1 Gb/s.
pub(super) const GBPS: f64 = 1e9;

/// A flow arriving at `start` s with `bits` over the links `path`.
pub(super) fn flow(start: f64, bits: f64, path: &[u32]) -> PsFlow {
    PsFlow { start, bits, path: path.to_vec() }
}

/// `a` is within `rel` of `b`, relatively.
pub(super) fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

/// Poisson arrivals at `load` on one link of capacity `c`, sizes (bits) from `size`.
pub(super) fn poisson_one_link(
    seed: u64,
    c: f64,
    load: f64,
    mean_bits: f64,
    n: usize,
    mut size: impl FnMut(&mut Rng) -> f64,
) -> Vec<PsFlow> {
    let mut gaps = Rng::stream(seed, "arrivals");
    let mut sizes = Rng::stream(seed, "sizes");
    let mean_gap = mean_bits / (load * c);
    let mut t = 0.0;
    (0..n)
        .map(|_| {
            t += gaps.exponential(mean_gap);
            flow(t, size(&mut sizes), &[0])
        })
        .collect()
}

/// Pareto with `shape` and `mean`: x_m U^(-1/shape), x_m = mean (shape - 1) / shape.
pub(super) fn pareto(rng: &mut Rng, shape: f64, mean: f64) -> f64 {
    mean * (shape - 1.0) / shape * rng.uniform_open0().powf(-1.0 / shape)
}

/// A ring of 20 links of 1, 2.5 or 10 Gb/s; each flow crosses 1 to 5 consecutive links
/// (up to 100 distinct paths), Poisson arrivals, exponential sizes.
pub(super) fn ring_of_20(seed: u64, n: usize, mean_gap: f64) -> (Vec<f64>, Vec<PsFlow>) {
    let mut rng = Rng::stream(seed, "ring");
    let links: Vec<f64> = (0..20).map(|_| [1.0, 2.5, 10.0][rng.below(3) as usize] * GBPS).collect();
    let mut t = 0.0;
    let flows = (0..n)
        .map(|_| {
            t += rng.exponential(mean_gap);
            let (first, hops) = (rng.below(20) as u32, 1 + rng.below(5) as u32);
            let path: Vec<u32> = (0..hops).map(|h| (first + h) % 20).collect();
            flow(t, rng.exponential(1e6), &path)
        })
        .collect();
    (links, flows)
}
