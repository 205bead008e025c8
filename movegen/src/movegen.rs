//! Legal move generation from check and pin masks; nothing is made and tested.
//!
//! The generator hands out moves grouped by piece: a [`PieceMoves`] is one piece's origin
//! and the set of its legal destinations. Perft counts them with one popcount per piece
//! (bulk counting), the search expands them into a [`MoveList`]. Every move is legal by
//! construction:
//! - the king goes only to squares not attacked with the king itself removed from the
//!   occupancy (so it cannot step back along a checking ray);
//! - in double check only the king moves; in single check the other pieces may only capture
//!   the checker or block between it and the king;
//! - a pinned piece stays on the line through its king and itself;
//! - en passant is checked by removing both pawns from the occupancy and looking for a
//!   slider attack on the king (the rank-pin case), plus any check it does not answer;
//! - castling (standard, Chess960 and double Chess960) requires the king's and rook's paths
//!   to be empty but for themselves and the king's path, destination included, not to be
//!   attacked with both castling pieces lifted off the board.

use crate::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks,
};
use crate::bitboard::Bitboard;
use crate::board::{Board, CastleSide};
use crate::types::{Color, Move, PieceType, Rank, Square};

/// The legal moves of one piece: its origin and every destination.
///
/// A king's castling moves appear as destinations on its own rooks' squares; a pawn's
/// destinations on the last rank each stand for four promotions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PieceMoves {
    /// The kind of the moving piece.
    pub piece: PieceType,
    /// The square it moves from.
    pub from: Square,
    /// Every square it may move to (castling: its own rook's square).
    pub to: Bitboard,
}

impl PieceMoves {
    /// Number of moves, counting each promotion square as four moves.
    #[inline(always)]
    pub fn len(&self) -> usize {
        if self.piece == PieceType::Pawn {
            const PROMOTION_RANKS: u64 = 0xFF00_0000_0000_00FF;
            (self.to.len() + 3 * (self.to.0 & PROMOTION_RANKS).count_ones()) as usize
        } else {
            self.to.len() as usize
        }
    }

    /// Whether the piece has no legal move.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.to.is_empty()
    }
}

/// Iterator over the moves of a [`PieceMoves`], promotions expanded (queen first).
#[derive(Clone, Debug)]
pub struct PieceMovesIter {
    moves: PieceMoves,
    promotion: usize,
}

impl Iterator for PieceMovesIter {
    type Item = Move;
    #[inline]
    fn next(&mut self) -> Option<Move> {
        let to = self.moves.to.first()?;
        let is_promotion =
            self.moves.piece == PieceType::Pawn && (to.rank() == Rank::EIGHTH || to.rank() == Rank::FIRST);
        if is_promotion {
            let promotion = PieceType::PROMOTIONS[self.promotion];
            self.promotion += 1;
            if self.promotion == 4 {
                self.promotion = 0;
                self.moves.to ^= to;
            }
            Some(Move::new(self.moves.from, to, Some(promotion)))
        } else {
            self.moves.to ^= to;
            Some(Move::new(self.moves.from, to, None))
        }
    }
}

impl IntoIterator for PieceMoves {
    type Item = Move;
    type IntoIter = PieceMovesIter;
    fn into_iter(self) -> PieceMovesIter {
        PieceMovesIter {
            moves: self,
            promotion: 0,
        }
    }
}

/// A fixed-capacity list of moves. Reachable positions have at most 218 legal moves;
/// composed ones read with relaxed validation (64 pieces) stay far below the capacity.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MoveList::CAPACITY],
    len: usize,
}

impl MoveList {
    /// The most moves a list holds; [`MoveList::push`] ignores moves beyond it.
    pub const CAPACITY: usize = 512;

    /// An empty list.
    pub fn new() -> Self {
        MoveList {
            moves: [Move::NULL; MoveList::CAPACITY],
            len: 0,
        }
    }

    /// Appends `mv`; a full list (at [`MoveList::CAPACITY`]) drops it.
    #[inline]
    pub fn push(&mut self, mv: Move) {
        if self.len < Self::CAPACITY {
            self.moves[self.len] = mv;
            self.len += 1;
        }
    }

    /// The number of moves in the list.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list holds no move.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves, in the order they were pushed.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// The moves, mutably (to reorder them in place).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    /// Whether `mv` is in the list (a linear scan).
    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }
}

impl Default for MoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// Which moves a generation pass produces.
const ALL: u8 = 0;
/// Captures (en passant included) and promotions.
const NOISY: u8 = 1;
/// Everything else: non-capturing non-promotions, castling included.
const QUIET: u8 = 2;

impl Board {
    /// Calls `listener` with the legal moves of each piece that has any; stops early and
    /// returns `true` when the listener returns `true`.
    #[inline]
    pub fn generate_moves(&self, listener: impl FnMut(PieceMoves) -> bool) -> bool {
        self.generate::<ALL>(listener)
    }

    /// Like [`Board::generate_moves`], for captures and promotions only.
    #[inline]
    pub fn generate_noisy_moves(&self, listener: impl FnMut(PieceMoves) -> bool) -> bool {
        self.generate::<NOISY>(listener)
    }

    /// Like [`Board::generate_moves`], for quiet moves (no capture, no promotion) only.
    #[inline]
    pub fn generate_quiet_moves(&self, listener: impl FnMut(PieceMoves) -> bool) -> bool {
        self.generate::<QUIET>(listener)
    }

    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_moves(|pm| {
            pm.into_iter().for_each(|m| list.push(m));
            false
        });
        list
    }

    /// Legal captures and promotions.
    pub fn noisy_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_noisy_moves(|pm| {
            pm.into_iter().for_each(|m| list.push(m));
            false
        });
        list
    }

    /// Legal quiet moves.
    pub fn quiet_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_quiet_moves(|pm| {
            pm.into_iter().for_each(|m| list.push(m));
            false
        });
        list
    }

    /// The number of legal moves, counted set-wise: nothing is expanded and pawns that are
    /// not pinned are counted all at once with shifts. Perft's last ply is this function;
    /// the tree invariant tests check it against [`Board::legal_moves`] at every node.
    pub fn count_moves(&self) -> usize {
        match self.side_to_move {
            Color::White => self.count_moves_of::<true>(),
            Color::Black => self.count_moves_of::<false>(),
        }
    }

    /// [`Board::count_moves`] with the side to move fixed at compile time (`WHITE`), so every
    /// colour-relative shift, rank and table is a constant.
    #[inline(always)]
    fn count_moves_of<const WHITE: bool>(&self) -> usize {
        let us = if WHITE { Color::White } else { Color::Black };
        let them = !us;
        let ours = self.colors[us.index()];
        let theirs = self.colors[them.index()];
        let occupied = ours | theirs;
        let king = self.king(us);

        // King steps and castling.
        let danger = self.leaper_attacks(them);
        let mut count = self
            .safe_king_steps(king, king_attacks(king) & !ours, occupied, danger)
            .len() as usize;
        if self.checkers.has_many() {
            return count;
        }
        let check_mask = match self.checkers.first() {
            Some(checker) => between(king, checker) | checker,
            None => {
                count += self.castling_destinations(king, occupied, danger).len() as usize;
                Bitboard::FULL
            }
        };
        let target = !ours & check_mask;
        let pinned = self.pinned;

        // Knights, then sliders by direction (a queen counts in both loops).
        for from in self.pieces[PieceType::Knight.index()] & ours & !pinned {
            count += (knight_attacks(from) & target).len() as usize;
        }
        let queens = self.pieces[PieceType::Queen.index()];
        for from in (self.pieces[PieceType::Bishop.index()] | queens) & ours {
            let mut to = bishop_attacks(from, occupied) & target;
            if pinned.has(from) {
                to &= line(king, from);
            }
            count += to.len() as usize;
        }
        for from in (self.pieces[PieceType::Rook.index()] | queens) & ours {
            let mut to = rook_attacks(from, occupied) & target;
            if pinned.has(from) {
                to &= line(king, from);
            }
            count += to.len() as usize;
        }

        // Pawns not pinned, all at once; promotions count four times.
        let promotion_rank = Bitboard::rank(Rank::EIGHTH.relative_to(us));
        let third_rank = Bitboard::rank(Rank::THIRD.relative_to(us));
        let empty = !occupied;
        let pawns = self.pieces[PieceType::Pawn.index()] & ours;
        let free = pawns & !pinned;
        let single = free.forward(us) & empty;
        let double = (single & third_rank).forward(us) & empty & check_mask;
        let single = single & check_mask;
        let captures = |b: Bitboard| b & theirs & check_mask;
        const NOT_A: Bitboard = Bitboard(!0x0101_0101_0101_0101);
        const NOT_H: Bitboard = Bitboard(!0x8080_8080_8080_8080);
        let west = captures((free & NOT_A).forward(us) >> 1);
        let east = captures((free & NOT_H).forward(us) << 1);
        let with_promotions = |b: Bitboard| (b.len() + 3 * (b & promotion_rank).len()) as usize;
        count +=
            with_promotions(single) + double.len() as usize + with_promotions(west) + with_promotions(east);

        // Pinned pawns one by one, along their pin lines.
        for from in pawns & pinned {
            let from_bb = Bitboard::from_square(from);
            let single = from_bb.forward(us) & empty;
            let double = (single & third_rank).forward(us) & empty;
            let to = ((single | double) | (pawn_attacks(us, from) & theirs)) & check_mask & line(king, from);
            count += with_promotions(to);
        }

        // En passant, checked capture by capture.
        if let Some(ep) = self.en_passant {
            for from in pawn_attacks(them, ep) & pawns {
                count += usize::from(self.en_passant_legal_from(from, ep));
            }
        }
        count
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        self.generate_moves(|_| true)
    }

    /// Whether `mv` is legal here (any move value, including garbage, is safe to ask about).
    pub fn is_legal(&self, mv: Move) -> bool {
        let from = mv.from();
        let mut legal = false;
        self.generate_moves(|pm| {
            if pm.from != from {
                return false;
            }
            if pm.to.has(mv.to()) {
                let promotes =
                    pm.piece == PieceType::Pawn && matches!(mv.to().rank(), Rank::FIRST | Rank::EIGHTH);
                legal = match mv.promotion() {
                    Some(p) => promotes && p != PieceType::Pawn && p != PieceType::King,
                    None => !promotes,
                };
            }
            true
        });
        legal
    }

    #[inline(always)]
    fn generate<const KIND: u8>(&self, mut listener: impl FnMut(PieceMoves) -> bool) -> bool {
        let us = self.side_to_move;
        let them = !us;
        let ours = self.colors[us.index()];
        let theirs = self.colors[them.index()];
        let occupied = ours | theirs;
        let king = self.king(us);

        // Destinations allowed by the kind of pass, for pieces other than pawns.
        let kind_mask = match KIND {
            NOISY => theirs,
            QUIET => !occupied,
            _ => !ours,
        };

        // King moves: each destination must be safe with the king lifted off the board.
        let danger = self.leaper_attacks(them);
        let mut king_to = self.safe_king_steps(king, king_attacks(king) & kind_mask, occupied, danger);
        if KIND != NOISY && self.checkers.is_empty() {
            king_to |= self.castling_destinations(king, occupied, danger);
        }
        if king_to.is_nonempty()
            && listener(PieceMoves {
                piece: PieceType::King,
                from: king,
                to: king_to,
            })
        {
            return true;
        }

        // In double check only the king may move.
        if self.checkers.has_many() {
            return false;
        }
        // In single check the other pieces must capture the checker or block.
        let check_mask = match self.checkers.first() {
            Some(checker) => between(king, checker) | checker,
            None => Bitboard::FULL,
        };
        let target = kind_mask & check_mask;
        let pinned = self.pinned;

        // Knights: a pinned knight never moves.
        for from in self.pieces[PieceType::Knight.index()] & ours & !pinned {
            let to = knight_attacks(from) & target;
            if to.is_nonempty()
                && listener(PieceMoves {
                    piece: PieceType::Knight,
                    from,
                    to,
                })
            {
                return true;
            }
        }

        // Sliders: a pinned slider stays on its pin line.
        let queens = self.pieces[PieceType::Queen.index()];
        for (kind, pieces) in [
            (PieceType::Bishop, self.pieces[PieceType::Bishop.index()]),
            (PieceType::Rook, self.pieces[PieceType::Rook.index()]),
        ] {
            for from in pieces & ours {
                let mut to = match kind {
                    PieceType::Bishop => bishop_attacks(from, occupied),
                    _ => rook_attacks(from, occupied),
                } & target;
                if pinned.has(from) {
                    to &= line(king, from);
                }
                if to.is_nonempty()
                    && listener(PieceMoves {
                        piece: kind,
                        from,
                        to,
                    })
                {
                    return true;
                }
            }
        }
        for from in queens & ours {
            let mut to = (bishop_attacks(from, occupied) | rook_attacks(from, occupied)) & target;
            if pinned.has(from) {
                to &= line(king, from);
            }
            if to.is_nonempty()
                && listener(PieceMoves {
                    piece: PieceType::Queen,
                    from,
                    to,
                })
            {
                return true;
            }
        }

        // Pawns: pushes, double pushes, captures, promotions and en passant.
        let promotion_rank = Bitboard::rank(Rank::EIGHTH.relative_to(us));
        let double_push_rank = Bitboard::rank(Rank::FOURTH.relative_to(us));
        let empty = !occupied;
        let pawn_target = match KIND {
            NOISY => (theirs | (promotion_rank & empty)) & check_mask,
            QUIET => empty & !promotion_rank & check_mask,
            _ => !ours & check_mask,
        };
        for from in self.pieces[PieceType::Pawn.index()] & ours {
            let from_bb = Bitboard::from_square(from);
            let single = from_bb.forward(us) & empty;
            let double = single.forward(us) & empty & double_push_rank;
            let mut to = ((single | double) | (pawn_attacks(us, from) & theirs)) & pawn_target;
            if KIND != QUIET {
                if let Some(ep) = self.en_passant {
                    if pawn_attacks(us, from).has(ep) && self.en_passant_legal_from(from, ep) {
                        to |= ep;
                    }
                }
            }
            if pinned.has(from) {
                to &= line(king, from);
            }
            if to.is_nonempty()
                && listener(PieceMoves {
                    piece: PieceType::Pawn,
                    from,
                    to,
                })
            {
                return true;
            }
        }
        false
    }

    /// The squares of `steps` (next to the side to move's king on `king`) that no enemy
    /// piece attacks once the king has left `king`; `danger` is the enemy's
    /// [`Board::leaper_attacks`].
    #[inline(always)]
    fn safe_king_steps(
        &self,
        king: Square,
        steps: Bitboard,
        occupied: Bitboard,
        danger: Bitboard,
    ) -> Bitboard {
        let them = !self.side_to_move;
        let mut safe = steps & !danger;
        let occupied = occupied ^ king;
        for to in safe {
            if self.slider_attacks_square(to, them, occupied) {
                safe ^= to;
            }
        }
        safe
    }

    /// Castling destinations (the castling rooks' squares) open to the king on `king`.
    ///
    /// The squares that must be empty and the king's path come from [`CASTLING_PATHS`] by
    /// the king's and the rook's files (castling rights exist only with both on their first
    /// rank), so the only work per node is one occupancy test, one test of the path against
    /// `danger` (the enemy's [`Board::leaper_attacks`]) and the slider tests of the king's
    /// path with both castling pieces lifted.
    #[inline(always)]
    fn castling_destinations(&self, king: Square, occupied: Bitboard, danger: Bitboard) -> Bitboard {
        let us = self.side_to_move;
        let mut result = Bitboard::EMPTY;
        let shift = 8 * Rank::FIRST.relative_to(us).index() as u32;
        for side in CastleSide::ALL {
            let Some(rook_file) = self.castling.get(us, side) else {
                continue;
            };
            let paths = CASTLING_PATHS[side as usize][king.file().index()][rook_file.index()];
            if occupied.0 & (u64::from(paths.empty) << shift) != 0 {
                continue;
            }
            let rook = Square::from_coords(rook_file, Rank::FIRST.relative_to(us));
            debug_assert!(
                king.rank() == Rank::FIRST.relative_to(us)
                    && self.colored_pieces(us, PieceType::Rook).has(rook),
                "a castling right without its king and rook on the first rank: {self}"
            );
            let others = occupied ^ king ^ rook;
            let king_path = Bitboard(u64::from(paths.king_path) << shift);
            if (king_path & danger).is_empty() && !self.sliders_attack_any(king_path, !us, others) {
                result |= rook;
            }
        }
        result
    }

    /// Whether an enemy slider attacks any square of `squares` (see
    /// [`Board::slider_attacks_square`]). Kept out of line: castling reaches it only when a
    /// path is empty and free of leaper attacks.
    #[inline(never)]
    fn sliders_attack_any(&self, squares: Bitboard, by: Color, occupied: Bitboard) -> bool {
        squares
            .into_iter()
            .any(|sq| self.slider_attacks_square(sq, by, occupied))
    }
}

/// The first-rank squares of one castling move as file masks (bit `f` for file `f`):
/// `empty`, the squares the king and rook pass over or land on other than their own, which
/// must hold no piece; `king_path`, the king's squares after its own, destination included
/// (the king's own square when it does not move), which must not be attacked.
#[derive(Clone, Copy)]
struct CastlingPaths {
    empty: u8,
    king_path: u8,
}

/// [`CastlingPaths`] by side ([`CastleSide`] as index), king file and rook file, for standard
/// chess and Chess960 alike.
static CASTLING_PATHS: [[[CastlingPaths; 8]; 8]; 2] = {
    /// Files from `a` to `b`, both included, as a file mask.
    const fn span(a: usize, b: usize) -> u8 {
        let (low, high) = if a < b { (a, b) } else { (b, a) };
        ((1u16 << (high + 1)) - (1u16 << low)) as u8
    }
    let mut table = [[[CastlingPaths {
        empty: 0,
        king_path: 0,
    }; 8]; 8]; 2];
    let mut side = 0;
    while side < 2 {
        // King to g and rook to f on the king side, king to c and rook to d on the queen side.
        let (king_to, rook_to) = if side == 0 { (6, 5) } else { (2, 3) };
        let mut king = 0;
        while king < 8 {
            let mut rook = 0;
            while rook < 8 {
                let both = (1u8 << king) | (1u8 << rook);
                let king_path = span(king, king_to) & !(1u8 << king) | (1u8 << king_to);
                table[side][king][rook] = CastlingPaths {
                    empty: (span(king, king_to) | span(rook, rook_to)) & !both,
                    king_path,
                };
                rook += 1;
            }
            king += 1;
        }
        side += 1;
    }
    table
};
