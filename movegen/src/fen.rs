//! FEN reading and writing.
//!
//! Reading accepts the standard `KQkq` castling field, X-FEN (`K`/`Q` mean the outermost rook
//! on that side, a file letter names any other rook) and Shredder-FEN (file letters only),
//! so standard and Chess960 positions read the same way. The half-move clock and full-move
//! number may be left out (EPD style); they default to 0 and 1. A full-move number of 0,
//! which some tools write, reads as 1 (move numbers start at 1; nothing else can be meant).
//!
//! Errors come in two families: [`FenSyntaxError`] when the text is not a FEN at all, and
//! [`IllegalPosition`] when it is a well-formed FEN of a position that cannot occur.
//! [`Board::from_fen`] refuses both; [`clean_fen`], for positions that come from GUIs and
//! books, first cleans what is unambiguous (missing fields, a castling right or an en
//! passant square the board does not back), with a warning for each change. Writing
//! uses `KQkq` letters where they are unambiguous (the rook is the outermost one on its side)
//! and file letters otherwise, so a written FEN always reads back to the same board.

use crate::bitboard::Bitboard;
use crate::board::{Board, CastleSide};
use crate::types::{Color, File, Piece, PieceType, Rank, Square};
use std::fmt;

/// The standard starting position.
pub const STARTPOS_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A FEN that is not well formed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenSyntaxError {
    /// Fewer than four or more than six space-separated fields.
    WrongFieldCount(usize),
    /// The placement field does not have eight ranks separated by `/`.
    WrongRankCount(usize),
    /// A rank (1-8) does not describe exactly eight squares.
    BadRankLength(u8),
    /// A character in the placement field that is neither a piece letter nor 1-8.
    BadPieceChar(char),
    /// The side-to-move field is not `w` or `b`.
    BadSideToMove(String),
    /// The castling field has an unknown character or names the same right twice.
    BadCastling(String),
    /// The en passant field is not `-` or a square.
    BadEnPassant(String),
    /// The half-move clock is not a number in 0..=65535.
    BadHalfmoveClock(String),
    /// The full-move number is not a number in 0..=65535 (0 reads as 1).
    BadFullmoveNumber(String),
}

/// A well-formed FEN describing a position that cannot occur in a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalPosition {
    /// A side has no king.
    MissingKing(Color),
    /// A side has more than one king.
    TooManyKings(Color),
    /// A pawn stands on the first or eighth rank.
    PawnOnBackRank(Square),
    /// A side has more than 16 pieces.
    TooManyPieces(Color),
    /// A side has more than 8 pawns.
    TooManyPawns(Color),
    /// A side has more promoted pieces than missing pawns allow.
    TooManyPromotedPieces(Color),
    /// The side that just moved is in check.
    OpponentInCheck,
    /// The side to move is checked in a way no legal move could have produced.
    ImpossibleCheck,
    /// A castling right without the king and that rook on their first rank.
    InvalidCastlingRight(Color, CastleSide),
    /// An en passant square that no double pawn push just produced.
    InvalidEnPassant(Square),
}

/// Why a FEN was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// The text is not a FEN (see [`FenSyntaxError`]).
    Syntax(FenSyntaxError),
    /// The FEN is well formed but describes a position the rules do not allow (see
    /// [`IllegalPosition`]).
    Illegal(IllegalPosition),
}

impl fmt::Display for FenSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenSyntaxError::WrongFieldCount(n) => write!(f, "expected 4 to 6 fields, found {n}"),
            FenSyntaxError::WrongRankCount(n) => write!(f, "expected 8 ranks in the placement, found {n}"),
            FenSyntaxError::BadRankLength(r) => write!(f, "rank {r} does not describe exactly 8 squares"),
            FenSyntaxError::BadPieceChar(c) => write!(f, "unexpected character {c:?} in the placement"),
            FenSyntaxError::BadSideToMove(s) => write!(f, "side to move must be 'w' or 'b', found {s:?}"),
            FenSyntaxError::BadCastling(s) => write!(f, "bad castling field {s:?}"),
            FenSyntaxError::BadEnPassant(s) => write!(f, "bad en passant field {s:?}"),
            FenSyntaxError::BadHalfmoveClock(s) => write!(f, "bad half-move clock {s:?}"),
            FenSyntaxError::BadFullmoveNumber(s) => write!(f, "bad full-move number {s:?}"),
        }
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl fmt::Display for IllegalPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalPosition::MissingKing(c) => write!(f, "{} has no king", color_name(*c)),
            IllegalPosition::TooManyKings(c) => write!(f, "{} has more than one king", color_name(*c)),
            IllegalPosition::PawnOnBackRank(s) => write!(f, "pawn on {s}, a first or last rank square"),
            IllegalPosition::TooManyPieces(c) => write!(f, "{} has more than 16 pieces", color_name(*c)),
            IllegalPosition::TooManyPawns(c) => write!(f, "{} has more than 8 pawns", color_name(*c)),
            IllegalPosition::TooManyPromotedPieces(c) => {
                write!(
                    f,
                    "{} has more promoted pieces than missing pawns",
                    color_name(*c)
                )
            }
            IllegalPosition::OpponentInCheck => write!(f, "the side not to move is in check"),
            IllegalPosition::ImpossibleCheck => write!(f, "the side to move is in an impossible check"),
            IllegalPosition::InvalidCastlingRight(c, s) => write!(
                f,
                "{} {} castling right without king and rook in place",
                color_name(*c),
                match s {
                    CastleSide::King => "king-side",
                    CastleSide::Queen => "queen-side",
                }
            ),
            IllegalPosition::InvalidEnPassant(s) => write!(f, "impossible en passant square {s}"),
        }
    }
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Syntax(e) => write!(f, "invalid FEN: {e}"),
            FenError::Illegal(e) => write!(f, "illegal position: {e}"),
        }
    }
}

impl std::error::Error for FenSyntaxError {}
impl std::error::Error for IllegalPosition {}
impl std::error::Error for FenError {}

impl From<FenSyntaxError> for FenError {
    fn from(e: FenSyntaxError) -> Self {
        FenError::Syntax(e)
    }
}

impl From<IllegalPosition> for FenError {
    fn from(e: IllegalPosition) -> Self {
        FenError::Illegal(e)
    }
}

impl std::str::FromStr for Board {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Board, FenError> {
        Board::from_fen(s)
    }
}

/// How strictly [`Board::from_fen_with`] checks the position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Validation {
    /// Reject anything that cannot occur in a game: the material limits (16 pieces, 8
    /// pawns, promotions paid for by missing pawns), impossible checks, and en passant
    /// squares that contradict the check on the board. Use for all input from users.
    Strict,
    /// Keep only what legal move generation needs: one king a side, no pawn on a back rank,
    /// the side not to move not in check, castling rights backed by king and rook, and an en
    /// passant square behind an enemy pawn with both squares it crossed empty. Composed perft
    /// positions (extra queens, triple checks) read in this mode.
    Relaxed,
}

/// Reads a FEN as GUIs, opening books and chess libraries send it, and cleans what is
/// unambiguous into a legal position, one warning for each change; everything else is
/// refused as [`Board::from_fen`] refuses it (which stays strict). The one cleaning step of
/// every place positions come in from outside (the UCI front end, the opening-book reader):
/// - only the placement and side-to-move fields (or those and the castling field): the rest
///   defaults as Stockfish defaults it, no castling, no en passant square, clocks 0 and 1;
/// - a castling right whose king or rook is not in place is dropped (as python-chess's
///   cleaning drops it), with a warning;
/// - an en passant square that cannot be (the wrong rank, no pawn that can just have made
///   the double push, or a check no double push can have given) is ignored, with a warning.
pub fn clean_fen(text: &str) -> Result<(Board, Vec<String>), FenError> {
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    if !(2..=6).contains(&fields.len()) {
        return Err(FenSyntaxError::WrongFieldCount(fields.len()).into());
    }
    let (placement, side) = (fields[0], fields[1]);
    let castling = fields.get(2).copied().unwrap_or("-");
    let en_passant = fields.get(3).copied().unwrap_or("-");
    let clocks = fields.get(4..).map_or(String::new(), |c| c.join(" "));
    let fen =
        |castling: &str, en_passant: &str| format!("{placement} {side} {castling} {en_passant} {clocks}");
    let mut warnings = Vec::new();
    // Each castling letter on its own: one that the board does not back is dropped (any
    // other error is the whole FEN's, and reported below).
    let mut kept = String::new();
    if castling != "-" {
        for letter in castling.chars() {
            match Board::from_fen(&fen(&letter.to_string(), "-")) {
                Err(FenError::Illegal(e @ IllegalPosition::InvalidCastlingRight(..))) => {
                    warnings.push(format!("castling right {letter} dropped: {e}"));
                }
                _ => kept.push(letter),
            }
        }
    }
    let castling = if kept.is_empty() { "-" } else { kept.as_str() };
    match Board::from_fen(&fen(castling, en_passant)) {
        Err(FenError::Illegal(IllegalPosition::InvalidEnPassant(square))) => {
            warnings.push(format!(
                "en passant square {square} ignored: no double pawn push can have made it"
            ));
            Board::from_fen(&fen(castling, "-")).map(|board| (board, warnings))
        }
        result => result.map(|board| (board, warnings)),
    }
}

/// A castling letter before it is checked against the board.
enum CastlingToken {
    Outermost(Color, CastleSide),
    File(Color, File),
}

impl Board {
    /// Reads a FEN (standard, X-FEN or Shredder-FEN castling; clocks optional) and rejects
    /// every position that cannot arise in a game.
    pub fn from_fen(fen: &str) -> Result<Board, FenError> {
        Board::from_fen_with(fen, Validation::Strict)
    }

    /// Reads a FEN with only the checks the move generator relies on (see
    /// [`Validation::Relaxed`]): for perft suites full of composed positions.
    pub fn from_fen_relaxed(fen: &str) -> Result<Board, FenError> {
        Board::from_fen_with(fen, Validation::Relaxed)
    }

    /// Reads a FEN with the given validation.
    pub fn from_fen_with(fen: &str, validation: Validation) -> Result<Board, FenError> {
        use FenSyntaxError as S;
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(S::WrongFieldCount(fields.len()).into());
        }
        let mut board = Board::empty();

        // Placement.
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            return Err(S::WrongRankCount(ranks.len()).into());
        }
        for (i, text) in ranks.iter().enumerate() {
            let rank = Rank::new(7 - i as u8);
            let mut file = 0u8;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                    file += d as u8;
                } else if let Some(piece) = Piece::from_char(c) {
                    if file >= 8 {
                        return Err(S::BadRankLength(rank.index() as u8 + 1).into());
                    }
                    board.put(
                        piece.color,
                        piece.kind,
                        Square::from_coords(File::new(file), rank),
                    );
                    file += 1;
                } else {
                    return Err(S::BadPieceChar(c).into());
                }
                if file > 8 {
                    return Err(S::BadRankLength(rank.index() as u8 + 1).into());
                }
            }
            if file != 8 {
                return Err(S::BadRankLength(rank.index() as u8 + 1).into());
            }
        }

        // Side to move.
        board.side_to_move = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(S::BadSideToMove(other.to_string()).into()),
        };

        // Castling (syntax only; checked against the board below).
        let mut castling_tokens = Vec::new();
        if fields[2] != "-" {
            for c in fields[2].chars() {
                let color = if c.is_ascii_uppercase() {
                    Color::White
                } else {
                    Color::Black
                };
                let token = match c.to_ascii_lowercase() {
                    'k' => CastlingToken::Outermost(color, CastleSide::King),
                    'q' => CastlingToken::Outermost(color, CastleSide::Queen),
                    l @ 'a'..='h' => CastlingToken::File(color, File::new(l as u8 - b'a')),
                    _ => return Err(S::BadCastling(fields[2].to_string()).into()),
                };
                castling_tokens.push(token);
            }
        }

        // En passant.
        let en_passant = match fields[3] {
            "-" => None,
            text => match Square::parse(text) {
                Some(sq) => Some(sq),
                None => return Err(S::BadEnPassant(text.to_string()).into()),
            },
        };

        // Clocks.
        if let Some(text) = fields.get(4) {
            board.halfmove_clock = text.parse().map_err(|_| S::BadHalfmoveClock(text.to_string()))?;
        }
        if let Some(text) = fields.get(5) {
            board.fullmove_number = match text.parse::<u16>() {
                Ok(n) => n.max(1),
                Err(_) => return Err(S::BadFullmoveNumber(text.to_string()).into()),
            };
        }

        board.validate_material(validation)?;
        board.apply_castling_tokens(&castling_tokens, fields[2])?;
        if board.side_to_move == Color::Black {
            board.hash ^= crate::zobrist::side_to_move();
        }
        board.update_checks_and_pins();
        board.validate_checks(validation)?;
        if let Some(ep) = en_passant {
            board.validate_en_passant(ep)?;
            if board.en_passant_capture_legal(ep) {
                board.en_passant = Some(ep);
                board.hash ^= crate::zobrist::en_passant(ep.file());
            }
        }
        if validation == Validation::Strict {
            board.validate_check_consistency(en_passant)?;
        }
        debug_assert_eq!(board.hash, board.compute_hash());
        Ok(board)
    }

    fn validate_material(&self, validation: Validation) -> Result<(), IllegalPosition> {
        let back_ranks = Bitboard::rank(Rank::FIRST) | Bitboard::rank(Rank::EIGHTH);
        if let Some(sq) = (self.pieces(PieceType::Pawn) & back_ranks).first() {
            return Err(IllegalPosition::PawnOnBackRank(sq));
        }
        for color in Color::ALL {
            let kings = self.colored_pieces(color, PieceType::King).len();
            if kings == 0 {
                return Err(IllegalPosition::MissingKing(color));
            }
            if kings > 1 {
                return Err(IllegalPosition::TooManyKings(color));
            }
            if validation == Validation::Relaxed {
                continue;
            }
            if self.colored(color).len() > 16 {
                return Err(IllegalPosition::TooManyPieces(color));
            }
            let pawns = self.colored_pieces(color, PieceType::Pawn).len();
            if pawns > 8 {
                return Err(IllegalPosition::TooManyPawns(color));
            }
            // Every piece beyond the initial set must be a promoted pawn.
            let extra = |kind: PieceType, initial: u32| {
                self.colored_pieces(color, kind).len().saturating_sub(initial)
            };
            let promoted = extra(PieceType::Knight, 2)
                + extra(PieceType::Bishop, 2)
                + extra(PieceType::Rook, 2)
                + extra(PieceType::Queen, 1);
            if promoted > 8 - pawns {
                return Err(IllegalPosition::TooManyPromotedPieces(color));
            }
        }
        Ok(())
    }

    fn apply_castling_tokens(&mut self, tokens: &[CastlingToken], text: &str) -> Result<(), FenError> {
        for token in tokens {
            let (color, side, file) = match *token {
                CastlingToken::Outermost(color, side) => {
                    let back = Rank::FIRST.relative_to(color);
                    let king = self.colored_pieces(color, PieceType::King) & Bitboard::rank(back);
                    let rooks = self.colored_pieces(color, PieceType::Rook) & Bitboard::rank(back);
                    let Some(king) = king.first() else {
                        return Err(IllegalPosition::InvalidCastlingRight(color, side).into());
                    };
                    let candidate = rooks.into_iter().filter(|r| match side {
                        CastleSide::King => r.file() > king.file(),
                        CastleSide::Queen => r.file() < king.file(),
                    });
                    let outermost = match side {
                        CastleSide::King => candidate.max(),
                        CastleSide::Queen => candidate.min(),
                    };
                    match outermost {
                        Some(rook) => (color, side, rook.file()),
                        None => return Err(IllegalPosition::InvalidCastlingRight(color, side).into()),
                    }
                }
                CastlingToken::File(color, file) => {
                    let back = Rank::FIRST.relative_to(color);
                    let king = (self.colored_pieces(color, PieceType::King) & Bitboard::rank(back)).first();
                    let rook_here = self
                        .colored_pieces(color, PieceType::Rook)
                        .has(Square::from_coords(file, back));
                    match king {
                        Some(king) if rook_here && king.file() != file => {
                            let side = if file > king.file() {
                                CastleSide::King
                            } else {
                                CastleSide::Queen
                            };
                            (color, side, file)
                        }
                        Some(king) => {
                            let side = if file > king.file() {
                                CastleSide::King
                            } else {
                                CastleSide::Queen
                            };
                            return Err(IllegalPosition::InvalidCastlingRight(color, side).into());
                        }
                        None => {
                            return Err(IllegalPosition::InvalidCastlingRight(color, CastleSide::King).into())
                        }
                    }
                }
            };
            if self.castling.get(color, side).is_some() {
                return Err(FenSyntaxError::BadCastling(text.to_string()).into());
            }
            self.castling.set(color, side, Some(file));
        }
        self.hash ^= self.castling.hash();
        Ok(())
    }

    /// The side not to move must not be in check, and (strict) the side to move from at
    /// most two pieces. Which two can check at once is [`Board::validate_check_consistency`]'s.
    fn validate_checks(&self, validation: Validation) -> Result<(), IllegalPosition> {
        let us = self.side_to_move;
        let their_king = self.king(!us);
        if self.is_attacked(their_king, us, self.occupied()) {
            return Err(IllegalPosition::OpponentInCheck);
        }
        if validation == Validation::Strict && self.checkers.len() > 2 {
            return Err(IllegalPosition::ImpossibleCheck);
        }
        Ok(())
    }

    fn validate_en_passant(&self, ep: Square) -> Result<(), IllegalPosition> {
        let us = self.side_to_move;
        let them = !us;
        let bad = Err(IllegalPosition::InvalidEnPassant(ep));
        if ep.rank() != Rank::SIXTH.relative_to(us) {
            return bad;
        }
        let pushed_to = Square::from_coords(ep.file(), Rank::FIFTH.relative_to(us));
        let pushed_from = Square::from_coords(ep.file(), Rank::SEVENTH.relative_to(us));
        if !self.colored_pieces(them, PieceType::Pawn).has(pushed_to)
            || self.occupied().has(ep)
            || self.occupied().has(pushed_from)
        {
            return bad;
        }
        Ok(())
    }

    /// Checks that the check on the side to move could follow the previous move (strict
    /// only). With a double push just played (`en_passant`), the pushed pawn is the only
    /// piece that moved. Two checkers cannot both be pawns or knights (no move uncovers a
    /// leaper's check), nor two sliders on one line through the king, one each side of it:
    /// the move that made the second check would have had to cross the king.
    fn validate_check_consistency(&self, en_passant: Option<Square>) -> Result<(), IllegalPosition> {
        let us = self.side_to_move;
        let king = self.king(us);
        let checkers = self.checkers;
        if let Some(ep) = en_passant {
            let pushed_to = Square::from_coords(ep.file(), Rank::FIFTH.relative_to(us));
            let pushed_from = Square::from_coords(ep.file(), Rank::SEVENTH.relative_to(us));
            for checker in checkers {
                let by_pawn = checker == pushed_to;
                // A discovered check: the pawn stood between king and checker.
                let discovered = crate::attacks::between(king, checker).has(pushed_from);
                if !by_pawn && !discovered {
                    return Err(IllegalPosition::InvalidEnPassant(ep));
                }
            }
        }
        if checkers.len() == 2 {
            let a = checkers.lsb();
            let b = (checkers ^ a).lsb();
            let kind = |sq| self.piece_type_on(sq);
            // Two pawns, two knights, or a pawn and a knight never check at once.
            let leaper = |sq| matches!(kind(sq), Some(PieceType::Pawn | PieceType::Knight));
            if leaper(a) && leaper(b) {
                return Err(IllegalPosition::ImpossibleCheck);
            }
            // Two sliders (two checkers that are not leapers) with the king between them.
            if !leaper(a) && !leaper(b) && crate::attacks::between(a, b).has(king) {
                return Err(IllegalPosition::ImpossibleCheck);
            }
        }
        Ok(())
    }

    /// The position as FEN (X-FEN castling letters).
    pub fn to_fen(&self) -> String {
        let mut out = String::with_capacity(90);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let sq = Square::from_coords(File::new(file), Rank::new(rank));
                match self.piece_on(sq) {
                    Some(p) => {
                        if empty > 0 {
                            out.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        out.push(p.to_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push((b'0' + empty) as char);
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out.push(' ');
        out.push(if self.side_to_move == Color::White {
            'w'
        } else {
            'b'
        });
        out.push(' ');
        let before = out.len();
        for color in Color::ALL {
            for side in CastleSide::ALL {
                let Some(file) = self.castling.get(color, side) else {
                    continue;
                };
                let back = Rank::FIRST.relative_to(color);
                let king = self.king(color);
                // Rooks beyond this one on the same side make K/Q ambiguous.
                let outer = self.colored_pieces(color, PieceType::Rook)
                    & Bitboard::rank(back)
                    & !Bitboard::from_square(Square::from_coords(file, back));
                let ambiguous = outer.into_iter().any(|r| match side {
                    CastleSide::King => r.file() > file,
                    CastleSide::Queen => r.file() < file && r.file() < king.file(),
                });
                let letter = if ambiguous {
                    file.to_char()
                } else if side == CastleSide::King {
                    'k'
                } else {
                    'q'
                };
                out.push(if color == Color::White {
                    letter.to_ascii_uppercase()
                } else {
                    letter
                });
            }
        }
        if out.len() == before {
            out.push('-');
        }
        out.push(' ');
        match self.en_passant {
            Some(sq) => out.push_str(&sq.to_string()),
            None => out.push('-'),
        }
        out.push_str(&format!(" {} {}", self.halfmove_clock, self.fullmove_number));
        out
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_fen())
    }
}
