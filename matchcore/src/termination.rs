//! How a game ended, as PGN's `Termination` tag names it (the words fastchess writes):
//! `normal` (by the rules: mate, stalemate, repetition, fifty moves, dead position),
//! `adjudication` (resign, draw, move-count or tablebase adjudication), `time forfeit`,
//! `illegal move` (an illegal move or a protocol error), `abandoned` (an engine that
//! crashed, stalled or flooded its output) and `unterminated` (cut short by an interruption:
//! never counted nor written, and played again on resume). [`Termination`] is written and
//! read as exactly those words, in PGN text ([`std::fmt::Display`], [`std::str::FromStr`])
//! and in JSON (serde).

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Termination {
    /// Ended by the rules: `normal`.
    #[serde(rename = "normal")]
    Normal,
    /// Adjudicated: `adjudication`.
    #[serde(rename = "adjudication")]
    Adjudication,
    /// A flag fell: `time forfeit`.
    #[serde(rename = "time forfeit")]
    TimeForfeit,
    /// An illegal move or a protocol error: `illegal move`.
    #[serde(rename = "illegal move")]
    IllegalMove,
    /// An engine crashed, stalled or flooded its output: `abandoned`.
    #[serde(rename = "abandoned")]
    Abandoned,
    /// Cut short by an interruption, not a result: `unterminated`.
    #[serde(rename = "unterminated")]
    Unterminated,
}

impl Termination {
    /// Every termination, in the order above.
    pub const ALL: [Termination; 6] = [
        Termination::Normal,
        Termination::Adjudication,
        Termination::TimeForfeit,
        Termination::IllegalMove,
        Termination::Abandoned,
        Termination::Unterminated,
    ];

    /// The PGN word: `normal`, `adjudication`, `time forfeit`, `illegal move`,
    /// `abandoned` or `unterminated`.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Adjudication => "adjudication",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove => "illegal move",
            Termination::Abandoned => "abandoned",
            Termination::Unterminated => "unterminated",
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `Termination` word that is none of the six.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown termination {0:?} (normal, adjudication, time forfeit, illegal move, abandoned or unterminated)"
)]
pub struct UnknownTermination(pub String);

impl std::str::FromStr for Termination {
    type Err = UnknownTermination;

    /// The PGN word, exactly as [`Termination::as_str`] writes it.
    fn from_str(s: &str) -> Result<Termination, UnknownTermination> {
        Termination::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| UnknownTermination(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn todays_words_are_read_and_written_back() {
        for (word, t) in [
            ("normal", Termination::Normal),
            ("adjudication", Termination::Adjudication),
            ("time forfeit", Termination::TimeForfeit),
            ("illegal move", Termination::IllegalMove),
            ("abandoned", Termination::Abandoned),
            ("unterminated", Termination::Unterminated),
        ] {
            assert_eq!(word.parse::<Termination>(), Ok(t));
            assert_eq!(t.to_string(), word);
            let json = format!("\"{word}\"");
            assert_eq!(serde_json::from_str::<Termination>(&json).unwrap(), t);
            assert_eq!(serde_json::to_string(&t).unwrap(), json);
        }
        for t in Termination::ALL {
            assert_eq!(t.to_string().parse::<Termination>(), Ok(t));
        }
    }

    #[test]
    fn other_words_are_refused() {
        for word in ["", "Normal", "time-forfeit", "stalemate"] {
            assert_eq!(
                word.parse::<Termination>(),
                Err(UnknownTermination(word.to_string()))
            );
            assert!(serde_json::from_str::<Termination>(&format!("\"{word}\"")).is_err());
        }
    }
}
