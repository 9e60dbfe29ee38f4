"""How every surface prints a counterexample, a coordinate and a worst ratio (``slt.claims`` re-exports these):
never rounded across a hypothesis's boundary; "open end" beside a coordinate next to one."""
from __future__ import annotations


def ratio_text(x) -> str:
    """A worst ratio (measured / bound) as every surface prints it: three significant digits ("0.376")."""
    return f"{x:.3g}"


def exact_number(v) -> str:
    """A coordinate of a point as printed on every surface: six significant digits when they are the number itself,
    else the shortest decimal that reads back as exactly the stored float (``0.9999999990686774``, never ``1``, for a
    point just inside ``eps < 1``): a printed point never crosses a hypothesis's boundary by rounding."""
    if isinstance(v, bool) or not isinstance(v, float):
        return str(v)
    if v != v or v in (float("inf"), float("-inf")):
        return str(v)
    short = f"{v:.6g}"
    return short if float(short) == v else repr(v)


def point_text(cx: dict | None, open_ends: dict | None = None) -> str:
    """A counterexample ``{param: value, ..., "lhs": .., "rhs": ..}`` as ``k = v, ...`` (``point_parts``)."""
    return ", ".join(f"{k} = {v}" for k, v in point_parts(cx, open_ends))


def point_parts(cx: dict | None, open_ends: dict | None = None) -> list[tuple[str, str]]:
    """A counterexample's ``[(name, printed value)]``: every parameter exactly (``exact_number``), ``lhs`` and
    ``rhs`` with as many digits as it takes for them to differ; a parameter next to an open end of its domain
    (``open_ends``: ``{name: [[bound, "eps < 1"], ...]}``, within a relative 1e-6) says so: "(open end eps < 1)"."""
    if not cx:
        return []
    near = {}
    for k, ends in (open_ends or {}).items():
        v = cx.get(k)
        for bound, words in ends:
            if isinstance(v, (int, float)) and abs(v - bound) <= 1e-6 * max(1.0, abs(bound)):
                near[k] = f" (open end {words})"
    sides = {k: cx[k] for k in ("lhs", "rhs") if isinstance(cx.get(k), float)}
    digits = 6
    if len(sides) == 2:
        while digits < 17 and f"{sides['lhs']:.{digits}g}" == f"{sides['rhs']:.{digits}g}":
            digits += 1
    order = sorted(cx, key=lambda k: (k in ("lhs", "rhs"), k))  # one order, however the point was built
    return [(k, f"{cx[k]:.{digits}g}" if k in sides else exact_number(cx[k]) + near.get(k, ""))
            for k in order if k in sides or not isinstance(cx[k], (list, dict))]
