"""Self-contained, interactive HTML reports of runs and of reproduced experiments.

- `results`: `fctlab report RESULTS... -o report.html`, and `Result._repr_html_` in notebooks.
- `experiments`: the index.html beside each reproduced experiment's README.md (`fctlab pages`).
- `figures`: plot specs from result tables, cut down deterministically to stay small.
- `page`: the page, the notebook fragment, plots and tables; inlines `style.css`, `axes.js` and
  `plot.js` (a small SVG plotting script of our own: no network, no plotting library in the file).
- `units`: quantities with SI prefixes for the tables, as `axes.js` prints them in the plots.
- `markdown`: README.md to HTML with its images inlined.
- `browser`: headless Chromium to check pages and screenshot them (tests, `fctlab pages --screenshots`).
"""
