#!/usr/bin/env python3
"""Writes the grid of SPRT log-likelihood ratios that arena's tests check its statistics against.

The generalised SPRT of fishtest and OpenBench (see docs/design/SPRT.md): with the observed
distribution phat of N pentanomial pairs (or trinomial games), zero counts made 1e-3,

    LLR = N * sum_i phat_i * (ln p1_i - ln p0_i)

where p_k is the distribution closest to phat in likelihood (the maximum-likelihood
estimate) under H_k's constraint:

- normalized model: (mu - 1/2) / sigma = t_k, t_k = nElo_k / (800 / ln 10), times sqrt(2)
  for pairs (fishtest's MLE_t_value, "normalized_elo_practical", section 4.1);
- logistic model: mu = 1 / (1 + 10^(-elo_k / 400)) (fishtest's MLE_expected).

This is an independent reference, written for these tests and not fishtest's code: the
constrained maximum is found without fishtest's fixed-point iteration. For the normalized
model the constraint is met exactly along a one-parameter family: for each sigma the mean
is mu = 1/2 + t * sigma, and the distribution of largest likelihood with that mean and
that standard deviation is found from the convex dual of the two moment constraints
(q_i = phat_i / (1 + l1 (a_i - mu) + l2 ((a_i - mu)^2 - sigma^2)), Newton's method on
(l1, l2)); sigma is then chosen to maximise the likelihood (a scan of the feasible range,
refined by golden-section search). The logistic model is the same dual with the mean alone.

Where fishtest's published fixed-point iteration (from the uniform distribution, each round
a secular equation; here run until it settles rather than for fishtest's 10 rounds) converges
to the t-value it was asked for, its LLR is computed too and must agree with the reference
to 1e-7 (relative to max(1, |LLR|)); the `fishtest` column holds it, empty where that
iteration fails (at wide bounds a round's secular equation has no root: fishtest's own code
stops there with an assertion) or settles on a stationary point of lesser likelihood (the
likelihood along the constraint can have two maxima). It is never likelier than the
reference (checked).

    python3 scripts/sprt-reference.py > matchcore/tests/data/llr-normalized-grid.csv

Standard library only; the output is committed and the same on every run.
"""

import functools
import math
import sys

NELO_SCALE = 800 / math.log(10)


def distribution(counts):
    """Scores a_i, probabilities phat_i (zero counts made 1e-3) and N."""
    regular = [c if c > 0 else 1e-3 for c in counts]
    n = sum(regular)
    k = len(counts)
    return [i / (k - 1) for i in range(k)], [c / n for c in regular], n


def moments(a, q):
    mu = sum(x * p for x, p in zip(a, q))
    var = sum(p * (x - mu) ** 2 for x, p in zip(a, q))
    return mu, var


def dual(p, g, start=None):
    """Maximises sum p_i ln q_i over distributions q with sum q_i g_i = 0 (g_i: one or two
    constraint values per outcome), by Newton's method on the convex dual
    F(l) = -sum p_i ln(1 + l.g_i), from l = `start` when it is inside F's domain, else 0.
    Returns (q, l), or (None, None) when no q meets the constraints."""
    dim = len(g[0])
    lam = [0.0] * dim
    if start is not None and all(1 + sum(l * x for l, x in zip(start, gi)) > 0 for gi in g):
        lam = list(start)

    def weights(lam):
        return [1 + sum(l * x for l, x in zip(lam, gi)) for gi in g]

    def objective(w):
        if min(w) <= 0:
            return math.inf
        return -sum(pi * math.log(wi) for pi, wi in zip(p, w))

    def gradient(w):
        return [-sum(pi * gi[j] / wi for pi, gi, wi in zip(p, g, w)) for j in range(dim)]

    w = weights(lam)
    f = objective(w)
    grad = gradient(w)
    for _ in range(500):
        size_of_grad = max(abs(x) for x in grad)
        if size_of_grad < 1e-15:
            break
        hess = [
            [sum(pi * gi[j] * gi[k] / wi**2 for pi, gi, wi in zip(p, g, w)) for k in range(dim)]
            for j in range(dim)
        ]
        if dim == 1:
            step = [-grad[0] / hess[0][0]]
        else:
            det = hess[0][0] * hess[1][1] - hess[0][1] * hess[1][0]
            if det <= 0:
                return None, None
            step = [
                -(hess[1][1] * grad[0] - hess[0][1] * grad[1]) / det,
                -(-hess[1][0] * grad[0] + hess[0][0] * grad[1]) / det,
            ]
        slope = sum(s * d for s, d in zip(step, grad))
        damped = False
        if -slope > 1e-12 * max(1.0, abs(f)):
            # Damped Newton: halve the step until F decreases enough (Armijo).
            size = 1.0
            while size > 1e-30:
                trial = [l + size * s for l, s in zip(lam, step)]
                tw = weights(trial)
                tf = objective(tw)
                if tf <= f + 1e-4 * size * slope:
                    damped = True
                    break
                size /= 2
        if not damped:
            # F's rounding hides what is left to gain: full Newton steps while the
            # gradient (the constraints' residual) shrinks.
            trial = [l + s for l, s in zip(lam, step)]
            tw = weights(trial)
            if min(tw) <= 0:
                break
            tf = objective(tw)
            if max(abs(x) for x in gradient(tw)) >= size_of_grad:
                break
        lam, w, f = trial, tw, tf
        grad = gradient(w)
        if f < -60:
            # The likelihood ratio to phat passed e^60: the constraints cannot be met.
            return None, None
    q = [pi / wi for pi, wi in zip(p, w)]
    # The dual's optimum meets the constraints exactly; anything else is a failure.
    for j in range(len(g[0])):
        if abs(sum(qi * gi[j] for qi, gi in zip(q, g))) > 1e-8:
            return None, None
    if abs(sum(q) - 1) > 1e-8:
        return None, None
    return q, lam


def log_likelihood(p, q):
    return sum(pi * math.log(qi) for pi, qi in zip(p, q))


def mle_mean(a, p, s):
    """The maximum-likelihood distribution with mean s."""
    return dual(p, [[x - s] for x in a])[0]


def feasible(a, mu, sigma):
    """Whether some distribution with every q_i > 0 on the scores a has this mean and
    standard deviation: (mu, mu^2 + sigma^2) strictly inside the convex hull of the points
    (a_i, a_i^2), whose lower side is the broken line through them and upper side the
    chord from the first to the last."""
    if not (a[0] < mu < a[-1]) or sigma <= 0:
        return False
    second = mu * mu + sigma * sigma
    upper = a[0] ** 2 + (a[-1] ** 2 - a[0] ** 2) * (mu - a[0]) / (a[-1] - a[0])
    for lo, hi in zip(a, a[1:]):
        if lo <= mu <= hi:
            lower = lo * lo + (hi * hi - lo * lo) * (mu - lo) / (hi - lo)
            break
    return lower + 1e-13 < second < upper - 1e-13


def mle_t(a, p, t):
    """The maximum-likelihood distribution with (mu - 1/2) / sigma = t."""

    warm = [None]

    def at(sigma):
        mu = 0.5 + t * sigma
        if not feasible(a, mu, sigma):
            return -math.inf, None
        q, lam = dual(p, [[x - mu, (x - mu) ** 2 - sigma**2] for x in a], warm[0])
        if q is None:
            return -math.inf, None
        warm[0] = lam
        return log_likelihood(p, q), q

    # mu (1 - mu) > sigma^2 on [0, 1] scores: sigma < 1/2 / sqrt(1 + t^2). The likelihood
    # along sigma can have more than one local maximum (fishtest's iteration can settle on
    # the lesser one), so the whole range is scanned, closer together near its ends, and
    # every local maximum of the scan is refined; the best is the estimate.
    top = (a[-1] - a[0]) / 2 / math.sqrt(1 + t * t)
    steps = 1000
    grid = [top * (1 - math.cos(math.pi * k / steps)) / 2 for k in range(steps + 1)]
    values = [at(s)[0] for s in grid[1:-1]]
    values = [-math.inf] + values + [-math.inf]
    best_value, best_sigma = -math.inf, None
    for k in range(1, steps):
        if values[k] == -math.inf or values[k] < values[k - 1] or values[k] < values[k + 1]:
            continue
        sigma, value = golden(at, grid[k - 1], grid[k + 1])
        if value > best_value:
            best_value, best_sigma = value, sigma
    if best_sigma is None:
        return None
    return at(best_sigma)[1]


def golden(f, lo, hi):
    """The maximum of f(x)[0] on [lo, hi] by golden-section search: (x, f(x)[0])."""
    ratio = (math.sqrt(5) - 1) / 2
    x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f1, f2 = f(x1)[0], f(x2)[0]
    for _ in range(200):
        if hi - lo < 1e-15:
            break
        if f1 >= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - ratio * (hi - lo)
            f1 = f(x1)[0]
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + ratio * (hi - lo)
            f2 = f(x2)[0]
    x = (lo + hi) / 2
    return x, f(x)[0]


@functools.lru_cache(maxsize=None)
def mle(counts, elo, model):
    """The maximum-likelihood distribution of H(elo) for `counts`."""
    a, p, _ = distribution(counts)
    if model == "logistic":
        return mle_mean(a, p, 1 / (1 + 10 ** (-elo / 400)))
    factor = math.sqrt(2) if len(counts) == 5 else 1.0
    return mle_t(a, p, factor * elo / NELO_SCALE)


def llr(counts, elo0, elo1, model):
    _, p, n = distribution(counts)
    q0, q1 = mle(counts, elo0, model), mle(counts, elo1, model)
    return n * (log_likelihood(p, q1) - log_likelihood(p, q0))


def fishtest_fixed_point(a, p, t):
    """fishtest's published MLE_t_value (rewritten from its description): rounds from the
    uniform distribution, each solving a secular equation, until the distribution changes
    by less than 1e-13 (fishtest stops at 10 rounds or 1e-9, which can leave it short of
    the maximum by 1e-6 of the likelihood); None where a round has no root, it has not
    settled after 1000 rounds, or its answer's t-value misses t by 1e-9 or more."""
    q = [1 / len(a)] * len(a)
    for _ in range(1000):
        mu, var = moments(a, q)
        sigma = math.sqrt(var)
        phi = [x - 0.5 - t * sigma * (1 + ((mu - x) / sigma) ** 2) / 2 for x in a]
        if min(phi) * max(phi) >= 0:
            return None
        lo, hi = -1 / max(phi), -1 / min(phi)
        for _ in range(300):
            mid = (lo + hi) / 2
            if mid <= lo or mid >= hi:
                break
            if sum(pi * f / (1 + mid * f) for pi, f in zip(p, phi)) > 0:
                lo = mid
            else:
                hi = mid
        theta = (lo + hi) / 2
        nq = [pi / (1 + theta * f) for pi, f in zip(p, phi)]
        change = max(abs(x - y) for x, y in zip(nq, q))
        q = nq
        if change < 1e-13:
            break
    else:
        return None
    mu, var = moments(a, q)
    if min(q) <= 0 or abs((mu - 0.5) / math.sqrt(var) - t) >= 1e-9:
        return None
    return q


def fishtest_llr(counts, elo0, elo1):
    """fishtest's LLR where its iteration settles for both bounds on the maximum the
    reference found; None elsewhere. Exits if it ever finds a likelier distribution than
    the reference (the reference would have missed the maximum)."""
    a, p, n = distribution(counts)
    factor = math.sqrt(2) if len(counts) == 5 else 1.0
    found = []
    for elo in (elo0, elo1):
        q = fishtest_fixed_point(a, p, factor * elo / NELO_SCALE)
        if q is None:
            return None
        mine = log_likelihood(p, mle(counts, elo, "normalized"))
        theirs = log_likelihood(p, q)
        if theirs > mine + 1e-12:
            sys.exit(f"fishtest's iteration is likelier: {counts} {elo}: {theirs} > {mine}")
        if theirs < mine - 1e-12:
            # A lesser stationary point of the likelihood, not its maximum.
            return None
        found.append(q)
    return n * (log_likelihood(p, found[1]) - log_likelihood(p, found[0]))


def tri_direct(p, t):
    """For trinomial counts a distribution on (0, 1/2, 1) is fixed by its mean and standard
    deviation (q_W = 2 E[a^2] - mu, q_D = 4 (mu - E[a^2]), q_L = 1 - q_W - q_D), so the
    estimate is a plain one-dimensional maximum with no dual to solve: a second, independent route, used to
    check the reference on every trinomial row. Returns the log-likelihood."""

    def at(sigma):
        mu = 0.5 + t * sigma
        second = sigma * sigma + mu * mu
        w = 2 * second - mu
        d = 4 * (mu - second)
        l = 1 - w - d
        if min(w, d, l) <= 0:
            return -math.inf, None
        return log_likelihood(p, [l, d, w]), None

    top = 0.5 / math.sqrt(1 + t * t)
    steps = 20000
    grid = [top * (1 - math.cos(math.pi * k / steps)) / 2 for k in range(steps + 1)]
    values = [-math.inf] + [at(s)[0] for s in grid[1:-1]] + [-math.inf]
    best = -math.inf
    for k in range(1, steps):
        if values[k] > -math.inf and values[k] >= values[k - 1] and values[k] >= values[k + 1]:
            best = max(best, golden(at, grid[k - 1], grid[k + 1])[1])
    return best


# Pentanomial counts from ten pairs to a few hundred thousand: even, drawish, one-sided,
# with zero counts, and the cases; a few trinomial ones.
PENTA = [
    (1, 2, 4, 2, 1),
    (5, 10, 20, 10, 5),
    (3, 12, 40, 25, 10),
    (20, 80, 250, 60, 10),
    (0, 3, 10, 5, 0),
    (0, 0, 2, 9, 30),
    (39, 2226, 31451, 2412, 40),
    (10789, 19328, 33806, 19402, 10543),
    (500, 30000, 120000, 32000, 600),
]
TRI = [(10, 20, 12), (21184, 40708, 21404)]
ELO0 = [-400, -300, -200, -150, -50, -10, -3, 0, 1, 5, 50, 150, 190, 200, 250, 300, 400]
WIDTHS = [5, 10, 50, 100, 300]
# The accepted extremes of `-sprt` and `sprt-calc` (-1000 to 1000).
EXTREMES = [(-1000, -995), (-1000, 1000), (995, 1000), (700, 1000)]


def rows():
    for counts in PENTA + TRI:
        bounds = [(e0, e0 + w) for e0 in ELO0 for w in WIDTHS] + EXTREMES
        for e0, e1 in bounds:
            yield counts, "normalized", e0, e1
    for counts in PENTA[:4] + TRI[:1]:
        for e0, e1 in [(-300, -200), (200, 300), (250, 260), (-10, 0), (0, 5), (-1000, 1000)]:
            yield counts, "logistic", e0, e1


def main():
    out = sys.stdout
    out.write(
        "# SPRT log-likelihood ratios over a grid of counts and bounds, from\n"
        "# scripts/sprt-reference.py (an independent reference of fishtest's generalised SPRT).\n"
        "#   kind: penta = pairs (LL, LD, DD+WL, WD, WW), tri = games (L, D, W)\n"
        "#   model: normalized (bounds in nElo) or logistic (bounds in logistic Elo)\n"
        "#   fishtest: fishtest's fixed-point iteration, run until it settles, where it reaches\n"
        "#             the same maximum; empty where it fails or settles on a lesser one\n"
        "# Tolerance: |llr - reference| <= 1e-6 * max(1, |reference|).\n"
        "kind,counts,model,elo0,elo1,llr,fishtest\n"
    )
    for counts, model, e0, e1 in rows():
        value = llr(counts, e0, e1, model)
        check = ""
        if model == "normalized":
            fish = fishtest_llr(counts, e0, e1)
            if fish is not None:
                if abs(fish - value) > 1e-7 * max(1.0, abs(value)):
                    sys.exit(f"disagrees with fishtest's iteration: {counts} {e0} {e1}: {value} {fish}")
                check = f"{fish:.10g}"
        if model == "normalized" and len(counts) == 3:
            _, p, _ = distribution(counts)
            for elo in (e0, e1):
                direct = tri_direct(p, elo / NELO_SCALE)
                mine = log_likelihood(p, mle(counts, elo, model))
                if abs(direct - mine) > 1e-12 * max(1.0, abs(mine)):
                    sys.exit(f"disagrees with the direct maximum: {counts} {elo}: {mine} {direct}")
        kind = "penta" if len(counts) == 5 else "tri"
        text = " ".join(str(c) for c in counts)
        out.write(f"{kind},{text},{model},{e0},{e1},{value:.10g},{check}\n")


if __name__ == "__main__":
    main()
