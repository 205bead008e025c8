//! The whole Luft loop end to end, with the real binaries on tiny settings: `datagen`
//! plays 4 self-play games at 300 nodes, `datagen verify` checks the file, `trainer train`
//! fits a 16-wide net for 2 superbatches of 2 batches of 256 positions, `trainer export`
//! quantises the checkpoint, `luft` loads that net with `setoption name EvalFile` and
//! evaluates and searches with it, `arena` plays it against the embedded net (one pair of
//! games at 300 nodes, as an SPRT with `-sprt-plot`), and the PGN reads back through
//! movegen's PGN reader and replays legally.
//!
//! The binaries are the ones the workspace test command builds next to this test
//! (`target/release/` for `cargo test --workspace --release`, `target/debug/` without
//! `--release`), located as the arena tests locate `luft`. A cargo package cannot ask for
//! other packages' binaries on stable cargo, so for `cargo test -p tests` alone build
//! them first: `cargo build [--release] -p engine -p datagen -p trainer -p arena`.

#![allow(clippy::unwrap_used)]

use movegen::pgn::parse_pgn;
use movegen::{Board, Game};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};
use tests::binary;

/// Runs a binary to its end, failing the test with its output when it fails.
fn run(name: &str, args: &[&str]) -> Output {
    let out = Command::new(binary(name))
        .args(args)
        .env_remove("LUFT_DATA")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name} {args:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn is_png(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.len() > 1000 && b.starts_with(b"\x89PNG\r\n\x1a\n"))
}

/// Talks UCI to `luft` over a pipe: sends `lines`, then reads until a line starting with
/// `until` (or fails after `timeout`); returns everything luft printed.
fn uci_session(luft: &Path, lines: &[String], until: &str, timeout: Duration) -> Vec<String> {
    let mut child = Command::new(luft)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let deadline = Instant::now() + timeout;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                let done = line.starts_with(until);
                seen.push(line);
                if done {
                    break;
                }
            }
            Err(_) => {
                let _ = child.kill();
                panic!("luft gave no line starting with {until:?} within {timeout:?}; saw {seen:?}");
            }
        }
    }
    let _ = writeln!(stdin, "quit");
    drop(stdin);
    let _ = child.wait();
    seen
}

#[test]
fn datagen_train_export_play_and_read_back() {
    let started = Instant::now();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("luft-full-loop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).display().to_string();

    // 1. Self-play data.
    let data = path("data");
    let out = run(
        "datagen",
        &[
            "--threads",
            "1",
            "--games",
            "4",
            "--nodes",
            "300",
            "--seed",
            "11",
            "--out",
            &data,
        ],
    );
    let err = text(&out.stderr);
    assert!(err.contains("done: 4 games"), "{err}");

    // 2. Verified.
    let out = run("datagen", &["verify", &data]);
    let report = text(&out.stdout);
    assert!(
        report.starts_with("ok ") && report.contains(": 4 games"),
        "{report}"
    );

    // 3. Trained, tiny: 2 superbatches of 2 batches of 256 positions, 16 wide.
    let run_dir = path("run");
    let out = run(
        "trainer",
        &[
            "train",
            "--data",
            &data,
            "--hidden",
            "16",
            "--superbatches",
            "2",
            "--batches-per-superbatch",
            "2",
            "--batch-size",
            "256",
            "--threads",
            "1",
            "--seed",
            "5",
            "--out",
            &run_dir,
        ],
    );
    let err = text(&out.stderr);
    assert!(err.contains("superbatch 2/2 done"), "{err}");
    let csv = std::fs::read_to_string(dir.join("run/loss.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "header and two superbatches:\n{csv}");
    assert!(is_png(&dir.join("run/loss.png")), "loss.png");
    let svg = std::fs::read_to_string(dir.join("run/loss.svg")).unwrap();
    assert!(svg.contains("superbatch") && svg.contains("loss (log scale)"));
    let checkpoint = std::fs::read(dir.join("run/checkpoint.bin")).unwrap();
    assert_eq!(&checkpoint[..8], b"LUFTCKPT");
    assert_eq!(
        u32::from_le_bytes(checkpoint[8..12].try_into().unwrap()),
        9,
        "checkpoint version (9: the validation split)"
    );

    // 4. Exported; the same net the run wrote at its end.
    let net_path = path("net.nnue");
    let out = run(
        "trainer",
        &["export", &path("run/checkpoint.bin"), "--out", &net_path],
    );
    let said = text(&out.stdout);
    let net = nnue::Network::load(Path::new(&net_path)).unwrap();
    assert_eq!(net.hidden(), 16);
    assert!(
        said.contains(&format!("fingerprint {:016x}", net.fingerprint())),
        "{said}"
    );
    let final_net = nnue::Network::load(&dir.join("run/final.nnue")).unwrap();
    assert_eq!(final_net.fingerprint(), net.fingerprint());

    // 5. luft loads it, evaluates with it exactly as the reference forward pass does,
    //    and searches with it.
    let luft = binary("luft");
    let lines = uci_session(
        &luft,
        &[
            "uci".into(),
            format!("setoption name EvalFile value {net_path}"),
            "position startpos moves e2e4 c7c5".into(),
            "eval".into(),
            "go nodes 2000".into(),
        ],
        "bestmove",
        Duration::from_secs(30),
    );
    assert!(
        lines.contains(&"option name EvalFile type string default embedded".to_string()),
        "{lines:?}"
    );
    let loaded = format!(
        "info string EvalFile {net_path} loaded: hidden 16, fingerprint {:016x}",
        net.fingerprint()
    );
    // The load line goes on with the net's architecture (`, arch (768 -> 16 screlu)x2 -> 1x1`).
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&loaded) && l.contains(", arch (768 -> 16 screlu)x2 -> 1x1")),
        "{lines:?}"
    );
    let board = Board::from_fen("rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").unwrap();
    let expected = net.evaluate(&board);
    let eval_line = lines.iter().find(|l| l.starts_with("info string eval ")).unwrap();
    assert!(
        eval_line.starts_with(&format!("info string eval {expected} cp")),
        "{eval_line} (expected {expected})"
    );
    let best = lines
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    assert!(
        board
            .legal_moves()
            .iter()
            .any(|&m| board.to_uci(m, false) == best),
        "bestmove {best} is not legal"
    );

    // 6. arena: the trained net against the embedded one, one pair at 300 nodes, as an
    //    SPRT whose walk is drawn.
    let pgn = path("games.pgn");
    let plot = path("sprt.png");
    let cmd = format!("cmd={}", luft.display());
    let openings = concat!(env!("CARGO_MANIFEST_DIR"), "/../arena/openings/luft-8ply.epd");
    let out = Command::new(binary("arena"))
        .args([
            "-engine",
            &cmd,
            "name=trained",
            &format!("option.EvalFile={net_path}"),
            "-engine",
            &cmd,
            "name=default",
            "-each",
            "nodes=300",
            "option.Hash=4",
            "-openings",
            &format!("file={openings}"),
            "format=epd",
            "order=random",
            "-srand",
            "2",
            "-rounds",
            "1",
            "-games",
            "2",
            "-maxmoves",
            "150",
            "-sprt",
            "elo0=0",
            "elo1=10",
            "-sprt-plot",
            &plot,
            "-pgnout",
            &format!("file={pgn}"),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    // One pair cannot decide an SPRT: the match plays out and ends with 0, as fastchess's.
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        !stderr.contains("warning") && !stderr.contains("error"),
        "{stderr}"
    );
    assert_eq!(stdout.matches("Finished game").count(), 2, "{stdout}");
    assert!(stdout.contains("Results of trained vs default"), "{stdout}");
    assert!(stdout.contains("Games: 2, "), "{stdout}");
    assert!(stdout.contains("LLR: ") && !stdout.contains("SPRT ("), "{stdout}");
    assert!(is_png(Path::new(&plot)), "the SPRT plot");

    // 7. The PGN reads back and every game replays legally, each net playing each colour.
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap()).unwrap();
    assert_eq!(games.len(), 2);
    let mut whites = Vec::new();
    for g in &games {
        let mut game = Game::new(g.start);
        for &mv in &g.moves {
            game.play(mv).unwrap();
        }
        assert!(
            ["1-0", "0-1", "1/2-1/2"].contains(&g.result.as_str()),
            "{}",
            g.result
        );
        assert_eq!(g.tag("PlyCount").unwrap(), g.moves.len().to_string());
        whites.push(g.tag("White").unwrap().to_string());
    }
    whites.sort();
    assert_eq!(whites, ["default", "trained"]);

    std::fs::remove_dir_all(&dir).ok();
    // Well under a minute in release (the README's test command); debug builds are slower.
    if !cfg!(debug_assertions) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the whole loop took {:?}",
            started.elapsed()
        );
    }
}
