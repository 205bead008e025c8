//! `clean_fen`, the one cleaning step for positions from GUIs and books: a FEN
//! of only the placement and side fields takes Stockfish's defaults, a castling right the
//! board does not back is dropped and an impossible en passant square ignored, each with a
//! warning, while everything else is refused as `Board::from_fen` refuses it, and
//! `Board::from_fen` itself stays strict. Also: two sliders checking along one line from
//! both sides of the king are an impossible check, as the FEN module says.

#![allow(clippy::unwrap_used)]

use movegen::{clean_fen, Board, FenError, FenSyntaxError, IllegalPosition};

fn board(fen: &str) -> Board {
    Board::from_fen(fen).unwrap()
}

#[test]
fn board_and_side_only_take_stockfishs_defaults() {
    let placement = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    let (b, warnings) = clean_fen(&format!("{placement} w")).unwrap();
    assert_eq!(b, board(&format!("{placement} w - - 0 1")));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(b.to_fen(), format!("{placement} w - - 0 1"));
    // With the castling field too.
    let (b, warnings) = clean_fen(&format!("{placement} w KQkq")).unwrap();
    assert_eq!(b, Board::startpos());
    assert!(warnings.is_empty());
    // Black to move, extra spaces.
    let (b, _) = clean_fen("  4k3/8/8/8/8/8/8/4K3   b  ").unwrap();
    assert_eq!(b, board("4k3/8/8/8/8/8/8/4K3 b - - 0 1"));
    // The strict reader still wants four fields.
    assert_eq!(
        Board::from_fen(&format!("{placement} w")),
        Err(FenError::Syntax(FenSyntaxError::WrongFieldCount(2)))
    );
}

#[test]
fn castling_rights_without_king_or_rook_are_dropped_with_a_warning() {
    let (b, warnings) = clean_fen("4k3/8/8/8/8/8/8/4K3 w K - 0 1").unwrap();
    assert_eq!(b, board("4k3/8/8/8/8/8/8/4K3 w - - 0 1"));
    assert_eq!(
        warnings,
        ["castling right K dropped: white king-side castling right without king and rook in place"]
    );
    // Only the rights the board does not back go: here White's, Black's stay.
    let (b, warnings) = clean_fen("r3k2r/8/8/8/8/8/8/4K3 w KQkq - 3 20").unwrap();
    assert_eq!(b, board("r3k2r/8/8/8/8/8/8/4K3 w kq - 3 20"));
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("castling right K dropped")
            && warnings[1].starts_with("castling right Q dropped")
    );
    // A king off its first rank: every right of that side goes.
    let (b, warnings) = clean_fen("r3k2r/8/8/8/8/8/3K4/R6R w KQkq - 0 1").unwrap();
    assert_eq!(b, board("r3k2r/8/8/8/8/8/3K4/R6R w kq - 0 1"));
    assert_eq!(warnings.len(), 2);
    // Strict reading refuses them all.
    assert!(matches!(
        Board::from_fen("4k3/8/8/8/8/8/8/4K3 w K - 0 1"),
        Err(FenError::Illegal(IllegalPosition::InvalidCastlingRight(..)))
    ));
    // Rights the board backs are no change: no warning.
    let (_, warnings) = clean_fen(movegen::STARTPOS_FEN).unwrap();
    assert!(warnings.is_empty());
}

#[test]
fn an_impossible_en_passant_square_is_ignored_with_a_warning() {
    for (fen, square) in [
        // No pawn that can just have moved.
        ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "e6"),
        // The wrong rank for the side to move.
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1",
            "e3",
        ),
    ] {
        let (b, warnings) = clean_fen(fen).unwrap();
        let without = fen.replace(&format!(" {square} "), " - ");
        assert_eq!(b, board(&without), "{fen}");
        assert_eq!(
            warnings,
            [format!(
                "en passant square {square} ignored: no double pawn push can have made it"
            )],
            "{fen}"
        );
        assert!(matches!(
            Board::from_fen(fen),
            Err(FenError::Illegal(IllegalPosition::InvalidEnPassant(_)))
        ));
    }
    // A possible one is kept, silently.
    let fen = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
    let (b, warnings) = clean_fen(fen).unwrap();
    assert_eq!(b, board(fen));
    assert!(warnings.is_empty());
    // Both at once.
    let (b, warnings) = clean_fen("4k3/8/8/8/8/8/8/4K3 w Qk d6").unwrap();
    assert_eq!(b, board("4k3/8/8/8/8/8/8/4K3 w - - 0 1"));
    assert_eq!(warnings.len(), 3, "{warnings:?}");
}

#[test]
fn what_cannot_be_cleaned_is_refused_as_the_strict_reader_refuses_it() {
    for fen in [
        "",
        "4k3/8/8/8/8/8/8/4K3",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra",
        "4k3/8/8/8/8/8/8/4K3 x",
        "4k3/8/8/8/8/8/8/4K4 w",
        "8/8/8/8/8/8/8/4K3 w",
        "4k3/4R3/8/8/8/8/8/4K3 w",
        "4k3/8/8/8/8/8/8/4K3 w - e9 0 1",
        "4k2r/8/8/8/8/8/8/4K2R w KK - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - x 1",
    ] {
        let cleaned = clean_fen(fen);
        assert!(cleaned.is_err(), "{fen:?} was accepted: {cleaned:?}");
        if fen.split_whitespace().count() >= 4 {
            assert_eq!(cleaned.err(), Board::from_fen(fen).err(), "{fen:?}");
        }
    }
}

#[test]
fn two_sliders_checking_along_one_line_from_both_sides_are_an_impossible_check() {
    // Black rooks on a1 and h1 both check the white king on d1: no move makes both checks.
    for fen in [
        "k7/8/8/8/8/8/8/r2K3r w - - 0 1",
        "k7/6b1/8/8/3K4/8/8/b7 w - - 0 1",
        "k7/8/8/8/3r4/8/8/3K4 w - - 0 1",
    ] {
        let strict = Board::from_fen(fen);
        let relaxed = Board::from_fen_relaxed(fen);
        if fen.starts_with("k7/8/8/8/3r4") {
            // One checker: fine either way.
            assert!(strict.is_ok() && relaxed.is_ok(), "{fen}");
            continue;
        }
        assert_eq!(
            strict,
            Err(FenError::Illegal(IllegalPosition::ImpossibleCheck)),
            "{fen}"
        );
        // The relaxed reader (composed perft positions) keeps only what move generation needs.
        assert!(relaxed.is_ok(), "{fen}");
        assert!(clean_fen(fen).is_err(), "{fen}");
    }
    // A rook and a bishop checking from different lines (a discovered check) stay legal.
    assert!(Board::from_fen("k7/8/8/8/8/8/5b2/r3K3 w - - 0 1").is_ok());
}
