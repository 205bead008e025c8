//! `matchcore`: what a match between chess engines is, apart from playing it. arena plays
//! matches and learn gates its nets with them; both count, judge, save and check a match
//! with this one crate:
//!
//! - `stats`: the statistics engine developers use (pentanomial and trinomial SPRT under the
//!   normalized, logistic and BayesElo models, Elo, nElo, LOS), as `docs/design/SPRT.md`
//!   states them, checked against shared test vectors;
//! - `sprt`: a test's settings, the checks of them, the LLR of a tally, and its `Verdict`;
//! - `tally`: the counts of a match from one engine's side, as its games end;
//! - `state`: a match saved to resume it (arena's `-config outname=F`), as JSON;
//! - `termination`: how a game ended, as PGN's `Termination` tag names it;
//! - `timecontrol`: time controls as fastchess writes them, and the clock that keeps one;
//! - [`MAX_ROUNDS`], [`MAX_CONCURRENCY`], [`MAX_MOVES`] and the other bounds both arena's
//!   command line and learn's settings are checked against.
//!
//! No process is started and no engine is spoken to here: pure functions and plain data,
//! with files only where a state is saved or read.

#![warn(missing_docs)]

pub mod sprt;
pub mod state;
pub mod stats;
pub mod tally;
pub mod termination;
pub mod timecontrol;

/// Most rounds a match may have (the game numbers stay far from overflow).
pub const MAX_ROUNDS: u64 = 1_000_000_000;
/// Most games a match plays at once (arena's `-concurrency`).
pub const MAX_CONCURRENCY: usize = 1024;
/// Most moves a side may make before the game is adjudicated a draw (arena's `-maxmoves`).
pub const MAX_MOVES: u32 = 100_000;
