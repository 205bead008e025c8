//! Move notation: UCI long algebraic (`e2e4`, `e7e8q`, castling as `e1g1` or, in Chess960
//! mode, king-takes-rook `e1h1`) and Standard Algebraic Notation (`Nbd7`, `exd6`, `O-O`,
//! `e8=Q+`). Parsing never panics: text is checked for syntax first, then matched against
//! the legal moves, so every move that comes back is legal. UCI moves are written with a
//! lower-case promotion letter; reading also takes an upper-case one (`e7e8Q`, which some
//! GUIs send), since it can mean nothing else.

use crate::board::{Board, CastleSide};
use crate::types::{File, Move, PieceType, Rank, Square};
use std::fmt;

/// Why a move text was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveParseError {
    /// Not a move in this notation at all.
    InvalidSyntax(String),
    /// Well formed, but no legal move matches.
    IllegalMove(String),
    /// Well formed, but more than one legal move matches (SAN lacking disambiguation).
    AmbiguousMove(String),
}

/// SAN errors use the same type as UCI ones.
pub type SanError = MoveParseError;

impl fmt::Display for MoveParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveParseError::InvalidSyntax(s) => write!(f, "invalid move syntax {s:?}"),
            MoveParseError::IllegalMove(s) => write!(f, "illegal move {s:?}"),
            MoveParseError::AmbiguousMove(s) => write!(f, "ambiguous move {s:?}"),
        }
    }
}

impl std::error::Error for MoveParseError {}

fn printable(text: &str) -> String {
    text.chars().take(32).collect()
}

impl Board {
    /// The king's destination square of a castling move (`mv` must be castling).
    fn castling_king_destination(&self, mv: Move) -> Square {
        CastleSide::of_castling(mv).destinations(self.side_to_move()).0
    }

    /// UCI text for a legal move. Castling is written `e1g1` style, or as king takes rook
    /// (`e1h1`) when `chess960` is set.
    pub fn to_uci(&self, mv: Move, chess960: bool) -> String {
        if mv.is_null() {
            return "0000".to_string();
        }
        if !chess960 && self.is_castling(mv) {
            return format!("{}{}", mv.from(), self.castling_king_destination(mv));
        }
        mv.to_string()
    }

    /// Reads a UCI move and returns it if it is legal here. Both castling forms are
    /// accepted (`e1g1` and `e1h1`); a normal king move takes precedence where they collide.
    /// The promotion letter may be upper or lower case (`e7e8q`, `e7e8Q`).
    pub fn parse_uci(&self, text: &str) -> Result<Move, MoveParseError> {
        let bytes = text.as_bytes();
        let syntax = || MoveParseError::InvalidSyntax(printable(text));
        if !(bytes.len() == 4 || bytes.len() == 5) || !text.is_ascii() {
            return Err(syntax());
        }
        let from = Square::parse(&text[0..2]).ok_or_else(syntax)?;
        let to = Square::parse(&text[2..4]).ok_or_else(syntax)?;
        let promotion = match bytes.get(4).map(u8::to_ascii_lowercase) {
            None => None,
            Some(b'n') => Some(PieceType::Knight),
            Some(b'b') => Some(PieceType::Bishop),
            Some(b'r') => Some(PieceType::Rook),
            Some(b'q') => Some(PieceType::Queen),
            Some(_) => return Err(syntax()),
        };
        let direct = Move::new(from, to, promotion);
        let legal = self.legal_moves();
        if legal.contains(direct) {
            return Ok(direct);
        }
        legal
            .iter()
            .copied()
            .find(|&mv| {
                promotion.is_none()
                    && self.is_castling(mv)
                    && mv.from() == from
                    && self.castling_king_destination(mv) == to
            })
            .ok_or_else(|| MoveParseError::IllegalMove(printable(text)))
    }

    /// SAN for a legal move, with disambiguation and `+`/`#` suffixes.
    pub fn to_san(&self, mv: Move) -> String {
        let mut san = String::with_capacity(8);
        if self.is_castling(mv) {
            san.push_str(if mv.to().file() > mv.from().file() {
                "O-O"
            } else {
                "O-O-O"
            });
        } else {
            let piece = self.piece_type_on(mv.from()).unwrap_or(PieceType::Pawn);
            let capture = self.is_capture(mv);
            if piece == PieceType::Pawn {
                if capture {
                    san.push(mv.from().file().to_char());
                }
            } else {
                san.push(piece.to_char().to_ascii_uppercase());
                // Other pieces of the same kind that could also go there.
                let mut rivals = Vec::new();
                self.generate_moves(|pm| {
                    if pm.piece == piece
                        && pm.from != mv.from()
                        && pm.to.has(mv.to())
                        && !self.is_castling(Move::new(pm.from, mv.to(), None))
                    {
                        rivals.push(pm.from);
                    }
                    false
                });
                if !rivals.is_empty() {
                    let file_unique = rivals.iter().all(|s| s.file() != mv.from().file());
                    let rank_unique = rivals.iter().all(|s| s.rank() != mv.from().rank());
                    if file_unique {
                        san.push(mv.from().file().to_char());
                    } else if rank_unique {
                        san.push(mv.from().rank().to_char());
                    } else {
                        san.push_str(&mv.from().to_string());
                    }
                }
            }
            if capture {
                san.push('x');
            }
            san.push_str(&mv.to().to_string());
            if let Some(p) = mv.promotion() {
                san.push('=');
                san.push(p.to_char().to_ascii_uppercase());
            }
        }
        let mut after = *self;
        after.play(mv);
        if after.in_check() {
            san.push(if after.has_legal_move() { '+' } else { '#' });
        }
        san
    }

    /// Reads SAN, tolerant of a missing or wrong `+`/`#`, annotation marks (`!`, `?`),
    /// `0-0` for `O-O`, `e8Q` for `e8=Q`, and over-disambiguation (`Ng1f3`).
    pub fn parse_san(&self, text: &str) -> Result<Move, MoveParseError> {
        let syntax = || MoveParseError::InvalidSyntax(printable(text));
        let trimmed = text.trim_end_matches(['+', '#', '!', '?']);
        if trimmed.is_empty() || !trimmed.is_ascii() || trimmed.len() > 10 {
            return Err(syntax());
        }
        let legal = self.legal_moves();
        let pick = |candidates: Vec<Move>| match candidates.len() {
            0 => Err(MoveParseError::IllegalMove(printable(text))),
            1 => Ok(candidates[0]),
            _ => Err(MoveParseError::AmbiguousMove(printable(text))),
        };

        // Castling.
        let castle_side = match trimmed {
            "O-O" | "0-0" => Some(CastleSide::King),
            "O-O-O" | "0-0-0" => Some(CastleSide::Queen),
            _ => None,
        };
        if let Some(side) = castle_side {
            let found = legal
                .iter()
                .copied()
                .filter(|&mv| {
                    self.is_castling(mv) && (mv.to().file() > mv.from().file()) == (side == CastleSide::King)
                })
                .collect();
            return pick(found);
        }

        let mut body = trimmed.as_bytes();
        let piece = match body[0] {
            b'N' => Some(PieceType::Knight),
            b'B' => Some(PieceType::Bishop),
            b'R' => Some(PieceType::Rook),
            b'Q' => Some(PieceType::Queen),
            b'K' => Some(PieceType::King),
            _ => None,
        };
        if piece.is_some() {
            body = &body[1..];
        }
        let piece = piece.unwrap_or(PieceType::Pawn);

        // Promotion suffix: "=Q" or "Q".
        let mut promotion = None;
        // A move text ends in a rank digit unless a promotion piece follows.
        if let Some(&last) = body.last().filter(|b| b.is_ascii_alphabetic()) {
            let p = PieceType::from_char(last as char).ok_or_else(syntax)?;
            if piece != PieceType::Pawn || matches!(p, PieceType::Pawn | PieceType::King) {
                return Err(syntax());
            }
            promotion = Some(p);
            body = &body[..body.len() - 1];
            if body.last() == Some(&b'=') {
                body = &body[..body.len() - 1];
            }
        }
        if body.len() < 2 {
            return Err(syntax());
        }
        let to_text = std::str::from_utf8(&body[body.len() - 2..]).map_err(|_| syntax())?;
        let to = Square::parse(to_text).ok_or_else(syntax)?;
        let mut prefix = &body[..body.len() - 2];
        if let Some((&b'x' | &b':', rest)) = prefix.split_last() {
            prefix = rest;
        }
        let (from_file, from_rank) = match prefix {
            [] => (None, None),
            [f @ b'a'..=b'h'] => (File::from_char(*f as char), None),
            [r @ b'1'..=b'8'] => (None, Rank::from_char(*r as char)),
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => (File::from_char(*f as char), Rank::from_char(*r as char)),
            _ => return Err(syntax()),
        };
        // A pawn push names no file but stays on its own; a capture names its file.
        let from_file = match (piece, from_file) {
            (PieceType::Pawn, None) => Some(to.file()),
            (_, f) => f,
        };
        let found = legal
            .iter()
            .copied()
            .filter(|&mv| {
                mv.to() == to
                    && !self.is_castling(mv)
                    && self.piece_type_on(mv.from()) == Some(piece)
                    && mv.promotion() == promotion
                    && from_file.is_none_or(|f| mv.from().file() == f)
                    && from_rank.is_none_or(|r| mv.from().rank() == r)
            })
            .collect();
        pick(found)
    }
}
