"""The hand-written Coq mathematics (``proofs/coq/math/``, built and checked by ``bounds.prove.coq_math``).

- Every file compiles (in a temporary folder); Lemma 8 and Lemma 5 (and the other named theorems) rest only on
  the classical axioms of Coq's reals (none on CoqInterval's primitive integers and floats). A planted axiom is
  reported.
- No ``Admitted``, ``admit``, ``Axiom``, ``Parameter`` or ``Conjecture`` in the files; the scan finds each word
  when it is planted, and ignores it in a comment.
- Faithfulness: at rational inputs drawn here (seeded; T = 3, d1 = 2, H = 2), Coq proves with CoqInterval that its
  masked softmax, one head, the MHA at X and at perturbed tokens X' (each within 1e-12), the block and the norm
  ||Attn(x_i) - Attn(x'_i)|| that Lemma 12 bounds (within 1e-9) lie that close to what ``slt.models`` computes in
  float64.
- Mutations of a definition (the mask dropped from the softmax, the 1/sqrt(d_K) dropped, a head summed once too
  often, ReLU as the identity, the norm without its square root) make that check fail at the lemma of the mutated
  object; dropping the mask also breaks the proofs of ``Softmax.v`` (its masked-position and nonnegativity lemmas).

- Each statement's theorem of ``Statements.v`` compiles with its bound printed from ``bounds/`` and rests on the
  premises declared for it; a halved bound fails it, and so do Lemma 12's declared mutation, Lemma 13 as printed,
  and either theorem without its hypothesis ``premise_lemma12_x'``. Finding 10: the paper's proof of Lemma 12's
  logit step without ``||x'_i|| <= alpha`` is rejected by Coq, with it accepted, and the printed step is false.

The tests that run coqc skip with the reason when it (or CoqInterval) is missing, and FAIL when ``CI=true``."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from fractions import Fraction

import numpy as np
import pytest

import sympy as sp

from bounds import catalogue

from bounds.prove import coq_math, coq_statements, coq_text
from bounds.prove.coq.check import missing_reason
from slt import models
from tests.coq_shared import compile_statements, fails_in

T, D1, DK, DV, H, HIDDEN = 3, 2, 2, 2, 2, 3
TOL = {"softmax": Fraction(1, 10**12), "head": Fraction(1, 10**12), "mha": Fraction(1, 10**12),
       "block": Fraction(1, 10**9), "mhap": Fraction(1, 10**12), "gap": Fraction(1, 10**9)}
"""How close Coq's value must be to slt's float64 value, per object: 1e-9 for the block, whose check starts from
the MHA entries' enclosures (1e-12) and may widen them by its Lipschitz constant (at most 1 + 2 * 3 here)."""
SEED = 34


def needs_coq():
    reason = missing_reason()
    if reason:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and {reason}: .ci/run must install coq and libcoq-interval")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The committed files, the scalar step files and the generated Statements.v, compiled once per session
    (``tests/coq_shared.py``), in a private copy this module may write into."""
    from tests.coq_shared import private_copy

    return private_copy(tmp_path_factory, "coq_math")


# --- the files compile, and rest only on the standard axioms ----------------------------------------------------

def test_every_file_compiles_and_nothing_is_left_in_the_repository(built):
    stems = set(coq_math.sources())
    assert {"Objects", "Sums", "Softmax", "Matrix", "Blocks", "Attention", "Triangle", "Induction", "Lemma12",
            "Perturbation", "Mha", "OneLayer", "Uniform", "Deep", "Transformer"} <= stems
    assert {p.stem for p in built.glob("*.vo")} >= stems
    assert not list(coq_math.MATH.glob("*.vo")) and not list(coq_math.MATH.glob("*.glob"))


def test_lemma8_and_lemma5_rest_only_on_the_standard_axioms(built, tmp_path_factory):
    """Every theorem of ``coq_math.THEOREMS``, asked together, rests on Coq's standard axioms only (one ``Print
    Assumptions`` of their tuple: an odd axiom of any one would be in it, ``test_a_planted_axiom_is_reported``);
    every one of them on the classical reals only: no theorem of the files rests on CoqInterval's primitive integers
    and floats (Lemma 5's one numeric inequality is proved from ``exp 1 <= 3``, not by ``interval``)."""
    from tests.coq_shared import REAL_ONLY, shared_assumptions

    rests = shared_assumptions(tmp_path_factory)  # coq_math.assumptions in groups, once per session
    assert set(rests) == {"every", "lemma8", "lemma5", "real only"}
    assert coq_math.unexpected(rests["every"]) == []
    assert coq_math.families(rests["every"]) == ["classical reals"]
    assert coq_math.families(rests["lemma8"]) == ["classical reals"]
    assert coq_math.families(rests["lemma5"]) == ["classical reals"]
    assert coq_math.families(rests["real only"]) == ["classical reals"]
    assert set(REAL_ONLY) < {n for names in coq_math.THEOREMS.values() for n in names}


def test_a_planted_axiom_is_reported(built, tmp_path, monkeypatch):
    for f in built.glob("*.vo"):
        shutil.copy(f, tmp_path)
    (tmp_path / "Planted.v").write_text(
        "From Coq Require Import Reals.\nFrom SlthMath Require Import Objects.\nOpen Scope R_scope.\n"
        "Axiom cheat : forall x : R, x <= 0.\nLemma planted : norm 1 (fun _ => 1) <= 0.\n"
        "Proof. apply cheat. Qed.\nLemma clean : norm 1 (fun _ => 0) = norm 1 (fun _ => 0).\nProof. reflexivity. Qed.\n")
    ok, why = coq_math.compile_file(tmp_path, "Planted")
    assert ok, why
    rests = coq_math.assumptions(tmp_path, {"Planted": ("planted", "clean")})
    assert [a.split(".")[-1] for a in coq_math.unexpected(rests["planted"])] == ["cheat"]
    assert coq_math.unexpected(rests["clean"]) == []
    together = coq_math.assumptions(tmp_path, {"Planted": ("planted", "clean")},
                                    groups={"both": ("clean", "planted"), "clean": ("clean",)})
    assert [a.split(".")[-1] for a in coq_math.unexpected(together["both"])] == ["cheat"]  # asked together: found
    assert coq_math.unexpected(together["clean"]) == []
    for groups in ({"x": ("lemma8",)}, {"x": ()}):
        with pytest.raises(ValueError):
            coq_math.assumptions(tmp_path, {"Planted": ("planted", "clean")}, groups=groups)
    assert coq_math.unexpected(rests["planted"], premises=("cheat",)) != []  # a premise is named in full
    monkeypatch.setattr(coq_math, "PREMISES", ("SlthMath.Planted.cheat",))  # declared in the one allow-list
    rests = coq_math.assumptions(tmp_path, {"Planted": ("planted",)})
    assert "SlthMath.Planted.cheat" in rests["planted"]
    assert coq_math.unexpected(rests["planted"], premises=coq_math.PREMISES) == []


# --- nothing admitted or assumed ---------------------------------------------------------------------------------

def test_no_admitted_axiom_or_parameter_in_the_files():
    for stem, text in coq_math.sources().items():
        assert coq_math.forbidden(text) == [], stem


@pytest.mark.parametrize("text, word", [
    ("Lemma x : False.\nProof. admit. Admitted.\n", "admit"),
    ("Lemma x : False.\nProof. Admitted.\n", "Admitted"),
    ("Axiom a : False.\n", "Axiom"),
    ("Parameter p : nat.\n", "Parameter"),
    ("Conjecture c : False.\n", "Conjecture"),
])
def test_the_scan_finds_each_forbidden_word(text, word):
    hits = coq_math.forbidden("(* a comment: Admitted, Axiom *)\n" + text)
    assert hits and all(h.startswith("line ") for h in hits)
    assert any(h.endswith(": " + word) for h in hits)
    assert coq_math.forbidden("(* nested (* Admitted *) Axiom *)\n") == []


def test_a_declared_premise_may_be_an_axiom_and_nothing_else():
    assert coq_math.forbidden("Axiom lueker : False.\n", premises=("lueker",)) == []
    assert coq_math.forbidden("Axiom other : False.\n", premises=("lueker",)) == ["line 1: Axiom"]
    assert coq_math.PREMISES == ()


def test_import_order_and_its_errors():
    files = coq_math.sources()
    order = coq_math.order(files)
    for k, stem in enumerate(order):
        assert set(coq_math.imports(files[stem])) <= set(order[:k]), stem
    with pytest.raises(ValueError, match="imports Missing"):
        coq_math.order({"A": "From SlthMath Require Import Missing."})
    with pytest.raises(ValueError, match="import cycle"):
        coq_math.order({"A": "From SlthMath Require Import B.", "B": "From SlthMath Require Import A."})


# --- faithfulness: Coq's objects evaluated against slt.models --------------------------------------------------

def _q(x) -> str:
    """A float64 (or a rational) as an exact Coq real."""
    f = Fraction(x) if isinstance(x, Fraction) else Fraction(float(x))
    return f"({f.numerator} / {f.denominator})" if f.denominator != 1 else f"({f.numerator})"


def _table(name: str, typ: str, arr) -> str:
    """A Coq function with ``arr``'s entries at its indices and 1 elsewhere (so that a definition reading past
    its sizes changes the value)."""
    arr = np.asarray(arr)
    idx = [f"i{k}" for k in range(arr.ndim)]
    cases = ["  | " + ", ".join(f"{p}%nat" for p in pos) + f" => {_q(arr[pos])}" for pos in np.ndindex(arr.shape)]
    cases.append("  | " + ", ".join("_" for _ in idx) + " => 1")
    return (f"Definition {name} : {typ} := fun {' '.join(idx)} =>\n  match {', '.join(idx)} with\n"
            + "\n".join(cases) + "\n  end.\n")


def draw(rng):
    """Rational inputs (multiples of 1/64 in [-1, 1]) at which every mutation changes the value it touches by more
    than 1e-6 at the checked token ``i``: a mask row with a masked position, a negative ReLU pre-activation, the
    logit scale and an extra head (weights all 1, as the tables read past their sizes) that matter."""
    r = lambda *s: rng.integers(-64, 65, size=s) / 64
    while True:
        mask = rng.random((T, T)) < 0.6
        mask[np.arange(T), rng.integers(0, T, T)] = True
        rows = [i for i in range(T) if not mask[i].all()]
        if not rows:
            continue
        i = rows[0]
        d = dict(mask=mask, i=i, X=r(T, D1), WQ=r(H, D1, DK), WK=r(H, D1, DK), WV=r(H, D1, DV), WO=r(H, DV, D1),
                 W0=r(HIDDEN, D1), W1=r(D1, HIDDEN), z=r(T))
        w = models.MHAWeights(d["WQ"], d["WK"], d["WV"], d["WO"])
        att = models.mha(d["X"], w, mask)[i]
        Y = att + d["X"][i]
        unscaled = models.mha(d["X"], models.MHAWeights(d["WQ"], d["WK"], d["WV"], d["WO"], scale=1.0), mask)[i]
        ones = models.MHAWeights(*(np.ones((1,) + a.shape[1:]) for a in (d["WQ"], d["WK"], d["WV"], d["WO"])))
        extra = models.mha(d["X"], ones, mask)[i]
        unmasked = models.masked_softmax(d["z"], np.ones(T, bool)) - models.masked_softmax(d["z"], mask[i])
        linear = Y @ d["W0"].T @ d["W1"].T - np.maximum(Y @ d["W0"].T, 0) @ d["W1"].T
        if min(np.abs(unscaled - att).max(), np.abs(extra).max(), np.abs(unmasked).max(),
               np.abs(linear).max()) > 1e-6:
            break
    while True:  # the perturbed tokens X' of Lemmas 12 and 13: a gap whose square (the norm without its root) differs
        d["Xp"] = d["X"] + r(T, D1) / 8
        gap = np.linalg.norm(att - models.mha(d["Xp"], w, mask)[i])
        if abs(gap - gap**2) > 1e-6:
            return d


def faithfulness_source(d) -> tuple[str, dict]:
    """The .v file that proves, at the drawn point, that Coq's softmax, head 0, MHA and block at token ``i`` lie
    within TOL of slt's values; and ``{lemma: object}``."""
    i = d["i"]
    w = models.MHAWeights(d["WQ"], d["WK"], d["WV"], d["WO"])
    values = {
        "softmax": models.masked_softmax(d["z"], d["mask"][i]),
        "head": models.mha(d["X"], models.MHAWeights(*(d[k][:1] for k in ("WQ", "WK", "WV", "WO"))), d["mask"])[i],
        "mha": models.mha(d["X"], w, d["mask"])[i],
        "block": models.block(d["X"], models.Block(w, models.ReLUNet((d["W0"], d["W1"]))), d["mask"])[i],
        "mhap": models.mha(d["Xp"], w, d["mask"])[i],
    }
    values["gap"] = [np.linalg.norm(values["mha"] - values["mhap"])]  # what Lemma 12 bounds, at X and X'
    terms = {
        "softmax": lambda j: f"softmax 3 (a {i}%nat) z {j}%nat",
        "head": lambda c: f"head 3 2 2 2 (WQ 0%nat) (WK 0%nat) (WV 0%nat) (WO 0%nat) X a {i}%nat {c}%nat",
        "mha": lambda c: f"mha {H} 3 2 2 2 WQ WK WV WO X a {i}%nat {c}%nat",
        "block": lambda c: f"block {H} 3 2 2 2 WQ WK WV WO 2 dims W X a {i}%nat {c}%nat",
        "mhap": lambda c: f"mha {H} 3 2 2 2 WQ WK WV WO Xp a {i}%nat {c}%nat",
        "gap": lambda _: f"norm 2 (vsub (mha {H} 3 2 2 2 WQ WK WV WO X a {i}%nat) (mha {H} 3 2 2 2 WQ WK WV WO Xp a "
                         f"{i}%nat))",
    }
    out = [
        "From Coq Require Import Reals Lra.", "From Interval Require Import Tactic.",
        "From SlthMath Require Import Objects.", "Open Scope R_scope.", "",
        "Lemma Rmax0_abs : forall x, Rmax 0 x = (x + Rabs x) / 2.",
        "Proof. intros x. unfold Rmax. destruct (Rle_dec 0 x); [rewrite Rabs_pos_eq | rewrite Rabs_left]; lra. Qed.",
        "Lemma abs_sub_between : forall x v r, Rabs (x - v) <= r -> v - r <= x <= v + r.",
        "Proof. intros x v r H. pose proof (Rle_abs (x - v)). pose proof (Rle_abs (- (x - v))).",
        "  rewrite Rabs_Ropp in *. lra. Qed.", "",
        _table("a", "mat", d["mask"].astype(float)), _table("z", "vec", d["z"]), _table("X", "mat", d["X"]),
        _table("Xp", "mat", d["Xp"]),
        *(_table(k, "nat -> mat", d[k]) for k in ("WQ", "WK", "WV", "WO")),
        _table("W0", "mat", d["W0"]), _table("W1", "mat", d["W1"]),
        "Definition W (l : nat) : mat := match l with 0%nat => W0 | _ => W1 end.",
        f"Definition dims (l : nat) : nat := match l with 1%nat => {HIDDEN}%nat | _ => {D1}%nat end.", "",
        "Ltac faith := cbv beta iota zeta delta [softmax sum mha head logits dot vecmat matmul INR a z X Xp WQ WK WV WO];"
        " interval with (i_prec 70).",
        # the block from the MHA entries' enclosures (proved above): the MHA terms are generalised, the rest unfolded
        "Ltac faith_block m0 m1 := cbv beta iota zeta delta [block vadd relu_net hidden vrelu matvec sum pred dims];",
        "  pose proof (abs_sub_between _ _ _ m0) as H0; pose proof (abs_sub_between _ _ _ m1) as H1; revert H0 H1;",
        f"  generalize (mha {H} 3 2 2 2 WQ WK WV WO X a {i}%nat 0%nat)",
        f"    (mha {H} 3 2 2 2 WQ WK WV WO X a {i}%nat 1%nat);",
        "  intros y0 y1 H0 H1; cbv beta iota zeta delta [relu X W W0 W1]; repeat rewrite Rmax0_abs;",
        "  interval with (i_prec 70).",
        # Lemma 12's quantity ||Attn(x_i) - Attn(x'_i)|| from the enclosures of the MHA entries at X and at X'
        "Ltac faith_gap m0 m1 p0 p1 := cbv beta iota zeta delta [norm vsub sum];",
        "  pose proof (abs_sub_between _ _ _ m0) as H0; pose proof (abs_sub_between _ _ _ m1) as H1;",
        "  pose proof (abs_sub_between _ _ _ p0) as H2; pose proof (abs_sub_between _ _ _ p1) as H3; revert H0 H1 H2 H3;",
        f"  generalize (mha {H} 3 2 2 2 WQ WK WV WO X a {i}%nat 0%nat) (mha {H} 3 2 2 2 WQ WK WV WO X a {i}%nat 1%nat)",
        f"    (mha {H} 3 2 2 2 WQ WK WV WO Xp a {i}%nat 0%nat) (mha {H} 3 2 2 2 WQ WK WV WO Xp a {i}%nat 1%nat);",
        "  intros y0 y1 y2 y3 H0 H1 H2 H3; interval with (i_prec 70).", "",
    ]
    lemmas = {}
    tactics = {"block": "faith_block faithful_mha_0 faithful_mha_1",
               "gap": "faith_gap faithful_mha_0 faithful_mha_1 faithful_mhap_0 faithful_mhap_1"}
    for obj in ("softmax", "head", "mha", "block", "mhap", "gap"):
        for k, v in enumerate(values[obj]):
            name = f"faithful_{obj}_{k}"
            lemmas[name] = obj
            tactic = tactics.get(obj, "faith")
            out.append(f"Lemma {name} : Rabs ({terms[obj](k)} - {_q(v)}) <= {_q(TOL[obj])}.\nProof. {tactic}. Qed.\n")
    return "\n".join(out), lemmas


@pytest.fixture(scope="module")
def faithful():
    d = draw(np.random.default_rng(SEED))
    return faithfulness_source(d)


def _failing_lemma(source: str, why: str) -> str | None:
    m = re.search(r"line (\d+)", why)
    name = None
    for n, line in enumerate(source.splitlines(), 1):
        if m and n > int(m.group(1)):
            break
        hit = re.match(r"Lemma (\w+)", line)
        if hit:
            name = hit.group(1)
    return name


def test_coq_objects_agree_with_slt_at_drawn_rational_points(built, faithful, tmp_path):
    source, lemmas = faithful
    assert set(lemmas.values()) == {"softmax", "head", "mha", "block", "mhap", "gap"}
    for f in built.glob("Objects.vo"):
        shutil.copy(f, tmp_path)
    (tmp_path / "Faith.v").write_text(source)
    ok, why = coq_math.compile_file(tmp_path, "Faith")
    assert ok, why


def test_a_wrong_value_fails_the_faithfulness_check(built, faithful, tmp_path):
    source, _ = faithful
    m = re.search(r"(Lemma faithful_mha_0 : Rabs \(.*? - )\((-?\d+) / (\d+)\)\)", source)
    assert m
    wrong = Fraction(int(m.group(2)), int(m.group(3))) + Fraction(1, 10**8)
    source = source.replace(m.group(0), f"{m.group(1)}{_q(wrong)})")
    shutil.copy(built / "Objects.vo", tmp_path)
    (tmp_path / "Faith.v").write_text(source)
    ok, why = coq_math.compile_file(tmp_path, "Faith")
    assert not ok and _failing_lemma(source, why) == "faithful_mha_0", why


MUTATIONS = {  # name -> (text of Objects.v, its mutation, the object whose faithfulness lemma must fail)
    "softmax without its mask": (
        "fun j => a j * exp (z j) / sum T (fun k => a k * exp (z k)).",
        "fun j => exp (z j) / sum T (fun k => exp (z k)).", "softmax"),
    "1/sqrt(d_K) dropped": (
        "fun k => dot dK (vecmat d1 (X i) WQ) (vecmat d1 (X k) WK) / sqrt (INR dK).",
        "fun k => dot dK (vecmat d1 (X i) WQ) (vecmat d1 (X k) WK).", "head"),
    "a head summed once too often": (
        "fun c => sum H (fun h =>", "fun c => sum (S H) (fun h =>", "mha"),
    "ReLU as the identity": (
        "Definition relu (x : R) : R := Rmax 0 x.", "Definition relu (x : R) : R := x.", "block"),
    "the norm without its square root": (
        "Definition norm (n : nat) (v : vec) : R := sqrt (sum n (fun i => v i * v i)).",
        "Definition norm (n : nat) (v : vec) : R := sum n (fun i => v i * v i).", "gap"),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_a_mutated_definition_fails_the_faithfulness_check(built, faithful, tmp_path, mutation):
    old, new, obj = MUTATIONS[mutation]
    objects = (coq_math.MATH / "Objects.v").read_text()
    assert objects.count(old) == 1, f"Objects.v no longer contains {old!r}"
    (tmp_path / "Objects.v").write_text(objects.replace(old, new))
    ok, why = coq_math.compile_file(tmp_path, "Objects")
    assert ok, why
    source, lemmas = faithful
    (tmp_path / "Faith.v").write_text(source)
    ok, why = coq_math.compile_file(tmp_path, "Faith")
    assert not ok, f"{mutation}: the faithfulness check still compiles"
    assert lemmas.get(_failing_lemma(source, why)) == obj, why


def test_the_mask_dropped_breaks_a_proof_of_the_softmax_file(tmp_path):
    needs_coq()
    old, new, _ = MUTATIONS["softmax without its mask"]
    files = coq_math.sources()
    files = {k: v for k, v in files.items() if k in ("Objects", "Sums", "Softmax")}
    files["Objects"] = files["Objects"].replace(old, new)
    ok, why = coq_math.compile(tmp_path, files)
    assert not ok and why.startswith("Softmax.v"), why


def test_each_proved_premise_is_a_known_premise_with_reported_theorems():
    assert coq_math.premise_map_errors() == []
    assert len(coq_math.PROVED_PREMISES) == 8
    assert coq_math.premise_map_errors({"no such premise": ("lemma8",)}) == ["unknown premise 'no such premise'"]
    assert coq_math.premise_map_errors({"Hoelder step": ("no_such_lemma",)}) == [
        "'Hoelder step': theorem no_such_lemma is not reported"]


def test_the_command_takes_no_arguments(capsys):
    assert coq_math.main(["extra"]) == 2
    assert "usage: python -m bounds.prove.coq_math" in capsys.readouterr().err


# --- the Coq theorems state the catalogue's bounds -------------------------------------------------------------

def coq_conclusion(stem: str, theorem: str, names: dict) -> sp.Expr:
    """The right side of the last ``<=`` of ``theorem``'s statement in ``stem``.v, read as SymPy (``INR d1`` is the
    real d1, ``eps`` the catalogue's eps_max; ``names``: identifier -> the catalogue's symbol)."""
    text = coq_math.strip_comments((coq_math.MATH / f"{stem}.v").read_text())
    m = re.search(rf"Theorem {theorem}\s*:(.*?)\.\s*\nProof", text, re.S)
    assert m, f"{theorem} not found in {stem}.v"
    rhs = m.group(1).rsplit("<=", 1)[1]
    rhs = re.sub(r"\bINR\s+(\w+)", r"\1", " ".join(rhs.split()))
    assert re.fullmatch(r"[\w\s()*/+\-.]+", rhs), rhs
    return sp.sympify(rhs, locals={**names, "eps": names["epsilon_max"], "sqrt": sp.sqrt, "exp": sp.exp})


def _same(coq: sp.Expr, bound: sp.Expr, symbols: dict, rng) -> bool:
    for _ in range(20):
        at = {symbols["d1"]: int(rng.integers(1, 65)), symbols["alpha"]: sp.Rational(int(rng.integers(1, 4097)), 64),
              symbols["epsilon_max"]: sp.Rational(int(rng.integers(0, 33)), 64)}
        a, b = sp.N(coq.subs(at), 30), sp.N(bound.subs(at), 30)
        if abs(a - b) > 1e-20 * max(1, abs(b)):
            return False
    return sp.simplify(coq - bound) == 0


@pytest.mark.parametrize("name", ["lemma8", "lemma5"])
def test_the_coq_theorem_states_the_catalogues_bound(name):
    st = catalogue.get(name)
    symbols = {str(x): x for x in st.conclusion.free_symbols}
    coq = coq_conclusion("Softmax", name, symbols)
    assert _same(coq, st.conclusion, symbols, np.random.default_rng(SEED))
    muts = [m for m in st.mutations if m.where == "conclusion" and m.statement == name]
    assert muts
    for mut in muts:  # each mutation of the bound in bounds/ no longer matches the Coq theorem
        assert not _same(coq, st.conclusion.subs(mut.old, mut.new), symbols, np.random.default_rng(SEED)), mut.name


# --- the premises stated in Coq, and each statement one theorem -----------------------------------------------

def test_the_premise_table_covers_exactly_the_fifteen_premises():
    from bounds.premises import ALL
    assert set(coq_math.PREMISE_COQ) == {p.name for p in ALL} and len(ALL) == 15
    assert coq_math.premise_table_errors() == []
    less = dict(coq_math.PREMISE_COQ)
    del less["Hoelder step"]
    assert coq_math.premise_table_errors(less) == ["premise 'Hoelder step' has no Coq statement"]
    assert coq_math.premise_table_errors({**coq_math.PREMISE_COQ, "no such premise": "premise_hoelder"}) == [
        "'no such premise' is not a premise of bounds.premises"]
    assert coq_math.premise_table_errors({**coq_math.PREMISE_COQ, "Hoelder step": "premise_missing"}) == [
        "'Hoelder step': premise_missing is not defined in Premises.v"]


@pytest.mark.parametrize("old, new", [
    ("premise_power_as_exp : Prop :=\n  (forall g L, -1 < g",  # the identity claimed for g > -2 as well
     "premise_power_as_exp : Prop :=\n  (forall g L, -2 < g"),
    ("head_merged T d1 (WQK dK WQ WK) (WVO dV WV WO) X a i c.",  # the merged head without the 1/sqrt(dK) scale
     "head_merged T d1 (WQK 1 WQ WK) (WVO dV WV WO) X a i c."),
    # uniformity with the input's dimension where the features' belongs: false for Lemma 2's halves (N = 2n)
    ("sqrt (INR m) * sqrt (INR N) * eta * beta.", "sqrt (INR m) * sqrt (INR n) * eta * beta."),
    # uniformity without the features' norm bound: the features may be longer than the input
    ("    (forall x, norm N (phi x) <= norm n x) ->\n    (E ->", "    (E ->"),
    # the induction over blocks forgetting the error a block propagates (its Lipschitz bound lip_b)
    ("  (forall b, eps b + lip b <= delta (S b)) ->\n  0 <= delta O", "  (forall b, eps b <= delta (S b)) ->\n  0 <= delta O"),
], ids=["power-for-g-above-minus-2", "merge-without-scale", "uniform-input-dimension", "uniform-unbounded-features",
        "blocks-without-propagation"])
def test_a_wrong_statement_of_a_proved_premise_fails_its_proof(built, tmp_path, old, new):
    text = (coq_math.MATH / "Premises.v").read_text()
    assert text.count(old) == 1
    for f in built.iterdir():
        if f.suffix in (".vo", ".v") and f.stem not in ("Premises", "Statements", "StatementAssumptions"):
            shutil.copy(f, tmp_path / f.name)
    (tmp_path / "Premises.v").write_text(text.replace(old, new))
    ok, why = coq_math.compile_file(tmp_path, "Premises")
    assert not ok and why.startswith("Premises.v line"), why


def test_the_proved_premises_are_those_premises_v_proves():
    assert set(coq_math.proved_premises()) == set(coq_math.PROVED_PREMISES)
    text = (coq_math.MATH / "Premises.v").read_text().replace("Lemma premise_hoelder_holds", "Lemma hoelder_again")
    assert "Hoelder step" not in coq_math.proved_premises(text)
    assert coq_math.declared_errors({}) == []


def test_the_generated_statements_have_no_admitted_or_axiom():
    assert coq_math.forbidden(coq_math.statements_file()) == []
    assert coq_math.forbidden(coq_math.statements_file() + "\nAxiom lueker_holds : False.\n") == [
        f"line {len(coq_math.statements_file().splitlines()) + 2}: Axiom"]


@pytest.fixture(scope="module")
def chain(built, tmp_path_factory):
    """The committed Statements.v compiled as a chain of its chunks, once per session (``tests/coq_shared.py``): a
    mutated Statements.v is compiled from its first changed chunk on (``coq_shared.compile_statements``)."""
    from tests.coq_shared import statements_chain

    return statements_chain(tmp_path_factory)


@pytest.fixture(scope="module")
def stated(built, tmp_path_factory):
    """What each theorem of ``Statements.v`` (generated from the catalogue, compiled beside the committed files in
    ``built``) rests on: ``coq_math.rests_on``, asked of Coq once per session (``tests/coq_shared.py``)."""
    from tests.coq_shared import shared_rests

    assert (built / "Statements.v").read_text() == coq_math.statements_file()
    return shared_rests(tmp_path_factory)


def _relied_on(name: str) -> set[str]:
    """The statements the steps of ``name`` rely on and, in turn, theirs (Theorem 11 relies on Theorem 10, which
    relies on Lemma 2)."""
    seen, todo = set(), [s for step in catalogue.proof(name) for s in step.relies_on]
    while todo:
        s = todo.pop()
        if s in seen or s not in catalogue.STATEMENTS:
            continue
        seen.add(s)
        todo += [r for step in catalogue.proof(s) for r in step.relies_on]
    return seen


def test_each_statement_theorem_compiles_and_rests_on_its_declared_premises(stated):
    assert set(stated) == set(coq_math.FORMAL)
    for name, (premises, axioms) in stated.items():
        assert premises == list(coq_math.FORMAL[name][1]), name
        assert coq_math.unexpected(axioms) == [], name
        # each rests on premises its proof steps cite, the lemmas they use cite, or statements its steps rely on
        cites = {f"statement {s}" for s in _relied_on(name)}
        assert set(premises) <= set(coq_math.chain_premises(name)) | cites, name
    assert coq_math.declared_errors(stated) == []
    wrong = {**stated, "lemma8": (["uniformity over inputs"], [])}
    assert coq_math.declared_errors(wrong) == ["stmt_lemma8 rests on ['uniformity over inputs'], declared []"]



def _expected_counts(stated):
    """The count line as the test reads Coq's answer itself: a statement with an encoded proof (Lueker's corollary,
    the cited result, is none) counts when the premises its theorem rests on are none, Lueker's event, or the
    hypothesis its repaired form adds (Lemma 12's and Lemma 13's ||x'_i|| <= alpha), and when its Section in
    Statements.v names a probability, or the statement has none; a premise counts when Premises.v proves
    ``<proposition>_holds``."""
    from bounds.catalogue import STATEMENTS, lookup
    from bounds.premises import ALL
    encoded = [n for n, st in STATEMENTS.items() if st.steps(lookup(STATEMENTS))]
    text = coq_math.with_statements()["Statements"]
    own = {n: {"Lemma 12's ||x'_i|| <= alpha"} for n in ("lemma12", "lemma13")}

    def probability(n):
        section = re.search(rf"Section {n}\.(.*?)End {n}\.", text, re.S)
        return STATEMENTS[n].probability is None or bool(
            section and re.search(r"\b(Pr|Prob\w*|prob_\w+|probability\w*|measure\w*|outer_prob\w*)\b",
                                  coq_math.strip_comments(section.group(1))))

    alone = sum(1 for n in encoded if n in stated and set(stated[n][0]) <= {"Lueker for every z at once", "Lueker's item distribution"} | own.get(n, set())
                and probability(n))
    proved = sum(1 for prop in coq_math.PREMISE_COQ.values()
                 if re.search(rf"\b(Lemma|Theorem) {re.escape(prop)}_holds\b", coq_math.sources()["Premises"]))
    return (f"premises proved in Coq: {proved} of {len(ALL)}; statements proved in Coq from Lueker's corollary "
            f"alone, probabilities included: {alone} of {len(encoded)} ({coq_statements.ALONE_MEANS})")


def _block(report: str, name: str) -> str:
    """The lines of ``statements_report`` about statement ``name``."""
    return re.search(rf"^[^\n]*\[{name}\]:.*?(?=^\S|\Z)", report, re.S | re.M).group(0)


def test_the_report_counts_what_coq_says(stated):
    """Per statement the Coq theorem first: its Print Assumptions, what its type assumes, its probability, and
    whether that proves it from Lueker's corollary alone; Lueker's corollary itself is never counted."""
    report = coq_math.statements_report(stated)
    assert report.splitlines()[-1] == _expected_counts(stated)
    lemma8 = _block(report, "lemma8")
    assert ("Print Assumptions of the 10 statement theorems together (stmt_lemma8 among them): Coq's standard axioms "
            "only") in lemma8
    assert "its type assumes: no premise" in lemma8 and "\n  proved in Coq from Lueker's corollary alone" in lemma8
    for name in ("lemma2", "lemma7", "theorem9", "theorem10", "theorem11", "theorem14"):
        block = _block(report, name)
        assert "Lueker for every z at once (premise_lueker_event)" in block, block
        assert "probability: NOT stated" not in block and "NOT proved in Coq from Lueker's corollary alone" not in block
        assert "conclusion, assumed" not in block  # no cited per-block or per-layer conclusion is left
    assert "a cited result" in _block(report, "lueker")
    assert "not formalized" not in report  # every statement of the catalogue has its Coq theorem
    assert "[theorem11]: not formalized" in coq_math.statements_report({k: v for k, v in stated.items()
                                                                        if k != "theorem11"})
    alone = int(re.search(r"probabilities included: (\d+) of", report.splitlines()[-1]).group(1))
    more = {**stated, "lemma8": (["uniformity over inputs"], [])}  # a premise beyond Lueker's: no longer counted
    assert coq_math.statements_report(more).endswith(f"probabilities included: {alone - 1} of 10 "
                                                     f"({coq_statements.ALONE_MEANS})")
    assert coq_math.statements_report({}).endswith(f"probabilities included: 0 of 10 ({coq_statements.ALONE_MEANS})")


@pytest.mark.parametrize("name", list(coq_math.FORMAL))
def test_a_halved_bound_in_bounds_fails_its_coq_theorem(chain, stated, tmp_path, monkeypatch, name):
    import dataclasses

    from bounds.catalogue import STATEMENTS
    st = STATEMENTS[name]
    monkeypatch.setitem(STATEMENTS, name, dataclasses.replace(st, conclusion=st.conclusion / 2))
    text = coq_math.statements_file()
    assert text != coq_math.statements_file({**STATEMENTS, name: st})
    fails_in(chain, tmp_path, text, f"Theorem stmt_{name} ", name)


def test_a_chained_compile_answers_as_the_whole_file(built, chain, tmp_path):
    """``coq_shared.compile_statements`` compiles a mutated Statements.v from its first changed chunk on: a harmless
    edit of a late Section (a comment) compiles there, and a mutation of an early one is rejected with the message and
    the line the whole file's compile gives."""
    from bounds.catalogue import STATEMENTS
    text = coq_math.statements_file()
    at = text.index("Section theorem11.") + len("Section theorem11.")
    harmless = tmp_path / "harmless"
    harmless.mkdir()
    ok, why = compile_statements(chain, harmless, text[:at] + "\n(* a comment *)" + text[at:])
    assert ok, why
    assert not (harmless / "StmtChunk8.vo").exists() and (harmless / "StmtChunk7.vo").exists()  # theorem11 is chunk 8
    width = "lemma7 width: log(d1 d2/eps) -> log(d1/eps)"
    (mutation,) = [m for m in catalogue.get("lemma7").mutations if m.name == width]
    mutated = coq_math.statements_file({**STATEMENTS, "lemma7": mutation.edit.apply(STATEMENTS["lemma7"])})
    chained = tmp_path / "chained"
    chained.mkdir()
    whole = tmp_path / "whole"
    whole.mkdir()
    for f in built.iterdir():
        if f.suffix in (".vo", ".v") and f.stem != "Statements":
            shutil.copy(f, whole / f.name)
    (whole / "Statements.v").write_text(mutated)
    expected = coq_math.compile_file(whole, "Statements")
    assert not expected[0] and compile_statements(chain, chained, mutated) == expected


def _rejected_in_its_theorem(chain, tmp_path, name, catalogue, begins: str = "Theorem stmt_{name} ") -> str:
    """Statements.v generated from ``catalogue``, compiled beside the committed files (``coq_shared.fails_in``):
    Coq's error, which must lie inside ``stmt_<name>`` (from the line ``begins`` to the end of its Section)."""
    return fails_in(chain, tmp_path, coq_math.statements_file(catalogue), begins.format(name=name), name)


@pytest.mark.parametrize("name, edit", [
    ("lemma12", "lemma12: exp(4 alpha eps_max) -> exp(2 alpha eps_max)"),  # the statement's declared mutation
    ("lemma13", "printed"),  # the printed statement: half the bound its proof ends with
])
def test_a_mutated_bound_of_lemma12_or_13_in_bounds_fails_its_coq_theorem(chain, stated, tmp_path, name, edit):
    import dataclasses

    from bounds.catalogue import STATEMENTS
    st = STATEMENTS[name]
    if edit in st.variants:
        wrong = st.variant(edit)
    else:
        (mut,) = [m for m in st.mutations if m.name == edit and m.where == "conclusion"]
        wrong = dataclasses.replace(st, conclusion=st.conclusion.subs(mut.old, mut.new))
    assert wrong.conclusion != st.conclusion
    assert coq_math.printed_bound(name, {**STATEMENTS, name: wrong}) != coq_math.printed_bound(name)
    _rejected_in_its_theorem(chain, tmp_path, name, {**STATEMENTS, name: wrong})


def test_lemma12s_theorem_needs_its_premise(chain, stated, tmp_path):
    """Without the Section hypothesis premise_lemma12_x' the proof of stmt_lemma12 (and of stmt_lemma13) has no
    bound on the perturbed tokens and is rejected."""
    from bounds.catalogue import STATEMENTS
    for name in ("lemma12", "lemma13"):
        text = coq_math.FORMAL[name][2]
        hyp = "Hypothesis x'_in_ball : premise_lemma12_x' T d1 X' alpha.\n"
        assert text.count(hyp) == 1
        saved = coq_math.FORMAL[name]
        try:
            coq_math.FORMAL[name] = (saved[0], saved[1], text.replace(hyp, ""))
            why = _rejected_in_its_theorem(chain, tmp_path, name, STATEMENTS)
        finally:
            coq_math.FORMAL[name] = saved
        assert "x'_in_ball" in why, why


def test_finding10_coq_rejects_lemma12s_printed_logit_step_and_proves_it_false(built, stated):
    """Lemma 12's logit step as printed (only ||x_i||, ||x_k|| <= alpha): the paper's argument is rejected by Coq at
    the line that needs ||x'_i|| <= alpha, and accepted with that hypothesis; Coq proves the printed step false; the
    theorem of Lemma 12 rests on that premise.  The finding is decided from this check (slt.measure.findings)."""
    from slt.measure import findings
    from reports.record import verified
    from slt.cache import read_record

    result = coq_math.printed_logit_check(built)
    committed = read_record(verified.COMMITTED / "verified-lemma12.json")  # what a record of this tree shows
    if committed["key"] == verified.lemma12_key():  # else no record uses it: it replays
        assert committed["result"] == result, (committed["result"], result)
    assert result["proof"] == "rejected" and result["gap_line"], result
    assert result["with_hypothesis"] == "accepted", result
    assert result["refuted"] and result["theorem"] == ["Lemma 12's ||x'_i|| <= alpha"], result
    item = findings.lemma12_kernel({"statements": [], "coq_lemma12": result})
    assert item["status"] == "proof step fails" and item["test"].endswith(
        "::test_finding10_coq_rejects_lemma12s_printed_logit_step_and_proves_it_false")
    assert "rejected by Coq" in item["sentences"][0] and "accepted" in item["sentences"][0]
    # a proof that goes through (the statement with the hypothesis) is not the finding
    accepted = coq_math.printed_logit_check(built, coq_math.PRINTED_LOGIT_WITH_HYPOTHESIS.replace(
        "lemma12_logit_with_hypothesis", "lemma12_logit_as_printed"))
    assert accepted["proof"] == "accepted" and not accepted["gap_line"]
    assert findings.lemma12_kernel({"statements": [], "coq_lemma12": accepted})["status"] == "not reproduced"
    undecided = {"statements": [], "coq_lemma12": {"undecided": "coqc not found"}}
    assert findings.lemma12_kernel(undecided)["status"] == "not decided"
    assert findings.lemma12_kernel({"statements": []})["status"] == "not in this record"


def test_the_statements_page_shows_each_coq_theorem_from_the_generated_file(monkeypatch):
    import dataclasses

    from bounds.catalogue import STATEMENTS
    from reports.statements_page import statement_section
    generated = coq_math.statements_file()
    for name in STATEMENTS:
        section = statement_section(name)
        coq = coq_math.coq_statement(name)
        if name in coq_math.FORMAL:
            assert coq in generated and f"```coq\n{coq}\n```" in section, name
        elif name == coq_math.CITED:  # the cited result: its statement as a hypothesis, no theorem
            cited = coq_math.cited_statement()
            assert coq is None and cited in generated and f"```coq\n{cited}\n```" in section
            assert "Definition lueker_cited" in cited and "**In Coq**: the cited result" in section
        else:
            assert coq is None and "**In Coq**: not formalized" in section, name
    st = STATEMENTS["lemma8"]
    monkeypatch.setitem(STATEMENTS, "lemma8", dataclasses.replace(st, conclusion=st.conclusion / 2))
    assert coq_math.printed_bound("lemma8") in statement_section("lemma8")
    assert coq_math.printed_bound("lemma8") != coq_math.printed_bound("lemma8", {"lemma8": st})


def test_statements_rests_reports_the_counts_and_a_rejected_theorem(built, stated, monkeypatch):
    import dataclasses

    from bounds.catalogue import STATEMENTS

    def reuse(directory, files):  # the committed files as compiled by ``built``; only Statements.v is compiled anew
        for f in built.iterdir():
            if f.suffix in (".vo", ".v") and f.stem not in ("Statements", "StatementAssumptions"):
                shutil.copy(f, directory / f.name)
        (directory / "Statements.v").write_text(files["Statements"])
        return coq_math.compile_file(directory, "Statements")

    monkeypatch.setattr(coq_math, "compile", lambda d, files: reuse(__import__("pathlib").Path(d), files))
    # what the theorems of the unchanged Statements.v rest on is Coq's answer already asked once this session
    # (the ``stated`` fixture); a Statements.v that compiled differently would be asked again
    asked = coq_math.rests_on
    monkeypatch.setattr(coq_math, "rests_on", lambda d, *a: stated if not a and (Path(d) / "Statements.v").read_text()
                        == coq_math.statements_file() else asked(d, *a))
    rc, rests, errors = coq_math.statements_rests()
    assert rc == 0, errors
    assert coq_math.statements_report(rests).splitlines()[-1] == _expected_counts(stated)
    st = STATEMENTS["lemma7"]
    monkeypatch.setitem(STATEMENTS, "lemma7", dataclasses.replace(st, conclusion=st.conclusion / 2))
    rc, rests, errors = coq_math.statements_rests()
    assert rc == 1 and rests is None and errors[0].startswith("rejected: Statements.v line"), errors
    monkeypatch.setattr(coq_math, "missing_reason", lambda: "coqc not found")
    assert coq_math.statements_rests() == (2, None, ["error: coqc not found"])


# --- Theorem 10: the layers composed, from Lemma 2's conclusion per layer ----------------------------------------



def test_theorem10s_printed_bound_and_budget_mutations_are_compiled_by_the_printed_field_test():
    """The bound exp(alpha eps/2) - 1 and the layer budget eps/(2L) are printed from bounds/: each of the catalogue's
    mutations of them (exp(alpha eps), eps/L) is among the printed fields' mutations, which
    ``test_a_planted_mutation_of_a_printed_field_fails_its_coq_theorem`` compiles, each failing inside
    stmt_theorem10's Section."""
    from bounds.catalogue import STATEMENTS
    cited = {m.name for m in _cited_mutations()}
    for where in ("conclusion", "constants.budget"):
        muts = [m.name for m in STATEMENTS["theorem10"].mutations if m.where == where]
        assert muts and set(muts) <= cited, (where, muts)


def test_theorems_10_and_11_rest_on_lueker_alone_and_cite_no_conclusion(built, stated):
    """stmt_theorem10 and stmt_theorem11 are proved from stmt_lemma2 and stmt_theorem9 (with probabilities): their
    closed types quantify over Lueker's corollary and the item law only, no statement's conclusion."""
    for name in ("theorem10", "theorem11"):
        assert stated[name][0] == ["Lueker for every z at once", "Lueker's item distribution"], name
        assert coq_math.unexpected(stated[name][1]) == [], name
    assert not {"lemma2", "theorem9"} & set(coq_math.CITED_COQ)
    assert "lemma2_conclusion" not in coq_math.FORMAL["theorem10"][2]
    assert "theorem9_conclusion" not in coq_math.FORMAL["theorem11"][2]


@pytest.mark.parametrize("old, new", [
    ("theorem9_masks H d1 dK dV (n_MHA / d1) (s w) t alpha e9) e9).",
     "theorem9_masks H d1 dK dV (n_MHA / d1) (s w) t alpha (e9 / 2)) e9)."),
    ("apply Rle_trans with (e9 + e10); [assert", "apply Rle_trans with (e10); [assert"),
], ids=["mha-budget-halved", "union-bound-without-the-mha"])
def test_a_wrong_step_of_theorem11s_proof_fails(chain, stated, tmp_path, monkeypatch, old, new):
    """The proof is the paper's chain: Theorem 9's error at a smaller budget than it gives, or the union bound B5
    without the MHA's failure, does not go through."""
    saved = coq_math.FORMAL["theorem11"]
    assert old in saved[2]
    monkeypatch.setitem(coq_math.FORMAL, "theorem11", (saved[0], saved[1], saved[2].replace(old, new)))
    _rejected_in_its_theorem(chain, tmp_path, "theorem11", None)


@pytest.mark.parametrize("old, new, lemma", [
    ("matvec n B2 (vrelu (matvec d B1 u))", "matvec n B2 (matvec d B1 u)", "pair_scale"),
    ("if Nat.even k then a (Nat.div2 k) else b (Nat.div2 k)", "if Nat.even k then b (Nat.div2 k) else a (Nat.div2 k)",
     "interleave_even"),
], ids=["pair-without-relu", "source-layers-swapped"])
def test_a_mutated_source_breaks_theorem10s_proof(tmp_path, old, new, lemma):
    """The source net is the pairs u |-> B2 ReLU(B1 u) in turn, B1 first: a pair without its ReLU, or the two layers
    of each pair swapped, makes Deep.v fail at the lemma that pins the definition down."""
    needs_coq()
    files = coq_math.sources()
    assert files["Deep"].count(old) == 1
    files["Deep"] = files["Deep"].replace(old, new)
    keep = {"Objects", "Sums", "Softmax", "Matrix", "Triangle", "Induction", "Deep"}
    ok, why = coq_math.compile(tmp_path, {k: v for k, v in files.items() if k in keep})
    assert not ok and why.startswith("Deep.v"), why
    line = int(re.match(r"Deep\.v line (\d+)", why).group(1))
    before = [ln for ln in files["Deep"].splitlines()[:line] if ln.startswith(("Lemma ", "Theorem "))]
    assert before[-1].split()[1] == lemma, why

# --- the counts and the blueprint are measured from the declarations, never typed -----------------------------------

def test_the_counts_and_the_blueprint_follow_formal_and_premises_v(monkeypatch):
    from bounds.premises import ALL

    c = coq_math.counts()
    encoded = coq_statements.proved_statements()
    alone = [n for n in coq_math.FORMAL if n in encoded and coq_statements.proved_alone(n, coq_math.FORMAL[n][1])]
    # the cited result is never counted as proved: it has no encoded proof and no entry of FORMAL, only its Section
    assert "lueker" not in encoded and "lueker" not in coq_math.FORMAL
    assert "Definition lueker_cited" in coq_math.statements_file()
    assert c == {"proved": len(coq_math.proved_premises()), "premises": len(ALL), "alone": len(alone),
                 "statements": len(encoded)}
    assert coq_math.counts({n: (list(p), []) for n, p in coq_math.declared_rests().items()}) == c  # Coq's form
    bp = coq_math.blueprint()
    assert bp["line"] == coq_math.counts_line(c) == (
        f"premises proved in Coq: {c['proved']} of {len(ALL)}; statements proved in Coq from Lueker's corollary "
        f"alone, probabilities included: {len(alone)} of {len(encoded)} ({coq_statements.ALONE_MEANS})")
    assert {n for n, s in bp["statements"].items() if s["formalized"]} == set(coq_math.FORMAL)
    assert {n for n, s in bp["statements"].items() if s["lueker_alone"]} == set(alone)
    assert {n for n, p in bp["premises"].items() if p["proved"]} == set(coq_math.proved_premises())
    assert set(bp["premises"]) == {p.name for p in ALL}
    # a wrong state: lemma8 not formalized, a premise no longer proved
    assert "lemma8" in alone
    monkeypatch.setattr(coq_text, "FORMAL", {k: v for k, v in coq_text.FORMAL.items() if k != "lemma8"})
    assert coq_math.counts()["alone"] == len(alone) - 1
    assert coq_math.blueprint()["statements"]["lemma8"] == {
        "formalized": False, "theorem": None, "rests_on": None, "lueker_alone": False, "probability": False,
        "differences": [], "cites": coq_math.cited_premises("lemma8")}
    text = (coq_math.MATH / "Premises.v").read_text().replace("premise_hoelder_holds", "premise_hoelder_was")
    assert coq_math.counts(text=text)["proved"] == c["proved"] - 1
    assert not coq_math.blueprint(text=text)["premises"]["Hoelder step"]["proved"]


def test_a_probabilistic_statement_counts_only_when_its_coq_theorem_states_the_probability():
    """Theorem 9 rests on Lueker's corollary alone (its event and its item law) and its Coq theorem states the
    probability, so it counts; a Statements.v whose Section of Theorem 9 names no probability takes it out, and so
    does a premise beyond Lueker's."""
    files = coq_math.with_statements()
    rests = coq_math.declared_rests()
    assert rests["theorem9"] == ["Lueker for every z at once", "Lueker's item distribution"]
    assert coq_statements.states_probability("theorem9", files=files)
    assert coq_statements.proved_alone("theorem9", rests["theorem9"], files=files)
    assert not coq_statements.proved_alone("theorem9", rests["theorem9"] + ["uniformity over inputs"], files=files)
    text = files["Statements"]
    start, end = text.index("Section theorem9."), text.index("End theorem9.")
    section = re.sub(r"\b(outer_prob|whp)", r"no_\1", text[start:end])  # the same Section, its probability renamed
    planted = {**files, "Statements": text[:start] + section + text[end:]}
    assert not coq_statements.states_probability("theorem9", files=planted)
    assert not coq_statements.proved_alone("theorem9", rests["theorem9"], files=planted)
    assert coq_math.counts(files=planted)["alone"] == coq_math.counts(files=files)["alone"] - 1


def test_every_structural_fact_names_the_coq_theorem_that_proves_it_or_why_not(tmp_path):
    from bounds.facts import STRUCTURAL
    from bounds.prove import axioms

    assert axioms.structural_errors() == []
    for fact in STRUCTURAL:
        status = axioms.structural_status(fact)
        assert status.startswith(("proved in Coq: ", "not proved in Coq: ")), status
    assert axioms.structural_status("triangle").startswith("proved in Coq: norm_triangle (proofs/coq/math/Triangle.v)")
    assert axioms.structural_status("union bound").startswith(
        "proved in Coq: union_bound (proofs/coq/math/Probability.v)")
    # a theorem renamed in its file, or a fact left out, is named
    for f in coq_math.MATH.glob("*.v"):
        (tmp_path / f.name).write_text(f.read_text().replace("Theorem norm_triangle", "Theorem norm_triangle_was"))
    assert axioms.structural_errors(folder=tmp_path) == [
        "triangle: norm_triangle is not declared in proofs/coq/math/Triangle.v"]
    wrong = {k: v for k, v in axioms.STRUCTURAL_COQ.items() if k != "union bound"}
    assert axioms.structural_errors(wrong) == ["union bound: no entry in STRUCTURAL_COQ"]


def test_axioms_coq_prints_each_coq_theorem_first_then_what_its_steps_cite():
    """``slth proofs --axioms --coq``'s text (without compiling: the declared rests and Lemma 8's real assumption
    family): Lemma 8's block opens with its Coq theorem resting on Coq's axioms only, its structural facts say
    which Coq theorem proves them, and the last line is the blueprint's count line."""
    from reports.proofs import coq_axioms_text

    stated = {n: (p, ["Coq.Reals.ClassicalDedekindReals.sig_forall_dec"]) for n, p in coq_math.declared_rests().items()}
    text = coq_axioms_text(["lemma8", "theorem9"], stated, {})
    lemma8 = text.split("\n\n")[0].splitlines()
    assert lemma8[0] == "== lemma8" and "Coq theorem stmt_lemma8" in lemma8[1]
    together = f"Print Assumptions of the {len(stated)} statement theorems together (stmt_lemma8 among them)"
    assert lemma8[2].strip() == f"{together}: Coq's standard axioms only (classical reals: 1)"
    short = {n: (p, ["ClassicalDedekindReals.sig_forall_dec"]) for n, p in coq_math.declared_rests().items()}
    line = coq_axioms_text(["lemma8"], short, {}).split("\n\n")[0].splitlines()[2].strip()
    assert line == f"{together}: OTHER AXIOMS: ClassicalDedekindReals.sig_forall_dec"  # not qualified
    own = dict(stated, lemma8=(stated["lemma8"][0], []))  # the lists differ: each is the statement's own
    line = coq_axioms_text(["lemma8"], own, {}).split("\n\n")[0].splitlines()[2].strip()
    assert line == "Print Assumptions stmt_lemma8: closed under the global context (no axioms)"
    convex = next(i for i, line in enumerate(lemma8) if "structural fact: convex combination" in line)
    assert lemma8[convex + 1].strip().startswith("proved in Coq: norm_combination (proofs/coq/math/Triangle.v)")
    assert "cited, not verified" not in text
    assert text.splitlines()[-1] == coq_math.blueprint()["line"]


def test_proofs_axioms_coq_without_a_folder_uses_the_kernels_folder(monkeypatch, tmp_path):
    """``slth proofs --axioms --coq`` (no DIR) compiles in the kernel's folder; an explicit ``--coq ''`` stays a
    usage error."""
    from bounds.prove import kernel
    from bounds.prove.coq import check
    from reports import cli, proofs

    seen = []
    monkeypatch.setattr(kernel, "folder", lambda: tmp_path / "kernel")
    monkeypatch.setattr(check, "prepare", lambda d: seen.append(("prepare", str(check.output_dir(d)))))
    monkeypatch.setattr(proofs, "_print_axioms", lambda name: 0)
    monkeypatch.setattr(proofs, "_print_coq_axioms", lambda name, d: seen.append(("coq", d)) or 0)
    assert cli.main(["proofs", "--axioms", "--coq"]) == 0
    assert seen == [("prepare", str(tmp_path / "kernel")), ("coq", str(tmp_path / "kernel"))]
    seen.clear()
    assert cli.main(["proofs", "--axioms", "--coq", ""]) == 2 and seen == []

# --- the statements' theorems cite the exported scalar steps and the constants of bounds/ ----------------------

def test_placeholders_print_the_constants_and_step_instances_of_bounds():
    from bounds.prove.coq.printer import coq
    st = catalogue.get("theorem9")
    assert coq_math.fill("theorem9", "{c:eps_QK}") == coq_text._naturals("theorem9", coq(st.constants["eps_QK"]))
    assert "(INR d1)" in coq_math.fill("theorem9", "{c:eps_QK}") and "(INR H)" in coq_math.fill("theorem9", "{c:eps_QK}")
    assert coq_math.fill("theorem9", "{step:S2c-i}") == "(step_theorem9_S2c_i (INR H) (INR d1) eps (INR d2) alpha)"
    assert coq_math.fill("theorem9", "{step:S3c}") == "(step_theorem9_S3c eps)"
    with pytest.raises(KeyError, match="no constant 'nothing'"):
        coq_math.fill("theorem9", "{c:nothing}")
    with pytest.raises(KeyError, match="no step 'S9'"):
        coq_math.fill("theorem9", "{step:S9}")
    t14 = catalogue.get("theorem14")
    assert coq_math.fill("theorem14", "{t:delta}") == coq_text._naturals("theorem14", coq(t14.terms["delta"]))
    assert "(INR b)" in coq_math.fill("theorem14", "{t:beta}")
    with pytest.raises(KeyError, match="no term 'gamma'"):
        coq_math.fill("theorem14", "{t:gamma}")


def test_each_cited_step_is_a_lemma_of_the_committed_scalar_file():
    files = coq_math.scalar_sources()
    assert "Scalar_Common" in files and "From Slth " not in "".join(files.values())
    text = coq_math.statements_file()
    for stem in coq_math.scalar_stems():
        for lemma in set(re.findall(rf"\((step_{stem}_\w+)", text)):
            assert f"Lemma {lemma} :" in files[f"Scalar_{stem}"], lemma
    assert {"lemma2", "theorem9"} <= set(coq_math.scalar_stems())


def _fails_in_its_theorem(chain, tmp_path, name, catalogue_) -> str:
    """Statements.v generated from ``catalogue_`` compiled beside the committed files: the error, which must lie in
    ``stmt_<name>``'s Section."""
    return _rejected_in_its_theorem(chain, tmp_path, name, catalogue_, begins="Section {name}.")


def _cited_mutations():
    """The planted mutations of bounds/ whose field a formalized statement's Coq text prints."""
    out = []
    for name, (_, _, text) in coq_math.FORMAL.items():
        cited = ({"conclusion"} | {f"constants.{c}" for c in re.findall(r"\{c:([\w-]+)\}", text)}
                 | {f"widths.{w}" for w in re.findall(r"\{w:([\w-]+)\}", text)}
                 | ({"probability"} if "{fail}" in text else set()))
        out += [m for m in catalogue.get(name).mutations if m.statement == name and m.where in cited]
    return out


@pytest.mark.parametrize("mutation", _cited_mutations(), ids=lambda m: m.name)
def test_a_planted_mutation_of_a_printed_field_fails_its_coq_theorem(chain, stated, tmp_path, mutation):
    from bounds.catalogue import STATEMENTS
    mutated = {**STATEMENTS, mutation.statement: mutation.edit.apply(STATEMENTS[mutation.statement])}
    _fails_in_its_theorem(chain, tmp_path, mutation.statement, mutated)


def test_lemma2_and_theorem9_are_among_the_mutated_statements():
    names = {m.name for m in _cited_mutations()}
    assert {"theorem9 eps_L of W_QK: 8 -> 16", "lemma2 per-problem budget: eps/(2 d1 d2) -> eps/(d1 d2)",
            "lemma2 error: eps -> eps/(d1 d2)", "theorem11 split: eps/4 -> eps/3",
            "theorem11 FC input norm: 3 alpha H sqrt(d1) -> 2 alpha H sqrt(d1)"} <= names
    # the widths are printed in Coq (n_lemma2, n_lemma7, n_K_theorem9, n_V_theorem9), and so is Lemma 2's count
    assert {"lemma2 width: log(2 d1 d2/eps) -> log(d1 d2/eps)", "lemma7 width: log(d1 d2/eps) -> log(d1/eps)",
            "theorem9 n_K: 8 -> 4 in the log", "theorem9 n_K: alpha^3 -> alpha^2", "theorem9 n_V: 2 -> 1 in the log",
            "lemma2 decomposition: one problem per entry (the ReLU(-x) half forgotten)"} <= names


THEOREM14_PRINTED = ("theorem14 growth: 4 H sqrt(d1) -> 2 H sqrt(d1)", "theorem14 perturbed input norm: 2 beta_b -> beta_b",
                     "theorem14 union: 1055/1984 -> 1055/2100")
"""Theorem 14's mutations of printed constants: compiled by
``test_a_planted_mutation_of_a_printed_field_fails_its_coq_theorem`` (the same edit, the same Section check)."""


def test_theorem14s_printed_constant_mutations_are_compiled_by_the_printed_field_test():
    assert set(THEOREM14_PRINTED) <= {m.name for m in _cited_mutations()}


@pytest.mark.parametrize("mutation", ["theorem14 n_MHA closed form: f1 -> f1 - 1",
                                      "theorem14 block-1 n_FC: 2^(2B^2-B+2) -> 2^(2B^2-B+1)"])
def test_a_mutation_of_theorem14_in_bounds_fails_its_coq_theorem(chain, stated, tmp_path, mutation):
    """stmt_theorem14's printed widths are printed from bounds/; the steps it chains are the committed ones, so each of
    these mutations of the catalogue makes the theorem fail inside its Section (the growth factor, the input norm of
    Theorem 11 and Lemma 13 at a block and the union bound's total: ``THEOREM14_PRINTED``)."""
    from bounds.catalogue import STATEMENTS
    from bounds.core import Edit
    st = STATEMENTS["theorem14"]
    (mut,) = [m for m in st.mutations if m.name == mutation]
    wrong = Edit("theorem14", mut.where, mut.old, mut.new).apply(st)
    _theorem14_fails(chain, tmp_path, {**STATEMENTS, "theorem14": wrong})


def _theorem14_fails(chain, tmp_path, catalogue):
    text = coq_math.statements_file(catalogue)
    assert text != coq_math.statements_file()
    fails_in(chain, tmp_path, text, "Section theorem14.", "theorem14")


def test_kappa_64_in_bounds_fails_theorem14s_coq_theorem(chain, stated, tmp_path):
    """kappa = 65 is the smallest integer that closes the block step with Lemma 13's factor 2: kappa = 64 in bounds/
    (the constant and the closed-form widths) makes stmt_theorem14 fail inside its Section."""
    from bounds.catalogue import STATEMENTS
    from bounds.theorem14 import kappa_edits
    st = STATEMENTS["theorem14"]
    for edit in kappa_edits(64):
        st = edit.apply(st)
    _theorem14_fails(chain, tmp_path, {**STATEMENTS, "theorem14": st})


def test_theorem14_rests_on_lueker_alone(built, stated):
    """stmt_theorem14 is proved from stmt_theorem11 at every block and Lemma 13 as lemma13_block proves it (the
    perturbed tokens' bound from the chain): its closed type quantifies over Lueker's corollary and the item law
    only, no statement's conclusion."""
    assert stated["theorem14"][0] == ["Lueker for every z at once", "Lueker's item distribution"]
    assert coq_math.unexpected(stated["theorem14"][1]) == []
    assert coq_math.CITED_COQ == {}
    assert "theorem11_conclusion" not in coq_math.FORMAL["theorem14"][2]
    assert "lemma13_conclusion" not in coq_math.FORMAL["theorem14"][2]


# --- Lueker's corollary as printed is unsatisfiable for a class with a one-item family -----------------------------

def test_lueker_as_printed_fails_for_one_item_and_coq_proves_it(built, chain, stated, tmp_path, monkeypatch):
    """Finding: with the printed width n >= C log(1/eps), for every C > 0 the width at eps = exp(-1/C) is exactly 1,
    and one item x (subset sums 0 and x) never covers both -1 and 1 within eps < 1; so the corollary as printed
    (every 0 < eps < 1) holds for no item law and no C, and Coq proves it (``lueker_as_printed_fails_one_item``,
    standard axioms only).  The theorems that cite it are proved from a hypothesis that the uniform products do not
    satisfy.  The check can fail: with the width doubled in bounds/ the same proof is rejected."""
    import dataclasses

    import numpy as np
    import sympy as sp

    from bounds.catalogue import STATEMENTS
    from bounds.symbols import C, eps

    width = STATEMENTS["lueker"].widths["n"]
    for c in (sp.Rational(1, 3), 1, 30, 1000):  # the printed width at eps = exp(-1/C), exactly
        assert sp.simplify(width.subs({eps: sp.exp(-1 / C)}).subs(C, c)) == 1
    x = np.linspace(-1, 1, 2001)  # one item: the subset sums 0 and x; the worse of z = -1 and z = 1
    gap = np.maximum(np.minimum(np.abs(1 - x), 1.0), np.minimum(np.abs(-1 - x), 1.0))
    assert gap.min() >= 1.0  # no eps < 1 covers both
    query = tmp_path / "q"
    query.mkdir()
    for f in built.iterdir():
        if f.suffix in (".vo", ".v"):
            shutil.copy(f, query / f.name)
    (query / "LuekerQuery.v").write_text(f"From {coq_math.LOGICAL} Require Import Statements.\n"
                                         + coq_math.locate_source(coq_math.PREMISES)
                                         + "Print Assumptions lueker_as_printed_fails_one_item.\n")
    ok, out = coq_math.compile_file(query, "LuekerQuery")
    assert ok, out
    from bounds.prove.coq import check

    (axioms,) = coq_math.qualify(check.parse_assumptions(out), out, coq_math.PREMISES)
    assert coq_math.unexpected(axioms) == [] and coq_math.families(axioms) == ["classical reals"], axioms
    st = STATEMENTS["lueker"]
    monkeypatch.setitem(STATEMENTS, "lueker", dataclasses.replace(st, widths={"n": 2 * st.widths["n"]}))
    doubled = tmp_path / "doubled"
    doubled.mkdir()
    text = coq_math.statements_file()
    ok, why = compile_statements(chain, doubled, text)
    line = int(re.search(r"Statements\.v line (\d+)", why).group(1)) if not ok else 0
    proof = text.index("Theorem lueker_as_printed_fails_one_item")
    assert not ok and text.count("\n", 0, proof) < line <= text.count("\n", 0, text.index("Qed.", proof)) + 1, why


def test_rests_on_asks_once_for_all_and_traces_an_odd_axiom_to_its_statement(monkeypatch):
    """``rests_on`` asks Coq once for the tuple of every statement theorem; only when that list names an axiom
    beyond the standard ones does it ask one statement at a time, so the line names the statement that has it."""
    standard = "Coq.Reals.ClassicalDedekindReals.sig_forall_dec"
    calls = []

    def query(directory, names, together, odd=True):
        calls.append(together)
        if together:
            return {n: ([], [standard] + (["Evil.ax"] if odd else [])) for n in names}
        return {n: ([], ["Evil.ax"] if n == "lemma8" else [standard]) for n in names}

    monkeypatch.setattr(coq_math, "_statement_query", query)
    rests = coq_math.rests_on("unused", ("lemma8", "lemma5"))
    assert calls == [True, False]
    assert rests == {"lemma8": ([], ["Evil.ax"]), "lemma5": ([], [standard])}
    calls.clear()
    monkeypatch.setattr(coq_math, "_statement_query", lambda d, names, together: query(d, names, together, odd=False))
    assert coq_math.rests_on("unused", ("lemma8", "lemma5")) == {n: ([], [standard]) for n in ("lemma8", "lemma5")}
    assert calls == [True]
