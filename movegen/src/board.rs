//! The board: a small `Copy` value holding piece and colour bitboards, a mailbox (the piece
//! type on each square, so [`Board::piece_type_on`] is one load), the side to move,
//! castling rights (with their rook files, so Chess960 needs nothing extra), the en passant
//! square, the clocks, the Zobrist key, and the checkers and pinned pieces of the side to
//! move. Search and perft copy-make: `play` updates a copy incrementally, key included, and
//! recomputes checkers and pins once, which is all legal move generation needs.
//!
//! The en passant square is stored (and keyed) only when an en passant capture is legal, so
//! two positions that differ only by a useless en passant square compare and hash equal, as
//! the repetition rule demands.

use crate::attacks::{
    between, bishop_attacks, bishop_rays, king_attacks, knight_attacks, pawn_attacks, rook_attacks, rook_rays,
};
use crate::bitboard::Bitboard;
use crate::types::{Color, File, Move, Piece, PieceType, Rank, Square};
use crate::zobrist;

/// Which way a castling move goes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CastleSide {
    /// Toward the h-file: king to g, rook to f (`O-O`).
    King = 0,
    /// Toward the a-file: king to c, rook to d (`O-O-O`).
    Queen = 1,
}

impl CastleSide {
    /// Both sides, king side first.
    pub const ALL: [CastleSide; 2] = [CastleSide::King, CastleSide::Queen];

    /// Where the king ends up, as a file.
    pub const fn king_destination(self) -> File {
        match self {
            CastleSide::King => File::G,
            CastleSide::Queen => File::C,
        }
    }

    /// Where the rook ends up, as a file.
    pub const fn rook_destination(self) -> File {
        match self {
            CastleSide::King => File::F,
            CastleSide::Queen => File::D,
        }
    }

    /// The side of a castling move, which Luft writes as the king taking its own rook
    /// (standard chess and Chess960 alike): king side when the rook stands on a higher file.
    pub fn of_castling(mv: Move) -> CastleSide {
        if mv.to().file() > mv.from().file() {
            CastleSide::King
        } else {
            CastleSide::Queen
        }
    }

    /// The squares `color`'s king and rook end on when castling on this side: (king, rook).
    /// The one definition move generation, making moves, notation and the NNUE accumulator
    /// share.
    pub fn destinations(self, color: Color) -> (Square, Square) {
        let back = Rank::FIRST.relative_to(color);
        (
            Square::from_coords(self.king_destination(), back),
            Square::from_coords(self.rook_destination(), back),
        )
    }
}

/// Castling rights: for each colour and side, the file of the rook that may still castle.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CastlingRights {
    rooks: [[Option<File>; 2]; 2],
}

impl CastlingRights {
    /// No castling right at all.
    pub const NONE: CastlingRights = CastlingRights {
        rooks: [[None; 2]; 2],
    };

    /// The file of the rook `color` may still castle with on `side`, or `None` when that
    /// right is gone.
    #[inline]
    pub const fn get(&self, color: Color, side: CastleSide) -> Option<File> {
        self.rooks[color as usize][side as usize]
    }

    /// Gives `color` the right to castle on `side` with the rook on `rook_file`, or takes the
    /// right away with `None`. Only the rights change: the caller keeps the board consistent.
    #[inline]
    pub fn set(&mut self, color: Color, side: CastleSide, rook_file: Option<File>) {
        self.rooks[color.index()][side as usize] = rook_file;
    }

    /// Whether neither side may castle on either side.
    #[inline]
    pub fn is_empty(&self) -> bool {
        *self == CastlingRights::NONE
    }

    /// The XOR of the keys of every right held.
    pub(crate) fn hash(&self) -> u64 {
        let mut h = 0;
        for color in Color::ALL {
            for side in CastleSide::ALL {
                if let Some(file) = self.get(color, side) {
                    h ^= zobrist::castling(color, side as usize, file);
                }
            }
        }
        h
    }
}

/// The piece type on each square, indexed by [`Square::index`], `None` where empty: one byte
/// a square (`Option<PieceType>` uses the free values of the type's byte for `None`). It
/// only ever mirrors the bitboards: [`Board::put`] and [`Board::remove`] change both.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mailbox([Option<PieceType>; 64]);

const _: () = assert!(std::mem::size_of::<Mailbox>() == 64, "one byte a square");

impl Mailbox {
    const EMPTY: Mailbox = Mailbox([None; 64]);

    #[inline(always)]
    fn get(&self, sq: Square) -> Option<PieceType> {
        self.0[sq.index()]
    }

    #[inline(always)]
    fn set(&mut self, sq: Square, kind: Option<PieceType>) {
        self.0[sq.index()] = kind;
    }
}

/// Eight ranks, the eighth first, as piece-type letters with `.` for an empty square:
/// `"rnbqkbnr/pppppppp/......../..."` (no colours: the bitboards hold those).
impl std::fmt::Debug for Mailbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = String::with_capacity(71);
        for rank in (0..8u8).rev() {
            for file in 0..8u8 {
                let sq = Square::from_coords(File::new(file), Rank::new(rank));
                text.push(self.get(sq).map_or('.', PieceType::to_char));
            }
            if rank > 0 {
                text.push('/');
            }
        }
        write!(f, "{text:?}")
    }
}

/// A chess position. See the module documentation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Board {
    pub(crate) pieces: [Bitboard; 6],
    pub(crate) colors: [Bitboard; 2],
    pub(crate) checkers: Bitboard,
    pub(crate) pinned: Bitboard,
    pub(crate) hash: u64,
    pub(crate) castling: CastlingRights,
    pub(crate) en_passant: Option<Square>,
    pub(crate) side_to_move: Color,
    pub(crate) halfmove_clock: u16,
    pub(crate) fullmove_number: u16,
    /// The piece types of `pieces` square by square (always in step with the bitboards).
    pub(crate) mailbox: Mailbox,
}

impl Default for Board {
    fn default() -> Self {
        Board::startpos()
    }
}

impl Board {
    /// The standard starting position.
    pub fn startpos() -> Board {
        Board::from_fen(crate::fen::STARTPOS_FEN).expect("the start position FEN is valid")
    }

    /// An empty board (no pieces), White to move. Used while building positions.
    pub(crate) fn empty() -> Board {
        Board {
            pieces: [Bitboard::EMPTY; 6],
            colors: [Bitboard::EMPTY; 2],
            checkers: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            hash: 0,
            castling: CastlingRights::NONE,
            en_passant: None,
            side_to_move: Color::White,
            halfmove_clock: 0,
            fullmove_number: 1,
            mailbox: Mailbox::EMPTY,
        }
    }

    // ----- Accessors ---------------------------------------------------------------------

    /// The side whose turn it is.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// Every occupied square, both colours.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    /// All pieces of `color`.
    #[inline]
    pub fn colored(&self, color: Color) -> Bitboard {
        self.colors[color.index()]
    }

    /// All pieces of type `kind`, both colours.
    #[inline]
    pub fn pieces(&self, kind: PieceType) -> Bitboard {
        self.pieces[kind.index()]
    }

    /// Pieces of `color` and `kind`.
    #[inline]
    pub fn colored_pieces(&self, color: Color, kind: PieceType) -> Bitboard {
        self.pieces[kind.index()] & self.colors[color.index()]
    }

    /// Pieces of the side to move that are pinned to their king.
    #[inline]
    pub fn pinned(&self) -> Bitboard {
        self.pinned
    }

    /// Enemy pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.checkers.is_nonempty()
    }

    /// The Zobrist key of the position.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The castling rights still held (rook files, for standard chess and Chess960 alike).
    #[inline]
    pub fn castling_rights(&self) -> CastlingRights {
        self.castling
    }

    /// The en passant target square, present only when an en passant capture is legal.
    #[inline]
    pub fn en_passant(&self) -> Option<Square> {
        self.en_passant
    }

    /// Plies since the last capture or pawn move.
    #[inline]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove_clock
    }

    /// The full-move number: 1 at the start, incremented after each Black move.
    #[inline]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove_number
    }

    /// The square of `color`'s king.
    #[inline]
    pub fn king(&self, color: Color) -> Square {
        self.colored_pieces(color, PieceType::King).lsb()
    }

    /// The piece type on `sq`, if any (one load from the mailbox).
    #[inline]
    pub fn piece_type_on(&self, sq: Square) -> Option<PieceType> {
        self.mailbox.get(sq)
    }

    /// The colour of the piece on `sq`, if any.
    #[inline]
    pub fn color_on(&self, sq: Square) -> Option<Color> {
        if self.colors[0].has(sq) {
            Some(Color::White)
        } else if self.colors[1].has(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        let kind = self.piece_type_on(sq)?;
        let color = if self.colors[0].has(sq) {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece::new(color, kind))
    }

    /// The first square (in index order) where the mailbox disagrees with the bitboards, or
    /// `None` when they agree everywhere: each occupied square in exactly one colour and one
    /// piece-type bitboard and that type in the mailbox, each empty square in no bitboard and
    /// `None` in the mailbox. For tests and debug assertions (64 squares: not for hot paths).
    pub fn mailbox_mismatch(&self) -> Option<Square> {
        Square::all().find(|&sq| {
            let mut kinds = PieceType::ALL
                .into_iter()
                .filter(|&k| self.pieces[k.index()].has(sq));
            let kind = kinds.next();
            let colours = usize::from(self.colors[0].has(sq)) + usize::from(self.colors[1].has(sq));
            let coherent = kinds.next().is_none() && colours == usize::from(kind.is_some());
            !coherent || self.mailbox.get(sq) != kind
        })
    }

    /// Pieces of `by` that attack `sq` with the given occupancy: those of
    /// [`Board::all_attackers_to`] of that colour.
    #[inline]
    pub fn attackers_to(&self, sq: Square, by: Color, occupied: Bitboard) -> Bitboard {
        self.all_attackers_to(sq, occupied) & self.colors[by.index()]
    }

    /// Pieces of either colour that attack `sq` with the given occupancy (a pawn by its own
    /// colour's capture direction), each slider lookup made once: what SEE reads.
    #[inline]
    pub fn all_attackers_to(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        let diagonal = self.pieces[PieceType::Bishop.index()] | self.pieces[PieceType::Queen.index()];
        let orthogonal = self.pieces[PieceType::Rook.index()] | self.pieces[PieceType::Queen.index()];
        let pawns = self.pieces[PieceType::Pawn.index()];
        (knight_attacks(sq) & self.pieces[PieceType::Knight.index()])
            | (king_attacks(sq) & self.pieces[PieceType::King.index()])
            | (pawn_attacks(Color::Black, sq) & pawns & self.colors[Color::White.index()])
            | (pawn_attacks(Color::White, sq) & pawns & self.colors[Color::Black.index()])
            | (bishop_attacks(sq, occupied) & diagonal)
            | (rook_attacks(sq, occupied) & orthogonal)
    }

    /// Every square a piece of `by` attacks on this board (its own pieces' squares
    /// included when defended): the "threats" against the other side, as move-ordering
    /// histories key quiet moves by whether they leave or enter an attacked square. Pawns
    /// attack diagonally forward; sliders see through nothing.
    pub fn attacks_by(&self, by: Color) -> Bitboard {
        let occupied = self.occupied();
        let theirs = self.colors[by.index()];
        let mut attacks = self.leaper_attacks(by);
        let queens = self.pieces[PieceType::Queen.index()];
        for sq in theirs & (self.pieces[PieceType::Bishop.index()] | queens) {
            attacks |= bishop_attacks(sq, occupied);
        }
        for sq in theirs & (self.pieces[PieceType::Rook.index()] | queens) {
            attacks |= rook_attacks(sq, occupied);
        }
        attacks
    }

    /// Every square `by`'s pawns, knights and king attack (pawns set-wise by shifts, each
    /// knight and the king by table): the part of the enemy's attacks that no occupancy
    /// changes, shared by the king's steps, castling, [`Board::attacks_by`] and
    /// [`Board::is_attacked`].
    #[inline(always)]
    pub(crate) fn leaper_attacks(&self, by: Color) -> Bitboard {
        let theirs = self.colors[by.index()];
        let mut attacks =
            (self.pieces[PieceType::Pawn.index()] & theirs).pawn_attacks(by) | king_attacks(self.king(by));
        for knight in self.pieces[PieceType::Knight.index()] & theirs {
            attacks |= knight_attacks(knight);
        }
        attacks
    }

    /// Whether an enemy slider (`by`'s) attacks `sq` with `occupied` as the occupancy; the
    /// table lookup only when one stands on an empty-board ray of `sq`.
    #[inline(always)]
    pub(crate) fn slider_attacks_square(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        let theirs = self.colors[by.index()];
        let queens = self.pieces[PieceType::Queen.index()];
        let diagonal = (self.pieces[PieceType::Bishop.index()] | queens) & theirs;
        let orthogonal = (self.pieces[PieceType::Rook.index()] | queens) & theirs;
        ((bishop_rays(sq) & diagonal).is_nonempty()
            && (bishop_attacks(sq, occupied) & diagonal).is_nonempty())
            || ((rook_rays(sq) & orthogonal).is_nonempty()
                && (rook_attacks(sq, occupied) & orthogonal).is_nonempty())
    }

    /// Whether `by` attacks `sq` with the given occupancy (cheap checks first: leapers, then
    /// a slider lookup only when an enemy slider stands on an empty-board ray of `sq`).
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        let theirs = self.colors[by.index()];
        ((knight_attacks(sq) & self.pieces[PieceType::Knight.index()])
            | (king_attacks(sq) & self.pieces[PieceType::King.index()])
            | (pawn_attacks(!by, sq) & self.pieces[PieceType::Pawn.index()]))
            & theirs
            != Bitboard::EMPTY
            || self.slider_attacks_square(sq, by, occupied)
    }

    // ----- Building and maintaining state ------------------------------------------------

    /// Puts a `color` `kind` on the empty square `sq`, updating bitboards, mailbox and key.
    #[inline(always)]
    pub(crate) fn put(&mut self, color: Color, kind: PieceType, sq: Square) {
        debug_assert_eq!(self.mailbox.get(sq), None, "put onto occupied {sq}");
        self.pieces[kind.index()] ^= sq;
        self.colors[color.index()] ^= sq;
        self.mailbox.set(sq, Some(kind));
        self.hash ^= zobrist::piece(Piece::new(color, kind), sq);
    }

    /// Takes the `color` `kind` standing on `sq` off the board, updating bitboards, mailbox
    /// and key.
    #[inline(always)]
    pub(crate) fn remove(&mut self, color: Color, kind: PieceType, sq: Square) {
        debug_assert_eq!(self.mailbox.get(sq), Some(kind), "remove from {sq}");
        self.pieces[kind.index()] ^= sq;
        self.colors[color.index()] ^= sq;
        self.mailbox.set(sq, None);
        self.hash ^= zobrist::piece(Piece::new(color, kind), sq);
    }

    /// Recomputes checkers and pinned pieces for the side to move.
    #[inline]
    pub(crate) fn update_checks_and_pins(&mut self) {
        let us = self.side_to_move;
        let them = !us;
        let king = self.king(us);
        let theirs = self.colors[them.index()];
        let occupied = self.occupied();
        let queens = self.pieces[PieceType::Queen.index()];

        let mut checkers = ((knight_attacks(king) & self.pieces[PieceType::Knight.index()])
            | (pawn_attacks(us, king) & self.pieces[PieceType::Pawn.index()]))
            & theirs;
        let snipers = ((bishop_rays(king) & (self.pieces[PieceType::Bishop.index()] | queens))
            | (rook_rays(king) & (self.pieces[PieceType::Rook.index()] | queens)))
            & theirs;
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = between(king, sniper) & occupied;
            if blockers.is_empty() {
                checkers |= sniper;
            } else if !blockers.has_many() {
                pinned |= blockers;
            }
        }
        self.checkers = checkers;
        self.pinned = pinned & self.colors[us.index()];
    }

    /// The key computed from scratch (the incremental key must always equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for color in Color::ALL {
            for kind in PieceType::ALL {
                for sq in self.colored_pieces(color, kind) {
                    h ^= zobrist::piece(Piece::new(color, kind), sq);
                }
            }
        }
        if self.side_to_move == Color::Black {
            h ^= zobrist::side_to_move();
        }
        h ^= self.castling.hash();
        if let Some(ep) = self.en_passant {
            h ^= zobrist::en_passant(ep.file());
        }
        h
    }

    /// Whether the side to move could legally capture en passant onto `target` (the square
    /// the enemy pawn skipped). Checkers and pins must be up to date.
    pub(crate) fn en_passant_capture_legal(&self, target: Square) -> bool {
        let us = self.side_to_move;
        let capturers = pawn_attacks(!us, target) & self.colored_pieces(us, PieceType::Pawn);
        capturers
            .into_iter()
            .any(|from| self.en_passant_legal_from(from, target))
    }

    /// Whether the pawn on `from` may capture en passant onto `target`: after removing both
    /// pawns and placing ours on `target`, our king must not be attacked. This covers pins
    /// along the rank (both pawns leave it), diagonal pins and discovered checks alike.
    #[inline]
    pub(crate) fn en_passant_legal_from(&self, from: Square, target: Square) -> bool {
        let us = self.side_to_move;
        let them = !us;
        let victim = Square::from_coords(target.file(), from.rank());
        let king = self.king(us);
        let occupied = (self.occupied() ^ from ^ victim) | target;
        let theirs = self.colors[them.index()];
        let queens = self.pieces[PieceType::Queen.index()];
        // A checker that is neither a slider nor the victim cannot be answered by this move.
        let other_checkers = self.checkers & !Bitboard::from_square(victim);
        let leaper_checkers =
            other_checkers & (self.pieces[PieceType::Knight.index()] | self.pieces[PieceType::Pawn.index()]);
        if leaper_checkers.is_nonempty() {
            return false;
        }
        (bishop_attacks(king, occupied) & (self.pieces[PieceType::Bishop.index()] | queens) & theirs)
            .is_empty()
            && (rook_attacks(king, occupied) & (self.pieces[PieceType::Rook.index()] | queens) & theirs)
                .is_empty()
    }

    /// The rook square of `color`'s castling right on `side`, if held.
    #[inline]
    pub fn castling_rook(&self, color: Color, side: CastleSide) -> Option<Square> {
        self.castling
            .get(color, side)
            .map(|file| Square::from_coords(file, Rank::FIRST.relative_to(color)))
    }

    // ----- Making moves ------------------------------------------------------------------

    /// Whether `mv` (which must be legal) is a castling move.
    #[inline]
    pub fn is_castling(&self, mv: Move) -> bool {
        self.colored_pieces(self.side_to_move, PieceType::King)
            .has(mv.from())
            && self.colors[self.side_to_move.index()].has(mv.to())
    }

    /// Whether `mv` (which must be legal) is an en passant capture.
    #[inline]
    pub fn is_en_passant(&self, mv: Move) -> bool {
        Some(mv.to()) == self.en_passant && self.pieces[PieceType::Pawn.index()].has(mv.from())
    }

    /// Whether `mv` (which must be legal) captures a piece.
    #[inline]
    pub fn is_capture(&self, mv: Move) -> bool {
        (self.colors[(!self.side_to_move).index()].has(mv.to())) || self.is_en_passant(mv)
    }

    /// Whether `mv` (which must be legal) is quiet: neither a capture nor a promotion.
    #[inline]
    pub fn is_quiet(&self, mv: Move) -> bool {
        !self.is_capture(mv) && mv.promotion().is_none()
    }

    /// Plays a legal move. The move must come from this board's move generator or have been
    /// checked with [`Board::is_legal`]; an illegal move leaves the board inconsistent.
    pub fn play(&mut self, mv: Move) {
        let us = self.side_to_move;
        let them = !us;
        let from = mv.from();
        let to = mv.to();
        let moving = self.piece_type_on(from).unwrap_or(PieceType::Pawn);
        let old_castling = self.castling;
        let old_en_passant = self.en_passant.take();
        if let Some(ep) = old_en_passant {
            self.hash ^= zobrist::en_passant(ep.file());
        }
        self.halfmove_clock = self.halfmove_clock.saturating_add(1);
        if us == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        let mut double_push_target = None;

        if moving == PieceType::King && self.colors[us.index()].has(to) {
            // Castling: the king "captures" its own rook.
            let (king_to, rook_to) = CastleSide::of_castling(mv).destinations(us);
            // Both off first: in Chess960 either may land where the other stood.
            self.remove(us, PieceType::King, from);
            self.remove(us, PieceType::Rook, to);
            self.put(us, PieceType::King, king_to);
            self.put(us, PieceType::Rook, rook_to);
            self.castling.set(us, CastleSide::King, None);
            self.castling.set(us, CastleSide::Queen, None);
        } else {
            // Not castling, so a piece on `to` is an enemy one.
            if let Some(captured) = self.piece_type_on(to) {
                self.remove(them, captured, to);
                self.halfmove_clock = 0;
                if captured == PieceType::Rook {
                    self.remove_castling_right_of_rook(them, to);
                }
            }
            self.remove(us, moving, from);
            match moving {
                PieceType::Pawn => {
                    self.halfmove_clock = 0;
                    if let Some(promotion) = mv.promotion() {
                        self.put(us, promotion, to);
                    } else {
                        self.put(us, PieceType::Pawn, to);
                        if Some(to) == old_en_passant {
                            let victim = Square::from_coords(to.file(), from.rank());
                            self.remove(them, PieceType::Pawn, victim);
                        } else if from.index().abs_diff(to.index()) == 16 {
                            double_push_target = Some(Square::new(((from.index() + to.index()) / 2) as u8));
                        }
                    }
                }
                PieceType::King => {
                    self.put(us, PieceType::King, to);
                    self.castling.set(us, CastleSide::King, None);
                    self.castling.set(us, CastleSide::Queen, None);
                }
                PieceType::Rook => {
                    self.put(us, PieceType::Rook, to);
                    self.remove_castling_right_of_rook(us, from);
                }
                _ => self.put(us, moving, to),
            }
        }

        if self.castling != old_castling {
            self.hash ^= old_castling.hash() ^ self.castling.hash();
        }
        self.side_to_move = them;
        self.hash ^= zobrist::side_to_move();
        self.update_checks_and_pins();

        if let Some(target) = double_push_target {
            if self.en_passant_capture_legal(target) {
                self.en_passant = Some(target);
                self.hash ^= zobrist::en_passant(target.file());
            }
        }
    }

    /// Clears `color`'s castling right that belongs to a rook on `sq`, if any.
    #[inline]
    fn remove_castling_right_of_rook(&mut self, color: Color, sq: Square) {
        if sq.rank() != Rank::FIRST.relative_to(color) {
            return;
        }
        for side in CastleSide::ALL {
            if self.castling.get(color, side) == Some(sq.file()) {
                self.castling.set(color, side, None);
            }
        }
    }

    /// Passes the move to the opponent (for null-move pruning). Returns `None` when the side
    /// to move is in check, where a null move would be illegal.
    pub fn null_move(&self) -> Option<Board> {
        if self.in_check() {
            return None;
        }
        let mut next = *self;
        if let Some(ep) = next.en_passant.take() {
            next.hash ^= zobrist::en_passant(ep.file());
        }
        next.halfmove_clock = next.halfmove_clock.saturating_add(1);
        if next.side_to_move == Color::Black {
            next.fullmove_number = next.fullmove_number.saturating_add(1);
        }
        next.side_to_move = !next.side_to_move;
        next.hash ^= zobrist::side_to_move();
        next.update_checks_and_pins();
        Some(next)
    }

    /// Whether two boards are the same position for the repetition rule: same pieces on the
    /// same squares, same side to move, same castling rights, same legal en passant capture.
    pub fn same_position(&self, other: &Board) -> bool {
        self.hash == other.hash
            && self.pieces == other.pieces
            && self.colors == other.colors
            && self.side_to_move == other.side_to_move
            && self.castling == other.castling
            && self.en_passant == other.en_passant
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The piece type on `sq` read from the bitboards alone, as the mailbox must hold it.
    fn scanned(board: &Board, sq: Square) -> Option<PieceType> {
        PieceType::ALL
            .into_iter()
            .find(|&k| board.pieces(k).has(sq) && board.occupied().has(sq))
    }

    fn agrees_square_by_square(board: &Board) {
        assert_eq!(board.mailbox_mismatch(), None, "{board}");
        for sq in Square::all() {
            assert_eq!(board.piece_type_on(sq), scanned(board, sq), "{board} {sq}");
            let piece = board.piece_on(sq);
            assert_eq!(piece.map(|p| p.kind), scanned(board, sq), "{board} {sq}");
            assert_eq!(piece.map(|p| p.color), board.color_on(sq), "{board} {sq}");
        }
    }

    #[test]
    fn the_check_finds_a_mailbox_out_of_step() {
        let board = Board::startpos();
        agrees_square_by_square(&board);
        let e2 = Square::parse("e2").unwrap();
        let e4 = Square::parse("e4").unwrap();

        let mut wrong_kind = board;
        wrong_kind.mailbox.set(e2, Some(PieceType::Knight));
        assert_eq!(wrong_kind.mailbox_mismatch(), Some(e2));

        let mut stale = board;
        stale.pieces[PieceType::Pawn.index()] ^= e2;
        stale.colors[Color::White.index()] ^= e2;
        assert_eq!(stale.mailbox_mismatch(), Some(e2));

        let mut missing = board;
        missing.pieces[PieceType::Pawn.index()] ^= e4;
        missing.colors[Color::White.index()] ^= e4;
        assert_eq!(missing.mailbox_mismatch(), Some(e4));

        let mut two_kinds = board;
        two_kinds.pieces[PieceType::Bishop.index()] ^= e2;
        assert_eq!(two_kinds.mailbox_mismatch(), Some(e2));

        // Equality sees the mailbox too.
        assert_ne!(wrong_kind, board);
    }

    #[test]
    fn the_mailbox_follows_every_kind_of_move_and_the_null_move() {
        // Castling both ways (Chess960: the king lands on its rook's square), en passant,
        // promotion with capture, and under-promotion.
        let lines: &[(&str, &[&str])] = &[
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                &["e1h1", "e8a8", "a2a4", "b4a3", "e5f7", "d8e8"],
            ),
            (
                "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1RK3R1 w GBgb - 0 1",
                &["c1b1", "e8g8", "g2g4", "f8e8"],
            ),
            (
                "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
                &["g2h1q", "b7c8r", "d7c8"],
            ),
            ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", &["g2h1n", "b7a8n"]),
        ];
        for &(fen, moves) in lines {
            let mut board = Board::from_fen_relaxed(fen).unwrap();
            agrees_square_by_square(&board);
            for uci in moves {
                let mv = board
                    .parse_uci(uci)
                    .unwrap_or_else(|e| panic!("{fen} {uci}: {e:?}"));
                board.play(mv);
                agrees_square_by_square(&board);
                if let Some(passed) = board.null_move() {
                    agrees_square_by_square(&passed);
                }
            }
        }
    }

    #[test]
    fn the_mailbox_debug_text_is_one_line_of_piece_letters() {
        let text = format!("{:?}", Board::startpos().mailbox);
        assert_eq!(
            text,
            "\"rnbqkbnr/pppppppp/......../......../......../......../pppppppp/rnbqkbnr\""
        );
    }
}
