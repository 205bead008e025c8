//! arena end to end: luft against luft at a node limit, every fault of the misbehaving
//! engine recorded as a result, engines that flood their output (`/usr/bin/yes`, a shell
//! script, the fault engine) stopped in bounded time and memory, options an engine lacks
//! or refuses reported, the PGN read back by movegen, and `sprt-calc`.
//!
//! The luft binary is the one the workspace test command builds next to this test
//! (`target/release/luft`, or `target/debug/luft` for a debug test run); run `cargo build
//! -p engine` (with `--release` for `--release` tests) first when testing arena
//! alone.

#![allow(clippy::unwrap_used)]

mod common;

use common::{luft, run_arena, temp_file, BOOK, FAULT};
use movegen::pgn::parse_pgn;
use movegen::Game;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A finished arena run, with its wall time and the peak resident memory seen.
struct Measured {
    code: i32,
    out: String,
    err: String,
    elapsed: Duration,
    peak_kib: u64,
}

/// Runs arena, polling its peak memory (`VmHWM`), and kills it after `limit`: a runner that
/// hangs fails the test instead of hanging it.
fn arena_measured(args: &[&str], limit: Duration) -> Measured {
    let start = Instant::now();
    let mut child = Command::new(common::ARENA)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).ok();
        s
    });
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code().unwrap_or(-1);
        }
        if let Ok(status) = std::fs::read_to_string(&status_path) {
            if let Some(kib) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak_kib = peak_kib.max(kib);
            }
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            break -9;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Measured {
        code,
        out: out_reader.join().unwrap(),
        err: err_reader.join().unwrap(),
        elapsed: start.elapsed(),
        peak_kib,
    }
}

/// Peak memory that no flood may push arena past.
const FLOOD_MEMORY_KIB: u64 = 200 * 1024;

#[test]
fn yes_as_an_engine_is_faulty_at_the_handshake() {
    let fault = format!("cmd={FAULT}");
    let run = arena_measured(
        &[
            "--engine",
            "cmd=/usr/bin/yes",
            "--engine",
            &fault,
            "args=ok",
            "--each",
            "tc=1+0.1",
            "--rounds",
            "1",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(run.code, 3, "{}{}", run.out, run.err);
    assert!(
        run.err.contains(
            "arena: error: engine yes failed at start-up: floods its output \
             (more than 100000 lines a second while awaiting uciok)"
        ),
        "{}",
        run.err
    );
    // Found by the line rate, well before the 10 s handshake timeout.
    assert!(run.elapsed < Duration::from_secs(8), "{:?}", run.elapsed);
    assert!(
        run.peak_kib < FLOOD_MEMORY_KIB,
        "arena grew to {} KiB",
        run.peak_kib
    );
}

/// Runs one game pair of the fault engine's `ok` mode against `cmd` (with `args`), 1 s + 0.1 s.
fn flood_run(cmd: &str, args: Option<&str>) -> Measured {
    let ok = format!("cmd={FAULT}");
    let cmd = format!("cmd={cmd}");
    let mut list = vec!["--engine", &cmd, "name=flood"];
    if let Some(a) = args {
        list.push(a);
    }
    list.extend([
        "--engine",
        &ok,
        "name=ok",
        "args=ok",
        "--each",
        "tc=1+0.1",
        "timemargin=50",
        "--rounds",
        "1",
        "--games",
        "2",
        "--recover",
    ]);
    arena_measured(&list, Duration::from_secs(120))
}

#[test]
fn an_engine_flooding_info_lines_after_go_loses_in_bounded_time_and_memory() {
    // The fault engine prints info lines as fast as it can on its first `go`.
    let run = flood_run(FAULT, Some("args=flood --after 1"));
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    let reason = "disconnects (floods its output, more than 100000 lines a second while awaiting bestmove)";
    assert!(
        run.out
            .contains(&format!("Finished game 1 (flood vs ok): 0-1 {{White {reason}}}")),
        "{}",
        run.out
    );
    // Restarted, it floods again on its first `go` as Black.
    assert!(
        run.out
            .contains(&format!("Finished game 2 (ok vs flood): 1-0 {{Black {reason}}}")),
        "{}",
        run.out
    );
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);
    assert!(
        run.peak_kib < FLOOD_MEMORY_KIB,
        "arena grew to {} KiB",
        run.peak_kib
    );
}

#[test]
fn a_flooding_shell_script_loses_in_bounded_time_and_memory() {
    let script = temp_file("flood.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\n\
         while read -r cmd rest; do\n\
           case \"$cmd\" in\n\
             uci) echo 'id name flood'; echo uciok;;\n\
             isready) echo readyok;;\n\
             go) while :; do echo 'info depth 1 score cp 0 nodes 1'; done;;\n\
             quit) exit 0;;\n\
           esac\n\
         done\n",
    )
    .unwrap();
    let run = flood_run("/bin/sh", Some(&format!("args={}", script.display())));
    assert_eq!(run.code, 0, "{}{}", run.out, run.err);
    // Depending on how fast the shell prints, the line rate or the clock stops it: either
    // way it loses, in bounded time.
    for (number, pattern) in [
        (1, "(flood vs ok): 0-1 {White "),
        (2, "(ok vs flood): 1-0 {Black "),
    ] {
        let line = run
            .out
            .lines()
            .find(|l| l.starts_with(&format!("Finished game {number} ")))
            .unwrap_or_else(|| panic!("no game {number}: {}", run.out));
        assert!(line.contains(pattern), "{line}");
        assert!(
            line.contains("floods its output") || line.contains("loses on time"),
            "{line}"
        );
    }
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);
    assert!(
        run.peak_kib < FLOOD_MEMORY_KIB,
        "arena grew to {} KiB",
        run.peak_kib
    );
}

/// Two copies of one engine in a short match, for the tests of an option one copy is given:
/// the engine's command (`cmd=...`) and its words after the name (any `args=`), the copies'
/// names, which copy (0 or 1) gets the option, and the match's `--each nodes=`, `--rounds`
/// and `--maxmoves`.
struct TwoCopies<'a> {
    cmd: &'a str,
    words: &'a [&'a str],
    names: [&'a str; 2],
    given: usize,
    nodes: &'a str,
    rounds: &'a str,
    maxmoves: &'a str,
}

/// Runs arena on `pair` with `option` (`option.NAME=VALUE`) given to copy `pair.given`:
/// `--engine CMD name=NAME WORDS [OPTION]` for each copy, then `--each nodes=N --rounds R
/// --maxmoves M`. Returns arena's exit code (-1 for a signal), stdout and stderr.
fn with_option(pair: &TwoCopies, option: &str) -> (i32, String, String) {
    let mut args = Vec::new();
    for (copy, name) in pair.names.iter().enumerate() {
        args.extend([
            "--engine".to_string(),
            pair.cmd.to_string(),
            format!("name={name}"),
        ]);
        args.extend(pair.words.iter().map(ToString::to_string));
        if copy == pair.given {
            args.push(option.to_string());
        }
    }
    args.extend(["--each".to_string(), format!("nodes={}", pair.nodes)]);
    args.extend(["--rounds", pair.rounds, "--maxmoves", pair.maxmoves].map(String::from));
    run_arena(None, &args)
}

#[test]
fn options_an_engine_lacks_are_reported_and_declared_ones_refused_stop_the_match() {
    // The fault engine declares Hash 1..1024, refuses above 64, and knows no other option.
    let fault = format!("cmd={FAULT}");
    let (code, out, err) = run_arena(
        None,
        &[
            "--engine",
            &fault,
            "name=a",
            "args=ok",
            "option.Nope=3",
            "--engine",
            &fault,
            "name=b",
            "args=ok",
            "--each",
            "nodes=1",
            "option.Hash=16",
            "--rounds",
            "2",
            "--maxmoves",
            "2",
            "--concurrency",
            "2",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("arena: warning: "))
        .collect();
    let expected = [
        "arena: warning: engine a does not declare option \"Nope\": option.Nope=3 is sent anyway and may have no effect",
        "arena: warning: engine a refused option.Nope=3: No such option: Nope",
    ];
    for line in expected {
        assert!(warnings.contains(&line), "missing {line:?} in:\n{err}");
    }
    // Once each, however many workers start the engines; the accepted Hash=16 is silent.
    assert_eq!(warnings.len(), expected.len(), "{err}");
    assert_eq!(out.matches("Finished game").count(), 4, "{out}");

    // A declared option whose value the engine refuses (a net it cannot load, a size it
    // cannot allocate) would play the match with another value: nothing is played.
    let pair = TwoCopies {
        cmd: &fault,
        words: &["args=ok"],
        names: ["a", "b"],
        given: 1,
        nodes: "1",
        rounds: "2",
        maxmoves: "2",
    };
    for (hash, words) in [("512", "cannot allocate 512 MiB"), ("0", "cannot allocate 0 MiB")] {
        let (code, out, err) = with_option(&pair, &format!("option.Hash={hash}"));
        assert_eq!(code, 3, "{out}{err}");
        let expected = format!(
            "arena: error: engine b failed at start-up: refused option.Hash={hash}, which it declares (it answered \
             \"info string error: {words}\")"
        );
        assert!(
            err.lines().any(|l| l.starts_with(&expected)),
            "missing {expected:?} in:\n{err}"
        );
        assert!(!out.contains("Finished game"), "{out}");
    }
}

#[test]
fn luft_reports_options_it_lacks_and_stops_at_a_value_it_refuses() {
    let cmd = format!("cmd={}", luft().display());
    let pair = TwoCopies {
        cmd: &cmd,
        words: &[],
        names: ["luft-a", "luft-b"],
        given: 0,
        nodes: "200",
        rounds: "1",
        maxmoves: "3",
    };
    let (code, out, err) = with_option(&pair, "option.Nope=3");
    assert_eq!(code, 0, "{out}{err}");
    for line in [
        "arena: warning: engine luft-a does not declare option \"Nope\"",
        "arena: warning: engine luft-a refused option.Nope=3: info string error: ",
    ] {
        assert!(
            err.lines().any(|l| l.starts_with(line)),
            "missing {line:?} in:\n{err}"
        );
    }
    assert!(!err.contains("luft-b"), "{err}");

    // A net file that is not a net: Luft keeps the net it has and says why; arena stops.
    let not_a_net = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let eval_file = format!("option.EvalFile={}", not_a_net.display());
    for (option, says) in [
        ("option.Hash=0", "refused option.Hash=0, which it declares"),
        (eval_file.as_str(), "refused option.EvalFile="),
    ] {
        let (code, out, err) = with_option(&pair, option);
        assert_eq!(code, 3, "{out}{err}");
        let expected = format!("arena: error: engine luft-a failed at start-up: {says}");
        assert!(
            err.lines().any(|l| l.starts_with(&expected)),
            "missing {expected:?} in:\n{err}"
        );
        assert!(!out.contains("Finished game"), "{out}");
    }
}

/// One game pair of the fault engine against itself from `book`; the games read back.
fn book_run(
    book: &std::path::Path,
    format: &str,
    extra: &[&str],
) -> (i32, String, Vec<movegen::pgn::PgnGame>) {
    let fault = format!("cmd={FAULT}");
    let pgn = temp_file(&format!("book-{format}.pgn"));
    let file = format!("file={}", book.display());
    let format = format!("format={format}");
    let mut args = vec![
        "--engine",
        &fault,
        "name=a",
        "args=ok",
        "--engine",
        &fault,
        "name=b",
        "args=ok",
        "--each",
        "nodes=1",
        "--maxmoves",
        "6",
        "--rounds",
        "1",
        "--openings",
        &file,
        &format,
    ];
    args.extend(extra);
    args.extend(["--pgnout", pgn.to_str().unwrap()]);
    let (code, out, err) = run_arena(None, &args);
    assert_eq!(code, 0, "{out}{err}");
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap()).unwrap();
    assert_eq!(games.len(), 2, "{out}");
    (code, err, games)
}

#[test]
fn books_with_a_byte_order_mark_are_played() {
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4PP2/8/PPPP2PP/RNBQKBNR b KQkq - 0 2";
    let epd = temp_file("bom.epd");
    std::fs::write(&epd, format!("\u{feff}{fen}\r\n")).unwrap();
    let (_, err, games) = book_run(&epd, "epd", &[]);
    assert!(err.is_empty(), "{err}");
    for g in &games {
        assert_eq!(g.tag("FEN"), Some(fen));
    }

    // A PGN book saved with a mark, an e.p. capture marked, and a null move that ends it.
    let book = temp_file("bom.pgn");
    std::fs::write(
        &book,
        "\u{feff}[Event \"book\"]\n\n1. e4 a6 2. e5 d5 3. exd6 e.p. e6 4. -- Nf6 *\n",
    )
    .unwrap();
    let (_, err, games) = book_run(&book, "pgn", &["plies=16"]);
    assert_eq!(
        err.trim(),
        format!(
            "arena: note: openings {}: game 1 stops at the null move \"--\" after 6 moves \
             (a game cannot hold a null move); the opening is the moves before it",
            book.display()
        )
    );
    for g in &games {
        assert!(g.moves.len() >= 6, "{:?}", g.moves);
        assert_eq!(g.comments[..6], vec![Some("book".to_string()); 6][..]);
        let mut board = g.start;
        for &mv in &g.moves[..6] {
            board.play(mv);
        }
        assert_eq!(
            board.to_fen(),
            "rnbqkbnr/1pp2ppp/p2Pp3/8/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 4"
        );
    }
}

#[test]
fn luft_against_luft_at_a_node_limit() {
    let luft = luft();
    let pgn = temp_file("luft.pgn");
    let cmd = format!("cmd={}", luft.display());
    let openings = BOOK;
    let (code, out, err) = run_arena(
        None,
        &[
            "--engine",
            &cmd,
            "name=luft-a",
            "option.Hash=8",
            "--engine",
            &cmd,
            "name=luft-b",
            "option.Hash=8",
            "--each",
            "nodes=1500",
            "--openings",
            &format!("file={openings}"),
            "format=epd",
            "order=random",
            "--rounds",
            "4",
            "--games",
            "2",
            "--concurrency",
            "2",
            "--sprt",
            "elo0=0",
            "elo1=10",
            "--pgnout",
            pgn.to_str().unwrap(),
            "--seed",
            "3",
            "--maxmoves",
            "150",
            "--sprt-exit-codes",
        ],
    );
    assert_eq!(code, 2, "undecided after 8 games (arena's own codes): {out}{err}");
    assert_eq!(out.matches("Finished game").count(), 8, "{out}");
    assert!(out.contains("Games: 8, "), "{out}");
    let ptnml = out
        .lines()
        .rev()
        .find(|l| l.starts_with("Ptnml(0-2): ["))
        .unwrap();
    let inside = &ptnml["Ptnml(0-2): [".len()..ptnml.find(']').unwrap()];
    let counts: Vec<u64> = inside.split(", ").map(|n| n.parse().unwrap()).collect();
    assert_eq!(counts.iter().sum::<u64>(), 4, "{ptnml}");
    assert!(out.contains("LLR: "), "{out}");

    // Every game reads back through movegen's PGN reader and replays legally.
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap()).unwrap();
    assert_eq!(games.len(), 8);
    for g in &games {
        let mut game = Game::new(g.start);
        for &mv in &g.moves {
            game.play(mv).unwrap();
        }
        assert_eq!(g.tag("PlyCount").unwrap(), g.moves.len().to_string());
        assert!(["1-0", "0-1", "1/2-1/2"].contains(&g.result.as_str()));
        assert!(g.tag("Termination").is_some() && g.tag("FEN").is_some() && g.tag("SetUp") == Some("1"));
        if g.tag("Termination") == Some("normal") {
            let outcome = game
                .outcome_with_claims()
                .expect("a normal ending is a rules ending");
            assert_eq!(outcome.result_str(), g.result);
        }
    }
}

fn fault_run(mode: &str, recover: bool) -> (i32, String, String, Vec<movegen::pgn::PgnGame>) {
    let fault = FAULT;
    let pgn = temp_file(&format!("fault-{mode}-{recover}.pgn"));
    let cmd = format!("cmd={fault}");
    let faulty_args = format!("args={mode} --after 2");
    let mut args = vec![
        "--engine",
        &cmd,
        "name=faulty",
        &faulty_args,
        "--engine",
        &cmd,
        "name=ok",
        "args=ok",
        "--each",
        "tc=0.5+0.05",
        "timemargin=50",
        "--rounds",
        "1",
        "--games",
        "2",
        "--pgnout",
        pgn.to_str().unwrap(),
        "--concurrency",
        "1",
    ];
    if recover {
        args.push("--recover");
    }
    let (code, out, err) = run_arena(None, &args);
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap_or_default()).unwrap();
    (code, out, err, games)
}

#[test]
fn every_fault_is_a_recorded_loss() {
    for (mode, reason, termination) in [
        ("crash", "disconnects", "abandoned"),
        ("stall", "loses on time (", "time forfeit"),
        ("illegal", "makes an illegal move: a1a8", "illegal move"),
        (
            "nobestmove",
            "makes an illegal move (bestmove without a move)",
            "illegal move",
        ),
        ("overtime", "loses on time (", "time forfeit"),
    ] {
        let (code, out, err, games) = fault_run(mode, true);
        assert_eq!(code, 0, "{mode}: {out}{err}");
        assert!(
            out.contains(&format!("Finished game 1 (faulty vs ok): 0-1 {{White {reason}")),
            "{mode}: {out}"
        );
        assert_eq!(games[0].result, "0-1", "{mode}");
        assert_eq!(games[0].tag("Termination"), Some(termination), "{mode}");
        let last_comment = games[0].comments.last().cloned().flatten().unwrap_or_default();
        assert!(last_comment.contains(reason), "{mode}: {last_comment}");
        if mode != "overtime" {
            // Restarted, the engine faults again in game 2 (as Black): play went on.
            assert!(
                out.contains(&format!("Finished game 2 (ok vs faulty): 1-0 {{Black {reason}")),
                "{mode}: {out}"
            );
        }
    }
}

#[test]
fn without_recover_a_fault_stops_the_match_with_an_error() {
    let (code, out, err, _) = fault_run("crash", false);
    assert_eq!(code, 3, "{out}");
    assert!(
        err.contains("arena: error: White disconnects in game 1 (faulty vs ok) (use -recover"),
        "{err}"
    );
    assert!(out.contains("Games: "), "the report is still printed: {out}");
}

#[test]
fn zero_rounds_is_an_error_with_exit_code_3() {
    let (code, out, err) = run_arena(
        None,
        &[
            "--engine", "cmd=a", "--engine", "cmd=b", "--each", "tc=1", "--rounds", "0",
        ],
    );
    assert_eq!(
        (code, out.as_str(), err.trim()),
        (
            3,
            "",
            "arena: -rounds must be a whole number from 1 to 1000000000, found \"0\""
        )
    );
}

#[test]
fn sprt_calc_reproduces_a_vector_and_refuses_bad_input() {
    let (code, out, _) = run_arena(
        None,
        &[
            "sprt-calc",
            "--penta",
            "39,8843,26675,9240,44",
            "--elo0",
            "0.5",
            "--elo1",
            "2.5",
            "--model",
            "normalized",
        ],
    );
    assert_eq!(code, 0);
    assert!(out.starts_with("LLR: 2.9417 (-2.9444, 2.9444)\n"), "{out}");
    assert!(
        out.contains("Elo: ") && out.contains("nElo: ") && out.contains("LOS: "),
        "{out}"
    );
    let (code, out, _) = run_arena(
        None,
        &[
            "sprt-calc",
            "--tri",
            "22569,44137,22976",
            "--elo0",
            "0.5",
            "--elo1",
            "2.5",
            "--model",
            "bayes",
        ],
    );
    assert_eq!(code, 0);
    assert!(out.starts_with("LLR: 0.9758 "), "{out}");
    for bad in [
        &["sprt-calc", "--penta", "1,2,3", "--elo0", "0", "--elo1", "5"][..],
        &["sprt-calc", "--tri", "1,2,3", "--elo0", "5", "--elo1", "0"],
        &["sprt-calc", "--tri", "1,2,3"],
        &[
            "sprt-calc",
            "--penta",
            "1,2,3,4,5",
            "--elo0",
            "0",
            "--elo1",
            "5",
            "--model",
            "bayes",
        ],
    ] {
        let (code, _, err) = run_arena(None, bad);
        assert_eq!(code, 3, "{bad:?}");
        assert!(err.starts_with("arena: "), "{err}");
    }
    // Counts beyond what the likelihood is computed to are refused, not answered with NaN
    // or a wrong LLR; up to the limit the LLR grows with the counts as it must.
    let (code, _, err) = run_arena(
        None,
        &[
            "sprt-calc",
            "--penta",
            "1000000000000000,0,0,0,1000000000000000",
            "--elo0",
            "0",
            "--elo1",
            "5",
        ],
    );
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("more than 100,000,000 games"), "{err}");
    let llr_of = |pairs: &str| {
        let counts = format!("{pairs},0,0,0,{pairs}");
        let (code, out, err) = run_arena(
            None,
            &["sprt-calc", "--penta", &counts, "--elo0", "0", "--elo1", "5"],
        );
        assert_eq!(code, 0, "{err}");
        out.lines()
            .next()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<f64>()
            .unwrap()
    };
    let (small, large) = (llr_of("1000000"), llr_of("25000000"));
    assert!((large / small - 25.0).abs() < 1e-3, "{small} {large}");
    let (code, _, err) = run_arena(
        None,
        &["sprt-calc", "--tri", "1,2,3", "--elo0", "nan", "--elo1", "5"],
    );
    assert_eq!(
        (code, err.trim()),
        (
            3,
            "arena: --elo0 must be a number from -1000 to 1000, found \"nan\""
        )
    );
    let (code, _, err) = run_arena(None, &["--engine", "cmd=x"]);
    assert_eq!(
        (code, err.trim()),
        (3, "arena: at least two -engine are needed, found 1")
    );
}

/// The normalized model at wide bounds, where `sprt-calc` (and `-sprt`) once answered
/// H1 on an exactly even score, the opposite sign of the logistic model, or 0: each LLR as
/// the reference grid (`llr-normalized-grid.csv`) has it, to the 4 decimals printed.
#[test]
fn sprt_calc_normalized_at_wide_bounds() {
    for (penta, elo0, elo1, expected) in [
        // Even score: H0 (200) is nearer the truth than H1 (300).
        ("1,2,4,2,1", "200", "300", "LLR: -2.9813 "),
        // The logistic model gives +19.24 here; the normalized one agrees in sign.
        ("5,10,20,10,5", "-300", "-200", "LLR: 14.9066 "),
        ("1,2,4,2,1", "250", "260", "LLR: -0.3030 "),
    ] {
        let (code, out, err) = run_arena(
            None,
            &["sprt-calc", "--penta", penta, "--elo0", elo0, "--elo1", elo1],
        );
        assert_eq!(code, 0, "{err}");
        assert!(out.starts_with(expected), "{penta} [{elo0}, {elo1}]: {out}");
    }
}

#[test]
fn tablebase_positions_are_adjudicated_with_fastchess_words() {
    let tables = tablebase::tables_for_tests();
    let luft = luft();
    // White to move takes a loose queen: into KQRvK (a win) and KRvKR (a draw).
    let book = temp_file("tb.epd");
    std::fs::write(
        &book,
        "4k3/8/8/8/8/8/3q4/3QK2R w - -\n4k2r/8/8/8/8/8/3q4/R3K3 w - -\n",
    )
    .unwrap();
    let cmd = format!("cmd={}", luft.display());
    let run = |extra: &[&str]| {
        let mut args = vec![
            "-engine",
            &cmd,
            "name=a",
            "-engine",
            &cmd,
            "name=b",
            "-each",
            "nodes=2000",
            "option.Hash=8",
            "-openings",
        ];
        let file = format!("file={}", book.display());
        args.extend([
            file.as_str(),
            "format=epd",
            "order=sequential",
            "-rounds",
            "2",
            "-games",
            "1",
        ]);
        args.extend(["-maxmoves", "20"]);
        args.extend(extra);
        let (code, out, err) = run_arena(None, &args);
        assert_eq!(code, 0, "{out}{err}");
        out
    };
    let out = run(&["-tb", &tables]);
    assert!(
        out.contains(": 1-0 {White wins by adjudication: SyzygyTB}"),
        "{out}"
    );
    assert!(
        out.contains(": 1/2-1/2 {Draw by adjudication: SyzygyTB}"),
        "{out}"
    );
    // WIN_LOSS: the draw plays on (to the move limit); -tbpieces 3: the four-piece win is
    // not adjudicated (and no later position of that game can be).
    let out = run(&["-tb", &tables, "-tbadjudicate", "WIN_LOSS"]);
    assert!(out.contains("{White wins by adjudication: SyzygyTB}"), "{out}");
    assert!(!out.contains("Draw by adjudication: SyzygyTB"), "{out}");
    let out = run(&["-tb", &tables, "-tbpieces", "3"]);
    assert!(!out.contains("White wins by adjudication: SyzygyTB"), "{out}");
    // A path without tables stops the match before it starts.
    let (code, out, err) = run_arena(
        None,
        &[
            "-engine",
            &cmd,
            "-engine",
            &cmd,
            "name=b",
            "-each",
            "nodes=10",
            "-tb",
            "/nonexistent/tb",
        ],
    );
    assert_ne!(code, 0, "{out}{err}");
    assert!(
        format!("{out}{err}").contains("-tb /nonexistent/tb: /nonexistent/tb is not a directory"),
        "{out}{err}"
    );
}
