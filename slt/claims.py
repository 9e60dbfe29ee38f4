"""Every sentence of the report that states a verdict, a count or a trend, each made by one function of the record.

The banner, the contents line, the findings, the summary, the section headings and the generated blocks of the
README and docs (``slth docs``, ``reports.statements_page.RECORD_BLOCKS``) all call these, so no two places of the
page can count or word the same claim differently. This module renders records only and imports no measuring code.
"""
from __future__ import annotations

from slth_base.numbering import numbering_heading, numbering_label  # noqa: F401 (the API)
from slt.claims_points import exact_number, point_parts, point_text, ratio_text  # noqa: F401 (the API)

PROOF_WORDS = ("certified", "refuted", "not proved", "cited")
STEP_WORDS = ("certified", "refuted", "not proved")
HOLDS, FAILS, UNDECIDED = "holds", "fails", "undecided at this power"
EMPIRICAL_WORDS = (HOLDS, UNDECIDED, FAILS)
"""The record's empirical verdict words (decided by ``slt.measure.verdicts``, stored in the record)."""


def label(record: dict, name: str) -> str:
    """A statement's name as the paper numbers it (``numbering_label``); the name itself when the record has no
    such statement."""
    st = next((s for s in record.get("statements", ()) if s["name"] == name), None)
    return numbering_label(st["numbering"], name) if st else name


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)


def _names(record: dict, names) -> str:
    return ", ".join(label(record, n) for n in names)


# ---------------------------------------------------------------------------------------------------- findings

ABOUT_PAPER, ABOUT_HARNESS, ABOUT_SOLVER = "the paper", "this harness's constants", "a solver this harness uses"
ABOUT_ORDER = (ABOUT_PAPER, ABOUT_HARNESS, ABOUT_SOLVER)
"""What a finding is about (``slt.measure.findings.ABOUT`` decides it per finding): the paper (its statements,
proofs and experiments), the universal constants C this harness calibrates for itself (the paper gives none), or
a solver the harness uses (HiGHS's tolerances); every surface lists them in this order, under these words."""


def findings_by_about(record: dict) -> list[tuple[str, list[tuple[int, dict]]]]:
    """The record's findings grouped by what they are about (``ABOUT_ORDER``), each with its number (its place in
    the record, the one number every surface gives it): ``[(about, [(n, item), ...]), ...]``, empty groups left
    out."""
    items = list(enumerate(((record.get("findings") or {}).get("items") or []), 1))
    return [(a, g) for a in ABOUT_ORDER if (g := [(n, f) for n, f in items if f.get("about", ABOUT_PAPER) == a])]


# ------------------------------------------------------------------------------------------------------ proofs

PRECHECKED_MEANS = ("the first pass holds the step on its whole declared domain (SymPy symbolically, or an "
                    "interval-arithmetic certificate re-checked in Arb ball arithmetic); not yet a proof; a step that "
                    "holds on a stated box only is not pre-checked (not proved)")
"""What "pre-checked" means, wherever it is explained (the glossary, ``slth proofs``' key, docs/proofs.md)."""


def domain_words(domain: str) -> str:
    """A step's domain in words: "whole" -> "on the whole declared domain", "box: ..." -> "on the stated box only:
    ...", "sampled" -> "at sampled points only (evidence, never a proof)"."""
    if domain.startswith("box"):
        return "on the stated box only" + domain[3:]
    return {"whole": "on the whole declared domain",
            "sampled": "at sampled points only (evidence, never a proof)"}.get(domain, domain)


def step_word(step: dict) -> str:
    """One proof step's verdict: certified, refuted (a counterexample) or not proved. A record written before
    verdicts were three-valued says "ok" / "FAILED": ok counts as certified only on the whole domain by symbolic or
    interval methods, a failure as refuted only with a counterexample; anything else is not proved."""
    v = step.get("verdict")
    if v in STEP_WORDS:
        return v
    if step.get("ok"):
        whole = step.get("domain") == "whole" and step.get("method") in ("symbolic", "interval")
        return "certified" if whole else "not proved"
    return "refuted" if step.get("counterexample") else "not proved"


def proof_word(steps: list[dict]) -> str:
    """A statement's proof verdict from its supported steps: "cited" with no encoded proof (a cited result),
    "refuted" when a step fails with a counterexample (the written proof, not necessarily the statement), "not
    proved" when a step is neither certified nor refuted, else "certified"."""
    if not steps:
        return "cited"
    words = [step_word(s) for s in steps]
    return "refuted" if "refuted" in words else "not proved" if "not proved" in words else "certified"


def proof_verdicts(record: dict) -> dict:
    """Per statement (record order) its proof verdict."""
    return {st["name"]: proof_word([s for s in record["steps"] if s["statement"] == st["name"]
                                    and s.get("supported", True)]) for st in record["statements"]}


def proof_counts(record: dict) -> dict:
    words = list(proof_verdicts(record).values())
    return {w: words.count(w) for w in PROOF_WORDS}


AS_PRINTED, AS_REPAIRED = "as printed", "as repaired"
"""What a statement-level verdict is about: the statement as the paper prints it, or as the harness repaired it."""


PRINTED_MEANS = ("as printed: with the paper's bound, constants and hypotheses, sqrt(d1) read where the available "
                 "copy's typesetting lost the radical (its d1 is a reading of its own, variant 'd1')")
"""The one meaning of "as printed" in a statement-level verdict (the banner, the README, the glossary)."""


def certified_scope(record: dict, items: list | None = None) -> str:
    """What "certified" certifies, and how the statements' own Coq theorems differ from the printed statements:
    "certified: every step of the written proof pre-checked and accepted by Coq's kernel; as printed: ...; the Coq
    theorem of each whole statement states it with the differences it names (Lemma 2: d1 divides n; ...)", the
    differences read from the record's formalization (``bounds.prove.coq_statements.differences``) for the
    statements certified as printed; "" for a record without its formalization."""
    by, rep = proof_verdicts(record), repairs(record, items)
    formal = ((record.get("formalization") or {}).get("statements") or {})
    diff = [(n, formal[n]["differences"]) for n, w in by.items()
            if w == "certified" and n not in rep and (formal.get(n) or {}).get("differences")]
    out = ("certified: every step of the written proof pre-checked and accepted by Coq's kernel, at the constants of "
           f"the form named; {PRINTED_MEANS}")
    if diff:
        out += ("; the Coq theorems of the whole statements certified as printed add what they name (" +
                "; ".join(f"{label(record, n)}: {', '.join(d)}" for n, d in diff) + ")")
    return out


def repairs(record: dict, items: list | None = None) -> dict:
    """``{statement: {"what", "why", "kind", "step", "finding"}}`` in the record's statement order: each statement
    the harness encodes in a repaired form (a bound, a constant or a hypothesis changed), as the findings decided it
    (``slt.measure.findings``: an item's ``repair``; ``kind`` "statement" when the printed statement is false,
    "step" when a step of the written proof is, named by ``step``); ``items``: the findings' items (default: the
    record's)."""
    items = ((record.get("findings") or {}).get("items") or []) if items is None else items
    found = {f["repair"]["statement"]: {**f["repair"], "finding": f["id"]} for f in items if f.get("repair")}
    order = [s["name"] for s in record.get("statements", ())]
    return {n: found[n] for n in sorted(found, key=lambda n: order.index(n) if n in order else len(order))}


def object_words(record: dict, name: str, items: list | None = None) -> str:
    """"as printed", or "as repaired (twice the printed bound, ...)": the object of statement ``name``'s verdict."""
    r = repairs(record, items).get(name)
    return f"{AS_REPAIRED} ({r['what']})" if r else AS_PRINTED


def object_counts(record: dict, items: list | None = None) -> dict:
    """Statements by proof verdict and object: ``{"certified as printed", "certified as repaired", "refuted",
    "not proved", "cited"}``."""
    by, rep = proof_verdicts(record), repairs(record, items)
    return {"certified as printed": sum(w == "certified" and n not in rep for n, w in by.items()),
            "certified as repaired": sum(w == "certified" and n in rep for n, w in by.items()),
            **{w: list(by.values()).count(w) for w in ("refuted", "not proved", "cited")}}


def printed_false_sentence(record: dict, items: list | None = None) -> str:
    """"as printed, 1 statement is false (Lemma 13) and 3 written proofs have a false step (Lemma 12: logit step
    L12a; ...)", from ``repairs``; "" when nothing printed is false."""
    rep = repairs(record, items)
    false = [n for n, r in rep.items() if r.get("kind") == "statement"]
    steps = [n for n, r in rep.items() if r.get("kind") == "step"]
    parts = []
    if false:
        parts.append(f"{len(false)} statement{' is' if len(false) == 1 else 's are'} false ({_names(record, false)})")
    if steps:
        parts.append(f"{len(steps)} written proof{' has' if len(steps) == 1 else 's have'} a false step ("
                     + "; ".join(f"{label(record, n)}: {rep[n].get('step') or rep[n]['why']}" for n in steps) + ")")
    return ("as printed, " + " and ".join(parts)) if parts else ""


def proof_sentence(record: dict, items: list | None = None) -> str:
    """"6 statements certified as printed; 4 certified only as repaired (Lemma 12: ||x'_i|| <= alpha added; ...);
    as printed, 1 statement is false (Lemma 13) and 3 written proofs have a false step (...); of the forms the
    harness encodes 0 refuted, 0 not proved; 1 cited (...)": each verdict names its object (the statement as
    printed, or as repaired and what changed), from ``proof_verdicts`` and ``repairs``."""
    by, rep = proof_verdicts(record), repairs(record, items)
    c = object_counts(record, items)
    fixed = [n for n in rep if by.get(n) == "certified"]
    out = (f"{c['certified as printed']} statement{'s' if c['certified as printed'] != 1 else ''} certified "
           f"{AS_PRINTED}; {c['certified as repaired']} certified only {AS_REPAIRED}"
           + (" (" + "; ".join(f"{label(record, n)}: {rep[n]['what']}" for n in fixed) + ")" if fixed else ""))
    false = printed_false_sentence(record, items)
    out += (f"; {false}" if false else "") + f"; of the forms the harness encodes {c['refuted']} refuted, " \
        f"{c['not proved']} not proved"
    if c["not proved"] or c["refuted"]:
        out += " (" + _names(record, [n for n, w in by.items() if w in ("refuted", "not proved")]) + ")"
    if c["cited"]:
        out += f"; {c['cited']} cited (" + _names(record, [n for n, w in by.items() if w == "cited"]) + \
            ": a cited result, no proof to encode)"
    return out + f" ({certified_scope(record, items)})"


NO_KERNEL_SOURCE = "no kernel verdict in this record"


def kernel_source(record: dict) -> str:
    """Where the record's kernel verdicts come from: "kernel-checked in this run", "kernel result committed for this
    exact bounds/ and exporter", the no-kernel line, or ``NO_KERNEL_SOURCE`` for a record written before them;
    where the steps have different ones (a replay of only the steps an edit changed), each with its count."""
    labels = sorted({s["kernel_source"] for s in record["steps"] if s.get("kernel_source")})
    if len(labels) <= 1:
        return labels[0] if labels else NO_KERNEL_SOURCE
    count = {lb: sum(s.get("kernel_source") == lb for s in record["steps"]) for lb in labels}
    return "; ".join(f"{lb} for {count[lb]} step{'' if count[lb] == 1 else 's'}"
                     for lb in sorted(labels, key=lambda lb: -count[lb]))


def step_units(record: dict) -> str:
    """"71 proof steps (66 steps of the encoded proofs and 5 scalar facts)": the one way every page counts them."""
    steps = record["steps"]
    facts = sum(s["statement"] == "facts" for s in steps)
    return (f"{len(steps)} proof steps ({len(steps) - facts} steps of the encoded proofs and {facts} scalar "
            f"fact{'s' if facts != 1 else ''})")


def step_counts_sentence(record: dict) -> str:
    """"71 proof steps (66 steps of the encoded proofs and 5 scalar facts): 71 certified, 0 refuted, 0 not proved
    (...)": the counts every page states (the README and docs print it through ``slth docs``)."""
    steps = record["steps"]
    words = [step_word(s) for s in steps]
    c = {w: words.count(w) for w in STEP_WORDS}
    out = f"{step_units(record)}: {c['certified']} certified, {c['refuted']} refuted, {c['not proved']} not proved"
    if any("kind" in s for s in steps):  # identities (equal sides by construction) counted apart
        ident = sum(step_word(s) == "certified" and s.get("kind") == "identity" for s in steps)
        out += f" (of the certified: {c['certified'] - ident} prove an inequality, {ident} are identities)"
    return out


def _domain_kind(domain: str) -> str:
    return "box" if str(domain).startswith("box") else str(domain)


def first_pass_sentence(steps: list[dict]) -> str:
    """What the first pass did, counted from the steps (``{"first_pass", "method", "domain", "arb"}``; the record's
    steps or ``slth proofs``'s results): "71 of 71 pre-checked, each on the whole declared domain: 42 symbolically
    (SymPy), 29 by an interval certificate, whose 29 re-checks in Arb ball arithmetic agree (a symbolic step has
    no certificate to re-check)" -- the one sentence of the method, the domain and Arb every surface gives."""
    pre = [s for s in steps if s.get("first_pass", "pre-checked" if s.get("ok") else "") == "pre-checked"]
    doms = [_domain_kind(s.get("domain", "")) for s in pre]
    where = ("each " + domain_words("whole") if pre and set(doms) == {"whole"} else
             ", ".join(f"{doms.count(d)} {domain_words(d)}" for d in dict.fromkeys(doms)))
    sym = sum(s.get("method") == "symbolic" for s in pre)
    itv = sum(s.get("method") == "interval" for s in pre)
    other = len(pre) - sym - itv
    arb = [str(s.get("arb") or "").split(":")[0] for s in pre if s.get("method") == "interval"]
    return (f"{len(pre)} of {len(steps)} pre-checked, {where}: {sym} symbolically (SymPy), {itv} by an interval "
            f"certificate" + (f", {other} otherwise" if other else "")
            + f"; of the {itv} interval steps {arb.count('yes')} re-checked in Arb ball arithmetic"
            + (f", {arb.count('failed')} failed the re-check" if arb.count("failed") else "")
            + " (a symbolic step has no certificate to re-check)")


def step_sentence(record: dict) -> str:
    """The proof steps by verdict (``step_counts_sentence``), where certified means pre-checked by the first pass
    and accepted by Coq's kernel, with the source of the kernel's verdicts."""
    steps = record["steps"]
    out = step_counts_sentence(record)
    if any(s.get("first_pass") for s in steps):
        out += (f"; certified means pre-checked by the first pass ({first_pass_sentence(steps)}) and accepted by "
                f"Coq's kernel ({kernel_source(record)})")
    elif any(s.get("coq") for s in steps):  # a record written before the kernel decided the verdict
        coq = [(s.get("coq") or "not checked").split(":")[0] for s in steps]
        out += (f"; Coq: kernel-checked {coq.count('kernel-checked')} of {len(steps)} ({NO_KERNEL_SOURCE}: its "
                "certified is the first pass's)")
    return out


# --------------------------------------------------------------------------------------------------- empirical

def empirical_verdicts(record: dict) -> dict | None:
    """Per statement (not per printed reading) its empirical verdict, or None when the record measured nothing."""
    emp = record.get("empirical")
    return None if emp is None else {k: v for k, v in emp["verdicts"].items() if ":" not in k}


def printed_refuted(record: dict) -> list[str]:
    """The printed readings (``statement:reading``) a measured counterexample violates."""
    emp = record.get("empirical")
    return [] if emp is None else [k for k, v in emp["verdicts"].items() if ":" in k and v == FAILS]


def empirical_counts(record: dict) -> dict | None:
    by = empirical_verdicts(record)
    return None if by is None else {w: list(by.values()).count(w) for w in EMPIRICAL_WORDS}


def empirical_sentence(record: dict) -> str:
    """Statements by empirical verdict, and the printed readings a measured counterexample refutes."""
    c = empirical_counts(record)
    if c is None:
        return "not measured in this record"
    by = empirical_verdicts(record)
    und = [n for n, w in by.items() if w == UNDECIDED]
    fails = [n for n, w in by.items() if w == FAILS]
    printed = printed_refuted(record)
    rep = [n for n in repairs(record) if n in by]
    return ((f"in the forms the harness encodes ({len(rep)} {AS_REPAIRED}: {_names(record, rep)}), " if rep else "")
            + f"{c[HOLDS]} statements hold, {c[FAILS]} fail" + (f" ({_names(record, fails)})" if fails else "")
            + f", {c[UNDECIDED]} undecided at this power" + (f" ({_names(record, und)})" if und else "")
            + (f"; printed readings refuted by a measured counterexample: "
               + ", ".join(reading_words(record, k) for k in printed) if printed else ""))


def tested_scope(record: dict, name: str) -> str:
    """The points statement ``name``'s failure-rate checks test, in words: "at the tested points only (5 points:
    eps = 0.9 .. 0.333, C = 20)"; "" without one.  An empirical verdict is of these points, never of eps or C
    beyond them (a finding that the statement is false elsewhere speaks of another point)."""
    emp = record.get("empirical") or {}
    rates = [c for c in emp.get("checks") or () if c["statement"] == name and c["kind"] == "rate"]
    if not rates:
        return ""
    eps = [c["params"]["eps"] for c in rates if isinstance((c.get("params") or {}).get("eps"), (int, float))]
    cs = sorted({c["C"] for c in rates if isinstance(c.get("C"), (int, float))})
    return (f"at the tested points only ({len(rates)} point{'s' if len(rates) != 1 else ''}"
            + (f": {_eps_range(eps)}" if eps else "")
            + (f", C = {', '.join(_num(c) for c in cs)}" if cs else "") + ")")


def check_sentence(record: dict) -> str:
    """The same, counted per check (a statement has several): failure-rate tests and deterministic checks."""
    emp = record.get("empirical")
    if emp is None:
        return "not measured in this record"
    rates = [c for c in emp["checks"] if c["kind"] == "rate"]
    violated = [c for c in emp["checks"] if c["kind"] != "rate" and c["verdict"] == FAILS]
    whose = list(dict.fromkeys(reading_words(record, c["statement"]) for c in violated))
    return (f"per check: {sum(c['verdict'] == FAILS for c in rates)} of {len(rates)} failure-rate tests fail, "
            f"{sum(c['verdict'] == UNDECIDED for c in rates)} undecided at this power; {len(violated)} deterministic "
            f"check{'s' if len(violated) != 1 else ''} violated" + (f" ({', '.join(whose)})" if whose else ""))


def reading_words(record: dict, key: str) -> str:
    """"Lemma 13 as printed" for ``lemma13:printed``: a printed reading in words."""
    name, _, reading = key.partition(":")
    return f"{label(record, name)} as {reading}" if reading else label(record, name)


# ------------------------------------------------------------------------------------------------ does C grow?

NEITHER = ("neither shows one C for dimensions or eps beyond those measured, nor at target families other than "
           "the one named")


def _grid(record: dict, name: str) -> tuple[str, dict] | None:
    cal = record.get("calibration") or {}
    for key, words in (("large_worst", "worst-target large grid"), ("large", "large grid (random targets)")):
        rec = ((cal.get(key) or {}).get("statements") or {}).get(name)
        if rec and rec.get("points"):
            return words, rec
    return None


def growth(record: dict) -> dict:
    """Per statement with either analysis: ``{"fixed": {...} | None, "grid": {...} | None, "grows": bool,
    "sentence": str}``. ``fixed``: the fixed-C tests over eps (C, target, eps range, rejected eps); ``grid``: the
    large grid's fitted trends, split into factors along which C grows, shrinks, or shows no significant trend."""
    whole = record.get("calibration") or {}
    cal = whole.get("statements") or {}
    # a statement measured only on a grid still gets its answer
    names = dict.fromkeys([*(s["name"] for s in record.get("statements", ())),
                           *((whole.get("large_worst") or {}).get("statements") or {}),
                           *((whole.get("large") or {}).get("statements") or {}), *cal])
    out = {}
    for name in names:
        g = (cal.get(name) or {}).get("growth")
        fixed = None
        if isinstance(g, dict) and g.get("rows"):
            rows = sorted(g["rows"], key=lambda r: -r["eps"])
            fixed = {"C": g["C"], "target": g.get("target"), "eps": [r["eps"] for r in rows],
                     "rejected": [r["eps"] for r in rows if not r.get("passed")], "params": g.get("params") or {},
                     "model": g.get("verdict") or "",
                     "power": min((r.get("power_2eps") for r in rows if r.get("power_2eps") is not None), default=None)}
            fixed["grows"] = bool(fixed["rejected"]) or fixed["model"].startswith("grows")
        grid = None
        found = _grid(record, name)
        if found:
            words, rec = found
            trends = ((rec.get("trend") or {}).get("verdicts") or {})
            grid = {"which": words, "C": rec.get("C"), "points": len(rec["points"]),
                    "eps": sorted({p["eps"] for p in rec["points"] if isinstance(p, dict) and "eps" in p}),
                    "grows": {f: v for f, v in trends.items() if v.startswith("grows")},
                    "shrinks": {f: v for f, v in trends.items() if v.startswith("shrinks")},
                    "flat": [f for f, v in trends.items() if v.startswith("no significant")]}
        if fixed is None and grid is None:
            continue
        parts = []
        if fixed:
            where = ", ".join(f"{k} = {_num(v)}" for k, v in fixed["params"].items())
            parts.append(f"over eps at a fixed C = {_num(fixed['C'])} ({fixed['target']} target"
                         + (f", {where}" if where else "") + f"; eps {_num(fixed['eps'][0])} down to "
                         f"{_num(fixed['eps'][-1])}): "
                         + ("no test rejects 'failure rate <= eps'" if not fixed["rejected"] else
                            "the test rejects 'failure rate <= eps' at eps = "
                            + ", ".join(_num(e) for e in fixed["rejected"]))
                         + (f" (the failure model fitted over every C: {fixed['model']})"
                            if fixed["model"].startswith("grows") else ""))
        if grid:
            bits = []
            if grid["grows"]:
                bits.append("the calibrated C " + "; ".join(grid["grows"].values()))
            if grid["shrinks"]:
                bits.append("shrinks with " + ", ".join(grid["shrinks"]).replace("eps", "1/eps"))
            if grid["flat"]:
                bits.append("no significant trend in " + ", ".join("1/eps" if f == "eps" else f for f in grid["flat"]))
            parts.append(f"over dimensions on the {grid['which']} ({grid['points']} points, C = {_num(grid['C'])}): "
                         + ("; ".join(bits) if bits else "no trend fitted"))
        grows = bool((fixed and fixed["grows"]) or (grid and grid["grows"]))
        out[name] = {"fixed": fixed, "grid": grid, "grows": grows,
                     "sentence": f"{label(record, name)}: " + "; ".join(parts) + f"; {NEITHER}."}
    return out


WHY_THEY_DIFFER = ("they differ because the grid's fits rest on calibrated C values quantised to a grid of C whose "
                   "steps are as large as the effect, found by an acceptance rule that is stricter at small eps, so "
                   "they do not show that C must grow; the fixed-C tests test the failure rate itself")


def _eps_range(values) -> str:
    values = sorted(set(values), reverse=True)
    return f"eps = {_num(values[0])} .. {_num(values[-1])}" if values else "no eps"


def _fixed_c_words(record: dict, g: dict, tested: list) -> str:
    """Which C the fixed-C tests use: "at the C the checks use" where each is the statement's calibrated C (the
    record's ``calibration.statements.<name>.C``), else the exceptions by name: "at the C the checks use, except
    Theorem 9 (C = 8 at its worst target family identity; the checks use C = 5)"."""
    cal = (record.get("calibration") or {}).get("statements") or {}
    differ = [n for n in tested if (cal.get(n) or {}).get("C") is not None
              and float(g[n]["fixed"]["C"]) != float(cal[n]["C"])]
    if not differ:
        return "at the C the checks use"
    return ("at the C the checks use, except " + "; ".join(
        f"{label(record, n)} (C = {_num(g[n]['fixed']['C'])} at its worst target family {g[n]['fixed']['target']}; "
        f"the checks use C = {_num(cal[n]['C'])})" for n in differ))


def growth_answer(record: dict) -> list[str]:
    """"Does C grow?": the one answer, with its scope, every page gives (README, docs, the report's contents line,
    finding and calibration section), as sentences; the first is the headline (``growth_sentence``).  What the
    fixed-C tests show (at the checks' C, per eps), what the worst-target grid's fits show (per factor), why they
    differ when they do, and what neither shows."""
    g = growth(record)
    if not g:
        return ["no fixed-C test or large grid in this record"]
    tested = [n for n, a in g.items() if a["fixed"]]
    rejected = [n for n in tested if g[n]["fixed"]["rejected"]]
    modelled = [n for n in tested if g[n]["fixed"]["grows"] and not g[n]["fixed"]["rejected"]]
    eps = [e for n in tested for e in g[n]["fixed"]["eps"]]
    gridded = [n for n, a in g.items() if a["grid"]]
    growers = [n for n in gridded if g[n]["grid"]["grows"]]
    out = []
    at = _fixed_c_words(record, g, tested)
    if tested:
        if rejected:
            head = (f"Yes {at}: the test rejects for " + _names(record, rejected) + " ('failure "
                    "rate <= eps' at eps = " + "; ".join(", ".join(_num(e) for e in g[n]["fixed"]["rejected"])
                                                         for n in rejected) + ")")
        else:
            head = (f"Not over {_eps_range(eps)} {at}: no test rejects 'failure rate <= eps' "
                    f"({len(tested)} statements, each at its worst target family and one point)")
        if modelled:
            head += "; the failure model fitted over every C says C grows for " + _names(record, modelled)
        if growers and not rejected:
            factors = list(dict.fromkeys("1/eps" if f == "eps" else f for n in growers for f in g[n]["grid"]["grows"]))
            head += (f"; the fitted C of the {g[growers[0]]['grid']['which']} grows with {', '.join(factors)} for "
                     + _names(record, growers))
        out.append(head)
    if gridded:
        if growers:
            grid_eps = [e for n in growers for e in g[n]["grid"]["eps"]]
            out.append(f"On the {g[growers[0]]['grid']['which']} ({_eps_range(grid_eps)}), the fitted C each point "
                       "needs: " + "; ".join(f"{label(record, n)} " + ", ".join(g[n]["grid"]["grows"].values())
                                            for n in growers)
                       + f"; no significant growth for the other {len(gridded) - len(growers)} statements")
        else:
            out.append(f"On the large grid no fit shows significant growth ({len(gridded)} statements)")
    if tested and growers and not rejected:
        power = [g[n]["fixed"]["power"] for n in tested if g[n]["fixed"]["power"] is not None]
        out.append(WHY_THEY_DIFFER[0].upper() + WHY_THEY_DIFFER[1:]
                   + (f", with power at least {min(power):.2f} against a rate of 2 eps" if power else ""))
    out.append(NEITHER[0].upper() + NEITHER[1:] + (f", nor for eps below {_num(min(eps))}" if eps else ""))
    words, held = heldout_words(record), heldout_sentence(record)
    if words:  # the headline (the finding's title, the contents line) names the held-out verdicts too
        out[0] = out[0].rstrip(".") + "; " + words
    if held:
        out.append(held)
    return [s if s.endswith(".") else s + "." for s in out]


def heldout_sentence(record: dict) -> str:
    """What the held-out test of the law (C frozen, points outside every grid) says, per statement, as
    ``slt.measure.heldout.answer`` worded it into the record (``calibration.heldout.answers``); "" without one."""
    h = (record.get("calibration") or {}).get("heldout") or {}
    answers = h.get("answers") or []
    if not answers:
        return ""
    source = (h.get("calibration") or {}).get("file", "the calibration")
    return (f"Beyond the grids (held-out test of the law: C frozen from {source}, {h.get('points', '?')} points "
            "outside every grid, Holm across all of them): " + "; ".join(answers))


def growth_sentence(record: dict) -> str:
    """The headline of ``growth_answer`` (the contents line, the finding's title, the section heading)."""
    return growth_answer(record)[0].rstrip(".")


def heldout_words(record: dict) -> str:
    """The held-out test's verdicts in a few words, grouped by word as ``slt.measure.heldout.verdicts`` decided
    them (``calibration.heldout.verdicts``): "beyond the grids (held-out test of the law): the calibrated C holds
    for ...; fails for ...; undecided for ..."; "" without a held-out test."""
    v = ((record.get("calibration") or {}).get("heldout") or {}).get("verdicts") or {}
    groups = [(w, [n for n, x in v.items() if x == w]) for w in ("holds", "fails", "undecided")]
    parts = [f"{'the calibrated C ' if w == 'holds' else ''}{w} for {_names(record, ns)}" for w, ns in groups if ns]
    return "beyond the grids (held-out test of the law): " + "; ".join(parts) if parts else ""
