//! Training records: whole self-play games, stored compactly (`docs/design/NNUE.md`, the layout known as
//! viriformat), and the chunked, checksummed container file datagen writes them into.
//!
//! A game is a 32-byte start board followed by `(u16 move, i16 score)` per ply and a 4-byte
//! zero terminator. The board:
//!
//! ```text
//! bytes  0..8   occupancy bitboard (little-endian)
//! bytes  8..24  one nibble per occupied square in ascending square order, low nibble first:
//!               colour << 3 | piece (0 pawn .. 5 king, 6 rook that may still castle)
//! byte  24      side to move << 7 | en passant square (64 = none)
//! byte  25      half-move clock
//! bytes 26..28  full-move number
//! bytes 28..30  evaluation of the start position, White's view (centipawns)
//! byte  30      result, White's view: 0 loss, 1 draw, 2 win
//! byte  31      zero
//! ```
//! Moves: from (6 bits) | to (6 bits) << 6 | promotion (0 knight .. 3 queen) << 12 |
//! kind << 14 with kind 0 normal, 1 en passant, 2 castling (king takes rook), 3 promotion.
//! Scores are White-relative centipawns from the search that chose the move. The same
//! 32-byte board with a position's score and its game's result is a compact training
//! position ([`packed_board`], [`packed_pieces`]).
//!
//! # The container (all integers little-endian)
//!
//! ```text
//! file header   0..8    "LUFTGAME"
//!               8..12   version: 1, 2, 3 or 4 (datagen writes 3, or 4 when a version 4
//!                       setting is used; every reader reads all four)
//!               12..16  body length L (at most 1 MiB)
//!               16..    body: version 1 `key=value` text; version 2 the settings in the
//!                       fixed layout below; version 3 the settings ([`GenHeader`]) as serde
//!                       encodes them in postcard
//!               +8      FNV-1a 64 of every header byte before it
//! v3 body       postcard of GenHeader: its fields in declaration order, integers as
//!               varints, strings as a varint length and UTF-8, `adjudicate` one byte,
//!               `start_positions` a varint (0 classical, 1 Chess960, 2 double Chess960)
//! v4 body       the v3 body, then postcard of a list of (key, value) strings: the settings
//!               added since version 3 (`syzygy`, `syzygy_pieces`), and any later ones
//! v2 body       str generator, u32 stream, u64 seed, u64 soft nodes, u64 hard nodes,
//!               u64 net fingerprint, u32 net hidden width, str net source,
//!               u32 random plies, u64 opening soft nodes, u64 opening hard nodes,
//!               u32 opening max |score|, str book, u64 book fingerprint, u32 book positions,
//!               u8 adjudicate, u32 win score, u32 win plies, u32 draw score,
//!               u32 draw plies, u32 draw from ply, u32 max plies   (str = u32 length + UTF-8)
//! v2 chunk      0..4    "LFC2"
//!               4..8    payload length (at most 64 MiB)
//!               8..12   games in the payload
//!               12..20  sequence number of its first game in the writer's stream
//!               20..28  nodes searched for its games (0: not recorded)
//!               28..36  FNV-1a 64 of bytes 0..28 and the payload: every field is covered
//!               36..    payload: the games, back to back
//! v1 chunk      "CHNK", u32 payload length, u32 games, u64 FNV-1a of the payload, payload
//! ```
//!
//! Version 2 and 3 files differ only in the header body: both hold v2 chunks, so a
//! resumed version 2 file is appended to as it is. Version 3 is the settings as a serde
//! structure in postcard, the maintained binary format the trainer's checkpoints use too
//! (specified and frozen for postcard 1.x; bincode, the usual choice, is unmaintained and
//! its last release is a compile error), instead of a layout written out field by field; a
//! change to [`GenHeader`]'s fields changes that encoding and needs a new version (the
//! golden-bytes test pins it). Version 3 adds where the games start (classical, Chess960,
//! double Chess960); version 1 and 2 files, which could not say, started classically.
//! Version 4 is the one planned bump for settings added later: the v3 body is followed by
//! named settings, so a new setting is a new key, not a new version. It holds the Syzygy
//! tables that adjudicated the games (`datagen --syzygy`); readers keep keys they do not
//! know ([`GenHeader::extra`]). A header without any of them is written as version 3, byte
//! for byte as before.
//!
//! # Why readers never stop at damage
//!
//! Each finished game is appended as its own chunk, so a writer killed at any moment loses at
//! most the game in flight. A reader ([`DataReader`]) checks each chunk; where one fails (a
//! flipped byte, a cut, a damaged header) it reports the damaged byte range and
//! resynchronises: it scans forward byte by byte for the next chunk magic whose chunk
//! checksums, so every intact chunk after the damage is still read (a false match needs a
//! 64-bit checksum collision). Version 1 chunks leave the game count outside the checksum, so
//! they are decoded to the end of the payload and a count that disagrees is reported while
//! the games (whose bytes the checksum vouches for) are kept. Version 2 chunks carry the
//! writer's sequence number: a chunk that repeats an earlier sequence number byte for byte
//! (two writers on one file) is reported and read once. Version 1 chunks have none, so there
//! a byte-identical repeat of an earlier chunk counts as the duplicate (the 28,517 shared
//! generation-3 games hold none; two genuinely identical games need the same opening
//! position and are rare).

use crate::buffered::{ReadBuffer, READ_BLOCK};
use movegen::openings::StartPositions;
use movegen::{Board, CastleSide, Color, File, Move, Piece, PieceType, Square};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::io::Read;

/// The first 8 bytes of every data file.
pub const GAME_MAGIC: &[u8; 8] = b"LUFTGAME";
/// The newest container version: datagen writes it when a setting needs it (else version 3);
/// readers read it and versions 1 to 3.
pub const GAME_VERSION: u32 = 4;
/// Magic of a version 2 chunk.
pub const CHUNK_MAGIC: &[u8; 4] = b"LFC2";
/// Magic of a version 1 chunk.
pub const CHUNK_MAGIC_V1: &[u8; 4] = b"CHNK";
/// Bytes before the payload in a version 2 chunk.
pub const CHUNK_HEADER: usize = 36;
const CHUNK_HEADER_V1: usize = 20;
/// Largest payload a chunk may announce (a 400-ply game is under 2 KiB).
pub const MAX_CHUNK_PAYLOAD: usize = 64 << 20;
/// Largest file header body.
const MAX_HEADER_BODY: usize = 1 << 20;
const CASTLING_ROOK: u8 = 6;

/// A problem in a record or data file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// Fewer bytes than the structure needs.
    Truncated,
    /// A packed board that is not a legal position.
    BadBoard(String),
    /// A move that is not legal in its position.
    IllegalMove {
        /// The move's index in the game (0: the first move after the start position).
        ply: usize,
    },
    /// A file header that is missing, damaged or of an unknown version.
    BadHeader(String),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Truncated => write!(f, "record truncated"),
            RecordError::BadBoard(e) => write!(f, "bad packed board: {e}"),
            RecordError::IllegalMove { ply } => write!(f, "illegal move at ply {ply}"),
            RecordError::BadHeader(e) => write!(f, "bad data file header: {e}"),
        }
    }
}

impl std::error::Error for RecordError {}

/// White-relative game result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Wdl {
    /// Black won (stored as 0).
    BlackWins = 0,
    /// A draw (stored as 1).
    Draw = 1,
    /// White won (stored as 2).
    WhiteWins = 2,
}

impl Wdl {
    /// The result as a score for White: 0, 0.5 or 1.
    pub fn white_score(self) -> f32 {
        self as u8 as f32 / 2.0
    }
    fn from_u8(v: u8) -> Option<Wdl> {
        match v {
            0 => Some(Wdl::BlackWins),
            1 => Some(Wdl::Draw),
            2 => Some(Wdl::WhiteWins),
            _ => None,
        }
    }
}

/// One game: start position, result and every move with its White-relative score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The position the game's recorded moves start from (after the random opening plies).
    pub start: Board,
    /// The evaluation of `start` by the opening check's search, White's view, centipawns.
    pub start_eval: i16,
    /// How the game ended, White's view.
    pub result: Wdl,
    /// Every move played from `start`, in order, with the score (White's view, centipawns) of
    /// the search that chose it.
    pub moves: Vec<(Move, i16)>,
}

/// The 32-byte record board of `board` with an evaluation and a result (White's view).
pub fn packed_board(board: &Board, eval: i16, result: Wdl) -> [u8; 32] {
    let mut out = Vec::with_capacity(32);
    pack_board(board, eval, result, &mut out);
    out.try_into().expect("a packed board is 32 bytes")
}

/// The occupied squares of a 32-byte record board with their piece codes
/// (`colour << 3 | piece`, 6 a rook that may castle), in ascending square order, without
/// building a [`Board`]. Trusts `bytes` to come from [`packed_board`] or a checksummed file.
#[inline]
pub fn packed_codes(bytes: &[u8; 32]) -> impl Iterator<Item = (Square, u8)> + '_ {
    let mut occ = u64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes"));
    let mut i = 0;
    std::iter::from_fn(move || {
        if occ == 0 || i == 32 {
            return None;
        }
        let sq = occ.trailing_zeros() as u8;
        occ &= occ - 1;
        let code = (bytes[8 + i / 2] >> (4 * (i % 2))) & 15;
        i += 1;
        Some((Square::new(sq), code))
    })
}

/// The piece a record piece code stands for (a castling rook is a rook); `None` for the
/// unused codes 7 and 15.
pub fn piece_of_code(code: u8) -> Option<Piece> {
    let color = if code & 8 != 0 { Color::Black } else { Color::White };
    let kind = match code & 7 {
        CASTLING_ROOK => PieceType::Rook,
        k => PieceType::from_index(usize::from(k))?,
    };
    Some(Piece::new(color, kind))
}

/// The pieces of a 32-byte record board in ascending square order (see [`packed_codes`]);
/// an unused code reads as a pawn.
pub fn packed_pieces(bytes: &[u8; 32]) -> impl Iterator<Item = (Square, Piece)> + '_ {
    packed_codes(bytes).map(|(sq, code)| {
        let piece = piece_of_code(code).unwrap_or(Piece::new(Color::White, PieceType::Pawn));
        (sq, piece)
    })
}

/// The side to move of a 32-byte record board.
#[inline]
pub fn packed_side_to_move(bytes: &[u8; 32]) -> Color {
    if bytes[24] & 0x80 != 0 {
        Color::Black
    } else {
        Color::White
    }
}

pub(crate) fn pack_board(board: &Board, eval: i16, result: Wdl, out: &mut Vec<u8>) {
    let occupied = board.occupied();
    out.extend_from_slice(&occupied.0.to_le_bytes());
    let mut nibbles = [0u8; 16];
    let castling_rooks: Vec<Square> = Color::ALL
        .into_iter()
        .flat_map(|c| {
            CastleSide::ALL
                .into_iter()
                .filter_map(move |s| board.castling_rook(c, s))
        })
        .collect();
    for (i, sq) in occupied.enumerate() {
        let piece = board.piece_on(sq).expect("occupied square has a piece");
        let kind = if piece.kind == PieceType::Rook && castling_rooks.contains(&sq) {
            CASTLING_ROOK
        } else {
            piece.kind as u8
        };
        let code = (piece.color as u8) << 3 | kind;
        nibbles[i / 2] |= code << (4 * (i % 2));
    }
    out.extend_from_slice(&nibbles);
    let ep = board.en_passant().map_or(64, |s| s.index() as u8);
    out.push((board.side_to_move() as u8) << 7 | ep);
    out.push(board.halfmove_clock().min(255) as u8);
    out.extend_from_slice(&board.fullmove_number().to_le_bytes());
    out.extend_from_slice(&eval.to_le_bytes());
    out.push(result as u8);
    out.push(0);
}

pub(crate) fn unpack_board(bytes: &[u8]) -> Result<(Board, i16, Wdl), RecordError> {
    if bytes.len() < 32 {
        return Err(RecordError::Truncated);
    }
    let occupied = u64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes"));
    if occupied.count_ones() > 32 {
        return Err(RecordError::BadBoard("more than 32 pieces".into()));
    }
    let mut squares = [None::<(Color, u8)>; 64];
    let mut occ = occupied;
    let mut i = 0;
    while occ != 0 {
        let sq = occ.trailing_zeros() as usize;
        occ &= occ - 1;
        let code = (bytes[8 + i / 2] >> (4 * (i % 2))) & 15;
        let color = if code & 8 != 0 { Color::Black } else { Color::White };
        if code & 7 > CASTLING_ROOK {
            return Err(RecordError::BadBoard(format!("piece code {code}")));
        }
        squares[sq] = Some((color, code & 7));
        i += 1;
    }
    // Build a FEN: placement, side, Shredder castling letters from the castling rooks.
    let mut fen = String::with_capacity(90);
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match squares[rank * 8 + file] {
                Some((color, kind)) => {
                    if empty > 0 {
                        fen.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    let kind = PieceType::from_index(if kind == CASTLING_ROOK { 3 } else { kind as usize })
                        .expect("checked above");
                    let c = kind.to_char();
                    fen.push(if color == Color::White {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    });
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            fen.push((b'0' + empty) as char);
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    let stm = if bytes[24] & 0x80 != 0 { "b" } else { "w" };
    let mut castling = String::new();
    for (color, rank) in [(Color::White, 0usize), (Color::Black, 7usize)] {
        for file in (0..8).rev() {
            if squares[rank * 8 + file] == Some((color, CASTLING_ROOK)) {
                let letter = File::new(file as u8).to_char();
                castling.push(if color == Color::White {
                    letter.to_ascii_uppercase()
                } else {
                    letter
                });
            }
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }
    let ep = bytes[24] & 0x7F;
    let ep_text = match ep {
        64 => "-".to_string(),
        e if e < 64 => Square::new(e).to_string(),
        e => return Err(RecordError::BadBoard(format!("en passant code {e}"))),
    };
    let fullmove = u16::from_le_bytes([bytes[26], bytes[27]]).max(1);
    let fen = format!("{fen} {stm} {castling} {ep_text} {} {fullmove}", bytes[25]);
    let board = Board::from_fen(&fen).map_err(|e| RecordError::BadBoard(format!("{fen}: {e}")))?;
    let eval = i16::from_le_bytes([bytes[28], bytes[29]]);
    let result =
        Wdl::from_u8(bytes[30]).ok_or_else(|| RecordError::BadBoard(format!("result {}", bytes[30])))?;
    Ok((board, eval, result))
}

/// The 16-bit record encoding of a legal move.
pub fn encode_move(board: &Board, mv: Move) -> u16 {
    let base = mv.from().index() as u16 | (mv.to().index() as u16) << 6;
    if board.is_castling(mv) {
        base | 2 << 14
    } else if board.is_en_passant(mv) {
        base | 1 << 14
    } else if let Some(p) = mv.promotion() {
        base | ((p as u16) - 1) << 12 | 3 << 14
    } else {
        base
    }
}

/// Decodes a record move and checks it is legal on `board`.
pub fn decode_move(board: &Board, raw: u16, ply: usize) -> Result<Move, RecordError> {
    let from = Square::new((raw & 63) as u8);
    let to = Square::new(((raw >> 6) & 63) as u8);
    let promotion = (raw >> 14 == 3)
        .then(|| PieceType::from_index(((raw >> 12) & 3) as usize + 1))
        .flatten();
    let mv = Move::new(from, to, promotion);
    if board.is_legal(mv) {
        Ok(mv)
    } else {
        Err(RecordError::IllegalMove { ply })
    }
}

impl GameRecord {
    /// Appends the record's bytes to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        pack_board(&self.start, self.start_eval, self.result, out);
        let mut board = self.start;
        for &(mv, score) in &self.moves {
            out.extend_from_slice(&encode_move(&board, mv).to_le_bytes());
            out.extend_from_slice(&score.to_le_bytes());
            board.play(mv);
        }
        out.extend_from_slice(&[0; 4]);
    }

    /// Reads one record from the front of `bytes`; returns it and the bytes it used.
    pub fn decode(bytes: &[u8]) -> Result<(GameRecord, usize), RecordError> {
        let (start, start_eval, result) = unpack_board(bytes)?;
        let mut board = start;
        let mut moves = Vec::new();
        let mut offset = 32;
        loop {
            let entry = bytes.get(offset..offset + 4).ok_or(RecordError::Truncated)?;
            offset += 4;
            if entry == [0; 4] {
                break;
            }
            let raw = u16::from_le_bytes([entry[0], entry[1]]);
            let score = i16::from_le_bytes([entry[2], entry[3]]);
            let mv = decode_move(&board, raw, moves.len())?;
            board.play(mv);
            moves.push((mv, score));
        }
        Ok((
            GameRecord {
                start,
                start_eval,
                result,
                moves,
            },
            offset,
        ))
    }

    /// Every position of the game with the move played from it and its score (White's view).
    pub fn positions(&self) -> impl Iterator<Item = (Board, Move, i16)> + '_ {
        let mut board = self.start;
        self.moves.iter().map(move |&(mv, score)| {
            let before = board;
            board.play(mv);
            (before, mv, score)
        })
    }
}

/// Scores at or beyond this magnitude (centipawns) are mates or adjudication-level wins.
pub const MATE_BAND: i16 = 20_000;

/// A ply whose score is not known: a game imported from PGN (`datagen import-pgn`) marks
/// its moves without a score comment with it. It lies in the mate band, so the training
/// filter rejects the position, and no search gives it (mates are at most 31000).
pub const NO_SCORE: i16 = i16::MAX;

/// The training filter of `docs/design/NNUE.md`: ply >= 16, side to move not in check, best move neither
/// capture nor promotion, score outside the mate band, at least 4 pieces.
pub fn keep_for_training(board: &Board, best: Move, score: i16, ply: usize) -> bool {
    ply >= 16 && !board.is_capture(best) && best.promotion().is_none() && keep_lone_for_training(board, score)
}

/// The part of the training filter that a lone position (text or bulletformat, with no
/// game and no move) allows: side to move not in check, score outside the mate band, at
/// least 4 pieces.
pub fn keep_lone_for_training(board: &Board, score: i16) -> bool {
    !board.in_check() && score.unsigned_abs() < MATE_BAND.unsigned_abs() && board.occupied().len() >= 4
}

pub(crate) use output::checksum::{fnv1a_extend as fnv_extend, FNV_OFFSET};

/// The generator's settings, stored in a data file's header (version 3: this structure in
/// postcard; version 2: a fixed layout without `start_positions`) so that resuming and
/// anyone asking where the data came from see how it was made. The field order is the
/// version 3 encoding: changing a field needs a new version.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GenHeader {
    /// The program that wrote the file, e.g. `luft-datagen 0.2.0` (from 0.2.0 the soft node
    /// budget is scaled by the search: `engine::Limits::soft_nodes`).
    pub generator: String,
    /// The writer's stream (thread) number; games are numbered per stream.
    pub stream: u32,
    /// The run's seed: each game's randomness depends only on it, the stream and the game's
    /// number.
    pub seed: u64,
    /// Soft node limit per move (no new iteration past half of it, scaled by the search
    /// from datagen 0.2.0 on: `engine::Limits::soft_nodes`).
    pub soft_nodes: u64,
    /// Hard node limit per move.
    pub hard_nodes: u64,
    /// The fingerprint of the net that played (`nnue::Network::fingerprint`).
    pub net_fingerprint: u64,
    /// Its hidden width.
    pub net_hidden: u32,
    /// Its file's name, without the folder it lay in (`gen22-128.nnue`), or `embedded`.
    /// Headers written before the folder was left out hold the path given on the command
    /// line (`nets/gen22-128.nnue`, `/home/me/nets/gen22-128.nnue`): [`source_file_name`]
    /// names either. The net itself is identified by `net_fingerprint`.
    pub net_source: String,
    /// Random plies after the start position (this many or one more).
    pub random_plies: u32,
    /// The opening check's soft node limit: a search at these limits must score the
    /// opening within `opening_max_score`.
    pub opening_soft_nodes: u64,
    /// The opening check's hard node limit.
    pub opening_hard_nodes: u64,
    /// The largest |score| (centipawns) the opening check keeps.
    pub opening_max_score: u32,
    /// The book of start positions: its file's name without the folder it lay in
    /// (`openings.epd`), or `none` (the start positions of `start_positions`). Older headers
    /// hold the path given on the command line ([`source_file_name`] names either); the
    /// book itself is identified by `book_fingerprint` and `book_positions`. An imported
    /// file's says `pgn NAME`, the PGN's file name.
    pub book: String,
    /// FNV-1a 64 of the book file's bytes (0 without a book).
    pub book_fingerprint: u64,
    /// The number of positions in the book (0 without one).
    pub book_positions: u32,
    /// Whether games end by adjudication: a win at |score| >= `win_score` for `win_plies`
    /// plies in a row; a draw at |score| <= `draw_score` for `draw_plies` plies from ply
    /// `draw_min_ply`.
    pub adjudicate: bool,
    /// Win adjudication threshold, centipawns.
    pub win_score: u32,
    /// Plies in a row at or beyond `win_score` (for the same side) for a win.
    pub win_plies: u32,
    /// Draw adjudication threshold, centipawns.
    pub draw_score: u32,
    /// Plies in a row within `draw_score` for a draw.
    pub draw_plies: u32,
    /// The first ply at which a draw may be adjudicated.
    pub draw_min_ply: u32,
    /// Games reaching this many plies are draws.
    pub max_plies: u32,
    /// Where games start when there is no book: the classical position, or a random
    /// Chess960 or double-Chess960 one (version 3; versions 1 and 2 are classical).
    #[serde(with = "start_positions_code")]
    pub start_positions: StartPositions,
    /// The Syzygy tables that adjudicated games as soon as they reached a position the
    /// tables cover (`datagen --syzygy`): what was loaded, `N WDL tables`
    /// ([`syzygy_description`]), empty for none (version 4; earlier versions had none). Not
    /// the folders they lay in, though headers written before said those (the folders as
    /// given, `:` between them); [`GenHeader::same_run`] takes such a header's tables to be
    /// the ones of the same piece count. Not in the v3 encoding: a named setting of version 4.
    #[serde(skip)]
    pub syzygy: String,
    /// The most pieces of the positions those tables cover (0 without tables; version 4).
    #[serde(skip)]
    pub syzygy_pieces: u32,
    /// Version 4 settings this reader does not know, kept as read (key, value).
    #[serde(skip)]
    pub extra: Vec<(String, String)>,
}

/// The file name a header's `net_source` or `book` gives, without any folder: the part after
/// the last `/` or `\\` (a path written on any system). A value that holds no folder
/// (`gen22-128.nnue`, `embedded`, `none`, `pgn NAME`) is returned whole; an older header's
/// path as given on the command line (`/home/me/nets/gen22-128.nnue`) gives its file name.
pub fn source_file_name(source: &str) -> &str {
    source.rsplit(['/', '\\']).next().unwrap_or(source)
}

/// What [`GenHeader::syzygy`] says of `wdl_tables` loaded Syzygy WDL tables (the ones that
/// end games; `tablebase::Tablebases::wdl_count`): `N WDL tables`. With
/// [`GenHeader::syzygy_pieces`], the piece count they reach, it names what ended the games
/// and nothing of where the tables lay, so the same tables loaded from any folder give the
/// same header.
pub fn syzygy_description(wdl_tables: usize) -> String {
    format!("{wdl_tables} WDL tables")
}

/// The table count of a [`syzygy_description`]; `None` for anything else (an older header's
/// folders, or no tables).
fn syzygy_table_count(text: &str) -> Option<usize> {
    let count = text.strip_suffix(" WDL tables")?;
    if count.bytes().all(|b| b.is_ascii_digit()) {
        count.parse().ok()
    } else {
        None
    }
}

/// `StartPositions` (which lives in the dependency-free `movegen`) as a number in the
/// version 3 header: 0 classical, 1 Chess960, 2 double Chess960.
mod start_positions_code {
    use movegen::openings::StartPositions;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(value: &StartPositions, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(match value {
            StartPositions::Classical => 0,
            StartPositions::Chess960 => 1,
            StartPositions::DoubleChess960 => 2,
        })
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<StartPositions, D::Error> {
        match u8::deserialize(d)? {
            0 => Ok(StartPositions::Classical),
            1 => Ok(StartPositions::Chess960),
            2 => Ok(StartPositions::DoubleChess960),
            v => Err(D::Error::custom(format!("start positions code {v}"))),
        }
    }
}

/// The name `GenHeader::describe` and `datagen stats` give start positions.
pub fn start_positions_name(start: StartPositions) -> &'static str {
    match start {
        StartPositions::Classical => "classical",
        StartPositions::Chess960 => "chess960",
        StartPositions::DoubleChess960 => "double-chess960",
    }
}

impl GenHeader {
    /// The version 2 body (the fixed layout; `start_positions` is not in it).
    fn encode_body_v2(&self, out: &mut Vec<u8>) {
        let s = |out: &mut Vec<u8>, text: &str| {
            out.extend_from_slice(&(text.len() as u32).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
        };
        s(out, &self.generator);
        out.extend_from_slice(&self.stream.to_le_bytes());
        for v in [self.seed, self.soft_nodes, self.hard_nodes, self.net_fingerprint] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.net_hidden.to_le_bytes());
        s(out, &self.net_source);
        out.extend_from_slice(&self.random_plies.to_le_bytes());
        out.extend_from_slice(&self.opening_soft_nodes.to_le_bytes());
        out.extend_from_slice(&self.opening_hard_nodes.to_le_bytes());
        out.extend_from_slice(&self.opening_max_score.to_le_bytes());
        s(out, &self.book);
        out.extend_from_slice(&self.book_fingerprint.to_le_bytes());
        out.extend_from_slice(&self.book_positions.to_le_bytes());
        out.push(u8::from(self.adjudicate));
        for v in [
            self.win_score,
            self.win_plies,
            self.draw_score,
            self.draw_plies,
            self.draw_min_ply,
            self.max_plies,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// Reads a version 2 body.
    fn decode_body_v2(bytes: &[u8]) -> Result<GenHeader, RecordError> {
        let mut c = Cursor { bytes, at: 0 };
        let h = GenHeader {
            generator: c.string()?,
            stream: c.u32()?,
            seed: c.u64()?,
            soft_nodes: c.u64()?,
            hard_nodes: c.u64()?,
            net_fingerprint: c.u64()?,
            net_hidden: c.u32()?,
            net_source: c.string()?,
            random_plies: c.u32()?,
            opening_soft_nodes: c.u64()?,
            opening_hard_nodes: c.u64()?,
            opening_max_score: c.u32()?,
            book: c.string()?,
            book_fingerprint: c.u64()?,
            book_positions: c.u32()?,
            adjudicate: match c.take(1)?[0] {
                0 => false,
                1 => true,
                v => return Err(RecordError::BadHeader(format!("adjudicate flag {v}"))),
            },
            win_score: c.u32()?,
            win_plies: c.u32()?,
            draw_score: c.u32()?,
            draw_plies: c.u32()?,
            draw_min_ply: c.u32()?,
            max_plies: c.u32()?,
            start_positions: StartPositions::Classical,
            ..GenHeader::default()
        };
        if c.at != bytes.len() {
            return Err(RecordError::BadHeader(format!(
                "{} bytes after the settings",
                bytes.len() - c.at
            )));
        }
        Ok(h)
    }

    /// The version 3 body: this structure in postcard.
    fn encode_body_v3(&self) -> Vec<u8> {
        // Writing into a Vec cannot fail, and every field has a serde encoding.
        postcard::to_stdvec(self).unwrap_or_default()
    }

    /// The settings added after version 3, as version 4 names them; empty when none is set
    /// (the header is then written as version 3).
    fn named_settings(&self) -> Vec<(String, String)> {
        let mut named = Vec::new();
        if !self.syzygy.is_empty() {
            named.push(("syzygy".to_string(), self.syzygy.clone()));
            named.push(("syzygy_pieces".to_string(), self.syzygy_pieces.to_string()));
        }
        named.extend(self.extra.iter().cloned());
        named
    }

    /// The version 4 body: the v3 body, then the named settings in postcard.
    fn encode_body_v4(&self) -> Vec<u8> {
        let mut body = self.encode_body_v3();
        body.extend(postcard::to_stdvec(&self.named_settings()).unwrap_or_default());
        body
    }

    /// Reads a version 4 body: the v3 fields, then the named settings, nothing left over.
    fn decode_body_v4(bytes: &[u8]) -> Result<GenHeader, RecordError> {
        let (mut h, rest) = postcard::take_from_bytes::<GenHeader>(bytes)
            .map_err(|e| RecordError::BadHeader(format!("settings unreadable: {e}")))?;
        let (named, rest) = postcard::take_from_bytes::<Vec<(String, String)>>(rest)
            .map_err(|e| RecordError::BadHeader(format!("named settings unreadable: {e}")))?;
        if !rest.is_empty() {
            return Err(RecordError::BadHeader(format!(
                "{} bytes after the settings",
                rest.len()
            )));
        }
        for (key, value) in named {
            match key.as_str() {
                "syzygy" => h.syzygy = value,
                "syzygy_pieces" => {
                    h.syzygy_pieces = value
                        .parse()
                        .map_err(|_| RecordError::BadHeader(format!("syzygy_pieces {value:?}")))?
                }
                _ => h.extra.push((key, value)),
            }
        }
        Ok(h)
    }

    /// The container version this header is written as: 4 when it has a version 4
    /// setting, else 3.
    pub fn version(&self) -> u32 {
        if self.named_settings().is_empty() {
            3
        } else {
            4
        }
    }

    /// Reads a version 3 body: the whole of it, nothing left over.
    fn decode_body_v3(bytes: &[u8]) -> Result<GenHeader, RecordError> {
        let (h, rest) = postcard::take_from_bytes::<GenHeader>(bytes)
            .map_err(|e| RecordError::BadHeader(format!("settings unreadable: {e}")))?;
        if !rest.is_empty() {
            return Err(RecordError::BadHeader(format!(
                "{} bytes after the settings",
                rest.len()
            )));
        }
        Ok(h)
    }

    /// Whether games made under `other` belong to the same run: every setting equal except
    /// the stream number, the generator's version and the names the net and the book were
    /// read under (they are identified by fingerprint, and the book by its position count
    /// too), so a run resumed from another folder, or with its files elsewhere, is the same
    /// run. The Syzygy tables are compared by what was loaded ([`GenHeader::syzygy`] and
    /// the piece count); a header that names their folders instead (written before the
    /// folders were left out) by the piece count alone.
    pub fn same_run(&self, other: &GenHeader) -> bool {
        self.run_differences(other).is_empty()
    }

    /// The settings in which `other` is not the same run ([`GenHeader::same_run`]), by
    /// their field names (`net_fingerprint`, `book_fingerprint`, ...); empty for the same run.
    pub fn run_differences(&self, other: &GenHeader) -> Vec<&'static str> {
        let named_folders = |h: &GenHeader| !h.syzygy.is_empty() && syzygy_table_count(&h.syzygy).is_none();
        // Every field, so that a field added to the structure must be placed here.
        let GenHeader {
            generator: _,
            stream: _,
            seed,
            soft_nodes,
            hard_nodes,
            net_fingerprint,
            net_hidden,
            net_source: _,
            random_plies,
            opening_soft_nodes,
            opening_hard_nodes,
            opening_max_score,
            book: _,
            book_fingerprint,
            book_positions,
            adjudicate,
            win_score,
            win_plies,
            draw_score,
            draw_plies,
            draw_min_ply,
            max_plies,
            start_positions,
            syzygy,
            syzygy_pieces,
            extra,
        } = self;
        let mut differ = Vec::new();
        macro_rules! compare {
            ($($field:ident),*) => {
                $(
                    if *$field != other.$field {
                        differ.push(stringify!($field));
                    }
                )*
            };
        }
        compare!(
            seed,
            soft_nodes,
            hard_nodes,
            net_fingerprint,
            net_hidden,
            random_plies,
            opening_soft_nodes,
            opening_hard_nodes,
            opening_max_score,
            book_fingerprint,
            book_positions,
            adjudicate,
            win_score,
            win_plies,
            draw_score,
            draw_plies,
            draw_min_ply,
            max_plies,
            start_positions
        );
        if !named_folders(self) && !named_folders(other) && *syzygy != other.syzygy {
            differ.push("syzygy");
        }
        compare!(syzygy_pieces, extra);
        differ
    }

    /// The settings as `key=value` lines.
    pub fn describe(&self) -> String {
        format!(
            "generator={}\nstream={}\nseed={}\nnodes={} (hard {})\nnet={:016x} (hidden {}, {})\n\
             random_plies={}\nopening_check={} nodes (hard {}), |score| <= {}\n\
             book={} ({:016x}, {} positions)\nadjudicate={}\nwin={} cp for {} plies\n\
             draw={} cp for {} plies from ply {}\nmax_plies={}\nstart_positions={}\nsyzygy={}\n{}",
            self.generator,
            self.stream,
            self.seed,
            self.soft_nodes,
            self.hard_nodes,
            self.net_fingerprint,
            self.net_hidden,
            self.net_source,
            self.random_plies,
            self.opening_soft_nodes,
            self.opening_hard_nodes,
            self.opening_max_score,
            self.book,
            self.book_fingerprint,
            self.book_positions,
            self.adjudicate,
            self.win_score,
            self.win_plies,
            self.draw_score,
            self.draw_plies,
            self.draw_min_ply,
            self.max_plies,
            start_positions_name(self.start_positions),
            if self.syzygy.is_empty() {
                "none".to_string()
            } else {
                format!("{} (up to {} pieces)", self.syzygy, self.syzygy_pieces)
            },
            self.extra
                .iter()
                .map(|(k, v)| format!("{k}={v}\n"))
                .collect::<String>()
        )
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], RecordError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| RecordError::BadHeader("settings cut short".into()))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn u32(&mut self) -> Result<u32, RecordError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64, RecordError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn string(&mut self) -> Result<String, RecordError> {
        let len = self.u32()? as usize;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| RecordError::BadHeader("settings text is not UTF-8".into()))
    }
}

/// A file header as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Header {
    /// Version 1: the settings as free text.
    V1 {
        /// `key=value` lines as the writer made them (`format=luft-games-1`, `nodes=...`).
        settings: String,
    },
    /// Version 2: typed settings in the fixed layout (`start_positions` classical).
    V2(GenHeader),
    /// Version 3: typed settings in postcard.
    V3(GenHeader),
    /// Version 4: version 3's settings and the named ones added since.
    V4(GenHeader),
}

impl Header {
    /// The container version of the file: 1 to 4.
    pub fn version(&self) -> u32 {
        match self {
            Header::V1 { .. } => 1,
            Header::V2(_) => 2,
            Header::V3(_) => 3,
            Header::V4(_) => 4,
        }
    }

    /// The typed settings of a version 2, 3 or 4 header.
    pub fn settings(&self) -> Option<&GenHeader> {
        match self {
            Header::V1 { .. } => None,
            Header::V2(h) | Header::V3(h) | Header::V4(h) => Some(h),
        }
    }

    /// The settings as `key=value` lines.
    pub fn describe(&self) -> String {
        match self {
            Header::V1 { settings } => settings.clone(),
            Header::V2(h) | Header::V3(h) | Header::V4(h) => h.describe(),
        }
    }
}

fn encode_header_body(version: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 + body.len());
    out.extend_from_slice(GAME_MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    let checksum = fnv_extend(FNV_OFFSET, &out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// A file header of the version datagen writes: 3, or 4 ([`GAME_VERSION`]) when a version 4
/// setting is set ([`GenHeader::version`]).
pub fn encode_header(settings: &GenHeader) -> Vec<u8> {
    match settings.version() {
        3 => encode_header_body(3, &settings.encode_body_v3()),
        _ => encode_header_body(4, &settings.encode_body_v4()),
    }
}

/// A version 2 file header (what datagen wrote before version 3), for tests and tools that
/// must make one; `start_positions` is not in it (version 2 files start classically).
pub fn encode_header_v2(settings: &GenHeader) -> Vec<u8> {
    let mut body = Vec::new();
    settings.encode_body_v2(&mut body);
    encode_header_body(2, &body)
}

/// A version 1 file header (settings as text), for tests and tools that must make one.
pub fn encode_header_v1(settings: &str) -> Vec<u8> {
    encode_header_body(1, settings.as_bytes())
}

/// Appends one version 2 chunk: `games`, numbered from `seq` in the writer's stream, that
/// took `nodes` nodes of search (0 when unknown).
pub fn encode_chunk(games: &[GameRecord], seq: u64, nodes: u64, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(CHUNK_MAGIC);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(games.len() as u32).to_le_bytes());
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend_from_slice(&nodes.to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    for g in games {
        g.encode(out);
    }
    let payload_len = (out.len() - start - CHUNK_HEADER) as u32;
    out[start + 4..start + 8].copy_from_slice(&payload_len.to_le_bytes());
    let hash = fnv_extend(FNV_OFFSET, &out[start..start + 28]);
    let hash = fnv_extend(hash, &out[start + CHUNK_HEADER..]);
    out[start + 28..start + 36].copy_from_slice(&hash.to_le_bytes());
}

/// Appends one version 1 chunk (what datagen wrote before version 2), for tests.
pub fn encode_chunk_v1(games: &[GameRecord], out: &mut Vec<u8>) {
    let mut payload = Vec::new();
    for g in games {
        g.encode(&mut payload);
    }
    out.extend_from_slice(CHUNK_MAGIC_V1);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&(games.len() as u32).to_le_bytes());
    out.extend_from_slice(&fnv_extend(FNV_OFFSET, &payload).to_le_bytes());
    out.extend_from_slice(&payload);
}

/// A valid chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Byte offset of the chunk in the file.
    pub offset: u64,
    /// Its whole length in bytes, header included.
    pub len: u64,
    /// Container version of the chunk (1 or 2).
    pub version: u32,
    /// Sequence number of its first game (version 2).
    pub seq: Option<u64>,
    /// Nodes searched for its games (version 2, when recorded).
    pub nodes: Option<u64>,
    /// The games the chunk holds, in order.
    pub games: Vec<GameRecord>,
    /// Something wrong that did not cost a game: a count field that disagrees with the
    /// payload, or a sequence number used twice with different games.
    pub problem: Option<String>,
}

/// What a chunk holds apart from where it lies and its problem: version, sequence number,
/// nodes searched and games, which a pack keeps; tests compare chunks read from data files
/// and packs by it.
#[cfg(test)]
pub(crate) type ChunkContent = (u32, Option<u64>, Option<u64>, Vec<GameRecord>);

#[cfg(test)]
impl Chunk {
    /// See [`ChunkContent`].
    pub(crate) fn content(&self) -> ChunkContent {
        (self.version, self.seq, self.nodes, self.games.clone())
    }
}

/// Bytes that belong to no valid chunk; readers skip them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// Byte offset in the file where the damage starts.
    pub offset: u64,
    /// Bytes of damage, skipped by readers.
    pub len: u64,
    /// What was wrong where the damage starts.
    pub what: String,
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad chunk at byte {}: {} ({} bytes skipped)",
            self.offset, self.what, self.len
        )
    }
}

/// A valid chunk that repeats an earlier chunk of the same file byte for byte (same sequence
/// number in version 2): written twice, read once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// Byte offset of the repeated chunk in the file.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
    /// Byte offset of the earlier chunk it repeats (the one that was read).
    pub first_offset: u64,
    /// The sequence number of its first game (version 2 chunks; `None` for version 1).
    pub seq: Option<u64>,
}

impl fmt::Display for Duplicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "duplicate chunk at byte {}{}: the same as the chunk at byte {} (two writers?), read once",
            self.offset,
            self.seq.map_or(String::new(), |s| format!(" (game {s})")),
            self.first_offset
        )
    }
}

/// What a [`DataReader`] finds, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A valid chunk and its games.
    Chunk(Chunk),
    /// Bytes that belong to no valid chunk.
    Damage(Damage),
    /// A chunk that repeats an earlier one (read once, reported).
    Duplicate(Duplicate),
}

/// Reads a data file of either version chunk by chunk from any byte source, holding one
/// chunk (plus a read buffer) in memory, and never stops at damage (see the module notes).
#[derive(Debug)]
pub struct DataReader<R> {
    input: ReadBuffer<R>,
    header: Result<Header, RecordError>,
    header_len: u64,
    /// The valid header's bytes as they stand in the file (empty when it is damaged).
    header_bytes: Vec<u8>,
    /// Open damage: where it started and what was wrong there.
    damage: Option<(u64, String)>,
    queued: Option<Item>,
    /// Version 2: sequence number -> (offset, checksum). Version 1: checksum -> offset.
    seen_seq: HashMap<u64, (u64, u64)>,
    seen_v1: HashMap<u64, u64>,
}

enum Attempt {
    Found(Item),
    Failed(String),
}

impl<R: Read> DataReader<R> {
    /// Reads the file header. A missing or damaged header is not an error here: it is
    /// reported by [`DataReader::header`] and as damage, and the chunks after it still read.
    pub fn new(src: R) -> std::io::Result<DataReader<R>> {
        let mut r = DataReader {
            input: ReadBuffer::new(src),
            header: Err(RecordError::Truncated),
            header_len: 0,
            header_bytes: Vec::new(),
            damage: None,
            queued: None,
            seen_seq: HashMap::new(),
            seen_v1: HashMap::new(),
        };
        r.header = r.read_header()?;
        match &r.header {
            Ok(_) => {}
            Err(e) => {
                // A file that starts with a chunk (a header lost, or an unpacked file whose
                // pack kept no header) reads from its first byte; anything else is damage up
                // to the first chunk magic after byte 0.
                r.input.fill(4)?;
                let unread = r.input.unread();
                let chunk_first = unread.starts_with(CHUNK_MAGIC) || unread.starts_with(CHUNK_MAGIC_V1);
                if r.input.available() > 0 && !chunk_first {
                    r.damage = Some((0, e.to_string()));
                    r.input.consume(1);
                    r.seek_magic()?;
                }
            }
        }
        Ok(r)
    }

    /// The file header, or why it could not be read.
    pub fn header(&self) -> Result<&Header, &RecordError> {
        self.header.as_ref()
    }

    /// Length of the valid header (0 when it is damaged).
    pub fn header_len(&self) -> u64 {
        self.header_len
    }

    /// The valid header's bytes exactly as they stand in the file (magic to checksum; empty
    /// when it is damaged): what `datagen pack` keeps so an unpacked file starts the same.
    pub fn header_bytes(&self) -> &[u8] {
        &self.header_bytes
    }

    fn read_header(&mut self) -> std::io::Result<Result<Header, RecordError>> {
        let bad = |what: &str| Ok(Err(RecordError::BadHeader(what.to_string())));
        if !self.input.fill(16)? {
            return if self.input.available() == 0 {
                bad("empty file")
            } else {
                bad("truncated header")
            };
        }
        let head = self.input.unread();
        if &head[..8] != GAME_MAGIC {
            return bad("missing LUFTGAME magic");
        }
        let version = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
        let len = u32::from_le_bytes(head[12..16].try_into().expect("4 bytes")) as usize;
        if len > MAX_HEADER_BODY {
            return bad(&format!("header length {len}"));
        }
        if !self.input.fill(24 + len)? {
            return bad("truncated header");
        }
        let head = &self.input.unread()[..24 + len];
        let stored = u64::from_le_bytes(head[16 + len..].try_into().expect("8 bytes"));
        if stored != fnv_extend(FNV_OFFSET, &head[..16 + len]) {
            return bad("header checksum mismatch");
        }
        let body = &head[16..16 + len];
        let header = match version {
            1 => Header::V1 {
                settings: String::from_utf8_lossy(body).into_owned(),
            },
            2 => match GenHeader::decode_body_v2(body) {
                Ok(h) => Header::V2(h),
                Err(e) => return Ok(Err(e)),
            },
            3 => match GenHeader::decode_body_v3(body) {
                Ok(h) => Header::V3(h),
                Err(e) => return Ok(Err(e)),
            },
            4 => match GenHeader::decode_body_v4(body) {
                Ok(h) => Header::V4(h),
                Err(e) => return Ok(Err(e)),
            },
            v => return bad(&format!("unsupported version {v}")),
        };
        self.header_len = (24 + len) as u64;
        self.header_bytes = head.to_vec();
        self.input.consume(24 + len);
        Ok(Ok(header))
    }

    /// The next chunk, damaged range or duplicate; `None` at the end of the file.
    pub fn next_item(&mut self) -> std::io::Result<Option<Item>> {
        if let Some(item) = self.queued.take() {
            return Ok(Some(item));
        }
        loop {
            if !self.input.fill(1)? {
                let end = self.input.offset();
                return Ok(self.close_damage(end).map(Item::Damage));
            }
            let at = self.input.offset();
            match self.attempt()? {
                Attempt::Found(item) => {
                    return Ok(Some(match self.close_damage(at) {
                        Some(d) => {
                            self.queued = Some(item);
                            Item::Damage(d)
                        }
                        None => item,
                    }));
                }
                Attempt::Failed(what) => {
                    if self.damage.is_none() {
                        self.damage = Some((at, what));
                    }
                    self.input.consume(1);
                    self.seek_magic()?;
                }
            }
        }
    }

    /// Ends the open damage, if any, at file offset `end`.
    fn close_damage(&mut self, end: u64) -> Option<Damage> {
        let (offset, what) = self.damage.take()?;
        Some(Damage {
            offset,
            len: end - offset,
            what,
        })
    }

    /// Advances to the next byte that starts a chunk magic, or to the end of the file.
    fn seek_magic(&mut self) -> std::io::Result<()> {
        loop {
            let window = self.input.unread();
            if let Some(i) = window
                .windows(4)
                .position(|w| w == CHUNK_MAGIC || w == CHUNK_MAGIC_V1)
            {
                self.input.consume(i);
                return Ok(());
            }
            if self.input.at_eof() {
                self.input.consume(window.len());
                return Ok(());
            }
            // Keep the last three bytes: a magic may straddle the next read.
            self.input.consume(window.len() - window.len().min(3));
            let need = self.input.available() + READ_BLOCK;
            self.input.fill(need)?;
        }
    }

    /// Tries to read a chunk at the current position; advances past it when it is valid.
    fn attempt(&mut self) -> std::io::Result<Attempt> {
        let fail = |what: String| Ok(Attempt::Failed(what));
        if !self.input.fill(4)? {
            return fail(format!("{} stray bytes at the end", self.input.available()));
        }
        let version = match &self.input.unread()[..4] {
            m if m == CHUNK_MAGIC => 2,
            m if m == CHUNK_MAGIC_V1 => 1,
            _ => return fail("no chunk magic".into()),
        };
        let head_len = if version == 2 {
            CHUNK_HEADER
        } else {
            CHUNK_HEADER_V1
        };
        if !self.input.fill(head_len)? {
            return fail("truncated chunk header".into());
        }
        let h = &self.input.unread()[..head_len];
        let word = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().expect("4 bytes")) as usize;
        let long = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().expect("8 bytes"));
        let payload_len = word(4);
        let count = word(8);
        let (seq, nodes, stored) = if version == 2 {
            (Some(long(12)), Some(long(20)).filter(|&n| n > 0), long(28))
        } else {
            (None, None, long(12))
        };
        if payload_len > MAX_CHUNK_PAYLOAD {
            return fail(format!("payload length {payload_len} out of range"));
        }
        let total = head_len + payload_len;
        if !self.input.fill(total)? {
            return fail(format!(
                "truncated chunk ({} of {total} bytes; a kill mid-write, or a writer still running)",
                self.input.available()
            ));
        }
        let chunk = &self.input.unread()[..total];
        let payload = &chunk[head_len..];
        let computed = if version == 2 {
            fnv_extend(fnv_extend(FNV_OFFSET, &chunk[..28]), payload)
        } else {
            fnv_extend(FNV_OFFSET, payload)
        };
        if computed != stored {
            return fail("checksum mismatch".into());
        }
        // The payload is intact: decode every game in it, whatever the count field says.
        let mut games = Vec::with_capacity(count.min(4096));
        let mut at = 0;
        while at < payload.len() {
            match GameRecord::decode(&payload[at..]) {
                Ok((g, used)) => {
                    games.push(g);
                    at += used;
                }
                Err(e) => {
                    return fail(format!(
                        "undecodable game {} of a chunk whose checksum holds: {e}",
                        games.len()
                    ))
                }
            }
        }
        let offset = self.input.offset();
        let mut problem = (games.len() != count).then(|| {
            format!(
                "chunk at byte {offset}: game count field says {count}, the payload holds {}",
                games.len()
            )
        });
        self.input.consume(total);
        match seq {
            Some(seq) => {
                if let Some(&(first, hash)) = self.seen_seq.get(&seq) {
                    if hash == computed {
                        return Ok(Attempt::Found(Item::Duplicate(Duplicate {
                            offset,
                            len: total as u64,
                            first_offset: first,
                            seq: Some(seq),
                        })));
                    }
                    problem.get_or_insert(format!(
                        "chunk at byte {offset}: game {seq} was also written at byte {first} with other games (two writers?)"
                    ));
                } else {
                    self.seen_seq.insert(seq, (offset, computed));
                }
            }
            None => {
                if let Some(&first) = self.seen_v1.get(&computed) {
                    return Ok(Attempt::Found(Item::Duplicate(Duplicate {
                        offset,
                        len: total as u64,
                        first_offset: first,
                        seq: None,
                    })));
                }
                self.seen_v1.insert(computed, offset);
            }
        }
        Ok(Attempt::Found(Item::Chunk(Chunk {
            offset,
            len: total as u64,
            version,
            seq,
            nodes,
            games,
            problem,
        })))
    }
}

/// Where a valid chunk lies, without its games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkSpan {
    /// Byte offset of the chunk in the file.
    pub offset: u64,
    /// Its length in bytes, header included.
    pub len: u64,
    /// The sequence number of its first game (version 2 chunks; `None` for version 1).
    pub seq: Option<u64>,
    /// The number of games in the chunk.
    pub games: u64,
    /// The number of scored positions in them (one per recorded move).
    pub positions: u64,
}

/// The sequence numbers a data file's (or a pack source's) chunks leave out below the last
/// one: games that were written and are gone (a chunk lost to damage, moved aside by a
/// repair, or cut out). Give it each chunk's first sequence number and game count, in any
/// order ([`SeqGaps::add`]); version 1 chunks have none and are not given.
#[derive(Clone, Debug, Default)]
pub struct SeqGaps {
    /// `[first, end)` of each chunk given.
    covered: Vec<(u64, u64)>,
}

impl SeqGaps {
    /// A chunk of `games` games numbered from `seq`.
    pub fn add(&mut self, seq: u64, games: u64) {
        self.covered.push((seq, seq.saturating_add(games)));
    }

    /// The missing sequence numbers, as ranges in increasing order (empty: none).
    pub fn missing(&self) -> Vec<std::ops::Range<u64>> {
        let mut covered = self.covered.clone();
        covered.sort_unstable();
        let (mut next, mut out) = (0u64, Vec::new());
        for (first, end) in covered {
            if first > next {
                out.push(next..first);
            }
            next = next.max(end);
        }
        out
    }

    /// `missing` in words for a problem line: `sequence numbers 2, 5 to 7 missing: 4 games
    /// written are gone`; `None` when nothing is missing.
    pub fn text(missing: &[std::ops::Range<u64>]) -> Option<String> {
        if missing.is_empty() {
            return None;
        }
        let games: u64 = missing.iter().map(|r| r.end - r.start).sum();
        let shown: Vec<String> = missing
            .iter()
            .take(10)
            .map(|r| match r.end - r.start {
                1 => r.start.to_string(),
                _ => format!("{} to {}", r.start, r.end - 1),
            })
            .collect();
        let more = if missing.len() > 10 { ", ..." } else { "" };
        Some(format!(
            "sequence number{} {}{more} missing: {games} game{} written {} gone",
            if games == 1 { "" } else { "s" },
            shown.join(", "),
            if games == 1 { "" } else { "s" },
            if games == 1 { "is" } else { "are" }
        ))
    }
}

/// Everything a whole-file read found.
#[derive(Debug)]
pub struct DataScan {
    /// The file header, or why it could not be read.
    pub header: Result<Header, RecordError>,
    /// Length of the valid header in bytes (0 when it is damaged).
    pub header_len: u64,
    /// File length.
    pub len: u64,
    /// Where each valid chunk lies, in file order.
    pub chunks: Vec<ChunkSpan>,
    /// The games of the valid chunks (empty when not kept).
    pub games: Vec<GameRecord>,
    /// Games in the valid chunks.
    pub game_count: u64,
    /// Scored positions in those games (one per recorded move).
    pub positions: u64,
    /// Nodes searched, over the chunks that record it (version 2).
    pub nodes: u64,
    /// Scored positions in the chunks that record their nodes (so `nodes /
    /// nodes_positions` is nodes per position).
    pub nodes_positions: u64,
    /// Byte ranges that belong to no valid chunk.
    pub damage: Vec<Damage>,
    /// Chunks that repeat an earlier chunk (read once).
    pub duplicates: Vec<Duplicate>,
    /// Inconsistencies that cost no game (a count field that disagrees with its payload, a
    /// sequence number used twice), one line each.
    pub problems: Vec<String>,
}

impl DataScan {
    /// True when the file has a good header and nothing damaged, repeated or inconsistent.
    pub fn is_clean(&self) -> bool {
        self.header.is_ok()
            && self.damage.is_empty()
            && self.duplicates.is_empty()
            && self.problems.is_empty()
    }

    /// Every problem, one line each.
    pub fn report(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Err(e) = &self.header {
            out.push(e.to_string());
        }
        // A damaged header is also the first damaged range; name it once.
        let skip = usize::from(self.header.is_err() && self.damage.first().is_some_and(|d| d.offset == 0));
        out.extend(self.damage.iter().skip(skip).map(|d| d.to_string()));
        if skip == 1 {
            out.push(format!("{} bytes skipped at the start", self.damage[0].len));
        }
        out.extend(self.duplicates.iter().map(|d| d.to_string()));
        out.extend(self.problems.iter().cloned());
        out
    }

    /// The sequence numbers its version 2 chunks leave out below the last ([`SeqGaps`]).
    pub fn missing_seqs(&self) -> Vec<std::ops::Range<u64>> {
        let mut gaps = SeqGaps::default();
        for c in &self.chunks {
            if let Some(seq) = c.seq {
                gaps.add(seq, c.games);
            }
        }
        gaps.missing()
    }

    /// The sequence number after the last game of any version 2 chunk (0 when none).
    pub fn next_seq(&self) -> u64 {
        self.chunks
            .iter()
            .filter_map(|c| c.seq.map(|s| s + c.games))
            .max()
            .unwrap_or(0)
    }
}

/// Reads a whole data file from `src`, keeping its games when `keep_games`.
pub fn scan_reader(src: impl Read, keep_games: bool) -> std::io::Result<DataScan> {
    let mut reader = DataReader::new(src)?;
    let mut s = DataScan {
        header: reader.header().cloned().map_err(Clone::clone),
        header_len: reader.header_len(),
        len: 0,
        chunks: Vec::new(),
        games: Vec::new(),
        game_count: 0,
        positions: 0,
        nodes: 0,
        nodes_positions: 0,
        damage: Vec::new(),
        duplicates: Vec::new(),
        problems: Vec::new(),
    };
    while let Some(item) = reader.next_item()? {
        match item {
            Item::Chunk(c) => {
                let positions: u64 = c.games.iter().map(|g| g.moves.len() as u64).sum();
                s.chunks.push(ChunkSpan {
                    offset: c.offset,
                    len: c.len,
                    seq: c.seq,
                    games: c.games.len() as u64,
                    positions,
                });
                s.game_count += c.games.len() as u64;
                s.positions += positions;
                if let Some(n) = c.nodes {
                    s.nodes += n;
                    s.nodes_positions += positions;
                }
                s.problems.extend(c.problem);
                if keep_games {
                    s.games.extend(c.games);
                }
            }
            Item::Damage(d) => s.damage.push(d),
            Item::Duplicate(d) => s.duplicates.push(d),
        }
    }
    s.len = reader.input.offset();
    Ok(s)
}

/// Why a list of paths given as data does not make a list of input files
/// ([`input_files`]).
#[derive(Debug)]
pub enum InputError {
    /// A path (or a directory below it) could not be read.
    Unreadable {
        /// The path as given.
        path: std::path::PathBuf,
        /// Why it could not be read.
        error: std::io::Error,
    },
    /// A path holds no data files (a directory without `*.bin`, or a corpus listing none).
    Empty(std::path::PathBuf),
    /// One file reached twice (given twice, or as a file and in its directory): its games
    /// would count twice, and a game held out for validation would be trained on through
    /// its other copy.
    Twice {
        /// The file as reached the second time.
        file: std::path::PathBuf,
        /// The same file as reached the first time.
        first: std::path::PathBuf,
        /// The paths given that reached it, first and second (the same when one path was
        /// given twice).
        given: [std::path::PathBuf; 2],
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Unreadable { path, error } => write!(f, "cannot read {}: {error}", path.display()),
            InputError::Empty(path) if crate::manifest::Manifest::read(path).is_ok_and(|m| m.is_some()) => {
                write!(f, "{}: its corpus manifest lists no packs", path.display())
            }
            InputError::Empty(path) => write!(f, "no data files (*.bin) under {}", path.display()),
            InputError::Twice { file, first, given } => {
                write!(f, "{} is given twice as data (", file.display())?;
                if file != first {
                    write!(f, "also as {}", first.display())?;
                } else {
                    write!(f, "through {} and {}", given[0].display(), given[1].display())?;
                }
                write!(f, "): its games would count twice; give each file once")
            }
        }
    }
}

impl std::error::Error for InputError {}

/// What makes two paths one file for [`input_files`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum FileIdentity {
    /// Device and inode number.
    Inode(u64, u64),
    /// The canonical path, where the file's metadata cannot be read.
    Path(std::path::PathBuf),
}

fn file_identity(file: &std::path::Path) -> FileIdentity {
    #[cfg(unix)]
    if let Ok(m) = std::fs::metadata(file) {
        use std::os::unix::fs::MetadataExt;
        return FileIdentity::Inode(m.dev(), m.ino());
    }
    FileIdentity::Path(std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf()))
}

/// The data files `paths` name, in order, each once: every path through [`data_files`]
/// (directories and corpus folders expanded), each file paired with the index in `paths`
/// of the path that named it. A file is the same file however it is reached (by device and
/// inode: through `..`, a symbolic link, a hard link or its directory). Errors: a path that cannot be read,
/// one with no data files (unless `allow_empty`: a folder that fills later), a file reached
/// twice. The one expansion of a list of data paths given to the trainer, datagen's readers
/// and packer, and `learn`'s extra data.
pub fn input_files(
    paths: &[impl AsRef<std::path::Path>],
    allow_empty: bool,
) -> Result<Vec<(usize, std::path::PathBuf)>, InputError> {
    let mut seen: HashMap<FileIdentity, (std::path::PathBuf, usize)> = HashMap::new();
    let mut out = Vec::new();
    for (index, path) in paths.iter().enumerate() {
        let path = path.as_ref();
        let files = data_files(path).map_err(|error| InputError::Unreadable {
            path: path.to_path_buf(),
            error,
        })?;
        if files.is_empty() && !allow_empty {
            return Err(InputError::Empty(path.to_path_buf()));
        }
        for file in files {
            // The file itself: its device and inode (one file under two hard links, or
            // through a symbolic link or `..`), else its canonical path.
            let key = file_identity(&file);
            if let Some((first, by)) = seen.insert(key, (file.clone(), index)) {
                return Err(InputError::Twice {
                    file,
                    first,
                    given: [paths[by].as_ref().to_path_buf(), path.to_path_buf()],
                });
            }
            out.push((index, file));
        }
    }
    Ok(out)
}

/// The data files `path` names: a file is itself; a corpus folder (a directory with a
/// `manifest.toml`, [`crate::manifest`]) gives the packs its manifest lists, in its order (a
/// listed file missing, or a manifest that does not read, is an error); any other directory
/// (a data store or one generation in it) gives its `*.bin` files at any depth, sorted by path. Symbolic links to
/// directories are not followed (no cycles); other files (quarantine, lock, logs) are left.
pub fn data_files(path: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    if !std::fs::metadata(path)?.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    match crate::manifest::Manifest::read(path) {
        Ok(Some(manifest)) => {
            let files = manifest.files(path);
            if let Some(missing) = files.iter().find(|f| !f.is_file()) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("{}: listed in the corpus manifest, not found", missing.display()),
                ));
            }
            return Ok(files);
        }
        Ok(None) => {}
        Err(e) => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                e.to_string(),
            ))
        }
    }
    let mut out = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let p = entry.path();
            if entry.file_type()?.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "bin")
                && std::fs::metadata(&p).is_ok_and(|m| m.is_file())
            {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Reads a whole data file held in memory, games included.
pub fn scan(bytes: &[u8]) -> DataScan {
    scan_reader(bytes, true).expect("reading from memory cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_game() -> GameRecord {
        // Castling, en passant and a promotion.
        let start = Board::from_fen("r3k2r/1P6/8/8/5p2/8/4P3/R3K2R w KQkq - 0 30").unwrap();
        let mut board = start;
        let mut moves = Vec::new();
        for (uci, score) in [
            ("e2e4", 10),
            ("f4e3", -5),
            ("e1g1", 20),
            ("a8a7", 0),
            ("b7b8q", 900),
        ] {
            let mv = board.parse_uci(uci).unwrap();
            moves.push((mv, score));
            board.play(mv);
        }
        GameRecord {
            start,
            start_eval: 12,
            result: Wdl::WhiteWins,
            moves,
        }
    }

    /// A different game for every `i` (the start position's eval and the first score).
    fn game(i: i16) -> GameRecord {
        let mut g = sample_game();
        g.start_eval = i;
        g.moves[0].1 = i;
        g
    }

    fn settings() -> GenHeader {
        GenHeader {
            generator: "test".into(),
            stream: 3,
            seed: 77,
            soft_nodes: 5000,
            hard_nodes: 40000,
            net_fingerprint: 0xDEAD_BEEF,
            net_hidden: 32,
            net_source: "embedded".into(),
            random_plies: 8,
            opening_soft_nodes: 1000,
            opening_hard_nodes: 8000,
            opening_max_score: 1000,
            book: "none".into(),
            book_fingerprint: 0,
            book_positions: 0,
            adjudicate: true,
            win_score: 2000,
            win_plies: 4,
            draw_score: 5,
            draw_plies: 12,
            draw_min_ply: 40,
            max_plies: 400,
            start_positions: StartPositions::Classical,
            ..GenHeader::default()
        }
    }

    /// `settings()` as a version 3 body (see `the_version_3_encoding_is_pinned`): "test"
    /// (length 4), stream 3, seed 77, 5000 = 88 27, 40000 = c0 b8 02, 0xDEADBEEF, 32,
    /// "embedded", 8, 1000, 8000, 1000, "none", 0, 0, adjudicate 1, 2000, 4, 5, 12, 40,
    /// 400 = 90 03, classical 0.
    const V3_GOLDEN: &str = "0474657374034d8827c0b802effdb6f50d2008656d62656464656408e807c03ee807046e6f6e65\
                             000001d00f04050c28900300";

    /// A file of `header` and `n` one-game v2 chunks; returns it and each chunk's offset.
    fn file_with(header: Vec<u8>, n: usize) -> (Vec<u8>, Vec<usize>) {
        let mut file = header;
        let mut offsets = Vec::new();
        for i in 0..n {
            offsets.push(file.len());
            encode_chunk(&[game(i as i16)], i as u64, 1000 + i as u64, &mut file);
        }
        (file, offsets)
    }

    /// What datagen writes now: a version 3 header and v2 chunks.
    fn v3_file(n: usize) -> (Vec<u8>, Vec<usize>) {
        file_with(encode_header(&settings()), n)
    }

    /// The one expansion of data paths: each file once in the order named, with the index
    /// of the path that named it; a file reached twice (given twice, through its directory,
    /// through `..` or a symbolic link) is refused naming both ways; an empty directory is
    /// refused unless allowed; a missing path cannot be read.
    #[test]
    fn input_files_name_each_file_once() {
        let dir = testing::temp("input-files");
        let (bytes, _) = v3_file(2);
        let store = dir.join("store");
        std::fs::create_dir_all(store.join("gen1")).unwrap();
        std::fs::write(store.join("gen1/games-0.bin"), &bytes).unwrap();
        std::fs::write(store.join("gen1/games-1.bin"), &bytes).unwrap();
        let lone = dir.join("lone.bin");
        std::fs::write(&lone, &bytes).unwrap();
        let found = input_files(&[&lone, &store], false).unwrap();
        assert_eq!(
            found,
            vec![
                (0, lone.clone()),
                (1, store.join("gen1/games-0.bin")),
                (1, store.join("gen1/games-1.bin")),
            ]
        );
        let twice = |paths: &[std::path::PathBuf]| match input_files(paths, false) {
            Err(InputError::Twice { file, first, .. }) => (file, first),
            other => panic!("{paths:?}: {other:?}"),
        };
        assert_eq!(twice(&[lone.clone(), lone.clone()]), (lone.clone(), lone.clone()));
        let inner = store.join("gen1/games-1.bin");
        assert_eq!(
            twice(&[inner.clone(), store.clone()]),
            (inner.clone(), inner.clone())
        );
        let dotted = store.join("gen1/../gen1/games-1.bin");
        assert_eq!(twice(&[store.clone(), dotted.clone()]).0, dotted);
        let link = dir.join("link.bin");
        std::os::unix::fs::symlink(&lone, &link).unwrap();
        assert_eq!(twice(&[lone.clone(), link.clone()]), (link.clone(), lone.clone()));
        let hard = dir.join("hard.bin");
        std::fs::hard_link(&lone, &hard).unwrap();
        assert_eq!(twice(&[hard.clone(), lone.clone()]), (lone.clone(), hard.clone()));
        let message = input_files(&[&lone, &link], false).unwrap_err().to_string();
        assert_eq!(
            message,
            format!(
                "{} is given twice as data (also as {}): its games would count twice; give each \
                 file once",
                link.display(),
                lone.display()
            )
        );
        // Reached as itself and through its directory: the message names both paths given.
        let message = input_files(&[inner.clone(), store.clone()], false)
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            format!(
                "{} is given twice as data (through {} and {}): its games would count twice; \
                 give each file once",
                inner.display(),
                inner.display(),
                store.display()
            )
        );
        let empty = dir.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        assert!(matches!(input_files(&[&empty], false), Err(InputError::Empty(p)) if p == empty));
        assert_eq!(
            input_files(&[&empty, &lone], true).unwrap(),
            vec![(1, lone.clone())]
        );
        assert!(matches!(
            input_files(&[dir.join("missing")], true),
            Err(InputError::Unreadable { .. })
        ));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A version 2 file (the fixed-layout header, the same chunks).
    fn v2_file(n: usize) -> (Vec<u8>, Vec<usize>) {
        file_with(encode_header_v2(&settings()), n)
    }

    fn v1_file(n: usize) -> (Vec<u8>, Vec<usize>) {
        let mut file = encode_header_v1("nodes=5000\n");
        let mut offsets = Vec::new();
        for i in 0..n {
            offsets.push(file.len());
            encode_chunk_v1(&[game(i as i16)], &mut file);
        }
        (file, offsets)
    }

    fn evals(s: &DataScan) -> Vec<i16> {
        s.games.iter().map(|g| g.start_eval).collect()
    }

    #[test]
    fn game_round_trip() {
        let game = sample_game();
        let mut bytes = Vec::new();
        game.encode(&mut bytes);
        assert_eq!(bytes.len(), 32 + 5 * 4 + 4);
        let (back, used) = GameRecord::decode(&bytes).unwrap();
        assert_eq!(used, bytes.len());
        assert_eq!(back, game);
        assert_eq!(back.positions().count(), 5);
        // Chess960 castling rights survive packing.
        let b = Board::from_fen("1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1").unwrap();
        let g = GameRecord {
            start: b,
            start_eval: 0,
            result: Wdl::Draw,
            moves: vec![],
        };
        let mut bytes = Vec::new();
        g.encode(&mut bytes);
        assert_eq!(GameRecord::decode(&bytes).unwrap().0.start, b);
    }

    #[test]
    fn packed_board_gives_the_pieces_and_side() {
        for fen in [
            "r3k2r/1P6/8/8/5p2/8/4P3/R3K2R b KQkq - 0 30",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ] {
            let board = Board::from_fen(fen).unwrap();
            let packed = packed_board(&board, -37, Wdl::Draw);
            let pieces: Vec<(Square, Piece)> = packed_pieces(&packed).collect();
            let expected: Vec<(Square, Piece)> = board
                .occupied()
                .map(|sq| (sq, board.piece_on(sq).unwrap()))
                .collect();
            assert_eq!(pieces, expected, "{fen}");
            assert_eq!(packed_side_to_move(&packed), board.side_to_move());
            assert_eq!(unpack_board(&packed).unwrap(), (board, -37, Wdl::Draw));
        }
    }

    #[test]
    fn v3_header_and_chunks_round_trip() {
        let (file, offsets) = v3_file(3);
        let s = scan(&file);
        assert!(s.is_clean(), "{:?}", s.report());
        assert_eq!(s.header, Ok(Header::V3(settings())));
        assert_eq!(s.header_len as usize, offsets[0]);
        assert_eq!(evals(&s), vec![0, 1, 2]);
        assert_eq!(
            s.chunks.iter().map(|c| c.seq).collect::<Vec<_>>(),
            vec![Some(0), Some(1), Some(2)]
        );
        assert_eq!((s.nodes, s.nodes_positions), (3003, 15));
        assert_eq!(s.next_seq(), 3);
        assert_eq!(s.len as usize, file.len());
        // The header describes every setting; same_run ignores the stream and sources only.
        let text = s.header.as_ref().unwrap().describe();
        assert!(
            text.contains("nodes=5000 (hard 40000)") && text.contains("win=2000 cp for 4 plies"),
            "{text}"
        );
        let mut other = settings();
        other.stream = 9;
        other.net_source = "nets/x.nnue".into();
        assert!(settings().same_run(&other));
        other.draw_plies = 11;
        assert!(!settings().same_run(&other));
        let mut other = settings();
        other.start_positions = StartPositions::Chess960;
        assert!(!settings().same_run(&other));
        assert!(text.contains("start_positions=classical"), "{text}");
        // Every start kind goes round trip.
        for start in [StartPositions::Chess960, StartPositions::DoubleChess960] {
            let h = GenHeader {
                start_positions: start,
                ..settings()
            };
            assert_eq!(scan(&encode_header(&h)).header, Ok(Header::V3(h)));
        }
    }

    #[test]
    fn version_2_files_still_read() {
        let (v2, offsets) = v2_file(3);
        let (v3, _) = v3_file(3);
        let (a, b) = (scan(&v2), scan(&v3));
        assert!(a.is_clean(), "{:?}", a.report());
        assert_eq!(a.header, Ok(Header::V2(settings())));
        assert_eq!(a.header.as_ref().map(Header::version), Ok(2));
        assert_eq!(a.header_len as usize, offsets[0]);
        // Only the header differs: the same games, sequence numbers and nodes.
        assert_eq!(
            (&a.games, a.next_seq(), a.nodes),
            (&b.games, b.next_seq(), b.nodes)
        );
        assert_eq!(&v2[offsets[0]..], &v3[b.header_len as usize..]);
        assert_eq!(
            a.header.as_ref().unwrap().settings(),
            b.header.as_ref().unwrap().settings()
        );
        // Version 2 cannot say where games start: a Chess960 run's v2 header reads classical.
        let h = GenHeader {
            start_positions: StartPositions::Chess960,
            ..settings()
        };
        let back = scan(&encode_header_v2(&h)).header.unwrap();
        assert_eq!(
            back.settings().unwrap().start_positions,
            StartPositions::Classical
        );
    }

    /// The version 3 body is postcard of `GenHeader` as it is declared; these bytes pin it,
    /// so a change to the structure (which would make written files unreadable) fails here
    /// and needs a new version.
    #[test]
    fn the_version_3_encoding_is_pinned() {
        let body = settings().encode_body_v3();
        let hex: String = body.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, V3_GOLDEN);
        assert_eq!(GenHeader::decode_body_v3(&body), Ok(settings()));
        // A short body, a trailing byte and an unknown start kind are refused.
        assert!(GenHeader::decode_body_v3(&body[..body.len() - 1]).is_err());
        let mut long = body.clone();
        long.push(0);
        assert_eq!(
            GenHeader::decode_body_v3(&long),
            Err(RecordError::BadHeader("1 bytes after the settings".into()))
        );
        let mut bad = body.clone();
        *bad.last_mut().unwrap() = 3;
        let e = GenHeader::decode_body_v3(&bad).unwrap_err().to_string();
        assert!(e.contains("settings unreadable"), "{e}");
        // In a file the checksum comes first: a changed body byte is a checksum mismatch.
        let mut file = encode_header(&settings());
        file[20] ^= 1;
        assert_eq!(
            scan(&file).header,
            Err(RecordError::BadHeader("header checksum mismatch".into()))
        );
    }

    /// Version 4: the v3 body then the named settings; written only when one is set, read
    /// back with unknown keys kept; a version 3 header stays byte for byte what it was.
    #[test]
    fn version_4_adds_named_settings_after_the_v3_body() {
        assert_eq!(settings().version(), 3);
        assert_eq!(&encode_header(&settings())[8..12], &3u32.to_le_bytes());
        let tb = GenHeader {
            syzygy: "/tables/345".into(),
            syzygy_pieces: 5,
            extra: vec![("later".into(), "x".into())],
            ..settings()
        };
        assert_eq!(tb.version(), 4);
        let body = tb.encode_body_v4();
        let v3_len = V3_GOLDEN.len() / 2;
        assert_eq!(&body[..v3_len], &settings().encode_body_v3()[..]);
        // Three pairs: varint count 3, then each string as a varint length and its bytes.
        assert_eq!(body[v3_len], 3);
        assert_eq!(&body[v3_len + 1..v3_len + 8], b"\x06syzygy");
        assert_eq!(GenHeader::decode_body_v4(&body), Ok(tb.clone()));
        let file = encode_header(&tb);
        assert_eq!(&file[8..12], &4u32.to_le_bytes());
        let read = scan(&file).header.unwrap();
        assert_eq!(read, Header::V4(tb.clone()));
        assert!(read
            .describe()
            .contains("syzygy=/tables/345 (up to 5 pieces)\nlater=x\n"));
        assert!(tb.same_run(&tb) && !tb.same_run(&settings()));
        let mut bad = tb.encode_body_v4();
        bad.push(0);
        assert!(GenHeader::decode_body_v4(&bad).is_err());
    }

    /// A run is the same run wherever its net, book and tables lay: the names they were read
    /// under do not count, their fingerprints, position count and what was loaded do; an
    /// older header that named the tables' folders matches the same piece count.
    #[test]
    fn the_same_run_does_not_depend_on_where_its_files_lay() {
        assert_eq!(source_file_name("/home/me/nets/gen22-128.nnue"), "gen22-128.nnue");
        assert_eq!(source_file_name("nets\\gen22-128.nnue"), "gen22-128.nnue");
        for whole in ["gen22-128.nnue", "embedded", "none", "pgn games.pgn"] {
            assert_eq!(source_file_name(whole), whole);
        }
        let run = GenHeader {
            net_source: "x.nnue".into(),
            book: "book.epd".into(),
            book_fingerprint: 0x1234,
            book_positions: 3,
            syzygy: syzygy_description(35),
            syzygy_pieces: 4,
            ..settings()
        };
        assert_eq!(run.syzygy, "35 WDL tables");
        let elsewhere = GenHeader {
            net_source: "/elsewhere/nets/x.nnue".into(),
            book: "/elsewhere/book.epd".into(),
            ..run.clone()
        };
        assert!(run.same_run(&elsewhere) && elsewhere.same_run(&run));
        let refused = |change: &dyn Fn(&mut GenHeader)| {
            let mut other = run.clone();
            change(&mut other);
            !run.same_run(&other) && !other.same_run(&run)
        };
        let mut other_net = run.clone();
        other_net.net_fingerprint ^= 1;
        assert_eq!(run.run_differences(&other_net), ["net_fingerprint"]);
        assert!(refused(&|h| h.net_fingerprint ^= 1));
        assert!(refused(&|h| h.book_fingerprint ^= 1));
        assert!(refused(&|h| h.book_positions += 1));
        assert!(refused(&|h| h.syzygy = syzygy_description(34)));
        assert!(refused(&|h| h.syzygy_pieces = 5));
        assert!(refused(&|h| {
            h.syzygy.clear();
            h.syzygy_pieces = 0
        }));
        // An older header named the folders: the same piece count is the same tables.
        let older = GenHeader {
            syzygy: "/data/syzygy:/more/syzygy".into(),
            ..run.clone()
        };
        assert!(run.same_run(&older) && older.same_run(&run));
        let older_5 = GenHeader {
            syzygy_pieces: 5,
            ..older.clone()
        };
        assert!(!run.same_run(&older_5) && !older_5.same_run(&run));
        assert_eq!(syzygy_table_count("35 WDL tables"), Some(35));
        for not in [
            "",
            "WDL tables",
            " WDL tables",
            "/t/35 WDL tables",
            "35 WDL tables/",
        ] {
            assert_eq!(syzygy_table_count(not), None, "{not:?}");
        }
    }

    /// Fault 5a: one flipped byte anywhere in a middle chunk costs that chunk only; every
    /// chunk after it is read, and the damage is reported with its offset and length.
    #[test]
    fn a_flipped_byte_costs_only_its_chunk() {
        for (file, offsets) in [v3_file(5), v2_file(5), v1_file(5)] {
            let (start, end) = (offsets[2], offsets[3]);
            for i in start..end {
                let mut bad = file.clone();
                bad[i] ^= 0x10;
                let s = scan(&bad);
                if i >= start + 8 && i < start + 12 && &file[start..start + 4] == CHUNK_MAGIC_V1 {
                    // v1's count field is outside the checksum: the games stay, the count
                    // is reported.
                    assert_eq!(evals(&s), vec![0, 1, 2, 3, 4]);
                    assert!(s.damage.is_empty() && s.problems.len() == 1, "{:?}", s.report());
                    assert!(
                        s.problems[0].contains("game count field says"),
                        "{:?}",
                        s.problems
                    );
                    continue;
                }
                assert_eq!(evals(&s), vec![0, 1, 3, 4], "flip at {i}");
                assert_eq!(
                    s.damage,
                    vec![Damage {
                        offset: start as u64,
                        len: (end - start) as u64,
                        what: s.damage[0].what.clone()
                    }],
                    "flip at {i}"
                );
                assert!(!s.is_clean());
            }
        }
    }

    /// Fault 5b: in version 2 the count field is under the checksum.
    #[test]
    fn a_changed_count_fails_the_v2_checksum() {
        let (file, offsets) = v3_file(3);
        let mut bad = file.clone();
        bad[offsets[1] + 8] = 2;
        let s = scan(&bad);
        assert_eq!(evals(&s), vec![0, 2]);
        assert_eq!(s.damage.len(), 1);
        assert_eq!(s.damage[0].what, "checksum mismatch");
        // Likewise the sequence number and the nodes.
        for field in [12, 20] {
            let mut bad = file.clone();
            bad[offsets[1] + field] ^= 1;
            assert_eq!(scan(&bad).damage.len(), 1, "field at {field}");
        }
    }

    #[test]
    fn v1_count_field_changes_keep_the_games() {
        let (file, offsets) = v1_file(3);
        for count in [0u32, 2, 7] {
            let mut bad = file.clone();
            bad[offsets[1] + 8..offsets[1] + 12].copy_from_slice(&count.to_le_bytes());
            let s = scan(&bad);
            assert_eq!(evals(&s), vec![0, 1, 2], "count {count}");
            assert_eq!(
                s.problems,
                vec![format!(
                    "chunk at byte {}: game count field says {count}, the payload holds 1",
                    offsets[1]
                )]
            );
            assert!(!s.is_clean());
        }
    }

    #[test]
    fn truncation_keeps_every_whole_chunk() {
        for (file, offsets) in [v3_file(4), v2_file(4), v1_file(4)] {
            for cut in offsets[0]..file.len() {
                let s = scan(&file[..cut]);
                let whole = offsets.iter().skip(1).filter(|&&o| o <= cut).count();
                assert_eq!(s.game_count as usize, whole, "cut at {cut}");
                let tail = cut - offsets.get(whole).copied().unwrap_or(file.len()).min(cut);
                assert_eq!(s.damage.len(), usize::from(tail > 0), "cut at {cut}");
            }
        }
    }

    /// Fault 5d at the format level: a chunk written twice is reported and read once; the
    /// same game number with other games is reported and both are kept.
    #[test]
    fn duplicate_chunks_are_reported_and_read_once() {
        let (mut file, _) = v3_file(2);
        let dup = file.len();
        encode_chunk(&[game(1)], 1, 1001, &mut file);
        encode_chunk(&[game(9)], 0, 5, &mut file);
        encode_chunk(&[game(2)], 2, 1002, &mut file);
        let s = scan(&file);
        assert_eq!(evals(&s), vec![0, 1, 9, 2]);
        assert_eq!(s.duplicates.len(), 1);
        assert_eq!(
            (s.duplicates[0].offset as usize, s.duplicates[0].seq),
            (dup, Some(1))
        );
        assert_eq!(s.problems.len(), 1);
        assert!(
            s.problems[0].contains("game 0 was also written"),
            "{:?}",
            s.problems
        );
        assert!(!s.is_clean());
        // Version 1 has no sequence numbers: a byte-identical chunk is the duplicate.
        let (mut file, offsets) = v1_file(2);
        let again = file[offsets[1]..].to_vec();
        file.extend_from_slice(&again);
        let s = scan(&file);
        assert_eq!(evals(&s), vec![0, 1]);
        assert_eq!(s.duplicates.len(), 1);
    }

    /// Fault 5c and header damage: an empty or cut file is reported, and a damaged header
    /// does not hide the chunks after it.
    #[test]
    fn header_damage_is_reported_and_chunks_still_read() {
        let s = scan(b"");
        assert_eq!(s.header, Err(RecordError::BadHeader("empty file".into())));
        assert!(s.damage.is_empty() && s.game_count == 0);
        let (file, offsets) = v3_file(3);
        for cut in 1..offsets[0] {
            let s = scan(&file[..cut]);
            assert!(s.header.is_err(), "cut at {cut}");
            assert_eq!(s.game_count, 0);
        }
        for i in [0, 9, 13, 20, offsets[0] - 1] {
            let mut bad = file.clone();
            bad[i] ^= 4;
            let s = scan(&bad);
            assert!(s.header.is_err(), "flip at {i}");
            assert_eq!(evals(&s), vec![0, 1, 2], "flip at {i}");
            assert_eq!(s.damage[0].offset, 0);
            assert_eq!(s.damage[0].len as usize, offsets[0]);
            assert_eq!(s.report().len(), 2, "{:?}", s.report());
        }
        assert!(scan(b"garbage").header.is_err());
        // No header at all, the first chunk at byte 0 (what unpacking a pack whose source
        // kept no header writes): the header is reported missing and every game reads; no
        // byte is damage. It used to skip byte 0 and lose the first chunk.
        let headerless = &file[offsets[0]..];
        let s = scan(headerless);
        assert!(s.header.is_err());
        assert_eq!(evals(&s), vec![0, 1, 2]);
        assert!(s.damage.is_empty(), "{:?}", s.damage);
        // The same read in tiny pieces (the magic test must not need the whole chunk).
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = buf.len().min(self.0.len()).min(1);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let s = scan_reader(Trickle(headerless), true).unwrap();
        assert_eq!(evals(&s), vec![0, 1, 2]);
        assert!(s.damage.is_empty());
    }

    /// The reader gives the same answer however its source splits the bytes.
    #[test]
    fn reading_in_tiny_pieces_matches() {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.1.min(buf.len()).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let (mut file, offsets) = v3_file(6);
        file[offsets[2] + 40] ^= 1;
        file.extend_from_slice(b"CHN");
        let whole = scan(&file);
        for step in [1, 3, 7, 64] {
            let s = scan_reader(Trickle(&file, step), true).unwrap();
            assert_eq!(evals(&s), evals(&whole));
            assert_eq!(s.damage, whole.damage);
            assert_eq!(s.len, whole.len);
        }
        assert_eq!(whole.damage.len(), 2);
        assert_eq!(whole.damage[1].len, 3);
    }

    /// Version 1 files still read, every game: the first 120 games of a generation-3 file,
    /// committed as `testdata/selfplay/gen3-b-v1.bin`.
    #[test]
    fn v1_files_still_read() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/selfplay/gen3-b-v1.bin");
        let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let s = scan_reader(std::io::BufReader::new(file), false).unwrap();
        assert_eq!(s.header.as_ref().map(Header::version), Ok(1));
        assert!(s.is_clean(), "{:?}", s.report());
        assert_eq!((s.game_count, s.positions), (120, 18_213));
    }
}
