//! `movegen`: Luft's chess core, with no dependencies.
//!
//! Squares, bitboards and magic attack tables ([`attacks`]); a small `Copy` [`Board`] with
//! copy-make [`Board::play`], incremental Zobrist keys and check/pin masks; legal move
//! generation by piece ([`Board::generate_moves`]); FEN, UCI and SAN notation; a [`Game`]
//! that knows every way a game ends (mate, stalemate, repetition, the 50/75-move rules,
//! dead positions); PGN; and perft. Everything follows `docs/design/RULES.md`, Chess960 included.

#![warn(missing_docs)]

pub mod attacks;
pub mod bitboard;
pub mod board;
pub mod fen;
pub mod game;
pub mod movegen;
pub mod notation;
pub mod openings;
pub mod perft;
pub mod pgn;
pub mod rng;
pub mod suite;
pub mod types;
mod zobrist;

pub use bitboard::Bitboard;
pub use board::{Board, CastleSide, CastlingRights};
pub use fen::{clean_fen, FenError, FenSyntaxError, IllegalPosition, Validation, STARTPOS_FEN};
pub use game::{DrawReason, Game, Outcome};
pub use movegen::{MoveList, PieceMoves};
pub use notation::{MoveParseError, SanError};
pub use perft::{perft, perft_divide, perft_hashed, PerftTable};
pub use types::{Color, File, Move, Piece, PieceType, Rank, Square};
