"""Exploratory (not a registered figure): Figure 8's n_K = 64 width trained 4x longer (48 epochs x 10 steps),
s in {1, n_K^(1/4), 5}, 3 seeds, with the full plan's statistics and verdict. Cached under results/tasks like the
figures (resumable). Run from the repository root: ``nice -n 10 python scripts/fig8_long.py``."""
import dataclasses
from pathlib import Path
from slt.gpt2 import figures as g
from slt.tasks import execute


def main():
    p = dataclasses.replace(g.plan(False), widths=g.plan(False).widths[1:], scales=(1.0, 5.0),
                            recipe=dict(g.plan(False).recipe, epochs=48))
    tasks = g.tasks("fig8", p)
    res = execute(tasks, cache_dir=Path("results") / "tasks", workers=2, desc="fig8 long n_K=64")
    summary = g.summarise("fig8", [(t.params, t.seed, r) for t, r in zip(tasks, res)])
    for w in summary:
        for r in w["scales"]:
            print(f"s={r['s']:.3f} mean={r['mean']:.4f} std={r['std']:.4f} diff={r['diff_to_theory']:+.4f} "
                  f"[{r['diff_ci'][0]:+.4f}, {r['diff_ci'][1]:+.4f}]")
        print(w["verdict"], w["reason"])
    print("wall seconds summed over runs", sum(r["seconds"] for r in res))


if __name__ == '__main__':
    main()
