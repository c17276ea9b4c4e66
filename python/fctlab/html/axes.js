/* fctlab plots' axes, for plot.js: numbers with their units, scales, and the choice of ticks.
 *
 * A quantity in "s", "B" or "b/s" gets the SI prefix that puts its number between 1 and 1000
 * ("10 Gb/s", "250 \u00b5s", "45.2 kB"); another unit is printed as given, no unit gives a plain
 * number; no number is ever printed in exponent notation. Ticks are the finest of a list of
 * candidates (multiples of 1, 2 or 5 x 10^k; on a log axis, decade multiples, then every decade
 * or every few) whose labels do not overlap, with at most MAX_TICKS; a log axis too short for
 * MIN_TICKS decade multiples gets linear steps instead (0.2, 0.25, ..., 0.4).
 *
 * Included before plot.js in the same <script>; a second copy (a notebook) does nothing.
 */
(function () {
  "use strict";
  if (window.fctlabAxes) return;

  const MIN_TICKS = 5, MAX_TICKS = 10;
  const CHAR_W = 6.2, LINE_H = 13;   // a tick label's character width and line height (10.5px)
  const PREFIXES = { "-12": "p", "-9": "n", "-6": "\u00b5", "-3": "m", "0": "", "3": "k",
                     "6": "M", "9": "G", "12": "T", "15": "P" };
  // The prefixes (powers of ten) each unit takes: no millibytes, no kiloseconds.
  const UNITS = { "s": [-12, 0], "B": [0, 15], "b/s": [0, 15] };

  /** A number to `digits` significant digits, positional ("12300", "0.000369"), never "1e4". */
  function num(v, digits) {
    if (v === 0) return "0";
    return v.toLocaleString("en-US", { maximumSignificantDigits: digits, useGrouping: false });
  }

  /** The power of ten (a multiple of 3) of the prefix for magnitude `a` in `unit`; 0 without one. */
  function prefixPower(a, unit) {
    const range = UNITS[unit];
    if (!range || !(a > 0)) return 0;
    const p = 3 * Math.floor(Math.log10(a * (1 + 1e-9)) / 3);
    return Math.min(range[1], Math.max(range[0], p));
  }

  /** `v` with its unit and the prefix that puts it between 1 and 1000: "10 Gb/s", "1.5 ms". */
  function quantity(v, unit, digits) {
    if (!unit) return num(v, digits);
    let p = prefixPower(Math.abs(v), unit);
    // 999.96 kB rounds to "1000 kB": one prefix up reads "1 MB".
    if (Math.abs(+(v / Math.pow(10, p)).toPrecision(digits)) >= 1000 && UNITS[unit] && p + 3 <= UNITS[unit][1]) p += 3;
    return num(v / Math.pow(10, p), digits) + " " + (PREFIXES[p] || "") + unit;
  }

  /** Maps data [lo, hi] onto pixels [a, b], linearly or by log10; `invert` goes back. */
  function scale(lo, hi, log, a, b) {
    const f = log ? Math.log10 : (v) => v;
    const l = f(lo), h = f(hi), k = (b - a) / (h - l);
    const invert = (p) => (log ? Math.pow(10, l + (p - a) / k) : l + (p - a) / k);
    return { log: log, map: (v) => a + (f(v) - l) * k, invert: invert };
  }

  /** Linear ticks over [lo, hi] at multiples of a step of 1, 2 or 5 x 10^k, finest first (none
   *  with more than MAX_TICKS). */
  function linearCandidates(lo, hi) {
    if (!(hi > lo)) return [[lo]];
    const out = [], top = Math.pow(10, Math.ceil(Math.log10(hi - lo)));
    for (let n = 0; n < 30; n++) {
      const step = top / [1, 2, 5][n % 3] / Math.pow(10, Math.floor(n / 3));
      const t = [];
      for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9 && t.length <= MAX_TICKS; i++) {
        t.push(+(i * step).toPrecision(12));
      }
      if (t.length > MAX_TICKS) break;
      out.unshift(t);
    }
    return out;
  }

  /** Log ticks over [lo, hi], finest first: 1..9 x 10^k, then 1, 2, 3, 5, then 1, 2, 5, then
   *  every decade, every second decade, ... */
  function logCandidates(lo, hi) {
    const d0 = Math.floor(Math.log10(lo)), d1 = Math.ceil(Math.log10(hi));
    const inside = (v) => v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9);
    const make = (mants, every) => {
      const t = [];
      for (let d = d0; d <= d1; d++) {
        if (d % every) continue;
        for (const m of mants) {
          const v = +(m * Math.pow(10, d)).toPrecision(12);
          if (inside(v)) t.push(v);
        }
      }
      return t;
    };
    const out = [make([1, 2, 3, 4, 5, 6, 7, 8, 9], 1), make([1, 2, 3, 5], 1), make([1, 2, 5], 1)];
    for (let every = 1; every <= Math.max(1, d1 - d0); every++) out.push(make([1], every));
    return out;
  }

  /** Whether tick labels `texts` at values `t` stay apart on scale `s` (along x if `horizontal`). */
  function fits(t, texts, s, horizontal) {
    for (let i = 1; i < t.length; i++) {
      const gap = Math.abs(s.map(t[i]) - s.map(t[i - 1]));
      const need = horizontal ? (texts[i].length + texts[i - 1].length) * CHAR_W / 2 + 8 : LINE_H + 2;
      if (gap < need) return false;
    }
    return true;
  }

  /** The ticks of one axis over its shown range [lo, hi], with their labels and the axis's
   *  label: the finest candidate whose labels fit and that has at most MAX_TICKS ticks. On a
   *  log axis, a range too short for MIN_TICKS decade multiples gets linear steps instead.
   *  A linear axis with a unit shows one prefix for the axis, in its label ("time (ms)"); a log
   *  axis gives each tick its own ("100 \u00b5s", "1 ms"). */
  function axisTicks(s, lo, hi, ax, horizontal) {
    const unit = ax.unit || "";
    const label = ax.label || "";
    const labelled = (t) => {
      if (s.log) return { t: t, texts: t.map((v) => quantity(v, unit, 6)), label: label + " (log)" };
      const p = prefixPower(Math.max(...t.map(Math.abs)), unit);
      const texts = t.map((v) => num(+(v / Math.pow(10, p)).toPrecision(12), 6));
      const u = unit ? (PREFIXES[p] || "") + unit : "";
      return { t: t, texts: texts, label: u ? label + " (" + u + ")" : label };
    };
    const choose = (cands) => {
      for (const t of cands) {
        if (t.length > MAX_TICKS) continue;
        const l = labelled(t);
        if (fits(t, l.texts, s, horizontal)) return l;
      }
      return labelled(cands[cands.length - 1]);
    };
    if (s.log) {
      const best = choose(logCandidates(lo, hi));
      if (best.t.length >= MIN_TICKS) return best;
      const linear = choose(linearCandidates(lo, hi));
      return linear.t.length > best.t.length ? linear : best;
    }
    return choose(linearCandidates(lo, hi));
  }

  /** Unlabelled minor lines of a log axis: 2..9 x 10^k, where there is room for them. */
  function minorTicks(s, lo, hi) {
    const t = logCandidates(lo, hi)[0];
    for (let i = 1; i < t.length; i++) if (Math.abs(s.map(t[i]) - s.map(t[i - 1])) < 3) return [];
    return t;
  }

  window.fctlabAxes = { quantity: quantity, scale: scale, axisTicks: axisTicks, minorTicks: minorTicks };
})();
