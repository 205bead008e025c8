//! The sequential probability ratio test of a match: its settings (`-sprt elo0= elo1=
//! alpha= beta= model=` in arena, `[gate]` in learn), the checks of those settings that
//! both read them with, the log-likelihood ratio of a [`Tally`] under them, and the test's
//! [`Verdict`]. The statistics themselves are [`crate::stats`].
//!
//! A verdict is written and read as `H0`, `H1` or `undecided` (learn's journal holds it
//! so, and arena prints `H1 was accepted`), in text ([`std::fmt::Display`],
//! [`std::str::FromStr`]) and in JSON (serde).

use crate::stats::{llr, Counts, Model};
use crate::tally::Tally;
use serde::{Deserialize, Serialize};
use std::fmt;

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

/// An SPRT setting out of its range; `key` is the setting as the user named it (`-sprt
/// elo0`, `--alpha`), `value` the text given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    /// An Elo bound that is not a number within [`MAX_SPRT_ELO`] either way.
    #[error("{key} must be a number from -{max} to {max}, found {value:?}", max = MAX_SPRT_ELO)]
    Elo {
        /// The setting.
        key: String,
        /// The text given.
        value: String,
    },
    /// An error rate that is not above 0 and below 0.5.
    #[error("{key} must be a probability above 0 and below 0.5, found {value:?}")]
    Probability {
        /// The setting.
        key: String,
        /// The text given.
        value: String,
    },
}

/// An SPRT Elo bound: finite, at most [`MAX_SPRT_ELO`] either way. Errors:
/// [`SettingError::Elo`] naming `key`.
pub fn sprt_elo(key: &str, value: &str) -> Result<f64, SettingError> {
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v.abs() <= MAX_SPRT_ELO => Ok(v),
        _ => Err(SettingError::Elo {
            key: key.to_string(),
            value: value.to_string(),
        }),
    }
}

/// An SPRT error probability, in (0, 0.5). Errors: [`SettingError::Probability`] naming
/// `key`.
pub fn sprt_probability(key: &str, value: &str) -> Result<f64, SettingError> {
    match value.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 0.5 => Ok(v),
        _ => Err(SettingError::Probability {
            key: key.to_string(),
            value: value.to_string(),
        }),
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

/// What an SPRT decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Verdict {
    /// H0 accepted: the LLR reached the lower bound (`H0`).
    H0,
    /// H1 accepted: the LLR reached the upper bound (`H1`).
    H1,
    /// Neither: the games ran out first (`undecided`).
    #[serde(rename = "undecided")]
    Undecided,
}

impl Verdict {
    /// Every verdict, in the order above.
    pub const ALL: [Verdict; 3] = [Verdict::H0, Verdict::H1, Verdict::Undecided];

    /// The decision of `llr` between the bounds `(lower, upper)` ([`crate::stats::sprt_bounds`]):
    /// H1 at or above the upper, H0 at or below the lower, `None` between (the test goes
    /// on, or is [`Verdict::Undecided`] once its games have run out).
    pub fn of_llr(llr: f64, (lower, upper): (f64, f64)) -> Option<Verdict> {
        if llr >= upper {
            Some(Verdict::H1)
        } else if llr <= lower {
            Some(Verdict::H0)
        } else {
            None
        }
    }

    /// `H0`, `H1` or `undecided`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::H0 => "H0",
            Verdict::H1 => "H1",
            Verdict::Undecided => "undecided",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A verdict word that is none of `H0`, `H1` and `undecided`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown SPRT verdict {0:?} (H0, H1 or undecided)")]
pub struct UnknownVerdict(pub String);

impl std::str::FromStr for Verdict {
    type Err = UnknownVerdict;

    /// The word, exactly as [`Verdict::as_str`] writes it.
    fn from_str(s: &str) -> Result<Verdict, UnknownVerdict> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownVerdict(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sprt_bounds;

    #[test]
    fn verdicts_read_and_write_todays_words() {
        for (word, v) in [
            ("H0", Verdict::H0),
            ("H1", Verdict::H1),
            ("undecided", Verdict::Undecided),
        ] {
            assert_eq!(word.parse::<Verdict>(), Ok(v));
            assert_eq!(v.to_string(), word);
            let json = format!("\"{word}\"");
            assert_eq!(serde_json::from_str::<Verdict>(&json).unwrap(), v);
            assert_eq!(serde_json::to_string(&v).unwrap(), json);
        }
        for word in ["h1", "Undecided", "playing", ""] {
            assert_eq!(word.parse::<Verdict>(), Err(UnknownVerdict(word.to_string())));
            assert!(serde_json::from_str::<Verdict>(&format!("\"{word}\"")).is_err());
        }
    }

    #[test]
    fn settings_out_of_range_name_the_key_and_the_value() {
        assert_eq!(sprt_elo("-sprt elo0", " -1000 "), Ok(-1000.0));
        assert_eq!(
            sprt_elo("--elo1", "nan").map_err(|e| e.to_string()),
            Err("--elo1 must be a number from -1000 to 1000, found \"nan\"".to_string())
        );
        assert_eq!(sprt_probability("-sprt beta", "0.05"), Ok(0.05));
        assert_eq!(
            sprt_probability("-sprt alpha", "0.5"),
            Err(SettingError::Probability {
                key: "-sprt alpha".into(),
                value: "0.5".into()
            })
        );
    }

    #[test]
    fn a_verdict_is_reached_at_either_bound() {
        let bounds = sprt_bounds(0.05, 0.05);
        assert_eq!(Verdict::of_llr(bounds.1, bounds), Some(Verdict::H1));
        assert_eq!(Verdict::of_llr(3.5, bounds), Some(Verdict::H1));
        assert_eq!(Verdict::of_llr(bounds.0, bounds), Some(Verdict::H0));
        assert_eq!(Verdict::of_llr(-3.5, bounds), Some(Verdict::H0));
        assert_eq!(Verdict::of_llr(0.0, bounds), None);
        assert_eq!(Verdict::of_llr(2.9, bounds), None);
    }
}
