//! datagen end to end: a run killed mid-write leaves only whole, valid games behind, and
//! running again on the same directory resumes to the target; bad arguments are refused.

#![allow(clippy::unwrap_used)]

use nnue::record::scan;
use std::process::Command;
use std::time::{Duration, Instant};

fn datagen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_datagen"))
}

#[test]
fn killed_then_resumed_keeps_only_valid_games() {
    let dir = std::env::temp_dir().join(format!("luft-datagen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = |games: &str| {
        vec![
            "--threads".to_string(),
            "2".into(),
            "--games".into(),
            games.into(),
            "--nodes".into(),
            "300".into(),
            "--out".into(),
            dir.display().to_string(),
            "--seed".into(),
            "9".into(),
        ]
    };
    let mut child = datagen()
        .args(args("100000"))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Let it write some games, then kill it without warning (SIGKILL).
    let file = dir.join("games-0.bin");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::metadata(&file).map_or(0, |m| m.len()) < 4000 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(7));
    child.kill().unwrap();
    child.wait().unwrap();

    let mut games_before = 0;
    for t in 0..2 {
        let bytes = std::fs::read(dir.join(format!("games-{t}.bin"))).unwrap();
        let s = scan(&bytes, true).unwrap();
        // Whatever the kill cut, every chunk before the cut decodes to legal games.
        games_before += s.games.len();
        for g in &s.games {
            let mut board = g.start;
            for &(mv, _) in &g.moves {
                assert!(board.is_legal(mv));
                board.play(mv);
            }
        }
    }
    assert!(games_before > 0);

    // Resume to a target just above what is there.
    let target = games_before + 6;
    let out = datagen().args(args(&target.to_string())).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(&format!("resuming: {games_before} games")), "{err}");
    let mut total = 0;
    for t in 0..2 {
        let path = dir.join(format!("games-{t}.bin"));
        let s = scan(&std::fs::read(&path).unwrap(), true).unwrap();
        assert!(s.error.is_none(), "{}: {:?}", path.display(), s.error);
        total += s.games.len();
    }
    assert!(
        total >= target && total <= target + 2,
        "{total} games for a target of {target}"
    );

    let verify = datagen()
        .arg("verify")
        .arg(dir.join("games-0.bin"))
        .arg(dir.join("games-1.bin"))
        .output()
        .unwrap();
    assert!(verify.status.success());
    let stats = datagen()
        .arg("stats")
        .arg(dir.join("games-0.bin"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&stats.stdout).contains("games: "));

    // A damaged file: verify names the offset and fails; stats still counts the good games.
    let path = dir.join("games-0.bin");
    let mut bytes = std::fs::read(&path).unwrap();
    let len = bytes.len();
    bytes[len - 10] ^= 0xFF;
    std::fs::write(&path, &bytes).unwrap();
    let verify = datagen().arg("verify").arg(&path).output().unwrap();
    assert_eq!(verify.status.code(), Some(1));
    let text = String::from_utf8_lossy(&verify.stdout);
    assert!(
        text.contains("BAD") && text.contains("bad chunk at byte"),
        "{text}"
    );

    // Conversion: text lines are "FEN | cp | result".
    let txt = dir.join("out.txt");
    let conv = datagen()
        .args(["convert", "--to", "text", "--out"])
        .arg(&txt)
        .arg(dir.join("games-1.bin"))
        .output()
        .unwrap();
    assert!(conv.status.success());
    let line = std::fs::read_to_string(&txt)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let parts: Vec<&str> = line.split(" | ").collect();
    assert_eq!(parts.len(), 3, "{line}");
    assert!(movegen::Board::from_fen(parts[0]).is_ok());
    assert!(["1.0", "0.5", "0.0"].contains(&parts[2]));
    let bullet = dir.join("out.bin");
    let conv = datagen()
        .args(["convert", "--to", "bullet", "--out"])
        .arg(&bullet)
        .arg(dir.join("games-1.bin"))
        .output()
        .unwrap();
    assert!(conv.status.success());
    assert_eq!(std::fs::metadata(&bullet).unwrap().len() % 32, 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_arguments_are_refused() {
    for args in [
        &["--out", "/tmp/x"][..],
        &["--games", "5"],
        &["--games", "5", "--positions", "5", "--out", "/tmp/x"],
        &["--games", "5", "--out", "/tmp/x", "--net", "/nonexistent.nnue"],
        &["--games", "5", "--out", "/tmp/x", "--threads", "0"],
    ] {
        let out = datagen().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).starts_with("datagen: error: "),
            "{args:?}"
        );
    }
}
