//! The tablebases at the root. When the root position is in the tables, every candidate
//! root move (the moves `crate::root_moves::RootMoves` allows after `searchmoves`; those
//! this filter drops it leaves out with `RootMoves::exclude`) is ranked by what it keeps, as
//! Stockfish ranks them: with DTZ tables, a win that the 50-move rule cannot spoil from
//! here ranks highest, and all such wins rank alike (the search picks among them); a win
//! that would need more plies than the clock leaves ranks lower the longer it takes, so as
//! the clock runs the moves that make progress are the only ones left; draws rank 0;
//! losses rank alike unless a 50-move draw is in sight, when the longer resistance ranks
//! higher. A position that repeated since the last zeroing move ranks every win by its
//! distance, so the engine cannot shuffle. Without DTZ tables the moves are ranked by the
//! WDL verdict after them. The moves below the best rank are left out of the search, so a
//! won position is never spoiled and a drawn one never lost; the search still chooses
//! among the rest, and the reports show the tables' score unless the search finds a mate.
//!
//! With DTZ ranking the search itself does not probe (the root's ranking already decides
//! the result); with WDL ranking only, it probes while the root is won.

use crate::search::TB_WIN;
use movegen::{Board, Move};
use tablebase::{Tablebases, Wdl};

/// The rank of a sure win (Stockfish's `MAX_DTZ`).
const MAX_DTZ: i32 = 1 << 18;

/// Roughly a pawn in the engine's centipawns, for the small scores of cursed wins.
const PAWN: i32 = 100;

/// What the tables say about the root's candidate moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RootFilter {
    /// The candidates to leave out of the search (those below the best rank).
    pub excluded: Vec<Move>,
    /// Each candidate's score for the reports.
    pub scores: Vec<(Move, i32)>,
    /// Tablebase probes made (one per candidate).
    pub probes: u64,
    /// Whether the search should still probe: only WDL ranked the moves and the root wins.
    pub probe_in_search: bool,
}

/// Whether `child` (a position after a root move) is drawn by the rules already: a third
/// occurrence among `keys` (the positions since the last zeroing move, the root
/// included), or the 50-move rule.
fn drawn_by_rule(child: &Board, keys: &[u64]) -> bool {
    if child.halfmove_clock() == 0 {
        return false;
    }
    let occurrences = keys.iter().filter(|&&k| k == child.hash()).count();
    occurrences >= 2 || (child.halfmove_clock() >= 100 && (!child.in_check() || child.has_legal_move()))
}

/// Ranks the `candidates` of `board` (whose game had the positions `history` before it)
/// by the tables; `rule50` is `Syzygy50MoveRule`. `None` when the tables do not cover the
/// root or a probe fails: the search then runs as without tables at the root.
pub(crate) fn filter_root(
    tables: &Tablebases,
    board: &Board,
    history: &[u64],
    candidates: &[Move],
    rule50: bool,
) -> Option<RootFilter> {
    if candidates.is_empty() || !tables.covers(board) {
        return None;
    }
    let cnt50 = i32::from(board.halfmove_clock());
    let since_zeroing = (cnt50 as usize).min(history.len());
    let mut keys: Vec<u64> = history[history.len() - since_zeroing..].to_vec();
    keys.push(board.hash());
    let repeated = keys.iter().enumerate().any(|(i, k)| keys[i + 1..].contains(k));
    let child = |mv: Move| {
        let mut child = *board;
        child.play(mv);
        child
    };

    let mut ranked: Vec<(Move, i32, i32)> = Vec::with_capacity(candidates.len());
    let mut probe_in_search = false;
    if let Some(root) = tables.probe_root(board) {
        let bound = if rule50 { MAX_DTZ - 100 } else { 1 };
        for m in root.moves.iter().filter(|m| candidates.contains(&m.mv)) {
            let dtz = if drawn_by_rule(&child(m.mv), &keys) {
                0
            } else {
                m.dtz
            };
            let rank = if dtz > 0 {
                if dtz + cnt50 <= 99 && !repeated {
                    MAX_DTZ
                } else {
                    MAX_DTZ - (dtz + cnt50)
                }
            } else if dtz < 0 {
                if -dtz * 2 + cnt50 < 100 {
                    -MAX_DTZ
                } else {
                    -MAX_DTZ + (-dtz + cnt50)
                }
            } else {
                0
            };
            let score = if rank >= bound {
                TB_WIN - 1
            } else if rank > 0 {
                (3.max(rank - (MAX_DTZ - 200)) * PAWN) / 200
            } else if rank == 0 {
                0
            } else if rank > -bound {
                ((-3).min(rank + (MAX_DTZ - 200)) * PAWN) / 200
            } else {
                -TB_WIN + 1
            };
            ranked.push((m.mv, rank, score));
        }
    } else {
        for &mv in candidates {
            let after = child(mv);
            let wdl = if drawn_by_rule(&after, &keys) {
                Wdl::Draw
            } else {
                tables.probe_wdl(&after)?.flip()
            };
            let rank = match wdl {
                Wdl::Loss => -MAX_DTZ,
                Wdl::BlessedLoss => -MAX_DTZ + 101,
                Wdl::Draw => 0,
                Wdl::CursedWin => MAX_DTZ - 101,
                Wdl::Win => MAX_DTZ,
            };
            let score = match wdl.outcome(rule50) {
                Wdl::Loss => -TB_WIN + 1,
                Wdl::BlessedLoss => -2,
                Wdl::Draw => 0,
                Wdl::CursedWin => 2,
                Wdl::Win => TB_WIN - 1,
            };
            ranked.push((mv, rank, score));
        }
        probe_in_search = ranked.iter().any(|&(_, _, score)| score > 0);
    }
    if ranked.len() != candidates.len() {
        return None;
    }
    let best = ranked.iter().map(|&(_, rank, _)| rank).max()?;
    Some(RootFilter {
        excluded: ranked
            .iter()
            .filter(|&&(_, rank, _)| rank < best)
            .map(|&(mv, _, _)| mv)
            .collect(),
        scores: ranked.iter().map(|&(mv, _, score)| (mv, score)).collect(),
        probes: ranked.len() as u64,
        probe_in_search,
    })
}
