"""``python -m bounds.prove.coq``: write the committed Coq files (``proofs/coq``) from the catalogue, searching a tactic
for every lemma whose statement has no recorded one, and record the winners in ``proofs/coq/tactics.json``.
A lemma recorded with no winner (null) is searched again only with ``--research``.  ``--check`` also runs coqc on them (in a temporary folder)."""
from __future__ import annotations

import json
import sys

from slth_base.settings import refused

from . import check


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    bad = refused("python -m bounds.prove.coq")
    if bad:
        return bad
    tactics = {k: v for k, v in check.load_tactics().items() if not isinstance(v, dict)}  # a refused one: again
    lems = [l for items in check.entries().values() for _, _, l in items if isinstance(l, check.Lemma)]
    research = "--research" in argv  # search again the lemmas recorded as closed by no candidate
    todo = [l for l in lems if l.key not in tactics or (research and tactics[l.key] is None)]
    if todo:
        if check.missing_reason():
            print(f"bounds.prove.coq: {len(todo)} lemma(s) need a search: {check.missing_reason()}", file=sys.stderr)
            return 2
        tactics.update(check.search(todo, log=lambda m: print(m, file=sys.stderr, flush=True)))
    keep = {l.key for l in lems}
    check.TACTICS.parent.mkdir(parents=True, exist_ok=True)
    check.write_atomic(check.TACTICS, json.dumps({k: v for k, v in sorted(tactics.items()) if k in keep}, indent=1)
                       + "\n")
    check.write(check.COMMITTED, tactics)
    if "--check" in argv:
        st = check.kernel(tactics=tactics)  # in a temporary folder
        bad = {k: v for k, v in st.items() if v != check.KERNEL}
        print(f"kernel-checked {len(st) - len(bad)} of {len(st)}")
        for (s, t), v in bad.items():
            print(f"  {s}:{t}: {v}")
        return int(bool(bad))
    return 0


if __name__ == "__main__":
    sys.exit(main())
