//! The `perft` binary end to end: output format, divide, suites, and exit code 2 with a
//! one-line message for every kind of bad input.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use std::process::Command;

fn perft(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn counts_and_divides() {
    let (code, out, err) = perft(&["--depth", "4"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().last(), Some("Nodes searched: 197281"));
    assert!(err.contains("Mnps"), "{err}");

    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let (code, out, _) = perft(&["--depth", "2", "--fen", kiwipete, "--divide"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 49);
    assert!(lines.contains(&"e1g1: 43"), "{out}");
    assert!(lines.contains(&"e1c1: 43"), "{out}");
    assert_eq!(lines[48], "Nodes searched: 2039");
    let (_, out, _) = perft(&["--depth", "1", "--fen", kiwipete, "--divide", "--chess960"]);
    assert!(out.lines().any(|l| l == "e1h1: 1"), "{out}");
}

#[test]
fn runs_a_suite_and_reports_mismatches() {
    let dir = testing::temp("perft-cli");
    let good = dir.join("good.epd");
    std::fs::write(
        &good,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902\n",
    )
    .expect("write");
    let (code, out, _) = perft(&["--suite", good.to_str().expect("utf8")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");

    let bad = dir.join("bad.perft");
    std::fs::write(
        &bad,
        "id wrong\nepd 4k3/8/8/8/8/8/8/4K3 w - -\nperft 1 6\nperft 2 25\n",
    )
    .expect("write");
    let (code, out, _) = perft(&["--suite", bad.to_str().expect("utf8")]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL wrong depth 1: expected 6, got 5"), "{out}");

    let (code, _, _) = perft(&["--suite", good.to_str().expect("utf8"), "--max-nodes", "100"]);
    assert_eq!(code, 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_exits_2_with_one_line() {
    for args in [
        &["--depth", "x"][..],
        &["--depth", "-1"],
        &["--depth", "99"],
        &["--depth"],
        &["--depth", "3", "--fen", "not a fen"],
        &["--depth", "3", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"],
        &["--suite", "/nonexistent/file.epd"],
        &["--suite", "x", "--depth", "2"],
        &["--frobnicate"],
        &["--suite", "x", "--hash", "65537"],
        &[],
    ] {
        let (code, out, err) = perft(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.starts_with("perft: "), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    let (_, _, err) = perft(&["--depth", "3", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"]);
    assert_eq!(
        err.trim(),
        "perft: bad FEN \"8/8/8/8/8/8/8/8 w - - 0 1\": illegal position: white has no king"
    );
    let (_, _, err) = perft(&["--suite", "x", "--hash", "65537"]);
    assert_eq!(err.trim(), "perft: bad --hash \"65537\": at most 65536 (MiB)");
}

#[test]
fn a_closed_stdout_ends_perft_quietly() {
    for args in [&["--depth", "3", "--divide"][..], &["--help"][..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_perft"))
            .args(args)
            .stdout(output::closed_pipe().unwrap())
            .output()
            .unwrap();
        assert_eq!(output::closed_stdout_fault(&out), None, "{args:?}");
    }
}
