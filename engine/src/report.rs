//! What a search is asked and what it reports, as typed values: [`Limits`] go in; a
//! [`Listener`] receives an [`Iteration`] after every completed iteration and whenever a
//! root search fails high or low; a [`SearchResult`] comes out. Nothing here is text: the
//! UCI front end (`crate::uci`) alone turns these into `info` and `bestmove` lines, and a
//! tool can read them directly (the best move, its score, the nodes searched).
//!
//! Scores are [`Score`]s: centipawns from the side to move's view, with mates kept apart
//! (a mate in `n` plies is `MATE - n`) so a reader can ask for [`Score::mate_in`].

use crate::search::{is_mate, MATE};
pub use crate::time_manager::Clock;
use movegen::Move;
use std::time::Duration;

/// What one search may spend, and where it may look. Every field is optional; a search
/// with none of `depth`, `nodes`, `soft_nodes`, `mate` or a `clock` with a time runs until
/// it is stopped ([`crate::Engine::stop`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration, in plies (clamped to 1..=100).
    pub depth: Option<i32>,
    /// Hard node limit over all threads: the search stops as soon as it is reached.
    pub nodes: Option<u64>,
    /// Soft node limit (datagen's budget): no new iteration once half of it is spent, the
    /// budget scaled from `tm_min_depth` on as the clock's soft limit is
    /// ([`crate::search_scale`] over [`crate::SOFT_NODES_MEAN_SCALE`]:
    /// fewer nodes on a clear move, more on a contested one), so moves average about this
    /// many nodes. Combine with `nodes` as a hard cap (datagen and `UseSoftNodes` use
    /// [`hard_nodes_for`]).
    pub soft_nodes: Option<u64>,
    /// Stop once a mate in this many moves (or fewer) is found.
    pub mate: Option<i32>,
    /// The side to move's clock (or a fixed time per move), in milliseconds.
    pub clock: Option<Clock>,
    /// Answer only after [`crate::Engine::stop`] (UCI `go infinite`), even when a limit
    /// ended the search earlier; the clock is not used.
    pub infinite: bool,
    /// Pondering (UCI `go ponder`): the clock starts at [`crate::Engine::ponderhit`], and
    /// the answer waits for `ponderhit` or `stop`.
    pub ponder: bool,
    /// Only these root moves are searched; empty (or none of them legal) searches every
    /// legal move. Illegal moves are ignored.
    pub search_moves: Vec<Move>,
}

/// How far past a soft node budget a search may go: its hard node limit is this many times
/// the budget. One factor for datagen's budget and the `UseSoftNodes` option.
pub const SOFT_NODES_HARD_FACTOR: u64 = 8;

/// The hard node limit that goes with a soft budget of `soft` nodes
/// ([`SOFT_NODES_HARD_FACTOR`] times it, saturating).
pub const fn hard_nodes_for(soft: u64) -> u64 {
    soft.saturating_mul(SOFT_NODES_HARD_FACTOR)
}

/// A search score from the side to move's point of view: centipawns, or a mate. Ordered
/// like the values it holds (a mate for us above every centipawn score, a quicker mate
/// above a slower one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(i32);

impl Score {
    /// The value of mating at once: a mate in `n` plies scores `MATE - n`, being mated in
    /// `n` plies `-(MATE - n)`. Centipawn scores stay well below `MATE - 256`.
    pub const MATE: i32 = MATE;

    /// A score from its value (centipawns, or `±(MATE - plies)` for a mate).
    pub const fn new(value: i32) -> Score {
        Score(value)
    }

    /// The value: centipawns, or `±(MATE - plies)` for a mate.
    pub const fn value(self) -> i32 {
        self.0
    }

    /// Whether the score is a mate (for either side).
    pub fn is_mate(self) -> bool {
        is_mate(self.0)
    }

    /// Moves to mate: positive when the side to move mates, negative when it is mated
    /// (0 for a side already checkmated); `None` for a centipawn score.
    pub fn mate_in(self) -> Option<i32> {
        if !self.is_mate() {
            return None;
        }
        Some(if self.0 > 0 {
            (MATE - self.0 + 1) / 2
        } else {
            -(MATE + self.0) / 2
        })
    }
}

/// Which side of a score the truth lies on when a root search failed outside its
/// aspiration window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScoreBound {
    /// The search failed high: the score is at least this (UCI `lowerbound`).
    Lower,
    /// The search failed low: the score is at most this (UCI `upperbound`).
    Upper,
}

/// One principal variation of a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The rank of the line, 1 for the best (UCI `multipv`).
    pub multipv: usize,
    /// Its score.
    pub score: Score,
    /// `None` for an exact score; set on a fail-high or fail-low report.
    pub bound: Option<ScoreBound>,
    /// Win, draw and loss chances in per mille, summing to 1000, from the side to move's
    /// view (`crate::wdl`); only when the engine's `UCI_ShowWDL` option is on.
    pub wdl: Option<[u32; 3]>,
    /// The moves, each legal after the ones before it from the searched position. Empty
    /// only for a position without legal moves.
    pub pv: Vec<Move>,
}

/// A report of the search so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iteration {
    /// The iteration's depth in plies; 0 for a position without legal moves.
    pub depth: i32,
    /// The deepest ply reached (selective depth).
    pub seldepth: usize,
    /// Nodes searched so far by all threads.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Transposition table use, per mille.
    pub hashfull: u32,
    /// Tablebase probes answered so far by all threads (the root filter's included);
    /// `None` when the search has no tablebases.
    pub tbhits: Option<u64>,
    /// The lines, best first (one per MultiPV line; one for a bound report).
    pub lines: Vec<Line>,
}

impl Iteration {
    /// Nodes per second so far.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-3)) as u64
    }
}

/// The outcome of one search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play; `None` when the position has no legal move.
    pub best_move: Option<Move>,
    /// The expected reply, when the line behind the best move has one.
    pub ponder_move: Option<Move>,
    /// The score of the best line (mate 0 when checkmated, 0 when stalemated); `None`
    /// only when no iteration finished.
    pub score: Option<Score>,
    /// The depth of the iteration the move comes from.
    pub depth: i32,
    /// Its selective depth.
    pub seldepth: usize,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Tablebase probes answered by all threads; `None` when the search had no tables.
    pub tbhits: Option<u64>,
    /// Time the search took.
    pub elapsed: Duration,
    /// The final lines (MultiPV), best first; the first starts with `best_move`.
    pub lines: Vec<Line>,
}

/// Receives a search's reports. Every method has an empty default, so a listener writes
/// only what it needs; `()` listens to nothing. Calls come from the search's main thread,
/// in order, while the search runs.
///
/// The first move of the last line with `multipv == 1` reported (by `iteration` or
/// `bound`) is always the best move of the [`SearchResult`]: when the move comes from a
/// helper thread's iteration, or the last report was a bound, its line is reported again
/// before the end.
pub trait Listener {
    /// A completed iteration, or the line behind the final move. At depth 0 it reports a
    /// position without legal moves: one line, no moves, mate 0 or 0.
    fn iteration(&mut self, _report: &Iteration) {}

    /// A root search that failed high or low at the iteration's depth: one line, its
    /// `bound` set. The iteration goes on with a wider window.
    fn bound(&mut self, _report: &Iteration) {}

    /// The search is over and may be answered: called exactly once, last, and for
    /// `infinite` or `ponder` searches only after `stop` (or `ponderhit`).
    fn best_move(&mut self, _result: &SearchResult) {}

    /// Something the user should know about how the search runs (search threads that could
    /// not be started), said once, before the answer.
    fn note(&mut self, _text: &str) {}
}

impl Listener for () {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_know_their_mates() {
        assert_eq!(Score::new(35).mate_in(), None);
        assert_eq!(Score::new(MATE - 1).mate_in(), Some(1));
        assert_eq!(Score::new(MATE - 3).mate_in(), Some(2));
        assert_eq!(Score::new(-MATE + 2).mate_in(), Some(-1));
        assert_eq!(Score::new(-MATE).mate_in(), Some(0));
        assert!(Score::new(MATE - 9) > Score::new(MATE - 11));
        assert!(Score::new(MATE - 99) > Score::new(2000));
        assert_eq!(Score::new(-40).value(), -40);
    }
}
