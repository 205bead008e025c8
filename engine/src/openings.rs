//! The playability check of self-play openings, shared by datagen (and so by `learn`, whose
//! self-play is datagen) and `luft genfens` (OpenBench's distributed self-play): a
//! candidate from [`movegen::openings::OpeningSource`] is kept when a short search of it,
//! from an empty table and empty histories, scores it within a window. The search depends
//! on the position, its game so far (for repetitions), the net and the table size alone, so
//! the same seed gives the same openings in every tool ([`draw_opening`]); see
//! `movegen::openings` for the whole distribution.

use crate::report::{hard_nodes_for, Limits};
use crate::searcher::Searcher;
use movegen::openings::{NoPlayableOpening, OpeningSource};
use movegen::rng::SplitMix64;
use movegen::{Board, Game};

/// The transposition table of a self-play searcher, in MiB: datagen's threads and genfens
/// check openings (and datagen plays its games) on a table of this size, so that both
/// judge an opening alike. 8 MiB from datagen 0.3.0 (16 before): at 5,000 soft nodes a move
/// the games are as strong (Hash 8 against Hash 16 at 5,000 nodes: +0.4 +- 11.1 Elo over
/// 2,000 games) and the search makes about 5% more nodes per CPU second, likely from probes
/// that miss the cache less (`docs/measurements.md`).
pub const SELF_PLAY_HASH_MIB: usize = 8;

/// The soft node budget of the check's search by default.
pub const CHECK_NODES: u64 = 1000;

/// The largest score, either side, of an opening kept by default (centipawns).
pub const CHECK_MAX_SCORE: i32 = 1000;

/// A short search that must score an opening within `±max_score` centipawns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpeningCheck {
    /// Soft node budget ([`crate::Limits::soft_nodes`]: scaled by the search as every soft
    /// budget is).
    pub soft_nodes: u64,
    /// Hard node limit.
    pub hard_nodes: u64,
    /// The largest score kept, centipawns from either side.
    pub max_score: i32,
}

impl Default for OpeningCheck {
    /// [`CHECK_NODES`] soft nodes (hard cap [`hard_nodes_for`] them), within
    /// ±[`CHECK_MAX_SCORE`].
    fn default() -> Self {
        OpeningCheck {
            soft_nodes: CHECK_NODES,
            hard_nodes: hard_nodes_for(CHECK_NODES),
            max_score: CHECK_MAX_SCORE,
        }
    }
}

/// What the check found: the score of the position for its side to move (centipawns, or a
/// mate value) and the nodes the search took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The score, from the side to move's view.
    pub score: i32,
    /// Nodes searched.
    pub nodes: u64,
}

impl OpeningCheck {
    /// Searches `game`'s position (its earlier positions count for repetitions) on
    /// `searcher`, emptied first (a new game): `None` when the position has no legal move.
    /// The searcher's table should have [`SELF_PLAY_HASH_MIB`] MiB for the same verdicts
    /// as datagen's.
    pub fn search(&self, searcher: &mut Searcher, game: &Game) -> Option<Checked> {
        let positions = game.positions();
        let history: Vec<u64> = positions[..positions.len() - 1].iter().map(Board::hash).collect();
        searcher.new_game();
        let limits = Limits {
            nodes: Some(self.hard_nodes),
            soft_nodes: Some(self.soft_nodes),
            ..Limits::default()
        };
        let result = searcher.search(game.board(), &history, &limits);
        result.best_move?;
        Some(Checked {
            score: result.score?.value(),
            nodes: result.nodes,
        })
    }

    /// Whether a check's finding keeps the opening.
    pub fn accepts(&self, checked: &Checked) -> bool {
        checked.score.abs() <= self.max_score
    }
}

/// A playable opening: its game (start and random plies), the check's score of it for the
/// side to move, and the nodes every check of the draw took (refused candidates' too).
#[derive(Clone, Debug)]
pub struct Opening {
    /// The start position and the random plies.
    pub game: Game,
    /// The accepted check's score, from the side to move's view.
    pub score: i32,
    /// Nodes of all the checks this opening took.
    pub nodes: u64,
}

/// Draws the first candidate of `source` with `rng` that `check` accepts, checking on
/// `searcher` (left emptied and holding the check's search: call
/// [`Searcher::new_game`] before a game). Errors: no candidate accepted among
/// [`movegen::openings::MAX_OPENING_CANDIDATES`].
pub fn draw_opening(
    source: &OpeningSource,
    check: &OpeningCheck,
    searcher: &mut Searcher,
    rng: &mut SplitMix64,
) -> Result<Opening, NoPlayableOpening> {
    let mut nodes = 0;
    let (game, score) = source.draw(rng, |game| {
        let checked = check.search(searcher, game)?;
        nodes += checked.nodes;
        check.accepts(&checked).then_some(checked.score)
    })?;
    Ok(Opening { game, score, nodes })
}
