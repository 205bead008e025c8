//! `learn init` never destroys: a `learn.toml`, `openings.epd` or `nets/NAME.nnue` already in
//! the directory is refused with an error naming it, leaving every file as it was (`--force`
//! replaces them); a run's journal is refused even with `--force`. The net's name is a
//! name, not a path, by the rule `datagen --gen` names generations by.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use testing::temp;

fn net() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue")
}

fn init(run: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_learn"))
        .args(["init", run.to_str().unwrap(), "--net", net().to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap()
}

/// Every file under `dir` with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn init_refuses_the_users_files_and_replaces_them_only_with_force() {
    let dir = temp("keep");
    let run = dir.join("run");
    std::fs::create_dir_all(run.join("nets")).unwrap();
    let own: [(&str, &[u8]); 3] = [
        ("learn.toml", b"# my own settings\n"),
        ("openings.epd", b"my own book\n"),
        ("nets/gen1-32.nnue", b"my own net"),
    ];
    for (i, (name, bytes)) in own.iter().enumerate() {
        // Each file alone is refused.
        std::fs::write(run.join(name), bytes).unwrap();
        let before = files(&dir);
        let out = init(&run, &[]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(name) && err.contains("--force"), "{name}: {err}");
        assert_eq!(files(&dir), before, "{name}: nothing is written");
        if i < 2 {
            std::fs::remove_file(run.join(name)).unwrap();
        }
    }
    // All three, then --force.
    for (name, bytes) in own {
        std::fs::write(run.join(name), bytes).unwrap();
    }
    let out = init(&run, &[]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    for (name, bytes) in own {
        assert!(err.contains(name), "{err}");
        assert_eq!(std::fs::read(run.join(name)).unwrap(), bytes);
    }
    let out = init(&run, &["--force"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let copied = nnue::Network::load(&run.join("nets/gen1-32.nnue")).unwrap();
    let start = nnue::Network::load(&net()).unwrap();
    assert_eq!(
        copied.fingerprint(),
        start.fingerprint(),
        "--force replaced the net"
    );
    assert!(std::fs::read_to_string(run.join("learn.toml"))
        .unwrap()
        .contains("[gate]"));
    // A run is never replaced, even with --force.
    let journal = std::fs::read(run.join("journal")).unwrap();
    let out = init(&run, &["--force"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("already holds a run"), "{err}");
    assert_eq!(std::fs::read(run.join("journal")).unwrap(), journal);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_net_name_is_a_name_not_a_path() {
    let dir = temp("name");
    let run = dir.join("a/b/run");
    for name in ["../../evil", "x/y", ".hidden", "", "a b"] {
        let out = init(&run, &["--name", name]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{name:?}: {err}");
        assert!(
            err.contains("--name") && err.contains("ASCII letters, digits"),
            "{name:?}: {err}"
        );
    }
    assert_eq!(files(&dir), Vec::new(), "nothing is written anywhere");
    // A file stem that is no name needs --name.
    let odd = dir.join("my net.nnue");
    std::fs::copy(net(), &odd).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_learn"))
        .args(["init", run.to_str().unwrap(), "--net", odd.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--name"), "{err}");
    assert!(!run.exists());
    let out = init(&run, &["--name", "gen1-32.b_2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(run.join("nets/gen1-32.b_2.nnue").exists());
    std::fs::remove_dir_all(&dir).ok();
}
