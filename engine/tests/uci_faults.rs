//! Real-world input faults seen from GUIs, each asserting the right answer: every `go` gets
//! exactly one `bestmove`; a refused `position` never leaves a stale position behind; a
//! `Hash` that cannot be allocated is refused and the engine carries on; with several
//! threads the `bestmove` is the first move of the last `pv` printed; unknown commands get
//! the list of commands.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

mod common;

use common::{last_pv_first, Engine, SECOND};
use movegen::Board;
use std::time::{Duration, Instant};

/// Sends `go_line` and returns the best move and the lines up to it; asserts that no second
/// `bestmove` follows.
fn go_once(e: &mut Engine, go_line: &str, timeout: Duration) -> (String, Vec<String>) {
    e.send(go_line);
    let (best, lines) = e.bestmove(timeout);
    let after = e.sync();
    assert!(
        after.iter().all(|l| !l.starts_with("bestmove")),
        "{go_line}: a second bestmove: {after:?}"
    );
    (best, lines)
}

fn legal_in(fen: &str, mv: &str) -> bool {
    Board::from_fen(fen).unwrap().parse_uci(mv).is_ok()
}

#[test]
fn every_go_gets_one_bestmove() {
    let mut e = Engine::start();
    let after_e4_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    for (go, note) in [
        (
            "go wtime 16566 btime -50 winc 100 binc 100",
            Some("info string error: go: btime -50 out of range (0 to 1000000000000), using 0"),
        ),
        (
            "go wtime 1000 btime 1000 movestogo -5",
            Some("info string error: go: movestogo -5 out of range (1 to 9223372036854775807), using 1"),
        ),
        (
            "go depth 0",
            Some("info string error: go: depth 0 out of range (1 to 100), using 1"),
        ),
        (
            "go depth -7",
            Some("info string error: go: depth -7 out of range (1 to 100), using 1"),
        ),
        (
            "go movetime -5",
            Some("info string error: go: movetime -5 out of range (0 to 1000000000000), using 0"),
        ),
        (
            "go nodes 0",
            Some("info string error: go: nodes 0 out of range (1 to 9223372036854775807), using 1"),
        ),
        (
            "go mate 0 depth 3",
            Some("info string error: go: mate 0 out of range (1 to 100), using 1"),
        ),
        (
            "go sideways depth 2",
            Some("info string error: go: unknown go parameter \"sideways\" ignored"),
        ),
        (
            "go depth many nodes 500",
            Some("info string error: go: bad value \"many\" for 'depth' (an integer), ignored"),
        ),
        (
            "go nodes 500 depth",
            Some("info string error: go: 'depth' needs a value, ignored"),
        ),
        (
            "go wtime 300 btime 300 winc -20 binc -20",
            Some("info string error: go: winc -20 out of range (0 to 1000000000000), using 0"),
        ),
        ("go depth 2", None),
    ] {
        e.send(&format!("position fen {after_e4_e5}"));
        let (best, lines) = go_once(&mut e, go, 10 * SECOND);
        assert!(legal_in(after_e4_e5, &best), "{go}: {best}");
        if let Some(note) = note {
            assert_eq!(lines[0], note, "{go}");
        }
        assert!(
            lines.iter().any(|l| l.starts_with("info depth")),
            "{go}: {lines:?}"
        );
    }
    e.quit();
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut e = Engine::start();
    e.send("position startpos");
    let (best, lines) = go_once(&mut e, "go depth 6 searchmoves a2a3 h2h3", 20 * SECOND);
    assert!(best == "a2a3" || best == "h2h3", "{best}");
    for line in lines.iter().filter(|l| l.contains(" pv ")) {
        let first = common::pv_first(line).unwrap();
        assert!(first == "a2a3" || first == "h2h3", "{line}");
    }
    assert!(lines.iter().any(|l| l.starts_with("info depth 6 ")), "{lines:?}");
    // One move: it is played, whatever the search thinks of it.
    let (best, _) = go_once(&mut e, "go depth 4 searchmoves g1h3", 10 * SECOND);
    assert_eq!(best, "g1h3");
    // MultiPV over the allowed moves only.
    e.send("setoption name MultiPV value 3");
    let (best, lines) = go_once(&mut e, "go depth 4 searchmoves b1c3 g2g4", 10 * SECOND);
    assert!(best == "b1c3" || best == "g2g4", "{best}");
    assert!(lines
        .iter()
        .any(|l| l.starts_with("info depth 4 ") && l.contains(" multipv 2 ")));
    assert!(!lines.iter().any(|l| l.contains(" multipv 3 ")), "{lines:?}");
    e.send("setoption name MultiPV value 1");
    // Illegal and unreadable ones are dropped (and named); upper-case promotion letters read.
    let (best, lines) = go_once(&mut e, "go depth 3 searchmoves e2e5 zz d2d4", 10 * SECOND);
    assert_eq!(best, "d2d4");
    assert_eq!(
        lines[..2],
        [
            "info string error: go: searchmoves: illegal move \"e2e5\", ignored",
            "info string error: go: searchmoves: invalid move syntax \"zz\", ignored",
        ]
    );
    // None legal: every move is searched rather than none.
    let (best, lines) = go_once(&mut e, "go depth 3 searchmoves e2e5", 10 * SECOND);
    assert!(legal_in(movegen::STARTPOS_FEN, &best), "{best}");
    assert!(lines
        .iter()
        .any(|l| l.contains("no legal move in searchmoves; searching every move")));
    // With several threads too.
    e.send("setoption name Threads value 3");
    for _ in 0..5 {
        let (best, _) = go_once(&mut e, "go nodes 20000 searchmoves f2f3 g2g4", 10 * SECOND);
        assert!(best == "f2f3" || best == "g2g4", "{best}");
    }
    e.send("position fen 8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
    let (best, _) = go_once(&mut e, "go depth 5 searchmoves e7e8N", 10 * SECOND);
    assert_eq!(best, "e7e8n");
    e.quit();
}

#[test]
fn a_clock_without_time_for_the_side_to_move_is_finite() {
    let mut e = Engine::start();
    for (position, go, note) in [
        (
            "position startpos moves e2e4",
            "go wtime 1000",
            "info string error: go: no time given for black (to move); using the other side's 1000 ms",
        ),
        (
            "position startpos",
            "go btime 1000 binc 10",
            "info string error: go: no time given for white (to move); using the other side's 1000 ms",
        ),
        (
            "position startpos",
            "go winc 100 binc 100",
            "info string error: go: no time given for white (to move); using 1000 ms",
        ),
        (
            "position startpos moves d2d4",
            "go movestogo 10",
            "info string error: go: no time given for black (to move); using 1000 ms",
        ),
    ] {
        e.send(position);
        let t = Instant::now();
        let (best, lines) = go_once(&mut e, go, 3 * SECOND);
        assert!(
            t.elapsed() < Duration::from_millis(1500),
            "{go}: {:?}",
            t.elapsed()
        );
        assert_ne!(best, "0000");
        assert_eq!(lines[0], note);
    }
    e.quit();
}

#[test]
fn no_legal_move_answers_0000() {
    let mut e = Engine::start();
    // Checkmated, and stalemated, with every kind of go.
    for position in [
        "position startpos moves f2f3 e7e5 g2g4 d8h4",
        "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    ] {
        e.send(position);
        for go in [
            "go depth 0",
            "go wtime 1000 btime -1",
            "go depth 5 searchmoves e2e4",
            "go nodes 100 bogus",
            "go movetime 10",
        ] {
            let (best, _) = go_once(&mut e, go, 5 * SECOND);
            assert_eq!(best, "0000", "{position} {go}");
        }
        // Infinite: the answer waits for stop.
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(100));
        assert!(e.lines.try_iter().all(|l| !l.starts_with("bestmove")));
        e.send("stop");
        assert_eq!(e.bestmove(SECOND).0, "0000");
    }
    e.quit();
}

#[test]
fn a_refused_position_never_leaves_a_stale_one() {
    let mut e = Engine::start();
    // Upper-case promotion letters, as some GUIs send them, are read.
    e.send("position startpos moves e2e4");
    e.send("position fen 8/4P3/8/8/8/8/k7/4K3 w - - 0 1 moves e7e8Q");
    assert_eq!(e.fen(), "4Q3/8/8/8/8/8/k7/4K3 b - - 0 1");
    let (best, _) = go_once(&mut e, "go depth 3", 5 * SECOND);
    assert!(legal_in("4Q3/8/8/8/8/8/k7/4K3 b - - 0 1", &best), "{best}");
    // A full-move number of 0 reads as 1; missing clocks read as 0 1.
    e.send("position startpos moves e2e4");
    e.send("position fen 8/4P3/8/8/8/8/k7/4K3 w - - 0 0");
    assert_eq!(e.fen(), "8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
    e.send("position fen 8/4P3/8/8/8/8/k7/4K3 w - - moves e7e8r");
    assert_eq!(e.fen(), "4R3/8/8/8/8/8/k7/4K3 b - - 0 1");

    // A bad move keeps the legal moves before it, and names it.
    e.send("position startpos moves e2e4 e7e5 e1e3 g1f3");
    let lines = e.sync();
    assert_eq!(
        lines,
        ["info string error: move 3 of the list: illegal move \"e1e3\"; the position is the one after the 2 legal moves before it"]
    );
    let after_e4_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    assert_eq!(e.fen(), after_e4_e5);
    let (best, _) = go_once(&mut e, "go depth 3", 5 * SECOND);
    assert!(legal_in(after_e4_e5, &best), "{best}");

    // A bad FEN leaves no position: every go answers 0000 with the reason.
    for bad in [
        "position fen 8/4P3/8/8/8/8/k7/4K3 w - - 0 1x",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1 moves e2e4",
        "position fen",
        "position",
        "position startpos junk",
    ] {
        e.send("position startpos moves d2d4");
        e.send(bad);
        let lines = e.sync();
        assert_eq!(lines.len(), 1, "{bad}: {lines:?}");
        assert!(
            lines[0].starts_with("info string error: position refused: "),
            "{bad}: {lines:?}"
        );
        for go in [
            "go depth 4",
            "go wtime 1000 btime 1000",
            "go searchmoves e2e4 depth 2",
        ] {
            let (best, lines) = go_once(&mut e, go, 5 * SECOND);
            assert_eq!(best, "0000", "{bad}: {go}");
            assert!(
                lines[0].starts_with("info string error: no position: the last 'position' was refused ("),
                "{lines:?}"
            );
            assert!(lines.iter().all(|l| !l.starts_with("info depth")), "{lines:?}");
        }
        // Infinite and ponder still wait for stop / ponderhit.
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(50));
        assert!(e.lines.try_iter().all(|l| !l.starts_with("bestmove")));
        e.send("stop");
        assert_eq!(e.bestmove(SECOND).0, "0000");
        e.send("go ponder wtime 1000 btime 1000");
        std::thread::sleep(Duration::from_millis(50));
        assert!(e.lines.try_iter().all(|l| !l.starts_with("bestmove")));
        e.send("ponderhit");
        assert_eq!(e.bestmove(SECOND).0, "0000");
        e.send("d");
        assert!(e.sync()[0].starts_with("info string error: no position:"));
    }
    // The next good position (or ucinewgame) ends it.
    e.send("position startpos moves g1f3");
    let (best, _) = go_once(&mut e, "go depth 2", 5 * SECOND);
    assert!(legal_in(
        "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1",
        &best
    ));
    e.send("position fen 8/8 w - - 0 1");
    e.send("ucinewgame");
    let (best, _) = go_once(&mut e, "go depth 2", 5 * SECOND);
    assert!(legal_in(movegen::STARTPOS_FEN, &best), "{best}");
    e.quit();
}

#[test]
fn a_hash_too_large_is_refused_and_the_engine_carries_on() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok", 5 * SECOND);
    assert!(
        lines.contains(&"option name Hash type spin default 16 min 1 max 1048576".to_string()),
        "{lines:?}"
    );
    // 65536 MiB is the size that once aborted the engine on a 24 GiB machine; it is only
    // too large where the machine has less memory than that.
    let memory_mib = engine::memory_limit_bytes().map_or(u64::MAX, |b| b >> 20);
    let values: Vec<&str> = ["1048576", "65536", "1000000"]
        .into_iter()
        .filter(|v| v.parse::<u64>().unwrap() > memory_mib || *v == "1048576")
        .collect();
    for value in values {
        e.send(&format!("setoption name Hash value {value}"));
        let lines = e.sync();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with(&format!("info string error: hash of {value} MiB"))
                && lines[0].ends_with("; keeping the 16 MiB table"),
            "{lines:?}"
        );
        assert!(e.alive());
    }
    e.send("position startpos");
    let (best, _) = go_once(&mut e, "go depth 5", 10 * SECOND);
    assert_ne!(best, "0000");
    // A size that fits is still taken.
    e.send("setoption name Hash value 32");
    assert!(e.sync().is_empty());
    let (best, _) = go_once(&mut e, "go depth 5", 10 * SECOND);
    assert_ne!(best, "0000");
    e.quit();
}

#[test]
fn with_threads_bestmove_is_the_last_pv() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 4");
    let positions = [
        "position startpos",
        "position startpos moves e2e4 c7c5 g1f3 d7d6",
        "position fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "position fen 2r3k1/pp3ppp/8/3p4/3P4/2P5/PP3PPP/4R1K1 w - - 0 1",
        "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ];
    for i in 0..60 {
        e.send(positions[i % positions.len()]);
        let go = match i % 3 {
            0 => format!("go movetime {}", 5 + i % 20),
            1 => format!("go nodes {}", 2000 + 500 * i),
            _ => "go wtime 500 btime 500 winc 5 binc 5".to_string(),
        };
        let (best, lines) = go_once(&mut e, &go, 5 * SECOND);
        let last = last_pv_first(&lines);
        assert_eq!(Some(&best), last.as_ref(), "search {i} ({go}): {lines:?}");
    }
    e.quit();
}

#[test]
fn unknown_commands_list_what_luft_understands() {
    let mut e = Engine::start();
    e.send("frobnicate now");
    let lines = e.sync();
    assert_eq!(
        lines,
        ["info string error: unknown command \"frobnicate\"; Luft understands: uci, isready, ucinewgame, position, go, stop, ponderhit, setoption, debug, register, quit; extensions: d, eval, bench, help"]
    );
    e.send("help");
    let lines = e.sync();
    assert!(lines.len() >= 4, "{lines:?}");
    assert!(lines.iter().all(|l| l.starts_with("info string ")), "{lines:?}");
    assert!(
        lines[0].starts_with("info string Luft understands: uci, isready"),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.contains("searchmoves")), "{lines:?}");
    // debug and register are UCI commands: accepted quietly.
    e.send("debug on");
    e.send("register later");
    assert!(e.sync().is_empty());
    e.send("setoption name Ponder value yes");
    assert_eq!(
        e.sync(),
        ["info string error: bad value \"yes\" for Ponder (true or false)"]
    );
    e.quit();
}
