//! Match statistics, exactly as `docs/design/SPRT.md` states them (and as fishtest, OpenBench and
//! fastchess compute them): trinomial and pentanomial counts, the generalised SPRT under the
//! normalized and logistic models, OpenBench's BayesElo trinomial SPRT, Elo with a 95%
//! interval, normalized Elo, and the likelihood of superiority. Pure functions, no I/O; the
//! unit tests reproduce every row of the shared test vectors and of the reference grid
//! `tests/data/llr-normalized-grid.csv` (bounds from -1000 to 1000). The normalized model's
//! maximum-likelihood estimate is found along its constraint (`mle_t_value`), not by
//! fishtest's fixed-point iteration, which fails at wide bounds.

/// The scale between normalized Elo and t-values: 800 / ln 10.
pub const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;
/// Two-sided 95% quantile of the normal distribution.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// Which likelihood model an SPRT uses.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Model {
    /// Bounds in normalized Elo (the default of OpenBench, fishtest and fastchess).
    Normalized,
    /// Bounds in logistic Elo.
    Logistic,
    /// OpenBench's BayesElo trinomial test (bounds in BayesElo).
    Bayes,
}

/// A model name that is none of `normalized`, `logistic` and `bayes`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown SPRT model {0:?} (normalized, logistic or bayes)")]
pub struct UnknownModel(pub String);

impl std::str::FromStr for Model {
    type Err = UnknownModel;
    fn from_str(s: &str) -> Result<Self, UnknownModel> {
        match s {
            "normalized" => Ok(Model::Normalized),
            "logistic" => Ok(Model::Logistic),
            "bayes" => Ok(Model::Bayes),
            other => Err(UnknownModel(other.to_string())),
        }
    }
}

/// Counts of results: trinomial (L, D, W) per game or pentanomial (LL, LD, DD+WL, WD, WW)
/// per game pair, from the tested engine's side.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Counts {
    /// Losses, draws and wins of single games.
    Tri([u64; 3]),
    /// Game pairs: LL, LD, DD+WL, WD, WW.
    Penta([u64; 5]),
}

impl Counts {
    /// Outcome scores and regularised probabilities (zero counts become 1e-3) and N.
    fn distribution(&self) -> (Vec<f64>, Vec<f64>, f64) {
        let (scores, counts): (Vec<f64>, Vec<f64>) = match self {
            Counts::Tri(c) => (vec![0.0, 0.5, 1.0], c.iter().map(|&n| n as f64).collect()),
            Counts::Penta(c) => (
                vec![0.0, 0.25, 0.5, 0.75, 1.0],
                c.iter().map(|&n| n as f64).collect(),
            ),
        };
        let counts: Vec<f64> = counts
            .into_iter()
            .map(|n| if n == 0.0 { 1e-3 } else { n })
            .collect();
        let total: f64 = counts.iter().sum();
        (scores, counts.iter().map(|n| n / total).collect(), total)
    }

    fn is_penta(&self) -> bool {
        matches!(self, Counts::Penta(_))
    }
}

fn mean_and_variance(scores: &[f64], probs: &[f64]) -> (f64, f64) {
    let mu: f64 = scores.iter().zip(probs).map(|(a, p)| a * p).sum();
    let var: f64 = scores.iter().zip(probs).map(|(a, p)| p * (a - mu).powi(2)).sum();
    (mu, var)
}

/// Solves `Σ p_i x_i / (1 + θ x_i) = 0` for θ by bisection on the interval that keeps every
/// denominator positive (the left side decreases in θ there).
fn solve_theta(probs: &[f64], xs: &[f64]) -> f64 {
    let max = xs.iter().cloned().fold(f64::MIN, f64::max);
    let min = xs.iter().cloned().fold(f64::MAX, f64::min);
    if max <= 0.0 || min >= 0.0 {
        return 0.0;
    }
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    let f = |theta: f64| -> f64 { probs.iter().zip(xs).map(|(p, x)| p * x / (1.0 + theta * x)).sum() };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Maximum-likelihood distribution with mean `s` (logistic model).
fn mle_mean(scores: &[f64], probs: &[f64], s: f64) -> Vec<f64> {
    let xs: Vec<f64> = scores.iter().map(|a| a - s).collect();
    let theta = solve_theta(probs, &xs);
    probs
        .iter()
        .zip(&xs)
        .map(|(p, x)| p / (1.0 + theta * x))
        .collect()
}

/// Maximises `Σ p_i ln q_i` over distributions `q` with `Σ q_i g_i = 0` for the two
/// constraint values `g_i` of each outcome: `q_i = p_i / (1 + λ·g_i)`, where `λ` minimises
/// the convex dual `F(λ) = -Σ p_i ln(1 + λ·g_i)` (Newton's method, from `start` when it is
/// inside F's domain, else from 0). Returns `λ` and `Σ p_i ln q_i`, or `None` when no
/// distribution with every `q_i > 0` meets the constraints.
fn moment_dual(probs: &[f64], g: &[[f64; 2]], start: [f64; 2]) -> Option<([f64; 2], f64)> {
    let weights = |l: [f64; 2]| -> Vec<f64> { g.iter().map(|x| 1.0 + l[0] * x[0] + l[1] * x[1]).collect() };
    let objective = |w: &[f64]| -> f64 {
        if w.iter().any(|&x| x <= 0.0) {
            return f64::INFINITY;
        }
        -probs.iter().zip(w).map(|(p, x)| p * x.ln()).sum::<f64>()
    };
    let gradient = |w: &[f64]| -> [f64; 2] {
        let mut d = [0.0; 2];
        for ((p, x), gi) in probs.iter().zip(w).zip(g) {
            d[0] -= p * gi[0] / x;
            d[1] -= p * gi[1] / x;
        }
        d
    };
    let size = |d: [f64; 2]| d[0].abs().max(d[1].abs());
    let mut lambda = if weights(start).iter().all(|&x| x > 0.0) {
        start
    } else {
        [0.0; 2]
    };
    let mut w = weights(lambda);
    let mut f = objective(&w);
    let mut grad = gradient(&w);
    for _ in 0..200 {
        let residual = size(grad);
        if residual < 1e-15 {
            break;
        }
        let mut h = [0.0; 3];
        for ((p, x), gi) in probs.iter().zip(&w).zip(g) {
            let c = p / (x * x);
            h[0] += c * gi[0] * gi[0];
            h[1] += c * gi[0] * gi[1];
            h[2] += c * gi[1] * gi[1];
        }
        let det = h[0] * h[2] - h[1] * h[1];
        if det.is_nan() || det <= 0.0 {
            return None;
        }
        let step = [
            -(h[2] * grad[0] - h[1] * grad[1]) / det,
            -(h[0] * grad[1] - h[1] * grad[0]) / det,
        ];
        let slope = step[0] * grad[0] + step[1] * grad[1];
        let mut next = None;
        if -slope > 1e-12 * f.abs().max(1.0) {
            // Damped Newton: halve the step until F decreases enough (Armijo).
            let mut t = 1.0;
            while t > 1e-30 {
                let trial = [lambda[0] + t * step[0], lambda[1] + t * step[1]];
                let tw = weights(trial);
                let tf = objective(&tw);
                if tf <= f + 1e-4 * t * slope {
                    next = Some((trial, tw, tf));
                    break;
                }
                t /= 2.0;
            }
        }
        if next.is_none() {
            // F's rounding hides what is left to gain: full Newton steps while the gradient
            // (the constraints' residual) shrinks.
            let trial = [lambda[0] + step[0], lambda[1] + step[1]];
            let tw = weights(trial);
            if tw.iter().any(|&x| x <= 0.0) || size(gradient(&tw)) >= residual {
                break;
            }
            let tf = objective(&tw);
            next = Some((trial, tw, tf));
        }
        let Some((l, tw, tf)) = next else { break };
        (lambda, w, f) = (l, tw, tf);
        grad = gradient(&w);
        if f < -60.0 {
            // The likelihood ratio to the observed distribution passed e^60: the
            // constraints cannot be met.
            return None;
        }
    }
    // The dual's optimum meets the constraints (its gradient is their residual) and sums
    // to one; anything else is a failure.
    let total: f64 = probs.iter().zip(&w).map(|(p, x)| p / x).sum();
    if size(grad) > 1e-8 || (total - 1.0).abs() > 1e-8 {
        return None;
    }
    let loglik = probs.iter().zip(&w).map(|(p, x)| p * (p / x).ln()).sum();
    Some((lambda, loglik))
}

/// Whether a distribution with every `q_i > 0` on the (ascending) `scores` can have mean
/// `mu` and standard deviation `sigma`: `(mu, mu² + sigma²)` strictly inside the convex hull
/// of the points `(a_i, a_i²)`, whose lower side is the broken line through them and upper
/// side the chord from the first to the last.
fn feasible(scores: &[f64], mu: f64, sigma: f64) -> bool {
    let (first, last) = (scores[0], scores[scores.len() - 1]);
    if !(first < mu && mu < last && sigma > 0.0) {
        return false;
    }
    let second = mu * mu + sigma * sigma;
    let upper = first * first + (last * last - first * first) * (mu - first) / (last - first);
    let lower = scores
        .windows(2)
        .find(|w| w[0] <= mu && mu <= w[1])
        .map_or(f64::INFINITY, |w| {
            w[0] * w[0] + (w[1] * w[1] - w[0] * w[0]) * (mu - w[0]) / (w[1] - w[0])
        });
    lower + 1e-13 < second && second < upper - 1e-13
}

/// The points the likelihood along the normalized constraint is first evaluated at (the
/// range of sigma, denser near its ends), before each local maximum is refined.
const T_VALUE_SCAN: usize = 240;

/// Maximum-likelihood distribution with t-value `(mu - 1/2) / sigma = t` (normalized).
///
/// The constraint is met exactly along one parameter: for each `sigma` the mean is
/// `mu = 1/2 + t sigma`, and the likeliest distribution with that mean and standard
/// deviation comes from [`moment_dual`]; `sigma` is then chosen to maximise the likelihood.
/// The likelihood along `sigma` can have two local maxima, so the whole feasible range is
/// scanned and each local maximum refined by golden-section search. (fishtest's fixed-point
/// iteration from the uniform distribution finds the same maximum at narrow bounds, but at
/// wide ones its secular equation has no root, and it can settle on the lesser maximum.)
/// `None` only if no distribution meets the constraint, which does not happen for a finite
/// `t` and scores on [0, 1].
fn mle_t_value(scores: &[f64], probs: &[f64], t: f64) -> Option<Vec<f64>> {
    let evaluate = |sigma: f64, start: [f64; 2]| -> Option<([f64; 2], f64)> {
        let mu = 0.5 + t * sigma;
        if !feasible(scores, mu, sigma) {
            return None;
        }
        let g: Vec<[f64; 2]> = scores
            .iter()
            .map(|a| [a - mu, (a - mu) * (a - mu) - sigma * sigma])
            .collect();
        moment_dual(probs, &g, start)
    };
    // mu (1 - mu) > sigma² for scores on [0, 1]: sigma < 1/2 / sqrt(1 + t²).
    let span = scores[scores.len() - 1] - scores[0];
    let top = span / 2.0 / (1.0 + t * t).sqrt();
    let at = |k: usize| top * (1.0 - (std::f64::consts::PI * k as f64 / T_VALUE_SCAN as f64).cos()) / 2.0;
    let mut scan: Vec<Option<([f64; 2], f64)>> = vec![None; T_VALUE_SCAN + 1];
    let mut warm = [0.0; 2];
    for (k, slot) in scan.iter_mut().enumerate().take(T_VALUE_SCAN).skip(1) {
        *slot = evaluate(at(k), warm);
        if let Some((lambda, _)) = slot {
            warm = *lambda;
        }
    }
    let value = |k: usize| scan[k].map_or(f64::NEG_INFINITY, |s| s.1);
    let mut best: Option<(f64, f64, [f64; 2])> = None;
    for (k, found) in scan.iter().enumerate().take(T_VALUE_SCAN).skip(1) {
        let Some((lambda, here)) = *found else { continue };
        if here < value(k - 1) || here < value(k + 1) {
            continue;
        }
        // Golden-section search on the two cells around a local maximum of the scan.
        let (mut lo, mut hi) = (at(k - 1), at(k + 1));
        let mut warm = lambda;
        let mut f = |sigma: f64| match evaluate(sigma, warm) {
            Some((l, v)) => {
                warm = l;
                v
            }
            None => f64::NEG_INFINITY,
        };
        let ratio = (5f64.sqrt() - 1.0) / 2.0;
        let (mut x1, mut x2) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
        let (mut f1, mut f2) = (f(x1), f(x2));
        for _ in 0..120 {
            if hi - lo < 1e-14 * top {
                break;
            }
            if f1 >= f2 {
                (hi, x2, f2) = (x2, x1, f1);
                x1 = hi - ratio * (hi - lo);
                f1 = f(x1);
            } else {
                (lo, x1, f1) = (x1, x2, f2);
                x2 = lo + ratio * (hi - lo);
                f2 = f(x2);
            }
        }
        let sigma = 0.5 * (lo + hi);
        let candidates = [(sigma, evaluate(sigma, warm)), (at(k), Some((lambda, here)))];
        for (sigma, found) in candidates {
            if let Some((l, v)) = found {
                if best.is_none_or(|b| v > b.1) {
                    best = Some((sigma, v, l));
                }
            }
        }
    }
    let (sigma, _, lambda) = best?;
    let mu = 0.5 + t * sigma;
    Some(
        scores
            .iter()
            .zip(probs)
            .map(|(a, p)| {
                p / (1.0 + lambda[0] * (a - mu) + lambda[1] * ((a - mu) * (a - mu) - sigma * sigma))
            })
            .collect(),
    )
}

/// Logistic Elo to expected score.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Expected score to logistic Elo.
pub fn score_to_elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`), in the model's units, for
/// any bounds from -1000 to 1000 (what `-sprt` and `sprt-calc` accept). NaN for the BayesElo
/// model with pentanomial counts (it is trinomial).
pub fn llr(counts: Counts, elo0: f64, elo1: f64, model: Model) -> f64 {
    if model == Model::Bayes {
        let tri = match counts {
            Counts::Tri(c) => c,
            // The BayesElo test is trinomial: count each pair's games.
            Counts::Penta(_) => return f64::NAN,
        };
        return llr_bayes(tri, elo0, elo1);
    }
    let (scores, probs, n) = counts.distribution();
    let (p0, p1) = match model {
        Model::Logistic => (
            mle_mean(&scores, &probs, elo_to_score(elo0)),
            mle_mean(&scores, &probs, elo_to_score(elo1)),
        ),
        _ => {
            let factor = if counts.is_penta() {
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            let estimate = |elo: f64| mle_t_value(&scores, &probs, factor * elo / NELO_SCALE);
            match (estimate(elo0), estimate(elo1)) {
                (Some(p0), Some(p1)) => (p0, p1),
                _ => return f64::NAN,
            }
        }
    };
    n * probs
        .iter()
        .zip(p0.iter().zip(&p1))
        .map(|(p, (a, b))| p * (b.ln() - a.ln()))
        .sum::<f64>()
}

/// OpenBench's BayesElo trinomial SPRT (needs L, D, W > 0; zeros are regularised).
fn llr_bayes(counts: [u64; 3], elo0: f64, elo1: f64) -> f64 {
    let n: Vec<f64> = counts
        .iter()
        .map(|&c| if c == 0 { 1e-3 } else { c as f64 })
        .collect();
    let total: f64 = n.iter().sum();
    let (p_l, p_w) = (n[0] / total, n[2] / total);
    let drawelo = 200.0 * (((1.0 - p_l) / p_l) * ((1.0 - p_w) / p_w)).log10();
    let probs = |b: f64| {
        let w = 1.0 / (1.0 + 10f64.powf((drawelo - b) / 400.0));
        let l = 1.0 / (1.0 + 10f64.powf((drawelo + b) / 400.0));
        [l, 1.0 - w - l, w]
    };
    let (q0, q1) = (probs(elo0), probs(elo1));
    (0..3).map(|i| n[i] * (q1[i] / q0[i]).ln()).sum()
}

/// SPRT decision bounds `(lower, upper)` for error rates alpha and beta.
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// Elo estimate of a set of counts.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct EloEstimate {
    /// The mean score, 0 to 1 (a draw is half).
    pub score: f64,
    /// The logistic Elo difference.
    pub elo: f64,
    /// Half-width of the 95% interval.
    pub elo_error: f64,
    /// The normalized Elo difference.
    pub nelo: f64,
    /// Half-width of its 95% interval.
    pub nelo_error: f64,
    /// Likelihood of superiority, in percent.
    pub los: f64,
}

/// The standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Complementary error function (Numerical Recipes' Chebyshev fit, |error| < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Elo, nElo and LOS from counts as fastchess computes them: every count as observed (no
/// regularisation) and IEEE arithmetic with nothing clamped. Where every game (or pair) has
/// the same result the Elo is `inf` or `-inf` with a `nan` error, LOS is 100 or 0, and an
/// interval whose end passes a score of 0 or 1 has a `nan` half-width; no counts at all
/// give `nan` everywhere. The match report and `arena sprt-calc` both use this one
/// definition, so they print the same numbers for the same counts.
pub fn estimate(counts: Counts) -> EloEstimate {
    let (scores, raw): (Vec<f64>, Vec<f64>) = match counts {
        Counts::Tri(c) => (vec![0.0, 0.5, 1.0], c.iter().map(|&n| n as f64).collect()),
        Counts::Penta(c) => (
            vec![0.0, 0.25, 0.5, 0.75, 1.0],
            c.iter().map(|&n| n as f64).collect(),
        ),
    };
    let n: f64 = raw.iter().sum();
    let probs: Vec<f64> = raw.iter().map(|c| c / n).collect();
    let (mu, var) = mean_and_variance(&scores, &probs);
    let se = (var / n).sqrt();
    let (upper, lower) = (mu + Z_95 * se, mu - Z_95 * se);
    // Per pair, the variance of a pair's mean score is half a game's (fastchess: 2 * var).
    let factor = if counts.is_penta() { 2.0 } else { 1.0 };
    let nelo_of = |s: f64| (s - 0.5) / (factor * var).sqrt() * NELO_SCALE;
    EloEstimate {
        score: mu,
        elo: score_to_elo(mu),
        elo_error: (score_to_elo(upper) - score_to_elo(lower)) / 2.0,
        nelo: nelo_of(mu),
        nelo_error: (nelo_of(upper) - nelo_of(lower)) / 2.0,
        los: normal_cdf((mu - 0.5) / se) * 100.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(kind: &str, text: &str) -> Counts {
        let v: Vec<u64> = text.split_whitespace().map(|n| n.parse().unwrap()).collect();
        match kind {
            "tri" => Counts::Tri([v[0], v[1], v[2]]),
            _ => Counts::Penta([v[0], v[1], v[2], v[3], v[4]]),
        }
    }

    fn rows(text: &str) -> Vec<Vec<&str>> {
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("kind,") && !l.trim().is_empty())
            .map(|l| l.split(',').collect())
            .collect()
    }

    #[test]
    fn llr_vectors() {
        let rows = rows(include_str!("../tests/data/llr-vectors.csv"));
        assert_eq!(rows.len(), 17);
        for row in rows {
            let c = counts(row[0], row[1]);
            let model: Model = row[2].parse().unwrap();
            let (elo0, elo1): (f64, f64) = (row[3].parse().unwrap(), row[4].parse().unwrap());
            let (expected, tol): (f64, f64) = (row[5].parse().unwrap(), row[6].parse().unwrap());
            let got = llr(c, elo0, elo1, model);
            assert!(
                (got - expected).abs() <= tol,
                "{row:?}: got {got}, expected {expected}"
            );
        }
    }

    /// The grid of `scripts/sprt-reference.py`: normalized-model LLRs (and some logistic
    /// ones) for pentanomial counts from 10 to 183,100 pairs and trinomial ones, elo0 from
    /// -400 to 400 with interval widths 5 to 300, and the accepted extremes (-1000, 1000),
    /// each within 1e-6 of the reference (relative to max(1, |LLR|)).
    #[test]
    fn llr_grid() {
        let rows = rows(include_str!("../tests/data/llr-normalized-grid.csv"));
        assert!(rows.len() > 1000, "{}", rows.len());
        let mut worst = (0.0f64, String::new());
        for row in rows {
            let c = counts(row[0], row[1]);
            let model: Model = row[2].parse().unwrap();
            let (elo0, elo1): (f64, f64) = (row[3].parse().unwrap(), row[4].parse().unwrap());
            let expected: f64 = row[5].parse().unwrap();
            let got = llr(c, elo0, elo1, model);
            let error = (got - expected).abs() / expected.abs().max(1.0);
            // A NaN (no answer) is the worst of all and stays so.
            if !worst.0.is_nan() && (error.is_nan() || error > worst.0) {
                worst = (error, format!("{row:?}: got {got}, expected {expected}"));
            }
        }
        assert!(worst.0 <= 1e-6, "worst: {}", worst.1);
    }

    #[test]
    fn elo_vectors() {
        let rows = rows(include_str!("../tests/data/elo-vectors.csv"));
        assert_eq!(rows.len(), 5);
        for row in rows {
            let e = estimate(counts(row[0], row[1]));
            if !row[2].is_empty() {
                assert!((e.score - row[2].parse::<f64>().unwrap()).abs() < 1e-6, "{row:?}");
            }
            let near = |got: f64, col: usize| {
                let expected: f64 = row[col].parse().unwrap();
                assert!(
                    (got - expected).abs() <= 0.006,
                    "{row:?} column {col}: got {got}, expected {expected}"
                );
            };
            near(e.elo, 3);
            near(e.elo_error, 4);
            near(e.nelo, 5);
            near(e.nelo_error, 6);
            near(e.los, 7);
        }
    }

    #[test]
    fn bounds_and_conversions() {
        let (a, b) = sprt_bounds(0.05, 0.05);
        assert!((a + 2.944_438_979).abs() < 1e-6 && (b - 2.944_438_979).abs() < 1e-6);
        assert!((elo_to_score(0.0) - 0.5).abs() < 1e-12);
        assert!((score_to_elo(elo_to_score(35.0)) - 35.0).abs() < 1e-9);
        assert!((normal_cdf(1.959_963_984_540_054) - 0.975).abs() < 1e-6);
    }
}
