//! Input that GUIs and libraries really send, through the `luft` binary: a FEN of
//! only the placement and side fields, a castling right whose king or rook is not in place
//! (dropped, with an `info string` warning), an impossible en passant square (ignored, with
//! a warning), boolean option values in any case, and runs of spaces inside an option value
//! kept as sent. What cannot be cleaned is still refused.

#![allow(clippy::unwrap_used)]

mod common;

use common::{Engine, SECOND};
use movegen::Board;

/// Searches the position set and checks the answer is legal in `fen`.
fn answers_legally(e: &mut Engine, fen: &str) {
    e.send("go depth 3");
    let (best, lines) = e.bestmove(5 * SECOND);
    assert_ne!(best, "0000", "{lines:?}");
    let board = Board::from_fen(fen).unwrap();
    assert!(board.parse_uci(&best).is_ok(), "{best} in {fen}: {lines:?}");
}

#[test]
fn positions_are_cleaned_with_a_warning_for_each_change() {
    let mut e = Engine::start();
    // Only placement and side: the rest as Stockfish defaults it, and nothing to say.
    e.send("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w");
    assert_eq!(e.sync(), Vec::<String>::new());
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
    assert_eq!(e.fen(), fen);
    answers_legally(&mut e, fen);
    // ... with moves after it.
    e.send("position fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b moves e7e5");
    assert_eq!(e.sync(), Vec::<String>::new());
    assert_eq!(
        e.fen(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 2"
    );
    // A castling right without its rook: dropped, said once.
    e.send("position fen r3k3/8/8/8/8/8/8/4K3 w Kq - 0 1");
    assert_eq!(
        e.sync(),
        [
            "info string warning: position fen: castling right K dropped: white king-side castling right \
             without king and rook in place"
        ]
    );
    let fen = "r3k3/8/8/8/8/8/8/4K3 w q - 0 1";
    assert_eq!(e.fen(), fen);
    answers_legally(&mut e, fen);
    // An en passant square no pawn made: ignored, said.
    e.send("position fen 4k3/8/8/8/8/8/8/4K3 w - e6 0 1");
    assert_eq!(
        e.sync(),
        ["info string warning: position fen: en passant square e6 ignored: no double pawn push can have made it"]
    );
    let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
    assert_eq!(e.fen(), fen);
    answers_legally(&mut e, fen);
    // What cannot be cleaned is still refused, and the next go answers 0000 with the reason.
    e.send("position fen 4k3/8/8/8/8/8/8/4K4 w");
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("info string error: position refused: bad FEN: "),
        "{lines:?}"
    );
    e.send("go depth 2");
    assert_eq!(e.bestmove(5 * SECOND).0, "0000");
    e.quit();
}

#[test]
fn boolean_option_values_are_read_in_any_case() {
    let mut e = Engine::start();
    for (value, wdl) in [("True", true), ("FALSE", false), ("tRuE", true), ("false", false)] {
        e.send(&format!("setoption name UCI_ShowWDL value {value}"));
        assert_eq!(e.sync(), Vec::<String>::new(), "{value}");
        e.send("position startpos");
        e.send("go depth 2");
        let (_, lines) = e.bestmove(5 * SECOND);
        let info = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
        assert_eq!(info.contains(" wdl "), wdl, "{value}: {info}");
    }
    e.send("setoption name UCI_ShowWDL value yes");
    let lines = e.sync();
    assert_eq!(
        lines,
        ["info string error: bad value \"yes\" for UCI_ShowWDL (true or false)"]
    );
    e.quit();
}

#[test]
fn runs_of_spaces_inside_an_option_value_are_kept() {
    let dir = testing::temp("evalfile-spaces");
    let net = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue");
    let spaced = dir.join("a  b.nnue");
    std::fs::copy(&net, &spaced).unwrap();
    let mut e = Engine::start();
    e.send(&format!("setoption name EvalFile value {}", spaced.display()));
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!(
            "info string EvalFile {} loaded: hidden 32",
            spaced.display()
        )),
        "{lines:?}"
    );
    // One space where the file has two: no such file, and the name as sent is in the error.
    let single = dir.join("a b.nnue");
    e.send(&format!("setoption name EvalFile value {}", single.display()));
    let lines = e.sync();
    assert!(
        lines.len() == 1 && lines[0].starts_with("info string error: ") && lines[0].contains("a b.nnue"),
        "{lines:?}"
    );
    e.quit();
    std::fs::remove_dir_all(&dir).ok();
}
