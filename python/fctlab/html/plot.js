/* fctlab plots: small, dependency-free SVG line plots for fctlab's HTML reports.
 *
 * A plot is a <div class="fctlab-plot"> holding its spec as JSON in a child
 * <script type="application/json">; renderAll() draws every such div not drawn yet. A spec:
 *   {title, x: {label, unit, log, min, max}, y: {label, unit, log, min, max}, step, markers,
 *    facets: [key, ...],
 *    series: [{name, x: [...], y: [...], text: [...] (optional, shown on hover),
 *              facets: {key: value, ...} (optional)}]}
 * `step` draws each curve as a step function (a CDF: the value holds until the next point);
 * null values break a curve. min/max fix an axis end; otherwise it fits the visible data.
 * `unit` is "s", "B" or "b/s" (numbers get the SI prefix that puts them between 1 and 1000:
 * "10 Gb/s", "250 \u00b5s"), another unit or absent; axes.js formats the numbers and picks the
 * ticks.
 *
 * Every curve of a plot has its own colour and dash pattern (and marker shape): ten colours,
 * then the same ten dashed, and so on. With two facets (the link or flow, and the run) the
 * colour follows the first and the dash the second, so one link of two runs is one colour,
 * solid and dashed. Each facet with two or more values gets a selector above the legend.
 *
 * Interaction: a click on a legend entry hides or shows its curve, a double click shows it
 * alone (again: all); a facet's selector shows one of its values; the axes refit. Hovering
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

  const { quantity, scale, axisTicks, minorTicks } = window.fctlabAxes;  // axes.js
  const NS = "http://www.w3.org/2000/svg";
  const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  const DASHES = ["", "7 3", "2 2", "9 3 2 3", "4 2 1 2 1 2", "14 4"];
  const SHAPES = 5;                                         // circle, square, triangle, diamond, down
  const W = 560, H = 340;                                   // viewBox; the SVG scales to its box
  const M = { left: 62, right: 14, top: 26, bottom: 42 };   // margins around the plot area
  const PAD = 8;         // data stays this far inside the frame, so edge markers show whole
  const MARKER_R = 3;
  let clipCount = 0;

  /** A new SVG element with attributes (and text), appended to `parent` if given. */
  function el(tag, attrs, parent, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
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
    if (lo === hi && ax.log) return [lo / 2, hi * 2];
    if (lo === hi) return lo === 0 ? [0, 1] : [lo - Math.abs(lo) / 10, hi + Math.abs(hi) / 10];  // all zero: no negative bytes
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

  /** The path of a marker of `shape` (0 circle, 1 square, 2 triangle, 3 diamond, 4 down) at (x, y). */
  function markerPath(shape, x, y, r) {
    const P = (dx, dy) => (x + dx).toFixed(1) + " " + (y + dy).toFixed(1);
    switch (shape % SHAPES) {
      case 0: return "M" + P(-r, 0) + "a" + r + " " + r + " 0 1 0 " + 2 * r + " 0a" + r + " " + r + " 0 1 0 " + -2 * r + " 0Z";
      case 1: return "M" + P(-r * 0.9, -r * 0.9) + "H" + (x + r * 0.9).toFixed(1) + "V" + (y + r * 0.9).toFixed(1) +
                     "H" + (x - r * 0.9).toFixed(1) + "Z";
      case 2: return "M" + P(0, -r * 1.2) + "L" + P(r * 1.1, r * 0.8) + "L" + P(-r * 1.1, r * 0.8) + "Z";
      case 3: return "M" + P(0, -r * 1.25) + "L" + P(r * 1.25, 0) + "L" + P(0, r * 1.25) + "L" + P(-r * 1.25, 0) + "Z";
      default: return "M" + P(0, r * 1.2) + "L" + P(r * 1.1, -r * 0.8) + "L" + P(-r * 1.1, -r * 0.8) + "Z";
    }
  }

  /** The distinct values of facet `key` over the series, in order of first appearance. */
  function facetValues(spec, key) {
    const seen = [];
    for (const s of spec.series) {
      const v = s.facets && s.facets[key];
      if (v !== undefined && !seen.includes(v)) seen.push(v);
    }
    return seen;
  }

  /** Each series' style {color, dash, shape}, no two alike: with two facets, the colour by the
   *  first (cycling through the ten, with a new dash for each round) and the dash by the
   *  second; otherwise in series order, ten colours per dash pattern. */
  function styles(spec) {
    const C = COLORS.length;
    let pairs = spec.series.map((_, i) => [i % C, Math.floor(i / C)]);
    const keys = spec.facets || [];
    if (keys.length >= 2 && spec.series.every((s) => s.facets && keys.slice(0, 2).every((k) => k in s.facets))) {
      const a = facetValues(spec, keys[0]), b = facetValues(spec, keys[1]);
      const rounds = Math.ceil(a.length / C);
      const faceted = spec.series.map((s) => {
        const i = a.indexOf(s.facets[keys[0]]), j = b.indexOf(s.facets[keys[1]]);
        return [i % C, j * rounds + Math.floor(i / C)];
      });
      if (new Set(faceted.map(String)).size === faceted.length) pairs = faceted;
    }
    return pairs.map(([c, d]) => ({
      color: COLORS[c],
      dash: d < DASHES.length ? DASHES[d] : d + " 3 1 3 1 3",
      shape: d,
    }));
  }

  /** A legend swatch: a short stretch of the curve's line (and its marker). */
  function swatch(style, markers) {
    const svg = el("svg", { width: 26, height: 10, viewBox: "0 0 26 10" });
    svg.style.verticalAlign = "middle";
    svg.style.marginRight = "4px";
    el("line", { x1: 1, x2: 25, y1: 5, y2: 5, stroke: style.color, "stroke-width": 2,
                 "stroke-dasharray": style.dash }, svg);
    if (markers) el("path", { d: markerPath(style.shape, 13, 5, MARKER_R), fill: style.color }, svg);
    return svg;
  }

  /** Draws one plot into `div` from `spec`, with its selectors, legend and readout, and wires the mouse. */
  function draw(div, spec) {
    spec.x = spec.x || {};
    spec.y = spec.y || {};
    const hidden = spec.series.map(() => false);
    const style = styles(spec);
    const chosen = {};  // facet key -> the value shown ("" or absent: all)
    let zoom = null;  // {x: [lo, hi], y: [lo, hi]} while zoomed
    const clipId = "fctlab-clip-" + (++clipCount);

    const svg = el("svg", { viewBox: "0 0 " + W + " " + H, class: "fctlab-svg", role: "img" });
    div.appendChild(svg);
    const selectors = document.createElement("div");
    selectors.className = "fctlab-facets";
    selectors.style.cssText = "font-size: 12px; padding: 2px 4px;";
    const legend = document.createElement("div");
    legend.className = "fctlab-legend";
    legend.style.userSelect = "none";
    const readout = document.createElement("div");
    readout.className = "fctlab-readout";
    readout.textContent = "\u00a0";

    for (const key of spec.facets || []) {
      const values = facetValues(spec, key);
      if (values.length < 2) continue;
      const label = document.createElement("label");
      label.style.marginRight = "14px";
      label.appendChild(document.createTextNode(key + " "));
      const select = document.createElement("select");
      select.setAttribute("data-facet", key);
      for (const v of ["", ...values]) {
        const o = document.createElement("option");
        o.value = v;
        o.textContent = v === "" ? "all" : v;
        select.appendChild(o);
      }
      select.addEventListener("change", () => { chosen[key] = select.value; zoom = null; redraw(); });
      label.appendChild(select);
      selectors.appendChild(label);
    }
    if (selectors.childNodes.length) div.appendChild(selectors);
    div.appendChild(legend);
    div.appendChild(readout);

    /** Whether series `i` is of the facet values chosen. */
    const selected = (i) => Object.keys(chosen).every((k) => !chosen[k] || (spec.series[i].facets || {})[k] === chosen[k]);
    const shown = (i) => !hidden[i] && selected(i);

    const items = spec.series.map((s, i) => {
      const item = document.createElement("span");
      item.className = "fctlab-legend-item";
      item.title = "click: hide or show; double click: this curve alone (again: all)";
      item.appendChild(swatch(style[i], spec.markers));
      item.appendChild(document.createTextNode(s.name));
      item.addEventListener("click", () => { hidden[i] = !hidden[i]; redraw(); });
      item.addEventListener("dblclick", () => {
        // The two clicks before it toggled this curve twice: it is as it was.
        const alone = spec.series.every((_, j) => j === i || !shown(j)) && shown(i);
        spec.series.forEach((_, j) => { hidden[j] = alone ? false : j !== i; });
        redraw();
      });
      legend.appendChild(item);
      return item;
    });

    let sx, sy, points;  // the current scales, and the drawn points in pixels for hovering
    const x0 = M.left, x1 = W - M.right, y0 = H - M.bottom, y1 = M.top;

    /** The scale of one axis: the data's extent PAD pixels inside the frame (a zoom: the frame). */
    function axisScale(axis, visible, a, b) {
      const log = !!spec[axis].log, dir = b > a ? 1 : -1;
      if (zoom) return scale(zoom[axis][0], zoom[axis][1], log, a, b);
      const e = extent(spec, axis, visible);
      return scale(e[0], e[1], log, a + dir * PAD, b - dir * PAD);
    }

    function redraw() {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      items.forEach((item, i) => {
        item.style.display = selected(i) ? "" : "none";
        item.classList.toggle("off", hidden[i]);
      });
      const visible = spec.series.filter((_, i) => shown(i));
      sx = axisScale("x", visible, x0, x1);
      sy = axisScale("y", visible, y0, y1);
      const [xlo, xhi] = [sx.invert(x0), sx.invert(x1)];
      const [ylo, yhi] = [sy.invert(y0), sy.invert(y1)];
      const xt = axisTicks(sx, xlo, xhi, spec.x, true);
      const yt = axisTicks(sy, ylo, yhi, spec.y, false);

      el("text", { x: W / 2, y: 16, class: "fctlab-title" }, svg, spec.title || "");
      const minor = el("g", { class: "fctlab-minor", stroke: "#f4f4f4" }, svg);
      if (sx.log) for (const t of minorTicks(sx, xlo, xhi)) el("line", { x1: sx.map(t), x2: sx.map(t), y1: y0, y2: y1 }, minor);
      if (sy.log) for (const t of minorTicks(sy, ylo, yhi)) el("line", { x1: x0, x2: x1, y1: sy.map(t), y2: sy.map(t) }, minor);
      const grid = el("g", { class: "fctlab-grid" }, svg);
      const xaxis = el("g", { class: "fctlab-axis fctlab-x" }, svg);
      const yaxis = el("g", { class: "fctlab-axis fctlab-y" }, svg);
      xt.t.forEach((t, i) => {
        const p = sx.map(t);
        el("line", { x1: p, x2: p, y1: y0, y2: y1 }, grid);
        el("text", { x: p, y: y0 + 16, "text-anchor": "middle" }, xaxis, xt.texts[i]);
      });
      yt.t.forEach((t, i) => {
        const p = sy.map(t);
        el("line", { x1: x0, x2: x1, y1: p, y2: p }, grid);
        el("text", { x: x0 - 6, y: p + 4, "text-anchor": "end" }, yaxis, yt.texts[i]);
      });
      el("rect", { x: x0, y: y1, width: x1 - x0, height: y0 - y1, class: "fctlab-frame" }, svg);
      el("text", { x: (x0 + x1) / 2, y: H - 6, "text-anchor": "middle", class: "fctlab-label" }, svg, xt.label);
      el("text", { x: 14, y: (y0 + y1) / 2, "text-anchor": "middle", class: "fctlab-label",
                   transform: "rotate(-90 14 " + (y0 + y1) / 2 + ")" }, svg, yt.label);

      const clip = el("clipPath", { id: clipId }, el("defs", {}, svg));
      el("rect", { x: x0, y: y1, width: x1 - x0, height: y0 - y1 }, clip);
      const curves = el("g", { "clip-path": "url(#" + clipId + ")" }, svg);
      points = [];
      spec.series.forEach((s, i) => {
        if (!shown(i)) return;
        const st = style[i];
        el("path", { d: pathOf(s, sx, sy, spec), stroke: st.color, "stroke-dasharray": st.dash,
                     class: "fctlab-curve", "data-series": s.name }, curves);
        for (let j = 0; j < s.x.length; j++) {
          if (!usable(s.x[j], spec.x.log) || !usable(s.y[j], spec.y.log)) continue;
          const px = sx.map(s.x[j]), py = sy.map(s.y[j]);
          points.push([px, py, i, j]);
          if (spec.markers) el("path", { d: markerPath(st.shape, px, py, MARKER_R), fill: st.color, class: "fctlab-marker" }, curves);
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
      hover.setAttribute("stroke", style[best[2]].color);
      hover.setAttribute("visibility", "visible");
      readout.textContent = s.name + ": " + (spec.x.label || "x") + " = " + quantity(s.x[j], spec.x.unit, 4) + ", " +
        (spec.y.label || "y") + " = " + quantity(s.y[j], spec.y.unit, 4) + (s.text ? " (" + s.text[j] + ")" : "");
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
