"""What a Coq proof may rest on, by where each axiom comes from: the fully qualified names of the exact modules of
Coq's standard library that declare the axioms the classical reals and CoqInterval's primitive computations need,
and every form that declares an axiom, refused in every file the harness compiles.

``Print Assumptions`` prints each axiom by its shortest name in the current context (``FloatAxioms.add_spec``),
which a file of anyone's (``Slth.FloatAxioms`` declaring ``add_spec``) could share.  So each query file also asks
Coq where every suffix of every allowed name leads (``locate_source``: ``Locate Term`` of each, between markers),
and ``qualify`` turns each printed name into the fully qualified names of every constant it may denote: one allowed
name when it is unambiguous, else the printed name as it stands (which ``family`` refuses).  ``family`` accepts a
name only when it is, exactly, one of ``STANDARD``'s, never by a prefix.

``declarations(text)`` lists the axiom-declaring forms (``FORMS``) outside comments; only the premises a development
still assumes, declared in one list, may be declared by ``Axiom``."""
from __future__ import annotations

import re

__all__ = ["STANDARD", "family", "locate_source", "qualify", "declarations", "strip_comments", "MARK",
           "summary_axioms"]


def _names(root: str, **modules: str) -> tuple[str, ...]:
    """``<root>.<module>.<name>`` for each name of each module (its names separated by spaces), in order."""
    return tuple(f"{root}.{m}.{n}" for m, names in modules.items() for n in names.split())


STANDARD = {  # Coq's standard axioms, by family: the exact fully qualified names Coq 8.16 and CoqInterval rest on
    "classical reals": (
        "Coq.Reals.ClassicalDedekindReals.sig_forall_dec",
        "Coq.Reals.ClassicalDedekindReals.sig_not_dec",
        "Coq.Logic.FunctionalExtensionality.functional_extensionality_dep",
        "Coq.Logic.Classical_Prop.classic",
    ),
    "primitive 63-bit integers": _names("Coq.Numbers.Cyclic.Int63",
        PrimInt63="int lsl lsr land lor lxor add sub mul mulc div mod eqb ltb leb addc addcarryc subc subcarryc "
                  "diveucl diveucl_21 addmuldiv compare head0 tail0 divs mods asr ltsb lesb compares",
        Uint63="of_to_Z lsl_spec lsr_spec land_spec lor_spec lxor_spec add_spec sub_spec mul_spec mulc_spec div_spec "
               "mod_spec eqb_correct eqb_refl ltb_spec leb_spec compare_def_spec head0_spec tail0_spec addc_def_spec "
               "addcarryc_def_spec subc_def_spec subcarryc_def_spec diveucl_def_spec diveucl_21_spec "
               "addmuldiv_def_spec land_spec' lor_spec' lxor_spec' lsr_spec'"),
    "primitive floats": _names("Coq.Floats",
        PrimFloat="float opp abs eqb ltb leb compare mul add sub div sqrt of_uint63 normfr_mantissa frshiftexp "
                  "ldshiftexp next_up next_down classify Leibniz.eqb",
        FloatAxioms="Leibniz.eqb_spec Prim2SF_valid SF2Prim_Prim2SF Prim2SF_SF2Prim opp_spec abs_spec eqb_spec "
                    "ltb_spec leb_spec compare_spec classify_spec mul_spec add_spec sub_spec div_spec sqrt_spec "
                    "of_uint63_spec normfr_mantissa_spec frshiftexp_spec ldshiftexp_spec next_up_spec next_down_spec"),
}
_FAMILY = {name: fam for fam, names in STANDARD.items() for name in names}
MARK = "slth_locate_mark"
"""The marker between the answers of ``Locate Term`` in a query's output (a definition of the query file)."""


def family(axiom: str, extra: dict | None = None) -> str | None:
    """The standard family of a fully qualified Coq axiom name (exactly one of ``STANDARD``'s, or of ``extra``:
    ``{name: family}``), None for any other name, a short one included."""
    return _FAMILY.get(axiom) or (extra or {}).get(axiom)


KEYWORDS = frozenset({"mod"})
"""Suffixes that Coq parses as keywords, not names (``Locate Term mod`` is a syntax error): never located, so a
name printed that way is refused."""


def _suffixes(names) -> list[str]:
    out: dict = {}
    for name in names:
        parts = name.split(".")
        for k in range(len(parts)):
            out[".".join(parts[k:])] = None
    return [s for s in out if s not in KEYWORDS]


def locate_source(extra=()) -> str:
    """Coq sentences asking where every suffix of every allowed name (``STANDARD`` and ``extra``) leads, each
    answer after a marker line (``MARK``); put after a query file's imports, before its ``Print Assumptions``."""
    names = _suffixes([*_FAMILY, *extra])
    return (f"Definition {MARK} := tt.\n"
            + "".join(f"Check {MARK}.\nLocate Term {s}.\n" for s in names) + f"Check {MARK}.\n")


def located(out: str, extra=()) -> dict[str, list[str]]:
    """``{suffix: [fully qualified constants it may denote]}`` from a query's output (``locate_source``)."""
    names = _suffixes([*_FAMILY, *extra])
    chunks = re.split(rf"^{MARK}\n\s+: unit\n", out, flags=re.M)
    if len(chunks) < len(names) + 2:
        return {}
    return {s: re.findall(r"^Constant\s+(\S+)", chunk, flags=re.M) for s, chunk in zip(names, chunks[1:])}


def qualify(blocks: list[list[str]], out: str, extra=()) -> list[list[str]]:
    """Each printed axiom name of ``blocks`` (``check.parse_assumptions``) as the one fully qualified constant it
    denotes, when every constant whose name ends with it is an allowed one (``STANDARD``, ``extra``) and there is
    exactly one; else as printed (not a qualified allowed name: ``family`` refuses it)."""
    where = located(out, extra)
    allowed = set(_FAMILY) | set(extra)

    def one(name):
        found = where.get(name)
        return found[0] if found and len(found) == 1 and found[0] in allowed else name
    return [[one(n) for n in block] for block in blocks]


FORMS = ("Axiom", "Axioms", "Parameter", "Parameters", "Conjecture", "Conjectures", "Hypothesis", "Hypotheses",
         "Variable", "Variables", "Context", "Admitted", "admit", "give_up")
"""Every form that declares an axiom or leaves a goal unproved (``Hypothesis``, ``Variable``, ``Context``: outside
a ``Section`` they declare an axiom)."""
SECTION_ONLY = frozenset({"Hypothesis", "Hypotheses", "Variable", "Variables", "Context"})


_DELIMITER = re.compile(r"\(\*|\*\)")
_VISIBLE = re.compile(r"[^\n]")


def strip_comments(text: str) -> str:
    """``text`` with Coq's (nested) comments blanked out (each character of a comment, its delimiters included, a
    space; its line breaks kept); an unclosed comment is a ValueError.  A ``*)`` outside every comment is text."""
    out, depth, last = [], 0, 0
    for m in _DELIMITER.finditer(text):
        opens = m.group() == "(*"
        if not opens and not depth:
            continue
        between = text[last:m.start()]
        out += [_VISIBLE.sub(" ", between) if depth else between, "  "]
        depth, last = depth + (1 if opens else -1), m.end()
    if depth:
        raise ValueError("unclosed comment")
    out.append(text[last:])
    return "".join(out)


def declarations(text: str, allowed=(), strip=strip_comments) -> list[str]:
    """``'line N: form'`` for each axiom-declaring form of ``text`` outside comments (``strip``: the comment
    stripper); ``Hypothesis``/``Variable``/``Context`` only outside a
    ``Section``; an ``Axiom`` or ``Axioms`` naming only names in ``allowed`` (last components) is not listed; an
    unclosed comment is a ``ValueError``."""
    body = strip(text) if strip else text
    found, opened = [], []  # the Sections and Modules open at this point
    pattern = (r"\b(Section|Module(?:\s+Type)?|End)\s+([\w']+)([^.]*)|(?<![\w.'])(" + "|".join(FORMS)
               + r")(?![\w'])((?:\s+[\w']+)*)")
    for n, line in enumerate(body.splitlines(), 1):
        for m in re.finditer(pattern, line):
            if m.group(1) == "End":
                if opened:
                    opened.pop()
                continue
            if m.group(1):
                if ":=" not in m.group(3):
                    opened.append(m.group(1))
                continue
            form, names = m.group(4), m.group(5).split()
            if form in SECTION_ONLY and "Section" in opened:
                continue
            if form in ("Axiom", "Axioms") and names and all(x in allowed for x in names):
                continue
            found.append(f"line {n}: {form}")
    return found


def parse_assumptions(out: str) -> list[list[str]]:
    """The axiom names of each ``Print Assumptions`` block of coqc's output, in order ([] when closed)."""
    blocks: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith(("Closed under the global context", "Axioms:")):
            blocks.append([])
        elif blocks and line and not line[0].isspace():
            m = re.match(r"([\w.']+)\s*(?::|$)", line)
            if m and m.group(1) not in blocks[-1]:
                blocks[-1].append(m.group(1))
    return blocks


def read_assumptions(out: str, extra=()) -> list[list[str]]:
    """The axioms of each ``Print Assumptions`` block of a query's output, each by its fully qualified name where
    the query's ``Locate`` answers (``assumed.locate_source``) prove it one of the allowed ones, else as printed
    (``assumed.qualify``)."""
    return qualify(parse_assumptions(out), out, extra)


def summary_axioms(out: str) -> list[str]:
    """The fully qualified names under ``* Axioms:`` of coqchk's ``-o`` summary: every constant of the environment
    coqchk loaded that has no body (each library's axioms and primitives, and the fields of each module sealed behind
    a signature), whatever uses them."""
    m = re.search(r"^\* Axioms:\s*\n((?:[ \t]+\S.*\n?)*)", out, flags=re.M)
    return [line.strip() for line in (m.group(1).splitlines() if m else []) if line.strip()]
