"""`slth proofs`: verify every proof step of the bounds catalogue and print the step table.

Columns: statement, step, method (symbolic / interval / sampled), status, and the certified box or the
counterexample.  Exits 1 if any step of a supported form fails; with ``--variants`` also verifies the printed
variants, each expected to fail exactly at its declared steps (exit 1 if one does not).
"""
from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--statement", action="append", metavar="NAME",
                        help="only this statement (name or alias, e.g. 'Theorem 3'); repeatable")
    parser.add_argument("--variants", action="store_true",
                        help="also verify the printed variants (expected failures) and show where they break")
    parser.add_argument("--mutations", action="store_true",
                        help="also run the mutation suite and show which step catches each mutation")
    parser.add_argument("--boxes", action="store_true", help="show the certified box of every interval step")


def _cex(cex: dict | None) -> str:
    if not cex:
        return ""
    return ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in cex.items())


def _row(r, boxes: bool) -> list[str]:
    if not r.ok:
        info = "counterexample: " + _cex(r.counterexample) if r.counterexample else r.detail
    elif r.method == "symbolic":
        info = r.detail
    elif boxes or r.method == "sampled":
        info = f"{r.detail}; box: " + "; ".join(r.box.values())
    else:
        info = r.detail
    return [r.statement, r.step, r.method, r.status, info]


def _print(rows: list[list[str]], title: str) -> None:
    head = ["statement", "step", "method", "status", "box / counterexample / detail"]
    widths = [max(len(x[i]) for x in rows + [head]) for i in range(4)]
    print(f"\n== {title}")
    for row in [head] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(row[:4], widths)) + "  " + row[4])


def main(args: argparse.Namespace) -> int:
    import bounds
    from bounds.catalogue import canonical
    from bounds.mutations import MUTATIONS, PROVED, catalogue_with, run, verify_all

    names = [canonical(n) for n in args.statement] if args.statement else list(PROVED)
    results = [r for n in names for r in bounds.verify(n)]
    if not args.statement:
        results = bounds.verify_facts() + results
    _print([_row(r, args.boxes) for r in results], "supported forms")
    failed = [r for r in results if not r.ok]
    status = 1 if failed else 0
    counts = {m: sum(r.method == m and r.ok for r in results) for m in ("symbolic", "interval", "sampled")}
    print(f"\n{len(results)} steps: {counts['symbolic']} symbolic, {counts['interval']} interval, "
          f"{counts['sampled']} sampled (evidence only), {len(failed)} FAILED")

    if args.variants:
        for st in (bounds.get(n) for n in bounds.names()):
            for v in st.variants.values():
                broken = [r for r in verify_all(v.apply(catalogue_with())) if not r.ok]
                _print([_row(r, False) for r in broken], f"variant {st.name}:{v.name} ({v.description})")
                got, want = {(r.statement, r.step) for r in broken}, set(v.breaks)
                verdict = "as expected" if got == want else f"UNEXPECTED: expected {sorted(want)}"
                print(f"breaks {sorted(got)}: {verdict}")
                status |= int(got != want)
    if args.mutations:
        rows = []
        for m in MUTATIONS:
            caught = run(m)
            steps = ", ".join(f"{r.statement}:{r.step}" for r in caught) or "SURVIVED"
            rows.append([m.edit.statement, m.name, steps, "caught" if caught else "SURVIVED",
                         _cex(caught[0].counterexample) if caught else ""])
            status |= int(not caught)
        print("\n== mutations")
        for row in rows:
            print("  ".join(row))
    return status
