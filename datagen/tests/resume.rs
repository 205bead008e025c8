//! datagen end to end, driving the real binary at tiny node counts: a run killed with
//! SIGKILL, a flipped byte, a cut file, a changed count field, a broken new file, two
//! writers on one directory and a resume with fewer threads all lose no intact game; the
//! store (`--gen`, `stats` over directories) and bad arguments.

#![allow(clippy::unwrap_used)]

mod common;

use common::{base_run, copy_of_base, datagen, gen_args, run, temp_dir, text};
use movegen::openings::StartPositions;
use records::record::{encode_chunk_v1, encode_header_v1, encode_header_v2, scan, Header, CHUNK_HEADER};
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

/// A run's stderr as text.
fn stderr(out: &Output) -> String {
    text(&out.stderr)
}

/// A run's stdout as text.
fn stdout(out: &Output) -> String {
    text(&out.stdout)
}

/// Every game in the directory's stream files, as its encoded bytes (sorted), after
/// checking that each is a legal game.
fn games_in(dir: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "bin") {
            for g in scan(&std::fs::read(&path).unwrap()).games {
                let mut board = g.start;
                for &(mv, _) in &g.moves {
                    assert!(board.is_legal(mv));
                    board.play(mv);
                }
                let mut bytes = Vec::new();
                g.encode(&mut bytes);
                out.push(bytes);
            }
        }
    }
    out.sort();
    out
}

/// Whether every game of `before` is still in `after` (as many times).
fn keeps_all(before: &[Vec<u8>], after: &[Vec<u8>]) -> bool {
    let mut after = after.to_vec();
    before.iter().all(|g| match after.iter().position(|a| a == g) {
        Some(i) => {
            after.swap_remove(i);
            true
        }
        None => false,
    })
}

fn verify_ok(dir: &Path) -> bool {
    let out = datagen().arg("verify").arg(dir).output().unwrap();
    out.status.success()
}

/// Resumes the run in `dir` with `threads` threads to `target` games (`gen_args`), `before`
/// being the games there beforehand (`games_in`), and checks what every resume must do: it
/// succeeds, says how many games it found ("resuming: N games", nothing when there were
/// none), ends with exactly `target` games among which is every game of `before`, and
/// leaves a directory `verify` passes. Returns the resume's stderr, for a test's own
/// checks; panics (fails the test) on any of these.
fn resume_to(dir: &Path, threads: usize, target: usize, before: &[Vec<u8>]) -> String {
    let out = run(&gen_args(dir, threads, target as u64));
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    match before.len() {
        0 => assert!(!err.contains("resuming: "), "{err}"),
        1 => assert!(err.contains("resuming: 1 game, "), "{err}"),
        n => assert!(err.contains(&format!("resuming: {n} games")), "{err}"),
    }
    let after = games_in(dir);
    assert_eq!(after.len(), target, "{err}");
    assert!(keeps_all(before, &after), "{err}");
    assert!(verify_ok(dir), "{err}");
    err
}

/// The byte offsets of the chunks of a clean file.
fn chunk_offsets(path: &Path) -> Vec<usize> {
    scan(&std::fs::read(path).unwrap())
        .chunks
        .iter()
        .map(|c| c.offset as usize)
        .collect()
}

fn wait_for_size(path: &Path, size: u64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::metadata(path).map_or(0, |m| m.len()) < size {
        assert!(Instant::now() < deadline, "{} did not grow", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn killed_then_resumed_keeps_every_game() {
    let dir = temp_dir("kill");
    let mut child = datagen()
        .args(gen_args(&dir, 2, 100_000))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Let it write some games, then kill it without warning (SIGKILL).
    wait_for_size(&dir.join("games-0.bin"), 4000);
    std::thread::sleep(Duration::from_millis(7));
    child.kill().unwrap();
    child.wait().unwrap();

    let before = games_in(&dir);
    assert!(!before.is_empty());
    // Resume to a target just above what is there: met exactly, nothing lost.
    resume_to(&dir, 2, before.len() + 6, &before);

    // Conversion: text lines are "FEN | cp | result"; bullet records are 32 bytes.
    let conv_dir = temp_dir("kill-convert");
    let txt = conv_dir.join("out.txt");
    let conv = datagen()
        .args(["convert", "--to", "text", "--out"])
        .arg(&txt)
        .arg(dir.join("games-1.bin"))
        .output()
        .unwrap();
    assert!(conv.status.success(), "{}", stderr(&conv));
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
    let bullet = conv_dir.join("out.bullet");
    let conv = datagen()
        .args(["convert", "--to", "bullet", "--out"])
        .arg(&bullet)
        .arg(&dir)
        .output()
        .unwrap();
    assert!(conv.status.success());
    assert_eq!(std::fs::metadata(&bullet).unwrap().len() % 32, 0);
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&conv_dir).ok();
}

/// Fault 5a: a flipped byte in the middle of a file costs that one game, in `stats`, in
/// `verify` and on resume, which moves the damage aside instead of cutting the file there.
#[test]
fn a_flipped_byte_costs_one_game_everywhere() {
    let dir = copy_of_base("flip");
    let path = dir.join("games-0.bin");
    let before = games_in(&dir);
    assert_eq!(before.len(), 12);
    let offsets = chunk_offsets(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[offsets[5] + CHUNK_HEADER + 3] ^= 0x40;
    let damaged = bytes[offsets[5]..offsets[6]].to_vec();
    std::fs::write(&path, &bytes).unwrap();
    let survivors = games_in(&dir);
    assert_eq!(survivors.len(), 11);
    assert!(keeps_all(&survivors, &before));

    let out = datagen().arg("stats").arg(&dir).output().unwrap();
    assert!(out.status.success());
    assert!(stdout(&out).contains("\ngames: 11\n"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(&format!("bad chunk at byte {}", offsets[5])),
        "{}",
        stderr(&out)
    );
    let out = datagen().arg("verify").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("BAD")
            && text.contains(&format!("bad chunk at byte {}", offsets[5]))
            && text.contains("11 intact games"),
        "{text}"
    );

    let err = resume_to(&dir, 1, 14, &survivors);
    assert!(err.contains("quarantine"), "{err}");
    // The damaged chunk is kept, byte for byte, in the quarantine file.
    let q = std::fs::read(dir.join("games-0.bin.quarantine")).unwrap();
    assert_eq!(q[24..], damaged[..]);
    std::fs::remove_dir_all(&dir).ok();
}

/// A file cut in the middle of a chunk (a kill mid-write, or a copy that stopped).
#[test]
fn a_cut_file_keeps_every_whole_game() {
    let dir = copy_of_base("cut");
    let path = dir.join("games-0.bin");
    let offsets = chunk_offsets(&path);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..offsets[9] + 30]).unwrap();
    let before = games_in(&dir);
    assert_eq!(before.len(), 9);
    resume_to(&dir, 1, 12, &before);
    // Same seeds, same games: the three replayed games are the three that were cut off.
    assert_eq!(games_in(&dir), games_in(base_run()));
    std::fs::remove_dir_all(&dir).ok();
}

/// A chunk gone from the middle of a file (sequence numbers 0, 1, 3, ...): `verify` says BAD
/// naming the file and the missing number, `stats` warns, and a resume plays that game again
/// first, so the file ends whole with the same games as before.
#[test]
fn a_gap_in_the_sequence_numbers_is_lost_games_and_a_resume_fills_it() {
    let dir = copy_of_base("gap");
    let path = dir.join("games-0.bin");
    let offsets = chunk_offsets(&path);
    let bytes = std::fs::read(&path).unwrap();
    let mut gapped = bytes[..offsets[2]].to_vec();
    gapped.extend_from_slice(&bytes[offsets[3]..]);
    std::fs::write(&path, &gapped).unwrap();
    let before = games_in(&dir);
    assert_eq!(before.len(), 11);

    let out = datagen().arg("verify").arg(&dir).output().unwrap();
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.starts_with(&format!(
            "BAD  {}: sequence number 2 missing: 1 game written is gone",
            path.display()
        )),
        "{text}"
    );
    let out = datagen().arg("stats").arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("sequence number 2 missing: 1 game written is gone"),
        "{}",
        stderr(&out)
    );

    // The resume says so and plays game 2 again: the same 12 games as the whole run.
    let err = resume_to(&dir, 1, 12, &before);
    assert!(
        err.contains("sequence number 2 missing: 1 game written is gone; a stream that writes this file plays them again first"),
        "{err}"
    );
    assert_eq!(games_in(&dir), games_in(base_run()));
    std::fs::remove_dir_all(&dir).ok();
}

/// Fault 5b: the game count is checksummed in format 2.
#[test]
fn a_changed_count_field_fails_verify() {
    let dir = copy_of_base("count");
    let path = dir.join("games-0.bin");
    let offsets = chunk_offsets(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[offsets[3] + 8] = 0;
    std::fs::write(&path, &bytes).unwrap();
    let out = datagen().arg("verify").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("checksum mismatch"), "{}", stdout(&out));
    std::fs::remove_dir_all(&dir).ok();
}

/// Fault 5c: an empty file and a half-written header (a kill while a new file was being
/// made) no longer block the resume.
#[test]
fn broken_new_files_do_not_block_a_resume() {
    let dir = copy_of_base("header");
    let before = games_in(&dir);
    let header = std::fs::read(dir.join("games-0.bin")).unwrap()[..20].to_vec();
    std::fs::write(dir.join("games-1.bin"), b"").unwrap();
    std::fs::write(dir.join("games-2.bin"), &header).unwrap();
    resume_to(&dir, 3, 15, &before);
    assert_eq!(
        std::fs::read(dir.join("games-2.bin.quarantine")).unwrap()[24..],
        header[..]
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Fault 5d: a second datagen on the same directory is refused; nothing is written twice.
#[test]
fn a_second_writer_is_refused() {
    let dir = temp_dir("two");
    let mut first = datagen()
        .args(gen_args(&dir, 1, 100_000))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for_size(&dir.join("games-0.bin"), 2000);
    let mut second = datagen()
        .args(gen_args(&dir, 2, 100_000))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // It must give up at once; if it writes instead, stop both and fail.
    let deadline = Instant::now() + Duration::from_secs(60);
    while second.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = second.kill();
    let second = second.wait_with_output().unwrap();
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(second.status.code(), Some(2));
    let err = stderr(&second);
    assert!(
        err.starts_with("datagen: error: ") && err.contains("in use by another datagen"),
        "{err}"
    );
    assert!(!dir.join("games-1.bin").exists());
    let games = games_in(&dir);
    let mut unique = games.clone();
    unique.dedup();
    assert_eq!(unique.len(), games.len());
    // The killed writer's last game may be cut; a resume then leaves a clean directory.
    resume_to(&dir, 1, games.len() + 1, &games);
    std::fs::remove_dir_all(&dir).ok();
}

/// Fault 5d in files written before the lock: a chunk written twice fails `verify`, is
/// counted once, and a resume moves the copy aside.
#[test]
fn a_repeated_chunk_is_found_and_moved_aside() {
    let dir = copy_of_base("repeat");
    let path = dir.join("games-0.bin");
    let offsets = chunk_offsets(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    let copy = bytes[offsets[4]..offsets[5]].to_vec();
    bytes.extend_from_slice(&copy);
    std::fs::write(&path, &bytes).unwrap();
    let out = datagen().arg("verify").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("duplicate chunk at byte"),
        "{}",
        stdout(&out)
    );
    let out = datagen().arg("stats").arg(&path).output().unwrap();
    assert!(stdout(&out).contains("\ngames: 12\n"), "{}", stdout(&out));
    let before = games_in(&dir);
    resume_to(&dir, 1, 12, &before);
    assert_eq!(games_in(&dir), games_in(base_run()));
    assert_eq!(
        std::fs::read(dir.join("games-0.bin.quarantine")).unwrap()[24..],
        copy[..]
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Fault 5e: resuming with fewer threads counts every stream's games and stops at the
/// target; the streams it does not write to are left as they were.
#[test]
fn fewer_threads_count_every_file() {
    let dir = temp_dir("threads");
    let out = run(&gen_args(&dir, 2, 6));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(games_in(&dir).len(), 6);
    let stream1 = std::fs::read(dir.join("games-1.bin")).unwrap();
    resume_to(&dir, 1, 9, &games_in(&dir));
    assert_eq!(std::fs::read(dir.join("games-1.bin")).unwrap(), stream1);
    // Already there: nothing more is played.
    let out = run(&gen_args(&dir, 1, 4));
    assert!(out.status.success());
    assert_eq!(games_in(&dir).len(), 9);
    std::fs::remove_dir_all(&dir).ok();
}

/// A directory holding a format 1 file of the same settings resumes: the old file counts,
/// stays byte for byte, and new games go to a new format 3 stream.
#[test]
fn a_format_1_directory_resumes_into_new_files() {
    let dir = temp_dir("v1");
    let net = engine::default_net();
    let settings = format!(
        "format=luft-games-1\nnodes=200\nrandom_plies=8\nnet={:016x}\nhidden={}\nadjudicate=true\nbook=none\nseed=9\n",
        net.fingerprint(),
        net.hidden()
    );
    let mut v1 = encode_header_v1(&settings);
    let games = scan(&std::fs::read(base_run().join("games-0.bin")).unwrap()).games;
    for g in &games[..4] {
        encode_chunk_v1(std::slice::from_ref(g), &mut v1);
    }
    std::fs::write(dir.join("games-0.bin"), &v1).unwrap();
    let before = games_in(&dir);
    assert_eq!(before.len(), 4);
    resume_to(&dir, 1, 7, &before);
    assert_eq!(std::fs::read(dir.join("games-0.bin")).unwrap(), v1);
    let new = scan(&std::fs::read(dir.join("games-1.bin")).unwrap());
    assert!(matches!(new.header, Ok(Header::V3(ref h)) if h.stream == 1 && h.soft_nodes == 200));
    // Other settings are refused.
    let mut other = gen_args(&dir, 1, 9);
    other[5] = "300".into();
    let out = run(&other);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("other settings"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).ok();
}

/// A directory of format 2 files (what datagen wrote before format 3) with this run's
/// settings resumes: the format 2 stream is appended to under its own header (the chunks of
/// both formats are the same), a new stream gets a format 3 header, and `verify` and `stats`
/// read both.
#[test]
fn a_format_2_directory_resumes_and_keeps_its_header() {
    let dir = temp_dir("v2");
    // The base run's file with its settings written as a format 2 header instead.
    let base = std::fs::read(base_run().join("games-0.bin")).unwrap();
    let s = scan(&base);
    let Ok(Header::V3(settings)) = &s.header else {
        panic!("datagen writes format 3: {:?}", s.header)
    };
    let mut v2 = encode_header_v2(settings);
    let v2_header_len = v2.len();
    v2.extend_from_slice(&base[s.header_len as usize..]);
    std::fs::write(dir.join("games-0.bin"), &v2).unwrap();
    let before = games_in(&dir);
    assert_eq!(before.len(), 12);

    resume_to(&dir, 2, 16, &before);
    let old = std::fs::read(dir.join("games-0.bin")).unwrap();
    assert_eq!(&old[..v2.len()], &v2[..], "the format 2 file is only appended to");
    let old = scan(&old);
    assert!(old.is_clean(), "{:?}", old.report());
    assert_eq!(old.header_len as usize, v2_header_len);
    assert!(matches!(old.header, Ok(Header::V2(ref h)) if h.same_run(settings)));
    let new = scan(&std::fs::read(dir.join("games-1.bin")).unwrap());
    assert!(matches!(new.header, Ok(Header::V3(ref h)) if h.stream == 1 && h.same_run(settings)));
    let out = datagen().arg("verify").arg(&dir).output().unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("games-0.bin: ") && text.contains("(format 2)"),
        "{text}"
    );
    assert!(text.contains("(format 3)"), "{text}");
    // One run's settings, whatever the format.
    let out = datagen().arg("stats").arg(&dir).output().unwrap();
    let text = stdout(&out);
    assert!(text.contains("  formats 2, 3; net "), "{text}");
    assert!(!text.contains("settings differ"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Files of every format made by earlier datagens (the first four games of the store's
/// generation 3, format 1, and generation 4, format 2; `tests/data/README.md`) and of this
/// one verify, count and describe their settings.
#[test]
fn files_of_every_format_verify_and_count() {
    let store = temp_dir("formats");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for (name, file) in [("gen3", "format1-gen3.bin"), ("gen4", "format2-gen4.bin")] {
        std::fs::create_dir_all(store.join(name)).unwrap();
        std::fs::copy(data.join(file), store.join(name).join("games-0.bin")).unwrap();
    }
    let out = run(&gen_args(&store.join("new"), 1, 2));
    assert!(out.status.success(), "{}", stderr(&out));

    let out = datagen().arg("verify").arg(&store).output().unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    for (name, games, format) in [("gen3", 4, 1), ("gen4", 4, 2), ("new", 2, 3)] {
        let line = text
            .lines()
            .find(|l| l.contains(&format!("/{name}/games-0.bin")))
            .unwrap();
        assert!(
            line.starts_with("ok   ") && line.contains(&format!(": {games} games, ")),
            "{line}"
        );
        assert!(line.ends_with(&format!("(format {format})")), "{line}");
    }
    let out = datagen().arg("stats").arg(&store).output().unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.contains("total: 3 generations, 3 files"), "{text}");
    assert!(text.contains("games: 10\n"), "{text}");
    assert!(
        text.contains(
            "  format 1; nodes=5000, random_plies=8, net=70c45fe35a3531d9, hidden=32, adjudicate=true, \
             book=none, seed=2026113003; adjudication on"
        ),
        "{text}"
    );
    // The format-2 fixture's header names its net by the path given on datagen's command
    // line, as headers did before the folder was left out.
    assert!(
        text.contains(
            "  format 2; net 9b60ddd367e1a820 (hidden 128, nets/gen4-128.nnue), 5000 nodes (hard 40000), "
        ),
        "{text}"
    );
    assert!(text.contains("classical start positions"), "{text}");
    assert!(text.contains("  format 3; net "), "{text}");
    std::fs::remove_dir_all(&store).ok();
}

/// `--openings-960 frc|dfrc` starts games from Chess960 / double-Chess960 positions and the
/// format 3 header records it: `stats` shows it, and a resume with another choice is
/// refused. Not with a book.
#[test]
fn chess960_openings_are_recorded_and_resumed_only_alike() {
    let dir = temp_dir("dfrc");
    let dfrc = ["--openings-960", "dfrc", "--random-plies", "0"].map(String::from);
    let mut args = gen_args(&dir, 1, 3);
    args.extend(dfrc.clone());
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(games_in(&dir).len(), 3, "legal games");
    let s = scan(&std::fs::read(dir.join("games-0.bin")).unwrap());
    assert!(
        matches!(s.header, Ok(Header::V3(ref h)) if h.start_positions == StartPositions::DoubleChess960),
        "{:?}",
        s.header
    );
    // With no random plies (0 or 1 per game) the kings have not moved: off e1/e8 somewhere.
    let kings: Vec<(usize, usize)> = s
        .games
        .iter()
        .map(|g| {
            let b = g.start;
            (
                b.king(movegen::Color::White).file().index(),
                b.king(movegen::Color::Black).file().index(),
            )
        })
        .collect();
    assert!(kings.iter().any(|&k| k != (4, 4)), "{kings:?}");
    let out = datagen().arg("stats").arg(&dir).output().unwrap();
    assert!(
        stdout(&out).contains("book none, double-chess960 start positions, 0 random plies"),
        "{}",
        stdout(&out)
    );
    // The same choice resumes; another is another run.
    let mut more = gen_args(&dir, 1, 4);
    more.extend(dfrc.clone());
    let out = run(&more);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(games_in(&dir).len(), 4);
    for other in [
        &["--openings-960", "frc", "--random-plies", "0"][..],
        &["--random-plies", "0"],
    ] {
        let mut args = gen_args(&dir, 1, 6);
        args.extend(other.iter().map(|a| a.to_string()));
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{other:?}");
        assert!(stderr(&out).contains("other settings"), "{}", stderr(&out));
    }
    let mut both = gen_args(&temp_dir("dfrc-book"), 1, 1);
    both.extend(["--openings-960", "frc", "--book", "/nonexistent.epd"].map(String::from));
    let out = run(&both);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not both"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).ok();
}

/// `--gen NAME` writes into `$LUFT_DATA/NAME`; `stats` over the store reports each
/// generation and the total, reading format 1 stores too.
#[test]
fn the_store_holds_generations() {
    let store = temp_dir("store");
    let out = datagen()
        .env("LUFT_DATA", &store)
        .args(["--gen", "g1", "--games", "3", "--nodes", "200", "--seed", "4"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(games_in(&store.join("g1")).len(), 3);
    // A format 1 file (the first 120 games of a generation-3 file, committed).
    let v1 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/selfplay/gen3-b-v1.bin");
    assert!(v1.is_file(), "{} is missing", v1.display());
    std::fs::create_dir_all(store.join("gen3")).unwrap();
    std::os::unix::fs::symlink(&v1, store.join("gen3/games-0.bin")).unwrap();
    let out = datagen().arg("stats").arg(&store).output().unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        text.contains(&format!("{}  (1 file)", store.join("g1").display())),
        "{text}"
    );
    assert!(text.contains("200 nodes (hard 1600), seed 4"), "{text}");
    assert!(
        text.contains(
            "adjudication on (win at |score| >= 2000 cp for 4 plies, draw at |score| <= 5 cp for 12 \
             plies from ply 40), draw at 400 plies\n"
        ),
        "{text}"
    );
    assert!(text.contains("  games 3, positions "), "{text}");
    assert!(text.contains(" nodes per position"), "{text}");
    assert!(
        text.contains("  games 120, positions 18213 (11476 pass the training filter)"),
        "{text}"
    );
    assert!(text.contains("total: 2 generations"), "{text}");
    assert!(
        text.contains("draw at 400 plies (format 1 records no thresholds: the defaults)"),
        "{text}"
    );
    std::fs::remove_dir_all(&store).ok();
}

use testing::interrupt;

/// Waits up to `limit` for `child` to exit; kills it and fails when it does not.
fn exits_within(child: &mut std::process::Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("still running {limit:?} after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = Output {
        status: child.wait().unwrap(),
        stdout: Vec::new(),
        stderr: Vec::new(),
    };
    use std::io::Read;
    child.stderr.take().unwrap().read_to_end(&mut out.stderr).unwrap();
    out
}

/// Ctrl-C ends the search in progress at once, even at the largest node budget: the game
/// cut short is not written, the files stay clean, and a resume ends with exactly the
/// games asked for.
#[test]
fn ctrl_c_stops_the_search_in_progress_and_a_resume_completes() {
    let dir = temp_dir("sigint");
    let mut args = gen_args(&dir, 2, 3);
    args[5] = datagen::MAX_NODES.to_string();
    let mut child = datagen()
        .args(&args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Both files made (so the handler is about to be installed), then well into the first
    // moves' searches (minutes each at this budget).
    wait_for_size(&dir.join("games-1.bin"), 1);
    std::thread::sleep(Duration::from_millis(1500));
    interrupt(&child);
    let out = exits_within(&mut child, Duration::from_secs(5));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted: 0 games, 0 positions in") && err.contains("to resume"),
        "{err}"
    );
    assert!(games_in(&dir).is_empty());
    assert!(verify_ok(&dir));

    // At a small budget, stopped between and within games, then resumed to a target.
    let dir = temp_dir("sigint-resume");
    let mut child = datagen()
        .args(gen_args(&dir, 2, 100_000))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_size(&dir.join("games-0.bin"), 4000);
    interrupt(&child);
    let out = exits_within(&mut child, Duration::from_secs(5));
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let before = games_in(&dir);
    assert!(!before.is_empty());
    assert!(verify_ok(&dir));
    resume_to(&dir, 2, before.len() + 3, &before);
    std::fs::remove_dir_all(&dir).ok();
}

/// A node budget no game could finish with is refused, naming the largest one taken.
#[test]
fn a_node_budget_beyond_the_largest_is_refused() {
    let dir = temp_dir("max-nodes");
    for nodes in ["18446744073709551615", "100000001", "0"] {
        let mut args = gen_args(&dir, 1, 1);
        args[5] = nodes.to_string();
        let out = run(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.starts_with(&format!(
                "datagen: error: --nodes {nodes}: give 1 to 100000000 soft nodes"
            )),
            "{err}"
        );
    }
    let out = run(&["label-quality", "--reference", "100000001", "x.bin"]);
    assert!(
        stderr(&out).starts_with("datagen: error: --reference 100000001: give 1 to 100000000"),
        "{}",
        stderr(&out)
    );
    // Nothing was made.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn bad_arguments_are_refused() {
    for args in [
        &["--out", "/tmp/x"][..],
        &["--games", "5"],
        &["--games", "5", "--positions", "5", "--out", "/tmp/x"],
        &["--games", "5", "--out", "/tmp/x", "--net", "/nonexistent.nnue"],
        &["--games", "5", "--out", "/tmp/x", "--threads", "0"],
        &["--games", "5", "--out", "/tmp/x", "--gen", "g"],
        &["--games", "5", "--gen", "../escape"],
        &["stats", "/nonexistent/luft-data"],
        &["verify"],
    ] {
        let out = datagen().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).starts_with("datagen: error: "), "{args:?}");
    }
}

#[test]
fn a_book_with_a_byte_order_mark_keeps_its_first_line_and_bad_lines_are_errors() {
    let dir = temp_dir("bom-book");
    let book = dir.join("book.epd");
    // One opening only, on the first line, behind a BOM: before the shared reader it was
    // dropped and datagen refused the book as empty.
    std::fs::write(
        &book,
        "\u{feff}rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1;\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let mut args = gen_args(&out_dir, 1, 2);
    args.extend(["--book".to_string(), book.display().to_string()]);
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(games_in(&out_dir).len(), 2);
    std::fs::write(
        &book,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\nnot a fen\n",
    )
    .unwrap();
    let out = run(&gen_args(&dir.join("out2"), 1, 2)
        .into_iter()
        .chain(["--book".to_string(), book.display().to_string()])
        .collect::<Vec<_>>());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("line 2"), "{}", stderr(&out));
}

#[test]
fn convert_refuses_a_directory_and_leaves_no_partial_file() {
    let dir = temp_dir("convert-dir");
    let data = copy_of_base("convert-dir-data");
    let out = datagen()
        .args(["convert", "--to", "text", "--out"])
        .arg(&dir)
        .arg(&data)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("is a directory"), "{}", stderr(&out));
    // A missing input: an error, and no `<out>.partial` left beside the output.
    let target = dir.join("positions.txt");
    let out = datagen()
        .args(["convert", "--to", "text", "--out"])
        .arg(&target)
        .arg(dir.join("missing.bin"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // And a good conversion writes the file and nothing else.
    let out = datagen()
        .args(["convert", "--to", "text", "--out"])
        .arg(&target)
        .arg(&data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("positions.txt")]);
}
