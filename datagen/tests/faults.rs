//! datagen against faults, on the real binary: a file being written is no
//! problem to `verify` and `stats` while its writer holds the directory's lock (and is one
//! once it is gone); a full disk under two threads tells both threads' errors and resumes to
//! a clean directory; `convert` of a file that is no data file is an error; `convert` and
//! `pack` write through `/dev/null` and FIFOs, keep links and refuse an input as the
//! output; a closed stdout ends every subcommand quietly, and a closed stderr costs a run
//! its messages only; refusals say what is wrong in words.

#![allow(clippy::unwrap_used)]

mod common;

use common::{base_run, copy_of_base, datagen, games_of, gen_args, run, temp_dir, text};
use datagen::store::DirLock;
use records::record::scan;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Command;

#[test]
fn a_half_written_last_chunk_is_the_game_in_flight_while_the_writer_holds_the_lock() {
    let dir = copy_of_base("in-flight");
    let file = dir.join("games-0.bin");
    let bytes = std::fs::read(&file).unwrap();
    let chunks = scan(&bytes).chunks;
    // Half of a copy of the last chunk after the end: a game being written.
    let last = &chunks[chunks.len() - 1];
    let half = &bytes[last.offset as usize..(last.offset + last.len / 2) as usize];
    let mut torn = bytes.clone();
    torn.extend_from_slice(half);
    std::fs::write(&file, &torn).unwrap();
    let lock = DirLock::acquire(&dir).unwrap();
    let out = run(&["verify".as_ref(), dir.as_os_str()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.starts_with("ok   "), "{stdout}");
    assert!(stdout.contains("12 games"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "a datagen is writing this directory now: the {} bytes from byte {} are the game being written",
            half.len(),
            bytes.len()
        )),
        "{stdout}"
    );
    // stats counts the twelve games and notes the thirteenth in flight, without a warning.
    let out = run(&["stats".as_ref(), dir.as_os_str()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(text(&out.stdout).contains("games: 12"), "{}", text(&out.stdout));
    assert!(
        stderr.contains("note: ") && !stderr.contains("warning"),
        "{stderr}"
    );
    // Once the writer is gone the same bytes are damage: BAD, exit 1.
    drop(lock);
    let out = run(&["verify".as_ref(), dir.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stdout).starts_with("BAD  "), "{}", text(&out.stdout));
    // Damage before the end is damage even under the lock.
    let mut middle = torn.clone();
    middle[chunks[1].offset as usize + 30] ^= 0xFF;
    std::fs::write(&file, &middle).unwrap();
    let _lock = DirLock::acquire(&dir).unwrap();
    let out = run(&["verify".as_ref(), dir.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_full_disk_under_two_threads_tells_each_streams_error_and_resumes_clean() {
    let dir = temp_dir("full-disk");
    // Room for 60 bytes a stream: each header fits, each first game does not.
    let out = datagen()
        .args(gen_args(&dir, 2, 6))
        .env("LUFT_DATAGEN_DISK_BYTES", "60")
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // Every stream that reached the disk tells its error. A stream still making its searcher
    // when the first failure came stops before its first game (the others finish their game
    // and stop), so it writes nothing and has nothing to tell: which streams got there is up
    // to the scheduler, what each file holds is not.
    let names = ["games-0.bin", "games-1.bin"];
    let told: Vec<bool> = names
        .iter()
        .map(|name| {
            let line = format!(
                "cannot write {}: no space left on device",
                dir.join(name).display()
            );
            stderr.contains(&line)
        })
        .collect();
    let lens: Vec<u64> = names
        .iter()
        .map(|name| std::fs::metadata(dir.join(name)).unwrap().len())
        .collect();
    assert!(told.iter().any(|&t| t), "{stderr}");
    assert_eq!(
        stderr.contains("2 of 2 streams failed"),
        told.iter().all(|&t| t),
        "{stderr}"
    );
    // The headers are alike, so a told stream's file is 60 bytes (its torn first game) past
    // one that never wrote.
    let header = if told.iter().all(|&t| t) {
        lens[0]
            .checked_sub(60)
            .unwrap_or_else(|| panic!("games-0.bin is {} bytes\n{stderr}", lens[0]))
    } else {
        lens[told.iter().position(|&t| !t).unwrap()]
    };
    for (i, name) in names.iter().enumerate() {
        let want = header + if told[i] { 60 } else { 0 };
        assert_eq!(lens[i], want, "{name}: told {}\n{stderr}", told[i]);
        assert_eq!(games_of(&dir.join(name)), 0, "{name}");
    }
    // With room again, the run resumes (cutting the torn ends) to its six games.
    let out = run(&gen_args(&dir, 2, 6));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&["verify".as_ref(), dir.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let games: usize = ["games-0.bin", "games-1.bin"]
        .iter()
        .map(|n| games_of(&dir.join(n)))
        .sum();
    assert_eq!(games, 6);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn convert_of_a_file_that_is_no_data_file_is_an_error() {
    let dir = temp_dir("not-data");
    let notes = dir.join("notes.bin");
    std::fs::write(&notes, "these are notes, not games\n".repeat(20)).unwrap();
    let target = dir.join("out.txt");
    let out = datagen()
        .args(["convert", "--to", "text", "--out"])
        .args([&target, &notes])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{} is not a data file or a pack", notes.display())),
        "{stderr}"
    );
    assert!(!target.exists());
    assert!(!dir.join("out.txt.partial").exists());
    // A real data file beside it still converts.
    let data = base_run().join("games-0.bin");
    let out = datagen()
        .args(["convert", "--to", "text", "--out"])
        .args([&target, &data])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn convert_and_pack_write_through_devices_and_fifos_keep_links_and_refuse_inputs() {
    let dir = copy_of_base("kinds");
    let data = dir.join("games-0.bin");
    let before = std::fs::read(&data).unwrap();
    let null = Path::new("/dev/null");
    // The rule writes through to /dev/null (checked before the binary can rename over it).
    assert!(matches!(
        output::plan(null).unwrap(),
        output::Plan::Through { .. }
    ));
    for args in [&["convert", "--to", "text", "--out"][..], &["pack", "--out"][..]] {
        let out = datagen()
            .args(args)
            .args([null, data.as_path()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        assert!(std::fs::metadata(null).unwrap().file_type().is_char_device());
    }
    // A FIFO gets the bytes and stays a FIFO.
    let fifo = dir.join("positions.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(&fifo).unwrap())
    };
    let out = datagen()
        .args(["convert", "--to", "text", "--all", "--out"])
        .args([&fifo, &data])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines = reader.join().unwrap();
    assert!(lines.lines().count() > 10 && lines.contains(" | "), "{lines}");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    // A link stays a link, and its target is the new file.
    std::fs::write(dir.join("old.txt"), b"old").unwrap();
    let link = dir.join("latest.txt");
    std::os::unix::fs::symlink("old.txt", &link).unwrap();
    let out = datagen()
        .args(["convert", "--to", "text", "--out"])
        .args([&link, &data])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(dir.join("old.txt"))
        .unwrap()
        .contains(" | "));
    // The input as the output, by name or through the directory it was found in: refused,
    // the input untouched.
    for extra in [[data.as_path(), data.as_path()], [data.as_path(), dir.as_path()]] {
        for args in [&["convert", "--to", "text", "--out"][..], &["pack", "--out"][..]] {
            let out = datagen().args(args).args(extra).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert!(
                text(&out.stderr).contains("is one of the inputs"),
                "{}",
                text(&out.stderr)
            );
        }
    }
    assert_eq!(std::fs::read(&data).unwrap(), before);
    // A missing directory is named.
    let deep = dir.join("missing/dir/x.txt");
    let out = datagen()
        .args(["convert", "--to", "text", "--out"])
        .args([&deep, &data])
        .output()
        .unwrap();
    assert!(
        text(&out.stderr).contains(&format!(
            "the directory {} does not exist",
            dir.join("missing/dir").display()
        )),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_closed_stdout_ends_every_subcommand_quietly() {
    let dir = copy_of_base("closed");
    let data = dir.join("games-0.bin");
    let txt = dir.join("out.txt");
    let pack = dir.join("out.pack");
    let unpacked = dir.join("unpacked");
    let d = |p: &Path| p.display().to_string();
    let cases: Vec<Vec<String>> = vec![
        vec!["verify".into(), d(&data)],
        vec!["stats".into(), d(&data)],
        vec![
            "convert".into(),
            "--to".into(),
            "text".into(),
            "--out".into(),
            d(&txt),
            d(&data),
        ],
        vec!["pack".into(), "--out".into(), d(&pack), d(&data)],
        vec!["unpack".into(), d(&pack), "--out".into(), d(&unpacked)],
        vec!["wdl-fit".into(), d(&data)],
    ];
    for args in &cases {
        let out = datagen()
            .args(args)
            .stdout(output::closed_pipe().unwrap())
            .output()
            .unwrap();
        assert_eq!(output::closed_stdout_fault(&out), None, "{args:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A closed stderr (`datagen ... 2>&1 | head -1` once `head` is done) loses only the
/// messages: the run plays and writes every game and exits 0, and so does a resume, whose
/// every message goes nowhere.
#[test]
fn a_closed_stderr_loses_only_the_messages() {
    let dir = temp_dir("closed-stderr");
    for games in [3, 5] {
        let out = datagen()
            .args(gen_args(&dir, 1, games))
            .stdout(std::process::Stdio::null())
            .stderr(output::closed_pipe().unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{games} games");
        assert_eq!(games_of(&dir.join("games-0.bin")), games as usize);
    }
    let out = run(&["verify".as_ref(), dir.as_os_str()]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    std::fs::remove_dir_all(&dir).ok();
}

/// Refusals say in words what is wrong with the input they name: a damaged pack (no Rust
/// debug text), an empty file or a net given as a pack, a value out of range.
#[test]
fn refusals_say_what_is_wrong_in_words() {
    let dir = temp_dir("messages");
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    let refused = |args: &[&std::ffi::OsStr], want: &str| {
        let out = datagen().args(args).output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end(), format!("datagen: error: {want}"), "{args:?}");
    };
    let pack = dir.join("whole.pack");
    let o = run(&[
        "pack".as_ref(),
        base_run().join("games-0.bin").as_os_str(),
        "--out".as_ref(),
        pack.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut bytes = std::fs::read(&pack).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x20;
    let damaged = dir.join("damaged.pack");
    std::fs::write(&damaged, &bytes).unwrap();
    let out = datagen()
        .arg("manifest")
        .arg(&corpus)
        .arg("--add")
        .arg(&damaged)
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with(&format!(
            "datagen: error: {}: damaged, so not listed: bad chunk at byte ",
            damaged.display()
        )) && !err.contains('{'),
        "{err}"
    );
    let empty = dir.join("empty.pack");
    std::fs::write(&empty, b"").unwrap();
    refused(
        &[
            "manifest".as_ref(),
            corpus.as_os_str(),
            "--add".as_ref(),
            empty.as_os_str(),
        ],
        &format!("{}: is empty, not a pack; a corpus lists packs", empty.display()),
    );
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue");
    refused(
        &[
            "unpack".as_ref(),
            net.as_os_str(),
            "--out".as_ref(),
            dir.join("x").as_os_str(),
        ],
        &format!(
            "{} is not a pack: its first bytes are no pack's: nothing to unpack",
            net.display()
        ),
    );
    let mut args = gen_args(&dir.join("run"), 1, 1);
    args.extend(["--random-plies".to_string(), "1000".to_string()]);
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    refused(&args, "--random-plies 1000: give at most 40");
    // A file reached twice (given twice, or as a file and in its directory) is read by no
    // reader of data: its games would count twice.
    let file = base_run().join("games-0.bin");
    for command in ["stats", "verify", "wdl-fit"] {
        refused(
            &[command.as_ref(), file.as_os_str(), base_run().as_os_str()],
            &format!(
                "{} is given twice as data (through {} and {}): its games would count twice; \
                 give each file once",
                file.display(),
                file.display(),
                base_run().display()
            ),
        );
    }
    refused(
        &[
            "convert".as_ref(),
            "--to".as_ref(),
            "text".as_ref(),
            "--out".as_ref(),
            dir.join("twice.txt").as_os_str(),
            file.as_os_str(),
            file.as_os_str(),
        ],
        &format!(
            "{} is given twice as data (through {} and {}): its games would count twice; give \
             each file once",
            file.display(),
            file.display(),
            file.display()
        ),
    );
    assert!(!dir.join("twice.txt").exists());
    assert_eq!(std::fs::read_dir(&corpus).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_book_goes_through_the_one_cleaning_step_with_notes() {
    let dir = temp_dir("book");
    let book = dir.join("book.epd");
    std::fs::write(
        &book,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1\n",
    )
    .unwrap();
    let out_dir = dir.join("gen");
    let mut args = gen_args(&out_dir, 1, 2);
    args.extend(["--book".to_string(), book.display().to_string()]);
    let out = run(&args);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "note: book {}: line 2: castling right K dropped: white king-side castling right without king and rook in place",
            book.display()
        )),
        "{stderr}"
    );
    assert_eq!(games_of(&out_dir.join("games-0.bin")), 2);
    // A line that cannot be cleaned is still an error, by its number.
    std::fs::write(
        &book,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b\n4k3/8 w\n",
    )
    .unwrap();
    let out = datagen()
        .args(gen_args(&dir.join("gen2"), 1, 2))
        .args(["--book".as_ref(), book.as_os_str()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("line 2: invalid FEN"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Ctrl-C before the first game (here while the book loads, from a FIFO whose writer sends
/// nothing) ends datagen at once with 130, saying no game was played and that the same
/// command starts the run; it used to die by the signal without a word.
#[test]
fn ctrl_c_before_the_first_game_ends_at_once_saying_so() {
    let dir = temp_dir("ctrl-c-start");
    let book = dir.join("book.epd");
    assert!(Command::new("mkfifo").arg(&book).status().unwrap().success());
    let out_dir = dir.join("gen");
    let child = datagen()
        .args(gen_args(&out_dir, 1, 2))
        .args(["--book".as_ref(), book.as_os_str()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let done = testing::interrupt_while_reading(child, &book);
    let stderr = text(&done.stderr);
    assert_eq!(done.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "datagen: interrupted before the first game; the same command starts (or resumes) {}",
            out_dir.display()
        )),
        "{stderr}"
    );
    assert!(!out_dir.join("games-0.bin").exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// `pack` exits 1 when games behind a damaged front are gone: a data file cut inside its
/// first game (the first chunk read is number 1), and a pack damaged at the front, which
/// reads as a damaged data file with no chunk found (its games are behind the damage, not
/// in the new pack). A header damaged without loss packs every game and exits 0.
#[test]
fn pack_of_a_file_damaged_at_the_front_exits_1_when_games_are_gone() {
    let dir = temp_dir("front-damage");
    let file = base_run().join("games-0.bin");
    let bytes = std::fs::read(&file).unwrap();
    let pack_of = |name: &str, content: &[u8]| {
        let input = dir.join(name);
        std::fs::write(&input, content).unwrap();
        let out = dir.join(format!("{name}.pack"));
        let o = datagen()
            .args([
                "pack".as_ref(),
                "--out".as_ref(),
                out.as_os_str(),
                input.as_os_str(),
            ])
            .output()
            .unwrap();
        (o.status.code(), text(&o.stderr), games_of_pack(&out))
    };
    let (code, err, games) = pack_of("cut.bin", &bytes[149..]);
    assert_eq!((code, games), (Some(1), 11), "{err}");
    assert!(err.contains("at least 1 game of"), "{err}");
    let mut header = bytes.clone();
    header[0] ^= 0xFF;
    let (code, err, games) = pack_of("header.bin", &header);
    assert_eq!((code, games), (Some(0), 12), "{err}");
    let whole = dir.join("whole.pack");
    assert!(run(&[
        "pack".as_ref(),
        "--out".as_ref(),
        whole.as_os_str(),
        file.as_os_str()
    ])
    .status
    .success());
    let packed = std::fs::read(&whole).unwrap();
    let (code, err, games) = pack_of("front.pack", &packed[13..]);
    assert_eq!((code, games), (Some(1), 0), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The games of the pack at `path` (0 when there is none).
fn games_of_pack(path: &Path) -> usize {
    let Ok(mut source) = records::source::DataSource::open(path) else {
        return 0;
    };
    let mut games = 0;
    while let Some(item) = source.next_item().unwrap() {
        if let records::source::SourceItem::Chunk { chunk, .. } = item {
            games += chunk.games.len();
        }
    }
    games
}
