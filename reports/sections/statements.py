"""Report section "Statements": every statement of the catalogue rendered as MathML from its SymPy objects,
with its width requirements evaluated on a default parameter grid."""
from __future__ import annotations

import html
import itertools
import math

from reports.build import Context, Section

# The default grid of the width tables; alpha takes its smallest admissible value max(sqrt(d1), sqrt(d2)).
GRID = {"d1": (2, 8, 64), "H": (1, 8), "eps": (0.1, 0.01), "L": (2,), "B": (3,), "b": (1, 2, 3)}
DEFAULT_C = 1


def mathml(expr, display: bool = False) -> str:
    """``expr`` (SymPy) as a self-contained MathML element."""
    import sympy as sp
    from sympy.printing.mathml import mathml as to_mathml

    body = to_mathml(sp.sympify(expr), printer="presentation").replace("<mo><</mo>", "<mo>&lt;</mo>").replace(
        "<mo>></mo>", "<mo>&gt;</mo>")
    attr = ' display="block"' if display else ""
    return f"<math{attr}>{body}</math>"


def _grid_points(params: list[str]):
    """The grid restricted to ``params``; d2 follows d1 and alpha its smallest admissible value."""
    axes = {k: v for k, v in GRID.items() if k in params}
    for values in itertools.product(*axes.values()):
        point = dict(zip(axes, values))
        if "b" in point and "B" in point and point["b"] > point["B"]:
            continue
        if "d2" in params:
            point["d2"] = point.get("d1", 2)
        if "alpha" in params:
            point["alpha"] = math.sqrt(max(point["d1"], point.get("d2", point["d1"])))
        yield point


def width_table(st) -> str:
    from bounds.symbols import NAME

    if not st.widths:
        return ""
    free = {NAME[s] for w in st.widths.values() for s in w.free_symbols} - {"C"}
    order = ["d1", "d2", "H", "L", "B", "b", "alpha", "eps"]
    needed = [p for p in order if p in free] + sorted(free - set(order))
    points = [{k: pt[k] for k in needed} for pt in _grid_points(needed)]
    head = "".join(f"<th>{p}</th>" for p in needed) + "".join(f"<th>{w}</th>" for w in st.widths)
    rows = []
    for point in points:
        cells = "".join(f'<td class="num">{v:.4g}</td>' for v in point.values())
        widths = "".join(f'<td class="num">{st.width(w, C=DEFAULT_C, **point):,}</td>' for w in st.widths)
        rows.append(f"<tr>{cells}{widths}</tr>")
    return (f"<p>Smallest widths meeting the requirements at C = {DEFAULT_C} (every requirement is linear in C; "
            f"&alpha; = max(&radic;d<sub>1</sub>, &radic;d<sub>2</sub>), the smallest the hypotheses allow):</p>"
            f"<table><tr>{head}</tr>{''.join(rows)}</table>")


def statement_html(st) -> str:
    n = st.numbering
    parts = [f'<h3 id="st-{st.name}">{html.escape(n.get("appendix", st.name))} '
             f'({html.escape(n.get("main", ""))}): {html.escape(st.title)} <code>{st.name}</code></h3>']
    parts.append("<p>Hypotheses: " + ", ".join(mathml(h.relation) for h in st.hypotheses) + ".</p>")
    parts.append(f"<p>Conclusion: <code>{html.escape(st.quantity)}</code> &le; {mathml(st.conclusion)}")
    if st.probability is not None:
        parts.append(f" with probability &ge; {mathml(st.probability)}")
    parts.append("</p>")
    if st.widths:
        reqs = "".join(f"<li><code>{w}</code> &ge; {mathml(expr)}</li>" for w, expr in st.widths.items())
        parts.append(f"<p>Width requirements:</p><ul>{reqs}</ul>")
    if st.variants:
        vs = "".join(f"<li><code>{v.name}</code>: {html.escape(v.description)}</li>" for v in st.variants.values())
        parts.append(f"<p>Named variants (the printed readings; see the proof table):</p><ul>{vs}</ul>")
    parts.append(width_table(st))
    return "\n".join(parts)


def exponents_html() -> str:
    """Theorem 14's per-block exponents, derived symbolically from the block recursion."""
    from bounds import theorem14

    found = theorem14.exponents()
    rows = []
    for width, ex in found.items():
        for base, poly in ex.items():
            rows.append(f"<tr><td><code>{width}</code></td><td>{html.escape(base)}</td><td>{mathml(poly)}</td></tr>")
    return ("<h3>Theorem 14: exponents of the per-block width requirements</h3>"
            "<p>For a block 2 &le; b &le; B the requirement is d<sub>1</sub> C log(&prod; base<sup>exponent</sup>), "
            "exponents derived by SymPy from the block recursion (polynomials in b and B):</p>"
            f"<table><tr><th>width</th><th>base</th><th>exponent</th></tr>{''.join(rows)}</table>")


def render(ctx: Context) -> Section:
    import bounds

    body = [statement_html(bounds.get(name)) for name in bounds.names()]
    body.append(exponents_html())
    return Section(id="statements", title="Statements", html="\n".join(body),
                   summary=f"{len(bounds.names())} statements rendered from their SymPy objects")
