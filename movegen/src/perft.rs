//! Perft: counts the leaf nodes of the legal move tree to a given depth, the standard test
//! of a move generator. The last ply is bulk counted (one popcount per piece, promotions
//! times four), so perft measures generation and `play`, not leaf bookkeeping.
//!
//! [`PerftTable`] memoises subtree counts by (Zobrist key, depth) for deep suite runs: every
//! count still comes from the generator, but a position reached by transposition is counted
//! once. Keys cover everything that decides the move tree (pieces, side, castling rights
//! with rook files, a legal en passant capture), so equal keys mean equal subtrees up to a
//! 64-bit collision.

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
                    debug_assert_eq!(child.mailbox_mismatch(), None, "{child}");
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

/// A transposition table for perft: (key, depth) -> leaf count.
#[derive(Debug)]
pub struct PerftTable {
    entries: Vec<(u64, u64)>,
}

impl PerftTable {
    /// A table of about `mib` MiB. Panics when the memory cannot be had; see
    /// [`PerftTable::try_new`].
    pub fn new(mib: usize) -> Self {
        match Self::try_new(mib) {
            Ok(table) => table,
            Err(e) => panic!("{e}"),
        }
    }

    /// A table of about `mib` MiB, or the allocator's refusal (named in MiB) where the
    /// machine does not have it, instead of an abort.
    pub fn try_new(mib: usize) -> Result<Self, String> {
        let count = (mib.max(1) << 20) / 16;
        let mut entries = Vec::new();
        entries
            .try_reserve_exact(count)
            .map_err(|e| format!("cannot allocate a perft table of {} MiB: {e}", mib.max(1)))?;
        entries.resize(count, (0, 0));
        Ok(PerftTable { entries })
    }

    fn slot(&self, key: u64) -> usize {
        ((u128::from(key) * self.entries.len() as u128) >> 64) as usize
    }
}

/// Perft with a [`PerftTable`]; equal to [`perft`] for any table.
pub fn perft_hashed(board: &Board, depth: u32, table: &mut PerftTable) -> u64 {
    if depth <= 1 {
        return perft(board, depth);
    }
    // The depth is mixed into the stored key so one slot never answers for another depth.
    let tagged = board.hash() ^ (u64::from(depth)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let slot = table.slot(tagged);
    if table.entries[slot].0 == tagged {
        return table.entries[slot].1;
    }
    let mut nodes = 0;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = *board;
            child.play(mv);
            nodes += perft_hashed(&child, depth - 1, table);
        }
        false
    });
    table.entries[slot] = (tagged, nodes);
    nodes
}
