//! Saving and resuming a tournament (`-config outname=F`, `-config file=F`), in a small JSON
//! file (read and written with serde_json):
//!
//! ```json
//! {"arena_state": 2,
//!  "args": ["-engine", "cmd=./new", "..."],
//!  "done": [[0, 39], [41, 41]],
//!  "pairs": [{"first": 0, "second": 1, "tri": [10, 15, 15], "penta": [1, 4, 8, 5, 2], "wl": 3}],
//!  "games": [[0, 1, 2], [1, 0, 1]],
//!  "pending": [[80, 0, 1, 2]],
//!  "pgn_bytes": 123456, "epd_bytes": 7890}
//! ```
//!
//! `args` is the command line the tournament was started with (without `-config`), so the
//! resumed run plays the same engines, openings in the same order and the same schedule.
//! `done` lists the encounters (game pairs, or single games with `-games 1`) whose every
//! game has finished, as inclusive ranges of encounter numbers from 0. `pairs` holds the
//! counts of the done encounters for each pair of engines, from the first's side (`wl` is
//! how many of the `penta[2]` pairs were a win and a loss); `games` holds each done game as
//! [white, black, White's half-points] (kept only with more than two engines, for the joint
//! rating).
//!
//! **Half-pairs are kept** (version 2): `pending` lists each finished game of an encounter
//! not yet done, as [game index from 0, white, black, White's half-points], so a resumed run
//! plays only the games that never finished, and every finished game is in the PGN exactly
//! once. `pgn_bytes` / `epd_bytes` are the lengths of the `-pgnout` / `-epdout` files when
//! the state was saved: the state is saved after every finished game, right after that game
//! was written, so those lengths hold exactly the counted games; a resume cuts the files back
//! to them (dropping a game written by a run killed before it could save). A game cut short
//! by an interruption is never written nor counted, and is played again on resume.
//!
//! `labels` (optional) holds what the report names as each engine's threads and hash
//! (`["1t", "16MB"]`, `null` while unknown), as learnt from the engines when they started,
//! so that resuming a finished match, which starts no engine, reports them as the match
//! did instead of `NULL`.
//!
//! The file is written to a temporary name and renamed (the `output` crate's rule, so a link
//! stays a link), so an interruption never leaves half a file. Version 1 files (no `pending`, no lengths) are still read.

use crate::tally::Tally;
use serde::{Deserialize, Serialize};

/// What a saved tournament holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SavedState {
    /// The tournament's command line without `-config`, to rebuild it on resume.
    pub args: Vec<String>,
    /// Done encounters, as inclusive ranges.
    pub done: Vec<(u64, u64)>,
    /// (first engine, second engine, counts of done encounters from the first's side).
    pub pairs: Vec<(usize, usize, Tally)>,
    /// Done games: (white, black, White's half-points).
    pub games: Vec<(usize, usize, u8)>,
    /// Finished games of encounters not yet done: (game index, white, black, White's
    /// half-points).
    pub pending: Vec<(u64, usize, usize, u8)>,
    /// Length in bytes of the PGN output holding exactly the counted games (None: no PGN,
    /// or a version 1 file).
    pub pgn_bytes: Option<u64>,
    /// The same for the EPD output.
    pub epd_bytes: Option<u64>,
    /// Per engine, (threads, hash) as the report names them (`1t`, `16MB`), once known;
    /// empty in files that do not have them.
    pub labels: Vec<Option<(String, String)>>,
}

/// Why a state's text is not a state.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// Not JSON, or JSON of another shape (serde_json's words).
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// No `arena_state` of version 1 or 2.
    #[error("not an arena state file of version 1 or 2")]
    NotAState,
    /// A `done` range whose end is below its start.
    #[error("\"done\" has a backward range [{0}, {1}]")]
    BackwardRange(u64, u64),
    /// A pair's `wl` above its `penta[2]`.
    #[error("a pair's \"wl\" exceeds its penta[2]")]
    WinLossAboveDraws,
    /// A done game's half-points above 2.
    #[error("a game's half-points must be 0, 1 or 2")]
    GamePoints,
    /// A pending game's half-points above 2.
    #[error("a pending game's half-points must be 0, 1 or 2")]
    PendingPoints,
}

/// Why a state file cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateFileError {
    /// The file cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a state.
    #[error("{path}: {source}")]
    Content {
        /// The file.
        path: String,
        /// Why.
        source: StateError,
    },
    /// The file cannot be written (the `output` crate's words).
    #[error(transparent)]
    Write(std::io::Error),
}

/// The version written in `arena_state`.
const VERSION: u64 = 2;

#[derive(Serialize, Deserialize)]
struct PairJson {
    first: usize,
    second: usize,
    tri: [u64; 3],
    penta: [u64; 5],
    wl: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateJson {
    arena_state: u64,
    args: Vec<String>,
    done: Vec<(u64, u64)>,
    pairs: Vec<PairJson>,
    games: Vec<(usize, usize, u8)>,
    #[serde(default)]
    pending: Vec<(u64, usize, usize, u8)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pgn_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    epd_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    labels: Vec<Option<(String, String)>>,
}

impl SavedState {
    /// The state as JSON text.
    pub fn to_json(&self) -> String {
        let json = StateJson {
            arena_state: VERSION,
            args: self.args.clone(),
            done: self.done.clone(),
            pairs: self
                .pairs
                .iter()
                .map(|(first, second, t)| PairJson {
                    first: *first,
                    second: *second,
                    tri: t.tri,
                    penta: t.penta,
                    wl: t.wl,
                })
                .collect(),
            games: self.games.clone(),
            pending: self.pending.clone(),
            pgn_bytes: self.pgn_bytes,
            epd_bytes: self.epd_bytes,
            labels: self.labels.clone(),
        };
        // A struct of strings and numbers always serialises.
        let mut text = serde_json::to_string(&json).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads the JSON text [`SavedState::to_json`] writes (version 1 or 2). Errors:
    /// [`StateError`].
    pub fn from_json(text: &str) -> Result<SavedState, StateError> {
        let value: serde_json::Value = serde_json::from_str(text)?;
        match value.get("arena_state").and_then(serde_json::Value::as_u64) {
            Some(1 | 2) => {}
            _ => return Err(StateError::NotAState),
        }
        let json: StateJson = serde_json::from_value(value)?;
        let mut state = SavedState {
            args: json.args,
            pgn_bytes: json.pgn_bytes,
            epd_bytes: json.epd_bytes,
            labels: json.labels,
            ..SavedState::default()
        };
        for (a, b) in json.done {
            if a > b {
                return Err(StateError::BackwardRange(a, b));
            }
            state.done.push((a, b));
        }
        for p in json.pairs {
            let tally = Tally {
                tri: p.tri,
                penta: p.penta,
                wl: p.wl,
            };
            if tally.wl > tally.penta[2] {
                return Err(StateError::WinLossAboveDraws);
            }
            state.pairs.push((p.first, p.second, tally));
        }
        for &(w, b, p) in json.games.iter() {
            if p > 2 {
                return Err(StateError::GamePoints);
            }
            state.games.push((w, b, p));
        }
        for &(i, w, b, p) in json.pending.iter() {
            if p > 2 {
                return Err(StateError::PendingPoints);
            }
            state.pending.push((i, w, b, p));
        }
        Ok(state)
    }

    /// Whether encounter `e` is done.
    pub fn is_done(&self, e: u64) -> bool {
        self.done.iter().any(|&(a, b)| a <= e && e <= b)
    }
}

/// Inclusive ranges of a sorted set of numbers.
pub fn ranges(sorted: impl IntoIterator<Item = u64>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for e in sorted {
        match out.last_mut() {
            Some((_, end)) if *end + 1 == e => *end = e,
            _ => out.push((e, e)),
        }
    }
    out
}

/// Writes `state` to `path` by the workspace's rule for output files (`output`): a regular
/// file through `<path>.partial`, synced, and a rename; a link keeps being one. Errors:
/// [`StateFileError::Write`].
pub fn save(path: &str, state: &SavedState) -> Result<(), StateFileError> {
    output::write(std::path::Path::new(path), &[], state.to_json().as_bytes()).map_err(StateFileError::Write)
}

/// Reads a state file. Errors: [`StateFileError::Read`], or [`StateFileError::Content`]
/// naming the file.
pub fn load(path: &str) -> Result<SavedState, StateFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| StateFileError::Read {
        path: path.to_string(),
        source,
    })?;
    SavedState::from_json(&text).map_err(|source| StateFileError::Content {
        path: path.to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_goes_round_trip() {
        let state = SavedState {
            args: vec!["-engine".into(), "cmd=./a b\"c\\d".into(), "name=é\n".into()],
            done: ranges([0, 1, 2, 5, 7, 8]),
            pairs: vec![(
                0,
                1,
                Tally {
                    tri: [1, 2, 3],
                    penta: [0, 1, 2, 1, 0],
                    wl: 1,
                },
            )],
            games: vec![(0, 1, 2), (1, 0, 0)],
            pending: vec![(18, 1, 0, 1)],
            pgn_bytes: Some(12345),
            epd_bytes: None,
            labels: vec![Some(("1t".into(), "16MB".into())), None],
        };
        assert_eq!(state.done, [(0, 2), (5, 5), (7, 8)]);
        assert!(state.is_done(1) && state.is_done(8) && !state.is_done(3) && !state.is_done(6));
        assert_eq!(SavedState::from_json(&state.to_json()).ok(), Some(state));
    }

    #[test]
    fn version_1_files_and_escaped_surrogate_pairs_are_read() {
        let text = r#"{"arena_state": 1, "args": ["name=\ud83d\ude00"], "done": [[0, 3]],
            "pairs": [{"first": 0, "second": 1, "tri": [1, 2, 5], "penta": [0, 1, 2, 1, 0], "wl": 1}],
            "games": []}"#;
        let state = SavedState::from_json(text).unwrap();
        assert_eq!(state.args, ["name=\u{1f600}"]);
        assert!(state.pending.is_empty() && state.pgn_bytes.is_none() && state.labels.is_empty());
        assert!(state.is_done(3) && !state.is_done(4));
    }

    #[test]
    fn a_file_that_cannot_be_read_or_holds_no_state_is_named() {
        let dir = std::env::temp_dir().join(format!("matchcore-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_default();
        let missing = dir.join("missing.json").display().to_string();
        let e = load(&missing).unwrap_err();
        assert!(matches!(e, StateFileError::Read { .. }), "{e:?}");
        assert!(
            e.to_string().starts_with(&format!("cannot read {missing}: ")),
            "{e}"
        );
        let other = dir.join("other.json");
        std::fs::write(&other, "{\"arena_spsa\": 1}").unwrap_or_default();
        let other = other.display().to_string();
        let e = load(&other).unwrap_err();
        assert!(
            matches!(
                e,
                StateFileError::Content {
                    source: StateError::NotAState,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            format!("{other}: not an arena state file of version 1 or 2")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn broken_files_are_refused_with_a_reason() {
        for (text, why) in [
            ("", "EOF while parsing"),
            ("{\"arena_state\": 3}", "not an arena state file"),
            (
                "{\"arena_state\": 1, \"args\": [1], \"done\": [], \"pairs\": [], \"games\": []}",
                "invalid type: integer",
            ),
            ("[1, 2", "EOF while parsing"),
            ("{\"arena_state\": 1} x", "trailing characters"),
            (
                "{\"arena_state\": 2, \"args\": [], \"done\": [[3, 1]], \"pairs\": [], \"games\": []}",
                "backward range",
            ),
        ] {
            let e = SavedState::from_json(text).unwrap_err().to_string();
            assert!(e.contains(why), "{text:?}: {e}");
        }
    }
}
