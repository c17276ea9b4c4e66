//! RCP's router law as the RCP thesis gives it (Dukkipati, ch. 3), with fctlab's defaults:
//! once per interval T = min(T_max, d) (eq. 3.3)
//!
//! ```text
//!   R <- R (1 + (T/d) (alpha (C - y) - beta q / d) / C)
//! ```
//!
//! clamped to [1e-5 C, C], with y the bits offered in the interval over T, q the queue in bits,
//! d the average RTT: the interval's mean RTT field d_T smoothed in with gain T/d if d_T >= d,
//! else (R/C)(T/d)(d_T/d) (sec. 3.5). A forward RCP packet leaves with the smaller of its rate
//! field and R. The header is RCP's (tag 1: rate kbit/s, RTT us, KiB sent), so fctlab's RCP
//! hosts run over this law as over the built-in one.
//!
//! Keys (the queue table's, beside `kind`): `alpha` (default 0.1) and `beta` (default 1.0).

use fctlab_plugin::{Header, PacketView, Port, Ps, RouterLaw, PS_PER_S};

/// RCP's forward header tag.
const RCP: u8 = 1;
/// The longest control interval T_max, 10 ms.
const MAX_INTERVAL: Ps = 10_000_000_000;
/// The initial rate as a fraction of C (the ns-2 code's 0.05).
const INITIAL_FRACTION: f64 = 0.05;
/// The initial average RTT, 0.2 s (the ns-2 code's).
const INITIAL_RTT_S: f64 = 0.2;
/// The lowest rate, as a fraction of C.
const FLOOR_FRACTION: f64 = 1e-5;

/// One port's RCP state.
pub struct Rcp {
    alpha: f64,
    beta: f64,
    /// The fair rate R, bit/s.
    rate: f64,
    /// The average RTT d, s.
    avg_rtt: f64,
    arrived_bytes: u64,
    rtt_sum: f64,
    rtt_n: u32,
    last_tick: Ps,
}

fn secs(ps: Ps) -> f64 {
    ps as f64 * 1e-12
}

fn ps(s: f64) -> Ps {
    (s * PS_PER_S as f64).round().max(0.0) as Ps
}

impl Rcp {
    /// T = min(T_max, d), at least 1 us.
    fn interval(&self) -> Ps {
        ps(self.avg_rtt).clamp(1_000_000, MAX_INTERVAL)
    }
}

impl RouterLaw for Rcp {
    fn new(port: &Port, params: &str) -> Result<Self, String> {
        let keys: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(params).map_err(|e| format!("parameters: {e}"))?;
        let (mut alpha, mut beta) = (0.1, 1.0);
        for (k, v) in &keys {
            let x = v.as_f64().ok_or_else(|| format!("{k}: expected a number, got {v}"))?;
            match k.as_str() {
                "alpha" if x > 0.0 && x <= 10.0 => alpha = x,
                "beta" if x > 0.0 && x <= 10.0 => beta = x,
                "alpha" | "beta" => return Err(format!("{k}: expected 0 < {k} <= 10, got {x}")),
                _ => return Err(format!("{k}: unknown key (expected alpha or beta)")),
            }
        }
        Ok(Rcp {
            alpha,
            beta,
            rate: INITIAL_FRACTION * port.capacity_bps as f64,
            avg_rtt: INITIAL_RTT_S,
            arrived_bytes: 0,
            rtt_sum: 0.0,
            rtt_n: 0,
            last_tick: 0,
        })
    }

    /// Counts every offered packet's bytes, and the RTT field of RCP packets, into the interval.
    fn on_arrival(&mut self, _port: &Port, _now: Ps, pkt: &PacketView, _queued: u64) {
        self.arrived_bytes += pkt.wire as u64;
        if pkt.header.tag == RCP && pkt.header.words[1] > 0 {
            self.rtt_sum += pkt.header.words[1] as f64 * 1e-6;
            self.rtt_n = self.rtt_n.saturating_add(1);
        }
    }

    /// Lowers a forward RCP packet's rate field (kbit/s) to R.
    fn on_departure(&mut self, port: &Port, _now: Ps, pkt: &mut PacketView, _queued: u64) {
        if pkt.header.tag == RCP {
            let share = (self.rate.min(port.capacity_bps as f64) / 1e3).clamp(1.0, u32::MAX as f64 - 1.0) as u32;
            let Header { words, .. } = &mut pkt.header;
            if words[0] > share {
                words[0] = share;
            }
        }
    }

    fn first_tick(&self) -> Option<Ps> {
        Some(self.interval())
    }

    fn tick(&mut self, port: &Port, now: Ps, queued: u64) -> Option<Ps> {
        let c = port.capacity_bps as f64;
        let t = secs(now - self.last_tick);
        self.last_tick = now;
        if t > 0.0 {
            let d = self.avg_rtt;
            let y = self.arrived_bytes as f64 * 8.0 / t;
            let q = queued as f64 * 8.0;
            // Eq. 3.3 (eta = 1).
            let change = (t / d) * (self.alpha * (c - y) - self.beta * q / d) / c;
            self.rate = (self.rate * (1.0 + change)).clamp(FLOOR_FRACTION * c, c);
            // Sec. 3.5.
            if self.rtt_n > 0 {
                let dt = self.rtt_sum / self.rtt_n as f64;
                let gain = if dt < d { (self.rate / c) * (t / d) * (dt / d) } else { t / d };
                let gain = gain.min(1.0);
                self.avg_rtt = gain * dt + (1.0 - gain) * d;
            }
        }
        self.arrived_bytes = 0;
        self.rtt_sum = 0.0;
        self.rtt_n = 0;
        Some(now + self.interval())
    }
}
