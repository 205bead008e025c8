//! The sequential probability ratio test of a match: its settings (`-sprt elo0= elo1=
//! alpha= beta= model=` in arena, `[gate]` in learn), the checks of those settings that
//! both read them with, and the log-likelihood ratio of a [`Tally`] under them. The
//! statistics themselves are [`crate::stats`].

use crate::stats::{llr, Counts, Model};
use crate::tally::Tally;

/// Largest |Elo| an SPRT bound may have.
pub const MAX_SPRT_ELO: f64 = 1000.0;

/// SPRT settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SprtConfig {
    /// The Elo difference of H0 (`elo0=`, default 0), in the model's units.
    pub elo0: f64,
    /// The Elo difference of H1 (`elo1=`, default 5), in the model's units.
    pub elo1: f64,
    /// The false positive rate: accepting H1 when H0 holds (`alpha=`, default 0.05).
    pub alpha: f64,
    /// The false negative rate: accepting H0 when H1 holds (`beta=`, default 0.05).
    pub beta: f64,
    /// The Elo model `elo0` and `elo1` are in (`model=`: normalized, logistic or bayesian).
    pub model: Model,
}

/// An SPRT Elo bound: finite, at most [`MAX_SPRT_ELO`] either way.
pub fn sprt_elo(key: &str, value: &str) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v.abs() <= MAX_SPRT_ELO => Ok(v),
        _ => Err(format!(
            "{key} must be a number from -{MAX_SPRT_ELO} to {MAX_SPRT_ELO}, found {value:?}"
        )),
    }
}

/// An SPRT error probability, in (0, 0.5).
pub fn sprt_probability(key: &str, value: &str) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 0.5 => Ok(v),
        _ => Err(format!(
            "{key} must be a probability above 0 and below 0.5, found {value:?}"
        )),
    }
}

/// The LLR of a tally under `s`: pentanomial when `penta` (`-report penta=true`, the
/// default), trinomial for the BayesElo model, with `-report penta=false`, or before any
/// pair is complete.
pub fn sprt_llr(tally: &Tally, s: &SprtConfig, penta: bool) -> f64 {
    if tally.games() == 0 {
        return 0.0;
    }
    let counts = if s.model == Model::Bayes || !penta || tally.pairs() == 0 {
        Counts::Tri(tally.tri)
    } else {
        Counts::Penta(tally.penta)
    };
    llr(counts, s.elo0, s.elo1, s.model)
}
