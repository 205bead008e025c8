//! A one-shot, synchronous search for tools that search many positions one after another
//! (`bench`, `genfens`, datagen): one thread, no reports, no clock of its own unless asked,
//! and the same worker (accumulators, histories, tables) reused from one call to the next,
//! so a call costs the search and nothing else. The table and histories carry over between
//! calls, as in a game; [`Searcher::new_game`] empties them.
//!
//! The search runs on the calling thread and recurses up to 128 plies deep: call it from a
//! thread with a stack of [`crate::SEARCH_STACK_BYTES`] (8 MiB, a main thread's size; at
//! least [`crate::MIN_SEARCH_STACK_BYTES`]).

use crate::accumulator::AccumulatorStack;
use crate::report::{Limits, SearchResult};
use crate::search::{self, Shared, Worker};
use crate::threads;
use crate::time_manager::TimeManager;
use crate::tt::{TranspositionTable, TtAllocError};
use movegen::{Board, Move};
use nnue::Network;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// One reusable search thread with its own transposition table.
pub struct Searcher {
    worker: Worker,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searcher")
            .field("hash_slots", &self.shared.tt.slot_count())
            .finish_non_exhaustive()
    }
}

impl Searcher {
    /// A searcher evaluating with `net`, with a transposition table of `hash_mib` MiB (at
    /// least 1). Errors: the table cannot be allocated.
    pub fn new(net: Arc<Network>, hash_mib: usize) -> Result<Searcher, TtAllocError> {
        let tt = Arc::new(TranspositionTable::try_new(hash_mib)?);
        let shared = Arc::new(Shared::new(tt, 1));
        let worker = Worker::new(0, shared.clone(), AccumulatorStack::new(net));
        Ok(Searcher { worker, shared })
    }

    /// Empties the transposition table and the histories (a new game).
    pub fn new_game(&mut self) {
        self.shared.tt.clear();
        self.worker.history.clear();
    }

    /// Empties the transposition table only.
    pub fn clear_hash(&mut self) {
        self.shared.tt.clear();
    }

    /// Searches `board`, whose game so far had the positions with keys `history` (for
    /// repetitions; empty for none), within `limits`, and returns the answer. One line
    /// (no MultiPV), no WDL; `infinite` and `ponder` are ignored, and `clock` is read with
    /// no move overhead. Give some limit (depth, nodes, soft nodes, mate or a clock): a
    /// search without one only ends at depth 100. `best_move` is `None` only for a
    /// position without legal moves.
    pub fn search(&mut self, board: &Board, history: &[u64], limits: &Limits) -> SearchResult {
        let start = Instant::now();
        self.shared.stop.store(false, Ordering::Relaxed);
        let legal = board.legal_moves();
        let root_excluded = root_exclusions(&legal, &limits.search_moves);
        let time = limits
            .clock
            .and_then(|clock| TimeManager::new(clock, 0, start, Arc::new(AtomicBool::new(false))));
        let search_limits = search::Limits {
            depth: limits.depth,
            nodes: limits.nodes,
            soft_nodes: limits.soft_nodes,
            mate: limits.mate,
            multipv: 1,
            root_excluded,
            syzygy: None,
        };
        self.worker.search(board, history, search_limits, time, |_| {});
        let completed = &self.worker.completed;
        let best = completed.lines.first();
        let best_move = best.and_then(|l| l.pv.first().copied());
        let ponder_move = best.and_then(|l| l.pv.get(1).copied()).filter(|&reply| {
            best_move.is_some_and(|mv| {
                let mut next = *board;
                next.play(mv);
                next.is_legal(reply)
            })
        });
        SearchResult {
            best_move,
            ponder_move,
            score: best.map(|l| crate::report::Score::new(l.score)),
            depth: completed.depth,
            seldepth: completed.seldepth,
            nodes: self.worker.nodes(),
            tbhits: None,
            elapsed: start.elapsed(),
            lines: completed
                .lines
                .iter()
                .enumerate()
                .map(|(i, l)| threads::line(board, false, i + 1, l.score, None, &l.pv))
                .collect(),
        }
    }
}

/// The root moves a search leaves out for `go searchmoves`: every legal move not in
/// `search_moves` (illegal entries ignored); none when no listed move is legal, so the
/// whole position is searched.
pub(crate) fn root_exclusions(legal: &[Move], search_moves: &[Move]) -> Vec<Move> {
    let allowed: Vec<Move> = search_moves
        .iter()
        .copied()
        .filter(|m| legal.contains(m))
        .collect();
    if allowed.is_empty() {
        Vec::new()
    } else {
        legal.iter().copied().filter(|m| !allowed.contains(m)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searches_reuse_the_worker_and_new_game_resets_it() {
        let mut searcher = Searcher::new(crate::default_net(), 4).unwrap();
        let board = Board::startpos();
        let limits = Limits {
            depth: Some(7),
            ..Limits::default()
        };
        let first = searcher.search(&board, &[], &limits);
        assert!(first.best_move.is_some_and(|m| board.is_legal(m)));
        assert_eq!(first.lines[0].pv[0], first.best_move.unwrap());
        // The second search starts from what the first left (table, histories), so it walks
        // another tree (usually smaller, not always: with gen7 it is larger); a new game
        // forgets it all and repeats the first search exactly.
        let warm = searcher.search(&board, &[], &limits);
        assert_ne!(
            warm.nodes, first.nodes,
            "the second search did not reuse the worker's state"
        );
        searcher.new_game();
        let cold = searcher.search(&board, &[], &limits);
        assert_eq!((cold.nodes, cold.best_move), (first.nodes, first.best_move));
        // Node limits hold; no legal move gives no move.
        let capped = searcher.search(
            &board,
            &[],
            &Limits {
                nodes: Some(500),
                ..Limits::default()
            },
        );
        assert!(
            capped.nodes <= 600 && capped.best_move.is_some(),
            "{}",
            capped.nodes
        );
        let mate = Board::from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(searcher.search(&mate, &[], &limits).best_move, None);
        assert!(Searcher::new(crate::default_net(), crate::MAX_HASH_MIB).is_err());
    }

    #[test]
    fn one_thread_of_the_engine_searches_exactly_like_a_searcher() {
        let mut searcher = Searcher::new(crate::default_net(), 16).unwrap();
        let mut engine = crate::Engine::new();
        let limits = Limits {
            depth: Some(8),
            ..Limits::default()
        };
        for fen in crate::bench::BENCH_FENS.lines().take(5) {
            let board = Board::from_fen(fen.trim()).unwrap();
            searcher.new_game();
            let alone = searcher.search(&board, &[], &limits);
            engine.new_game();
            engine.set_position(board, &[]).unwrap();
            let driven = engine.go(limits.clone(), &mut ()).unwrap();
            assert_eq!(
                (alone.nodes, alone.best_move, alone.score, alone.depth),
                (driven.nodes, driven.best_move, driven.score, driven.depth),
                "{fen}"
            );
        }
    }

    #[test]
    fn the_facade_types_cross_threads() {
        fn send<T: Send>() {}
        send::<Searcher>();
        send::<crate::Engine>();
        send::<crate::Evaluator>();
        send::<SearchResult>();
    }
}
