"""Presentation MathML of SymPy expressions, with the cases SymPy's printer lacks.

SymPy's presentation printer writes a ``Piecewise`` as the raw text ``piecewise((...), True)``; here it is a brace
followed by a table of cases (``value   if condition`` rows, the final ``True`` as "otherwise"), as in the paper.
``presentation(expr)`` returns the body to wrap in ``<math>``; ``mathml(expr)`` the whole ``<math>`` element (what
the run record stores and the report shows).
"""
from __future__ import annotations

import sympy as sp
from sympy.printing.mathml import MathMLPresentationPrinter

__all__ = ["mathml", "presentation"]


class _Printer(MathMLPresentationPrinter):
    def _print_Piecewise(self, expr):
        dom = self.dom
        row = dom.createElement("mrow")
        brace = dom.createElement("mo")
        brace.setAttribute("stretchy", "true")
        brace.appendChild(dom.createTextNode("{"))
        row.appendChild(brace)
        table = dom.createElement("mtable")
        table.setAttribute("columnalign", "left left")
        for value, cond in expr.args:
            tr = dom.createElement("mtr")
            left = dom.createElement("mtd")
            left.appendChild(self._print(value))
            right = dom.createElement("mtd")
            text = dom.createElement("mtext")
            if cond == True:  # noqa: E712 (SymPy's true)
                text.appendChild(dom.createTextNode("\u00a0otherwise"))
                right.appendChild(text)
            else:
                text.appendChild(dom.createTextNode("\u00a0if\u00a0"))
                right.appendChild(text)
                right.appendChild(self._print(cond))
            tr.appendChild(left)
            tr.appendChild(right)
            table.appendChild(tr)
        row.appendChild(table)
        return row


def presentation(expr, **settings) -> str:
    """The presentation MathML of ``expr`` (without the enclosing ``<math>``)."""
    return _Printer(settings).doprint(sp.sympify(expr))


def mathml(expr, display: bool = False) -> str:
    """``expr`` (SymPy) as a self-contained MathML element."""
    body = presentation(sp.sympify(expr)).replace("<mo><</mo>", "<mo>&lt;</mo>").replace(
        "<mo>></mo>", "<mo>&gt;</mo>")
    attr = ' display="block"' if display else ""
    return f"<math{attr}>{body}</math>"
