//! Move-ordering memory of one search thread: quiet history (by side, whether the from and
//! the to square are attacked by the opponent, from, to: "threat-aware" butterfly history,
//! so a move that escapes an attack and one that walks into one learn apart), capture
//! history (by moving piece, destination, captured piece), continuation history (by the
//! piece and destination of the move one and two plies earlier, and the current move),
//! killer moves per ply and counter moves. Updates use the "gravity" formula
//! `h += bonus - h·|bonus| / MAX`, which keeps every value inside ±MAX without clamping.

use crate::correction::Correction;
use crate::memory::{try_vec, ZeroedTable};
use crate::params::{history_bonus_max, history_bonus_mul, history_bonus_offset, history_max, MAX_PLY};
use movegen::{Bitboard, Board, Color, Move, Piece, PieceType, Square};

/// A piece and the square it moved to: the key of continuation history and counter moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PieceTo(u16);

impl PieceTo {
    pub const NONE: PieceTo = PieceTo(u16::MAX);
    /// How many distinct values there are (12 pieces x 64 squares).
    pub const COUNT: usize = PIECE_TO;
    pub fn new(piece: Piece, to: Square) -> Self {
        PieceTo(((piece.color as usize * 6 + piece.kind.index()) * 64 + to.index()) as u16)
    }
    /// The side to move's piece on `mv`'s from-square and `mv`'s destination (for castling,
    /// encoded as the king taking its own rook, the rook's square), on `board`, before `mv`
    /// is played.
    pub fn of_move(board: &Board, mv: Move) -> Self {
        let kind = board.piece_type_on(mv.from()).unwrap_or(PieceType::Pawn);
        PieceTo::new(Piece::new(board.side_to_move(), kind), mv.to())
    }
    pub fn index(self) -> Option<usize> {
        (self.0 != u16::MAX).then_some(self.0 as usize)
    }
}

const PIECE_TO: usize = 12 * 64;

pub struct History {
    quiet: ZeroedTable<i16>,
    capture: ZeroedTable<i16>,
    continuation: ZeroedTable<i16>,
    pub killers: [[Move; 2]; MAX_PLY + 2],
    counters: Vec<Move>,
    /// Static evaluation corrections (see `correction`).
    pub correction: Correction,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("History")
    }
}

impl Default for History {
    fn default() -> Self {
        match History::try_new() {
            Ok(history) => history,
            Err(e) => panic!("cannot allocate a search thread's histories: {e}"),
        }
    }
}

fn gravity(entry: &mut i16, bonus: i32) {
    let value = i32::from(*entry);
    let max = history_max();
    let bonus = bonus.clamp(-max, max);
    *entry = (value + bonus - value * bonus.abs() / max) as i16;
}

/// The history bonus for a cutoff at `depth`.
pub fn bonus(depth: i32) -> i32 {
    (history_bonus_mul() * depth - history_bonus_offset()).clamp(0, history_bonus_max())
}

impl History {
    /// Empty histories, or the allocator's refusal (`crate::memory`).
    pub fn try_new() -> Result<History, std::collections::TryReserveError> {
        Ok(History {
            quiet: ZeroedTable::new(2 * 4 * 64 * 64)?,
            capture: ZeroedTable::new(6 * 64 * 6)?,
            continuation: ZeroedTable::new(PIECE_TO * PIECE_TO)?,
            killers: [[Move::NULL; 2]; MAX_PLY + 2],
            counters: try_vec(PIECE_TO, Move::NULL)?,
            correction: Correction::try_new()?,
        })
    }

    /// Empties every table in place (a new game allocates nothing).
    pub fn clear(&mut self) {
        self.quiet.fill(0);
        self.capture.fill(0);
        self.continuation.fill(0);
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
        self.counters.fill(Move::NULL);
        self.correction.clear();
    }

    /// `threats`: the squares the opponent attacks (`Board::attacks_by`).
    fn quiet_index(color: Color, mv: Move, threats: Bitboard) -> usize {
        let bucket = 2 * usize::from(threats.has(mv.from())) + usize::from(threats.has(mv.to()));
        ((color.index() * 4 + bucket) * 64 + mv.from().index()) * 64 + mv.to().index()
    }

    fn capture_index(moving: PieceType, to: Square, captured: PieceType) -> usize {
        (moving.index() * 64 + to.index()) * 6 + captured.index()
    }

    /// Quiet score: main history (under the opponent's attacks `threats`) plus the
    /// continuation histories of the last two plies.
    pub fn quiet_score(
        &self,
        color: Color,
        mv: Move,
        current: PieceTo,
        previous: [PieceTo; 2],
        threats: Bitboard,
    ) -> i32 {
        let mut score = i32::from(self.quiet[Self::quiet_index(color, mv, threats)]);
        if let Some(cur) = current.index() {
            for prev in previous.iter().filter_map(|p| p.index()) {
                score += i32::from(self.continuation[prev * PIECE_TO + cur]);
            }
        }
        score
    }

    pub fn capture_score(&self, moving: PieceType, to: Square, captured: PieceType) -> i32 {
        i32::from(self.capture[Self::capture_index(moving, to, captured)])
    }

    pub fn update_quiet(
        &mut self,
        color: Color,
        mv: Move,
        current: PieceTo,
        previous: [PieceTo; 2],
        threats: Bitboard,
        bonus: i32,
    ) {
        gravity(&mut self.quiet[Self::quiet_index(color, mv, threats)], bonus);
        if let Some(cur) = current.index() {
            for prev in previous.iter().filter_map(|p| p.index()) {
                gravity(&mut self.continuation[prev * PIECE_TO + cur], bonus);
            }
        }
    }

    pub fn update_capture(&mut self, moving: PieceType, to: Square, captured: PieceType, bonus: i32) {
        gravity(
            &mut self.capture[Self::capture_index(moving, to, captured)],
            bonus,
        );
    }

    pub fn add_killer(&mut self, ply: usize, mv: Move) {
        let killers = &mut self.killers[ply];
        if killers[0] != mv {
            killers[1] = killers[0];
            killers[0] = mv;
        }
    }

    pub fn counter(&self, previous: PieceTo) -> Move {
        previous.index().map_or(Move::NULL, |i| self.counters[i])
    }

    pub fn set_counter(&mut self, previous: PieceTo, mv: Move) {
        if let Some(i) = previous.index() {
            self.counters[i] = mv;
        }
    }
}
