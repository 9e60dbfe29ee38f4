"""The generated parts of the documentation: ``docs/statements.md`` from ``bounds/``, every table of numbers
that ``docs/*.md`` quotes from a committed data file, and every claim the README and docs make about the run record
(the proof steps by verdict, "does C grow?"), printed by the functions of ``slt.claims`` the report uses.

One source of truth: each statement of ``docs/statements.md`` (its numbering in the paper, hypotheses from its
``Param`` declarations, conclusion, widths, probability and proof steps) is printed from the ``bounds`` catalogue,
and every table between ``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->`` in a page of ``docs/`` is
printed from the committed file it names, or (``RECORD_BLOCKS``) from the proof-only run record of the working tree.
``tests/test_docs.py`` holds the committed pages to this output.

    slth docs            # rewrite docs/statements.md and every generated block (or python -m reports.statements_page)
    slth docs --check    # exit 1 naming each page that differs (nothing written)
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import sympy as sp

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
STATEMENTS_PAGE = DOCS / "statements.md"
COMMAND = "slth docs"
CALIBRATION = ROOT / "slt" / "measure" / "calibration.json"
COMMITTED_EMPIRICAL = ROOT / "slt" / "measure" / "committed" / "empirical-full.json"
FIGURES = ROOT / "slt" / "figures" / "committed"

_BLOCK = re.compile(r"<!-- generated: (?P<name>[a-z0-9-]+) -->\n(?P<body>.*?)<!-- end generated: (?P=name) -->", re.DOTALL)


# ------------------------------------------------------------------------------------------ docs/statements.md

def _text(expr) -> str:
    """A SymPy expression as one line of plain text, written with the parameters' names."""
    from bounds.symbols import text

    return text(expr)


def _pretty(expr) -> str:
    return sp.pretty(expr, use_unicode=True, wrap_line=False)


def _md(text: str) -> str:
    """Prose from bounds/ (notes, descriptions) as Markdown that shows it literally: no stray links or emphasis."""
    return re.sub(r"([\\`*_\[\]<>])", r"\\\1", str(text))


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def anchor(name: str) -> str:
    """The anchor of statement ``name`` in docs/statements.md (``docs/statements.md#theorem9``)."""
    return name


def _heading(st) -> str:
    main, appendix = st.numbering.get("main", ""), st.numbering.get("appendix", "")
    label = appendix or main or st.name
    other = f" (main text: {main})" if main and main != appendix else ""
    return f"{label}{other}: {st.title}"


def _step_lines(step, statements) -> list[str]:
    relies = ", ".join(f"[{r}](#{anchor(r)})" if r in statements else _md(r) for r in step.relies_on) or "arithmetic"
    line = f"- **{step.name}** `{_text(step.lhs)} <= {_text(step.rhs)}`"
    out = [line, f"  - relies on: {relies}"]
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
    from bounds import catalogue as cat

    statements = cat.STATEMENTS if catalogue is None else catalogue
    st = statements[name]
    steps = cat.proof(name, statements)
    out = [f'<a id="{anchor(name)}"></a>', "", f"## {_heading(st)}", "",
           f"Name in the harness: `{name}`. Quantity bounded: {_md(st.quantity)}.", "",
           "**Hypotheses** (from its parameter declarations): "
           + "; ".join(f"`{h.label}`" for h in st.hypotheses) + ".", "",
           "**Conclusion**: the quantity is at most", "", "```", _pretty(st.conclusion), "```", ""]
    if st.probability is not None:
        out += [f"with probability at least `{_text(st.probability)}`", ""]
    if st.widths:
        out += ["**Widths** (the random network's width that suffices, with the universal constant C):", ""]
        for w, expr in st.widths.items():
            out += [f"`{w}` >=", "", "```", _pretty(expr), "```", ""]
    if st.terms:
        out += ["**Named terms**:", ""]
        out += [f"- `{t}` = `{_text(e)}`" for t, e in st.terms.items()]
        out.append("")
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
        out += [f"**Proof** ({len(steps)} steps, each an inequality `lhs <= rhs` on the statement's hypotheses):", ""]
        for s in steps:
            out += _step_lines(s, statements)
        out.append("")
    else:
        out += ["**Proof**: cited, no proof encoded; the statements that use it rest on it as stated.", ""]
    return "\n".join(out)


def _coq_lines(name: str, statements) -> list[str]:
    """The statement's Coq theorem as ``bounds.prove.coq_math`` generates it, and the premises it rests on."""
    from bounds.prove import coq_math

    text = coq_math.coq_statement(name, statements)
    if text is None:
        cited = coq_math.cited_premises(name, statements)
        return [f"**In Coq**: not formalized (no theorem states it; its steps cite the premises "
                f"{', '.join(cited) or 'none'}).", ""]
    rests = ", ".join(coq_math.FORMAL[name][1]) or "no premise"
    return [f"**In Coq** (`stmt_{name}`, generated into `Statements.v` by `python -m bounds.prove.coq_math`, its bound "
            f"printed from `bounds/`; rests on: {rests}):", "", "```coq", text, "```", ""]


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
    from bounds import catalogue as cat

    statements = cat.STATEMENTS if catalogue is None else catalogue
    index = ["- [Objects](#objects)"] + [f"- [{_heading(st)}](#{anchor(n)})" for n, st in statements.items()]
    head = ["# The statements, their hypotheses, widths and proofs", "",
            f"<!-- Generated from bounds/ by `{COMMAND}`; do not edit by hand. -->", "",
            "Every lemma and theorem of the paper that the harness encodes, with the paper's numbering (appendix "
            "number first, the main text's in parentheses), printed from its declaration in `bounds/`: the hypotheses "
            "from its parameters, the conclusion, the widths, and its proof as steps (name, inequality, what it "
            "relies on, note). `eps` is the target error, `C` the universal constant of Lueker's corollary. "
            "How each step is verified: [proofs.md](proofs.md).", ""] + index + [""]
    return "\n".join(head + [OBJECTS] + [statement_section(n, statements) for n in statements]).rstrip() + "\n"


# ------------------------------------------------------------------------------------------ tables from data files

def _read(path) -> dict:
    """A committed data file, read through the one bounded reader (a truncated or empty file is one line)."""
    from slt.inputs import InputError, read_json

    data = read_json(path, "committed data file")
    if not isinstance(data, dict):
        raise InputError(f"committed data file {path}: not a JSON object")
    return data


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
    data = _read(CALIBRATION)
    rows = ["| statement | C the checks use | range [C_low, C_high] | worst target family | C at random targets |",
            "|---|---|---|---|---|"]
    for name, s in data["statements"].items():
        rows.append(f"| [{name}](statements.md#{anchor(name)}) | {_constant(s['C'])} | [{_fmt(s.get('C_low'))}, "
                    f"{_fmt(s.get('C_high'))}] | {s.get('worst_target') or '-'} | "
                    f"{_fmt(s['C_random']) if s.get('C_random') is not None else '-'} |")
    return "\n".join(rows)


def fixed_c_table() -> str:
    """The fixed-C tests over eps (``growth`` of each statement in slt/measure/calibration.json)."""
    data = _read(CALIBRATION)
    rows = ["| statement | C | point | target | failures / trials, largest eps first | every test passes | "
            "failure model |", "|---|---|---|---|---|---|---|"]
    for name, s in data["statements"].items():
        g = s.get("growth")
        if not g:
            continue
        counts = ", ".join(f"eps {_fmt(r['eps'])}: {r['failures']}/{r['trials']}" for r in g["rows"])
        passed = "yes" if all(r["passed"] for r in g["rows"]) else "no"
        glm = (g.get("glm") or {}).get("verdict", "-")
        rows.append(f"| {name} | {_constant(g['C'])} | {_cell(_point(g['params']))} | {g['target']} | {counts} | {passed} "
                    f"| {_cell(glm)} |")
    return "\n".join(rows)


def large_table(worst: bool) -> str:
    """The large calibration's trend table (what ``slth calibrate --table`` prints)."""
    from reports.sections.calibration_trend import markdown_table
    from slt.measure import calibrate as cal

    return markdown_table(cal.trend_summary(cal.LARGE_WORST_FILE if worst else None)).strip()


def committed_empirical_table() -> str:
    """The committed full-power failure rates (slt/measure/committed/empirical-full.json)."""
    data = _read(COMMITTED_EMPIRICAL)
    checks = data["empirical"]["checks"]
    prov = data["provenance"]
    rows = [f"{len(checks)} rate points, {sum(c['trials'] for c in checks)} trials, profile `{prov['profile']}`, "
            f"made by `{prov['command'].split(' --cache-dir')[0]}` on {prov['created'][:10]}.", "",
            "| statement | point | C | failures / trials | 95% interval of the rate | verdict |", "|---|---|---|---|---|---|"]
    for c in checks:
        lo, hi = c["interval"]
        rows.append(f"| {c['statement']} | {_cell(_point(c['params']))} | {_fmt(c['C'])} | {c['failures']}/{c['trials']} "
                    f"| [{lo:.3g}, {hi:.3g}] | {c['verdict']} |")
    return "\n".join(rows)


def figures_table() -> str:
    """What each committed full sweep (slt/figures/committed/, shipped with the package) found."""
    out = []
    for path in sorted(FIGURES.glob("*.json")):
        data = _read(path)
        out += [f"**{_cell(data['title'])}** ([`{path.relative_to(ROOT)}`](../{path.relative_to(ROOT)}), "
                f"{_fmt(round(data['compute_s']))} s of compute):", ""]
        out += [f"- {_cell(f)}" for f in data.get("findings") or []] + [""]
    return "\n".join(out).rstrip()


def families_table() -> str:
    """Failures per target family at the random-target C and at the calibrated C (``targets`` and
    ``targets_verify`` of each statement in slt/measure/calibration.json)."""
    data = _read(CALIBRATION)
    rows = ["| statement | point | C | failures / trials per target family |", "|---|---|---|---|"]
    for name, s in data["statements"].items():
        for key in ("targets", "targets_verify"):
            t = s.get(key)
            if not t:
                continue
            fams = ", ".join(f"{f['family']} {f['failures']}/{f['trials']}" for f in t["families"])
            rows.append(f"| {name} | {_cell(_point(t['point']))} | {_fmt(t['C'])} | {fams} |")
    return "\n".join(rows)


_SOURCES = {"constants": CALIBRATION, "fixed-c": CALIBRATION, "families": CALIBRATION,
            "large-random": ROOT / "slt" / "measure" / "calibration-large.json",
            "large-worst": ROOT / "slt" / "measure" / "calibration-large-worst.json",
            "committed-empirical": COMMITTED_EMPIRICAL, "figures": FIGURES,
            "axioms-coq-cost": ROOT / "benchmarks" / "coq-cold.json"}
"""The committed file (or folder) each generated block is printed from, named when it is incomplete."""


SUITE_TIME = ROOT / "benchmarks" / "test-suite-time.json"
"""The measured wall time of the test run (``{"profiles": {name: {"wall_s", "cores", "command"}}, "created"}``),
written by whoever measures it; the README quotes it."""


def suite_time() -> str:
    """How long the test run takes, from ``SUITE_TIME`` (a sentence saying it is not measured when absent)."""
    if not SUITE_TIME.exists():
        return (f"How long the test run takes is not measured yet (`{SUITE_TIME.relative_to(ROOT)}` holds the "
                "measurement).")
    data = _read(SUITE_TIME)
    parts = [f"the `{name}` profile {round(p['wall_s'] / 60, 1):g} minutes wall on {p['cores']} cores (`{p['command']}`)"
             for name, p in data["profiles"].items()]
    return "Measured: " + "; ".join(parts) + "."


def proof_counts(record: dict) -> str:
    """The proof steps by verdict, as the report counts them (``slt.claims.step_counts_sentence``)."""
    from slt import claims

    return claims.step_counts_sentence(record) + "."


def growth_answer(record: dict) -> str:
    """"Does C grow?": the one answer (``slt.claims.growth_answer``)."""
    from slt import claims

    return " ".join(claims.growth_answer(record))


def growth_finding(record: dict) -> str:
    """The README's line for the finding "Does C grow?" (its headline, ``slt.claims.growth_sentence``)."""
    from slt import claims
    from slt.measure import findings

    return (f"9. **Does C grow? {claims.growth_sentence(record)}** ([fixed-c-growth](docs/findings.md#fixed-c-growth))."
            f" Test: `{findings.FIXED_C_TEST}`")


BLOCKS = {"constants": constants_table, "fixed-c": fixed_c_table, "large-random": lambda: large_table(False),
          "large-worst": lambda: large_table(True), "committed-empirical": committed_empirical_table,
          "figures": figures_table, "families": families_table, "suite-time": suite_time,
          "axioms-coq-cost": lambda: __import__("bounds.prove.coq.cost", fromlist=["summary"]).summary()}
"""Every generated block a page of docs/ may hold, by name, from the committed files."""
RECORD_BLOCKS = {"proof-counts": proof_counts, "growth-answer": growth_answer, "growth-finding": growth_finding}
"""The blocks printed from a run record (the proof-only record of the working tree, ``slth run --proofs-only``):
the same functions of ``slt.claims`` the report renders its claims with."""


def fill(text: str, record=None) -> str:
    """``text`` with every generated block replaced by the generator's output (KeyError on an unknown block);
    ``record`` (a callable giving the run record, or the record) for the blocks printed from a record."""
    def block(m):
        name = m.group("name")
        if name in RECORD_BLOCKS:
            from reports.terminal import safe

            body = safe(RECORD_BLOCKS[name](record() if callable(record) else record).strip())
        else:
            body = generated(name)
        return f"<!-- generated: {name} -->\n{body}\n<!-- end generated: {name} -->"

    return _BLOCK.sub(block, text)


def generated(name: str) -> str:
    """Block ``name`` printed from its committed file, control characters escaped (``\\x1b``: a page never carries
    a raw escape sequence from a data file); ``InputError`` naming the file when its data is incomplete."""
    from reports.terminal import safe
    from slt.inputs import InputError

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
    """The proof-only run record of the working tree (what ``slth run --proofs-only`` writes)."""
    from reports.record import assemble

    return assemble.build("proofs", seed=0, command=f"{COMMAND}", log=lambda msg: None)


def pages(record=None) -> dict:
    """Every generated page's expected text: docs/statements.md, the README and each page of docs/ with generated
    blocks; ``record``: the run record the record blocks are printed from (default: built once, when needed)."""
    from reports.terminal import safe

    out = {STATEMENTS_PAGE: safe(statements_page())}
    built = [record]

    def get():
        if built[0] is None:
            built[0] = working_record()
        return built[0]

    for path in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        if path != STATEMENTS_PAGE:
            text = path.read_text()
            if blocks(text):
                out[path] = fill(text, get)
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", action="store_true", help="exit 1 naming each page that differs; write nothing")


def main(args: argparse.Namespace) -> int:
    """``slth docs``: rewrite every generated page that differs (or, with ``--check``, name it and exit 1). Every
    page is made before the first is written, and each is written atomically (a full disk leaves the old page)."""
    from slt.cache import write_atomic

    stale = []
    for path, text in pages().items():
        if not path.exists() or path.read_text() != text:
            stale.append(path)
            if not args.check:
                write_atomic(path, text)
    for path in stale:
        print(f"{'differs' if args.check else 'written'}: {path.relative_to(ROOT)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":  # the same command as `slth docs`: one-line usage errors, exit 2
    from reports.cli import main as _slth

    sys.exit(_slth(["docs", *sys.argv[1:]]))
