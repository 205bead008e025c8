//! The `luft` binary driven over a pipe, as a GUI or match runner drives it.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

mod common;

use common::{Engine, SECOND};
use std::process::Command;
use std::time::{Duration, Instant};

fn last_info_nodes(lines: &[String]) -> u64 {
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .expect("an info line");
    let tokens: Vec<&str> = info.split_whitespace().collect();
    let i = tokens.iter().position(|&t| t == "nodes").unwrap();
    tokens[i + 1].parse().unwrap()
}

#[test]
fn handshake_lists_every_option() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok", 5 * SECOND);
    assert!(lines[0].starts_with("id name Luft "), "{lines:?}");
    assert_eq!(lines[1], "id author The Luft developers");
    for option in [
        "Hash",
        "Threads",
        "MultiPV",
        "Move Overhead",
        "EvalFile",
        "UCI_Chess960",
        "Ponder",
        "Clear Hash",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {option} type"))),
            "{option}"
        );
    }
    e.sync_within(5 * SECOND);
    e.quit();
}

#[test]
fn depth_nodes_and_movetime_limits() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4 c7c5");
    e.send("go depth 6");
    let (best, lines) = e.bestmove(10 * SECOND);
    assert!(lines.iter().any(|l| l.starts_with("info depth 6 ")), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("info depth 7 ")));
    let info = lines.iter().find(|l| l.starts_with("info depth 6 ")).unwrap();
    for field in [
        "seldepth", "multipv", "score", "nodes", "nps", "hashfull", "time", "pv",
    ] {
        assert!(
            info.split_whitespace().any(|t| t == field),
            "{field} missing in {info}"
        );
    }
    assert_eq!(best.len(), 4, "{best}");

    e.send("go nodes 3000");
    let (_, lines) = e.bestmove(10 * SECOND);
    assert!(last_info_nodes(&lines) <= 3000, "{lines:?}");

    e.send("position startpos moves d2d4");
    let t = Instant::now();
    e.send("go movetime 300");
    e.bestmove(5 * SECOND);
    let elapsed = t.elapsed();
    assert!(
        elapsed >= Duration::from_millis(250) && elapsed < Duration::from_millis(600),
        "{elapsed:?}"
    );
    e.quit();
}

#[test]
fn stop_and_isready_during_infinite_search() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    e.send("isready");
    e.until("readyok", SECOND);
    assert!(
        t.elapsed() < Duration::from_millis(200),
        "readyok took {:?}",
        t.elapsed()
    );
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    e.send("stop");
    let (best, _) = e.bestmove(SECOND);
    assert!(
        t.elapsed() < Duration::from_millis(200),
        "stop took {:?}",
        t.elapsed()
    );
    assert_ne!(best, "0000");
    e.quit();
}

#[test]
fn clock_response_time_is_bounded() {
    // 1 s + 10 ms: the hard limit is 115 ms; a broken time manager blows the bound (bounds
    // leave room for a loaded CI machine, far below what searching on would take).
    let mut e = Engine::start();
    e.send("position startpos moves d2d4 d7d5 c2c4");
    e.sync_within(5 * SECOND);
    let t = Instant::now();
    e.send("go wtime 1000 btime 1000 winc 10 binc 10");
    e.bestmove(2 * SECOND);
    let elapsed = t.elapsed();
    assert!(elapsed < Duration::from_millis(300), "{elapsed:?}");
    assert!(elapsed >= Duration::from_millis(10), "{elapsed:?}");
    // Almost flagged: 20 ms left (hard limit 8 ms) answers in time.
    let t = Instant::now();
    e.send("go wtime 20 btime 20");
    e.bestmove(SECOND);
    assert!(t.elapsed() < Duration::from_millis(100), "{:?}", t.elapsed());
    e.quit();
}

#[test]
fn forced_mates_are_reported_as_mate_scores() {
    let mut e = Engine::start();
    // A back-rank mate in one.
    e.send("position fen 6k1/5ppp/8/8/8/8/1Q3PPP/3R2K1 w - - 0 1");
    e.send("go depth 8");
    let (best, lines) = e.bestmove(10 * SECOND);
    let info = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert!(info.contains("score mate 1"), "{info}");
    assert_eq!(best, "d1d8");
    // The side to move is mated in one whatever it does (Kg8, Ra8#): a negative mate score.
    e.send("position fen 7k/8/6K1/8/8/8/8/R7 b - - 0 1");
    e.send("go depth 6");
    let (best, lines) = e.bestmove(10 * SECOND);
    let info = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert!(info.contains("score mate -1"), "{info}");
    assert_eq!(best, "h8g8");
    // Mate in two (1. Kg6 Kg8 2. Ra8#), found by `go mate 2`.
    e.send("position fen 7k/8/5K2/8/8/8/8/R7 w - - 0 1");
    e.send("go mate 2");
    let (best, lines) = e.bestmove(10 * SECOND);
    let info = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert!(info.contains("score mate 2"), "{info}");
    assert_eq!(best, "f6g6");
    e.quit();
}

#[test]
fn checkmated_and_stalemated_roots_answer_0000() {
    let mut e = Engine::start();
    e.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    e.send("go depth 5");
    let (best, lines) = e.bestmove(5 * SECOND);
    assert_eq!(best, "0000");
    assert!(lines.iter().any(|l| l.contains("score mate 0")), "{lines:?}");
    e.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    e.send("go movetime 100");
    let (best, _) = e.bestmove(5 * SECOND);
    assert_eq!(best, "0000");
    e.quit();
}

#[test]
fn bad_input_changes_nothing() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4");
    let before = e.fen();
    // (Refused `position` lines and broken `go` lines do change something, on purpose:
    // see uci_faults.rs.)
    let bad_lines = [
        "frobnicate",
        "setoption name Hash value 0",
        "setoption name Hash value 99999999",
        "setoption name Hash value lots",
        "setoption name Threads value -1",
        "setoption name MultiPV value 1000",
        "setoption name Move Overhead value 1e9",
        "setoption name UCI_Chess960 value maybe",
        "setoption name NoSuchOption value 1",
        "setoption",
        "setoption name EvalFile value /nonexistent/net.nnue",
        "go perft 99",
        "go perft 0",
        "go perft x",
        "debug maybe",
        "bench 0",
    ];
    for line in bad_lines {
        e.send(line);
        let lines = e.until("info string error:", 5 * SECOND);
        assert_eq!(lines.len(), 1, "{line}: {lines:?}");
    }
    // Garbage bytes, an empty line, a very long line.
    e.send_bytes(b"\xff\xfe\x00\x01garbage\n");
    e.until("info string error:", 5 * SECOND);
    e.send("");
    e.send(&"x".repeat(2_000_000));
    e.until("info string error: line too long", 5 * SECOND);
    // The second e2e4 is illegal: the list is cut there, which is the position before.
    e.send(&format!("position startpos moves {}", "e2e4 ".repeat(10_000)));
    e.until("info string error: move 2 of the list", 5 * SECOND);
    assert_eq!(e.fen(), before, "bad input changed the position");
    e.send("go depth 3");
    let (best, _) = e.bestmove(5 * SECOND);
    assert_ne!(best, "0000");
    e.quit();
}

#[test]
fn evalfile_swap_and_bad_evalfile() {
    let dir = testing::temp("evalfile");
    let random = dir.join("random.nnue");
    std::fs::write(&random, nnue::Network::random(64, 1, 3).unwrap().to_bytes()).unwrap();
    let corrupt = dir.join("corrupt.nnue");
    let mut bytes = nnue::Network::random(64, 1, 3).unwrap().to_bytes();
    bytes[500] ^= 0x40;
    std::fs::write(&corrupt, &bytes).unwrap();

    let mut e = Engine::start_embedded();
    e.send("position startpos moves e2e4");
    e.send("eval");
    let default = e.until("info string eval", 5 * SECOND).pop().unwrap();
    let after_e4 =
        movegen::Board::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
    let expected = engine::default_net().evaluate(&after_e4);
    assert_eq!(
        default,
        format!(
            "info string eval {expected} cp (side to move), {} cp (white)",
            -expected
        )
    );

    e.send(&format!("setoption name EvalFile value {}", random.display()));
    let loaded = e.until("info string", 5 * SECOND).pop().unwrap();
    assert!(loaded.contains("loaded: hidden 64"), "{loaded}");
    e.send("eval");
    let swapped = e.until("info string eval", 5 * SECOND).pop().unwrap();
    let expected = nnue::Network::random(64, 1, 3).unwrap().evaluate(
        &movegen::Board::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap(),
    );
    assert!(
        swapped.starts_with(&format!("info string eval {expected} cp")),
        "{swapped}"
    );

    e.send(&format!("setoption name EvalFile value {}", corrupt.display()));
    let error = e.until("info string", 5 * SECOND).pop().unwrap();
    assert!(
        error.starts_with(&format!(
            "info string error: EvalFile {}: net file corrupt",
            corrupt.display()
        )),
        "{error}"
    );
    e.send("eval");
    assert_eq!(
        e.until("info string eval", 5 * SECOND).pop().unwrap(),
        swapped,
        "the previous net stays"
    );
    // A trainer checkpoint given for a net is named as one, with what makes a net of it.
    let checkpoint = dir.join("checkpoint.bin");
    let mut ckpt = bytes.clone();
    ckpt[..8].copy_from_slice(nnue::file::CHECKPOINT_MAGIC);
    std::fs::write(&checkpoint, &ckpt).unwrap();
    e.send(&format!("setoption name EvalFile value {}", checkpoint.display()));
    let error = e.until("info string", 5 * SECOND).pop().unwrap();
    assert!(
        error.starts_with(&format!(
            "info string error: EvalFile {}: a trainer checkpoint, not a net file (`trainer export CHECKPOINT --out NET`",
            checkpoint.display()
        )),
        "{error}"
    );

    e.send("setoption name EvalFile value <default>");
    e.until("info string EvalFile", 5 * SECOND);
    e.send("eval");
    assert_eq!(e.until("info string eval", 5 * SECOND).pop().unwrap(), default);
    e.send("go depth 4");
    e.bestmove(5 * SECOND);

    // A horizontally mirrored net loads, says so, evaluates as the reference does, and
    // searches a position where kings cross the d/e line.
    let mirrored_net = nnue::Network::random(64, 1, 3).unwrap().with_mirroring(true);
    let mirrored = dir.join("mirrored.nnue");
    std::fs::write(&mirrored, mirrored_net.to_bytes()).unwrap();
    e.send(&format!("setoption name EvalFile value {}", mirrored.display()));
    let loaded = e.until("info string", 5 * SECOND).pop().unwrap();
    assert!(
        loaded.contains("loaded: hidden 64, mirrored, fingerprint"),
        "{loaded}"
    );
    e.send("eval");
    let expected = mirrored_net.evaluate(&after_e4);
    let unmirrored = nnue::Network::random(64, 1, 3).unwrap().evaluate(&after_e4);
    assert_ne!(expected, unmirrored, "kings on e1 and e8: both views mirrored");
    assert!(
        e.until("info string eval", 5 * SECOND)
            .pop()
            .unwrap()
            .starts_with(&format!("info string eval {expected} cp")),
        "{expected}"
    );
    e.send("position fen 8/5k2/3p4/2pP4/2P5/4K3/8/8 w - - 0 1");
    e.send("go depth 8");
    let (best, _) = e.bestmove(10 * SECOND);
    assert_ne!(best, "0000");

    // A net with hidden layers (and one with king buckets and layers) loads, names its
    // architecture, evaluates as the reference does, and searches.
    for (text, seed) in [
        ("(768 -> 64 screlu)x2 -> (16 -> 32 -> 1)x8", 4),
        ("(768x4hm -> 64 screlu)x2 -> (16 -> 1)x8", 5),
    ] {
        let layered_net = nnue::Network::random_arch(&text.parse().unwrap(), seed).unwrap();
        let layered = dir.join(format!("layered-{seed}.nnue"));
        std::fs::write(&layered, layered_net.to_bytes()).unwrap();
        e.send(&format!("setoption name EvalFile value {}", layered.display()));
        let loaded = e.until("info string", 5 * SECOND).pop().unwrap();
        assert!(loaded.contains(&format!("arch {text}")), "{loaded}");
        e.send("position startpos moves e2e4");
        e.send("eval");
        let expected = layered_net.evaluate(&after_e4);
        assert!(
            e.until("info string eval", 5 * SECOND)
                .pop()
                .unwrap()
                .starts_with(&format!("info string eval {expected} cp")),
            "{text}: {expected}"
        );
        e.send("go depth 6");
        let (best, _) = e.bestmove(10 * SECOND);
        assert_ne!(best, "0000");
    }
    e.quit();
    std::fs::remove_dir_all(&dir).ok();
}

/// The EvalFile default is a word a GUI can send back: python-chess (and GUIs like it)
/// take the token after `default` and, to restore the default, send it as the value;
/// that returns to the embedded net. `<default>` (older GUIs' saved settings) still does.
#[test]
fn evalfile_default_is_a_name_that_returns_to_the_embedded_net() {
    let dir = testing::temp("evalfile-default");
    let random = dir.join("random.nnue");
    std::fs::write(&random, nnue::Network::random(32, 1, 9).unwrap().to_bytes()).unwrap();

    let mut e = Engine::start_embedded();
    e.send("uci");
    let lines = e.until("uciok", 5 * SECOND);
    let declared = lines
        .iter()
        .find(|l| l.starts_with("option name EvalFile "))
        .unwrap();
    assert_eq!(declared, "option name EvalFile type string default embedded");
    assert!(!declared.contains('<') && !declared.contains('>'), "{declared}");
    // What a GUI reads as the default: the rest of the line after "default ".
    let default_value = declared.split_once(" default ").unwrap().1.to_string();

    e.send("position startpos moves d2d4");
    e.send("eval");
    let embedded = e.until("info string eval", 5 * SECOND).pop().unwrap();
    for back in [default_value.as_str(), "<default>"] {
        e.send(&format!("setoption name EvalFile value {}", random.display()));
        assert!(e
            .until("info string", 5 * SECOND)
            .pop()
            .unwrap()
            .contains("loaded: hidden 32"));
        e.send("eval");
        assert_ne!(e.until("info string eval", 5 * SECOND).pop().unwrap(), embedded);
        e.send(&format!("setoption name EvalFile value {back}"));
        let loaded = e.until("info string", 5 * SECOND).pop().unwrap();
        assert!(
            loaded.starts_with(&format!("info string EvalFile {back} loaded: hidden ")),
            "{back}: {loaded}"
        );
        e.send("eval");
        assert_eq!(
            e.until("info string eval", 5 * SECOND).pop().unwrap(),
            embedded,
            "{back} returns to the embedded net"
        );
    }
    e.quit();
    std::fs::remove_dir_all(&dir).ok();
}

/// `luft --version` and `luft --help` answer without starting UCI; OpenBench's
/// positional commands keep working, also as one argument (`luft "bench 4"`).
#[test]
fn command_line_version_help_and_positional_commands() {
    let luft = || Command::new(env!("CARGO_BIN_EXE_luft"));
    let out = luft().arg("--version").output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("luft {}", env!("CARGO_PKG_VERSION"))
    );
    for flag in ["--help", "-h", "help"] {
        let out = luft().arg(flag).output().unwrap();
        assert!(out.status.success(), "{flag}");
        let help = String::from_utf8_lossy(&out.stdout);
        for word in ["bench", "perft", "genfens", "--version", "UCI"] {
            assert!(help.contains(word), "{flag}: {word} missing from\n{help}");
        }
    }
    let out = luft().args(["help", "perft"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("FEN"));

    // bench as two arguments and as one: the same deterministic last line.
    let last = |out: std::process::Output| {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text.lines().last().unwrap().to_string();
        let words: Vec<&str> = line.split_whitespace().collect();
        assert!(
            words.len() == 4 && words[1] == "nodes" && words[3] == "nps",
            "{line}"
        );
        words[0].to_string()
    };
    let two = last(luft().args(["bench", "4"]).output().unwrap());
    let one = last(luft().arg("bench 4").output().unwrap());
    assert_eq!(two, one);

    // perft with and without a FEN (the FEN's "-" fields are values, not options).
    let perft = |args: &[&str]| {
        let out = luft().args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(perft(&["perft", "3"]), "Nodes searched: 8902");
    assert_eq!(perft(&["perft 3"]), "Nodes searched: 8902");
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    assert_eq!(perft(&["perft", "2", kiwipete]), "Nodes searched: 2039");
    assert_eq!(perft(&[&format!("perft 2 {kiwipete}")]), "Nodes searched: 2039");
    assert_eq!(
        perft(&["perft", "1", "7k/8/8/8/8/8/8/K7", "w", "-", "-"]),
        "Nodes searched: 3"
    );

    // genfens as OpenBench sends it: one argument, with a trailing quit.
    let out = luft().arg("genfens 3 seed 7 book None quit").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("info string genfens "))
            .count(),
        3,
        "{text}"
    );

    // Bad input: a clear error on stderr and exit code 2, never a panic.
    for args in [
        vec!["bench", "0"],
        vec!["bench", "x"],
        vec!["bench 65"],
        vec!["perft", "21"],
        vec!["perft"],
        vec!["perft", "2", "not a fen"],
        vec!["frobnicate"],
        vec!["--frobnicate"],
    ] {
        let out = luft().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("error") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn same_search_twice_after_ucinewgame_gives_same_nodes() {
    let mut e = Engine::start();
    let run = |e: &mut Engine| {
        e.send("ucinewgame");
        e.send("position startpos moves e2e4 e7e5 g1f3 b8c6");
        e.send("go depth 9");
        let (best, lines) = e.bestmove(20 * SECOND);
        (best, last_info_nodes(&lines))
    };
    let first = run(&mut e);
    let second = run(&mut e);
    assert_eq!(first, second);
    e.quit();
}

#[test]
fn bench_is_deterministic() {
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_luft"))
            .args(["bench", "10"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.lines().count(), 51, "{text}");
        let last = text.lines().last().unwrap().to_string();
        let tokens: Vec<&str> = last.split_whitespace().collect();
        assert_eq!(
            (tokens.len(), tokens[1], tokens[3]),
            (4, "nodes", "nps"),
            "{last}"
        );
        tokens[0].parse::<u64>().unwrap()
    };
    assert_eq!(run(), run());
}

#[test]
fn perft_multipv_ponder_and_threads() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go perft 3");
    let lines = e.until("Nodes searched", 5 * SECOND);
    assert_eq!(lines.len(), 21);
    assert_eq!(lines[20], "Nodes searched: 8902");

    e.send("setoption name MultiPV value 3");
    e.send("go depth 5");
    let (_, lines) = e.bestmove(10 * SECOND);
    for k in 1..=3 {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info depth 5 ") && l.contains(&format!(" multipv {k} "))),
            "{k}"
        );
    }
    e.send("setoption name MultiPV value 1");

    // Ponder: no bestmove until ponderhit, then within the clock.
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e2e4");
    e.send("go ponder wtime 2000 btime 2000");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        e.lines.try_iter().all(|l| !l.starts_with("bestmove")),
        "bestmove while pondering"
    );
    let t = Instant::now();
    e.send("ponderhit");
    e.bestmove(2 * SECOND);
    assert!(t.elapsed() < Duration::from_millis(400), "{:?}", t.elapsed());

    e.send("setoption name Threads value 2");
    e.send("position startpos");
    e.send("go depth 8");
    let (best, _) = e.bestmove(20 * SECOND);
    assert_ne!(best, "0000");
    e.quit();
}

#[test]
fn chess960_castling_in_uci() {
    let mut e = Engine::start();
    e.send("setoption name UCI_Chess960 value true");
    e.send("position fen 7k/8/8/8/8/8/8/RK4R1 w GA - 0 1 moves b1g1");
    assert_eq!(e.fen(), "7k/8/8/8/8/8/8/R4RK1 b - - 1 1");
    e.send("position fen 7k/8/8/8/8/8/8/RK4R1 w GA - 0 1");
    e.send("go perft 1");
    let lines = e.until("Nodes searched", 5 * SECOND);
    assert!(lines.iter().any(|l| l == "b1g1: 1"), "{lines:?}");
    assert!(lines.iter().any(|l| l == "b1a1: 1"), "{lines:?}");
    e.quit();
}

/// A long extension command (`go perft`, `bench`) runs where `isready`, `stop` and `quit`
/// reach it: `isready` is answered while it runs, `stop` ends it with what was counted and a
/// line saying it was stopped (never a total that is not one: `Nodes searched: N`, or
/// bench's `N nodes M nps`), and `quit` exits. The guards are generous (a hang is the
/// failure; each answer takes milliseconds).
#[test]
fn a_deep_perft_or_bench_answers_isready_stop_and_quit() {
    let guard = 30 * SECOND;
    let is_total = |line: &String| {
        let words: Vec<&str> = line.split_whitespace().collect();
        line.starts_with("Nodes searched") || (words.len() == 4 && words[1] == "nodes" && words[3] == "nps")
    };
    for (command, stopped) in [
        ("go perft 12", "info string perft stopped"),
        ("bench 64", "info string bench stopped"),
    ] {
        let mut e = Engine::start();
        e.send("position startpos");
        e.send(command);
        let lines = e.sync_within(guard);
        assert!(!lines.iter().any(is_total), "{command}: {lines:?}");
        e.send("stop");
        let lines = e.until(stopped, guard);
        assert!(!lines.iter().any(is_total), "{command}: {lines:?}");
        // The engine is free again: it searches, and a second run is ended by `quit`.
        assert!(!e.sync_within(guard).iter().any(is_total), "{command}");
        e.send("go depth 3");
        let (best, _) = e.bestmove(guard);
        assert_ne!(best, "0000");
        e.send(command);
        assert!(!e.sync_within(guard).iter().any(is_total), "{command}");
        e.quit();
    }
}

/// At the end of input a running `go perft` counts to the end (nobody is left to send
/// `stop`; `echo "go perft 4" | luft` is how it is used).
#[test]
fn perft_at_the_end_of_input_counts_to_the_end() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_luft"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"position startpos\ngo perft 4\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().last(), Some("Nodes searched: 197281"), "{text}");
}
