"""`slth proofs`: verify every proof step of the bounds catalogue and print the step table.

Every statement with proof steps is verified (``bounds.proved()``); a statement without steps is listed as "cited, no
proof encoded".  Each step is judged twice (``bounds.prove.kernel``): the fast first pass (SymPy, interval
arithmetic re-checked in Arb, the counterexample search), then Coq's kernel on every pre-checked step.  The columns
are explained by ``KEY``, printed above the table; under each step, what it proves in the proof's own terms
(``Step.form``) and its note.  The summary counts the steps by verdict, by first-pass verdict, method and domain,
and the certified ones by kind (``bounds.core.step_kind``).  Exits 1 if any step is refuted or not proved (without
coqc and CoqInterval every pre-checked step is not proved) or a printed variant (``--variants``) does not break
exactly at its declared steps, 2 on a usage error.  ``--slack``: the tightest value of every numeric constant
(``bounds.prove.slack.rows``); ``--axioms [NAME]``: what each written proof cites, with its status
(``bounds.prove.axioms``), verifying nothing else; ``--coq DIR`` compiles the Coq files in DIR instead of
``bounds.prove.kernel.folder()``, and ``--axioms --coq`` prints each statement's Coq theorem first.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
import threading

import bounds
from bounds.prove import coq_math, kernel
from bounds.prove.coq import check as coq_check
from bounds.prove.coq_statements import statement_lines
from slt.claims import PRECHECKED_MEANS, first_pass_sentence, point_text, step_units
from bounds.prove.axioms import axioms as statement_axioms
from bounds.catalogue import canonical
from bounds.core import IDENTITY, INEQUALITY
from bounds.prove.mutations import MUTATIONS, catalogue_with, run, verify_all
from bounds.prove.slack import CONSTANTS, processes as slack_processes, rows as slack_rows
from bounds.prove.verify import NOT_PROVED, REFUTED, VERDICTS
from reports.cli import checked, count

METHODS = ("symbolic", "interval", "sampled")
DOMAINS = ("whole", "box", "sampled")


DEFAULT_FOLDER = object()
"""``--coq`` given without DIR: the kernel's own folder (``bounds.prove.kernel.folder()``), told apart from an
explicit ``--coq ''``, which is a usage error."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--statement", action="append", metavar="NAME",
                        help="only this statement (name or alias, e.g. 'Theorem 9'); repeatable")
    parser.add_argument("--variants", action="store_true",
                        help="also verify the printed variants (expected failures) and show where they break")
    parser.add_argument("--mutations", action="store_true",
                        help="also run the mutation suite and show which step catches each mutation")
    parser.add_argument("--boxes", action="store_true", help="show the certified box of every box-only step")
    parser.add_argument("--axioms", nargs="?", const="", default=None, metavar="NAME",
                        help="print the results each statement (or NAME) rests on that the harness does not prove, "
                             "found by following relies_on through the catalogue; verifies nothing else")
    parser.add_argument("--coq", nargs="?", const=DEFAULT_FOLDER, default=None, metavar="DIR",
                        help="replay the kernel check in this run, compiling its Coq files in DIR (default: "
                             "$SLTH_COQ_DIR, else ~/.cache/slth-harness/coq; bounds.prove.kernel), instead of "
                             "using the committed kernel result made for this exact bounds/; with --axioms: also "
                             "Coq's Print Assumptions")
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="no progress bar on standard error (it is shown only when standard error is a terminal)")
    parser.add_argument("--slack", action="store_true",
                        help="the tightest value of every numeric constant for which every proof still closes "
                             "(bisection with the verifier; its cost: docs/performance.md)")
    parser.add_argument("--workers", type=_workers, default=min(2, os.cpu_count() or 1),
                        help="with --slack: processes searching constants at once (default: %(default)s, at most "
                             "the cores; the table is the same for any number)")


_workers = checked(count, lambda v: 1 <= v <= (os.cpu_count() or 1),  # processes: from 1 to the number of cores
                   f"must be from 1 to the number of cores ({os.cpu_count() or 1})")


def _cex(cex: dict | None, statement: str | None = None, step=None) -> str:
    """A counterexample as every surface prints it (``slt.claims.point_text``: never rounded across a hypothesis,
    a coordinate next to an open end of the statement's domain marked so)."""
    if not cex or statement is None:
        return point_text(cex)
    from reports.record.assemble import params_of, open_ends
    return point_text(cex, open_ends(params_of(statement, step)))


def domain_kind(domain: str) -> str:
    """"whole", "box" or "sampled" of a StepResult.domain."""
    return "box" if domain.startswith("box") else domain


@functools.lru_cache(maxsize=None)
def _steps_of(statement: str) -> dict:
    try:
        return {s.name: s for s in bounds.proof(statement)}
    except KeyError:
        return {}


def _step(r):
    """The ``Step`` of the bounds catalogue a result is about (None for an elementary fact)."""
    return _steps_of(r.statement).get(r.step)


def step_kind(r) -> str:
    """"identity" or "inequality" of the step a result is about (an elementary fact is an inequality)."""
    s = _step(r)
    return INEQUALITY if s is None else s.kind


def _row(r, boxes: bool) -> list[str]:
    if r.counterexample:
        said = r.detail if "outside" in r.detail else "counterexample"
        info = f"{said}: {_cex(r.counterexample, r.statement, _step(r))}"
    elif domain_kind(r.domain) != "whole" and (boxes or r.method == "sampled" or r.domain.startswith("box")):
        info = f"{r.detail}; {r.domain}"
    else:
        info = r.detail
    coq = getattr(r, "coq", "not exported")  # the Coq column: its word; why there is no kernel is printed below
    return [r.statement, r.step, r.verdict, first_column(r), r.method, domain_kind(r.domain), arb_column(r),
            "no proof kernel" if coq.startswith(kernel.NO_KERNEL) else coq.split(":")[0], info]


def first_column(r) -> str:
    """The first pass's verdict: pre-checked, refuted or not proved."""
    return r.pre if isinstance(r, kernel.Judged) else kernel.first_word(r)


def arb_column(r) -> str:
    """"yes" / "no" / "failed" for a step proved (or claimed) by an interval certificate, "-" otherwise."""
    arb = getattr(r, "arb", "")
    return arb.split(":")[0] if arb else "-"


KEY = (f"columns: verdict = certified (pre-checked and proved by Coq's kernel) / refuted / not proved; first pass = "
       f"pre-checked ({PRECHECKED_MEANS}), refuted or not proved; method = symbolic / interval / sampled (evidence "
       "at sampled points only: it can refute, never certify); domain = whole (every point the hypotheses allow) / box (the stated box only) / sampled; Coq = "
       "kernel-checked / rejected / not exported (not sent to Coq: not pre-checked, or a construct the printer "
       "refuses) / not checked / no proof kernel")
"""The key printed above the first table: every column word of ``slth proofs`` in words."""


def _print(rows: list[list[str]], title: str, results=None) -> None:
    """The table; with ``results`` (one per row) each step's form and note on an indented line below it."""
    head = ["statement", "step", "verdict", "first pass", "method", "domain", "re-checked by Arb", "Coq",
            "certificate / box / counterexample"]
    lines = _aligned([head] + rows)
    print(f"\n== {title}")
    print(lines[0])
    for i, line in enumerate(lines[1:]):
        print(line)
        step = None if results is None else _step(results[i])
        if step is not None:
            print(f"      proves: {step.form()}" + (f"  [{step.note}]" if step.note else ""))


def _aligned(rows: list[list[str]]) -> list[str]:
    """The rows as lines, every column but the last padded to its widest cell."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1] for r in rows]


def coq_summary(judged) -> str:
    """The kernel's line: how many pre-checked steps it accepted, and where its verdicts come from."""
    pre = [r for r in judged if r.pre == kernel.PRECHECKED]
    n = sum(r.ok for r in judged)
    source = judged[0].source if judged else kernel.REPLAYED
    if source.startswith(kernel.NO_KERNEL):
        return f"Coq: {source}; none of the {len(pre)} pre-checked steps is certified"
    rejected = sum(r.coq.startswith("rejected") for r in pre)
    return (f"Coq: kernel-checked {n} of the {len(pre)} pre-checked steps ({kernel.sources_sentence(pre or judged)}); "
            f"{rejected} rejected, {len(pre) - n - rejected} not exported or not checked")


def counts(results) -> dict:
    """Counts of the verified steps: ``{"steps", "failed", "verdict": {v: n}, "first": {pre-checked / refuted /
    not proved: n}, "method": {m: n}, "domain": {d: n},
    "method_domain": {"m/d": n}, "kind": {"inequality": n, "identity": n}}`` (JSON-able; ``failed``: refuted or not
    proved; only certified steps are counted by method, domain and kind)."""
    ok = [r for r in results if r.ok]
    kinds = [step_kind(r) for r in ok]
    return {
        "kind": {k: kinds.count(k) for k in (INEQUALITY, IDENTITY)},
        "steps": len(results), "failed": len(results) - len(ok),
        "verdict": {v: sum(r.verdict == v for r in results) for v in VERDICTS},
        "first": {v: sum(first_column(r) == v for r in results) for v in kernel.FIRST_WORDS},
        "method": {m: sum(r.method == m for r in ok) for m in METHODS},
        "domain": {d: sum(domain_kind(r.domain) == d for r in ok) for d in DOMAINS},
        "method_domain": {f"{m}/{d}": sum(r.method == m and domain_kind(r.domain) == d for r in ok)
                          for m in METHODS for d in DOMAINS},
        "arb": {a: sum(arb_column(r) == a for r in results) for a in ("yes", "no", "failed")},
        "certificates": len({c for r in results for c in (getattr(r, "certificate", None) or ())}),
    }


def summary(results) -> str:
    """The counts as text: by method, by domain, and the method x domain table a reader can check."""
    c = counts(results)
    v = c["verdict"]
    f = c["first"]
    units = step_units({"steps": [{"statement": r.statement} for r in results]})  # the report's words (slt.claims)
    lines = [f"{units}: {v['certified']} certified, {v['refuted']} refuted, {v['not proved']} not proved",
             f"first pass: {f[kernel.PRECHECKED]} pre-checked, {f['refuted']} refuted, "
             f"{f['not proved']} not proved; certified = pre-checked and accepted by Coq's kernel",
             f"of the certified: {c['kind'][INEQUALITY]} prove an inequality, {c['kind'][IDENTITY]} are identities "
             "(two sides equal by construction: a definition, or a composition the statement writes out)",
             "how the first pass checked them: " + first_pass_sentence([{"first_pass": first_column(r), "method": r.method,
                                                      "domain": domain_kind(r.domain), "arb": arb_column(r)}
                                                     for r in results])
             + f" ({c['certificates']} interval certificates: a step whose domain splits into the cases of a Max has one per case)",
             "certified, method x domain: " + ", ".join(f"{k} {n}" for k, n in c["method_domain"].items() if n)]
    return "\n".join(lines)


def slack_table(rows: list[dict]) -> str:
    """The slack rows as text (``bounds.prove.slack.rows``)."""
    head = ["statement", "constant", "printed", "tightest", "printed/tightest", "verdict"]
    body = []
    for r in rows:
        if r["tightest"] is None or r["first_failing"] is None:
            verdict = r["note"]
        else:
            how = "fails" if r.get("counterexample") else "is not certified"
            verdict = (f"forced: 1% tighter {how} ({r['fails_at']})" if r["forced"] else
                       f"{r['direction']}; {r['first_failing']:.6g} {how} ({r['fails_at']})")
        body.append([r["statement"], r["constant"], f"{r['printed']:.6g}",
                     "-" if r["tightest"] is None else f"{r['tightest']:.6g}",
                     "-" if r["ratio"] is None else f"{r['ratio']:.4g}", verdict])
    return "\n".join(_aligned([head] + body))


def axioms_text(name: str, axioms: list, coq_rests: list | None = None) -> str:
    """The axioms of one statement as text (``bounds.prove.axioms.axioms``).  ``coq_rests``: the premises its Coq
    theorem rests on (with ``--coq``); a premise the written proof assumes that is not among them says so, so that
    "assumed, not checked" and "proved in Coq from Lueker's corollary alone" are read each of its own object."""
    lines = [f"== what the written proof of {name} cites: {len(axioms)} results, each with its status (proved in "
             "Coq, certified, or assumed)"]
    for a in axioms:
        by = ", ".join(f"{s}:{t}" for s, t in a.cited_by[:4]) + (f" and {len(a.cited_by) - 4} more"
                                                                   if len(a.cited_by) > 4 else "")
        lines.append(f"  {a.kind}: {a.name}: {a.says}")
        scope = ""
        if coq_rests is not None and a.kind == "premise" and a.detail.startswith("assumed"):
            scope = (f"; assumed by the written proof only: not a hypothesis of the Coq theorem stmt_{name}"
                     if a.name not in coq_rests else f"; a hypothesis of the Coq theorem stmt_{name} too")
        lines.append(f"      {a.detail}{scope}" + (f"; cited by {by}" if by else ""))
    return "\n".join(lines)


def _statements(names: list[str], default) -> list[str] | None:
    """``names`` (canonical), or ``default()`` when there are none; None, said on stderr, for an unknown name."""
    try:
        return [canonical(n) for n in names] if names else default()
    except KeyError as e:
        print(f"slth proofs: {e.args[0]}", file=sys.stderr)
        return None


def _print_axioms(name: str) -> int:
    names = _statements([name] if name else [], bounds.names)
    if names is None:
        return 2
    print("\n\n".join(axioms_text(n, statement_axioms(n)) for n in names))
    return 0


def _print_coq_axioms(name: str, directory: str) -> int:
    """With ``--coq``: ``coq_axioms_text``, after one line on stderr: the coqc calls the run needs, with their CPU
    time and memory as measured (``bounds.prove.coq.cost``).  The mathematics build runs beside the steps' (at most
    ``SLTH_COQ_JOBS`` coqc at once, all of them killed on Ctrl-C or SIGTERM)."""
    from bounds.prove import external
    from bounds.prove.coq import cost
    missing = coq_check.missing_reason()
    if missing:
        print(f"slth proofs --axioms --coq: {missing}", file=sys.stderr)
        return 2
    names = _statements([name] if name else [], bounds.names)
    if names is None:
        return 2
    directory = directory or str(kernel.folder())
    print(f"slth proofs --axioms --coq: {cost.message(cost.plan(directory), coq_check.jobs())}", file=sys.stderr,
          flush=True)
    # Ctrl-C or SIGTERM anywhere below, in a coqc call or between them: every coqc killed (the mathematics build's
    # too, before its thread is joined), none started after
    with external.reaped(), external.pool(1) as pool:
        built = pool.submit(coq_math.statements_rests)  # each statement's own Coq theorem and what it rests on
        status = coq_check.check(directory, searching=False, rests=True)
        status.pop(None)
        axioms = coq_check.assumptions(directory, status)
    rc, stated, errors = built.result()  # its error raised here, in the main thread
    print(coq_axioms_text(names, stated, axioms))
    for e in errors:
        print(e)
    other = [k for k, v in axioms.items() if any(coq_check.family(n) is None for n in v)]
    return 1 if other or rc else 0


def coq_axioms_text(names: list[str], stated: dict | None, scalar: dict) -> str:
    """The text of ``--axioms --coq``: per statement, first what its Coq theorem is (``Print Assumptions``, the
    premises its type assumes, its probability, whether it is proved from Lueker's corollary alone:
    ``bounds.prove.coq_statements.statement_lines``), then what the kernel-checked lemmas of its scalar steps rest on,
    then every result its written proof's steps cite with its real status (``bounds.prove.axioms``: a structural fact
    proved in Coq names its theorem); last the counts line (``coq_math.counts_line``)."""
    blocks = []
    files = coq_math.with_statements() if stated else None
    for n in names:
        lines = [f"== {n}"]
        if stated is None:
            lines.append("  Coq theorem: not compiled (see the error below)")
        else:
            lines += ["  " + line for line in statement_lines(n, stated, files=files)]
        scalar_line = [line.strip() for line in coq_check.assumptions_text(scalar, [n]).splitlines()[1:]]
        lines.append("  scalar steps in Coq (Print Assumptions of each kernel-checked lemma): "
                     + (scalar_line[0].split(": ", 1)[1] if scalar_line else "no kernel-checked lemma"))
        cited = statement_axioms(n)
        lines.append(f"  what the steps of the written proof cite ({len(cited)}), with their status:")
        entry = (stated or {}).get(n)
        rests = None if entry is None else list(entry[0] if isinstance(entry, tuple) else entry)
        lines += ["  " + line for line in axioms_text(n, cited, rests).splitlines()[1:]]
        blocks.append("\n".join(lines))
    if stated is not None:
        blocks.append(coq_math.counts_line(coq_math.counts(stated, files=files)))
    return "\n\n".join(blocks)


def progress_bar(total: int, unit: str, enabled: bool = True):
    """A tqdm bar on standard error (done/total, rate, estimate): off with ``--no-progress`` and when standard error
    is not a terminal."""
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, file=sys.stderr, disable=None if enabled else True,
                mininterval=0.5, dynamic_ncols=True, bar_format="{desc}: {n:.1f}/{total} {unit} [{elapsed}<{remaining}, "
                "{rate_fmt}]")


def kernel_verdicts(results, coq: str | None):
    """The final verdict of every step (``bounds.prove.kernel.judge``) from the kernel statuses the run record uses
    (``reports.record.verified.kernel``): the committed kernel result when it was made for this exact ``bounds/``,
    exporter and tactics (labelled so, with its Coq version), else replayed; ``--coq`` (``coq`` a folder) always
    replays, in that folder."""
    def log(m):
        print(f"  coq: {m}", file=sys.stderr, flush=True)

    if coq is not None:
        return kernel.verdicts(results, coq, log=log)
    from reports.record import verified

    return kernel.judge(results, *verified.kernel(results, log=log))


@contextlib.contextmanager
def _ticking(bar, seconds: float = 1.0):
    """Redraw ``bar`` every ``seconds`` (its elapsed time moves) while the block runs."""
    stop = threading.Event()

    def tick():
        while not stop.wait(seconds):
            bar.refresh()
    thread = threading.Thread(target=tick, name="slth-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def main(args: argparse.Namespace) -> int:
    names = _statements(args.statement, bounds.proved)
    if names is None:
        return 2
    if getattr(args, "coq", None) is DEFAULT_FOLDER:  # --coq without DIR; an explicit '' stays a usage error
        args.coq = str(kernel.folder())
    if getattr(args, "coq", None) is not None:  # the folder, coqc and its time limit, before minutes of work
        try:
            coq_check.prepare(args.coq)
        except coq_check.CoqSetupError as e:
            print(f"slth proofs --coq: {e}", file=sys.stderr)
            return 2
    if getattr(args, "axioms", None) is not None:  # after --statement is checked: no name is ignored unread
        if getattr(args, "coq", None) is not None:  # each statement's Coq theorem first, then what its steps cite
            return _print_coq_axioms(args.axioms, args.coq)
        return _print_axioms(args.axioms)
    with progress_bar(len(names), "statements", getattr(args, "progress", True)) as bar:
        results = []
        for n in names:
            bar.set_description(f"verifying {n}")
            results += bounds.verify(n, on_step=lambda r, total: bar.update(1 / total))
        bar.set_description("verifying the facts")
        if not args.statement:
            results = bounds.verify_facts() + results
    results = kernel_verdicts(results, args.coq)
    print(KEY)
    _print([_row(r, args.boxes) for r in results], "supported forms", results)
    status = int(not all(r.ok for r in results))
    print("\n" + summary(results))
    print(coq_summary(results))
    for r in results:
        if r.reason and not r.reason.startswith(kernel.NO_KERNEL):
            print(f"  {r.statement}:{r.step}: not proved ({r.reason})")
    if not args.statement:
        cited = [n for n in bounds.names() if n not in names]
        print("cited, no proof encoded: " + (", ".join(cited) if cited else "none"))
    for kind in (REFUTED, NOT_PROVED):
        bad = [f"{r.statement}:{r.step}" for r in results if r.verdict == kind]
        if bad:
            print(f"{kind.upper()}: {len(bad)} step(s) {kind}: {', '.join(bad)}", file=sys.stderr)
    unjudged = [r for r in results if r.reason.startswith(kernel.NO_KERNEL)]
    if unjudged:
        print(f"not proved ({unjudged[0].reason}): {len(unjudged)} pre-checked step(s) have no kernel to certify "
              "them", file=sys.stderr)

    if args.variants:  # the variants of the statements asked for (all without --statement)
        for st in (bounds.get(n) for n in (names if args.statement else bounds.names())):
            for v in st.variants.values():
                changed = [r for r in verify_all(v.apply(catalogue_with())) if not r.ok]
                _print([_row(r, False) for r in changed], f"variant {st.name}:{v.name} ({v.description})")
                broken = [r for r in changed if r.verdict == REFUTED]
                got, want = {(r.statement, r.step) for r in broken}, set(v.breaks)
                verdict = "as expected" if got == want else f"UNEXPECTED: expected {sorted(want)}"
                print(f"breaks {sorted(got)}: {verdict}")
                status |= int(got != want)
    if args.mutations:
        print("\n== mutations")
        for m in MUTATIONS:
            caught = run(m)
            steps = ", ".join(f"{r.statement}:{r.step}" for r in caught) or "SURVIVED"
            print("  ".join([m.edit.statement, m.name, steps, "caught" if caught else "SURVIVED",
                             _cex(caught[0].counterexample, caught[0].statement, _step(caught[0])) if caught else ""]))
            status |= int(not caught)
    if args.slack:
        constants = [c for c in CONSTANTS if not args.statement or c.statement in names]
        print(f"\n== slack of {len(constants)} constants (tightest value for which every step of every proof "
              "still closes; bisection to 1% with the verifier)", flush=True)
        with progress_bar(len(constants), "constants", getattr(args, "progress", True)) as bar:
            state = {"steps": 0, "last": "starting"}

            def on_step():  # a step verified for a candidate: a few seconds apart at most
                state["steps"] += 1
                bar.set_description(f"slack ({state['steps']} steps verified; {state['last']})")

            def progress(constant, value, ok):
                state["last"] = f"{constant.statement} {float(value):.4g} {'closes' if ok else 'fails'}"
                bar.set_description(f"slack ({state['steps']} steps verified; {state['last']})")

            workers = slack_processes(getattr(args, "workers", 1), len(constants))
            # one step's counterexample search can take longer than 10 s: the bar is redrawn every second (by the
            # process waiting for the workers, or by a thread when there are none: no thread while they fork)
            with _ticking(bar) if workers == 1 else contextlib.nullcontext():
                table = slack_rows(constants, progress, on_step, workers=workers, on_row=lambda row: bar.update(1),
                                   on_tick=bar.refresh)
        print(slack_table(table))
    return status
