//! Opening positions for every tool that starts games (`genfens`, `datagen`, `arena`): one
//! EPD book reader that accepts what real books carry (a UTF-8 byte-order mark, comments,
//! full FENs, four-field EPD with `hmvc`/`fmvn`/`c0`/`id` operations, FENs of only the
//! placement and side fields, castling rights and en passant squares the board does not
//! back, cleaned with notes by [`crate::clean_fen`]), the 960 Chess960
//! start positions by their standard (Scharnagl) number and double-Chess960 pairs of them,
//! and random legal plies from a start position.

use crate::rng::SplitMix64;
use crate::{Board, Game};

/// The UTF-8 byte-order mark some editors put at the start of a text file.
pub const BOM: char = '\u{feff}';

/// Why a book was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookError {
    /// 1-based number of the line at fault; 0 when the fault is the whole book's (it holds no
    /// positions).
    pub line: usize,
    /// What is wrong, e.g. the FEN error of the line.
    pub message: String,
}

impl std::fmt::Display for BookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => f.write_str(&self.message),
            line => write!(f, "line {line}: {}", self.message),
        }
    }
}

impl std::error::Error for BookError {}

/// The value of EPD operation `name` on a line (`hmvc 3;`, `c0 "text";`), quotes removed.
pub fn epd_operation(line: &str, name: &str) -> Option<String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let ops = fields.get(4..)?.join(" ");
    ops.split(';').map(str::trim).find_map(|op| {
        let (key, value) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
        (key == name).then(|| value.trim().trim_matches('"').to_string())
    })
}

/// The FEN of one EPD or FEN line: six fields when the line is a full FEN, else the four
/// EPD fields with the clocks from `hmvc`/`fmvn` (0 and 1 when absent); a line of only the
/// placement and side-to-move fields (and perhaps castling) as it is, for
/// [`crate::clean_fen`] to complete. `None` for fewer than two fields.
pub fn epd_line_fen(line: &str) -> Option<String> {
    let line = line.trim_start_matches(BOM).trim();
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 2 {
        return None;
    }
    if fields.len() < 4 {
        return Some(fields.join(" "));
    }
    let full_fen = fields.len() >= 6
        && fields[4].parse::<u32>().is_ok()
        && fields[5].trim_end_matches(';').parse::<u32>().is_ok();
    Some(if full_fen {
        fields[..6].join(" ").trim_end_matches(';').to_string()
    } else {
        let hmvc = epd_operation(line, "hmvc").unwrap_or_else(|| "0".into());
        let fmvn = epd_operation(line, "fmvn").unwrap_or_else(|| "1".into());
        format!("{} {hmvc} {fmvn}", fields[..4].join(" ").trim_end_matches(';'))
    })
}

/// At most this many of a book's cleaning notes are given one by one; the rest are counted.
pub const MAX_BOOK_NOTES: usize = 10;

/// Reads an EPD (or one-FEN-per-line) book. Blank lines and lines starting with `#` are
/// skipped; a byte-order mark is ignored. Each position goes through the one cleaning step
/// for positions from outside ([`crate::clean_fen`]: the placement and side fields alone
/// are a position, a castling right or en passant square the board does not back is
/// dropped), and the notes say what was changed, by line (the first [`MAX_BOOK_NOTES`],
/// then how many more). Errors: the first line that is not a legal position, or a book
/// without positions.
pub fn read_epd(text: &str) -> Result<(Vec<Board>, Vec<String>), BookError> {
    let mut boards = Vec::new();
    let mut notes = Vec::new();
    let mut more = 0usize;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_start_matches(BOM).trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let error = |message: String| BookError { line: i + 1, message };
        let fen = epd_line_fen(line)
            .ok_or_else(|| error("expected a FEN (at least its placement and side-to-move fields)".into()))?;
        let (board, warnings) = crate::clean_fen(&fen).map_err(|e| error(e.to_string()))?;
        for warning in warnings {
            if notes.len() < MAX_BOOK_NOTES {
                notes.push(format!("line {}: {warning}", i + 1));
            } else {
                more += 1;
            }
        }
        boards.push(board);
    }
    if boards.is_empty() {
        return Err(BookError {
            line: 0,
            message: "no positions in the book".into(),
        });
    }
    if more > 0 {
        notes.push(format!("and {more} more changes of that kind"));
    }
    Ok((boards, notes))
}

/// The back rank of Chess960 start position `n` (0..960, standard numbering: 518 is the
/// classical `RNBQKBNR`) as piece letters from the a-file, upper case.
pub fn chess960_back_rank(n: u32) -> [char; 8] {
    let mut n = n % 960;
    let mut rank = [' '; 8];
    rank[(2 * (n % 4) + 1) as usize] = 'B';
    n /= 4;
    rank[(2 * (n % 4)) as usize] = 'B';
    n /= 4;
    let place = |rank: &mut [char; 8], mut k: u32, piece: char| {
        for square in rank.iter_mut() {
            if *square == ' ' {
                if k == 0 {
                    *square = piece;
                    return;
                }
                k -= 1;
            }
        }
    };
    place(&mut rank, n % 6, 'Q');
    n /= 6;
    const KNIGHTS: [(u32, u32); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[n as usize];
    // Place the second knight first so the first one's index still counts empty squares.
    place(&mut rank, b, 'N');
    place(&mut rank, a, 'N');
    for piece in ['R', 'K', 'R'] {
        place(&mut rank, 0, piece);
    }
    rank
}

/// The double-Chess960 start position with White's back rank `white` and Black's `black`
/// (each 0..960); `white == black` is a Chess960 position. Castling rights in Shredder-FEN.
pub fn double_chess960_position(white: u32, black: u32) -> Board {
    let w = chess960_back_rank(white);
    let b = chess960_back_rank(black);
    let files = |rank: &[char; 8]| -> (char, char) {
        let king = rank.iter().position(|&c| c == 'K').unwrap_or(4);
        let rooks: Vec<usize> = (0..8).filter(|&i| rank[i] == 'R').collect();
        let file = |i: usize| (b'a' + i as u8) as char;
        let (q, k) = (rooks[0], rooks[rooks.len() - 1]);
        debug_assert!(q < king && king < k);
        (file(k), file(q))
    };
    let (wk, wq) = files(&w);
    let (bk, bq) = files(&b);
    let fen = format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w {}{}{}{} - 0 1",
        b.iter().collect::<String>().to_lowercase(),
        w.iter().collect::<String>(),
        wk.to_ascii_uppercase(),
        wq.to_ascii_uppercase(),
        bk,
        bq
    );
    Board::from_fen(&fen).unwrap_or_else(|_| Board::startpos())
}

/// Chess960 start position `n` (0..960).
pub fn chess960_position(n: u32) -> Board {
    double_chess960_position(n, n)
}

/// Which start positions random openings begin from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StartPositions {
    /// The classical start position (or a book).
    #[default]
    Classical,
    /// A random Chess960 position, the same for both sides.
    Chess960,
    /// Independent random Chess960 back ranks for White and Black.
    DoubleChess960,
}

impl StartPositions {
    /// A start position drawn with `rng` (the classical one for `Classical`).
    pub fn draw(self, rng: &mut SplitMix64) -> Board {
        match self {
            StartPositions::Classical => Board::startpos(),
            StartPositions::Chess960 => chess960_position((rng.next_u64() % 960) as u32),
            StartPositions::DoubleChess960 => {
                double_chess960_position((rng.next_u64() % 960) as u32, (rng.next_u64() % 960) as u32)
            }
        }
    }
}

/// Plays `plies` uniformly random legal moves from `start`. `None` when the game ends
/// (or a draw could be claimed) on the way: the caller draws again.
pub fn random_plies(start: Board, plies: usize, rng: &mut SplitMix64) -> Option<Game> {
    let mut game = Game::new(start);
    for _ in 0..plies {
        let moves = game.board().legal_moves();
        if moves.is_empty() {
            return None;
        }
        game.play_unchecked(moves[(rng.next_u64() % moves.len() as u64) as usize]);
    }
    game.outcome_with_claims().is_none().then_some(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scharnagl_numbers_give_the_known_positions() {
        assert_eq!(chess960_back_rank(518).iter().collect::<String>(), "RNBQKBNR");
        assert_eq!(chess960_back_rank(0).iter().collect::<String>(), "BBQNNRKR");
        assert_eq!(chess960_back_rank(959).iter().collect::<String>(), "RKRNNQBB");
        assert_eq!(chess960_position(518).to_fen(), Board::startpos().to_fen());
        // Every number gives a distinct legal position with 20 moves or more... and a king
        // between its rooks.
        let mut seen = std::collections::HashSet::new();
        for n in 0..960 {
            let rank: String = chess960_back_rank(n).iter().collect();
            let k = rank.find('K').unwrap();
            assert!(rank[..k].contains('R') && rank[k..].contains('R'), "{n}: {rank}");
            assert!(seen.insert(rank));
            assert!(chess960_position(n).legal_moves().len() >= 18);
        }
    }

    #[test]
    fn double_chess960_mixes_back_ranks() {
        let b = double_chess960_position(0, 959);
        let fen = b.to_fen();
        assert!(
            fen.starts_with("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w"),
            "{fen}"
        );
        assert_eq!(Board::from_fen(&fen).unwrap().to_fen(), fen);
    }

    #[test]
    fn books_with_bom_comments_and_opcodes() {
        let text = "\u{feff}rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1; c0 \"e4\"; id \"x\";\n\
                    # a comment\n\n\
                    rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
                    8/8/8/8/8/8/k7/4K3 w - - hmvc 7; fmvn 40;\n";
        let (boards, notes) = read_epd(text).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(boards.len(), 3);
        assert_eq!(boards[2].halfmove_clock(), 7);
        assert!(boards[2].to_fen().ends_with("7 40"));
        assert_eq!(
            epd_operation(text.lines().next().unwrap(), "c0").as_deref(),
            Some("e4")
        );
        let err = read_epd("garbage\n").unwrap_err();
        assert_eq!(err.line, 1);
        assert_eq!(
            err.to_string(),
            "line 1: expected a FEN (at least its placement and side-to-move fields)"
        );
        let err = read_epd("# nothing\n").unwrap_err();
        assert_eq!(err.to_string(), "no positions in the book");
    }

    /// Lines as books and libraries write them go through `clean_fen`, each change noted by
    /// line; many are counted, not listed.
    #[test]
    fn books_are_cleaned_with_notes_by_line() {
        let text = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b\n\
                    4k3/8/8/8/8/8/8/4K3 w K - 0 1\n\
                    4k3/8/8/8/8/8/8/4K3 w - e6 hmvc 3; fmvn 9;\n";
        let (boards, notes) = read_epd(text).unwrap();
        assert_eq!(
            boards[0],
            Board::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1").unwrap()
        );
        assert_eq!(
            boards[1],
            Board::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap()
        );
        assert_eq!(
            boards[2],
            Board::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 3 9").unwrap()
        );
        assert_eq!(
            notes,
            [
                "line 2: castling right K dropped: white king-side castling right without king and rook in place",
                "line 3: en passant square e6 ignored: no double pawn push can have made it",
            ]
        );
        let many = "4k3/8/8/8/8/8/8/4K3 w K - 0 1\n".repeat(MAX_BOOK_NOTES + 4);
        let (boards, notes) = read_epd(&many).unwrap();
        assert_eq!(boards.len(), MAX_BOOK_NOTES + 4);
        assert_eq!(notes.len(), MAX_BOOK_NOTES + 1);
        assert_eq!(notes[MAX_BOOK_NOTES], "and 4 more changes of that kind");
    }

    #[test]
    fn random_plies_are_seeded() {
        let a = random_plies(Board::startpos(), 8, &mut SplitMix64(3)).unwrap();
        let b = random_plies(Board::startpos(), 8, &mut SplitMix64(3)).unwrap();
        assert_eq!(a.board().to_fen(), b.board().to_fen());
        assert_eq!(a.moves().len(), 8);
    }
}
