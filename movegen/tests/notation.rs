//! SAN, UCI and PGN: exact texts for the cases notation gets wrong, and round trips.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use movegen::pgn::{parse_pgn, PgnGame};
use movegen::{Board, Game, Move, MoveParseError, Square};

fn board(fen: &str) -> Board {
    Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn sq(s: &str) -> Square {
    Square::parse(s).expect("square")
}

fn mv(from: &str, to: &str) -> Move {
    Move::new(sq(from), sq(to), None)
}

#[test]
fn san_writing() {
    // File, rank and square disambiguation.
    let b = board("7k/8/8/8/8/8/8/N1N1K3 w - - 0 1");
    assert_eq!(b.to_san(mv("a1", "b3")), "Nab3");
    let b = board("7k/8/8/8/N7/8/N7/4K3 w - - 0 1");
    assert_eq!(b.to_san(mv("a2", "c3")), "N2c3");
    let b = board("7k/8/8/8/Q1Q5/8/Q7/4K3 w - - 0 1");
    assert_eq!(b.to_san(mv("a4", "b3")), "Qa4b3");
    // A pinned rival does not need disambiguating.
    let b = board("4k3/4r3/8/8/8/2N1N3/8/4K3 w - - 0 1");
    assert_eq!(b.to_san(mv("c3", "d5")), "Nd5");
    // Captures, en passant, promotion with check, castling, mate.
    let b = board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
    assert_eq!(b.to_san(mv("e5", "d6")), "exd6");
    let b = board("8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
    assert_eq!(
        b.to_san(Move::new(sq("e7"), sq("e8"), Some(movegen::PieceType::Queen))),
        "e8=Q"
    );
    let b = board("2k5/4P3/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        b.to_san(Move::new(sq("e7"), sq("e8"), Some(movegen::PieceType::Queen))),
        "e8=Q+"
    );
    assert_eq!(
        b.to_san(Move::new(sq("e7"), sq("e8"), Some(movegen::PieceType::Knight))),
        "e8=N"
    );
    let b = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(b.to_san(mv("e1", "h1")), "O-O");
    assert_eq!(b.to_san(mv("e1", "a1")), "O-O-O");
    assert_eq!(b.to_san(mv("a1", "a8")), "Rxa8+");
    let b = board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    assert_eq!(b.to_san(mv("a1", "a8")), "Ra8#");
}

#[test]
fn san_reading_is_tolerant() {
    let start = Board::startpos();
    let nf3 = mv("g1", "f3");
    for text in ["Nf3", "Nf3+", "Nf3#", "Ngf3", "N1f3", "Ng1f3", "Nf3!?", "Ng1-f3"] {
        if text == "Ng1-f3" {
            assert!(matches!(
                start.parse_san(text),
                Err(MoveParseError::InvalidSyntax(_))
            ));
        } else {
            assert_eq!(start.parse_san(text), Ok(nf3), "{text}");
        }
    }
    let b = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(b.parse_san("0-0"), Ok(mv("e1", "h1")));
    assert_eq!(b.parse_san("O-O-O+"), Ok(mv("e1", "a1")));
    let b = board("8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
    let q = Move::new(sq("e7"), sq("e8"), Some(movegen::PieceType::Queen));
    assert_eq!(b.parse_san("e8Q"), Ok(q));
    assert_eq!(b.parse_san("e8=Q"), Ok(q));
    assert!(matches!(b.parse_san("e8"), Err(MoveParseError::IllegalMove(_))));
    assert!(matches!(
        b.parse_san("e8=K"),
        Err(MoveParseError::InvalidSyntax(_))
    ));
}

#[test]
fn san_errors_are_precise() {
    let b = board("7k/8/8/8/8/8/8/N1N1K3 w - - 0 1");
    assert_eq!(
        b.parse_san("Nb3"),
        Err(MoveParseError::AmbiguousMove("Nb3".into()))
    );
    assert_eq!(b.parse_san("Nab3"), Ok(mv("a1", "b3")));
    assert_eq!(b.parse_san("Nb4"), Err(MoveParseError::IllegalMove("Nb4".into())));
    assert_eq!(
        b.parse_san("Zz9"),
        Err(MoveParseError::InvalidSyntax("Zz9".into()))
    );
    assert_eq!(b.parse_san(""), Err(MoveParseError::InvalidSyntax("".into())));
    assert!(matches!(
        Board::startpos().parse_san("O-O"),
        Err(MoveParseError::IllegalMove(_))
    ));
    assert!(matches!(
        Board::startpos().parse_san("d5"),
        Err(MoveParseError::IllegalMove(_))
    ));
}

#[test]
fn uci_castling_forms() {
    let b = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let castle = mv("e1", "h1");
    assert_eq!(b.parse_uci("e1g1"), Ok(castle));
    assert_eq!(b.parse_uci("e1h1"), Ok(castle));
    assert_eq!(b.to_uci(castle, false), "e1g1");
    assert_eq!(b.to_uci(castle, true), "e1h1");
    assert_eq!(b.to_uci(mv("e1", "a1"), false), "e1c1");
    // Chess960: king b1, rooks a1 and g1; b1c1 is both a king step and O-O-O.
    let b = board("7k/8/8/8/8/8/8/RK4R1 w GA - 0 1");
    assert_eq!(b.parse_uci("b1g1"), Ok(mv("b1", "g1")));
    assert_eq!(b.to_uci(mv("b1", "a1"), true), "b1a1");
    assert_eq!(b.to_uci(mv("b1", "a1"), false), "b1c1");
    assert_eq!(
        b.parse_uci("b1c1"),
        Ok(mv("b1", "c1")),
        "the normal king move wins the collision"
    );
    assert!(matches!(b.parse_uci("e2e4"), Err(MoveParseError::IllegalMove(_))));
    for bad in [
        "",
        "e2",
        "e2e4qq",
        "i2e4",
        "e2e9",
        "e7e8k",
        "e7e8K",
        "e7e8P",
        "e7e8x",
        "\u{fffd}\u{fffd}",
    ] {
        assert!(
            matches!(
                Board::startpos().parse_uci(bad),
                Err(MoveParseError::InvalidSyntax(_))
            ),
            "{bad:?}"
        );
    }
}

#[test]
fn pgn_round_trip_with_comments_and_fen() {
    let start = board("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 20");
    let mut game = PgnGame::new(start);
    game.set_tag("Event", "Test");
    game.set_tag("White", "A \"quoted\" name");
    let mut b = start;
    for (i, san) in ["O-O", "O-O-O", "Rf2", "Rd8+"].into_iter().enumerate() {
        let m = b.parse_san(san).expect("legal");
        game.push(
            m,
            if i % 2 == 0 {
                Some(format!("+0.{i}/5 0.1s"))
            } else {
                None
            },
        );
        b.play(m);
    }
    game.result = "1/2-1/2".into();
    let text = game.to_pgn();
    assert!(text.contains("[SetUp \"1\"]"), "{text}");
    assert!(
        text.contains("20... O-O {+0.0/5 0.1s} 21. O-O-O Rf2 {+0.2/5 0.1s} 22. Rd8+ 1/2-1/2"),
        "{text}"
    );
    let read = parse_pgn(&text).expect("reads");
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].moves, game.moves);
    assert_eq!(read[0].comments, game.comments);
    assert_eq!(read[0].start, start);
    assert_eq!(read[0].tag("White"), Some("A \"quoted\" name"));
    assert_eq!(read[0].result, "1/2-1/2");
}

#[test]
fn pgn_reader_skips_variations_and_annotations() {
    let text = r#"[Event "One"]
[Result "1-0"]

1. e4 $1 e5!? (1... c5 2. Nf3 (2. c3) d6) 2. Nf3 {a comment
over two lines} Nc6 ; rest of line
% escaped line
3.Bb5 a6 1-0

[Event "Two"]

1. d4 d5 *
"#;
    let games = parse_pgn(text).expect("reads");
    assert_eq!(games.len(), 2);
    let mut g = Game::default();
    for m in &games[0].moves {
        g.play(*m).expect("legal");
    }
    assert_eq!(
        g.board().to_fen(),
        "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4"
    );
    assert_eq!(games[0].comments[2].as_deref(), Some("a comment over two lines"));
    assert_eq!(games[0].result, "1-0");
    assert_eq!(games[1].moves.len(), 2);
    assert_eq!(games[1].result, "*");

    let err = parse_pgn("1. e4 e5 2. Ke3 *").expect_err("illegal");
    assert_eq!(err.game, 1);
    assert!(err.message.contains("illegal move \"Ke3\""), "{err}");
    assert!(parse_pgn("1. e4 {never closed").is_err());
    assert!(
        parse_pgn("1. e4 } e5 *").is_err(),
        "a stray brace is an error, not a hang"
    );
    assert!(parse_pgn("[Event \"x\"\n").is_err());
}

#[test]
fn uci_promotion_letter_in_either_case() {
    use movegen::PieceType;
    let b = board("8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
    for (text, kind) in [
        ("e7e8q", PieceType::Queen),
        ("e7e8Q", PieceType::Queen),
        ("e7e8r", PieceType::Rook),
        ("e7e8R", PieceType::Rook),
        ("e7e8b", PieceType::Bishop),
        ("e7e8B", PieceType::Bishop),
        ("e7e8n", PieceType::Knight),
        ("e7e8N", PieceType::Knight),
    ] {
        let expected = Move::new(sq("e7"), sq("e8"), Some(kind));
        assert_eq!(b.parse_uci(text), Ok(expected), "{text}");
        // Written back in the standard lower case.
        assert_eq!(b.to_uci(expected, false), text.to_ascii_lowercase());
    }
    // A promotion letter on a move that is no promotion is still illegal, in either case.
    assert!(matches!(
        Board::startpos().parse_uci("e2e4Q"),
        Err(MoveParseError::IllegalMove(_))
    ));
    // A promotion needs its letter.
    assert!(matches!(b.parse_uci("e7e8"), Err(MoveParseError::IllegalMove(_))));
    // Black promotes the same way.
    let b = board("4k3/8/8/8/8/8/p7/4K3 b - - 0 1");
    assert_eq!(
        b.parse_uci("a2a1N"),
        Ok(Move::new(sq("a2"), sq("a1"), Some(PieceType::Knight)))
    );
}
