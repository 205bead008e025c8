//! Perft: counts the leaf nodes of the legal move tree to a given depth, the standard test
//! of a move generator. The last ply is bulk counted (one popcount per piece, promotions
//! times four), so perft measures generation and `play`, not leaf bookkeeping.

use crate::board::Board;
use crate::types::Move;

/// Number of leaf nodes `depth` plies below `board`.
pub fn perft(board: &Board, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => board.count_moves() as u64,
        _ => {
            let mut nodes = 0;
            board.generate_moves(|moves| {
                for mv in moves {
                    let mut child = *board;
                    child.play(mv);
                    debug_assert_eq!(child.hash(), child.compute_hash(), "{child}");
                    nodes += perft(&child, depth - 1);
                }
                false
            });
            nodes
        }
    }
}

/// Perft split by root move: each legal move with the leaf count below it, in generation
/// order. `depth` must be at least 1.
pub fn perft_divide(board: &Board, depth: u32) -> Vec<(Move, u64)> {
    let depth = depth.max(1);
    board
        .legal_moves()
        .iter()
        .map(|&mv| {
            let mut child = *board;
            child.play(mv);
            (mv, perft(&child, depth - 1))
        })
        .collect()
}
