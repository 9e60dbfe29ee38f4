"""The tactic filter and the recorded tactics: a recorded or searched tactic is one sentence of the proof language,
nothing else (``tactic_problem``), and ``tactics.json`` is read through it."""
from __future__ import annotations

import json
import re
from pathlib import Path

from slth_base.files import read_text

from .runner import CoqSetupError

COMMITTED = Path(__file__).resolve().parents[3] / "proofs" / "coq"
TACTICS = COMMITTED / "tactics.json"

VERNACULAR = frozenset("""Abort Admitted Defined Qed Save Proof Lemma Theorem Fact Remark Corollary Proposition Property
Example Definition Fixpoint CoFixpoint Let Axiom Axioms Parameter Parameters Conjecture Conjectures Hypothesis
Hypotheses Variable Variables Context Require Import Export From Section End Module Include Set Unset Local Global
Print Check Eval Compute Search Locate About Ltac Tactic Notation Infix Reserved Arguments Opaque Transparent Strategy
Time Fail Succeed Redirect Timeout Instance Class Existing Hint Goal Restart Undo Back Declare Canonical Coercion
Inductive CoInductive Record Structure Variant Primitive Register Extraction Program Obligation Next Drop Quit Reset
Show Focus Unfocus Add Remove Create Scheme Combined Universe Universes Polymorphic Monomorphic Cumulative Type_Scope
Open Close Bind Delimit Enable Disable Attributes""".split())
FORBIDDEN_TACTICS = frozenset("""admit give_up exact_no_check vm_cast_no_check native_cast_no_check change_no_check
abstract transparent_abstract""".split())


def tactic_problem(tactic) -> str | None:
    """None when ``tactic`` is one tactic expression of the cascade's vocabulary (identifiers, numbers, the
    punctuation ``( ) [ ] | ; , : = + - * / ^ < > ?``), else why not: a '.' (it would end the proof's sentence and
    start vernacular), a quote, a brace, a comment, a vernacular keyword (``Abort``, ``Lemma``, ``Qed``, ...) or a
    tactic that admits or skips the check (``admit``, ``give_up``, ``exact_no_check``, ...)."""
    if not isinstance(tactic, str) or not tactic.strip():
        return "not a tactic (empty or not text)"
    if "(*" in tactic or "*)" in tactic:
        return "a comment"
    bad = sorted(set(re.sub(r"[A-Za-z0-9_' \t\n()\[\]|;,:=+\-*/^<>?]", "", tactic)))
    if bad:
        return "characters outside a tactic expression: " + " ".join(repr(c) for c in bad)
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_']*", tactic))
    if words & VERNACULAR:
        return "vernacular: " + ", ".join(sorted(words & VERNACULAR))
    if words & FORBIDDEN_TACTICS:
        return "a tactic that admits or skips the check: " + ", ".join(sorted(words & FORBIDDEN_TACTICS))
    return None


def load_tactics(path: Path = TACTICS) -> dict:
    """The recorded tactics ``{key: tactic | None}``; an entry that is not a tactic expression is kept as
    ``{"refused": why}`` (the lemma is then rejected, never compiled with it)."""
    if not path.exists():
        return {}
    try:
        raw = json.loads(read_text(path, "recorded tactics"))
    except ValueError as exc:
        raise CoqSetupError(f"{path}: not a JSON object of recorded tactics ({exc})") from None
    if not isinstance(raw, dict):
        raise CoqSetupError(f"{path}: not a JSON object of recorded tactics")
    out = {}
    for k, v in raw.items():
        why = None if v is None else tactic_problem(v)
        out[k] = {"refused": why} if why else v
    return out


def tactic(tactics: dict, key: str):
    """(tactic or None, why it is refused or None)."""
    t = tactics.get(key)
    if isinstance(t, dict):
        return None, t.get("refused", "not a tactic")
    why = None if t is None else tactic_problem(t)
    return (None, why) if why else (t, None)


