//! Match statistics, exactly as `docs/design/SPRT.md` states them (and as fishtest, OpenBench and
//! fastchess compute them): trinomial and pentanomial counts, the generalised SPRT under the
//! normalized and logistic models, OpenBench's BayesElo trinomial SPRT, Elo with a 95%
//! interval, normalized Elo, and the likelihood of superiority. Pure functions, no I/O; the
//! unit tests reproduce every row of the shared test vectors.

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

impl std::str::FromStr for Model {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "normalized" => Ok(Model::Normalized),
            "logistic" => Ok(Model::Logistic),
            "bayes" => Ok(Model::Bayes),
            other => Err(format!(
                "unknown SPRT model {other:?} (normalized, logistic or bayes)"
            )),
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

/// Maximum-likelihood distribution with t-value `(mu - 1/2) / sigma = t` (normalized).
fn mle_t_value(scores: &[f64], probs: &[f64], t: f64) -> Vec<f64> {
    let mut current = vec![1.0 / scores.len() as f64; scores.len()];
    for _ in 0..10 {
        let (mu, var) = mean_and_variance(scores, &current);
        let sigma = var.sqrt();
        let phi: Vec<f64> = scores
            .iter()
            .map(|a| a - 0.5 - (t * sigma / 2.0) * (1.0 + ((a - mu) / sigma).powi(2)))
            .collect();
        let theta = solve_theta(probs, &phi);
        let next: Vec<f64> = probs
            .iter()
            .zip(&phi)
            .map(|(p, x)| p / (1.0 + theta * x))
            .collect();
        let change = next
            .iter()
            .zip(&current)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        current = next;
        if change < 1e-9 {
            break;
        }
    }
    current
}

/// Logistic Elo to expected score.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Expected score to logistic Elo.
pub fn score_to_elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`).
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
            (
                mle_t_value(&scores, &probs, factor * elo0 / NELO_SCALE),
                mle_t_value(&scores, &probs, factor * elo1 / NELO_SCALE),
            )
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
        let mut worst = (0.0, String::new());
        for row in rows {
            let c = counts(row[0], row[1]);
            let model: Model = row[2].parse().unwrap();
            let (elo0, elo1): (f64, f64) = (row[3].parse().unwrap(), row[4].parse().unwrap());
            let expected: f64 = row[5].parse().unwrap();
            let got = llr(c, elo0, elo1, model);
            let error = (got - expected).abs() / expected.abs().max(1.0);
            if !(error <= worst.0) {
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
