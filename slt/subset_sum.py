"""Batched subset sum: minimise |t - sum_{k in S} c_k| over subsets S, one problem per row.

The problem behind every lottery-ticket construction (docs/statements.md#lueker and #lemma7: Lueker's Cor. 3.3 and the
Lemma 7 / Lemma 4 construction, one subset sum per target entry with items ``v_ijk * u_jk``).

Algorithm (Horowitz and Sahni's meet in the middle). The items are split into two halves (even and odd
positions); the sorted list of all subset sums of a half is built by doubling: adding item k to a sorted
list L is the merge of L and L + c_k in O(|L|), so a half of h items costs O(2^h) and no list of 2^h
values is ever sorted. A two-pointer scan of the two sorted lists then finds the closest pair sum. The
merges and the scan run as four merge-path segments interleaved branch-free; the subsets behind the
best pair are recovered afterwards by an exact meet in the middle on each half (details in
`slt._subset_sum_kernels`). Modes:

- ``tol=None`` (exact): for n' <= 40 the optimum (proven, up to the grid below); n' > 40 raises
  unless ``best_effort=True``.
- ``tol=<number or (m,) array>``: the two halves grow one item at a time (items in their given order)
  and, from the item where 2^k sums could plausibly reach tol, each item's new sums are scanned; an
  entry stops as soon as its error is certified <= tol. When tol cannot be met this ends as the exact
  search. ``default_tol(items)`` is ``DEFAULT_RELATIVE_TOL * max_k |c_k|`` per row (1e-9, far below a
  mixed-integer solver's floor of about 1e-7).
- n' > 40 (``best_effort=True`` or a tol): block coordinate descent over windows of 40 items. Items are
  ordered by decreasing |c_k| (stable); round r solves the 40 items at positions r*20 .. r*20 + 39
  (cyclic) of that order exactly (or to tol) with the other items fixed at the best subset so far; a
  round is kept only if it strictly lowers the error; 1 + ceil((n' - 40) / 20) rounds, so every item is in
  a window at least once. Round 1 alone is the exact optimum over the 40 largest items with the others
  left out, and the error never increases from round to round.

Exactness. The search runs on integers: per row, items and target are rounded to the grid 2^-s with
2^(59-s) <= S = |t| + sum_k |c_k| < 2^(60-s), so all sums and comparisons are exact int64 arithmetic.
Each subset's float error differs from its grid error by at most (n'+1) 2^-s / 2, so the exact mode's
error is at most optimum + (n'+1) 2^-s <= optimum + (n'+1) S 2^-59 (about 1e-15 for the paper's
instances, against optima of about 1e-12 at n' = 40). The returned errors are always recomputed from the
masks by Shewchuk's exact summation (|t - sum| exactly rounded, as ``math.fsum``), not taken from the
search.

Lower bounds (``return_lower_bound=True``), valid for each entry's optimum:
- target outside the hull [sum of negative items, sum of positive items]: the distance to the hull,
  which is the optimum (the returned subset attains it: all positive or all negative items);
- a complete search (exact mode n' <= 40, or a tolerance that was never met): the smallest grid error
  minus the grid's rounding bound, i.e. tight to (n'+1) 2^-s;
- otherwise (a tolerance met early, or n' > 40 with the target inside the hull): 0. Inside the hull no
  cheap certificate exists (subset sum is NP-hard); for Lemma 7 items the optimum there is ~1e-12 at
  n' = 40 and smaller beyond, so 0 is loose by about that.

Memory. Per thread: three int64 lists of 2^ceil(min(n', 40)/2) + 2 entries, i.e. about
24 * 2^ceil(min(n', 40)/2) bytes (24 MiB at n' = 39, 40 and beyond, 6 MiB at n' = 36, 96 KiB at
n' = 24), plus O(n'); at most ``threads`` such sets, kept between calls for reuse (the largest ever
needed; ``release_buffers()`` frees them), plus a call's outputs (m n' + 16 m bytes) and the integer
copy of its items (8 m n' bytes). Deterministic: an entry's
result depends neither on the thread count nor on the other entries of the batch.
"""
from __future__ import annotations

from contextlib import contextmanager

import numba
import numpy as np

from slt import _subset_sum_kernels as _k

MAX_EXACT = 40
DEFAULT_RELATIVE_TOL = 1e-9
__all__ = ["solve", "default_tol", "release_buffers", "MAX_EXACT", "DEFAULT_RELATIVE_TOL"]


def default_tol(items):
    """The default tolerance of the performance targets: ``1e-9 * max_k |c_k|`` per row, shape (m,)."""
    items = np.asarray(items, dtype=np.float64)
    if items.ndim != 2 or items.shape[1] == 0:
        raise ValueError(f"items must have shape (m, n') with n' >= 1, got {items.shape}")
    return DEFAULT_RELATIVE_TOL * np.abs(items).max(axis=1)


@contextmanager
def num_threads(threads):
    """Run Numba's parallel regions on ``threads`` threads inside the block (None: leave unchanged)."""
    if threads is None:
        yield
        return
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)):
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise ValueError(f"threads must be in [1, {numba.config.NUMBA_NUM_THREADS}], got {threads}")
    old = numba.get_num_threads()
    numba.set_num_threads(int(threads))
    try:
        yield
    finally:
        numba.set_num_threads(old)


def _validate(items, targets, tol, best_effort, window):
    """Check the inputs (ValueError naming the problem); return contiguous float64 items (m, n'),
    targets (m,) and per-entry tolerances (m,) or None (exact). Also used by `slt.mip`."""
    if np.iscomplexobj(items) or np.iscomplexobj(targets):
        raise ValueError("items and targets must be real arrays, got complex values")
    try:
        items = np.asarray(items, dtype=np.float64)
        targets = np.asarray(targets, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"items and targets must be real arrays: {exc}") from None
    if items.ndim != 2:
        raise ValueError(f"items must be 2-D (m, n'), got shape {items.shape}")
    m, n = items.shape
    if targets.shape != (m,):
        raise ValueError(f"targets must have shape (m,) = ({m},) to match items {items.shape}, got {targets.shape}")
    if n == 0:
        raise ValueError("empty item rows: items has shape (m, 0); each subset-sum problem needs n' >= 1 items")
    for name, arr in (("items", items), ("targets", targets)):
        bad = ~np.isfinite(arr)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(f"{name} must be finite: {name}{list(where)} = {arr[where]}")
    with np.errstate(over="ignore"):
        overflow = m and not np.isfinite(np.abs(items).sum(axis=1) + np.abs(targets)).all()
    if overflow:
        raise ValueError("items/targets too large: |t| + sum |c_k| overflows float64")
    if tol is None:
        if n > window and not best_effort:
            raise ValueError(
                f"n' = {n} items exceeds the exact path's maximum of {window}: exactness (tol=None) cannot be "
                f"delivered; pass best_effort=True (or a tol) for the best-effort search with a lower bound")
        tols = None
    else:
        tols = np.asarray(tol, dtype=np.float64)
        if tols.ndim == 0:
            tols = np.full(m, float(tols))
        if tols.shape != (m,):
            raise ValueError(f"tol must be None, a number or shape ({m},), got shape {tols.shape}")
        if not (np.isfinite(tols) & (tols >= 0)).all():
            raise ValueError(f"tol must be finite and >= 0, got {tol!r}")
    return np.ascontiguousarray(items), np.ascontiguousarray(targets), tols


def _fixed_point(items, targets, tols):
    """Round items and targets to the grid 2^-s_i, 2^(59 - s_i) <= |t_i| + sum_k |c_ik| < 2^(60 - s_i) per row.

    Then |t| + sum |q| <= 2^60 + n', and the kernels' sentinels (+-2^62) and differences fit in int64. With
    ``tols``, also the integer stop thresholds floor(tol 2^s - (n' + 1) / 2) (-1: exact search): an
    integer error at most the threshold certifies a float error <= tol.
    """
    n = items.shape[1]
    _, e = np.frexp(np.abs(targets) + np.abs(items).sum(axis=1))
    s = 60 - e
    q = np.rint(np.ldexp(items, s[:, None])).astype(np.int64)
    tq = np.rint(np.ldexp(targets, s)).astype(np.int64)
    inv_scale = np.ldexp(1.0, -s)
    if tols is None:
        stop = np.full(items.shape[0], -1, np.int64)
    else:
        stop = np.floor(np.minimum(np.ldexp(tols, s) - 0.5 * (n + 1), 2.0**62))
        stop = np.where(stop < 0, -1, stop).astype(np.int64)
    return q, tq, inv_scale, stop


_BUFFERS = [np.empty((0, 3, 0), np.int64)]


def _buffers(nchunks, size):
    """The search lists, kept between calls (fresh pages cost ~1 ms per call at n' = 40).

    Grown on demand, never shrunk; ``release_buffers()`` frees them. Numba kernels hold the GIL, so
    concurrent calls from Python threads run one after the other and never share them at once.
    """
    buf = _BUFFERS[0]
    if buf.shape[0] < nchunks or buf.shape[2] < size:
        buf = np.empty((max(nchunks, buf.shape[0]), 3, max(size, buf.shape[2])), np.int64)
        _BUFFERS[0] = buf
    return buf


def release_buffers():
    """Free the search lists kept between calls (up to 24 MiB per thread)."""
    _BUFFERS[0] = np.empty((0, 3, 0), np.int64)


def solve(items, targets, tol=None, threads=None, *, best_effort=False, return_lower_bound=False,
          _window=MAX_EXACT):
    """Minimise |t_i - sum_{k in S} c_ik| for every row i (see the module docstring for the algorithm).

    items: (m, n') float64; targets: (m,). tol: None (exact optimum; n' <= 40 unless ``best_effort``),
    a number or an (m,) array (stop each entry as soon as its error <= tol). threads: Numba threads for
    this call (None: Numba's current setting). Returns ``(masks, errors)``: bool (m, n') and float64 (m,),
    errors = |t - sum(c[mask])| exactly rounded from the masks; with ``return_lower_bound=True`` also
    ``lower_bounds`` float64 (m,), valid lower bounds on each entry's optimum.
    Raises ValueError on non-finite or mis-shaped input, empty item rows, a negative tol, or n' > 40 with
    tol=None and best_effort=False. ``_window`` (tests only) lowers the exact window size.
    """
    if not 2 <= _window <= MAX_EXACT:
        raise ValueError(f"_window must be in [2, {MAX_EXACT}], got {_window}")
    items, targets, tols = _validate(items, targets, tol, best_effort, _window)
    m, n = items.shape
    q, tq, inv_scale, stop = _fixed_point(items, targets, tols)
    orders = (np.argsort(-np.abs(items), axis=1, kind="stable").astype(np.int64) if n > _window
              else np.zeros((0, 0), np.int64))
    masks = np.zeros((m, n), np.bool_)
    errors = np.empty(m)
    lower = np.empty(m)
    if m:
        with num_threads(threads):
            nchunks = min(m, numba.get_num_threads())
            bufs = _buffers(nchunks, (1 << ((min(n, _window) + 1) // 2)) + 2)
            _k.solve_batch(items, targets, q, tq, inv_scale, stop, _window, orders, bufs[:nchunks],
                           masks, errors, lower)
    return (masks, errors, lower) if return_lower_bound else (masks, errors)
