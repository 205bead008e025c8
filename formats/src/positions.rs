//! Lone scored positions, as `datagen convert` exports them and other tools write them: a
//! position with its search score and its game's result, no game around it. Two formats,
//! both written and read here, so that the exporter and every reader agree:
//!
//! - **text** ([`text_line`], [`parse_text_line`]): one position a line, `FEN | cp |
//!   result`, the score in centipawns and the result (`1.0`, `0.5`, `0.0`) both from
//!   White's view, as bullet's and most trainers' text format has it. A reader also takes
//!   `1`, `0`, `1-0`, `0-1`, `1/2-1/2` and `1/2` as results.
//! - **bulletformat** ([`bullet_record`], [`parse_bullet_record`]): 32 bytes a position,
//!   everything from the side to move's view: the occupancy (little-endian; a Black-to-move
//!   board flipped vertically), one nibble per occupied square in ascending order, low
//!   nibble first (`1 << 3` for the side not to move, `0` pawn .. `5` king), the score
//!   (i16, bytes 24..26), the result (byte 26: 0 loss, 1 draw, 2 win), the side to move's
//!   king square (byte 27) and the other king's, flipped (byte 28); bytes 29..32 are zero.
//!   The format does not say which colour is to move, nor castling rights or the en passant
//!   square: a record reads back as the side to move's view with White to move, which
//!   gives the same network inputs (every feature is relative to a perspective).
//!
//! A position read either way goes through the training filter as far as a lone position
//! allows ([`crate::record::keep_lone_for_training`]): not in check, the score outside the
//! mate band, at least 4 pieces; the ply and the move played, which the rest of the filter
//! looks at, are not known. Boards are read with [`movegen`]'s relaxed validation (what move
//! generation needs), as other tools' positions need not be ones a game reaches.

use crate::record::Wdl;
use movegen::fen::Validation;
use movegen::{Board, Color, Piece, PieceType, Square};

/// The size of one bulletformat record.
pub const BULLET_RECORD: usize = 32;

/// A position with its search score and its game's result, both from White's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoredPosition {
    /// The position.
    pub board: Board,
    /// The search score, White's view, centipawns.
    pub score: i16,
    /// The game's result, White's view.
    pub result: Wdl,
}

/// The text line of a position (without the line break): `FEN | cp | result`.
pub fn text_line(board: &Board, score_white: i16, result: Wdl) -> String {
    let result = match result {
        Wdl::WhiteWins => "1.0",
        Wdl::Draw => "0.5",
        Wdl::BlackWins => "0.0",
    };
    format!("{} | {score_white} | {result}", board.to_fen())
}

/// Reads one text line (`FEN | cp | result`); the error says what is wrong with it.
pub fn parse_text_line(line: &str) -> Result<ScoredPosition, String> {
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let [fen, score, result] = fields.as_slice() else {
        return Err(format!(
            "expected `FEN | cp | result` (three fields between |), found {} field(s)",
            fields.len()
        ));
    };
    let board =
        Board::from_fen_with(fen, Validation::Relaxed).map_err(|e| format!("bad FEN {fen:?}: {e}"))?;
    let score = score.parse::<i16>().map_err(|_| {
        format!("the score {score:?} is not a whole number of centipawns from -32768 to 32767")
    })?;
    let result = match *result {
        "1.0" | "1" | "1-0" => Wdl::WhiteWins,
        "0.5" | "1/2" | "1/2-1/2" => Wdl::Draw,
        "0.0" | "0" | "0-1" => Wdl::BlackWins,
        other => {
            return Err(format!(
                "the result {other:?} is not 1.0, 0.5 or 0.0 (White's view)"
            ))
        }
    };
    Ok(ScoredPosition { board, score, result })
}

/// The bulletformat record of a position (see the module notes).
pub fn bullet_record(board: &Board, score_white: i16, result: Wdl) -> [u8; BULLET_RECORD] {
    let stm = board.side_to_move();
    let flip = |sq: Square| {
        if stm == Color::White {
            sq.index()
        } else {
            sq.index() ^ 56
        }
    };
    let mut squares: Vec<(usize, u8)> = board
        .occupied()
        .filter_map(|sq| {
            board
                .piece_on(sq)
                .map(|p| (flip(sq), u8::from(p.color != stm) << 3 | p.kind as u8))
        })
        .collect();
    squares.sort_by_key(|&(s, _)| s);
    let mut out = [0u8; BULLET_RECORD];
    let occ: u64 = squares.iter().fold(0, |acc, &(s, _)| acc | 1 << s);
    out[..8].copy_from_slice(&occ.to_le_bytes());
    for (i, &(_, code)) in squares.iter().take(32).enumerate() {
        out[8 + i / 2] |= code << (4 * (i % 2));
    }
    let score = if stm == Color::White {
        score_white
    } else {
        score_white.saturating_neg()
    };
    out[24..26].copy_from_slice(&score.to_le_bytes());
    let white_result = result as u8;
    out[26] = if stm == Color::White {
        white_result
    } else {
        2 - white_result
    };
    out[27] = flip(board.king(stm)) as u8;
    out[28] = (flip(board.king(!stm)) ^ 56) as u8;
    out
}

/// Reads one bulletformat record: the side to move's view, White to move (see the module
/// notes); the error says what is wrong with it.
pub fn parse_bullet_record(record: &[u8; BULLET_RECORD]) -> Result<ScoredPosition, String> {
    let occ = u64::from_le_bytes(record[..8].try_into().map_err(|_| "short record".to_string())?);
    if occ.count_ones() > 32 {
        return Err(format!("{} occupied squares (at most 32)", occ.count_ones()));
    }
    let mut placement: [Option<Piece>; 64] = [None; 64];
    let mut bits = occ;
    let mut i = 0;
    while bits != 0 {
        let sq = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let code = (record[8 + i / 2] >> (4 * (i % 2))) & 0xf;
        let kind = match code & 7 {
            0 => PieceType::Pawn,
            1 => PieceType::Knight,
            2 => PieceType::Bishop,
            3 => PieceType::Rook,
            4 => PieceType::Queen,
            5 => PieceType::King,
            other => return Err(format!("piece code {other} on square {sq} (0 pawn .. 5 king)")),
        };
        let color = if code & 8 == 0 { Color::White } else { Color::Black };
        placement[sq] = Some(Piece::new(color, kind));
        i += 1;
    }
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match placement[rank * 8 + file] {
                Some(p) => {
                    if empty > 0 {
                        fen.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    fen.push(p.to_char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            fen.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    fen.push_str(" w - - 0 1");
    let board = Board::from_fen_with(&fen, Validation::Relaxed)
        .map_err(|e| format!("not a playable position ({fen}): {e}"))?;
    let score = i16::from_le_bytes([record[24], record[25]]);
    let result = match record[26] {
        0 => Wdl::BlackWins,
        1 => Wdl::Draw,
        2 => Wdl::WhiteWins,
        other => return Err(format!("result byte {other} (0 loss, 1 draw, 2 win)")),
    };
    Ok(ScoredPosition { board, score, result })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lines_go_round_trip() {
        let board = Board::from_fen("r3k2r/pp3ppp/8/3pP3/8/8/PPP2PPP/R3K2R w KQkq d6 0 12").unwrap();
        let line = text_line(&board, -37, Wdl::Draw);
        assert_eq!(
            line,
            "r3k2r/pp3ppp/8/3pP3/8/8/PPP2PPP/R3K2R w KQkq d6 0 12 | -37 | 0.5"
        );
        let back = parse_text_line(&line).unwrap();
        assert_eq!(
            back,
            ScoredPosition {
                board,
                score: -37,
                result: Wdl::Draw
            }
        );
        let loose = parse_text_line("8/8/4k3/8/8/4K3/4P3/8 b - - 0 1|120|1-0").unwrap();
        assert_eq!((loose.score, loose.result), (120, Wdl::WhiteWins));
    }

    #[test]
    fn bad_text_lines_say_why() {
        for (line, why) in [
            ("8/8/8/8/8/8/8/8 w - - 0 1 | 0 | 0.5", "bad FEN"),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 | x | 0.5", "not a whole number"),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 99999 | 0.5",
                "not a whole number",
            ),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0 | 2", "is not 1.0, 0.5 or 0.0"),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0", "three fields"),
        ] {
            let e = parse_text_line(line).unwrap_err();
            assert!(e.contains(why), "{line}: {e}");
        }
    }

    #[test]
    fn bullet_records_read_back_as_the_side_to_moves_view() {
        let white =
            Board::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").unwrap();
        let back = parse_bullet_record(&bullet_record(&white, 25, Wdl::WhiteWins)).unwrap();
        assert_eq!(
            back.board.to_fen(),
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w - - 0 1"
        );
        assert_eq!((back.score, back.result), (25, Wdl::WhiteWins));
        // Black to move: flipped, colours swapped, score and result turned to Black's view.
        let black =
            Board::from_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2").unwrap();
        let back = parse_bullet_record(&bullet_record(&black, 25, Wdl::WhiteWins)).unwrap();
        assert_eq!(
            back.board.to_fen(),
            "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 1"
        );
        assert_eq!((back.score, back.result), (-25, Wdl::BlackWins));
        let mut bad = bullet_record(&white, 0, Wdl::Draw);
        bad[26] = 3;
        assert!(parse_bullet_record(&bad).unwrap_err().contains("result byte 3"));
        let mut bad = bullet_record(&white, 0, Wdl::Draw);
        bad[8] = 0x07;
        assert!(parse_bullet_record(&bad).unwrap_err().contains("piece code 7"));
        assert!(parse_bullet_record(&[0; 32]).is_err(), "no kings");
    }
}
