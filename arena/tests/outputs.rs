//! Where arena writes: the state file of `-config outname=` by the workspace's
//! rule for output files (a link stays a link, `/dev/null` stays a device), a book named as
//! one of the match's outputs refused before anything is written, and a closed stdout
//! ending arena quietly, whatever it was printing (`-help`, `-version`, `sprt-calc`,
//! `rate`, a match).

#![allow(clippy::unwrap_used)]

mod common;

use common::{run_arena, temp_dir, words, ARENA, BOOK, FAULT};
use matchcore::state::SavedState;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Command;

/// A two-game match of the fault engine against itself, plus `extra`.
fn short_match(extra: &str) -> Vec<String> {
    words(&format!(
        "-engine cmd={FAULT} name=a -engine cmd={FAULT} name=b -each tc=inf nodes=1 -rounds 1 \
         -maxmoves 3 {extra}"
    ))
}

#[test]
fn the_state_file_keeps_a_link_and_writes_through_dev_null() {
    let dir = temp_dir("state");
    std::fs::create_dir(dir.join("saves")).unwrap();
    std::os::unix::fs::symlink("saves/state.json", dir.join("state.json")).unwrap();
    let (code, out, err) = run_arena(Some(&dir), &short_match("-config outname=state.json"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(std::fs::symlink_metadata(dir.join("state.json"))
        .unwrap()
        .file_type()
        .is_symlink());
    let state =
        SavedState::from_json(&std::fs::read_to_string(dir.join("saves/state.json")).unwrap()).unwrap();
    assert_eq!(state.done, vec![(0, 0)], "{state:?}");
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .chain(std::fs::read_dir(dir.join("saves")).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["saves", "state.json", "state.json"],
        "no partial file left"
    );
    // /dev/null stays a device (the rule is checked first, so that a wrong one cannot
    // rename over it).
    let null = Path::new("/dev/null");
    assert!(matches!(
        output::plan(null).unwrap(),
        output::Plan::Through { .. }
    ));
    let (code, out, err) = run_arena(Some(&dir), &short_match("-config outname=/dev/null"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(std::fs::metadata(null).unwrap().file_type().is_char_device());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_book_as_one_of_the_outputs_is_refused_before_anything_is_written() {
    let dir = temp_dir("book");
    let book = dir.join("book.epd");
    std::fs::copy(BOOK, &book).unwrap();
    let before = std::fs::read(&book).unwrap();
    for output in [
        "-config outname=book.epd",
        "-pgnout file=book.epd",
        "-epdout file=book.epd",
    ] {
        let (code, out, err) = run_arena(
            Some(&dir),
            &short_match(&format!("-openings file=book.epd format=epd {output}")),
        );
        assert_eq!(code, 3, "{output}: {out}{err}");
        assert!(
            err.contains("refusing to write book.epd: it is one of the inputs (book.epd)"),
            "{output}: {err}"
        );
        assert!(!out.contains("Started game"), "{output}: {out}");
        assert_eq!(std::fs::read(&book).unwrap(), before, "{output}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Two outputs that are one file (the same name, or one file through a link) are refused
/// before anything is written: the state saved after each game would replace the PGN.
#[test]
fn two_outputs_that_are_one_file_are_refused_before_anything_is_written() {
    let dir = temp_dir("shared");
    let old = "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n";
    std::fs::write(dir.join("g.pgn"), old).unwrap();
    std::os::unix::fs::symlink("g.pgn", dir.join("link.pgn")).unwrap();
    for (outputs, first, second) in [
        (
            "-config outname=g.pgn -pgnout file=g.pgn",
            "-config outname",
            "-pgnout",
        ),
        ("-pgnout file=g.pgn -epdout file=./g.pgn", "-pgnout", "-epdout"),
        ("-pgnout file=link.pgn -log file=g.pgn", "-pgnout", "-log"),
        ("-epdout file=new.epd -log file=new.epd", "-epdout", "-log"),
    ] {
        let (code, out, err) = run_arena(Some(&dir), &short_match(outputs));
        assert_eq!(code, 3, "{outputs}: {out}{err}");
        assert!(
            err.contains(&format!("{first} and {second} are one file")),
            "{outputs}: {err}"
        );
        assert!(!out.contains("Started game"), "{outputs}: {out}");
        assert_eq!(
            std::fs::read_to_string(dir.join("g.pgn")).unwrap(),
            old,
            "{outputs}"
        );
        assert!(!dir.join("new.epd").exists(), "{outputs}");
    }
    // Every output into /dev/null is no collision.
    let (code, out, err) = run_arena(
        Some(&dir),
        &short_match("-pgnout file=/dev/null -epdout file=/dev/null -log file=/dev/null"),
    );
    assert_eq!(code, 0, "{out}{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_closed_stdout_ends_arena_quietly() {
    let dir = temp_dir("closed");
    let pgn = dir.join("games.pgn");
    std::fs::write(
        &pgn,
        "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n",
    )
    .unwrap();
    let cases: Vec<Vec<String>> = vec![
        words("-help"),
        words("-version"),
        words("sprt-calc --penta 1,2,3,2,1 --elo0 0 --elo1 5"),
        vec!["rate".into(), pgn.display().to_string()],
        short_match(""),
    ];
    for args in &cases {
        let out = Command::new(ARENA)
            .args(args)
            .current_dir(&dir)
            .stdout(output::closed_pipe().unwrap())
            .output()
            .unwrap();
        assert_eq!(output::closed_stdout_fault(&out), None, "{args:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
