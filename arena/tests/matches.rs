//! arena end to end: luft against luft at a node limit, every fault of the misbehaving
//! engine recorded as a result, the PGN read back by movegen, and `sprt-calc`.
//!
//! The luft binary is the one `cargo test --workspace --release` builds next to this test
//! (`target/release/luft`); run `cargo build --release -p engine` first when testing arena
//! alone.

#![allow(clippy::unwrap_used)]

use movegen::pgn::parse_pgn;
use movegen::Game;
use std::path::PathBuf;
use std::process::Command;

fn luft() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let luft = dir.join("luft");
    assert!(
        luft.exists(),
        "{} missing: run `cargo build --release -p engine` first",
        luft.display()
    );
    luft
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("luft-arena-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn arena(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn luft_against_luft_at_a_node_limit() {
    let luft = luft();
    let pgn = temp("luft.pgn");
    let cmd = format!("cmd={}", luft.display());
    let openings = concat!(env!("CARGO_MANIFEST_DIR"), "/openings/luft-8ply.epd");
    let (code, out, err) = arena(&[
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
    ]);
    assert_eq!(code, 2, "undecided after 8 games: {out}{err}");
    assert_eq!(out.matches("Finished game").count(), 8, "{out}");
    assert!(out.contains("Games: 8, "), "{out}");
    let ptnml = out
        .lines()
        .rev()
        .find(|l| l.starts_with("Ptnml(0-2): ["))
        .unwrap();
    let counts: Vec<u64> = ptnml["Ptnml(0-2): [".len()..ptnml.len() - 1]
        .split(", ")
        .map(|n| n.parse().unwrap())
        .collect();
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
    let fault = env!("CARGO_BIN_EXE_arena-fault-engine");
    let pgn = temp(&format!("fault-{mode}-{recover}.pgn"));
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
    let (code, out, err) = arena(&args);
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap_or_default()).unwrap();
    (code, out, err, games)
}

#[test]
fn every_fault_is_a_recorded_loss() {
    for (mode, reason, termination) in [
        ("crash", "faulty crashed", "abandoned"),
        ("stall", "faulty stalled: faulty loses on time", "time forfeit"),
        ("illegal", "faulty plays an illegal move: a1a8", "illegal move"),
        (
            "nobestmove",
            "faulty protocol error: bestmove without a move",
            "abandoned",
        ),
        ("overtime", "faulty loses on time", "time forfeit"),
    ] {
        let (code, out, err, games) = fault_run(mode, true);
        assert_eq!(code, 2, "{mode}: {out}{err}");
        assert!(
            out.contains(&format!("Finished game 1 (faulty vs ok): 0-1 {{{reason}}}")),
            "{mode}: {out}"
        );
        assert_eq!(games[0].result, "0-1", "{mode}");
        assert_eq!(games[0].tag("Termination"), Some(termination), "{mode}");
        let last_comment = games[0].comments.last().cloned().flatten().unwrap_or_default();
        assert!(last_comment.contains(reason), "{mode}: {last_comment}");
        if mode != "overtime" {
            // Restarted, the engine faults again in game 2 (as Black): play went on.
            assert!(
                out.contains(&format!("Finished game 2 (ok vs faulty): 1-0 {{{reason}}}")),
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
        err.contains("arena: error: faulty crashed (use --recover"),
        "{err}"
    );
    assert!(out.contains("Games: "), "the report is still printed: {out}");
}

#[test]
fn sprt_calc_reproduces_a_vector_and_refuses_bad_input() {
    let (code, out, _) = arena(&[
        "sprt-calc",
        "--penta",
        "39,8843,26675,9240,44",
        "--elo0",
        "0.5",
        "--elo1",
        "2.5",
        "--model",
        "normalized",
    ]);
    assert_eq!(code, 0);
    assert!(out.starts_with("LLR: 2.9417 (-2.9444, 2.9444)\n"), "{out}");
    assert!(
        out.contains("Elo: ") && out.contains("nElo: ") && out.contains("LOS: "),
        "{out}"
    );
    let (code, out, _) = arena(&[
        "sprt-calc",
        "--tri",
        "22569,44137,22976",
        "--elo0",
        "0.5",
        "--elo1",
        "2.5",
        "--model",
        "bayes",
    ]);
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
        let (code, _, err) = arena(bad);
        assert_eq!(code, 3, "{bad:?}");
        assert!(err.starts_with("arena: "), "{err}");
    }
    let (code, _, err) = arena(&["--engine", "cmd=x"]);
    assert_eq!(
        (code, err.trim()),
        (3, "arena: exactly two --engine are needed, found 1")
    );
}
