//! [`Evaluator`]: the engine's NNUE inference on one position at a time, for tools and
//! tests that want the number the search sees (the trainer checks its exported nets with
//! it). It uses the fastest code path the CPU supports, chosen by a CPU check that no
//! caller can skip, and gives exactly the integers of the `nnue` crate's scalar reference.

use crate::accumulator::AccumulatorStack;
use movegen::Board;
use nnue::Network;
use std::sync::Arc;

/// Evaluates positions with a net, as the search does.
#[derive(Debug)]
pub struct Evaluator {
    stack: AccumulatorStack,
}

impl Evaluator {
    /// An evaluator for `net` on the fastest code path this CPU supports.
    pub fn new(net: Arc<Network>) -> Evaluator {
        Evaluator {
            stack: AccumulatorStack::new(net),
        }
    }

    /// The evaluation of `board` in centipawns from the side to move's view (the search's
    /// raw static evaluation, before correction history).
    pub fn evaluate(&mut self, board: &Board) -> i32 {
        self.stack.refresh(board);
        self.stack.evaluate(board)
    }

    /// The evaluations after each move of `line` played from `board` (which must be legal
    /// there, in order), from the accumulator updated move by move as the search updates
    /// it (incrementally, rebuilding a perspective whose king changes bucket or half of
    /// the board): one value per move, side to move's view, in centipawns. Tests compare
    /// them with [`Evaluator::evaluate`] of each position, which starts from scratch.
    /// Panics on a line longer than the search's ply limit.
    pub fn evaluate_line(&mut self, board: &Board, line: &[movegen::Move]) -> Vec<i32> {
        self.stack.refresh(board);
        let mut board = *board;
        line.iter()
            .map(|&mv| {
                self.stack.push(&board, mv);
                board.play(mv);
                self.stack.evaluate(&board)
            })
            .collect()
    }

    /// The code path in use: "avx2" or "portable".
    pub fn backend(&self) -> &'static str {
        self.stack.backend_name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference() {
        let net = Arc::new(Network::random(48, 4, 2).unwrap());
        let mut evaluator = Evaluator::new(net.clone());
        for fen in include_str!("../../movegen/tests/data/valid.fens")
            .lines()
            .take(300)
        {
            let board = Board::from_fen(fen).unwrap();
            assert_eq!(evaluator.evaluate(&board), net.evaluate(&board), "{fen}");
        }
        assert!(["avx512", "avx2", "portable"].contains(&evaluator.backend()));
    }
}
