"""The statement check and what the compiled lemmas rest on: a file compiled against the ``.vo`` files states each
compiled constant's exported type and prints its axioms (``Print Assumptions``), judged by ``assumed.family``."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

from .. import external
from .assumed import family, locate_source, read_assumptions, summary_axioms
from .build import build_dir, build_lock, build_root, load_state, now, save_state, write_atomic
from .export import Lemma
from .files import KERNEL, entries
from .runner import LOGICAL, QUERY_GC, CoqcFailure, coqc_seconds, first_error, jobs, run_coqc
from .tactics import tactic


def check_statements(build: Path, ents, tactics, drops, files, state, version, rests: bool = False) -> dict:
    """``{lemma name: "ok" | why not}``: a separate file, compiled against the ``.vo`` files, states each compiled
    constant's exported type (``Check (Slth.<file>.<name> : <statement>)``, for the definedness lemma too), and what
    the constants rest on is judged from coqchk's list of the environment's assumptions and the sealed fields'
    ``Print Assumptions``, or with ``rests`` from ``Print Assumptions`` of their tuple (``_check``); a constant whose
    type differs or that rests on an axiom beyond Coq's standard ones fails.  Recorded per file in the build
    folder's state with the ``.vo`` hashes it ran against (the file's and ``Common``'s, the only file an exported
    file requires): a file whose record still matches keeps its verdicts, and only the others are checked again.
    A run that asked ``Print Assumptions`` of the constants also keeps what they rest on together (``axioms``) and
    the ``.vo`` hashes it loaded (``vo``): ``assumptions`` reads that list instead of walking the proofs again."""
    by_stem: dict = {}  # stem -> [(stem, lemma, [(constant, type)])]
    for stem, items in ents.items():
        if stem not in files:
            continue
        for _, _, l in items:
            if isinstance(l, Lemma) and l.name not in drops.get(stem, {}) and tactic(tactics, l.key)[0]:
                consts = [(f"{LOGICAL}.{stem}.{l.name}", l.text)]
                if l.def_text:
                    consts.append((f"{LOGICAL}.{stem}.{l.def_name}", l.def_text))
                by_stem.setdefault(stem, []).append((stem, l, consts))
    source, common = locate_source(), (files.get("Common") or {}).get("vo")

    def key(stem):
        return hashlib.sha256(json.dumps([version, stem, (files.get(stem) or {}).get("vo"), common,
                                          [c for _, _, c in by_stem[stem]], source]).encode()).hexdigest()

    prev = state.get("check") if isinstance(state.get("check"), dict) else {}
    prev = prev.get("files") if isinstance(prev.get("files"), dict) else {}
    records, pending = {}, []
    for stem, rows in by_stem.items():
        rec = prev.get(stem) if isinstance(prev.get(stem), dict) else {}
        if (rec.get("key") == key(stem) and isinstance(rec.get("result"), dict)
                and sorted(rec["result"]) == sorted(l.name for _, l, _ in rows)):
            records[stem] = rec
        else:
            pending += rows
    at = now()
    fresh, union = _check(build, pending, rests) if pending else ({}, None)
    for stem in {s for s, _, _ in pending}:
        records[stem] = {"key": key(stem), "result": {l.name: fresh[l.name] for _, l, _ in by_stem[stem]}, "at": at,
                         "vo": {s: (files.get(s) or {}).get("vo") for s in (stem, "Common")}}
        if union is not None:
            records[stem]["axioms"] = union
    result = {name: verdict for rec in records.values() for name, verdict in rec["result"].items()}
    LAST["checked_at"] = max((str(rec.get("at", "")) for rec in records.values()), default=at)
    state["check"] = {"files": records, "at": LAST["checked_at"]}
    state["checked"] = result
    return result


def _check(build: Path, pending: list, rests: bool = False) -> tuple[dict, list | None]:
    """The statement check of ``pending`` rows: ``({lemma name: verdict}, what the constants rest on together or
    None)``.  A file compiled against the ``.vo`` files states each constant's exported type (``Check``; where that
    fails, again without the culprit).  What the constants rest on: beside it, ``coqchk`` re-checks the files'
    modules with its own kernel (not the search's libraries they load: coqc's kernel checked those when it compiled
    them, and CI's coqchk step re-checks every library of the build folder) and lists every assumption of the
    environment they load (``environment``); ``Print Assumptions`` of the tuple of that list's sealed-module fields
    says what their implementations rest on (asked in the same file for the fields listed last time,
    ``known_fields``, else afterwards: ``sealed``).  Every list of standard axioms only, each constant passes, and
    nothing is recorded of what it rests on.  With ``rests`` (a caller that will ask what the lemmas rest on
    anyway), the file itself prints ``Print Assumptions`` of the tuple of every constant instead, and that list is
    recorded.  Anything else (a list naming another axiom, an unsafe flag, a sealed field resting on another axiom):
    ``Print Assumptions`` of each constant decides."""
    result: dict = {}
    stems = sorted({s for s, _, _ in pending} | {"Common"})
    with external.pool(1) as pool:
        env = None if rests else pool.submit(environment, build, stems)
        hint = [] if rests else known_fields()
        compiled, out, asked = False, "", False
        while pending:
            src = [f"From Coq Require Import Reals.\nOpen Scope R_scope.\nFrom {LOGICAL} Require {' '.join(stems)}.\n"
                   f"Import {LOGICAL}.Common.\n", locate_source() if rests or hint else ""]
            src += [f"Check ({c} : {t}).\n" for _, _, consts in pending for c, t in consts]
            checks = len("".join(src).splitlines())
            if rests:
                consts = [c for _, _, cs in pending for c, _ in cs]
                src.append(f"Definition slth_all := ({', '.join(consts)}, tt).\nPrint Assumptions slth_all.\n")
            elif hint:  # the sealed fields coqchk listed last time, asked in the same coqc
                src.append(sealed_query(hint))
            path = build / "SlthCheck.v"
            write_atomic(path, "".join(src))
            rc, out = run_coqc(["-Q", build, LOGICAL, path], build, env=QUERY_GC)
            if rc == 0:
                compiled, asked = True, bool(hint)
                break
            line, msg = first_error(out, "".join(src))
            if hint and line > checks:  # a field of the hint not in this environment: asked after coqchk instead
                hint = []
                continue
            text_ = "".join(src).splitlines()
            bad = text_[line - 1] if 0 < line <= len(text_) else ""
            m = re.match(r"Check \((\S+) :", bad)
            culprit = next((r for r in pending if m and m.group(1) in [c for c, _ in r[2]]), None)
            if culprit is None:
                for _, l, _ in pending:
                    result[l.name] = f"the statement check does not compile: {msg}"
                break
            result[culprit[1].name] = f"the compiled constant is not the exported statement: {msg}"
            pending = [r for r in pending if r is not culprit]
        rc_k, listed, unsafe = env.result() if env is not None else (0, [], [])
    fields = [n for n in listed if family(n) is None and not n.startswith(f"{LOGICAL}.")]
    blocks = read_assumptions(out) if asked else []
    found = blocks[-1] if blocks and set(fields) <= set(hint) else None
    if found is None and compiled and env is not None and rc_k == 0:
        found = sealed(build, stems, fields) if fields else []
    if not compiled:
        return result, None
    if rests:
        blocks = read_assumptions(out)
        union = blocks[-1] if blocks else None
        if union is not None and all(family(n) for n in union):
            result.update({l.name: "ok" for _, l, _ in pending})
            return result, union
    elif rc_k != 0:
        for _, l, _ in pending:
            result[l.name] = f"coqchk rejects the compiled files: {unsafe[0] if unsafe else 'no reason printed'}"
        return result, None
    else:
        remember_fields(fields)
        odd = [n for n in listed if family(n) is None and n not in fields]  # declared in the harness's own files
        if not unsafe and not odd and found is not None and all(family(n) for n in found):
            result.update({l.name: "ok" for _, l, _ in pending})
            return result, None
    # another axiom somewhere: which constants rest on it, one at a time
    per = print_assumptions(build, [(stem, c) for stem, _, cs in pending for c, _ in cs])
    for stem, l, cs in pending:
        odd_l = sorted({n for c, _ in cs for n in per.get(c, []) if family(n) is None})
        result[l.name] = "ok" if not odd_l else f"rests on axioms beyond Coq's standard ones: {', '.join(odd_l)}"
    return result, sorted({n for names in per.values() for n in names})


UNSAFE = ("type-in-type", "unsafe (co)fixpoints", "positivity is assumed")
"""The parts of coqchk's summary (``-o``) that must say ``<none>``: constants relying on type-in-type or on unsafe
(co)fixpoints, inductives whose positivity is assumed."""


def environment(build: Path, stems: list) -> tuple[int, list, list]:
    """(exit status, every assumption of the environment, what is unsafe) of ``coqchk -o`` on the build's modules
    ``stems`` (``-norec``: the libraries they load are read, not re-checked).  coqchk lists every constant of the
    environment without a body: the axioms of every library loaded and the fields of every module sealed behind a
    signature, whatever uses them; the unsafe list names each part of ``UNSAFE`` not ``<none>`` (or coqchk's last
    line when it fails)."""
    exe = shutil.which("coqchk")
    if not exe:
        return 1, [], ["coqchk not found (apt-get install coq)"]
    args = [exe, "-silent", "-o", "-Q", build, LOGICAL] + [a for s in stems for a in ("-norec", f"{LOGICAL}.{s}")]
    rc, out = external.run("coqchk", args, build, coqc_seconds(), jobs(), QUERY_GC)
    if rc != 0:
        return rc, [], [(out.strip().splitlines() or ["coqchk failed"])[-1][:300]]
    bad = [u for u in UNSAFE if not re.search(rf"{re.escape(u)}:\s*<none>", out)]
    return rc, summary_axioms(out), bad


def sealed_query(fields: list) -> str:
    """The sentences asking what the implementations of ``fields`` rest on together (``Print Assumptions`` of their
    tuple, after ``locate_source``'s answers)."""
    return (f"Definition slth_sealed := ({', '.join('@' + n for n in fields)}, tt).\n"
            "Print Assumptions slth_sealed.\n")


def sealed(build: Path, stems: list, fields: list) -> list | None:
    """What the implementations of ``fields`` (sealed-module fields, fully qualified) rest on together: ``Print
    Assumptions`` of their tuple, looking through each signature (each name as ``assumed.qualify`` reads it); None
    when the query does not compile (a name not in the environment)."""
    src = (f"From Coq Require Import Reals.\nFrom {LOGICAL} Require {' '.join(stems)}.\n"
           f"{locate_source()}{sealed_query(fields)}")
    path = build / "SlthSealed.v"
    write_atomic(path, src)
    rc, out = run_coqc(["-Q", build, LOGICAL, path], build, env=QUERY_GC)
    blocks = read_assumptions(out) if rc == 0 else []
    return blocks[-1] if blocks else None


def _fields_file() -> Path:
    return build_root() / "sealed-fields.json"


COMMITTED_FIELDS = Path(__file__).resolve().parents[3] / "proofs" / "coq" / "sealed-fields.json"
"""The sealed-module fields coqchk lists for the steps' files on the Coq that checked the committed kernel result:
the hint of a build root that has none of its own (``tests/test_coq_trust.py`` holds it to what coqchk lists)."""


def known_fields() -> list:
    """The sealed-module fields coqchk listed last time (this build root's, else ``COMMITTED_FIELDS``): a hint of what
    to ask early, never a verdict (a run asks again whatever coqchk lists that the hint lacks); [] when there is none
    to read."""
    for path in (_fields_file(), COMMITTED_FIELDS):
        try:
            names = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(names, list) and all(isinstance(n, str) and re.fullmatch(r"[A-Za-z_][\w.']*", n) for n in names):
            return names
    return []


def remember_fields(fields: list) -> None:
    """Keep ``fields`` as this build root's hint (when it differs from the hint read now).  A build root that cannot
    be written keeps none: the hint only saves a coqc call, and the next run asks after coqchk."""
    if fields != known_fields():
        try:
            write_atomic(_fields_file(), json.dumps(sorted(fields)))
        except OSError:
            return


LAST: dict = {}
"""When the statement check whose verdicts the last ``check`` gave ran (``checked_at``, UTC), read from the build
record or just now."""


def print_assumptions(build: Path, consts: list, together: bool = False) -> dict:
    """``{constant: [axiom names]}`` by ``Print Assumptions``, every query in one coqc that loads every file named
    (loading CoqInterval once); ``together``: one query, for the tuple of every constant, each constant given that
    list (what they rest on together: a superset of each one's own). Each query walks CoqInterval's proofs again
    (Coq keeps nothing between two queries; about 7 s each), so one query for all is what makes the check cheap."""
    by: dict = {}
    for stem, c in consts:
        by.setdefault(stem, []).append(c)
    if not by:
        return {}
    flat = [c for cs in by.values() for c in cs]  # by file, in the order given
    queries = [("slth_all", flat)] if together else [(f"slth_const_{k}", [c]) for k, c in enumerate(flat)]
    src = (f"From {LOGICAL} Require {' '.join(by)}.\n{locate_source()}"
           + "".join(f"Definition {name} := ({', '.join(cs)}, tt).\n" for name, cs in queries)
           + "".join(f"Print Assumptions {name}.\n" for name, _ in queries))
    path = build / f"{QUERY}.v"
    write_atomic(path, src)
    rc, out = run_coqc(["-Q", build, LOGICAL, path], build, env=QUERY_GC)
    if rc != 0:
        raise CoqcFailure(f"Print Assumptions failed: {first_error(out, src)[1]}")
    blocks = read_assumptions(out)
    if len(blocks) != len(queries):
        raise CoqcFailure(f"Print Assumptions printed {len(blocks)} blocks for {len(queries)} queries")
    return {c: names for (_, cs), names in zip(queries, blocks) for c in cs}


QUERY = "SlthAxioms"
"""The query file of ``print_assumptions`` in the build folder (``benchmarks/bench_axioms_coq.py`` names its coqc call
the stage ``axioms``)."""


def assumptions(directory, status: dict) -> dict:
    """``{(statement, step): [axiom names]}`` for every kernel-checked lemma (files compiled by ``check`` into the build
    folder of ``directory``): what the lemmas rest on together, given to each (a superset of each one's own), and per
    lemma when that list names an axiom beyond Coq's standard ones.  The list together is read from the statement
    check's records when each lemma's file has one made against the ``.vo`` files now in the build folder (each
    record: ``Print Assumptions`` of the tuple of the constants checked in its run, the lemmas' definitions included;
    their union, sorted); else, and for the lemmas one by one, one coqc (``print_assumptions``).  Recorded in the
    build folder's state with the ``.vo`` hashes it stands for."""
    directory = Path(directory).resolve()
    build = build_dir(directory)
    state_path = build / "state.json"
    ents = entries()
    lems = [(s, t, l, stem) for stem, items in ents.items() for s, t, l in items
            if isinstance(l, Lemma) and status.get((s, t)) == KERNEL]
    with build_lock(build):
        state = load_state(state_path)
        files = state.get("files", {}) if isinstance(state.get("files"), dict) else {}
        key = hashlib.sha256(json.dumps([state.get("version"), sorted((s, f.get("vo")) for s, f in files.items()
                                                                        if isinstance(f, dict)),
                                         [l.name for *_, l, _ in lems], locate_source()]).encode()).hexdigest()
        prev = state.get("axioms", {}) if isinstance(state.get("axioms"), dict) else {}
        if prev.get("key") != key or not isinstance(prev.get("lemmas"), dict):
            consts = [(stem, f"{LOGICAL}.{stem}.{l.name}") for *_, l, stem in lems]
            union = checked_union(state, files, lems)
            with external.reaped():
                per = ({c: union for _, c in consts} if union is not None
                       else print_assumptions(build, consts, together=True))
                if any(family(n) is None for names in per.values() for n in names):
                    # the lemmas together rest on an axiom beyond the standard ones: which, one at a time
                    per = print_assumptions(build, consts)
            found = {f"{s}\t{t}": per.get(f"{LOGICAL}.{stem}.{l.name}", []) for s, t, l, stem in lems}
            prev = {"key": key, "lemmas": found}
            save_state(state_path, {**load_state(state_path), "axioms": prev})  # the record as it is now, with these
    got = prev["lemmas"]  # in the catalogue's order, read from the record or just found
    return {(s, t): got[f"{s}\t{t}"] for s, t, _, _ in lems if f"{s}\t{t}" in got}


def checked_union(state: dict, files: dict, lems: list) -> list | None:
    """What ``lems`` (rows ``(statement, step, lemma, stem)``) rest on together, as the statement check's records
    say: the sorted union of the lists recorded for their files, when every file's record passed its lemmas and was
    made against the ``.vo`` hashes ``files`` records now (the file's and ``Common``'s); else None."""
    recs = (state.get("check") or {}).get("files") if isinstance(state.get("check"), dict) else None
    if not isinstance(recs, dict) or not lems:
        return None
    names: set = set()
    for stem in {stem for *_, stem in lems}:
        rec = recs.get(stem)
        if not isinstance(rec, dict) or not isinstance(rec.get("axioms"), list) or not isinstance(
                rec.get("result"), dict):
            return None
        now_vo = {s: (files.get(s) or {}).get("vo") for s in (stem, "Common")}
        if rec.get("vo") != now_vo or None in now_vo.values():
            return None
        if any(rec["result"].get(l.name) != "ok" for *_, l, s in lems if s == stem):
            return None
        names.update(n for n in rec["axioms"] if isinstance(n, str))
    return sorted(names)


def assumptions_text(axioms: dict, statements=None) -> str:
    """Per statement: the families of Coq axioms its kernel-checked lemmas rest on, and any other axiom by name."""
    lines = ["== Coq: what the kernel-checked lemmas rest on (Print Assumptions)"]
    by: dict = {}
    for (s, t), names in axioms.items():
        by.setdefault(s, []).append((t, names))
    for s, rows in by.items():
        if statements and s not in statements:
            continue
        fams, other = {}, []
        for t, names in rows:
            for n in names:
                f = family(n)
                if f:
                    fams.setdefault(f, set()).add(n)
                else:
                    other.append(f"{t}: {n}")
        desc = "; ".join(f"{f} ({len(v)})" for f, v in sorted(fams.items())) or "no axioms"
        lines.append(f"  {s}: {len(rows)} lemma(s): Coq's standard axioms only: {desc}" if not other else
                     f"  {s}: {len(rows)} lemma(s): {desc}; OTHER AXIOMS: {', '.join(other)}")
    return "\n".join(lines)
