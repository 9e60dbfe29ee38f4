"""A first-pass verdict as JSON data and back, with no code run on the way back.

``encode(value)`` writes a verdict tuple (``bounds.prove.verify``'s per-process entry: method, ok, detail, box,
counterexample, domain, margin, certificates, arb) as JSON-able data: a tuple, list or dict as tagged lists, an
integer, a float (``float.hex``: infinities too) or a ``Fraction`` exactly, a SymPy expression as its tree (each node
the name of a class of ``sympy``, a symbol with its assumptions, a number exactly) and the certificate classes
(``bounds.prove.certificate``, ``bounds.core.Param``) field by field.  ``decode(data)`` builds it back, accepting only
those tags and only classes of ``sympy`` that are SymPy expressions; anything else is a ``ValueError``.  A value that
does not come back equal (``roundtrip``) is not stored."""
from __future__ import annotations

import dataclasses
from fractions import Fraction

import sympy as sp

from ..core import Param
from .certificate import Certificate, Coord, Leaf

__all__ = ["encode", "decode", "roundtrip"]

CLASSES = {c.__name__: c for c in (Certificate, Coord, Leaf, Param)}
DEPTH = 400


def encode(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return {"i": str(v)}
    if isinstance(v, float):
        return {"f": v.hex()}
    if isinstance(v, Fraction):
        return {"q": [str(v.numerator), str(v.denominator)]}
    if isinstance(v, tuple) and not dataclasses.is_dataclass(v):
        return {"t": [encode(x) for x in v]}
    if isinstance(v, list):
        return {"l": [encode(x) for x in v]}
    if isinstance(v, dict):
        return {"d": [[encode(k), encode(x)] for k, x in v.items()]}
    if dataclasses.is_dataclass(v) and type(v).__name__ in CLASSES and CLASSES[type(v).__name__] is type(v):
        return {"c": type(v).__name__, "v": {f.name: encode(getattr(v, f.name)) for f in dataclasses.fields(v)}}
    if isinstance(v, sp.Basic):
        return {"s": _expr(v)}
    raise TypeError(f"cannot store a {type(v).__name__}")


def _expr(e: sp.Basic):
    if isinstance(e, sp.Symbol):
        if type(e) is not sp.Symbol:
            raise TypeError(f"cannot store a {type(e).__name__}")
        return {"sym": e.name, "a": {k: v for k, v in sorted(e.assumptions0.items())}}
    if isinstance(e, sp.Integer):
        return {"int": str(int(e))}
    if isinstance(e, sp.Rational):
        return {"rat": [str(e.p), str(e.q)]}
    if isinstance(e, sp.Float):
        sign, man, exp, bc = e._mpf_
        return {"flt": [sign, str(man), exp, bc], "prec": e._prec}
    name = type(e).__name__
    if getattr(sp.S, name, None) is e:  # a singleton: pi, E, oo, zoo, nan, ...
        return {"S": name}
    if getattr(sp, name, None) is not type(e):
        raise TypeError(f"cannot store a {name}")
    return {"n": name, "args": [_expr(a) for a in e.args]}


def decode(d, depth: int = 0):
    if depth > DEPTH:
        raise ValueError("nested too deep")
    if d is None or isinstance(d, (bool, str)):
        return d
    if not isinstance(d, dict) or len(d) not in (1, 2):
        raise ValueError("not a stored value")
    (tag, body), *rest = d.items()
    if tag == "i" and isinstance(body, str) and not rest:
        return int(body)
    if tag == "f" and isinstance(body, str) and not rest:
        return float.fromhex(body)
    if tag == "q" and _pair(body) and not rest:
        return Fraction(int(body[0]), int(body[1]))
    if tag in ("t", "l") and isinstance(body, list) and not rest:
        items = [decode(x, depth + 1) for x in body]
        return tuple(items) if tag == "t" else items
    if tag == "d" and isinstance(body, list) and not rest:
        if not all(isinstance(p, list) and len(p) == 2 for p in body):
            raise ValueError("not a stored mapping")
        return {decode(k, depth + 1): decode(x, depth + 1) for k, x in body}
    if tag == "c" and rest and rest[0][0] == "v" and body in CLASSES and isinstance(rest[0][1], dict):
        cls = CLASSES[body]
        fields = {f.name for f in dataclasses.fields(cls)}
        if set(rest[0][1]) != fields:
            raise ValueError(f"not the fields of a {body}")
        return cls(**{k: decode(x, depth + 1) for k, x in rest[0][1].items()})
    if tag == "s" and not rest:
        return _unexpr(body, depth + 1)
    raise ValueError("not a stored value")


def _pair(body) -> bool:
    return isinstance(body, list) and len(body) == 2 and all(isinstance(x, str) and len(x) < 10000 for x in body)


def _unexpr(d, depth: int):
    if depth > DEPTH:
        raise ValueError("nested too deep")
    if not isinstance(d, dict):
        raise ValueError("not a stored expression")
    if set(d) == {"sym", "a"} and isinstance(d["sym"], str) and isinstance(d["a"], dict) \
            and all(isinstance(k, str) and isinstance(v, bool) for k, v in d["a"].items()):
        return sp.Symbol(d["sym"], **d["a"])
    if set(d) == {"int"} and isinstance(d["int"], str) and len(d["int"]) < 10000:
        return sp.Integer(int(d["int"]))
    if set(d) == {"rat"} and _pair(d["rat"]):
        return sp.Rational(int(d["rat"][0]), int(d["rat"][1]))
    if set(d) == {"flt", "prec"} and isinstance(d["flt"], list) and len(d["flt"]) == 4 and isinstance(d["prec"], int):
        sign, man, exp, bc = d["flt"]
        if not (sign in (0, 1) and isinstance(man, str) and len(man) < 10000 and isinstance(exp, int)
                and isinstance(bc, int)):
            raise ValueError("not a stored float")
        return sp.Float._new((sign, int(man), exp, bc), d["prec"])
    if set(d) == {"S"} and isinstance(d["S"], str):
        one = getattr(sp.S, d["S"], None)
        if not isinstance(one, sp.Basic):
            raise ValueError(f"not a SymPy singleton: {d['S'][:40]}")
        return one
    if set(d) == {"n", "args"} and isinstance(d["n"], str) and isinstance(d["args"], list):
        cls = getattr(sp, d["n"], None)
        if not (isinstance(cls, type) and issubclass(cls, sp.Basic)) or issubclass(cls, (sp.Symbol, sp.Number)):
            raise ValueError(f"not a SymPy expression class: {d['n'][:40]}")
        return cls(*[_unexpr(a, depth + 1) for a in d["args"]], evaluate=False)
    raise ValueError("not a stored expression")


def roundtrip(value):
    """``encode(value)`` when it decodes back equal to ``value`` (else None: such a value is not stored)."""
    try:
        data = encode(value)
        return data if decode(data) == value else None
    except (TypeError, ValueError, RecursionError, AttributeError):
        return None
