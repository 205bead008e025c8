//! Opening books: EPD (a FEN, or the four FEN fields with `hmvc` / `fmvn` opcodes) and PGN
//! (each game's start position and its first `plies` moves). Read once, then handed out in
//! file or shuffled order from a start offset, wrapping around at the end.
//!
//! Files are taken as editors and other tools write them: a UTF-8 byte-order mark at the
//! start of the file or of any line (concatenated files) is skipped, and bytes that are not
//! UTF-8 (a Latin-1 PGN's tags) are replaced, with a note. A PGN game that a null move
//! (`--`) cuts short gives the moves before it, with a note.

use crate::play::Opening;
use movegen::pgn::parse_pgn;

/// Why a book cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file cannot be read.
    #[error("cannot read openings {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// An EPD line that is no position, or no positions at all.
    #[error(transparent)]
    Epd(#[from] movegen::openings::BookError),
    /// PGN text that does not parse.
    #[error(transparent)]
    Pgn(#[from] movegen::pgn::PgnError),
    /// A PGN file without games.
    #[error("no games in the PGN file")]
    NoGames,
}

/// The opening book arena ships, `arena/openings/luft-8ply.epd` (2000 EPD positions made by
/// Luft's own tools; `openings/README.md`): the one definition of its text for every crate
/// that plays from it (learn writes it into each run directory for its gates).
pub const BOOK: &str = include_str!("../openings/luft-8ply.epd");

/// The text of an openings file, and notes for the user: invalid UTF-8 is replaced.
/// Errors: [`BookError::Read`].
pub fn read_text(path: &str) -> Result<(String, Vec<String>), BookError> {
    let bytes = std::fs::read(path).map_err(|source| BookError::Read {
        path: path.to_string(),
        source,
    })?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok((text, Vec::new())),
        Err(e) => Ok((
            String::from_utf8_lossy(e.as_bytes()).into_owned(),
            vec![format!(
                "openings {path} is not valid UTF-8 (first bad byte at offset {}); such bytes are replaced",
                e.utf8_error().valid_up_to()
            )],
        )),
    }
}

/// Reads an EPD opening file with the workspace's one book reader,
/// [`movegen::openings::read_epd`]: full FENs or four FEN fields with `hmvc` / `fmvn`
/// operations, byte-order marks, blank lines and `#` comments skipped, each position cleaned
/// by `movegen::clean_fen` (the notes say what was changed, by line). Errors: the first
/// line that is not a legal position (with its number), or a file without positions.
pub fn read_epd(text: &str) -> Result<(Vec<Opening>, Vec<String>), BookError> {
    let (boards, notes) = movegen::openings::read_epd(text)?;
    let openings = boards
        .into_iter()
        .map(|start| Opening {
            start,
            moves: Vec::new(),
        })
        .collect();
    Ok((openings, notes))
}

/// Reads a PGN opening file, keeping at most `plies` moves of each game. Also returns a
/// note when null moves cut games shorter than `plies`, and one for each `FEN` tag the
/// reader cleaned (`movegen::clean_fen`). Errors: [`BookError::Pgn`], [`BookError::NoGames`].
pub fn read_pgn(text: &str, plies: Option<usize>) -> Result<(Vec<Opening>, Vec<String>), BookError> {
    let games = parse_pgn(text)?;
    let limit = plies.unwrap_or(usize::MAX);
    let cleaned: Vec<String> = games
        .iter()
        .enumerate()
        .flat_map(|(i, g)| g.notes.iter().map(move |n| format!("game {}: {n}", i + 1)))
        .collect();
    let mut cut = Vec::new();
    let openings: Vec<Opening> = games
        .into_iter()
        .enumerate()
        .map(|(i, g)| {
            if let Some(why) = g.truncated.as_ref().filter(|_| g.moves.len() < limit) {
                cut.push(format!("game {} {why}", i + 1));
            }
            let keep = limit.min(g.moves.len());
            Opening {
                start: g.start,
                moves: g.moves[..keep].to_vec(),
            }
        })
        .collect();
    if openings.is_empty() {
        return Err(BookError::NoGames);
    }
    let mut notes = match cut.as_slice() {
        [] => Vec::new(),
        [one] => vec![format!("{one}; the opening is the moves before it")],
        [first, ..] => vec![format!(
            "{} games stop at a null move, which a game cannot hold, and give the moves before it \
             (the first: {first})",
            cut.len()
        )],
    };
    let shown = movegen::openings::MAX_BOOK_NOTES;
    notes.extend(cleaned.iter().take(shown).cloned());
    if cleaned.len() > shown {
        notes.push(format!("and {} more changes of that kind", cleaned.len() - shown));
    }
    Ok((openings, notes))
}

/// Orders the book: shuffled by `seed` when `random`, then rotated to start at `start`
/// (1-based, as in fastchess).
pub fn arrange(mut openings: Vec<Opening>, random: bool, seed: u64, start: usize) -> Vec<Opening> {
    if random {
        let mut rng = movegen::rng::SplitMix64(seed);
        for i in (1..openings.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            openings.swap(i, j);
        }
    }
    let offset = start.saturating_sub(1) % openings.len().max(1);
    openings.rotate_left(offset);
    openings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_epd_forms() {
        let text = "# comment\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
                    rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;\n\
                    rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n";
        let (book, notes) = read_epd(text).unwrap();
        assert!(notes.is_empty());
        assert_eq!(book.len(), 3);
        assert_eq!(book[1].start.fullmove_number(), 2);
        assert_eq!(book[2].start.fullmove_number(), 1);
        assert!(read_epd("not a fen at all").is_err());
        assert_eq!(
            read_epd("\n\nbad").unwrap_err().to_string(),
            "line 3: expected a FEN (at least its placement and side-to-move fields)"
        );
        assert_eq!(
            read_epd("\n\nbad line").unwrap_err().to_string(),
            "line 3: invalid FEN: expected 8 ranks in the placement, found 1"
        );
        // What GUIs and libraries write: board and side only, a right without its rook, an
        // en passant square no pawn made; cleaned, with notes.
        let (book, notes) =
            read_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w\n4k3/8/8/8/8/8/8/R3K3 w KQ e3 0 1\n")
                .unwrap();
        assert_eq!(
            book[0].start.to_fen(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
        );
        assert_eq!(book[1].start.to_fen(), "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with("line 2: castling right K dropped"),
            "{notes:?}"
        );
        assert!(
            notes[1].starts_with("line 2: en passant square e3 ignored"),
            "{notes:?}"
        );
        assert_eq!(read_epd("").unwrap_err().to_string(), "no positions in the book");
        // Operations other books carry (`c0`, `id`) are read past.
        let (book, _) = read_epd(
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - c0 \"open game\"; id \"x\"; fmvn 2;",
        )
        .unwrap();
        assert_eq!(book[0].start.fullmove_number(), 2);
    }

    #[test]
    fn reads_pgn_with_a_ply_limit() {
        let (book, notes) = read_pgn("1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n1. d4 d5 *\n", Some(3)).unwrap();
        assert_eq!(book.len(), 2);
        assert_eq!(book[0].moves.len(), 3);
        assert_eq!(book[1].moves.len(), 2);
        assert!(notes.is_empty());
    }

    const KINGS_GAMBIT: &str = "rnbqkbnr/pppp1ppp/8/4p3/4PP2/8/PPPP2PP/RNBQKBNR b KQkq - 0 2";

    #[test]
    fn a_byte_order_mark_is_skipped_in_epd_and_pgn() {
        let epd = format!("\u{feff}{KINGS_GAMBIT}\n\u{feff}{KINGS_GAMBIT}\n");
        let (book, _) = read_epd(&epd).unwrap();
        assert_eq!(book.len(), 2);
        assert_eq!(book[0].start.to_fen(), KINGS_GAMBIT);
        assert_eq!(book[1], book[0], "a mark inside (concatenated files) too");
        let (book, _) = read_pgn("\u{feff}[Event \"x\"]\n\n1. e4 e5 2. f4 *\n", None).unwrap();
        assert_eq!(book.len(), 1);
        let mut board = book[0].start;
        for &mv in &book[0].moves {
            board.play(mv);
        }
        assert_eq!(board.to_fen(), KINGS_GAMBIT);
    }

    #[test]
    fn a_null_move_ends_a_pgn_opening_with_a_note() {
        let text = "1. e4 e5 2. Nf3 -- 3. Bc4 Nc6 *\n\n1. d4 -- 2. c4 *\n\n1. c4 c5 *\n";
        let (book, notes) = read_pgn(text, Some(8)).unwrap();
        assert_eq!(book.iter().map(|o| o.moves.len()).collect::<Vec<_>>(), [3, 1, 2]);
        assert_eq!(
            notes,
            ["2 games stop at a null move, which a game cannot hold, and give the moves before it \
              (the first: game 1 stops at the null move \"--\" after 3 moves (a game cannot hold a null move))"]
        );
        // No note when the ply limit ends the opening before the null move anyway.
        let (book, notes) = read_pgn(text, Some(1)).unwrap();
        assert_eq!(book.iter().map(|o| o.moves.len()).collect::<Vec<_>>(), [1, 1, 1]);
        assert!(notes.is_empty(), "{notes:?}");
        let (_, notes) = read_pgn("1. e4 -- 2. d4 *", None).unwrap();
        assert_eq!(
            notes,
            [
                "game 1 stops at the null move \"--\" after 1 moves (a game cannot hold a null move); \
              the opening is the moves before it"
            ]
        );
    }

    #[test]
    fn files_that_are_not_utf8_are_read_with_a_note() {
        let path = testing::temp("latin1").join("latin1.pgn");
        // "Müller" in Latin-1, then a BOM-less game.
        std::fs::write(&path, b"[White \"M\xfcller\"]\n\n1. e4 e5 *\n").unwrap();
        let (text, notes) = read_text(path.to_str().unwrap()).unwrap();
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].ends_with("is not valid UTF-8 (first bad byte at offset 9); such bytes are replaced")
        );
        let (book, _) = read_pgn(&text, None).unwrap();
        assert_eq!(book[0].moves.len(), 2);
        let missing = read_text("/nonexistent/book.epd").unwrap_err().to_string();
        assert!(
            missing.starts_with("cannot read openings /nonexistent/book.epd: "),
            "{missing}"
        );
        std::fs::remove_file(&path).ok();
    }

    #[test]
    fn arrangement_is_seeded_and_rotated() {
        let (book, notes) = read_epd(BOOK).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        let a = arrange(book.clone(), true, 7, 1);
        let b = arrange(book.clone(), true, 7, 1);
        assert_eq!(a, b);
        assert_ne!(a, arrange(book.clone(), true, 8, 1));
        let rotated = arrange(book.clone(), false, 0, 3);
        assert_eq!(rotated[0], book[2]);
    }
}
