//! Training records: whole self-play games, stored compactly (`NNUE.md`, the layout known as
//! viriformat), and the container file datagen writes them into.
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
//! Scores are White-relative centipawns from the search that chose the move.
//!
//! The container: a header (`LUFTGAME`, version, settings text, checksum), then chunks
//! (`CHNK`, payload length, game count, FNV-1a of the payload, payload). Each finished game
//! is appended as its own chunk, so a writer killed at any moment loses at most the game in
//! flight, and a reader skips nothing silently: a damaged chunk is reported with its file
//! offset and the chunks before it still read.

use crate::file::fnv1a;
use movegen::{Board, CastleSide, Color, File, Move, PieceType, Square};
use std::fmt;

pub const GAME_MAGIC: &[u8; 8] = b"LUFTGAME";
pub const GAME_VERSION: u32 = 1;
pub const CHUNK_MAGIC: &[u8; 4] = b"CHNK";
const CASTLING_ROOK: u8 = 6;

/// A problem in a record or data file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// Fewer bytes than the structure needs.
    Truncated,
    /// A packed board that is not a legal position.
    BadBoard(String),
    /// A move that is not legal in its position.
    IllegalMove { ply: usize },
    /// A file without the `LUFTGAME` header.
    BadHeader(String),
    /// A chunk whose magic, length or checksum is wrong, at this byte offset.
    BadChunk { offset: u64, what: String },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Truncated => write!(f, "record truncated"),
            RecordError::BadBoard(e) => write!(f, "bad packed board: {e}"),
            RecordError::IllegalMove { ply } => write!(f, "illegal move at ply {ply}"),
            RecordError::BadHeader(e) => write!(f, "bad data file header: {e}"),
            RecordError::BadChunk { offset, what } => write!(f, "bad chunk at byte {offset}: {what}"),
        }
    }
}

impl std::error::Error for RecordError {}

/// White-relative game result.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Wdl {
    BlackWins = 0,
    Draw = 1,
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
    pub start: Board,
    pub start_eval: i16,
    pub result: Wdl,
    pub moves: Vec<(Move, i16)>,
}

fn pack_board(board: &Board, eval: i16, result: Wdl, out: &mut Vec<u8>) {
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

fn unpack_board(bytes: &[u8]) -> Result<(Board, i16, Wdl), RecordError> {
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

/// The training filter of `NNUE.md`: ply >= 16, side to move not in check, best move neither
/// capture nor promotion, score outside the mate band, at least 4 pieces.
pub fn keep_for_training(board: &Board, best: Move, score: i16, ply: usize) -> bool {
    ply >= 16
        && !board.in_check()
        && !board.is_capture(best)
        && best.promotion().is_none()
        && score.abs() < MATE_BAND
        && board.occupied().len() >= 4
}

/// The file header: version and the generator's settings as `key=value` lines.
pub fn encode_header(settings: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 + settings.len());
    out.extend_from_slice(GAME_MAGIC);
    out.extend_from_slice(&GAME_VERSION.to_le_bytes());
    out.extend_from_slice(&(settings.len() as u32).to_le_bytes());
    out.extend_from_slice(settings.as_bytes());
    let checksum = fnv1a(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// Appends one chunk holding `games` to `out`.
pub fn encode_chunk(games: &[GameRecord], out: &mut Vec<u8>) {
    let mut payload = Vec::new();
    for g in games {
        g.encode(&mut payload);
    }
    out.extend_from_slice(CHUNK_MAGIC);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&(games.len() as u32).to_le_bytes());
    out.extend_from_slice(&fnv1a(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
}

/// What a scan of a data file found.
#[derive(Debug, Default)]
pub struct DataScan {
    /// The settings text of the header.
    pub settings: String,
    pub games: Vec<GameRecord>,
    /// Bytes up to the end of the last good chunk.
    pub valid_len: u64,
    /// The first problem, if any (everything after it is unread).
    pub error: Option<RecordError>,
}

/// Reads a whole data file's bytes: the header, then chunks until the end or the first bad
/// one. With `decode` false the games are checked by checksum only, not decoded.
pub fn scan(bytes: &[u8], decode: bool) -> Result<DataScan, RecordError> {
    if bytes.len() < 24 || &bytes[..8] != GAME_MAGIC {
        return Err(RecordError::BadHeader("missing LUFTGAME magic".into()));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != GAME_VERSION {
        return Err(RecordError::BadHeader(format!("unsupported version {version}")));
    }
    let len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let header_end = 16 + len + 8;
    if bytes.len() < header_end {
        return Err(RecordError::BadHeader("truncated header".into()));
    }
    let stored = u64::from_le_bytes(bytes[16 + len..header_end].try_into().expect("8 bytes"));
    if stored != fnv1a(&bytes[..16 + len]) {
        return Err(RecordError::BadHeader("header checksum mismatch".into()));
    }
    let mut result = DataScan {
        settings: String::from_utf8_lossy(&bytes[16..16 + len]).into_owned(),
        valid_len: header_end as u64,
        ..DataScan::default()
    };
    let mut offset = header_end;
    while offset < bytes.len() {
        let bad = |what: String| RecordError::BadChunk {
            offset: offset as u64,
            what,
        };
        let Some(head) = bytes.get(offset..offset + 20) else {
            result.error = Some(bad("truncated chunk header".into()));
            break;
        };
        if &head[..4] != CHUNK_MAGIC {
            result.error = Some(bad("missing CHNK magic".into()));
            break;
        }
        let payload_len = u32::from_le_bytes(head[4..8].try_into().expect("4 bytes")) as usize;
        let count = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes")) as usize;
        let checksum = u64::from_le_bytes(head[12..20].try_into().expect("8 bytes"));
        let Some(payload) = bytes.get(offset + 20..offset + 20 + payload_len) else {
            result.error = Some(bad(format!("truncated payload ({payload_len} bytes announced)")));
            break;
        };
        if fnv1a(payload) != checksum {
            result.error = Some(bad("checksum mismatch".into()));
            break;
        }
        if decode {
            let mut at = 0;
            let mut games = Vec::with_capacity(count);
            for _ in 0..count {
                match GameRecord::decode(&payload[at..]) {
                    Ok((g, used)) => {
                        games.push(g);
                        at += used;
                    }
                    Err(e) => {
                        result.error = Some(bad(format!("undecodable game: {e}")));
                        return Ok(result);
                    }
                }
            }
            result.games.extend(games);
        }
        offset += 20 + payload_len;
        result.valid_len = offset as u64;
    }
    Ok(result)
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
    fn file_scan_reports_damage_and_keeps_good_chunks() {
        let mut file = encode_header("nodes=5000\n");
        for _ in 0..3 {
            encode_chunk(&[sample_game()], &mut file);
        }
        let scan_ok = scan(&file, true).unwrap();
        assert_eq!(
            (
                scan_ok.games.len(),
                scan_ok.error.clone(),
                scan_ok.settings.as_str()
            ),
            (3, None, "nodes=5000\n")
        );
        // Truncated in the middle of the last chunk: two games read, the offset named.
        let cut = &file[..file.len() - 10];
        let s = scan(cut, true).unwrap();
        assert_eq!(s.games.len(), 2);
        let chunk_len = (file.len() - 35) / 3;
        assert_eq!(s.valid_len as usize, 35 + 2 * chunk_len);
        assert!(
            matches!(s.error, Some(RecordError::BadChunk { offset, .. }) if offset as usize == 35 + 2 * chunk_len)
        );
        // A flipped byte in the first chunk's payload.
        let mut bad = file.clone();
        bad[35 + 25] ^= 1;
        let s = scan(&bad, true).unwrap();
        assert_eq!(s.games.len(), 0);
        assert_eq!(
            s.error,
            Some(RecordError::BadChunk {
                offset: 35,
                what: "checksum mismatch".into()
            })
        );
        assert!(scan(b"garbage", true).is_err());
    }
}
