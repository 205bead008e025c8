//! A one-shot, synchronous search for tools that search many positions one after another
//! (`bench`, `genfens`, datagen): one thread, no reports, no clock of its own unless asked,
//! and the same worker (accumulators, histories, tables) reused from one call to the next,
//! so a call costs the search and nothing else. The table and histories carry over between
//! calls, as in a game; [`Searcher::new_game`] empties them. It is not a second search
//! path: a call is the engine's own (`crate::threads::run`, the limits resolved by
//! `crate::threads::Job::new`) with one worker and a listener that hears nothing, so one
//! thread of [`crate::Engine`] searches exactly like it, node for node (tested).
//!
//! A [`SearchStopper`] stops it from another thread: the search running then answers at once
//! with what it has (as a stopped engine search does), and every later call too, so a
//! tool's loop over positions (`bench` in UCI) ends promptly.
//!
//! The search runs on the calling thread and recurses up to 128 plies deep: call it from a
//! thread with a stack of [`crate::SEARCH_STACK_BYTES`] (8 MiB, a main thread's size; at
//! least [`crate::MIN_SEARCH_STACK_BYTES`]).

use crate::accumulator::AccumulatorStack;
use crate::report::{Limits, SearchResult};
use crate::search::{Shared, Worker};
use crate::threads::{self, Job, SearchSettings};
use crate::tt::{TranspositionTable, TtAllocError};
use movegen::Board;
use nnue::Network;
use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// One reusable search thread with its own transposition table.
pub struct Searcher {
    /// The one worker (`threads::run` takes a slice of them).
    worker: [Worker; 1],
    shared: Arc<Shared>,
    /// Set by a [`SearchStopper`]: the search running stops, and every later one at once.
    cancel: Arc<AtomicBool>,
}

/// Stops a [`Searcher`]'s search from another thread (`Send`, `Sync`, cheap to clone).
#[derive(Clone)]
pub struct SearchStopper {
    cancel: Arc<AtomicBool>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for SearchStopper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchStopper")
            .field("stopped", &self.cancel.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl SearchStopper {
    /// Stops the search running now, if any, and makes every later call answer at once (a
    /// search stopped before its first iteration still finishes depth 1, so its move is
    /// legal).
    pub fn stop(&self) {
        self.cancel.store(true, Ordering::SeqCst);
        self.shared.stop.store(true, Ordering::SeqCst);
    }
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
        Ok(Searcher {
            worker: [worker],
            shared,
            cancel: Arc::new(AtomicBool::new(false)),
        })
    }

    /// A handle that stops this searcher's searches from another thread.
    pub fn stopper(&self) -> SearchStopper {
        SearchStopper {
            cancel: self.cancel.clone(),
            shared: self.shared.clone(),
        }
    }

    /// Whether a [`SearchStopper`] was used: a search since then was cut short.
    pub fn stopped(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }

    /// Empties the transposition table and the histories (a new game).
    pub fn new_game(&mut self) {
        self.shared.tt.clear();
        self.worker[0].history.clear();
    }

    /// Empties the transposition table only.
    pub fn clear_hash(&mut self) {
        self.shared.tt.clear();
    }

    /// Searches `board`, whose game so far had the positions with keys `history` (for
    /// repetitions; empty for none), within `limits`, and returns the answer. It is the
    /// engine's search of one thread (`threads::run`, with `SearchSettings::default()` and
    /// a listener that hears nothing): one line (no MultiPV), no WDL, hard node limits;
    /// `infinite` and `ponder` are ignored, and `clock` is read with no move overhead.
    /// Unlike the engine it does not age its table from one call to the next. Give some
    /// limit (depth, nodes, soft nodes, mate or a clock): a search without one only ends at
    /// depth 100. `best_move` is `None` only for a position without legal moves (whose
    /// score is then mate 0 or 0). Once a [`SearchStopper`] of this searcher was used, it
    /// answers as a stopped search does (depth 1 at least).
    pub fn search(&mut self, board: &Board, history: &[u64], limits: &Limits) -> SearchResult {
        let start = Instant::now();
        self.shared.reset();
        // A stop that came before the reset above is not lost (the stopper sets `cancel`
        // before the stop flag).
        fence(Ordering::SeqCst);
        if self.cancel.load(Ordering::SeqCst) {
            self.shared.stop.store(true, Ordering::SeqCst);
        }
        let limits = Limits {
            infinite: false,
            ponder: false,
            ..limits.clone()
        };
        let mut job = Job::new(
            *board,
            history.to_vec(),
            &limits,
            SearchSettings::default(),
            start,
        );
        // Nobody can stop it: a search without limits answers when it ends.
        job.infinite = false;
        threads::run(&mut self.worker, &self.shared, &job, &mut ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopper_ends_the_running_search_and_every_later_one() {
        let mut searcher = Searcher::new(crate::default_net(), 4).unwrap();
        let board = Board::startpos();
        let deep = Limits {
            depth: Some(64),
            ..Limits::default()
        };
        assert!(!searcher.stopped());
        let stopper = searcher.stopper();
        // From another thread while the search runs (a depth-64 search would take hours;
        // the stop may also come before it starts: either way it answers).
        let stopping = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            stopper.stop();
        });
        let cut = searcher.search(&board, &[], &deep);
        stopping.join().unwrap();
        assert!(searcher.stopped());
        assert!(cut.best_move.is_some_and(|m| board.is_legal(m)));
        // Every later call answers at once with a legal move.
        let next = searcher.search(&board, &[], &deep);
        assert!(next.best_move.is_some_and(|m| board.is_legal(m)));
        assert!(next.depth < 64, "{}", next.depth);
    }

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
        // No legal move gives no move, with the engine's score for it (mate 0).
        let mate = Board::from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        let none = searcher.search(&mate, &[], &limits);
        assert_eq!((none.best_move, none.ponder_move), (None, None));
        assert_eq!(none.score.and_then(|s| s.mate_in()), Some(0));
        // `searchmoves` holds here as in the engine, and the ponder move is legal after the
        // best one.
        let a3 = board.parse_uci("a2a3").unwrap();
        let only = searcher.search(
            &board,
            &[],
            &Limits {
                search_moves: vec![a3],
                ..limits.clone()
            },
        );
        assert_eq!(only.best_move, Some(a3));
        let mut after = board;
        after.play(a3);
        assert!(only.ponder_move.is_some_and(|reply| after.is_legal(reply)));
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
