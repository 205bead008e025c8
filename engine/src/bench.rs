//! `bench`: searches the 50 positions of `bench.fens` (Ethereal's bench list) to a fixed
//! depth on one thread with a 16 MiB table cleared before each position, so the node count
//! is the same on every machine and run: the signature a search change is identified by
//! (`Bench: <N>` in commit messages, OpenBench's bench check). Prints one line per position
//! and `<N> nodes <M> nps` last. It runs on a [`Searcher`], like every tool.
//!
//! [`eval_speed`] measures the NNUE's incremental update against a full refresh for the
//! speed benchmark (`cargo bench -p engine --bench speed`).

use crate::accumulator::AccumulatorStack;
use crate::report::Limits;
use crate::searcher::Searcher;
use crate::tt::TtAllocError;
use movegen::Board;
use nnue::Network;
use std::sync::Arc;
use std::time::Instant;

/// The bench positions, one FEN a line.
pub const BENCH_FENS: &str = include_str!("../bench.fens");
/// The depth `luft bench` searches to without an argument.
pub const DEFAULT_BENCH_DEPTH: i32 = 16;
/// The bench's table size, in MiB.
pub const BENCH_HASH_MIB: usize = 16;

/// Runs the bench with `net` to `depth` plies (default [`DEFAULT_BENCH_DEPTH`]), sending a
/// line per position to `out`; returns the final line, `<N> nodes <M> nps`. Errors: the
/// 16 MiB table cannot be allocated.
pub fn run(
    depth: Option<i32>,
    net: &Arc<Network>,
    out: &mut dyn FnMut(&str),
) -> Result<String, TtAllocError> {
    let mut searcher = Searcher::new(net.clone(), BENCH_HASH_MIB)?;
    let run = run_on(
        &mut searcher,
        depth.unwrap_or(DEFAULT_BENCH_DEPTH),
        |i, fen, nodes| out(&position_line(i, fen, nodes)),
    );
    Ok(run.summary())
}

/// The line `bench` prints for position `index` (from 0) of [`BENCH_FENS`].
pub fn position_line(index: usize, fen: &str, nodes: u64) -> String {
    format!("position {:>2}: {nodes:>9} nodes  {fen}", index + 1)
}

/// What a bench run counted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BenchRun {
    /// Nodes over the positions searched to the end.
    pub nodes: u64,
    /// Seconds the run took.
    pub seconds: f64,
    /// Positions searched to the end.
    pub positions: usize,
    /// Positions in the bench ([`BENCH_FENS`]).
    pub of: usize,
    /// Whether the searcher's [`crate::SearchStopper`] ended the run before the last
    /// position (then `nodes` is not the bench signature).
    pub stopped: bool,
}

impl BenchRun {
    /// The final line of a full run: `<N> nodes <M> nps`.
    pub fn summary(&self) -> String {
        let nps = (self.nodes as f64 / self.seconds.max(1e-6)) as u64;
        format!("{} nodes {nps} nps", self.nodes)
    }
}

/// Runs the bench and returns (total nodes, seconds), calling `each` with the index, FEN
/// and nodes of every position. Errors: the 16 MiB table cannot be allocated.
pub fn run_quiet(
    depth: i32,
    net: &Arc<Network>,
    each: impl FnMut(usize, &str, u64),
) -> Result<(u64, f64), TtAllocError> {
    let mut searcher = Searcher::new(net.clone(), BENCH_HASH_MIB)?;
    let run = run_on(&mut searcher, depth, each);
    Ok((run.nodes, run.seconds))
}

/// Runs the bench on `searcher` (made with [`BENCH_HASH_MIB`] for the signature), calling
/// `each` with the index, FEN and nodes of every position searched to the end. It ends
/// early, with `stopped` set, once the searcher's [`crate::SearchStopper`] is used: the
/// position being searched then is not counted.
pub fn run_on(searcher: &mut Searcher, depth: i32, mut each: impl FnMut(usize, &str, u64)) -> BenchRun {
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let fens: Vec<&str> = BENCH_FENS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut run = BenchRun {
        nodes: 0,
        seconds: 0.0,
        positions: 0,
        of: fens.len(),
        stopped: false,
    };
    let start = Instant::now();
    for (i, fen) in fens.into_iter().enumerate() {
        let Ok(board) = Board::from_fen(fen) else { continue };
        searcher.new_game();
        let nodes = searcher.search(&board, &[], &limits).nodes;
        if searcher.stopped() {
            run.stopped = true;
            break;
        }
        each(i, fen, nodes);
        run.nodes += nodes;
        run.positions += 1;
    }
    run.seconds = start.elapsed().as_secs_f64();
    run
}

/// Nanoseconds per evaluated node with `net` over the move trees of the bench positions
/// (every grandchild): `(incremental update + evaluation, full refresh + evaluation)`.
pub fn eval_speed(net: &Arc<Network>) -> (f64, f64) {
    let boards: Vec<Board> = BENCH_FENS
        .lines()
        .filter_map(|l| Board::from_fen(l.trim()).ok())
        .collect();
    let mut stack = AccumulatorStack::new(net.clone());
    let mut sink = 0i64;
    let start = Instant::now();
    let mut count = 0u64;
    for board in &boards {
        stack.refresh(board);
        for &mv in board.legal_moves().iter() {
            let mut child = *board;
            child.play(mv);
            stack.push(board, mv);
            for &mv2 in child.legal_moves().iter() {
                let mut grandchild = child;
                grandchild.play(mv2);
                stack.push(&child, mv2);
                sink += i64::from(stack.evaluate(&grandchild));
                stack.pop();
                count += 1;
            }
            stack.pop();
        }
    }
    let incremental = start.elapsed().as_secs_f64() * 1e9 / count.max(1) as f64;
    let start = Instant::now();
    count = 0;
    for board in &boards {
        for &mv in board.legal_moves().iter() {
            let mut child = *board;
            child.play(mv);
            for &mv2 in child.legal_moves().iter() {
                let mut grandchild = child;
                grandchild.play(mv2);
                stack.refresh(&grandchild);
                sink += i64::from(stack.evaluate(&grandchild));
                count += 1;
            }
        }
    }
    let refresh = start.elapsed().as_secs_f64() * 1e9 / count.max(1) as f64;
    std::hint::black_box(sink);
    (incremental, refresh)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bench_is_deterministic_and_counts_every_position() {
        let net = crate::default_net();
        let mut lines = Vec::new();
        let (nodes, _) = run_quiet(5, &net, |i, _, n| lines.push((i, n))).unwrap();
        assert_eq!(lines.len(), 50);
        assert_eq!(lines.iter().map(|l| l.1).sum::<u64>(), nodes);
        assert_eq!(run_quiet(5, &net, |_, _, _| {}).unwrap().0, nodes);
        let last = run(Some(5), &net, &mut |_| {}).unwrap();
        assert!(last.starts_with(&format!("{nodes} nodes ")) && last.ends_with(" nps"));
        // A stopped run says so and counts only what it searched to the end.
        let mut searcher = Searcher::new(net.clone(), BENCH_HASH_MIB).unwrap();
        searcher.stopper().stop();
        let stopped = run_on(&mut searcher, 5, |_, _, _| panic!("a stopped run counted"));
        assert_eq!(
            (stopped.stopped, stopped.positions, stopped.nodes, stopped.of),
            (true, 0, 0, 50)
        );
    }
}
