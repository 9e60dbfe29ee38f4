"""The generated parts of the documentation: ``docs/statements.md`` from ``bounds/``, every table of numbers
that ``docs/*.md`` quotes from a committed data file, and every claim the README and docs make about the run record
(the proof steps by verdict, "does C grow?", the findings with their numbers), printed by the functions of
``slt.claims`` and ``slt.measure.findings`` the report uses.

One source of truth: each statement of ``docs/statements.md`` (its numbering in the paper, hypotheses from its
``Param`` declarations, conclusion, widths, probability and proof steps) is printed from the ``bounds`` catalogue,
and every table between ``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->`` in a page of ``docs/`` is
printed from the committed file it names, or (``RECORD_BLOCKS``, ``finding-<id>``) from the run record of the working
tree (``working_record``).
``tests/test_docs.py`` holds the committed pages to this output.

    slth docs            # rewrite docs/statements.md and every generated block (or python -m reports.statements_page)
    slth docs --check    # exit 1 naming each page that differs (nothing written)
"""
from __future__ import annotations

import argparse
import copy
import functools
import json
import re
import sys
from pathlib import Path

import sympy as sp

from bounds import catalogue as cat
from bounds.prove import coq_math, coq_text
from bounds.prove.coq import cost
from bounds.prove.coq_statements import alone_words
from bounds.symbols import text as _text
from reports import performance
from reports.terminal import safe
from slt import claims
from slt.inputs import InputError
from slth_base.files import holds, read_text, replace_file
from slth_base.numbering import numbering_label
from reports.performance import cell, md_table, read_committed

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
STATEMENTS_PAGE = DOCS / "statements.md"
COMMAND = "slth docs"
CALIBRATION = ROOT / "slt" / "measure" / "calibration.json"
COMMITTED_EMPIRICAL = ROOT / "slt" / "measure" / "committed" / "empirical-full.json"
FIGURES = ROOT / "slt" / "figures" / "committed"

_BLOCK = re.compile(r"<!-- generated: (?P<name>[a-z0-9-]+) -->\n(?P<body>.*?)<!-- end generated: (?P=name) -->", re.DOTALL)


# ------------------------------------------------------------------------------------------ docs/statements.md

def _pretty(expr) -> str:
    return sp.pretty(expr, use_unicode=True, wrap_line=False)


def _md(text: str) -> str:
    """Prose from bounds/ (notes, descriptions) as Markdown that shows it literally: no stray links or emphasis."""
    return re.sub(r"([\\`*_\[\]<>])", r"\\\1", str(text))


def _heading(st) -> str:
    return f"{claims.numbering_heading(st.numbering, st.name)}: {st.title}"


def _step_lines(step, statements) -> list[str]:
    relies = ", ".join(f"[{r}](#{r})" if r in statements else _md(r) for r in step.relies_on) or "arithmetic"
    out = [f"- **{step.name}** `{_text(step.lhs)} <= {_text(step.rhs)}`", f"  - relies on: {relies}"]
    if step.params:
        hyps = ", ".join(h.label for p in step.params for h in p.hypotheses())
        out.append(f"  - the step's own parameters: {hyps}")
    premises = getattr(step, "premises", None)
    if premises:
        out.append("  - premises: " + ", ".join(getattr(p, "name", str(p)) for p in premises))
    if step.note:
        out.append(f"  - note: {_md(step.note)}")
    return out


def statement_section(name: str, catalogue=None) -> str:
    """The section of ``name``: numbering, hypotheses, conclusion, widths, probability, readings and proof steps."""
    statements = cat.STATEMENTS if catalogue is None else catalogue
    st = statements[name]
    steps = cat.proof(name, statements)
    out = [f'<a id="{name}"></a>', "", f"## {_heading(st)}", "",
           f"Name in the harness: `{name}`. Quantity bounded: {_md(st.quantity)}.", "",
           "**Hypotheses** (from its parameter declarations): "
           + "; ".join(f"`{h.label}`" for h in st.hypotheses) + ".", "",
           "**Conclusion**: the quantity is at most", "", "```", _pretty(st.conclusion), "```", ""]
    if st.probability is not None:
        out += [f"with probability at least `{_text(st.probability)}`", ""]
    if st.widths:
        out += ["**Widths** (the random network's width that suffices, with the universal constant C):", "",
                *(line for w, expr in st.widths.items() for line in (f"`{w}` >=", "", "```", _pretty(expr), "```", ""))]
    if st.terms:
        out += ["**Named terms**:", "", *(f"- `{t}` = `{_text(e)}`" for t, e in st.terms.items()), ""]
    if st.notes:
        out += [f"Note: {_md(st.notes)}", ""]
    if st.variants:
        out += ["**Readings of the printed text** (kept as variants; the verifier shows the steps each breaks):", ""]
        for v in st.variants.values():
            breaks = ", ".join(f"{s} step {p}" for s, p in v.breaks) or "no step"
            out.append(f"- `{name}:{v.name}`: {_md(v.description)} Breaks: {breaks}.")
        out.append("")
    out += _coq_lines(name, statements)
    if steps:
        out += [f"**Proof** ({len(steps)} steps, each an inequality `lhs <= rhs` on the statement's hypotheses):", "",
                *(line for s in steps for line in _step_lines(s, statements)), ""]
    else:
        out += ["**Proof**: cited, no proof encoded; the statements that use it rest on it as stated.", ""]
    return "\n".join(out)


def _coq_lines(name: str, statements) -> list[str]:
    """The statement's Coq theorem as ``bounds.prove.coq_math`` generates it, and the premises it rests on."""
    text = coq_math.coq_statement(name, statements)
    if name == coq_math.CITED:
        return ["**In Coq**: the cited result, proved nowhere: a hypothesis (`lueker_cited`) of every theorem that uses "
                "it, its width, error and failure printed from `bounds/` (the committed "
                "`proofs/coq/statements/Statements.v`; `lueker_corollary` in `Events.v`):", "", "```coq",
                coq_math.cited_statement(statements), "```", "",
                "As printed (every 0 < eps < 1) it holds for no item law with a one-item family, whatever C: at "
                "eps = exp(-1/C) the printed width is 1, and one item never covers both -1 and 1 within eps < 1. "
                "`Statements.v` states this as `lueker_as_printed_fails_one_item`, which the test "
                "`tests/test_coq_math.py::test_lueker_as_printed_fails_for_one_item_and_coq_proves_it` compiles; so the "
                "theorems that cite the corollary are proved from a hypothesis that the uniform products of the "
                "construction do not satisfy for every eps (finding `lueker-printed`).", ""]
    if text is None:
        cited = coq_math.cited_premises(name, statements)
        return [f"**In Coq**: not formalized (no theorem states it; its steps cite the premises "
                f"{', '.join(cited) or 'none'}).", ""]
    rests = ", ".join(coq_text.FORMAL[name][1]) or "no premise"
    return [f"**In Coq** (`stmt_{name}` as it reads in the committed `proofs/coq/statements/Statements.v`, its bound "
            f"printed from `bounds/` into the text of `proofs/coq/statements/parts/{name}.v`; rests on: {rests}):",
            "", "```coq", text, "```", ""]


OBJECTS = """<a id="objects"></a>

## Objects

The objects every statement speaks of (the paper's definitions, as `slt/models.py` computes them):

- Input `X = [x_1 .. x_T]^T` in `R^(T x d1)`, every token `||x_i|| <= alpha`, and `alpha >= max(sqrt(d1), sqrt(d2))`.
- Attention mask `a_i` in `{0, 1}^T` with `||a_i||_1 >= 1`; masked softmax
  `sigma(z; a)_j = a_j exp(z_j) / sum_k a_k exp(z_k)`.
- Target MHA with H heads:
  `Attn_T(x_i) = sum_j sigma(x_i^T W_Q^(j) (X W_K^(j))^T / sqrt(d_K); a_i) X W_V^(j) W_O^(j)`, every weight matrix
  of spectral norm <= 1. Merged matrices `W_QK = W_Q W_K^T / sqrt(d_K)` and `W_VO = W_V W_O`.
- Source MHA: the same form with pruned random weights `W~ * M` (entrywise product with a 0/1 mask), widths `n_K`
  (query/key) and `n_V` (value/output), logits scaled by `1/sqrt(n_K)`; entries of `W~_Q`, `W~_K` iid
  `U[-n_K^(1/4), n_K^(1/4)]`, of `W~_V`, `W~_O` iid `U[-1, 1]`.
- Transformer block without normalisation: `Blk(x_i) = F(Attn(x_i)^T + x_i) + Attn(x_i)^T + x_i`, `F` a ReLU
  fully-connected net without biases (target: L layers of width d1, spectral norms <= 1; source: 2L layers).
  Transformer: `Tf = Blk^(B) o ... o Blk^(1)`.
- "With probability at least 1 - eps" is checked as a failure rate: [checks.md](checks.md).
"""


def statements_page(catalogue=None) -> str:
    """docs/statements.md: every statement of the catalogue, in its order."""
    statements = cat.STATEMENTS if catalogue is None else catalogue
    index = ["- [Objects](#objects)"] + [f"- [{_heading(st)}](#{n})" for n, st in statements.items()]
    head = ["# The statements, their hypotheses, widths and proofs", "",
            f"<!-- Generated from bounds/ by `{COMMAND}`; do not edit by hand. -->", "",
            "Every lemma and theorem of the paper that the harness encodes, with the paper's numbering (appendix "
            "number first, then the main text's: in parentheses, or after a comma where it holds parentheses itself, as "
            "every surface heads it: slth_base.numbering), printed from its declaration in `bounds/`: the hypotheses "
            "from its parameters, the conclusion, the widths, and its proof as steps (name, inequality, what it "
            "relies on, note). `eps` is the target error, `C` the universal constant of Lueker's corollary. "
            "How each step is verified: [proofs.md](proofs.md).", ""] + index + [""]
    return "\n".join(head + [OBJECTS] + [statement_section(n, statements) for n in statements]).rstrip() + "\n"


# ------------------------------------------------------------------------------------------ tables from data files

NOT_CALIBRATED = "not calibrated"
"""What a constant the file stores as null reads as in a page."""


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return str(int(x)) if x == int(x) and abs(x) < 1e6 else f"{x:.3g}"
    return str(x)


def _constant(C) -> str:
    return NOT_CALIBRATED if C is None else _fmt(C)


def _point(params: dict) -> str:
    return ", ".join(f"{k} = {_fmt(v)}" for k, v in params.items())


def constants_table() -> str:
    """The calibrated constants of slt/measure/calibration.json."""
    return "\n".join(md_table(
        ["statement", "C the checks use", "range [C_low, C_high]", "worst target family", "C at random targets"],
        [[f"[{_name(name)}](statements.md#{name})", _constant(s["C"]),
          f"[{_fmt(s.get('C_low'))}, {_fmt(s.get('C_high'))}]", s.get("worst_target") or "-",
          _fmt(s["C_random"]) if s.get("C_random") is not None else "-"]
         for name, s in read_committed(CALIBRATION)["statements"].items()]))


def fixed_c_table() -> str:
    """The fixed-C tests over eps (``growth`` of each statement in slt/measure/calibration.json)."""
    grown = [(name, s["growth"]) for name, s in read_committed(CALIBRATION)["statements"].items() if s.get("growth")]
    return "\n".join(md_table(
        ["statement", "C", "point", "target", "failures / trials, largest eps first", "every test passes",
         "failure model"],
        [[_name(name), _constant(g["C"]), cell(_point(g["params"])), g["target"],
          ", ".join(f"eps {_fmt(r['eps'])}: {r['failures']}/{r['trials']}" for r in g["rows"]),
          "yes" if all(r["passed"] for r in g["rows"]) else "no", cell((g.get("glm") or {}).get("verdict", "-"))]
         for name, g in grown]))


def large_table(worst: bool) -> str:
    """The large calibration's trend table (what ``slth calibrate --table`` prints)."""
    from reports.sections.calibration_trend import markdown_table
    from slt.measure import calibrate as cal

    return markdown_table(cal.trend_summary(cal.LARGE_WORST_FILE if worst else None)).strip()


def committed_empirical_table() -> str:
    """The committed full-power failure rates (slt/measure/committed/empirical-full.json)."""
    data = read_committed(COMMITTED_EMPIRICAL)
    checks = data["empirical"]["checks"]
    prov = data["provenance"]
    rows = [f"{len(checks)} rate points, {sum(c['trials'] for c in checks)} trials, profile `{prov['profile']}`, "
            f"made by `{prov['command'].split(' --cache-dir')[0]}`.", ""]
    rows += md_table(["statement", "point", "C", "failures / trials", "95% interval of the rate", "verdict"],
                     [[c["statement"], cell(_point(c["params"])), _fmt(c["C"]), f"{c['failures']}/{c['trials']}",
                       f"[{lo:.3g}, {hi:.3g}]", c["verdict"]] for c in checks for lo, hi in [c["interval"]]])
    return "\n".join(rows)


def figures_table() -> str:
    """What each committed full sweep (slt/figures/committed/, shipped with the package) found."""
    out = []
    for path in sorted(FIGURES.glob("*.json")):
        data = read_committed(path)
        out += [f"**{cell(data['title'])}** ([`{path.relative_to(ROOT)}`](../{path.relative_to(ROOT)}), "
                f"{_fmt(round(data['compute_s']))} s of compute):", ""]
        out += [f"- {cell(f)}" for f in data.get("findings") or []] + [""]
    return "\n".join(out).rstrip()


def _name(name: str) -> str:
    """A statement of the catalogue by the name every surface prints (``slth_base.numbering.numbering_label``)."""
    return numbering_label(cat.STATEMENTS[name].numbering, name) if name in cat.STATEMENTS else name


def families_table() -> str:
    """Failures per target family at the random-target C and at the calibrated C (``targets`` and
    ``targets_verify`` of each statement in slt/measure/calibration.json)."""
    ran = [(name, s[key]) for name, s in read_committed(CALIBRATION)["statements"].items()
           for key in ("targets", "targets_verify") if s.get(key)]
    return "\n".join(md_table(["statement", "point", "C", "failures / trials per target family"],
                              [[_name(name), cell(_point(t["point"])), _fmt(t["C"]),
                                ", ".join(f"{f['family']} {f['failures']}/{f['trials']}" for f in t["families"])]
                               for name, t in ran]))


_SOURCES = {"heldout": ROOT / "slt" / "measure" / "heldout-design.json", "constants": CALIBRATION, "fixed-c": CALIBRATION, "families": CALIBRATION,
            "large-random": ROOT / "slt" / "measure" / "calibration-large.json",
            "large-worst": ROOT / "slt" / "measure" / "calibration-large-worst.json",
            "committed-empirical": COMMITTED_EMPIRICAL, "figures": FIGURES,
            "coq-counts": ROOT / "proofs" / "coq" / "math" / "Premises.v",
            "task-throughput": ROOT / "benchmarks" / "bench_tasks.json",
            "diff-time": ROOT / "benchmarks" / "diff-time.json",
            "axioms-coq-cost": ROOT / "benchmarks" / "coq-cold.json"}
"""The committed file (or folder) each generated block is printed from, named when it is incomplete."""


def finding_items(record: dict) -> list[dict]:
    """The record's findings, decided from it by ``slt.measure.findings.decide`` (what the report stores and shows);
    decided once per record while ``pages`` prints every block of every page (``_DECIDED``)."""
    from slt.measure import findings

    if _DECIDED and _DECIDED[0][0] is record:
        return _DECIDED[0][1]
    items = findings.decide(record)["items"]
    if _DECIDED:
        _DECIDED[0] = (record, items)
    return items


_DECIDED: list = []
"""While ``pages`` runs: ``[(record, its findings)]``, the last record whose findings were decided (held, so that a
record is never mistaken for another at the same address); empty otherwise, so nothing is kept between calls."""


def _md_table(table: dict | None) -> list[str]:
    if not table or not table.get("rows"):
        return []
    return md_table([cell(c) for c in table["columns"]], [[cell(v) for v in row] for row in table["rows"]])


_WHEN = re.compile(r",? checked (?:at|between) \d{4}-\d\d-\d\dT[\d:]+Z(?: and \d{4}-\d\d-\d\dT[\d:]+Z)?")
"""When a kernel result was checked (``bounds.prove.kernel``'s label): the report, a run's record, prints it; a page
of docs/ says what is, not when it was made, so its copy of a finding leaves it out."""


def _timeless(sentence: str) -> str:
    """``sentence`` without the time its kernel result was checked at (``_WHEN``)."""
    return _WHEN.sub("", sentence)


def finding_detail(record: dict, fid: str) -> str:
    """Finding ``fid`` as docs/findings.md shows it: its title and sentences, its table and its counterexample, as
    ``slt.measure.findings`` decides them from the record (the report's words and numbers)."""
    item = next((f for f in finding_items(record) if f["id"] == fid), None)
    if item is None:
        raise KeyError(f"finding-{fid}")
    out = [f"**{_md(item['title'])}** " + " ".join(_md(_timeless(s)) for s in item["sentences"])]
    if item.get("table"):
        out += ["", *_md_table(item["table"])]
    if item.get("counterexample"):
        out += ["", "Counterexample:", "", *_md_table(item["counterexample"])]
    if item.get("command"):
        out += ["", f"Re-run: `{item['command']}`"]
    return "\n".join(out)


def findings_list(record: dict) -> str:
    """The README's findings: one line per finding of ``slt.measure.findings`` (its number, its title: the claim, with
    its numbers, as the report words it; the link to its evidence in docs/findings.md and the test that reproduces
    it), numbered as the report numbers them, grouped by what each is about as the report groups them
    (``slt.claims.findings_by_about``: the paper, this harness's own calibrated constants, a solver it uses)."""
    record = {**record, "findings": {**(record.get("findings") or {}), "items": finding_items(record)}}
    out = []
    for about, group in claims.findings_by_about(record):
        out += ([""] if out else []) + [f"About {about}:", ""] + [
            f"{n}. **{f['title'].rstrip('.')}** ([{f['id']}](docs/findings.md#{f['id']})). Test: `{f['test']}`"
            for n, f in group]
    return "\n".join(out)


def coq_counts() -> str:
    """The premises proved in Coq and the statements proved from Lueker's corollary alone, named, each with how its
    Coq theorem differs from the printed statement (``bounds.prove.coq_math.blueprint``: the declarations that
    ``tests/test_coq_math.py`` holds equal to Coq's ``Print Assumptions`` and closed types; what "alone" means:
    ``bounds.prove.coq_statements.ALONE_MEANS``, in the line)."""
    bp = coq_math.blueprint()
    alone = [f"- `{n}`: " + alone_words(n, True, s["differences"]).split(", probabilities included, ")[1]
             for n, s in bp["statements"].items() if s["lueker_alone"]]
    proved = [f"`{p}`" for p, v in bp["premises"].items() if v["proved"]]
    return (f"\"{bp['line']}\"\n\nProved in Coq from Lueker's corollary alone, probabilities included, each of the "
            "form its Coq theorem states:\n\n" + ("\n".join(alone) or "none")
            + "\n\nPremises proved in Coq: " + ("; ".join(proved) or "none") + ".")


def heldout_answer() -> str:
    """The held-out test of the law, one line per statement (``slt.measure.heldout.answer``), with its files."""
    from slt.measure import heldout

    h = heldout.summary()
    return (f"Design `{h['design']}` (SHA-256 `{h['design_sha256'][:16]}`), C frozen from `{h['calibration']['file']}` "
            f"(SHA-256 `{h['calibration']['sha256'][:16]}`), {h['points']} points, result "
            + (f"`{h['result']}` ({h['cost']['cpu_s']:.0f} CPU s for the trials it holds)" if h["result"] else "not run")
            + ":\n\n" + "\n".join(f"- {line}" for line in h["answers"]))


BLOCKS = {"constants": constants_table, "heldout": heldout_answer, "fixed-c": fixed_c_table,
          "large-random": lambda: large_table(False), "large-worst": lambda: large_table(True),
          "committed-empirical": committed_empirical_table, "figures": figures_table, "families": families_table,
          "suite-time": performance.suite_time, "coq-counts": coq_counts,
          "task-throughput": performance.task_throughput, "diff-time": performance.diff_time,
          "axioms-coq-cost": cost.summary, "coq-count-line": lambda: coq_math.blueprint()["line"] + ".",
          "performance-goals": performance.table, "gpu-run": performance.gpu_run}
"""Every generated block a page of docs/ may hold, by name, from the committed files."""
FINDING_BLOCK = "finding-"
"""A block ``finding-<id>`` prints one finding of ``slt.measure.findings`` in full (``finding_detail``)."""
RECORD_BLOCKS = {"proof-counts": lambda record: claims.step_counts_sentence(record) + ".",
                 "growth-answer": lambda record: " ".join(claims.growth_answer(record)), "findings": findings_list,
                 "statement-verdicts": lambda record: claims.proof_sentence(record) + ".",
                 "first-pass": lambda record: "First pass: " + claims.first_pass_sentence(record["steps"]) + "."}
"""The blocks printed from a run record (``working_record()``: the proof-only record of the working tree with what
the default report adds for its findings): the same functions of ``slt.claims`` and ``slt.measure.findings`` the
report renders its claims with."""


def fill(text: str, record=None) -> str:
    """``text`` with every generated block replaced by the generator's output (KeyError on an unknown block);
    ``record`` (a callable giving the run record, or the record) for the blocks printed from a record."""
    def block(m):
        name = m.group("name")
        if name in RECORD_BLOCKS or name.startswith(FINDING_BLOCK):
            rec = record() if callable(record) else record
            body = safe((finding_detail(rec, name[len(FINDING_BLOCK):]) if name.startswith(FINDING_BLOCK)
                         else RECORD_BLOCKS[name](rec)).strip())
        else:
            body = generated(name)
        return f"<!-- generated: {name} -->\n{body}\n<!-- end generated: {name} -->"

    return _BLOCK.sub(block, text)


def generated(name: str) -> str:
    """Block ``name`` printed from its committed file, control characters escaped (``\\x1b``: a page never carries
    a raw escape sequence from a data file); ``InputError`` naming the file when its data is incomplete."""
    try:
        return safe(BLOCKS[name]().strip())
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        what = f"field {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise InputError(f"generated block {name}: {_SOURCES.get(name, 'its data file')} is incomplete ({what} is "
                         "missing or of the wrong kind)") from None


def blocks(text: str) -> list[str]:
    return [m.group("name") for m in _BLOCK.finditer(text)]


def working_record() -> dict:
    """The run record the pages describe: the proof-only run record of the working tree (what ``slth run
    --proofs-only`` writes) with the measurements its findings rest on (``with_findings_data``)."""
    from reports.record import assemble

    return with_findings_data(assemble.build("proofs", seed=0, command=f"{COMMAND}", log=lambda msg: None))


def with_findings_data(record: dict, cache_dir=None, log=lambda msg: None) -> dict:
    """A copy of the proof-only ``record`` with what the default report (``slth report``) adds for its findings:
    the printed variants (the committed verification while the code that decides them is unchanged,
    ``reports.record.verified``) and the deterministic empirical measurements of the quick profile (the committed
    task results of the same code, else computed once into ``cache_dir``) with the committed full-power failure
    rates; its findings decided again by ``slt.measure.findings``, as ``reports.record.assemble.build`` does."""
    from reports.record import assemble, verified
    from reports.record.files import dumps
    from slt.measure import committed
    from slt.measure import empirical as emp
    from slt.measure import findings
    from slth_base.settings import cache_home

    cache_dir = Path(cache_dir) if cache_dir is not None else cache_home() / "slth-harness" / "docs"
    rec = copy.deepcopy(record)
    data = assemble.calibration()["_data"]
    rec["variants"] = verified.cached("variants", assemble.variants, cache_dir, log)
    measured = emp.measure("quick", int(rec["provenance"]["seeds"]["base"]), data, progress=log,
                           cache_dir=cache_dir / "tasks", rates=False)
    rec["empirical"], rec["empirical_source"] = committed.select(measured, "quick", data)
    rec["findings"] = findings.decide(json.loads(dumps(rec)))
    return rec


def pages(record=None) -> dict:
    """Every generated page's expected text: docs/statements.md, the committed ``Statements.v`` (the statements' Coq
    theorems, ``bounds.prove.coq_math.statements_file``), the README and each page of docs/ with generated blocks; ``record``: the run record the record blocks are printed from (default: built once, when needed)."""
    out = {STATEMENTS_PAGE: safe(statements_page()), coq_text.STATEMENTS_V: coq_text.statements_file()}
    get = functools.cache(working_record) if record is None else lambda: record
    _DECIDED[:] = [(None, None)]  # each record's findings decided once for all its blocks (finding_items)
    try:
        for path in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
            if path != STATEMENTS_PAGE:
                text = read_text(path, "page")  # a regular file of the repository, UTF-8: else one line, exit 2
                if blocks(text):
                    out[path] = fill(text, get)
    finally:
        _DECIDED.clear()
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", action="store_true", help="exit 1 naming each page that differs; write nothing")


def main(args: argparse.Namespace) -> int:
    """``slth docs``: rewrite every generated page that differs (or, with ``--check``, name it and exit 1). Every
    page is made before the first is written, and each is written atomically (a full disk leaves the old page), as a
    file of the repository: a symbolic link at a page's name is replaced, never written through."""
    stale = []
    for path, text in pages().items():
        if not holds(path, text):  # a link, a FIFO or other text at a page's name: stale, never opened
            stale.append(path)
            if not args.check:
                replace_file(path, text, within=ROOT)  # never through a link: the page becomes a file of the repository
    for path in stale:
        print(f"{'differs' if args.check else 'written'}: {path.relative_to(ROOT)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":  # the same command as `slth docs`: one-line usage errors, exit 2
    from reports.cli import main as _slth

    sys.exit(_slth(["docs", *sys.argv[1:]]))
