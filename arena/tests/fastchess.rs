//! arena as a drop-in for fastchess: OpenBench's command line end to end with the real
//! `luft`, its output read by OpenBench's rules for fastchess output (re-stated here from
//! reading OpenBench's public worker: a `Finished game` line gives the game number as the
//! third word and the result as the seventh; games 2k-1 and 2k are a pair with the tested
//! engine White in the first; the text between the first and second colon counts a crash
//! when it holds "disconnect" or "stalls", a time loss when it holds "on time", an illegal
//! move when it holds "illegal"; a PGN is read as blocks of tags, a blank line, moves, a
//! blank line, each engine move's comment needing `score/depth`, a time, `n=` and `sd=`),
//! exact clock bookkeeping of repeating time controls, tournaments of more than two
//! engines, saving and resuming, and the long tail of fastchess's options.
//!
//! The luft binary is the one `cargo build -p engine` (or the workspace test command)
//! builds next to this test.

#![allow(clippy::unwrap_used)]

mod common;

use common::{luft, run_arena, temp_dir, words, BOOK, FAULT};
use matchcore::state::SavedState;
use movegen::pgn::parse_pgn;
use std::collections::HashMap;
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn s(p: &std::path::Path) -> String {
    p.display().to_string()
}

/// What OpenBench's worker takes from a runner's output.
#[derive(Debug, Default, PartialEq)]
struct ObResults {
    /// Losses, draws, wins of the first (tested) engine.
    tri: [u64; 3],
    /// LL, LD, DD+WL, WD, WW.
    penta: [u64; 5],
    crashes: u64,
    timelosses: u64,
    illegals: u64,
    /// Finished games waiting for their pair.
    games: HashMap<u64, String>,
}

fn ob_lookup(result: &str) -> u64 {
    match result {
        "0-1" => 0,
        "1/2-1/2" => 1,
        "1-0" => 2,
        other => panic!("OpenBench cannot read the result {other:?}"),
    }
}

/// OpenBench's reading of one output line.
fn ob_update(r: &mut ObResults, line: &str) {
    if !line.contains("Finished game") {
        return;
    }
    let reason = line.split(':').nth(1).unwrap_or("");
    r.crashes += u64::from(reason.contains("disconnect") || reason.contains("stalls"));
    r.timelosses += u64::from(reason.contains("on time"));
    r.illegals += u64::from(reason.contains("illegal"));
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let game: u64 = tokens[2].parse().unwrap();
    r.games.insert(game, tokens[6].to_string());
    let (first, second) = if game % 2 == 1 {
        (game, game + 1)
    } else {
        (game - 1, game)
    };
    let (Some(r1), Some(r2)) = (r.games.get(&first), r.games.get(&second)) else {
        return;
    };
    let (l1, l2) = (ob_lookup(r1), ob_lookup(r2));
    r.penta[(l1 + 2 - l2) as usize] += 1;
    r.tri[l1 as usize] += 1;
    r.tri[(2 - l2) as usize] += 1;
    r.games.remove(&first);
    r.games.remove(&second);
}

fn ob_read(out: &str) -> ObResults {
    let mut r = ObResults::default();
    for line in out.lines() {
        ob_update(&mut r, line);
    }
    r
}

/// A game as OpenBench's PGN reader slices it: tags, then the move text on one line.
struct ObGame {
    tags: HashMap<String, String>,
    moves: String,
}

fn ob_pgn(text: &str) -> Vec<ObGame> {
    let mut lines = text.lines();
    let mut games = Vec::new();
    loop {
        let headers: Vec<&str> = lines.by_ref().take_while(|l| !l.trim_end().is_empty()).collect();
        let moves: Vec<&str> = lines.by_ref().take_while(|l| !l.trim_end().is_empty()).collect();
        if headers.is_empty() || moves.is_empty() {
            break;
        }
        let tags = headers
            .iter()
            .map(|l| {
                let key = l.split_whitespace().next().unwrap()[1..].to_string();
                let value = l.split('"').nth(1).unwrap().to_string();
                (key, value)
            })
            .collect();
        games.push(ObGame {
            tags,
            moves: moves.join(" "),
        });
    }
    games
}

/// The comments of a move text, in order.
fn comments(moves: &str) -> Vec<String> {
    moves
        .split('{')
        .skip(1)
        .map(|c| c.split('}').next().unwrap().to_string())
        .collect()
}

/// Checks what OpenBench's verbose PGN compression needs from an engine move's comment.
fn ob_verbose_comment_ok(comment: &str) -> bool {
    let first = comment.split(',').next().unwrap_or("");
    let score_depth = first
        .split_whitespace()
        .next()
        .and_then(|sd| sd.split_once('/'))
        .is_some_and(|(score, depth)| {
            let score = score.trim_start_matches(['+', '-']).trim_start_matches('M');
            !score.is_empty()
                && score.chars().all(|c| c.is_ascii_digit() || c == '.')
                && depth.parse::<u32>().is_ok()
        });
    let time = first.split_whitespace().nth(1).is_some_and(|t| t.ends_with('s'));
    score_depth && time && comment.contains("n=") && comment.contains("sd=")
}

/// The last `Ptnml(0-2)` counts and the last W/L/D in arena's output.
fn final_counts(out: &str) -> ([u64; 5], [u64; 3]) {
    let ptnml = out
        .lines()
        .rev()
        .find(|l| l.starts_with("Ptnml(0-2): ["))
        .unwrap();
    let inside = &ptnml["Ptnml(0-2): [".len()..ptnml.find(']').unwrap()];
    let p: Vec<u64> = inside.split(", ").map(|n| n.parse().unwrap()).collect();
    let games = out.lines().rev().find(|l| l.starts_with("Games: ")).unwrap();
    let field = |name: &str| -> u64 {
        let at = games.find(name).unwrap() + name.len();
        games[at..].split(',').next().unwrap().trim().parse().unwrap()
    };
    (
        [p[0], p[1], p[2], p[3], p[4]],
        [field("Losses:"), field("Draws:"), field("Wins:")],
    )
}

/// The elapsed and time-left milliseconds of each engine move of one side (`parity` 0 or
/// 1 of the engine moves), from `{score/depth 0.123s, tl=1.234s, ...}` comments.
fn times(moves: &str, parity: usize) -> Vec<(u64, u64)> {
    let ms = |t: &str| -> u64 { (t.trim_end_matches('s').parse::<f64>().unwrap() * 1000.0).round() as u64 };
    comments(moves)
        .iter()
        .filter(|c| *c != "book")
        .enumerate()
        .filter(|(i, _)| i % 2 == parity)
        .map(|(_, c)| {
            let elapsed = c.split(',').next().unwrap().split_whitespace().nth(1).unwrap();
            let tl = c.split(", ").find_map(|p| p.strip_prefix("tl=")).unwrap();
            (ms(elapsed), ms(tl))
        })
        .collect()
}

/// Checks the clock of one side move by move: time left = what was left minus the move's
/// time (not below zero), plus the increment, plus the session time after every
/// `moves`-th move.
fn check_clock(record: &[(u64, u64)], base: u64, inc: u64, moves: u64) {
    let mut left = base;
    for (k, &(elapsed, tl)) in record.iter().enumerate() {
        left = left.saturating_sub(elapsed) + inc;
        if (k as u64 + 1).is_multiple_of(moves) {
            left += base;
        }
        assert_eq!(tl, left, "move {k}: {record:?}");
    }
}

#[test]
fn openbench_command_line_end_to_end_with_luft() {
    let dir = temp_dir("openbench");
    let luft = luft();
    let engines = luft.parent().unwrap();
    std::fs::create_dir_all(dir.join("PGNs")).unwrap();
    let pgn = "PGNs/7.8.1700000000.0.pgn";
    // As OpenBench's worker builds it (shlex-split: the match_line pattern is one word),
    // with a repeating clock for base, and -maxmoves and -log added for the test.
    let mut args = words(&format!(
        "-recover -variant standard -testEnv -concurrency 2 -rounds 2 -games 2 \
         -resign movecount=3 score=400 -draw movenumber=40 movecount=8 score=10 \
         -engine dir={engines}/ cmd=./luft proto=uci tc=inf nodes=1500 option.Threads=1 option.Hash=8 name=luft-dev \
         -engine dir={engines}/ cmd=./luft proto=uci tc=5/1+0.05 timemargin=250 option.Threads=1 option.Hash=8 \
         name=luft-base \
         -openings file={BOOK} format=epd order=random start=3 -srand 11 -maxmoves 30 \
         -log file=engines.log engine=true -pgnout file={pgn} seldepth=true nodes=true timeleft=true",
        engines = s(engines),
    ));
    args.push("match_line=^info string pgncomment .*".into());
    let (code, out, err) = run_arena(Some(&dir), &args);
    assert_eq!(code, 0, "a match without -sprt ends with 0: {out}{err}");
    assert!(err.is_empty(), "{err}");

    // OpenBench's reading agrees with arena's own counts.
    let ob = ob_read(&out);
    assert!(ob.games.is_empty(), "every game paired: {:?}", ob.games);
    let (penta, tri) = final_counts(&out);
    assert_eq!((ob.penta, ob.tri), (penta, tri), "{out}");
    assert_eq!(penta.iter().sum::<u64>(), 2);
    assert_eq!((ob.crashes, ob.illegals), (0, 0), "{out}");
    assert!(
        out.contains("Results of luft-dev vs luft-base (1500 nodes - 5/1+0.05, 1t, 8MB, luft-8ply.epd):\n"),
        "{out}"
    );
    assert!(out.lines().any(|l| l == "Finished match"), "{out}");
    assert!(!out.contains("Tournament finished"), "{out}");
    let total = out.lines().find(|l| l.starts_with("Total Time: ")).unwrap();
    assert!(
        total.ends_with(" (hours:minutes:seconds)")
            && total.len() == "Total Time: 00:00:00 (hours:minutes:seconds)".len()
    );
    assert!(
        out.ends_with(" (hours:minutes:seconds)\n\n"),
        "an empty line after, as fastchess"
    );
    // Game numbers: pairs (1, 2) and (3, 4), the tested engine White in the first.
    for n in [1, 3] {
        assert!(
            out.contains(&format!("Finished game {n} (luft-dev vs luft-base): ")),
            "{out}"
        );
        assert!(
            out.contains(&format!("Finished game {} (luft-base vs luft-dev): ", n + 1)),
            "{out}"
        );
    }

    // The PGN as OpenBench slices it; each engine move's comment has what its verbose
    // compression needs, and the base engine's clock was kept exactly.
    let text = std::fs::read_to_string(dir.join(pgn)).unwrap();
    let games = ob_pgn(&text);
    assert_eq!(games.len(), 4);
    for g in &games {
        for tag in [
            "Event",
            "Site",
            "Date",
            "Round",
            "White",
            "Black",
            "Result",
            "FEN",
            "GameDuration",
            "Termination",
        ] {
            assert!(g.tags.contains_key(tag), "{tag}: {:?}", g.tags);
        }
        assert!(g.tags["GameDuration"].len() == 8 && g.tags["GameDuration"].as_bytes()[2] == b':');
        let base_is_white = g.tags["White"] == "luft-base";
        let (w, b) = if base_is_white {
            ("5/1+0.05", "-")
        } else {
            ("-", "5/1+0.05")
        };
        assert_eq!(
            (
                g.tags["WhiteTimeControl"].as_str(),
                g.tags["BlackTimeControl"].as_str()
            ),
            (w, b)
        );
        for c in comments(&g.moves).iter().filter(|c| *c != "book") {
            assert!(ob_verbose_comment_ok(c), "{c}");
        }
        // Base's moves are the engine moves of its colour; the EPD says who moves first.
        let white_first = g.tags["FEN"].split_whitespace().nth(1) == Some("w");
        let parity = usize::from(base_is_white != white_first);
        let record = times(&g.moves, parity);
        assert!(!record.is_empty());
        check_clock(&record, 1000, 50, 5);
        assert!(
            matches!(
                g.tags["Termination"].as_str(),
                "normal" | "adjudication" | "time forfeit"
            ),
            "{:?}",
            g.tags
        );
    }
    // Everything read back through movegen's PGN reader too.
    assert_eq!(parse_pgn(&text).unwrap().len(), 4);
    // The log has both directions of the traffic, and `movestogo` for the repeating clock.
    let log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
    assert!(log.contains("luft-dev < go nodes 1500"), "{log}");
    assert!(
        log.contains(" movestogo 5") && log.contains(" movestogo 1"),
        "{log}"
    );
    assert!(log.contains("luft-base > bestmove "), "{log}");
}

#[test]
fn at_concurrency_1_each_game_finishes_before_the_next_starts() {
    let dir = temp_dir("order");
    let cmd = format!("cmd={}", s(&luft()));
    let args = words(&format!(
        "-engine {cmd} name=new -engine {cmd} name=old -each tc=0:02+0.05 option.Hash=8 \
         -openings file={BOOK} -rounds 2 -concurrency 1 -maxmoves 8 -sprt elo0=0 elo1=5 -pgnout file=g.pgn"
    ));
    let (code, out, err) = run_arena(Some(&dir), &args);
    assert_eq!(code, 0, "an SPRT without a decision, as fastchess: {out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or(usize::MAX)
    };
    for n in 1..4 {
        let finished = at(&format!("Finished game {n} "));
        let started = at(&format!("Started game {} of 4 ", n + 1));
        assert!(finished < started && started < usize::MAX, "game {n}: {out}");
    }
    assert!(!out.contains("SPRT ("), "no SPRT line without a decision: {out}");
    assert!(out.contains("LLR: "), "{out}");
    // M:SS is minutes and seconds.
    let games = parse_pgn(&std::fs::read_to_string(dir.join("g.pgn")).unwrap()).unwrap();
    assert!(games.iter().all(|g| g.tag("TimeControl") == Some("2+0.05")));
    assert!(
        games.iter().all(|g| g.tag("PlyCount") == Some("16")),
        "-maxmoves counts moves played"
    );
}

/// Runs the fault engine (`mode`, misbehaving on its `after`th chance) as `faulty` against
/// a well-behaved one; arena's stdout and stderr and the PGN text.
fn fault_match(dir: &std::path::Path, mode: &str, after: u32, extra: &str) -> (i32, String, String, String) {
    let args = words(&format!(
        "-engine cmd={FAULT} name=faulty args={mode} -engine cmd={FAULT} name=ok args=ok \
         -each tc=0.5+0.05 timemargin=50 -rounds 1 -recover -pgnout file=f.pgn \
         -ucinewgame-ms 300 -ping-ms 300 {extra}"
    ));
    let mut args = args;
    // args= takes the rest of the engine's arguments as one word.
    for a in args.iter_mut() {
        if a == &format!("args={mode}") {
            *a = format!("args={mode} --after {after}");
        }
    }
    let (code, out, err) = run_arena(Some(dir), &args);
    let pgn = std::fs::read_to_string(dir.join("f.pgn")).unwrap_or_default();
    (code, out, err, pgn)
}

#[test]
fn faults_read_as_openbench_counts_them() {
    for (mode, after, crashes, timelosses, illegals, termination) in [
        ("crash", 2, 2, 0, 0, "abandoned"),
        ("stallready", 1, 2, 0, 0, "abandoned"),
        ("stall", 2, 0, 2, 0, "time forfeit"),
        ("overtime", 2, 0, 1, 0, "time forfeit"),
        ("illegal", 2, 0, 0, 2, "illegal move"),
        ("nobestmove", 2, 0, 0, 2, "illegal move"),
    ] {
        let dir = temp_dir(&format!("fault-{mode}"));
        let (code, out, err, pgn) = fault_match(&dir, mode, after, "");
        assert_eq!(code, 0, "{mode}: {out}{err}");
        let ob = ob_read(&out);
        assert_eq!(
            (ob.crashes, ob.timelosses, ob.illegals),
            (crashes, timelosses, illegals),
            "{mode}: {out}"
        );
        let games = ob_pgn(&pgn);
        assert_eq!(games[0].tags["Termination"], termination, "{mode}");
        // The faulty engine lost the first game; the reason is the last comment.
        assert_eq!(games[0].tags["Result"], "0-1", "{mode}");
        let reason = out.lines().find(|l| l.starts_with("Finished game 1 ")).unwrap();
        let reason = &reason[reason.find('{').unwrap() + 1..reason.len() - 1];
        assert!(
            games[0].moves.contains(reason.split(": ").next().unwrap()),
            "{mode}: {}",
            games[0].moves
        );
    }
    // The words themselves, as fastchess writes them.
    let dir = temp_dir("fault-words");
    let (_, out, _, _) = fault_match(&dir, "stallready", 1, "");
    assert!(
        out.contains("Finished game 1 (faulty vs ok): 0-1 {White's connection stalls (no readyok)}"),
        "{out}"
    );
    let (_, out, _, _) = fault_match(&dir, "crash", 1, "");
    assert!(
        out.contains("Finished game 2 (ok vs faulty): 1-0 {Black disconnects}"),
        "{out}"
    );
}

#[test]
fn one_result_in_every_pair_reads_inf() {
    let dir = temp_dir("inf");
    let args = words(&format!(
        "-engine cmd={FAULT} name=ok args=ok -engine cmd={FAULT} name=loser args=illegal -each nodes=1 \
         -rounds 3 -recover"
    ));
    let (code, out, err) = run_arena(Some(&dir), &args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Results of ok vs loser (1 nodes, NULL, 1MB):\n"),
        "{out}"
    );
    assert!(out.contains("Elo: inf +/- nan, nElo: inf +/- nan\n"), "{out}");
    assert!(
        out.contains("LOS: 100.00 %, DrawRatio: 0.00 %, PairsRatio: inf\n"),
        "{out}"
    );
    assert!(
        out.contains("Ptnml(0-2): [0, 0, 0, 0, 3], WL/DD Ratio: nan\n"),
        "{out}"
    );
    assert!(!out.contains("3600"), "{out}");
}

/// What follows the last `Finished game` line, with the time blanked.
fn ending(out: &str) -> Vec<String> {
    let lines: Vec<&str> = out.lines().collect();
    let last = lines
        .iter()
        .rposition(|l| l.starts_with("Finished game "))
        .unwrap();
    lines[last + 1..]
        .iter()
        .map(|l| {
            if l.starts_with("Total Time: ") {
                "Total Time: T".to_string()
            } else {
                l.to_string()
            }
        })
        .collect()
}

const DASHES: &str = "--------------------------------------------------";

#[test]
fn the_end_of_a_match_reads_as_fastchess_ends() {
    let dir = temp_dir("ending");
    // Rounds that run out before the SPRT decides, the last pair a -ratinginterval pair:
    // the report once, no SPRT line, exit 0 (arena's own codes: 2).
    let line = format!(
        "-engine cmd={FAULT} name=a args=ok -engine cmd={FAULT} name=b args=ok -each nodes=1 \
         -maxmoves 4 -rounds 2 -ratinginterval 2 -sprt elo0=0 elo1=5"
    );
    let (code, out, err) = run_arena(Some(&dir), &words(&line));
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.matches("Results of a vs b").count(), 1, "{out}");
    let end = ending(&out);
    let tail: Vec<&str> = end[end.len() - 4..].iter().map(String::as_str).collect();
    assert_eq!(tail, [DASHES, "Finished match", "Total Time: T", ""], "{out}");
    assert_eq!(end[0], DASHES, "{out}");
    assert!(end[end.len() - 5].starts_with("LLR: "), "{out}");
    assert!(
        !out.contains("no decision") && !out.contains("Tournament finished"),
        "{out}"
    );
    let (code, _, _) = run_arena(Some(&dir), &words(&format!("{line} -sprt-exit-codes")));
    assert_eq!(code, 2, "no decision");
    // Without -sprt, an interval that does not end with the match: the final report once.
    let plain = line
        .replace("-sprt elo0=0 elo1=5", "")
        .replace("-ratinginterval 2", "-ratinginterval 3");
    let (code, out, _) = run_arena(Some(&dir), &words(&plain));
    assert_eq!(code, 0);
    assert_eq!(out.matches("Results of a vs b").count(), 1, "{out}");
    assert_eq!(ending(&out)[0], DASHES, "{out}");

    // An SPRT that decides: a report after every pair (-ratinginterval 1), the last one
    // not repeated, then fastchess's SPRT line (wide bounds, so that one-sided results
    // decide within a few pairs). Exit 0 whichever hypothesis it accepts;
    // with -sprt-exit-codes 0 for H1 and 1 for H0.
    for (first, second, hypothesis, own_code) in [("ok", "illegal", "H1", 0), ("illegal", "ok", "H0", 1)] {
        let line = format!(
            "-engine cmd={FAULT} name=x args={first} -engine cmd={FAULT} name=y args={second} \
             -each nodes=1 -rounds 100 -ratinginterval 1 -recover -sprt elo0=0 elo1=200"
        );
        let (code, out, err) = run_arena(Some(&dir), &words(&line));
        assert_eq!(code, 0, "{hypothesis}: {out}{err}");
        let games = out.matches("Finished game ").count();
        assert!(games < 40 && games % 2 == 0, "{hypothesis}: {out}");
        assert_eq!(out.matches("Results of x vs y").count(), games / 2, "{out}");
        let end = ending(&out);
        let tail: Vec<&str> = end[end.len() - 5..].iter().map(String::as_str).collect();
        let verdict = format!("SPRT ([0.00, 200.00]) completed - {hypothesis} was accepted");
        assert_eq!(
            tail,
            [DASHES, verdict.as_str(), "Finished match", "Total Time: T", ""],
            "{out}"
        );
        let (code, _, _) = run_arena(Some(&dir), &words(&format!("{line} -sprt-exit-codes")));
        assert_eq!(code, own_code, "{hypothesis}");
    }
}

#[test]
fn sprt_calc_prints_the_report_numbers() {
    let dir = temp_dir("sprt-calc");
    let calc = |counts: &str| -> Vec<String> {
        let (code, out, err) = run_arena(
            Some(&dir),
            &words(&format!("sprt-calc --penta {counts} --elo0 0 --elo1 5")),
        );
        assert_eq!(code, 0, "{err}");
        out.lines().skip(1).map(String::from).collect()
    };
    // fastchess's report of these counts (the side-by-side run in `docs/arena.md`) and its arithmetic
    // at the edges: the same lines, from the same functions as arena's report.
    assert_eq!(
        calc("0,0,2,2,6"),
        ["Elo: 301.33 +/- 229.92, nElo: 429.93 +/- 152.27", "LOS: 100.00 %"]
    );
    assert!(calc("0,0,1,0,2")[0].starts_with("Elo: 279.59 +/- nan, "));
    assert_eq!(
        calc("0,0,0,0,5"),
        ["Elo: inf +/- nan, nElo: inf +/- nan", "LOS: 100.00 %"]
    );
    assert_eq!(
        calc("5,0,0,0,0"),
        ["Elo: -inf +/- nan, nElo: -inf +/- nan", "LOS: 0.00 %"]
    );
    // And the match report of an all-win match says the same.
    let (_, out, _) = run_arena(
        Some(&dir),
        &words(&format!(
            "-engine cmd={FAULT} name=ok args=ok -engine cmd={FAULT} name=loser args=illegal \
             -each nodes=1 -rounds 5 -recover"
        )),
    );
    let report: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("Elo: ") || l.starts_with("LOS: "))
        .collect();
    assert_eq!(report.len(), 2, "{out}");
    assert_eq!(report[0], calc("0,0,0,0,5")[0]);
    assert!(report[1].starts_with(&calc("0,0,0,0,5")[1]), "{out}");
}

#[test]
fn tournaments_of_more_than_two_engines() {
    let dir = temp_dir("tournament");
    let engine = |name: &str, mode: &str| format!("-engine cmd={FAULT} name={name} args={mode}");
    let line = format!(
        "{} {} {} {} -each tc=inf nodes=1 -rounds 1 -maxmoves 4 -recover -pgnout file=t.pgn",
        engine("a", "ok"),
        engine("b", "ok"),
        engine("c", "ok"),
        engine("d", "illegal")
    );
    // Round robin: 6 pairings of 2 games.
    let (code, out, err) = run_arena(Some(&dir), &words(&line));
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.matches("Finished game").count(), 12, "{out}");
    for (n, pairing) in [
        (1, "a vs b"),
        (2, "b vs a"),
        (3, "a vs c"),
        (5, "a vs d"),
        (7, "b vs c"),
        (12, "d vs c"),
    ] {
        assert!(
            out.contains(&format!("Started game {n} of 12 ({pairing})")),
            "{n}: {out}"
        );
    }
    // One table of every engine, d last (it lost every game), then a block per pair.
    let table: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("Rank"))
        .take(5)
        .collect();
    assert!(
        table[0].contains("Elo") && table[0].contains("Games") && table[0].contains("Points"),
        "{out}"
    );
    assert!(table[4].contains(" d "), "{table:?}");
    assert_eq!(out.matches("Results of ").count(), 6, "{out}");
    assert!(out.contains("Results of a vs d (1 nodes, NULL, 1MB):"), "{out}");
    // Gauntlet: the first engine against each other, then two seeds.
    let gauntlet = format!("{line} -tournament gauntlet");
    let (code, out, _) = run_arena(Some(&dir), &words(&gauntlet));
    assert_eq!(code, 0);
    assert_eq!(out.matches("Finished game").count(), 6, "{out}");
    assert!(!out.contains("(b vs c)") && !out.contains("(c vs b)"), "{out}");
    let (_, out, _) = run_arena(Some(&dir), &words(&format!("{gauntlet} -seeds 2")));
    assert_eq!(out.matches("Finished game").count(), 10, "{out}");
    assert!(out.contains("(b vs c)") && !out.contains("(c vs d)"), "{out}");
    // -sprt is for two engines.
    let (code, _, err) = run_arena(Some(&dir), &words(&format!("{line} -sprt elo0=0 elo1=5")));
    assert_eq!(
        (code, err.trim()),
        (3, "arena: -sprt needs exactly two engines, found 4")
    );
}

#[test]
fn a_saved_tournament_resumes_where_it_stopped() {
    let dir = temp_dir("resume");
    let line = format!(
        "-engine cmd={FAULT} name=a args=ok -engine cmd={FAULT} name=b args=ok -each tc=inf nodes=1 \
         -rounds 2 -maxmoves 3 -pgnout file=r.pgn -config outname=state.json -autosaveinterval 1"
    );
    let (code, out, err) = run_arena(Some(&dir), &words(&line));
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(dir.join("state.json")).unwrap();
    let saved = SavedState::from_json(&text).unwrap();
    assert_eq!(saved.done, [(0, 1)], "{text}");
    assert_eq!(saved.pairs[0].2.penta, [0, 0, 2, 0, 0], "{text}");
    assert!(saved.pending.is_empty(), "{text}");
    let pgn_len = std::fs::metadata(dir.join("r.pgn")).unwrap().len();
    assert_eq!(saved.pgn_bytes, Some(pgn_len), "{text}");
    // As if stopped after the first pair: only the second pair is played again (the PGN as
    // the state counts it, that is, holding the first pair alone).
    let pgn = std::fs::read_to_string(dir.join("r.pgn")).unwrap();
    let third = pgn.match_indices("[Event ").nth(2).unwrap().0;
    std::fs::write(dir.join("r.pgn"), &pgn[..third]).unwrap();
    let mut half = saved.clone();
    half.done = vec![(0, 0)];
    half.pairs[0].2.tri = [0, 2, 0];
    half.pairs[0].2.penta = [0, 0, 1, 0, 0];
    half.pgn_bytes = Some(third as u64);
    std::fs::write(dir.join("half.json"), half.to_json()).unwrap();
    let (code, out, err) = run_arena(Some(&dir), &words("-config file=half.json"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        !out.contains("Started game 1 ") && !out.contains("Started game 2 "),
        "{out}"
    );
    assert!(
        out.contains("Started game 3 of 4") && out.contains("Started game 4 of 4"),
        "{out}"
    );
    assert!(out.contains("Games: 4, Wins: 0, Losses: 0, Draws: 4"), "{out}");
    assert_eq!(final_counts(&out).0, [0, 0, 2, 0, 0]);
    let resumed = SavedState::from_json(&std::fs::read_to_string(dir.join("half.json")).unwrap()).unwrap();
    assert_eq!(resumed.done, [(0, 1)]);
    assert_eq!(
        parse_pgn(&std::fs::read_to_string(dir.join("r.pgn")).unwrap())
            .unwrap()
            .len(),
        4,
        "every counted game in the PGN exactly once"
    );
    // Bad state files are errors.
    let (code, _, err) = run_arena(Some(&dir), &words("-config file=missing.json"));
    assert_eq!(code, 3);
    assert!(err.starts_with("arena: cannot read missing.json: "), "{err}");
    std::fs::write(dir.join("bad.json"), "{\"arena_state\": 1, \"args\": 3}").unwrap();
    let (code, _, err) = run_arena(Some(&dir), &words("-config file=bad.json"));
    assert_eq!(code, 3);
    assert!(
        err.starts_with("arena: bad.json: invalid type: integer `3`, expected a sequence"),
        "{err}"
    );
}

/// Resuming a match that has finished plays nothing and starts no engine; its report still
/// names each engine's threads and hash as the match did (the state keeps them), not
/// `NULL, NULL`.
#[test]
fn a_finished_match_resumed_reports_threads_and_hash() {
    let dir = temp_dir("resume-finished");
    let luft = luft();
    let line = format!(
        "-engine cmd={0} name=a -engine cmd={0} name=b -each tc=inf nodes=1 option.Hash=2 \
         -rounds 1 -maxmoves 3 -config outname=done.json",
        luft.display()
    );
    let (code, out, err) = run_arena(Some(&dir), &words(&line));
    assert_eq!(code, 0, "{out}{err}");
    let results = |out: &str| -> String {
        out.lines()
            .find(|l| l.starts_with("Results of "))
            .unwrap_or_default()
            .to_string()
    };
    let first = results(&out);
    assert!(first.contains("1t, 2MB"), "{out}");
    let (code, again, err) = run_arena(Some(&dir), &words("-config file=done.json"));
    assert_eq!(code, 0, "{again}{err}");
    assert!(!again.contains("Started game"), "{again}");
    assert_eq!(results(&again), first, "{again}");
    assert!(!again.contains("NULL"), "{again}");
}

#[test]
fn ctrl_c_stops_the_match_and_it_resumes() {
    let dir = temp_dir("interrupt");
    let cmd = format!("cmd={}", s(&luft()));
    let line = format!(
        "-engine {cmd} name=a option.Hash=8 -engine {cmd} name=b option.Hash=8 -each nodes=3000 \
         -openings file={BOOK} -rounds 20 -maxmoves 20 -config outname=state.json"
    );
    let mut child = Command::new(common::ARENA)
        .args(words(&line))
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufReader::new(stdout).lines();
    let mut out = String::new();
    let start = Instant::now();
    for line in lines.by_ref() {
        let line = line.unwrap();
        out.push_str(&line);
        out.push('\n');
        if line.starts_with("Finished game 3 ") {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "{out}");
    }
    testing::interrupt(&child);
    for line in lines {
        out.push_str(&line.unwrap());
        out.push('\n');
    }
    let code = child.wait().unwrap().code();
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("Tournament was interrupted. To resume it, run: arena -config file=state.json"),
        "{out}"
    );
    let finished = out.matches("Finished game").count() as u64;
    assert!(finished < 40, "{out}");
    let (code, rest, err) = run_arena(Some(&dir), &words("-config file=state.json"));
    assert_eq!(code, 0, "{rest}{err}");
    let (penta, _) = final_counts(&rest);
    assert_eq!(penta.iter().sum::<u64>(), 20, "every pair, once: {rest}");
    // Only what was not done is played: at most the pair cut in half is played again.
    let replayed = rest.matches("Finished game").count() as u64;
    assert!(
        replayed + finished <= 42 && replayed + finished >= 40,
        "{finished} + {replayed}"
    );
}

#[test]
fn colours_noswap_and_reverse() {
    let dir = temp_dir("colours");
    let base = format!("-engine cmd={FAULT} name=a args=ok -engine cmd={FAULT} name=b args=ok -each nodes=1 -rounds 1 -maxmoves 1");
    let (_, out, _) = run_arena(Some(&dir), &words(&base));
    assert!(out.contains("Started game 1 of 2 (a vs b)") && out.contains("Started game 2 of 2 (b vs a)"));
    let (_, out, _) = run_arena(Some(&dir), &words(&format!("{base} -noswap")));
    assert!(out.contains("Started game 1 of 2 (a vs b)") && out.contains("Started game 2 of 2 (a vs b)"));
    let (_, out, _) = run_arena(Some(&dir), &words(&format!("{base} -reverse")));
    assert!(out.contains("Started game 1 of 2 (b vs a)") && out.contains("Started game 2 of 2 (a vs b)"));
    let (_, out, _) = run_arena(
        Some(&dir),
        &words(&format!("{base} -games 1 -rounds 3 -report penta=false")),
    );
    assert_eq!(out.matches("(a vs b)").count(), 6, "{out}");
    assert!(
        !out.contains("Ptnml") && out.contains("LOS: ") && !out.contains("PairsRatio"),
        "{out}"
    );
}

#[test]
fn pgn_extras_notation_epd_and_tags() {
    let dir = temp_dir("pgn");
    let cmd = format!("cmd={}", s(&luft()));
    let line = format!(
        "-engine {cmd} name=x -engine {cmd} name=y -each tc=inf nodes=800 option.Hash=8 \
         -openings file={BOOK} -rounds 1 -maxmoves 6 -event Luft Test -site The Lab \
         -pgnout file=e.pgn notation=lan nodes=true seldepth=true nps=true hashfull=true tbhits=true pv=true \
         timeleft=true latency=true -epdout file=e.epd"
    );
    let (code, out, err) = run_arena(Some(&dir), &words(&line));
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(dir.join("e.pgn")).unwrap();
    let games = ob_pgn(&text);
    assert_eq!(games.len(), 2);
    assert_eq!(
        (games[0].tags["Event"].as_str(), games[0].tags["Site"].as_str()),
        ("Luft Test", "The Lab")
    );
    assert_eq!(
        games[0].tags["EngineWhiteName"],
        concat!("Luft ", env!("CARGO_PKG_VERSION"))
    );
    let c = &comments(&games[0].moves)[0];
    for key in [
        "tl=",
        "latency=",
        "n=",
        "sd=",
        "nps=",
        "hashfull=",
        "tbhits=",
        "pv=\"",
    ] {
        assert!(c.contains(key), "{key}: {c}");
    }
    // Long algebraic: every move names its from-square.
    let first_move = games[0].moves.split_whitespace().nth(1).unwrap();
    assert!(first_move.len() >= 4, "{first_move}");
    let epd = std::fs::read_to_string(dir.join("e.epd")).unwrap();
    assert_eq!(epd.lines().count(), 2);
    for l in epd.lines() {
        movegen::Board::from_fen(l).unwrap();
    }
    // UCI notation and the minimal form.
    let line = line
        .replace("notation=lan", "notation=uci min=true")
        .replace("e.pgn", "m.pgn");
    let (code, _, _) = run_arena(Some(&dir), &words(&line));
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(dir.join("m.pgn")).unwrap();
    assert!(!text.contains('{') && !text.contains("PlyCount"), "{text}");
    let games = ob_pgn(&text);
    let mv = games[0]
        .moves
        .split_whitespace()
        .find(|w| !w.ends_with('.'))
        .unwrap();
    assert!(
        mv.len() >= 4 && mv.chars().nth(1).unwrap().is_ascii_digit(),
        "{mv}"
    );
}

/// The first CPU this process may run on.
fn first_cpu() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim();
    list.split([',', '-']).next().unwrap().to_string()
}

#[test]
fn engines_run_in_their_directory_pinned_and_restarted() {
    let dir = temp_dir("dir");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let bin_dir = s(std::path::Path::new(FAULT).parent().unwrap());
    let cpu = first_cpu();
    let args: Vec<String> = [
        "-engine",
        &format!("dir={bin_dir}"),
        "cmd=./arena-fault-engine",
        "name=a",
        "restart=on",
        "args=ok --info",
        "-engine",
        &format!("cmd={FAULT}"),
        "name=b",
        &format!("dir={}", s(&work)),
        "args=ok --info",
        "-each",
        "nodes=1",
        "-rounds",
        "2",
        "-maxmoves",
        "2",
        "-use-affinity",
        &cpu,
        "-log",
        "file=io.log",
        "engine=true",
        "-pgnout",
        "file=d.pgn",
        "match_line=pgncomment cwd=",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let (code, out, err) = run_arena(Some(&dir), &args);
    assert_eq!(code, 0, "{out}{err}");
    // Both engines report their directory and CPUs on every move.
    let pgn = std::fs::read_to_string(dir.join("d.pgn")).unwrap();
    for cwd in [bin_dir, s(&work)] {
        assert!(
            pgn.contains(&format!("line=\"info string pgncomment cwd={cwd} cpus={cpu}\"")),
            "{pgn}"
        );
    }
    // restart=on: a fresh process for each of a's four games; b starts once.
    let log = std::fs::read_to_string(dir.join("io.log")).unwrap();
    let starts = |name: &str| {
        log.lines()
            .filter(|l| l.ends_with(&format!(" {name} < uci")))
            .count()
    };
    assert_eq!((starts("a"), starts("b")), (4, 1), "{log}");
}

#[test]
fn timeouts_strictness_and_mate_pvs() {
    let dir = temp_dir("strict");
    // An engine slower to start than -startup-ms allows.
    let slow = dir.join("slow.sh");
    std::fs::write(&slow, "#!/bin/sh\nread line\nsleep 2\necho uciok\n").unwrap();
    let args = words(&format!(
        "-engine cmd=/bin/sh args={} name=slow -engine cmd={FAULT} name=ok -each nodes=1 -startup-ms 200",
        s(&slow)
    ));
    let start = Instant::now();
    let (code, _, err) = run_arena(Some(&dir), &args);
    assert_eq!(
        (code, err.trim()),
        (
            3,
            "arena: error: engine slow failed at start-up: stalled (no uciok)"
        )
    );
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());

    // A PV that does not mate with a mate score is a warning; -strict makes it an error.
    let base = format!(
        "-engine cmd={FAULT} name=m args=mate -engine cmd={FAULT} name=ok args=ok -each nodes=1 -rounds 1 \
         -maxmoves 2 -check-mate-pvs"
    );
    let (code, _, err) = run_arena(Some(&dir), &words(&base));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("arena: warning: m: mating PV does not end with checkmate"),
        "{err}"
    );
    let (code, _, err) = run_arena(Some(&dir), &words(&format!("{base} -strict")));
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("arena: error: -strict: a warning stops the match: m: mating PV"),
        "{err}"
    );
    // So is an option the engine does not have, before the first game is played.
    let (code, out, err) = run_arena(
        Some(&dir),
        &words(&format!(
            "-engine cmd={FAULT} name=a option.Nope=1 -engine cmd={FAULT} name=b -each nodes=1 -strict"
        )),
    );
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("-strict: a warning stops the match: engine a does not declare option \"Nope\""),
        "{err}"
    );
    assert!(!out.contains("Finished game"), "{out}");
}

/// OpenBench's client keeps an installed runner (`fastchess-ob`) when its version is at
/// least the server's `fastchess_min_version` (1.8.1 today), and otherwise downloads and
/// builds fastchess over it. Its check, in `Client/worker.py` (`get_version`,
/// `compare_versions`; read at OpenBench commit 9906bad, not copied): run the program with
/// `--version`, then `version`, `-v`, `-version`, taking the first whose stdout holds a
/// match of `\d+\.\d+(\.\d+)?`; the first match is the version, compared as a tuple of
/// integers with the minimum. Written out here against arena's real output.
#[test]
fn openbenchs_client_keeps_arena_as_its_fastchess() {
    let found = ["--version", "version", "-v", "-version"]
        .iter()
        .find_map(|opt| {
            let out = std::process::Command::new(common::ARENA).arg(opt).output().ok()?;
            let stdout = String::from_utf8(out.stdout).ok()?;
            let re = regex_lite::Regex::new(r"\d+\.\d+(\.\d+)?").unwrap();
            re.find(&stdout).map(|m| m.as_str().to_string())
        })
        .expect("one of the client's version options prints a version");
    assert_eq!(found, arena::cli::FASTCHESS_INTERFACE);
    let tuple = |v: &str| -> Vec<u32> { v.split('.').map(|p| p.parse().unwrap()).collect() };
    assert!(
        tuple(&found) >= tuple("1.8.1"),
        "{found} is below OpenBench's minimum"
    );
    assert!(tuple(&found) < tuple("1.9"), "the comparison is a real one");
}

#[test]
fn help_version_and_unknown_options() {
    let dir = temp_dir("help");
    let (code, out, _) = run_arena(Some(&dir), &words("-help"));
    assert_eq!(code, 0);
    assert!(
        out.contains("-engine cmd=PATH") && out.contains("-pgnout") && out.contains("-tournament"),
        "{out}"
    );
    let (code, out, _) = run_arena(Some(&dir), &words("-version"));
    assert_eq!((code, out.trim()), (0, arena::cli::version_text().as_str()));
    assert!(
        out.contains(concat!("arena ", env!("CARGO_PKG_VERSION"))),
        "{out}"
    );
    let (code, out, err) = run_arena(
        Some(&dir),
        &words("-engine cmd=a -engine cmd=b -each nodes=1 -frobnicate 3"),
    );
    assert_eq!(
        (code, out.as_str(), err.trim()),
        (3, "", "arena: unknown option -frobnicate (see -help)")
    );
    let (code, _, err) = run_arena(
        Some(&dir),
        &words("-engine cmd=a -engine cmd=b -each nodes=1 -tbadjudicate SOME"),
    );
    assert_eq!(
        (code, err.trim()),
        (3, "arena: -tbadjudicate: \"SOME\" is not WIN_LOSS, DRAW or BOTH")
    );
}
