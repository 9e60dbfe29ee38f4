"""Numba kernels of `slt.subset_sum`.

The search runs on integers: items and target rounded to a common fixed-point grid (``q = rint(c 2^s)``),
so every subset sum and every comparison in it is exact. Inside a window of items, window item k goes to
half A when k is even and to half B when k is odd. The sorted subset sums of a half are built by doubling
(merge L with L + c); the merges and the two-pointer scans run four independent segments interleaved in
one loop (merge-path splits), branch-free, so that the CPU overlaps their dependency chains. The lists
hold sums only; the subset behind the best pair is recovered afterwards by an exact meet in the middle
on each half (2^10 + 2^10 sums at most).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

_INTERLEAVE_MIN = 256  # below this list size the plain sequential loops are used
_DENSITY = 16.0  # tolerance mode: start scanning when 2^k * 16 * stop >= sum of |q| over the first k items


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


# A sorted list of ``size`` sums lives in ``buf[1:size + 1]`` between the sentinels buf[0] = LOW and
# buf[size + 1] = HIGH. Values on the grid satisfy |t| + sum |q| <= 2^60 + n', so sentinels of +-2^62 win
# every comparison, and no difference of a sentinel, a sum and a target overflows int64.
LOW = -(2**62)
HIGH = 2**62


@njit(cache=True)
def _split_merge(src, size, c, o):
    """Merge path: how many entries of L = src[1:size+1] are among the first o of merge(L, L + c)."""
    lo = max(0, o - size)
    hi = min(o, size)
    while lo < hi:
        mid = (lo + hi) >> 1
        if src[1 + mid] <= src[o - mid] + c:  # L[mid] <= (L + c)[o - mid - 1]
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _merge_steps(src, dst, c, i0, j0, w0, i1, j1, w1, i2, j2, w2, i3, j3, w3, steps):
    """``steps`` merge steps of four independent segments in lockstep (buffer indices, unsigned).

    A segment takes L[i] when L[i] <= L[j] + c (ties: unshifted first). Reads past a segment's own part
    see the next segment's first entry (which, by the merge-path split, loses every comparison) or a
    sentinel: no bound checks, no branches.
    """
    one = np.uint64(1)
    i0, j0, w0 = np.uint64(i0), np.uint64(j0), np.uint64(w0)
    i1, j1, w1 = np.uint64(i1), np.uint64(j1), np.uint64(w1)
    i2, j2, w2 = np.uint64(i2), np.uint64(j2), np.uint64(w2)
    i3, j3, w3 = np.uint64(i3), np.uint64(j3), np.uint64(w3)
    for _ in range(steps):
        x0 = src[i0]
        y0 = src[j0] + c
        x1 = src[i1]
        y1 = src[j1] + c
        x2 = src[i2]
        y2 = src[j2] + c
        x3 = src[i3]
        y3 = src[j3] + c
        t0 = np.uint64(x0 <= y0)
        t1 = np.uint64(x1 <= y1)
        t2 = np.uint64(x2 <= y2)
        t3 = np.uint64(x3 <= y3)
        dst[w0] = x0 if t0 else y0
        dst[w1] = x1 if t1 else y1
        dst[w2] = x2 if t2 else y2
        dst[w3] = x3 if t3 else y3
        i0 += t0
        j0 += one - t0
        i1 += t1
        j1 += one - t1
        i2 += t2
        j2 += one - t2
        i3 += t3
        j3 += one - t3
        w0 += one
        w1 += one
        w2 += one
        w3 += one


@njit(cache=True)
def grow(src, dst, size, c):
    """dst = sorted subset sums with one more item: merge(L, L + c) for L = src[1:size+1]. O(size).

    Four merge-path segments of size/2 outputs each, interleaved (one segment below 256 entries).
    Returns the new size.
    """
    n = 2 * size
    if size < _INTERLEAVE_MIN:
        i = 1
        j = 1
        for w in range(1, n + 1):
            x = src[i]
            y = src[j] + c
            if x <= y:
                dst[w] = x
                i += 1
            else:
                dst[w] = y
                j += 1
    else:
        q = n // 4
        a1 = _split_merge(src, size, c, q)
        a2 = _split_merge(src, size, c, 2 * q)
        a3 = _split_merge(src, size, c, 3 * q)
        _merge_steps(src, dst, c, 1, 1, 1, 1 + a1, 1 + q - a1, 1 + q, 1 + a2, 1 + 2 * q - a2, 1 + 2 * q,
                     1 + a3, 1 + 3 * q - a3, 1 + 3 * q, q)
    dst[0] = LOW
    dst[n + 1] = HIGH
    return n


@njit(cache=True)
def _split_scan(a, na, b, nb, t, o):
    """Merge path of the two-pointer scan: how many entries of a are consumed in its first o steps.

    The scan is the merge of X = a (ascending) with Y_k = t - b[nb - 1 - k] (ascending), taking X on
    X <= Y, i.e. advancing in a when t - a[i] - b[j] >= 0 and in b otherwise.
    """
    lo = max(0, o - nb)
    hi = min(o, na)
    while lo < hi:
        mid = (lo + hi) >> 1
        if t - a[1 + mid] - b[nb - o + mid + 1] >= 0:  # X[mid] <= Y[o - mid - 1]
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _scan_min(a, b, t, i0, j0, i1, j1, i2, j2, i3, j3, b0, b1, b2, b3, steps):
    """``steps`` two-pointer steps of four independent chains in lockstep, tracking only each chain's
    smallest |t - a_i - b_j| (buffer indices, unsigned, selects instead of branches).

    Returns the chains' positions and minima after the steps.
    """
    one = np.uint64(1)
    i0, j0, i1, j1 = np.uint64(i0), np.uint64(j0), np.uint64(i1), np.uint64(j1)
    i2, j2, i3, j3 = np.uint64(i2), np.uint64(j2), np.uint64(i3), np.uint64(j3)
    for _ in range(steps):
        d0 = t - a[i0] - b[j0]
        d1 = t - a[i1] - b[j1]
        d2 = t - a[i2] - b[j2]
        d3 = t - a[i3] - b[j3]
        b0 = min(b0, abs(d0))
        b1 = min(b1, abs(d1))
        b2 = min(b2, abs(d2))
        b3 = min(b3, abs(d3))
        n0 = np.uint64(d0 < 0)
        n1 = np.uint64(d1 < 0)
        n2 = np.uint64(d2 < 0)
        n3 = np.uint64(d3 < 0)
        j0 -= n0
        i0 += one - n0
        j1 -= n1
        i1 += one - n1
        j2 -= n2
        i2 += one - n2
        j3 -= n3
        i3 += one - n3
    return (np.int64(i0), np.int64(j0), np.int64(i1), np.int64(j1), np.int64(i2), np.int64(j2),
            np.int64(i3), np.int64(j3), b0, b1, b2, b3)


@njit(cache=True)
def _scan_seq(a, b, t, best, i, j, steps):
    """``steps`` plain two-pointer steps from buffer indices (i, j); returns (best, i, j) of the first
    strict improvement on ``best`` (i = 0 when none)."""
    bi = 0
    bj = 0
    for _ in range(steps):
        d = t - a[i] - b[j]
        if abs(d) < best:
            best, bi, bj = abs(d), i, j
        if d < 0:
            j -= 1
        else:
            i += 1
    return best, bi, bj


_SCAN_BLOCK = 2048


@njit(cache=True)
def scan(a, na, b, nb, t, best):
    """min |t - a_i - b_j| over two sorted lists (two pointers; four interleaved merge-path chains).

    Returns (best, i, j) as list positions (0-based); i = -1 when the incoming ``best`` was not strictly
    beaten. Ties go to the first pair of the sequential scan. The chains run in blocks tracking minima
    only; the pair is then located by re-scanning the block where the winning chain reached its minimum.
    """
    total = na + nb
    if total < 2 * _INTERLEAVE_MIN or total % 4:
        bs, i, j = _scan_seq(a, b, t, best, 1, nb, total)
        return (bs, i - 1, j - 1) if i else (best, -1, -1)
    q = total // 4
    s1 = _split_scan(a, na, b, nb, t, q)
    s2 = _split_scan(a, na, b, nb, t, 2 * q)
    s3 = _split_scan(a, na, b, nb, t, 3 * q)
    st = np.array([1, nb, 1 + s1, nb - q + s1, 1 + s2, nb - 2 * q + s2, 1 + s3, nb - 3 * q + s3])
    mins = np.full(4, best)
    found = np.zeros(12, np.int64)  # per chain: the (i, j, steps) block where its minimum was reached
    done = 0
    while done < q:
        steps = min(_SCAN_BLOCK, q - done)
        i0, j0, i1, j1, i2, j2, i3, j3, b0, b1, b2, b3 = _scan_min(
            a, b, t, st[0], st[1], st[2], st[3], st[4], st[5], st[6], st[7],
            mins[0], mins[1], mins[2], mins[3], steps)
        for s, bs in enumerate((b0, b1, b2, b3)):
            if bs < mins[s]:
                mins[s] = bs
                found[3 * s] = st[2 * s]
                found[3 * s + 1] = st[2 * s + 1]
                found[3 * s + 2] = steps
        st[0], st[1], st[2], st[3], st[4], st[5], st[6], st[7] = i0, j0, i1, j1, i2, j2, i3, j3
        done += steps
    s = np.argmin(mins)  # the first chain with the smallest minimum
    if mins[s] < best:
        bs, i, j = _scan_seq(a, b, t, best, found[3 * s], found[3 * s + 1], found[3 * s + 2])
        return bs, i - 1, j - 1
    return best, -1, -1


@njit(cache=True)
def _sums_with_masks(v, lo, hi):
    """All subset sums of v[lo:hi], ascending, with their bit masks (bit l = item lo + l)."""
    size = 1
    cap = 1 << (hi - lo)
    s = np.zeros(cap, np.int64)
    m = np.zeros(cap, np.int64)
    s2 = np.empty(cap, np.int64)
    m2 = np.empty(cap, np.int64)
    for k in range(lo, hi):
        c = v[k]
        i = 0
        j = 0
        for w in range(2 * size):
            if j >= size or (i < size and s[i] <= s[j] + c):
                s2[w] = s[i]
                m2[w] = m[i]
                i += 1
            else:
                s2[w] = s[j] + c
                m2[w] = m[j] | (1 << (k - lo))
                j += 1
        size *= 2
        s, s2 = s2, s
        m, m2 = m2, m
    return s, m


@njit(cache=True)
def recover(v, nv, value):
    """A bit mask over v[:nv] whose subset sum is exactly ``value`` (an exact meet in the middle)."""
    h = nv // 2
    sa, ma = _sums_with_masks(v, 0, h)
    sb, mb = _sums_with_masks(v, h, nv)
    i = 0
    j = sb.shape[0] - 1
    while i < sa.shape[0] and j >= 0:
        d = value - sa[i] - sb[j]
        if d == 0:
            return ma[i] | (mb[j] << h)
        if d < 0:
            j -= 1
        else:
            i += 1
    raise RuntimeError("subset-sum recovery failed: the value is not a subset sum of the half")


@njit(cache=True)
def mitm_window(q, idx, nw, tw, stop, bufs, mask):
    """Meet in the middle over the window items ``q[idx[:nw]]`` (integers) with window target ``tw``.

    stop < 0: exact; both halves are built by merging, then one scan. stop >= 0: the halves grow one item
    at a time (alternately), the new sums are scanned against the other half after each item (from the
    item where the stop threshold becomes plausible), and the search stops as soon as
    |tw - a - b| <= stop. ``bufs`` is three int64 arrays of at least 2^ceil(nw/2) + 2 entries.
    Writes the best window subset into ``mask[idx[:nw]]`` and returns (key, complete): key = the best
    |tw - a - b|, complete = every subset of the window was examined.
    """
    a = bufs[0]
    b = bufs[1]
    spare = bufs[2]
    for buf in (a, b):
        buf[0] = LOW
        buf[1] = 0
        buf[2] = HIGH
    na = 1
    nb = 1
    best = abs(tw)
    va = 0
    vb = 0
    added = nw
    # Scans start at item ``first``: exact mode and hopeless tolerances scan once, after the last item;
    # a tolerance starts scanning (all pairs so far, then each item's new sums) once the 2^k sums of the
    # first k items could plausibly come within the stop threshold (density heuristic: speed only).
    first = nw
    if stop >= 0:
        if best <= stop:
            added = 0
            first = -1
        w = 0.0
        for k in range(nw if first == nw else 0):
            w += abs(q[idx[k]])
            if 2.0 ** (k + 1) * _DENSITY * max(stop, 1) >= w:
                first = k
                break
    for k in range(nw if first >= 0 else 0):
        ck = q[idx[k]]
        if k == first:
            best, i, j = scan(a, na, b, nb, tw, best)
            if i >= 0:
                va = a[1 + i]
                vb = b[1 + j]
            if best <= stop:
                added = k
                break
        if k >= first:
            # the new sums are (old half) + ck: scan the old halves with target tw - ck
            best, i, j = scan(a, na, b, nb, tw - ck, best)
            if i >= 0:
                va = a[1 + i] + (ck if k % 2 == 0 else 0)
                vb = b[1 + j] + (ck if k % 2 == 1 else 0)
            if best <= stop:
                added = k + 1
                break
            if k == nw - 1:
                break  # the last item's sums were scanned without being stored
        if k % 2 == 0:
            na = grow(a, spare, na, ck)
            a, spare = spare, a
        else:
            nb = grow(b, spare, nb, ck)
            b, spare = spare, b
    if first == nw:
        best, i, j = scan(a, na, b, nb, tw, best)
        if i >= 0:
            va = a[1 + i]
            vb = b[1 + j]
    complete = added == nw
    # recover the subsets behind (va, vb) and write them into the mask
    ha = (added + 1) // 2
    hb = added // 2
    qa = np.empty(max(ha, 1), np.int64)
    qb = np.empty(max(hb, 1), np.int64)
    for k in range(ha):
        qa[k] = q[idx[2 * k]]
    for k in range(hb):
        qb[k] = q[idx[2 * k + 1]]
    pa = recover(qa, ha, va)
    pb = recover(qb, hb, vb)
    for k in range(nw):
        if k % 2 == 0:
            mask[idx[k]] = k < added and ((pa >> (k // 2)) & 1) != 0
        else:
            mask[idx[k]] = k < added and ((pb >> (k // 2)) & 1) != 0
    return best, complete


@njit(cache=True)
def solve_entry(c, t, q, tq, inv_scale, stop, window, order, bufs, partials, mask, best_mask):
    """One entry: writes the subset into ``best_mask``; returns (error, lower_bound).

    c, t: the float64 problem; q, tq: the same on the integer grid of spacing ``inv_scale``.
    """
    n = c.shape[0]
    # Outside the hull [sum of negatives, sum of positives] the nearest end point is the optimum.
    for k in range(n):
        best_mask[k] = c[k] > 0.0
    r = fsum_residual(c, best_mask, t, partials)
    if r >= 0.0:
        return r, r
    for k in range(n):
        best_mask[k] = c[k] < 0.0
    r = fsum_residual(c, best_mask, t, partials)
    if r <= 0.0:
        return -r, -r
    if n <= window:
        for k in range(n):
            order[k] = k
        key, complete = mitm_window(q, order, n, tq, stop, bufs, best_mask)
        err = abs(fsum_residual(c, best_mask, t, partials))
        if complete:
            # every subset's error is >= inv_scale * (its integer error - (n + 1) / 2)
            lb = inv_scale * (float(key) - 0.5 * (n + 1)) * (1.0 - 2.0**-50)
            return err, max(0.0, lb)
        return err, 0.0
    # n > window: block coordinate descent over windows of the items in ``order`` (decreasing |c|)
    stride = window // 2
    rounds = 1 + (n - window + stride - 1) // stride
    for k in range(n):
        mask[k] = False
        best_mask[k] = False
    err = abs(t)
    wi = np.empty(window, np.int64)
    for rnd in range(rounds):
        for k in range(window):
            wi[k] = order[(rnd * stride + k) % n]
            mask[wi[k]] = False
        tw = tq
        for k in range(n):
            if mask[k]:
                tw -= q[k]
        mitm_window(q, wi, window, tw, stop, bufs, mask)
        e = abs(fsum_residual(c, mask, t, partials))
        if e < err:
            err = e
            best_mask[:] = mask
        else:
            mask[:] = best_mask
        if stop >= 0 and err <= inv_scale * (stop + 0.5 * (n + 1)):
            break
    return err, 0.0


@njit(parallel=True, cache=True)
def solve_batch(items, targets, q, tq, inv_scale, stop, window, orders, bufs, masks, errors, lower_bounds):
    """All entries, in parallel over contiguous chunks, one chunk per set of lists ``bufs[ch]``."""
    m, n = items.shape
    nch = bufs.shape[0]
    for ch in prange(nch):
        partials = np.empty(n + 2, np.float64)
        mask = np.zeros(n, np.bool_)
        order = np.empty(n, np.int64)
        for e in range(ch * m // nch, (ch + 1) * m // nch):
            if n > window:
                order[:] = orders[e]
            err, lb = solve_entry(items[e], targets[e], q[e], tq[e], inv_scale[e], stop[e], window, order,
                                  bufs[ch], partials, mask, masks[e])
            errors[e] = err
            lower_bounds[e] = lb
