"""Coq's own checker on the compiled libraries: ``python -m bounds.prove.coq.coqchk``.

Compiles (or finds compiled) the steps' files in the kernel's folder (``bounds.prove.kernel.folder()``, its build
folder ``check.build_dir``) and the hand-written mathematics (``coq_math.build_folder()``), then runs ``coqchk`` on
every module of both libraries (``-norec``: the standard library and CoqInterval are taken as installed): coqchk
re-checks each ``.vo`` file's proofs with its own kernel, independently of coqc and of every record the harness
keeps.  It fails (exit 1) when coqchk rejects a module, or when coqchk's summary of the assumptions (``-o``) lists
an axiom declared inside either library (``Slth.`` or ``SlthMath.``) other than a premise of
``coq_math.PREMISES``; exit 2 when coqc, coqchk or CoqInterval is missing."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

from .. import external
from . import check
from .assumed import summary_axioms as axioms
from .build import build_lock


def run(folder: Path, logical: str, stems: list[str]) -> tuple[int, str]:
    """(exit status, output) of ``coqchk -silent -o -Q folder logical -norec logical.<stem> ...``."""
    args = ["coqchk", "-silent", "-o", "-Q", str(folder), logical]
    args += [a for stem in stems for a in ("-norec", f"{logical}.{stem}")]
    return external.run("coqchk", args, folder, check.coqc_seconds(), check.jobs())


def own_axioms(out: str, premises=()) -> list[str]:
    """The axioms of coqchk's summary declared in the harness's libraries, premises excepted."""
    return [a for a in axioms(out) if a.startswith(("Slth.", "SlthMath.")) and a not in premises]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        print("usage: python -m bounds.prove.coq.coqchk  (no arguments)", file=sys.stderr)
        return 2
    why = check.missing_reason()
    if why or not shutil.which("coqchk"):
        print(f"coqchk: {why or 'coqchk not found (apt-get install coq)'}", file=sys.stderr)
        return 2
    from .. import coq_math, kernel
    directory = kernel.folder()
    check.check(directory, searching=False)  # compiled, or found compiled: the verdicts are not coqchk's
    build = check.build_dir(directory)
    stems = sorted(p.stem for p in build.glob("*.vo") if not p.stem.startswith("Slth"))
    math = coq_math.build_folder()
    math_stems = sorted(coq_math.with_statements())
    failed = 0
    for folder, logical, names in ((build, check.LOGICAL, stems), (math, coq_math.LOGICAL, math_stems)):
        with build_lock(folder):  # no other process compiles into the folder while coqchk reads it
            if folder == math:
                ok, why = coq_math.compile(math, coq_math.with_statements())
                if not ok:
                    print(f"coqchk: the mathematics does not compile: {why}", file=sys.stderr)
                    return 1
            rc, out = run(folder, logical, names)
        odd = own_axioms(out, coq_math.PREMISES)
        print(f"coqchk {logical} ({len(names)} modules): {'accepted' if rc == 0 else 'REJECTED'}"
              + (f"; axioms declared in the library: {', '.join(odd)}" if odd else ""))
        if rc != 0:
            print(out.strip()[-2000:], file=sys.stderr)
        failed = failed or rc != 0 or bool(odd)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
