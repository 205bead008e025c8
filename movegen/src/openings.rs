//! Opening positions for every tool that starts games (`genfens`, `datagen`, `learn` through
//! datagen, `arena`): one EPD book reader that accepts what real books carry (a UTF-8
//! byte-order mark, comments, full FENs, four-field EPD with `hmvc`/`fmvn`/`c0`/`id`
//! operations, FENs of only the placement and side fields, castling rights and en passant
//! squares the board does not back, cleaned with notes by [`crate::clean_fen`]), the 960
//! Chess960 start positions by their standard (Scharnagl) number and double-Chess960 pairs
//! of them, and the one source of self-play openings, [`OpeningSource`].
//!
//! **The distribution of self-play openings.** Opening number `i` of stream `s` under seed
//! `S` is drawn with its own generator, [`opening_rng`]`(S, s, i)`, so it depends on
//! nothing else (not on the thread count, the openings before it, or a resumed run). A
//! candidate is a start position, then random plies: the start is a book line chosen
//! uniformly (with a book), else the classical start position, a Chess960 position chosen
//! uniformly among the 960, or a double-Chess960 pair chosen uniformly among the 960 x 960
//! ([`StartPositions`]); the plies are `P` or `P + 1`, each with probability 1/2 (so either
//! side may be to move), each ply a legal move chosen uniformly. A candidate whose game is
//! over, or where a draw could be claimed, is dropped; one that is left goes to the
//! caller's playability check (the engine's `engine::openings::OpeningCheck`: a short
//! search from an empty table that must score it within a window), and candidates are drawn
//! from the same generator until one passes. Datagen plays game `i` of its thread file `s`
//! from opening `(seed, s, i)`; `luft genfens N seed S` prints openings `(S, 0, 0..N)`
//! ([`GenfensRequest`]), so OpenBench's distributed self-play and Luft's own start from the
//! same positions for the same settings and seed.

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
    /// Every kind, in the order of [`StartPositions::word`]s.
    pub const ALL: [StartPositions; 3] = [
        StartPositions::Classical,
        StartPositions::Chess960,
        StartPositions::DoubleChess960,
    ];

    /// The kind's one word, as every tool spells it: `classical`, `frc` (datagen
    /// `--openings-960 frc`, genfens `frc true`) or `dfrc`; `learn` names its segments'
    /// openings by it.
    pub fn word(self) -> &'static str {
        match self {
            StartPositions::Classical => "classical",
            StartPositions::Chess960 => "frc",
            StartPositions::DoubleChess960 => "dfrc",
        }
    }

    /// The kind a [`StartPositions::word`] names (`None` for any other word).
    pub fn from_word(word: &str) -> Option<StartPositions> {
        StartPositions::ALL.into_iter().find(|s| s.word() == word)
    }

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
        game.play_unchecked(moves[rng.below(moves.len())]);
    }
    game.outcome_with_claims().is_none().then_some(game)
}

/// The generator of opening `index` of stream `stream` under `seed` (see the module notes):
/// datagen's thread file `stream`, game `index`; genfens' FEN `index` in stream 0.
pub fn opening_rng(seed: u64, stream: u64, index: u64) -> SplitMix64 {
    SplitMix64(seed ^ stream.wrapping_mul(0xA24B_AED4_963E_E407) ^ index.wrapping_mul(0x9FB2_1C65_1E98_DF25))
}

/// How many candidates one opening may take before [`OpeningSource::draw`] gives up.
pub const MAX_OPENING_CANDIDATES: usize = 1000;

/// No playable opening among [`MAX_OPENING_CANDIDATES`] candidates (a playability check,
/// or a book, that lets almost nothing through).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoPlayableOpening {
    /// Candidates drawn, all refused.
    pub candidates: usize,
}

impl std::fmt::Display for NoPlayableOpening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no playable opening in {} candidates (is the score window or the book too narrow?)",
            self.candidates
        )
    }
}

impl std::error::Error for NoPlayableOpening {}

/// Where self-play openings come from (see the module notes for the distribution): a book,
/// or start positions of a kind, then random plies. Datagen builds it from its `--book`,
/// `--openings-960` and `--random-plies`, genfens from its request
/// ([`GenfensRequest::source`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpeningSource {
    /// Start positions, one chosen uniformly per candidate (empty: `start` draws one).
    pub book: Vec<Board>,
    /// Where candidates start without a book.
    pub start: StartPositions,
    /// Random plies from the start: this many or one more, chosen per candidate.
    pub random_plies: usize,
}

impl OpeningSource {
    /// One candidate drawn with `rng`: its start, then its random plies. `None` when the
    /// game ended, or a draw could be claimed, on the way.
    pub fn candidate(&self, rng: &mut SplitMix64) -> Option<Game> {
        let start = if self.book.is_empty() {
            // The classical start draws nothing from `rng`.
            self.start.draw(rng)
        } else {
            self.book[rng.below(self.book.len())]
        };
        let plies = self.random_plies + rng.below(2);
        random_plies(start, plies, rng)
    }

    /// The first candidate drawn with `rng` that `playable` accepts (it returns `Some`
    /// with what it found, e.g. the check's score), with that. Errors: none among
    /// [`MAX_OPENING_CANDIDATES`].
    pub fn draw<T>(
        &self,
        rng: &mut SplitMix64,
        mut playable: impl FnMut(&Game) -> Option<T>,
    ) -> Result<(Game, T), NoPlayableOpening> {
        for _ in 0..MAX_OPENING_CANDIDATES {
            if let Some(game) = self.candidate(rng) {
                if let Some(found) = playable(&game) {
                    return Ok((game, found));
                }
            }
        }
        Err(NoPlayableOpening {
            candidates: MAX_OPENING_CANDIDATES,
        })
    }
}

/// `genfens N seed S book <None|FILE> [plies P] [maxscore M] [extra...]`, OpenBench's
/// request for N openings, parsed: the default plies (8) and score window (±1000) are
/// datagen's. OpenBench passes a workload's free-text extra arguments after the book;
/// these are understood: `random_moves P` (= `plies P`), `frc true|false` (Chess960 start
/// positions), `dfrc true|false` (double Chess960), `maxscore M`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenfensRequest {
    /// How many FENs.
    pub count: usize,
    /// The seed: the same request gives the same FENs, openings `(seed, 0, 0..count)`.
    pub seed: u64,
    /// An EPD book to start from (`None` for no book).
    pub book: Option<String>,
    /// Random plies from the start (P or P + 1, chosen per opening; at most 40).
    pub plies: usize,
    /// The largest score (centipawns, either side) a kept opening may have.
    pub max_score: i32,
    /// Where openings start when there is no book.
    pub start: StartPositions,
}

impl GenfensRequest {
    /// The words after `genfens` (OpenBench passes them as one or several arguments).
    /// Errors: a message naming the bad word, with the usage.
    pub fn parse(words: &[&str]) -> Result<GenfensRequest, String> {
        let usage = "usage: genfens N seed S book <None|FILE> [plies P] [maxscore M] \
                     [random_moves P] [frc true|false] [dfrc true|false]";
        let count = words
            .first()
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| usage.to_string())?;
        let mut request = GenfensRequest {
            count,
            seed: 0,
            book: None,
            plies: 8,
            max_score: 1000,
            start: StartPositions::Classical,
        };
        let flag = |value: &str, name: &str| match value {
            "true" | "1" | "on" | "yes" => Ok(true),
            "false" | "0" | "off" | "no" => Ok(false),
            _ => Err(format!("bad {name} {value:?} (true or false)")),
        };
        let mut i = 1;
        while i < words.len() {
            let value = words
                .get(i + 1)
                .ok_or_else(|| format!("'{}' needs a value; {usage}", words[i]))?;
            match words[i] {
                "seed" => request.seed = value.parse().map_err(|_| format!("bad seed {value:?}"))?,
                "book" => request.book = (*value != "None").then(|| value.to_string()),
                "frc" | "dfrc" if flag(value, words[i])? => {
                    request.start = StartPositions::from_word(words[i]).unwrap_or_default()
                }
                "frc" | "dfrc" => {}
                "plies" | "random_moves" => {
                    request.plies = value
                        .parse()
                        .ok()
                        .filter(|p| *p <= 40)
                        .ok_or_else(|| format!("bad plies {value:?} (0 to 40)"))?
                }
                "maxscore" => {
                    request.max_score = value.parse().map_err(|_| format!("bad maxscore {value:?}"))?
                }
                other => return Err(format!("unknown genfens argument {other:?}; {usage}")),
            }
            i += 2;
        }
        Ok(request)
    }

    /// The source of the request's openings, with `book` read from its book (empty for
    /// none).
    pub fn source(&self, book: Vec<Board>) -> OpeningSource {
        OpeningSource {
            book,
            start: self.start,
            random_plies: self.plies,
        }
    }
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
    fn each_kind_of_start_has_one_word() {
        for start in StartPositions::ALL {
            assert_eq!(StartPositions::from_word(start.word()), Some(start));
        }
        assert_eq!(
            StartPositions::from_word("dfrc"),
            Some(StartPositions::DoubleChess960)
        );
        assert_eq!(StartPositions::from_word("960"), None);
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
    fn parses_openbench_extra_arguments() {
        let parse = |text: &str| GenfensRequest::parse(&text.split_whitespace().collect::<Vec<_>>());
        let a = parse("5 seed 7 book None random_moves 6 dfrc true").unwrap();
        assert_eq!(
            (a.count, a.seed, a.plies, a.start, a.book),
            (5, 7, 6, StartPositions::DoubleChess960, None)
        );
        let a = parse("5 seed 7 book None frc true maxscore 300").unwrap();
        assert_eq!(
            (a.start, a.max_score, a.plies),
            (StartPositions::Chess960, 300, 8)
        );
        let a = parse("5 seed 7 book books/x.epd dfrc false").unwrap();
        assert_eq!(
            (a.start, a.book.as_deref()),
            (StartPositions::Classical, Some("books/x.epd"))
        );
        assert!(parse("5 seed 7 book None dfrc maybe")
            .unwrap_err()
            .contains("bad dfrc \"maybe\""));
        assert!(parse("5 seed 7 book None colour red")
            .unwrap_err()
            .contains("unknown genfens argument \"colour\""));
        assert!(parse("5 seed 7 book None plies 41")
            .unwrap_err()
            .contains("bad plies"));
        assert!(parse("5 seed").unwrap_err().contains("'seed' needs a value"));
        assert!(parse("x").unwrap_err().starts_with("usage: genfens N"));
    }

    #[test]
    fn openings_are_drawn_by_seed_stream_and_index_alone() {
        let source = OpeningSource {
            random_plies: 4,
            ..OpeningSource::default()
        };
        let fen = |seed, stream, index, accept_every: usize| {
            let mut seen = 0;
            let (game, n) = source
                .draw(&mut opening_rng(seed, stream, index), |_| {
                    seen += 1;
                    (seen % accept_every == 0).then_some(seen)
                })
                .unwrap();
            (game.board().to_fen(), game.moves().len(), n)
        };
        let (a, plies, _) = fen(1, 0, 0, 1);
        assert_eq!(fen(1, 0, 0, 1).0, a);
        assert!(plies == 4 || plies == 5, "{plies}");
        assert_ne!(fen(1, 0, 1, 1).0, a);
        assert_ne!(fen(1, 1, 0, 1).0, a);
        assert_ne!(fen(2, 0, 0, 1).0, a);
        // A refusing check draws the next candidate from the same generator.
        let (third, _, tries) = fen(1, 0, 0, 3);
        assert_eq!(tries, 3);
        assert_ne!(third, a);
        // A check that accepts nothing ends with an error, not a loop.
        let never = source.draw(&mut opening_rng(1, 0, 0), |_| None::<()>);
        assert_eq!(never.unwrap_err().candidates, MAX_OPENING_CANDIDATES);
        // A book: every start is one of its lines.
        let book = vec![Board::from_fen("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1").unwrap()];
        let from_book = OpeningSource {
            book,
            random_plies: 0,
            ..OpeningSource::default()
        };
        let (game, ()) = from_book.draw(&mut opening_rng(5, 0, 0), |_| Some(())).unwrap();
        assert_eq!(
            game.start().to_fen(),
            "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"
        );
    }

    #[test]
    fn random_plies_are_seeded() {
        let a = random_plies(Board::startpos(), 8, &mut SplitMix64(3)).unwrap();
        let b = random_plies(Board::startpos(), 8, &mut SplitMix64(3)).unwrap();
        assert_eq!(a.board().to_fen(), b.board().to_fen());
        assert_eq!(a.moves().len(), 8);
    }
}
