//! FEN corpora: every line of `valid.fens` reads and writes back to a FEN that reads to the
//! same board; every line of `invalid.fens` is rejected; every Chess960 start position reads.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use movegen::{Board, FenError};

fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty())
}

#[test]
fn valid_fens_read_and_round_trip() {
    let mut count = 0;
    for fen in lines(include_str!("data/valid.fens")) {
        let board = Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let written = board.to_fen();
        let again = Board::from_fen(&written).unwrap_or_else(|e| panic!("{fen} -> {written}: {e}"));
        assert_eq!(board, again, "{fen} -> {written}");
        assert_eq!(written, again.to_fen());
        count += 1;
    }
    assert_eq!(count, 10_000);
}

#[test]
fn invalid_fens_are_rejected() {
    let mut count = 0;
    let mut accepted = Vec::new();
    for fen in lines(include_str!("data/invalid.fens")) {
        if let Ok(board) = Board::from_fen(fen) {
            accepted.push(format!("{fen}  (read as {board})"));
        }
        count += 1;
    }
    assert!(
        accepted.is_empty(),
        "{} accepted:\n{}",
        accepted.len(),
        accepted[..accepted.len().min(30)].join("\n")
    );
    assert_eq!(count, 9_992);
}

#[test]
fn chess960_start_positions_read() {
    let mut count = 0;
    for fen in lines(include_str!("data/chess960-start.fens")) {
        let board = Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert!(board.legal_moves().len() >= 18, "{fen}");
        count += 1;
    }
    assert_eq!(count, 960);
}

#[test]
fn syntax_and_illegal_positions_are_different_errors() {
    use movegen::{Color, FenSyntaxError, IllegalPosition, Square};
    let cases: &[(&str, FenError)] = &[
        ("", FenError::Syntax(FenSyntaxError::WrongFieldCount(0))),
        (
            "8/8/8/8/8/8/8 w - - 0 1",
            FenError::Syntax(FenSyntaxError::WrongRankCount(7)),
        ),
        (
            "9/8/8/8/8/8/8/8 w - - 0 1",
            FenError::Syntax(FenSyntaxError::BadPieceChar('9')),
        ),
        (
            "4k3/8/8/8/8/8/8/4K4 w - - 0 1",
            FenError::Syntax(FenSyntaxError::BadRankLength(1)),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
            FenError::Syntax(FenSyntaxError::BadSideToMove("x".into())),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w X - 0 1",
            FenError::Syntax(FenSyntaxError::BadCastling("X".into())),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - e9 0 1",
            FenError::Syntax(FenSyntaxError::BadEnPassant("e9".into())),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - -1 1",
            FenError::Syntax(FenSyntaxError::BadHalfmoveClock("-1".into())),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 -1",
            FenError::Syntax(FenSyntaxError::BadFullmoveNumber("-1".into())),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 70000",
            FenError::Syntax(FenSyntaxError::BadFullmoveNumber("70000".into())),
        ),
        (
            "8/8/8/8/8/8/8/4K3 w - - 0 1",
            FenError::Illegal(IllegalPosition::MissingKing(Color::Black)),
        ),
        (
            "4k3/8/8/8/8/8/8/3KK3 w - - 0 1",
            FenError::Illegal(IllegalPosition::TooManyKings(Color::White)),
        ),
        (
            "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
            FenError::Illegal(IllegalPosition::PawnOnBackRank(Square::parse("a1").unwrap())),
        ),
        (
            "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
            FenError::Illegal(IllegalPosition::OpponentInCheck),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
            FenError::Illegal(IllegalPosition::InvalidCastlingRight(
                Color::White,
                movegen::CastleSide::King,
            )),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - e6 0 1",
            FenError::Illegal(IllegalPosition::InvalidEnPassant(Square::parse("e6").unwrap())),
        ),
        (
            "NNNNkNNN/NNNNNNNN/N7/8/8/8/8/4K3 b - - 0 1",
            FenError::Illegal(IllegalPosition::TooManyPieces(Color::White)),
        ),
        (
            "NNNNkNNN/NNNNNNN1/8/8/8/8/8/4K3 b - - 0 1",
            FenError::Illegal(IllegalPosition::TooManyPromotedPieces(Color::White)),
        ),
    ];
    for (fen, expected) in cases {
        assert_eq!(Board::from_fen(fen).err().as_ref(), Some(expected), "{fen:?}");
    }
}

#[test]
fn unambiguous_clock_fields_are_accepted() {
    // A full-move number of 0 (written by some tools) reads as 1.
    let board = Board::from_fen("8/4P3/8/8/8/8/k7/4K3 w - - 0 0").unwrap();
    assert_eq!(board.fullmove_number(), 1);
    assert_eq!(board.to_fen(), "8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
    let board = Board::from_fen("4k3/8/8/8/8/8/8/4K3 b - - 7 0").unwrap();
    assert_eq!((board.halfmove_clock(), board.fullmove_number()), (7, 1));
    // Missing clocks (EPD style): 0 and 1; only the half-move clock: full-move 1.
    let board = Board::from_fen("4k3/8/8/8/8/8/8/4K3 w - -").unwrap();
    assert_eq!((board.halfmove_clock(), board.fullmove_number()), (0, 1));
    let board = Board::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 12").unwrap();
    assert_eq!((board.halfmove_clock(), board.fullmove_number()), (12, 1));
    // The same position however its clocks are written.
    let reference = Board::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
    for fen in [
        "4k3/8/8/8/8/8/8/4K3 w - -",
        "4k3/8/8/8/8/8/8/4K3 w - - 0",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 0",
    ] {
        assert_eq!(Board::from_fen(fen).unwrap(), reference, "{fen}");
    }
}
