"""The search for each step's tactic: the generated cascade of candidates tried in coqc, the first that closes the
lemma wins."""
from __future__ import annotations

import difflib
import hashlib
import math
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .. import external
from .cascade import EQ, TAILS
from .export import Lemma
from .build import write_atomic
from .files import FACTS, HEAD, entries, text
from .runner import LOGICAL, WORKERS, coqc_seconds, run_coqc
from .tactics import load_tactics, tactic_problem

TIMEOUT = 8  # seconds per candidate tactic in the search (Coq's timeout: wall-clock)
NESTED_TIMEOUT = 30  # seconds per candidate that carries a cascade of its own (``cascade.NESTED``)


def search(lems: list[Lemma], log=None, tactics: dict | None = None, hints: dict | None = None, into=None,
           kept: dict | None = None, ready=None) -> dict:
    """``{key: tactic}`` for the lemmas (the first candidate that closes each; None: none does).  One coqc run
    per batch of lemmas, each candidate under a timeout; a candidate that is not a tactic expression
    (``tactic_problem``) is never tried.  The scalar facts' lemmas (which the steps apply) are proved with
    ``tactics`` (default: the recorded ones); facts among ``lems`` are searched first, without themselves, and their
    proofs join those of the rest.  ``CoqcFailure`` when a batch's coqc times out or is killed.

    ``hints``: ``{key: tactic}``, a tactic to try first, alone (the one that proved the same step of the committed
    tree before an edit changed its statement): a lemma it closes is not searched further, and the cascade is tried
    only for the others, the hint ``rebuilt`` for the edited expressions first.  The hints' coqc runs while SymPy
    writes every lemma's cascade (seconds per lemma; every text of the round written first, so what the cascades add
    to ``cascade.TAILS`` never reaches a hint's).  Coq checks whatever tactic wins, as it checks every candidate.

    ``into``: a build folder where ``Common`` is compiled (or being compiled: ``ready``): each batch is then a
    library there whose definitions keep the winners' proofs (``library``), and ``kept`` receives ``{key:
    "<library>.<constant>"}`` for each lemma proved, the constant whose type is the lemma's statement once Coq
    unfolds it (``files.text`` proves the lemma with it instead of running the tactic again).  Not with the facts,
    which ``Common`` itself proves.  ``ready``: with ``into``, a function that waits until ``Common`` is compiled
    there and says whether it is: the batches' texts are written at once, their coqc waits for it (none runs, and
    nothing is found, where it did not compile)."""
    tactics = dict(load_tactics() if tactics is None else tactics)
    facts = [l for l in lems if l.statement == FACTS]
    if facts:
        into = None
    if facts and len(facts) < len(lems):
        tactics.update(search(facts, log, tactics, hints))
        rest = search([l for l in lems if l.statement != FACTS], log, tactics, hints)
        return {**{l.key: tactics[l.key] for l in facts}, **rest}
    keep = (into, kept if kept is not None else {}, ready) if into is not None else None
    if not lems:
        return {}
    with external.reaped():  # Ctrl-C or SIGTERM: every coqc of the rounds killed
        return _search(lems, log, tactics, hints, facts, keep)


def _search(lems, log, tactics, hints, facts, keep) -> dict:
    found: dict = {}
    hinted = {l.key: [hints[l.key]] for l in lems if (hints or {}).get(l.key) and tactic_problem(hints[l.key]) is None}
    first = _Round([l for l in lems if l.key in hinted], hinted, facts, tactics, keep) if hinted else None
    try:  # SymPy's cascades here, in the main thread (their work budget), while coqc tries the hints
        cascades = {lem.key: [c for c in lem.candidates if tactic_problem(c) is None] for lem in lems}
    except BaseException:
        if first is not None:
            first.abandon()
        raise
    if first is not None:
        found = {k: v for k, v in first.result().items() if v is not None}
        if log:
            for l in lems:
                if l.key in found:
                    log(f"{l.statement}:{l.step}: the committed tree's tactic for this step")
        lems = [l for l in lems if l.key not in found]
        if not lems:
            return found
    cascades = {l.key: cascades[l.key] for l in lems}
    order = {k: rebuilt(c, (hints or {}).get(k)) for k, c in cascades.items()}
    return {**found, **_tried(lems, order, facts, tactics, log, cascades, keep=keep)}


def numerals(tac: str) -> str:
    """A tactic with every numeral blanked (``#``): what stays of it when an edit changes a constant; an equation's
    tactic ``cascade.EQ`` read as ``ring``, its first alternative (a tactic recorded with ``ring`` there is the same
    tactic)."""
    return re.sub(r"\b\d+\b", "#", tac.replace(EQ, "ring"))


def _tokens(tac: str) -> list[str]:
    """A tactic's words and signs, every numeral blanked."""
    return re.findall(r"[A-Za-z_][\w']*|#|\S", numerals(tac))


def rebuilt(candidates: list[str], hint: str | None) -> list[str]:
    """The candidates most like ``hint`` first (the tactic that proved the step before an edit, written for the old
    constants): by the share of their tokens, numerals blanked, that they have in common with it, counted with their
    multiplicity (``difflib.SequenceMatcher.quick_ratio``: linear in the tactics' length, where the ordered ratio is
    quadratic), the hint itself last (it failed); ties keep the cascade's order, nothing is dropped.  The candidate
    differing from the hint in numerals alone is alike in every token and goes first, then the same reformulation
    with other options or its constants grouped otherwise, then the rest."""
    if not hint:
        return candidates
    want = _tokens(hint)
    alike = {c: difflib.SequenceMatcher(None, want, _tokens(c)).quick_ratio() for c in candidates}
    return sorted(candidates, key=lambda c: (c == hint, -alike[c]))


def _batches(lems: list[Lemma], cascades: dict) -> list[list[Lemma]]:
    """The lemmas in up to ``WORKERS`` batches of about equal weight, one coqc each: a lemma weighs the square root
    of the length of the first candidate it tries (a long tactic, a nested cascade, takes Coq long to run or to fail,
    but a nested cascade runs only some of its alternatives: after Theorem 14's kappa 65 -> 64.2, T14d-i's first
    candidate is 29 times as long as the other steps' and took about 4.5 times as long, about the ratio of the
    square roots), the heaviest goes first to the lightest batch so far, and each batch keeps the lemmas in their
    given order."""
    weight = {l.key: math.sqrt(len(cascades[l.key][0])) if cascades[l.key] else 0 for l in lems}
    load, out = [0] * WORKERS, [[] for _ in range(WORKERS)]
    for lem in sorted(lems, key=lambda l: -weight[l.key]):
        i = load.index(min(load))
        out[i].append(lem)
        load[i] += weight[lem.key]
    place = {l.key: n for n, l in enumerate(lems)}
    return [sorted(b, key=lambda l: place[l.key]) for b in out if b]


def _tried(lems: list[Lemma], cascades: dict, facts: list, tactics: dict, log, numbered: dict | None = None,
           keep=None) -> dict:
    """``{key: the first of cascades[key] that closes the lemma, or None}``, in one coqc per batch; the log numbers
    a winner by its place in ``numbered[key]`` (default: in ``cascades[key]``).  ``keep``: ``(build folder, found,
    ready)``, each batch a library there (``library``), ``found[key]`` the constant holding a winner's proof, its coqc
    run once ``ready()`` (None: at once) says Common is compiled there."""
    return _Round(lems, cascades, facts, tactics, keep).result(log, numbered)


class _Round:
    """One round of the search: each batch's text written now, in this thread, and its coqc started (at most
    ``WORKERS`` at once); ``result`` waits for them and reads the winners, ``abandon`` kills them."""

    def __init__(self, lems: list[Lemma], cascades: dict, facts: list, tactics: dict, keep=None):
        self.lems, self.cascades, self.keep = lems, cascades, keep
        self.tmp = tempfile.TemporaryDirectory()
        jobs = []
        for k, batch in enumerate(_batches(lems, cascades)):
            if keep is not None:
                name, src = library(batch, cascades)
                path = Path(keep[0]) / f"{name}.v"
                write_atomic(path, src)
                jobs.append((name, ["-Q", keep[0], LOGICAL, path], keep[0], len(batch), keep[2]))
                continue
            searched = {x.key for x in facts}
            common = [(s, t, l) for s, t, l in entries()["Common"] if getattr(l, "key", None) not in searched]
            body = [text("Common", common, tactics, defined=False)]  # the prelude and the facts' lemmas
            for lem in batch:
                tries = " | ".join(_tries(lem.key, cascades[lem.key]))
                body.append(f"\nGoal {lem.text}.\nProof.\n  intros.\n  first [ {tries} | idtac \"SLTH-WIN {lem.key} -1\" ].\nAbort.\n")
            path = Path(self.tmp.name) / f"Search{k}.v"
            path.write_text("".join(body))
            jobs.append((None, [path], self.tmp.name, len(batch)))
        self.pool = ThreadPoolExecutor(WORKERS)
        self.futures = [self.pool.submit(self._run, *job) for job in jobs]

    @staticmethod
    def _run(name, args, cwd, n, ready=None):
        if ready is not None and not ready():  # a library's Common did not compile: nothing to run
            return None, ""
        rc, out = run_coqc(args, cwd, timeout=coqc_seconds() * n)
        return (name if rc == 0 else None), out

    def abandon(self) -> None:
        external.kill_all()
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.tmp.cleanup()

    def result(self, log=None, numbered: dict | None = None) -> dict:
        try:
            outs = [f.result() for f in self.futures]
        except BaseException:
            self.abandon()
            raise
        self.pool.shutdown(wait=True)
        self.tmp.cleanup()
        found: dict = {}
        for lib, out in outs:
            for key, i in _wins(out):
                lem = next(l for l in self.lems if l.key == key)
                found[key] = self.cascades[key][int(i)] if int(i) >= 0 else None
                if lib and found[key] is not None:
                    self.keep[1][key] = f"{lib}.slth_p_{key}"
                if log:
                    n = (numbered or self.cascades)[key].index(found[key]) if found[key] is not None else None
                    log(f"{lem.statement}:{lem.step}: " + (f"candidate {n}" if n is not None else "no candidate closes it"))
        return found


KEEP = ("Ltac slth_keep t m := lazymatch goal with |- option ?T => let p := constr:(ltac:(intros; t) : T) in m; "
        "exact (Some p) end.\n")
"""The tactic of a library's alternatives: the proof ``t`` makes of the statement, kept (``Some``) once ``m`` says
so."""


def library(batch: list, cascades: dict) -> tuple[str, str]:
    """(name, text) of one batch as a library: per lemma an ``option`` of its statement, ``Some`` proof by the first
    alternative that closes it (``_tries``, each printing its ``SLTH-WIN`` line) or ``None``, and ``slth_p_<key>``,
    whose type is the statement when the option is ``Some`` (Coq unfolds the definition: ``Defined``).  Named by
    its text's hash."""
    body = [HEAD, KEEP]
    for lem in batch:
        tries = " | ".join(_tries(lem.key, cascades[lem.key], keep=True))
        w, t = f"slth_w_{lem.key}", f"({lem.text})"
        body.append(f"\nDefinition {w} : option {t}.\nProof.\n  first [ {tries} | idtac \"SLTH-WIN {lem.key} -1\"; "
                    f"exact None ].\nDefined.\nDefinition slth_p_{lem.key} := match {w} as o return match o with "
                    f"Some _ => {t} | None => True end with Some p => p | None => I end.\n")
    src = "".join(body)
    return "Found_" + hashlib.sha256(src.encode()).hexdigest()[:16], src


def _tries(key: str, cands: list, keep: bool = False) -> list[str]:
    """The alternatives of one lemma's search, in order: each candidate under its time limit, printing
    ``SLTH-WIN key i`` when it closes the lemma; a run of candidates sharing one head (``cascade.TAILS``) as one
    alternative, the head run once and its tails in turn (each printing ``SLTH-TAIL key i`` as it starts), under the
    sum of their limits, printing ``SLTH-WIN key -2`` when one closes it: the last tail started names the winner."""
    out, i = [], 0
    while i < len(cands):
        head = TAILS.get(cands[i], (None,))[0]
        j = i + 1
        while head is not None and j < len(cands) and TAILS.get(cands[j], (None,))[0] == head:
            j += 1
        if j - i == 1:
            limit = NESTED_TIMEOUT if cands[i] in TAILS else TIMEOUT
            run, win = f"timeout {limit} (solve [ {cands[i]} ])", f"idtac \"SLTH-WIN {key} {i}\""
        else:
            tails = " | ".join(f"idtac \"SLTH-TAIL {key} {k}\"; {TAILS[cands[k]][1]}" for k in range(i, j))
            run, win = (f"timeout {NESTED_TIMEOUT * (j - i)} (solve [ {head}first [ {tails} ] ] ])",
                        f"idtac \"SLTH-WIN {key} -2\"")
        out.append(f"slth_keep ltac:({run}) ltac:({win})" if keep else f"assert_succeeds ({run}); {win}")
        i = j
    return out


def _wins(out: str) -> list[tuple[str, str]]:
    """``[(key, index)]`` from a search's output: the index a ``SLTH-WIN`` line names, or for a run of candidates
    tried together (``-2``) the last ``SLTH-TAIL`` line of that key before it."""
    last: dict = {}
    found = []
    for kind, key, i in re.findall(r"SLTH-(TAIL|WIN) (\w+) (-?\d+)", out):
        if kind == "TAIL":
            last[key] = i
        else:
            found.append((key, last[key] if i == "-2" else i))
    return found
