"""What changed between two run records (``reports.record``): the decisions of ``slth diff``.

``compare(old, new, tolerance=...)`` returns a ``Diff`` (plain data, rendered by ``reports.diff``):

- ``flipped``: proof steps whose verdict (certified / refuted / not proved) or domain (whole / box / sampled)
  changed, and steps that appear or disappear ("absent"), each with the step's inequality before and after, the new
  counterexample and the statements that rely on the step's statement; ``downgrade`` marks a change for the worse
  (a verdict worse than before, a narrower domain, a new step that is not certified, a statement whose every step
  is gone);
- ``margins``: steps whose smallest rhs/lhs margin moved by more than ``tolerance`` (relative);
- ``widths``: width requirements on the default grid that changed (old, new, new/old);
- ``variants`` / ``mutations``: printed variants and mutations whose verdict or catching steps changed;
- ``empirical``: statements (or printed variants) whose empirical verdict changed, and checks whose verdict
  changed;
- ``constants``: calibrated constants that moved outside the other record's interval [C_low, C_high];
- ``coq``: steps whose Coq status (the record's ``coq`` field: kernel-checked / rejected / not exported /
  not checked, each with its reason) changed, and ``coq_counts`` the statuses of each record (``coq_status``).

``Diff.newly_failing`` lists the downgraded steps of a supported form (or elementary facts): ``slth diff`` exits 1
when it is not empty.  Records written before the three verdicts ("ok" / "FAILED") are read as: ok on the whole
domain by symbolic or interval -> certified, other ok -> not proved, FAILED -> refuted (with a counterexample) or
not proved.
"""
from __future__ import annotations

import collections
import dataclasses
import json
import math
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from slt import claims
from slt.measure import verdicts

DEFAULT_TOLERANCE = 0.01
"""Relative change of a step's margin (smallest rhs/lhs found) that counts as moved."""


@dataclasses.dataclass
class Diff:
    old: dict
    new: dict
    tolerance: float
    flipped: list = dataclasses.field(default_factory=list)
    margins: list = dataclasses.field(default_factory=list)
    widths: list = dataclasses.field(default_factory=list)
    variants: list = dataclasses.field(default_factory=list)
    mutations: list = dataclasses.field(default_factory=list)
    empirical: list = dataclasses.field(default_factory=list)
    checks: list = dataclasses.field(default_factory=list)
    constants: list = dataclasses.field(default_factory=list)
    coq: list = dataclasses.field(default_factory=list)
    coq_counts: dict = dataclasses.field(default_factory=dict)
    notes: list = dataclasses.field(default_factory=list)

    @property
    def newly_failing(self) -> list:
        return [f for f in self.flipped if f["downgrade"] and f["supported"]]

    @property
    def changed(self) -> bool:
        return any(getattr(self, k) for k in _CHANGES)

    @property
    def exit_status(self) -> int:
        return 1 if self.newly_failing else 0

    def as_dict(self) -> dict:
        return {**{k: getattr(self, k) for k in ("tolerance", *_CHANGES, "coq_counts", "notes")},
                "newly_failing": self.newly_failing, "old": _describe(self.old), "new": _describe(self.new)}


_CHANGES = ("flipped", "margins", "widths", "variants", "mutations", "empirical", "checks", "constants", "coq")


def _describe(record: dict) -> dict:
    p = record["provenance"]
    return {"commit": p["git_commit"], "dirty": p["git_dirty"], "profile": record["profile"],
            "created": p["created"], "bounds_hash": p["bounds_hash"]}


def _key(row, *fields) -> tuple:
    return tuple(json.dumps(row[f], sort_keys=True) if isinstance(row[f], (dict, list)) else row[f] for f in fields)


def _moved(a, b, tol: float) -> bool:
    if a is None or b is None:
        return (a is None) != (b is None)
    return a != b if math.isinf(a) or math.isinf(b) or a == 0 else abs(b - a) / abs(a) > tol


def compare(old: dict, new: dict, tolerance: float = DEFAULT_TOLERANCE) -> Diff:
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be a non-negative number, got {tolerance}")
    d = Diff(old, new, tolerance)
    _steps(d)
    _widths(d)
    _variants(d)
    _mutations(d)
    _empirical(d)
    _constants(d)
    _coq(d)
    if old["profile"] != new["profile"]:
        d.notes.append(f"profiles differ: {old['profile']} -> {new['profile']}; only the parts both records hold "
                       "are compared")
    return d


CERTIFIED, REFUTED, NOT_PROVED, ABSENT = "certified", "refuted", "not proved", "absent"
_RANK = {CERTIFIED: 0, NOT_PROVED: 1, REFUTED: 2}
_DOMAIN_RANK = {"whole": 0, "box": 1, "sampled": 2}


def verdict(row: dict | None) -> str:
    """A step row's verdict (``slt.claims.step_word``: a record from before the three verdicts too), or absent."""
    return ABSENT if row is None else claims.step_word(row)


def domain_kind(row: dict | None) -> str:
    return ABSENT if row is None else "box" if row["domain"].startswith("box") else row["domain"]


def _relying(record: dict, statement: str) -> list[str]:
    """The statements whose proofs rely on ``statement`` (directly or through others), from the record's steps."""
    uses: dict = {}
    for s in record["steps"]:
        uses.setdefault(s["statement"], set()).update(s.get("relies_on", ()))
    # late: importing bounds loads SymPy (seconds), and `slth diff` must start without it when nothing flipped
    # (tests/test_report.py::test_slth_imports_only_the_command_that_runs)
    from bounds.catalogue import users

    return sorted(users(uses, {statement}) - {statement})


def _steps(d: Diff) -> None:
    old = {_key(s, "statement", "step"): s for s in d.old["steps"]}
    new = {_key(s, "statement", "step"): s for s in d.new["steps"]}
    still = {s["statement"] for s in d.new["steps"]}
    for key in list(old) + [k for k in new if k not in old]:
        a, b = old.get(key), new.get(key)
        va, vb = verdict(a), verdict(b)
        da, db = domain_kind(a), domain_kind(b)
        if va != vb or da != db:
            ref = b or a
            if b is None:  # removed: a downgrade when its statement has no step left (its proof is gone)
                down = key[0] not in still and va == CERTIFIED
            elif a is None:  # added: must be certified
                down = vb != CERTIFIED
            else:
                down = _RANK[vb] > _RANK[va] or _DOMAIN_RANK.get(db, 2) > _DOMAIN_RANK.get(da, 2)
            d.flipped.append({"statement": key[0], "step": key[1], "old": va, "new": vb,
                              "old_domain": da, "new_domain": db, "downgrade": down,
                              "supported": ref["supported"], "method": ref["method"],
                              "counterexample": (b or {}).get("counterexample") if vb == REFUTED else None,
                              "detail": (b or {}).get("detail", ""),
                              "old_inequality": (a or {}).get("text"), "new_inequality": (b or {}).get("text"),
                              "form": (b or a).get("form"), "note": (b or a).get("note"),
                              "relied_on_by": _relying(d.new if b else d.old, key[0])})
        elif a and b and _moved(a["margin"], b["margin"], d.tolerance):
            ratio = (b["margin"] / a["margin"]) if a["margin"] and b["margin"] is not None else None
            d.margins.append({"statement": key[0], "step": key[1], "old": a["margin"], "new": b["margin"],
                              "ratio": ratio})


def _widths(d: Diff) -> None:
    old = {_key(w, "statement", "width", "point"): w for w in d.old["widths"]}
    for w in d.new["widths"]:
        a = old.pop(_key(w, "statement", "width", "point"), None)
        if a is None or a["value"] != w["value"]:
            d.widths.append({"statement": w["statement"], "width": w["width"], "point": w["point"],
                             "old": a and a["value"], "new": w["value"], "ratio": a and w["value"] / a["value"]})
    for a in old.values():
        d.widths.append({"statement": a["statement"], "width": a["width"], "point": a["point"], "old": a["value"],
                         "new": None, "ratio": None})


def _both(d: Diff, key: str, what: str) -> bool:
    """Whether both records hold ``key``; a note (``what`` in only one ...) when only one does."""
    if d.old[key] is None or d.new[key] is None:
        if (d.old[key] is None) != (d.new[key] is None):
            d.notes.append(f"{what} in only one of the records; not compared")
        return False
    return True


def _variants(d: Diff) -> None:
    if not _both(d, "variants", "the printed variants are"):
        return
    old = {_key(v, "statement", "variant"): v for v in d.old["variants"]}
    for v in d.new["variants"]:
        a = old.get(_key(v, "statement", "variant"))
        broken = sorted(f"{b['statement']}:{b['step']}" for b in v["broken"])
        before = sorted(f"{b['statement']}:{b['step']}" for b in a["broken"]) if a else None
        if a is None or a["verdict"] != v["verdict"] or before != broken:
            d.variants.append({"variant": f"{v['statement']}:{v['variant']}", "old": a["verdict"] if a else "absent",
                               "new": v["verdict"], "old_broken": before, "new_broken": broken})


def _mutations(d: Diff) -> None:
    if not _both(d, "mutations", "the mutation suite is"):
        return
    old = {m["name"]: m for m in d.old["mutations"]}
    for m in d.new["mutations"]:
        a = old.get(m["name"])
        if a is None or a["verdict"] != m["verdict"] or a["caught_by"] != m["caught_by"]:
            d.mutations.append({"mutation": m["name"], "old": a["verdict"] if a else "absent", "new": m["verdict"],
                                "old_caught_by": a["caught_by"] if a else None, "new_caught_by": m["caught_by"]})


def _empirical(d: Diff) -> None:
    if not _both(d, "empirical", "empirical measurements are"):
        return
    # a record older than slt.measure.verdicts: its words
    a, b = verdicts.normalise(d.old["empirical"]), verdicts.normalise(d.new["empirical"])
    for name in sorted(set(a["verdicts"]) | set(b["verdicts"])):
        va, vb = a["verdicts"].get(name, "absent"), b["verdicts"].get(name, "absent")
        if va != vb:
            d.empirical.append({"statement": name, "old": va, "new": vb})
    old = {c["id"]: c for c in a["checks"]}
    for c in b["checks"]:
        o = old.get(c["id"])
        if o is None or o["verdict"] != c["verdict"]:
            d.checks.append({"check": c["id"], "old": o["verdict"] if o else "absent", "new": c["verdict"],
                             "ratio": c["ratio"], "command": c.get("command")})


def _inside(x, lo, hi) -> bool:
    return lo is not None and hi is not None and lo <= x <= hi


def _constants(d: Diff) -> None:
    a, b = d.old["calibration"]["statements"], d.new["calibration"]["statements"]
    for name in sorted(set(a) | set(b)):
        o, n = a.get(name), b.get(name)
        if o is None or n is None:
            why = "calibrated in one record only"
        elif o["C"] == n["C"]:
            continue
        elif n["C"] is None or o["C"] is None:
            why = "no constant in one record"
        else:
            why = "; ".join(w for w, bad in (
                ("new C outside the old interval", not _inside(n["C"], o["C_low"], o["C_high"])),
                ("old C outside the new interval", not _inside(o["C"], n["C_low"], n["C_high"]))) if bad)
            if not why:
                continue
        d.constants.append({"statement": name, "old": o and o["C"], "new": n and n["C"],
                            "old_interval": o and [o["C_low"], o["C_high"]],
                            "new_interval": n and [n["C_low"], n["C_high"]], "why": why})


KERNEL_WORDS = ("kernel-checked", "rejected")
"""Coq statuses that only a coqc run gives (``not exported`` is decided by the exporter, ``not checked`` is none)."""
UNSEARCHED = ("not checked: no tactic is recorded for the step's current statement and the record's builder "
              "searches none (slth proofs --coq searches one and checks it)")
NO_STATUS = "not checked: the record holds no Coq status"


def coq_status(row: dict | None) -> str:
    """A step row's Coq status with its reason, as the record holds it, or ``absent``.  A record written before
    the kernel judge (its rows have no ``kernel_source``) was built without a tactic search (``searching=False``),
    so its "rejected: no tactic of the generated cascade proves it" says only that no tactic is recorded for the
    step's statement (an edited step), not that Coq rejected anything: it reads as ``UNSEARCHED``."""
    if row is None:
        return ABSENT
    status = row.get("coq")
    if not status:
        return NO_STATUS
    if "kernel_source" not in row and status == "rejected: no tactic of the generated cascade proves it":
        return UNSEARCHED
    return status


def coq_word(status: str) -> str:
    return status.split(":")[0].strip()


def _coq(d: Diff) -> None:
    d.coq, d.coq_counts, notes = coq_changes(d.old, d.new)
    d.notes += notes


def coq_changes(old_record: dict, new_record: dict) -> tuple[list, dict, list]:
    """``(rows, counts, notes)``: the steps whose Coq status changed (the status word, or Coq's reason for a
    rejection, or a step of the new record not checked for a reason of its own, ``UNSEARCHED``), each record's
    ``{status word: steps}`` and notes.  When one record holds no kernel result at all (every step not checked:
    e.g. a record built where Coq was never run), its steps that the other record kernel-checked are not listed one
    by one: a note says so, and the counts give both records' statuses."""
    old = {_key(s, "statement", "step"): coq_status(s) for s in old_record.get("steps", [])}
    new = {_key(s, "statement", "step"): coq_status(s) for s in new_record.get("steps", [])}
    notes, rows = [], []
    counts = {side: dict(collections.Counter(coq_word(s) for s in statuses.values()))
              for side, statuses in (("old", old), ("new", new))}
    empty = {side: not any(counts[side].get(w) for w in KERNEL_WORDS) for side in ("old", "new")}
    for side in ("old", "new"):
        if empty[side] and not empty["new" if side == "old" else "old"]:
            statuses = old if side == "old" else new
            reasons = sorted({s for s in statuses.values() if coq_word(s) not in ("not exported", ABSENT)})
            notes.append(f"the {side} record holds no Coq kernel result ({'; '.join(reasons) or 'no status'}): "
                         f"its steps are not compared with the other record's kernel results one by one")
    for key in list(old) + [k for k in new if k not in old]:
        a, b = old.get(key, ABSENT), new.get(key, ABSENT)
        wa, wb = coq_word(a), coq_word(b)
        changed = wa != wb or (wa == wb == "rejected" and a != b) or (b == UNSEARCHED and a != b)
        if not changed:
            continue
        if b != UNSEARCHED and ((empty["old"] and wa not in KERNEL_WORDS and wb == "kernel-checked")
                                or (empty["new"] and wb not in KERNEL_WORDS and wa == "kernel-checked")):
            continue  # one record holds no kernel result at all: the note says so
        rows.append({"statement": key[0], "step": key[1], "old": a, "new": b, "old_word": wa, "new_word": wb})
    return rows, counts, notes


# ------------------------------------------------------------------------- the worktree of `slth diff --against`

REF_PREFIX = "slth-ref-"
"""Folder prefix (under the system's temporary folder) of the worktree `slth diff --against REF` builds REF in."""
OWNER = "owner.pid"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _owner(folder: Path) -> int | None:
    try:
        return int((folder / OWNER).read_text().strip())
    except (OSError, ValueError):
        return None


def prune_worktrees(root, log=None) -> list[Path]:
    """Remove what an earlier `slth diff --against` killed before its clean-up (SIGKILL) left: every registered
    worktree of ``root`` in a ``REF_PREFIX`` folder of the temporary folder whose owner process (``owner.pid``) is
    gone, the folder itself, and git's records of worktrees whose folder is gone (``git worktree prune``). A
    worktree whose owner still runs (a concurrent `slth diff`) is left alone. Returns the folders removed."""
    root = Path(root)
    listed = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=root, capture_output=True, text=True)
    removed = []
    base = Path(tempfile.gettempdir()).resolve()
    for line in listed.stdout.splitlines():
        if not line.startswith("worktree "):
            continue
        tree = Path(line[len("worktree "):])
        folder = tree.parent
        if folder.parent.resolve() != base or not folder.name.startswith(REF_PREFIX) or tree.name != "tree":
            continue
        owner = _owner(folder)
        if owner is not None and owner != os.getpid() and _alive(owner):
            continue
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=root, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
        if log:
            log(f"[diff] removed the worktree an earlier, interrupted `slth diff` left: {tree}")
    subprocess.run(["git", "worktree", "prune"], cwd=root, capture_output=True)
    return removed


def ref_worktree(root, sha: str, log=None) -> Path:
    """A fresh temporary folder holding ``tree``, a detached worktree of ``root`` at ``sha``, owned by this process
    (``owner.pid``); what earlier killed runs left is pruned first (``prune_worktrees``)."""
    prune_worktrees(root, log)
    folder = Path(tempfile.mkdtemp(prefix=REF_PREFIX))
    (folder / OWNER).write_text(str(os.getpid()))
    done = subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(folder / "tree"), sha], cwd=root,
                          capture_output=True, text=True)
    if done.returncode:
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"git worktree add failed: {done.stderr.strip() or done.returncode}")
    return folder


def die_with_parent() -> None:
    """For ``subprocess.Popen(preexec_fn=...)``: the child is killed when the process that started it dies (Linux
    ``PR_SET_PDEATHSIG``; elsewhere nothing), so a killed `slth diff` leaves no orphan run."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
