"""How every surface names a statement: its heading with both of the paper's numberings (the appendix's and the
main text's), from the ``numbering`` a statement of ``bounds/`` declares (a plain dict, so a record's copy serves)."""
from __future__ import annotations


def _primary(numbering: dict, name: str) -> tuple[str, str]:
    """``(the name a statement goes by, what the other numbering adds or "")``."""
    appendix = (numbering.get("appendix") or "").strip()
    main = (numbering.get("main") or "").strip()
    if appendix.split(" ")[0] in ("Lemma", "Theorem", "Corollary"):
        bare = main.strip("()").strip()
        if bare.endswith("appendix only"):
            return appendix, "appendix only"
        same = main == appendix or appendix.startswith(main + " (")  # "Lemma 2 (Pensia et al. 2020)" is Lemma 2
        return appendix, (f"main text: {main}" if main and not same else "")
    if main:  # a cited result: named by its source, with the citation the appendix goes through
        return main, (f"as used by {appendix}" if appendix and appendix != main else "")
    return appendix or name, ""


def numbering_label(numbering: dict, name: str) -> str:
    """A statement's name as the paper numbers it: its appendix number ("Lemma 7"), or for a cited result its
    source ("Lueker (1998), Cor. 3.3")."""
    return _primary(numbering, name)[0]


def numbering_heading(numbering: dict, name: str) -> str:
    """The one heading every surface gives a statement, both numberings: "Theorem 9 (main text: Theorem 3)",
    "Lemma 12 (appendix only)", "Lueker (1998), Cor. 3.3, as used by Pensia et al. (2020)"; the other numbering
    follows a comma instead of parentheses when it holds parentheses itself ("Lemma 8, main text: Lemma 5 (general
    form)"), so no heading nests them."""
    first, other = _primary(numbering, name)
    if "(" in other or other.startswith("as used by "):
        return f"{first}, {other}"
    return f"{first} ({other})" if other else first
