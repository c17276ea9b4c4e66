/* fctlab plots: small, dependency-free SVG line plots for fctlab's HTML reports.
 *
 * A plot is a <div class="fctlab-plot"> holding its spec as JSON in a child
 * <script type="application/json">; renderAll() draws every such div not drawn yet. A spec:
 *   {title, x: {label, log, min, max}, y: {label, log, min, max}, step, markers,
 *    series: [{name, x: [...], y: [...], text: [...] (optional, shown on hover)}]}
 * `step` draws each curve as a step function (a CDF: the value holds until the next point);
 * null values break a curve. min/max fix an axis end; otherwise it fits the visible data.
 *
 * Interaction: a click on a legend entry hides or shows its curve (the axes refit); hovering
 * reads out the nearest point; dragging a rectangle zooms to it; a double click resets.
 *
 * The script may be included several times in one document (a notebook shows one fragment per
 * output): the first copy defines window.fctlabPlots, later copies only call renderAll(). No
 * element ids are fixed in the HTML; the one id a plot needs (its clip path) is made here.
 */
(function () {
  "use strict";
  if (window.fctlabPlots) {
    window.fctlabPlots.renderAll();
    return;
  }

  const NS = "http://www.w3.org/2000/svg";
  const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  const W = 560, H = 340;                                   // viewBox; the SVG scales to its box
  const M = { left: 62, right: 14, top: 26, bottom: 42 };   // margins around the plot area
  let clipCount = 0;

  /** A new SVG element with attributes (and text), appended to `parent` if given. */
  function el(tag, attrs, parent, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  /** A number as a short label: three significant digits, exponents when very large or small. */
  function fmt(v) {
    if (v === 0) return "0";
    const a = Math.abs(v);
    if (a >= 1e5 || a < 1e-3) return v.toExponential(1).replace("e+", "e").replace(".0e", "e");
    return String(+v.toPrecision(3));
  }

  /** Maps data [lo, hi] onto pixels [a, b], linearly or by log10; `invert` goes back. */
  function scale(lo, hi, log, a, b) {
    const f = log ? Math.log10 : (v) => v;
    const l = f(lo), h = f(hi), k = (b - a) / (h - l);
    return {
      lo: lo, hi: hi, log: log,
      map: (v) => a + (f(v) - l) * k,
      invert: (p) => (log ? Math.pow(10, l + (p - a) / k) : l + (p - a) / k),
    };
  }

  /** Tick values: steps of 1, 2 or 5 x 10^k on a linear axis; powers of ten on a log axis
   *  (with 2 and 5 between them when the axis spans two decades or less; linear steps below a
   *  decade). */
  function ticks(s, n) {
    const out = [];
    if (s.log) {
      // Within a factor of ten or so, powers of ten leave too few ticks: use linear steps.
      if (s.hi / s.lo < 12) return ticks({ lo: s.lo, hi: s.hi, log: false }, Math.max(3, n - 2));
      const d0 = Math.floor(Math.log10(s.lo)), d1 = Math.ceil(Math.log10(s.hi));
      const mults = d1 - d0 <= 2 ? [1, 2, 5] : [1];
      const step = Math.max(1, Math.ceil((d1 - d0) / n));
      for (let d = d0; d <= d1; d += step) {
        for (const m of mults) {
          const v = m * Math.pow(10, d);
          if (v >= s.lo * (1 - 1e-9) && v <= s.hi * (1 + 1e-9)) out.push(v);
        }
      }
      return out;
    }
    const raw = (s.hi - s.lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((x) => x >= raw);
    for (let i = Math.ceil(s.lo / step); i * step <= s.hi + step * 1e-9; i++) {
      out.push(+(i * step).toPrecision(12));
    }
    return out;
  }

  /** Usable values of one axis: finite, and positive on a log axis. */
  function usable(v, log) {
    return v !== null && Number.isFinite(v) && (!log || v > 0);
  }

  /** [lo, hi] of an axis over the visible series, with the spec's fixed ends; never empty. */
  function extent(spec, axis, visible) {
    const ax = spec[axis] || {};
    let lo = Infinity, hi = -Infinity;
    for (const s of visible) {
      for (const v of s[axis]) {
        if (usable(v, ax.log)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      }
    }
    if (ax.min !== undefined && ax.min !== null) lo = ax.min;
    if (ax.max !== undefined && ax.max !== null) hi = ax.max;
    if (!(lo <= hi)) return ax.log ? [1, 10] : [0, 1];
    if (lo === hi) return ax.log ? [lo / 2, hi * 2] : [lo - (Math.abs(lo) || 1) / 10, hi + (Math.abs(hi) || 1) / 10];
    return [lo, hi];
  }

  /** The SVG path of one series: moves at gaps, horizontal-then-vertical steps if `step`. */
  function pathOf(s, sx, sy, spec) {
    let d = "", prev = null;
    for (let i = 0; i < s.x.length; i++) {
      const x = s.x[i], y = s.y[i];
      if (!usable(x, spec.x.log) || !usable(y, spec.y.log)) { prev = null; continue; }
      const px = sx.map(x).toFixed(1), py = sy.map(y).toFixed(1);
      if (prev === null) d += "M" + px + " " + py;
      else if (spec.step) d += "H" + px + "V" + py;
      else d += "L" + px + " " + py;
      prev = i;
    }
    return d;
  }

  /** Draws one plot into `div` from `spec`, with its legend and readout, and wires the mouse. */
  function draw(div, spec) {
    spec.x = spec.x || {};
    spec.y = spec.y || {};
    const hidden = spec.series.map(() => false);
    let zoom = null;  // {x: [lo, hi], y: [lo, hi]} while zoomed
    const clipId = "fctlab-clip-" + (++clipCount);

    const svg = el("svg", { viewBox: "0 0 " + W + " " + H, class: "fctlab-svg", role: "img" });
    div.appendChild(svg);
    const legend = document.createElement("div");
    legend.className = "fctlab-legend";
    div.appendChild(legend);
    const readout = document.createElement("div");
    readout.className = "fctlab-readout";
    readout.textContent = "\u00a0";
    div.appendChild(readout);

    spec.series.forEach((s, i) => {
      const item = document.createElement("span");
      item.className = "fctlab-legend-item";
      item.title = "click to hide or show";
      const swatch = document.createElement("i");
      swatch.style.background = COLORS[i % COLORS.length];
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(s.name));
      item.addEventListener("click", () => {
        hidden[i] = !hidden[i];
        item.classList.toggle("off", hidden[i]);
        redraw();
      });
      legend.appendChild(item);
    });

    let sx, sy, points;  // the current scales, and the drawn points in pixels for hovering
    const x0 = M.left, x1 = W - M.right, y0 = H - M.bottom, y1 = M.top;

    function redraw() {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      const visible = spec.series.filter((_, i) => !hidden[i]);
      const xe = zoom ? zoom.x : extent(spec, "x", visible);
      const ye = zoom ? zoom.y : extent(spec, "y", visible);
      sx = scale(xe[0], xe[1], !!spec.x.log, x0, x1);
      sy = scale(ye[0], ye[1], !!spec.y.log, y0, y1);

      el("text", { x: W / 2, y: 16, class: "fctlab-title" }, svg, spec.title || "");
      const grid = el("g", { class: "fctlab-grid" }, svg);
      const axes = el("g", { class: "fctlab-axis" }, svg);
      for (const t of ticks(sx, 6)) {
        const p = sx.map(t);
        el("line", { x1: p, x2: p, y1: y0, y2: y1 }, grid);
        el("text", { x: p, y: y0 + 16, "text-anchor": "middle" }, axes, fmt(t));
      }
      for (const t of ticks(sy, 5)) {
        const p = sy.map(t);
        el("line", { x1: x0, x2: x1, y1: p, y2: p }, grid);
        el("text", { x: x0 - 6, y: p + 4, "text-anchor": "end" }, axes, fmt(t));
      }
      el("rect", { x: x0, y: y1, width: x1 - x0, height: y0 - y1, class: "fctlab-frame" }, svg);
      el("text", { x: (x0 + x1) / 2, y: H - 6, "text-anchor": "middle", class: "fctlab-label" }, svg,
         (spec.x.label || "") + (spec.x.log ? " (log)" : ""));
      el("text", { x: 14, y: (y0 + y1) / 2, "text-anchor": "middle", class: "fctlab-label",
                   transform: "rotate(-90 14 " + (y0 + y1) / 2 + ")" }, svg,
         (spec.y.label || "") + (spec.y.log ? " (log)" : ""));

      const clip = el("clipPath", { id: clipId }, el("defs", {}, svg));
      el("rect", { x: x0, y: y1, width: x1 - x0, height: y0 - y1 }, clip);
      const curves = el("g", { "clip-path": "url(#" + clipId + ")" }, svg);
      points = [];
      spec.series.forEach((s, i) => {
        if (hidden[i]) return;
        const color = COLORS[i % COLORS.length];
        el("path", { d: pathOf(s, sx, sy, spec), stroke: color, class: "fctlab-curve", "data-series": s.name }, curves);
        for (let j = 0; j < s.x.length; j++) {
          if (!usable(s.x[j], spec.x.log) || !usable(s.y[j], spec.y.log)) continue;
          const px = sx.map(s.x[j]), py = sy.map(s.y[j]);
          points.push([px, py, i, j]);
          if (spec.markers) el("circle", { cx: px, cy: py, r: 3, fill: color, class: "fctlab-marker" }, curves);
        }
      });
      hover = el("circle", { r: 4.5, class: "fctlab-hover", visibility: "hidden" }, svg);
      band = el("rect", { class: "fctlab-band", visibility: "hidden" }, svg);
      // The overlay takes the mouse over the plot area (drawn last, so on top).
      overlay = el("rect", { x: x0, y: y1, width: x1 - x0, height: y0 - y1, class: "fctlab-overlay" }, svg);
      overlay.addEventListener("mousemove", onMove);
      overlay.addEventListener("mousedown", onDown);
      overlay.addEventListener("mouseleave", () => { hover.setAttribute("visibility", "hidden"); });
      overlay.addEventListener("dblclick", () => { zoom = null; redraw(); });
    }

    let hover, band, overlay, dragFrom = null;

    /** The mouse position in viewBox units. */
    function at(ev) {
      const p = svg.createSVGPoint();
      p.x = ev.clientX; p.y = ev.clientY;
      const q = p.matrixTransform(svg.getScreenCTM().inverse());
      return [Math.min(Math.max(q.x, x0), x1), Math.min(Math.max(q.y, y1), y0)];
    }

    function onMove(ev) {
      const [mx, my] = at(ev);
      if (dragFrom) {
        band.setAttribute("x", Math.min(dragFrom[0], mx));
        band.setAttribute("y", Math.min(dragFrom[1], my));
        band.setAttribute("width", Math.abs(mx - dragFrom[0]));
        band.setAttribute("height", Math.abs(my - dragFrom[1]));
        band.setAttribute("visibility", "visible");
        return;
      }
      let best = null, bestD = Infinity;
      for (const p of points) {
        const d = (p[0] - mx) * (p[0] - mx) + (p[1] - my) * (p[1] - my);
        if (d < bestD) { bestD = d; best = p; }
      }
      if (!best) return;
      const s = spec.series[best[2]], j = best[3];
      hover.setAttribute("cx", best[0]);
      hover.setAttribute("cy", best[1]);
      hover.setAttribute("stroke", COLORS[best[2] % COLORS.length]);
      hover.setAttribute("visibility", "visible");
      readout.textContent = s.name + ": " + (spec.x.label || "x") + " = " + fmt(s.x[j]) + ", " +
        (spec.y.label || "y") + " = " + fmt(s.y[j]) + (s.text ? " (" + s.text[j] + ")" : "");
    }

    function onDown(ev) {
      if (ev.button !== 0) return;
      ev.preventDefault();
      dragFrom = at(ev);
      window.addEventListener("mouseup", onUp, { once: true });
    }

    function onUp(ev) {
      const from = dragFrom, to = at(ev);
      dragFrom = null;
      band.setAttribute("visibility", "hidden");
      if (Math.abs(to[0] - from[0]) < 5 || Math.abs(to[1] - from[1]) < 5) return;  // a click, not a drag
      const xs = [sx.invert(from[0]), sx.invert(to[0])].sort((a, b) => a - b);
      const ys = [sy.invert(from[1]), sy.invert(to[1])].sort((a, b) => a - b);
      zoom = { x: xs, y: ys };
      redraw();
    }

    redraw();
  }

  /** Draws every plot of the document not drawn yet. */
  function renderAll() {
    for (const div of document.querySelectorAll("div.fctlab-plot:not([data-drawn])")) {
      div.setAttribute("data-drawn", "");
      const data = div.querySelector('script[type="application/json"]');
      draw(div, JSON.parse(data.textContent));
    }
  }

  window.fctlabPlots = { renderAll: renderAll, draw: draw };
  renderAll();
})();
