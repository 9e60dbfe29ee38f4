"""Numba kernels of `slt.subset_sum`: merged subset-sum lists, two-pointer scans, exact summation.

Inside a window of items, window item k goes to half A when k is even and to half B when k is odd; a
half's subset is a bit pattern over its own items (bit l of A is window item 2l, bit l of B is 2l + 1).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

UNIT_ROUNDOFF = 2.0**-53


@njit(cache=True)
def fsum_residual(c, mask, t, partials):
    """t - sum_{k: mask[k]} c[k], exactly rounded (Shewchuk's algorithm, as in CPython's ``math.fsum``).

    ``partials`` is scratch space of length >= len(c) + 1.
    """
    npart = 0
    for k in range(-1, c.shape[0]):
        if k < 0:
            x = t
        elif mask[k]:
            x = -c[k]
        else:
            continue
        i = 0
        for p in range(npart):
            y = partials[p]
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo != 0.0:
                partials[i] = lo
                i += 1
            x = hi
        partials[i] = x
        npart = i + 1
    # Round the exact sum of the non-overlapping partials (CPython's math_fsum tail).
    n = npart - 1
    hi = partials[n]
    lo = 0.0
    while n > 0:
        x = hi
        n -= 1
        y = partials[n]
        hi = x + y
        yr = hi - x
        lo = y - yr
        if lo != 0.0:
            break
    if n > 0 and ((lo < 0.0 and partials[n - 1] < 0.0) or (lo > 0.0 and partials[n - 1] > 0.0)):
        y = lo * 2.0
        x = hi + y
        yr = x - hi
        if y == yr:
            hi = x
    return hi


@njit(cache=True)
def grow(sums, masks, size, c, bit):
    """Double a sorted list in place: merge ``sums[:size]`` with ``sums[:size] + c`` into ``sums[:2 size]``.

    A backward merge: the write position stays above every unread entry, so no second buffer is needed.
    O(size), no sort. Returns the new size.
    """
    i = size - 1
    j = size - 1
    w = 2 * size - 1
    while j >= 0:
        s = sums[j] + c
        if i >= 0 and sums[i] > s:
            sums[w] = sums[i]
            masks[w] = masks[i]
            i -= 1
        else:
            sums[w] = s
            masks[w] = masks[j] | bit
            j -= 1
        w -= 1
    return 2 * size


@njit(cache=True)
def scan(a, na, b, nb, t, best):
    """Two-pointer scan for min |t - a[i] - b[j]| over ascending ``a[:na]`` and ``b[:nb]``.

    Returns (best, i, j), with i = -1 when the incoming ``best`` was not strictly beaten.
    """
    i = 0
    j = nb - 1
    bi = -1
    bj = -1
    while i < na and j >= 0:
        d = (t - a[i]) - b[j]
        ad = abs(d)
        if ad < best:
            best = ad
            bi = i
            bj = j
            if ad == 0.0:
                break
        if d < 0.0:
            j -= 1
        else:
            i += 1
    return best, bi, bj


@njit(cache=True)
def _write_window(idx, nw, pa, pb, mask):
    for k in range(nw):
        p = pa if k % 2 == 0 else pb
        mask[idx[k]] = ((p >> (k // 2)) & 1) != 0


@njit(cache=True)
def mitm_window(c, idx, nw, tw, t, tol, sa, ma, sb, mb, partials, mask):
    """Meet in the middle over the window items ``c[idx[:nw]]`` with window target ``tw``.

    ``mask`` holds the fixed items outside the window; on return its window entries hold the best window
    subset found. tol < 0: exact, both halves built by merging, then one scan. tol >= 0: the halves grow
    one item at a time (alternately), the new sums are scanned against the other half after each item,
    and the search stops as soon as the exactly rounded |t - sum(c[mask])| is <= tol.
    Returns (key, complete): the scan's computed |tw - a - b| for the chosen pair, and whether every
    subset of the window was examined (then key is the window optimum up to rounding).
    """
    na = 1
    nb = 1
    sa[0] = 0.0
    ma[0] = 0
    sb[0] = 0.0
    mb[0] = 0
    best = abs(tw)
    pa = 0
    pb = 0
    if tol < 0.0:
        for k in range(nw):
            bit = np.int32(1 << (k // 2))
            if k % 2 == 0:
                na = grow(sa, ma, na, c[idx[k]], bit)
            else:
                nb = grow(sb, mb, nb, c[idx[k]], bit)
        best, i, j = scan(sa, na, sb, nb, tw, best)
        if i >= 0:
            pa = ma[i]
            pb = mb[j]
        _write_window(idx, nw, pa, pb, mask)
        return best, True
    _write_window(idx, nw, pa, pb, mask)
    if best <= tol and abs(fsum_residual(c, mask, t, partials)) <= tol:
        return best, nw == 0
    for k in range(nw):
        ck = c[idx[k]]
        bit = np.int32(1 << (k // 2))
        # the new sums are (old half) + ck: scan the old halves with target tw - ck
        best, i, j = scan(sa, na, sb, nb, tw - ck, best)
        if k % 2 == 0:
            if i >= 0:
                pa = ma[i] | bit
                pb = mb[j]
            na = grow(sa, ma, na, ck, bit)
        else:
            if i >= 0:
                pa = ma[i]
                pb = mb[j] | bit
            nb = grow(sb, mb, nb, ck, bit)
        if i >= 0 and best <= tol:
            _write_window(idx, nw, pa, pb, mask)
            if abs(fsum_residual(c, mask, t, partials)) <= tol:
                return best, k == nw - 1
    _write_window(idx, nw, pa, pb, mask)
    return best, True


@njit(cache=True)
def solve_entry(c, t, tol, window, order, sa, ma, sb, mb, partials, mask, best_mask):
    """One entry: writes the subset into ``best_mask``; returns (error, lower_bound, proven).

    proven: the error is the optimum up to rounding (the whole search space was covered).
    """
    n = c.shape[0]
    # Outside the hull [sum of negatives, sum of positives] the nearest end point is the optimum.
    for k in range(n):
        best_mask[k] = c[k] > 0.0
    r = fsum_residual(c, best_mask, t, partials)
    if r >= 0.0:
        return r, r, True
    for k in range(n):
        best_mask[k] = c[k] < 0.0
    r = fsum_residual(c, best_mask, t, partials)
    if r <= 0.0:
        return -r, -r, True
    scale = abs(t)
    for k in range(n):
        scale += abs(c[k])
    if n <= window:
        for k in range(n):
            mask[k] = False
            order[k] = k
        key, complete = mitm_window(c, order, n, t, t, tol, sa, ma, sb, mb, partials, mask)
        err = abs(fsum_residual(c, mask, t, partials))
        for k in range(n):
            best_mask[k] = mask[k]
        if complete:
            # every computed key is within gamma_{n+3} * scale of its exact value
            delta = 1.01 * (n + 4) * UNIT_ROUNDOFF * scale
            return err, max(0.0, key - delta), True
        return err, 0.0, False
    # n > window: block coordinate descent over windows of the items sorted by decreasing |c| (order)
    stride = window // 2
    rounds = 1 + (n - window + stride - 1) // stride
    for k in range(n):
        mask[k] = False
        best_mask[k] = False
    err = abs(t)
    wi = np.empty(window, np.int64)
    for rnd in range(rounds):
        start = rnd * stride
        for k in range(window):
            wi[k] = order[(start + k) % n]
            mask[wi[k]] = False
        tw = fsum_residual(c, mask, t, partials)
        mitm_window(c, wi, window, tw, t, tol, sa, ma, sb, mb, partials, mask)
        e = abs(fsum_residual(c, mask, t, partials))
        if e < err:
            err = e
            for k in range(n):
                best_mask[k] = mask[k]
        else:
            for k in range(n):
                mask[k] = best_mask[k]
        if tol >= 0.0 and err <= tol:
            break
    return err, 0.0, False


@njit(parallel=True, cache=True)
def solve_batch(items, targets, tols, window, orders, nchunks, masks, errors, lower_bounds, proven):
    """All entries, in parallel over contiguous chunks (one chunk and one set of buffers per thread)."""
    m, n = items.shape
    nw = min(n, window)
    size = 1 << ((nw + 1) // 2)
    nch = min(m, nchunks)
    for ch in prange(nch):
        lo = ch * m // nch
        hi = (ch + 1) * m // nch
        sa = np.empty(size, np.float64)
        sb = np.empty(size, np.float64)
        ma = np.empty(size, np.int32)
        mb = np.empty(size, np.int32)
        partials = np.empty(n + 2, np.float64)
        mask = np.zeros(n, np.bool_)
        order = np.empty(n, np.int64)
        for e in range(lo, hi):
            if n > window:
                order[:] = orders[e]
            err, lb, pr = solve_entry(items[e], targets[e], tols[e], window, order, sa, ma, sb, mb,
                                      partials, mask, masks[e])
            errors[e] = err
            lower_bounds[e] = lb
            proven[e] = pr
