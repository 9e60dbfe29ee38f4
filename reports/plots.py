"""Inline SVG plots for the report: no image files, no network, values on hover, wheel zoom.

``svg_plot`` draws series of points (optionally joined, optionally with interval bars) on linear or log axes, with
reference lines (a bound, eps, a required width, a calibrated C) drawn and labelled; every point carries a
``data-tip`` (shown by the report's tooltip script; lines carry a ``<title>``, the browser's own tooltip).
``SCRIPT`` is the one small script of the page: tooltips on hover, wheel / drag zoom and double-click reset on
every ``svg.plot.zoom``.
``bar_chart`` draws horizontal bars on a log axis (the tightness chart). Everything is escaped; the output is a
string of SVG markup to embed as is.
"""
from __future__ import annotations

import html
import math

__all__ = ["svg_plot", "bar_chart", "SCRIPT", "STYLE", "PALETTE"]

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
           "#bcbd22"]
W, H = 680, 330
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 34, 46


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _num(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) < 1e6):
        return f"{int(v)}"
    return f"{v:.4g}"


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


class _Axis:
    def __init__(self, values, lo_px, hi_px, log):
        vals = [v for v in values if _finite(v) and (v > 0 or not log)]
        self.integer = bool(vals) and all(isinstance(v, int) for v in vals)
        if not vals:
            vals = [1.0] if log else [0.0, 1.0]
        lo, hi = min(vals), max(vals)
        self.log = log
        if log:
            lo, hi = math.log10(lo), math.log10(hi)
            if hi - lo < 1e-9:
                lo, hi = lo - 0.5, hi + 0.5
            pad = 0.05 * (hi - lo)
        else:
            if hi - lo < 1e-12:
                lo, hi = lo - (abs(lo) or 1) * 0.5, hi + (abs(hi) or 1) * 0.5
            pad = 0.06 * (hi - lo)
        self.lo, self.hi = lo - pad, hi + pad
        self.lo_px, self.hi_px = lo_px, hi_px

    def _t(self, v):
        return math.log10(v) if self.log else v

    def ok(self, v) -> bool:
        return _finite(v) and (v > 0 or not self.log)

    def px(self, v) -> float:
        t = self._t(v)
        return self.lo_px + (t - self.lo) / (self.hi - self.lo) * (self.hi_px - self.lo_px)

    def ticks(self) -> list[tuple[float, str]]:
        if self.log:
            first, last = math.ceil(self.lo), math.floor(self.hi)
            step = max(1, math.ceil((last - first + 1) / 7))
            out = [(10.0 ** k, f"1e{k}" if abs(k) > 2 else _num(10.0 ** k)) for k in range(first, last + 1, step)]
            if len(out) < 3:  # two decades or less: 1, 2, 5 (or every digit) times powers of ten
                for mult in ((1, 2, 5), range(1, 10)):
                    out = [(m * 10.0 ** k, _num(m * 10.0 ** k) if -3 < k < 4 else f"{m}e{k}")
                           for k in range(math.floor(self.lo), math.ceil(self.hi) + 1) for m in mult
                           if self.lo <= math.log10(m * 10.0 ** k) <= self.hi]
                    if len(out) >= 3:
                        break
            return out
        if self.integer and self.hi - self.lo <= 14:  # categories 1, 2, ...: a tick at each
            return [(float(k), str(k)) for k in range(math.ceil(self.lo), math.floor(self.hi) + 1)]
        span = self.hi - self.lo
        raw = span / 6
        mag = 10 ** math.floor(math.log10(raw))
        step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=10 * mag)
        k = math.ceil(self.lo / step)
        out = []
        while k * step <= self.hi + 1e-12:
            v = k * step
            out.append((v, _num(round(v, 12))))
            k += 1
        return out


def svg_plot(series: list[dict], *, title: str, xlabel: str, ylabel: str, xlog: bool = False, ylog: bool = False,
             hlines=(), vlines=(), plot_id: str = "", zoom: bool = True, note: str = "", legend_extra=()) -> str:
    """One plot. ``series``: ``{"label", "x", "y", "lo"?, "hi"?, "tips"?, "line"? (join points), "dash"?,
    "marker"? ("circle" | "square" | "none"), "color"?, "legend"? (False: not in the legend)}``; ``hlines``:
    ``(value, label, color)``; ``vlines``: ``(value, label, color[, in_legend])``; ``legend_extra``: more legend
    entries ``("hline" | "vline", label, color)``."""
    width, height = W, H
    entries = (sum(s.get("legend", True) for s in series) + len(hlines) + len(legend_extra)
               + sum(1 for v in vlines if len(v) < 4 or v[3]))
    legend_rows = (entries + 1) // 2
    total_h = height + 16 * legend_rows + 6
    xs = [x for s in series for x in s["x"]] + [v for v, *_ in vlines]
    ys = [y for s in series for y in s["y"]] + [v for v, *_ in hlines]
    ys += [v for s in series for v in (s.get("lo") or []) + (s.get("hi") or [])]
    ax = _Axis(xs, LEFT, width - RIGHT, xlog)
    ay = _Axis(ys, height - BOTTOM, TOP, ylog)
    out = [f'<svg class="plot{" zoom" if zoom else ""}" role="img" xmlns="http://www.w3.org/2000/svg" '
           f'viewBox="0 0 {width} {total_h}" width="{width}" height="{total_h}"'
           + (f' id="{_e(plot_id)}"' if plot_id else "") + f' aria-label="{_e(title)}">',
           f"<title>{_e(title)}</title>",
           f'<rect x="0" y="0" width="{width}" height="{total_h}" fill="#fff"/>',
           f'<text x="{width / 2}" y="18" text-anchor="middle" class="pt">{_e(title)}</text>',
           f'<g class="frame"><rect x="{LEFT}" y="{TOP}" width="{width - LEFT - RIGHT}" '
           f'height="{height - TOP - BOTTOM}" fill="none" stroke="#888"/>']
    for v, label in ax.ticks():
        x = ax.px(v)
        if LEFT - 0.5 <= x <= width - RIGHT + 0.5:
            out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{height - BOTTOM}" stroke="#eee"/>'
                       f'<text x="{x:.1f}" y="{height - BOTTOM + 14}" text-anchor="middle" class="tk">{_e(label)}</text>')
    for v, label in ay.ticks():
        y = ay.px(v)
        if TOP - 0.5 <= y <= height - BOTTOM + 0.5:
            out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{width - RIGHT}" y2="{y:.1f}" stroke="#eee"/>'
                       f'<text x="{LEFT - 5}" y="{y + 3:.1f}" text-anchor="end" class="tk">{_e(label)}</text>')
    out.append(f'<text x="{(LEFT + width - RIGHT) / 2}" y="{height - 10}" text-anchor="middle" class="al">'
               f'{_e(xlabel)}{" (log scale)" if xlog else ""}</text>')
    out.append(f'<text transform="translate(14 {(TOP + height - BOTTOM) / 2}) rotate(-90)" text-anchor="middle" '
               f'class="al">{_e(ylabel)}{" (log scale)" if ylog else ""}</text></g>')
    out.append(f'<clipPath id="clip-{_e(plot_id or id(series))}"><rect x="{LEFT}" y="{TOP}" '
               f'width="{width - LEFT - RIGHT}" height="{height - TOP - BOTTOM}"/></clipPath>')
    out.append(f'<g class="data" clip-path="url(#clip-{_e(plot_id or id(series))})">')
    legend = []
    for value, label, color in hlines:
        if ay.ok(value):
            y = ay.px(value)
            out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{width - RIGHT}" y2="{y:.1f}" stroke="{color}" '
                       f'stroke-width="1.5" stroke-dasharray="6 3"><title>{_e(label)}: {_num(value)}</title></line>')
            legend.append(("hline", label, color))
    for value, label, color, *shown in vlines:
        if ax.ok(value):
            x = ax.px(value)
            out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{height - BOTTOM}" stroke="{color}" '
                       f'stroke-width="2" stroke-dasharray="2 3" data-tip="{_e(label)}: {_num(value)}">'
                       f'<title>{_e(label)}: {_num(value)}</title></line>')
            if not shown or shown[0]:
                legend.append(("vline", label, color))
    legend += legend_extra
    for i, s in enumerate(series):
        color = s.get("color") or PALETTE[i % len(PALETTE)]
        pts = [(x, y, k) for k, (x, y) in enumerate(zip(s["x"], s["y"])) if ax.ok(x) and ay.ok(y)]
        if s.get("line") and len(pts) > 1:
            d = " ".join(f"{'M' if j == 0 else 'L'}{ax.px(x):.1f},{ay.px(y):.1f}" for j, (x, y, _) in enumerate(pts))
            dash = f' stroke-dasharray="{s["dash"]}"' if s.get("dash") else ""
            out.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="1.6"{dash}/>')
        lo, hi = s.get("lo"), s.get("hi")
        marker = s.get("marker", "circle")
        for x, y, k in pts:
            px, py = ax.px(x), ay.px(y)
            if lo and hi and ay.ok(hi[k]):
                y_lo = ay.px(lo[k]) if ay.ok(lo[k]) else height - BOTTOM
                out.append(f'<line x1="{px:.1f}" y1="{y_lo:.1f}" x2="{px:.1f}" y2="{ay.px(hi[k]):.1f}" '
                           f'stroke="{color}" stroke-width="1"/>')
            tip = (s.get("tips") or [None] * len(s["x"]))[k] or f"{s['label']}: x = {_num(x)}, y = {_num(y)}"
            if marker == "none":
                out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4" fill="transparent" class="pt-hit" '
                           f'data-tip="{_e(tip)}"/>')
            elif marker == "square":
                out.append(f'<rect x="{px - 3.5:.1f}" y="{py - 3.5:.1f}" width="7" height="7" fill="{color}" '
                           f'data-tip="{_e(tip)}"/>')
            else:
                out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{color}" data-tip="{_e(tip)}">'
                           '</circle>')
        if s.get("legend", True):
            legend.append(("series", s["label"], color, s.get("line"), s.get("dash"), marker))
    out.append("</g>")
    y0 = height + 4
    for j, (kind, label, color, *style) in enumerate(legend):
        lx = LEFT + (j % 2) * (width - LEFT) / 2
        ly = y0 + 16 * (j // 2)
        if kind == "series":
            line, dash, marker = style
            if line:
                dash = f' stroke-dasharray="{dash}"' if dash else ""
                out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 16}" y2="{ly}" stroke="{color}" stroke-width="1.6"{dash}/>')
            if marker == "square":
                out.append(f'<rect x="{lx + 4.5}" y="{ly - 3.5}" width="7" height="7" fill="{color}"/>')
            elif marker != "none":
                out.append(f'<circle cx="{lx + 8}" cy="{ly}" r="3.5" fill="{color}"/>')
        else:
            dash = "6 3" if kind == "hline" else "2 3"
            out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 16}" y2="{ly}" stroke="{color}" stroke-width="1.5" '
                       f'stroke-dasharray="{dash}"/>')
        out.append(f'<text x="{lx + 22}" y="{ly + 4}" class="lg">{_e(label)}</text>')
    out.append("</svg>")
    figure = "".join(out)
    caption = f'<figcaption>{_e(note)}</figcaption>' if note else ""
    return f'<figure class="chart">{figure}{caption}</figure>'


def bar_chart(rows: list[dict], *, title: str, xlabel: str, plot_id: str = "", line: float | None = 1.0) -> str:
    """Horizontal bars on a log axis: ``rows`` of ``{"label", "value", "tip"?, "group"?}`` (one color per group);
    a reference line at ``line`` (the bound: ratio 1)."""
    rows = [r for r in rows if _finite(r["value"]) and r["value"] > 0]
    height = TOP + 18 * len(rows) + BOTTOM
    label_w = 260
    vals = [r["value"] for r in rows] + ([line] if line else [])
    ax = _Axis(vals, label_w, W - RIGHT, True)
    groups = list(dict.fromkeys(r.get("group", "") for r in rows))
    out = [f'<svg class="plot" role="img" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height}" '
           f'width="{W}" height="{height}"' + (f' id="{_e(plot_id)}"' if plot_id else "") + f' aria-label="{_e(title)}">',
           f"<title>{_e(title)}</title>", f'<rect width="{W}" height="{height}" fill="#fff"/>',
           f'<text x="{W / 2}" y="18" text-anchor="middle" class="pt">{_e(title)}</text>']
    for v, label in ax.ticks():
        x = ax.px(v)
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{height - BOTTOM}" stroke="#eee"/>'
                   f'<text x="{x:.1f}" y="{height - BOTTOM + 14}" text-anchor="middle" class="tk">{_e(label)}</text>')
    base = ax.px(10 ** ax.lo)
    for i, r in enumerate(rows):
        y = TOP + 18 * i + 3
        color = PALETTE[groups.index(r.get("group", "")) % len(PALETTE)]
        tip = r.get("tip") or f"{r['label']}: {_num(r['value'])}"
        out.append(f'<text x="{label_w - 6}" y="{y + 11}" text-anchor="end" class="tk">{_e(r["label"])}</text>'
                   f'<rect x="{base:.1f}" y="{y}" width="{max(ax.px(r["value"]) - base, 1):.1f}" height="13" '
                   f'fill="{color}" data-tip="{_e(tip)}"><title>{_e(tip)}</title></rect>')
    if line:
        x = ax.px(line)
        out.append(f'<line x1="{x:.1f}" y1="{TOP - 4}" x2="{x:.1f}" y2="{height - BOTTOM}" stroke="#000" '
                   f'stroke-dasharray="6 3"/><text x="{x - 4:.1f}" y="{TOP - 6}" text-anchor="end" class="lg">the bound '
                   f'(ratio 1)</text>')
    out.append(f'<text x="{(label_w + W - RIGHT) / 2}" y="{height - 10}" text-anchor="middle" class="al">'
               f'{_e(xlabel)} (log scale)</text></svg>')
    return f'<figure class="chart">{"".join(out)}</figure>'


STYLE = """
figure.chart { margin: .8rem 0; } figure.chart svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
.pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(30rem, 1fr)); gap: .6rem; }
.pair figure.chart { margin: 0; } .pair figure.chart svg { width: 100%; }
svg.plot text { font: 11px system-ui, sans-serif; fill: #222; } svg.plot .pt { font-size: 13px; font-weight: 600; }
svg.plot .al { font-size: 12px; } svg.plot .lg { font-size: 11px; } svg.plot .tk { font-size: 10px; fill: #555; }
svg.plot [data-tip]:hover { stroke: #000; stroke-width: 1.5; } svg.plot.zoom { cursor: crosshair; }
figcaption { font-size: .85rem; color: #444; }
#tip { position: fixed; pointer-events: none; background: #222; color: #fff; padding: 2px 6px; border-radius: 3px;
       font: 12px system-ui, sans-serif; display: none; z-index: 10; max-width: 28rem; }
"""

SCRIPT = """
(function () {
  var tip = document.createElement('div'); tip.id = 'tip'; document.body.appendChild(tip);
  document.addEventListener('mouseover', function (e) {
    var t = e.target.closest && e.target.closest('[data-tip]');
    if (!t) { tip.style.display = 'none'; return; }
    tip.textContent = t.getAttribute('data-tip'); tip.style.display = 'block';
  });
  document.addEventListener('mousemove', function (e) {
    tip.style.left = (e.clientX + 12) + 'px'; tip.style.top = (e.clientY + 12) + 'px';
  });
  document.querySelectorAll('svg.plot.zoom').forEach(function (svg) {
    var home = svg.getAttribute('viewBox').split(' ').map(Number), vb = home.slice(), drag = null;
    function set() { svg.setAttribute('viewBox', vb.join(' ')); }
    function pt(e) { var r = svg.getBoundingClientRect();
      return [vb[0] + (e.clientX - r.left) / r.width * vb[2], vb[1] + (e.clientY - r.top) / r.height * vb[3]]; }
    svg.addEventListener('wheel', function (e) {
      e.preventDefault(); var p = pt(e), f = e.deltaY < 0 ? 0.8 : 1.25;
      f = Math.min(f, home[2] / vb[2]);
      vb = [p[0] - (p[0] - vb[0]) * f, p[1] - (p[1] - vb[1]) * f, vb[2] * f, vb[3] * f]; set();
    }, {passive: false});
    svg.addEventListener('mousedown', function (e) { drag = pt(e); });
    svg.addEventListener('mousemove', function (e) {
      if (!drag) return; var p = pt(e); vb[0] -= p[0] - drag[0]; vb[1] -= p[1] - drag[1]; set();
    });
    window.addEventListener('mouseup', function () { drag = null; });
    svg.addEventListener('dblclick', function () { vb = home.slice(); set(); });
  });
})();
"""
