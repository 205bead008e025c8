//! The PGN reader on what real files contain besides plain movetext: a UTF-8 byte-order
//! mark, en passant captures marked `e.p.`, null moves (`--`), which a game stops at, and
//! `FEN` tags that need the cleaning books get (`clean_fen`).

use movegen::pgn::parse_pgn;
use movegen::{Board, Game};

/// The position after the moves of `text`'s first game, and that game's move count.
fn replay(text: &str) -> (String, usize) {
    let games = parse_pgn(text).expect("reads");
    let mut game = Game::new(games[0].start);
    for &mv in &games[0].moves {
        game.play(mv).expect("legal");
    }
    (game.board().to_fen(), games[0].moves.len())
}

const AFTER_EP: &str = "rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3";

#[test]
fn a_byte_order_mark_is_skipped() {
    let games = parse_pgn("\u{feff}[Event \"x\"]\n\n1. e4 e5 *\n").expect("reads");
    assert_eq!((games.len(), games[0].tag("Event")), (1, Some("x")));
    assert_eq!(games[0].moves.len(), 2);
    // Without tags, and in a second file appended to the first.
    let games = parse_pgn("\u{feff}1. d4 *\n\n\u{feff}[Event \"y\"]\n\n1. c4 c5 *\n").expect("reads");
    assert_eq!(games.len(), 2);
    assert_eq!(games[1].tag("Event"), Some("y"));
    assert_eq!(games[1].moves.len(), 2);
}

#[test]
fn an_en_passant_capture_may_carry_an_ep_mark() {
    for text in [
        "1. e4 a6 2. e5 d5 3. exd6 e.p. *",
        "1. e4 a6 2. e5 d5 3. exd6e.p. *",
        "1. e4 a6 2. e5 d5 3. exd6 *",
    ] {
        assert_eq!(replay(text), (AFTER_EP.to_string(), 5), "{text}");
    }
    // The mark with a check sign glued after it.
    let (fen, _) = replay("[FEN \"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2\"]\n\n2. exd6e.p.+ *");
    assert_eq!(fen, "4k3/8/3P4/8/8/8/8/4K3 b - - 0 2");
}

#[test]
fn an_ep_mark_on_any_other_move_is_an_error() {
    let err = parse_pgn("1. e4 d5 2. exd5e.p. *").expect_err("not en passant");
    assert_eq!(
        err.message,
        "\"exd5e.p.\" is marked e.p. but is not an en passant capture, after 2 moves"
    );
    let err = parse_pgn("1. e4 d5 2. exd5 e.p. *").expect_err("not en passant");
    assert_eq!(
        err.message,
        "\"e.p.\" after a move that is not an en passant capture, after 3 moves"
    );
    assert_eq!(err.line, 1);
    assert!(parse_pgn("e.p. *").is_err(), "a mark with no move before it");
}

#[test]
fn a_game_stops_at_a_null_move_and_says_so() {
    let text =
        "[Event \"n\"]\n\n1. e4 {kept} e5 2. Nf3 -- {not kept} 3. Bc4 Nc6 {not kept} 1-0\n\n1. d4 d5 *\n";
    let games = parse_pgn(text).expect("reads");
    assert_eq!(games.len(), 2, "reading goes on after the null move");
    let g = &games[0];
    assert_eq!(g.moves.len(), 3);
    assert_eq!(g.comments, [Some("kept".to_string()), None, None]);
    assert_eq!(
        g.truncated.as_deref(),
        Some("stops at the null move \"--\" after 3 moves (a game cannot hold a null move)")
    );
    assert_eq!(g.result, "1-0");
    assert_eq!(games[1].truncated, None);
    assert_eq!(games[1].moves.len(), 2);
    // Other spellings, and a null move glued to its move number.
    for text in ["1. e4 Z0 2. d4 *", "1. e4 0000 2. d4 *", "1. e4 1...-- 2. d4 *"] {
        let games = parse_pgn(text).expect(text);
        assert_eq!(games[0].moves.len(), 1, "{text}");
        assert!(games[0].truncated.is_some(), "{text}");
    }
    // A null move for White first: nothing is kept.
    let games = parse_pgn("1. -- e5 *").expect("reads");
    assert!(games[0].moves.is_empty() && games[0].truncated.is_some());
    assert_eq!(games[0].start, Board::startpos());
}

#[test]
fn moves_after_a_null_move_are_still_checked() {
    // After 1. e4 --, White is to move again: 2. Nf6 is not White's move.
    let err = parse_pgn("1. e4 -- 2. Nf6 *").expect_err("illegal after the pass");
    assert_eq!((err.game, err.line), (1, 1));
    assert_eq!(err.message, "illegal move \"Nf6\" after 2 moves");
    // While 2. Nf3 is.
    assert!(parse_pgn("1. e4 -- 2. Nf3 Nf6 *").is_ok());
}

#[test]
fn a_null_move_in_check_is_an_error() {
    let err = parse_pgn("1. e4 f6 2. Qh5+ -- *").expect_err("in check");
    assert_eq!(err.message, "null move \"--\" while in check, after 3 moves");
}

#[test]
fn a_fen_tag_is_cleaned_as_books_are_with_notes() {
    // A castling right without its rook and a FEN of only placement and side: the game
    // reads, the notes say what was changed.
    let games = parse_pgn("[FEN \"4k3/8/8/8/8/8/8/4K3 w K - 0 1\"]\n\n1. Kd2 *\n").expect("reads");
    assert_eq!(
        games[0].start,
        Board::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap_or_default()
    );
    assert_eq!(
        games[0].notes,
        ["FEN tag: castling right K dropped: white king-side castling right without king and rook in place"]
    );
    let games = parse_pgn("[FEN \"4k3/8/8/8/8/8/8/4K3 b\"]\n\n1... Kd7 *\n").expect("reads");
    assert_eq!(games[0].moves.len(), 1);
    assert!(games[0].notes.is_empty());
    // What cannot be cleaned is still an error.
    assert!(parse_pgn("[FEN \"4k3/8/8/8/8/8/8/4K4 w - - 0 1\"]\n\n*\n").is_err());
}
