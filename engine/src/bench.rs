//! `bench`: searches the 50 positions of `bench.fens` (Ethereal's bench list) to a fixed
//! depth on one thread with a 16 MiB table cleared before each position, so the node count
//! is the same on every machine and run: the signature a search change is identified by
//! (`Bench: <N>` in commit messages, OpenBench's bench check). Prints one line per position
//! and `<N> nodes <M> nps` last.

use crate::accumulator::{detected_backend, AccumulatorStack};
use crate::search::{Limits, Shared, Worker};
use crate::tt::TranspositionTable;
use movegen::Board;
use nnue::Network;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Instant;

pub const BENCH_FENS: &str = include_str!("../bench.fens");
pub const DEFAULT_BENCH_DEPTH: i32 = 16;

/// Runs the bench, sending a line per position to `out`; returns the final line.
pub fn run(depth: Option<i32>, net: &Arc<Network>, out: &mut dyn FnMut(&str)) -> String {
    let depth = depth.unwrap_or(DEFAULT_BENCH_DEPTH);
    let (nodes, elapsed) = run_quiet(depth, net, |i, fen, nodes| {
        out(&format!("position {:>2}: {nodes:>9} nodes  {fen}", i + 1))
    });
    let nps = (nodes as f64 / elapsed.max(1e-6)) as u64;
    format!("{nodes} nodes {nps} nps")
}

/// Runs the bench and returns (total nodes, seconds), calling `each` per position.
pub fn run_quiet(depth: i32, net: &Arc<Network>, mut each: impl FnMut(usize, &str, u64)) -> (u64, f64) {
    let tt = Arc::new(TranspositionTable::new(16));
    let shared = Arc::new(Shared {
        tt: tt.clone(),
        stop: AtomicBool::new(false),
        nodes: vec![AtomicU64::new(0)],
    });
    let mut worker = Worker::new(0, shared, AccumulatorStack::new(net.clone(), detected_backend()));
    let mut total = 0;
    let start = Instant::now();
    for (i, fen) in BENCH_FENS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        let Ok(board) = Board::from_fen(fen) else { continue };
        tt.clear();
        worker.history.clear();
        let limits = Limits {
            depth: Some(depth),
            multipv: 1,
            ..Limits::default()
        };
        worker.search(&board, &[], limits, None, |_, _| {});
        each(i, fen, worker.nodes());
        total += worker.nodes();
    }
    (total, start.elapsed().as_secs_f64())
}
