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
    def _el(self, tag, *children, text=None, **attrs):
        """A new ``tag`` element holding ``text`` (a text node) and ``children``, with ``attrs``."""
        el = self.dom.createElement(tag)
        for name, value in attrs.items():
            el.setAttribute(name, value)
        for child in ([self.dom.createTextNode(text)] if text is not None else []) + list(children):
            el.appendChild(child)
        return el

    def _print_Piecewise(self, expr):
        rows = []
        for value, cond in expr.args:
            left = self._el("mtd", self._print(value))
            if cond == True:  # noqa: E712 (SymPy's true)
                right = self._el("mtd", self._el("mtext", text="\u00a0otherwise"))
            else:
                right = self._el("mtd", self._el("mtext", text="\u00a0if\u00a0"), self._print(cond))
            rows.append(self._el("mtr", left, right))
        return self._el("mrow", self._el("mo", text="{", stretchy="true"),
                        self._el("mtable", *rows, columnalign="left left"))


def presentation(expr, **settings) -> str:
    """The presentation MathML of ``expr`` (without the enclosing ``<math>``)."""
    return _Printer(settings).doprint(sp.sympify(expr))


def mathml(expr, display: bool = False) -> str:
    """``expr`` (SymPy) as a self-contained MathML element."""
    body = presentation(sp.sympify(expr)).replace("<mo><</mo>", "<mo>&lt;</mo>").replace(
        "<mo>></mo>", "<mo>&gt;</mo>")
    attr = ' display="block"' if display else ""
    return f"<math{attr}>{body}</math>"
