//! Stops of every kind, as users and machines cause them, and what arena leaves behind: a
//! terminal's Ctrl-C (SIGINT to the whole process group, engines included), SIGTERM, `kill
//! -9`, a full disk under the PGN, a state file that cannot be written, an engine stalled
//! when the interrupt comes, and an engine whose stray output could pass for an answer. The
//! rule each test asserts: the PGN, the saved state and the counts agree after any stop, a
//! game cut short is not a result, and a resumed match ends where an uninterrupted one ends.

#![allow(clippy::unwrap_used)]

mod common;

use common::{luft, run_arena, temp_dir, words, BOOK, FAULT};
use matchcore::state::SavedState;
use movegen::pgn::parse_pgn;
use std::io::BufRead;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The final pentanomial counts of a fastchess-style report.
fn penta_of(out: &str) -> [u64; 5] {
    let line = out
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with("Ptnml(0-2):"))
        .unwrap_or_else(|| panic!("no Ptnml line in {out}"));
    let inner = line.split('[').nth(1).unwrap().split(']').next().unwrap();
    let v: Vec<u64> = inner.split(',').map(|x| x.trim().parse().unwrap()).collect();
    [v[0], v[1], v[2], v[3], v[4]]
}

/// Each game of a PGN as (round, white, black, result, moves): what must agree with an
/// uninterrupted run, whatever the order the games were played in.
fn games_of(path: &Path) -> Vec<(String, String, String, String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut games: Vec<_> = parse_pgn(&text)
        .unwrap()
        .iter()
        .map(|g| {
            let tag = |k: &str| g.tag(k).unwrap_or_default().to_string();
            let moves = format!("{:?}", g.moves);
            (tag("Round"), tag("White"), tag("Black"), tag("Result"), moves)
        })
        .collect();
    games.sort();
    games
}

/// Starts arena in a process group of its own (as a shell starts a foreground job), reads
/// its output until `finished` more games have finished (or it ends), then sends `signal`
/// to the whole group, as a terminal does (or `-KILL` to arena alone), and waits for it.
/// Returns (exit code or -1, output).
fn run_and_stop(dir: &Path, args: &[String], finished: usize, signal: &str) -> (i32, String) {
    let mut child = Command::new(common::ARENA)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufReader::new(stdout).lines();
    let mut out = String::new();
    let mut seen = 0;
    let start = Instant::now();
    for line in lines.by_ref() {
        let line = line.unwrap();
        out.push_str(&line);
        out.push('\n');
        if line.starts_with("Finished game ") {
            seen += 1;
            if seen == finished {
                break;
            }
        }
        assert!(start.elapsed() < Duration::from_secs(240), "{out}");
    }
    let target = if signal == "-KILL" { pid } else { format!("-{pid}") };
    Command::new("kill")
        .args([signal, "--", &target])
        .status()
        .unwrap();
    for line in lines {
        out.push_str(&line.unwrap());
        out.push('\n');
    }
    let code = child.wait().unwrap().code().unwrap_or(-1);
    (code, out)
}

#[test]
fn stops_of_every_kind_leave_pgn_and_state_agreeing_and_resume_to_an_uninterrupted_result() {
    let luft = luft();
    let line = |pgn: &str| {
        words(&format!(
            "-engine cmd={l} name=a option.Hash=4 -engine cmd={l} name=b option.Hash=4 -each nodes=1500 \
             -openings file={BOOK} -rounds 12 -maxmoves 40 -pgnout file={pgn} -epdout file=all.epd -config outname=state.json",
            l = luft.display()
        ))
    };
    // The uninterrupted run.
    let whole = temp_dir("whole");
    let (code, out, err) = run_arena(Some(&whole), &line("all.pgn"));
    assert_eq!(code, 0, "{out}{err}");
    let whole_penta = penta_of(&out);
    let whole_games = games_of(&whole.join("all.pgn"));
    assert_eq!(whole_games.len(), 24);

    // The same match stopped by a terminal's Ctrl-C, SIGTERM and kill -9, resumed each time.
    let dir = temp_dir("stopped");
    let resume = words("-config file=state.json");
    let mut first = true;
    for (signal, after) in [("-INT", 3), ("-TERM", 4), ("-KILL", 5), ("-INT", 2)] {
        let args = if first { line("all.pgn") } else { resume.clone() };
        first = false;
        let (code, out) = run_and_stop(&dir, &args, after, signal);
        if signal != "-KILL" {
            assert_eq!(code, 2, "{signal}: {out}");
            assert!(
                out.contains("Tournament was interrupted. To resume it, run: arena -config file=state.json"),
                "{signal}: {out}"
            );
        }
        // After every stop: the PGN holds exactly the games the state counts (a kill -9
        // may leave one more game written than saved; the resume cuts it off).
        let state = SavedState::from_json(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap();
        let counted: u64 = state.pairs.iter().map(|p| p.2.games()).sum::<u64>() + state.pending.len() as u64;
        let pgn_len = std::fs::metadata(dir.join("all.pgn")).unwrap().len();
        let saved_len = state.pgn_bytes.unwrap();
        assert!(pgn_len >= saved_len, "{signal}");
        let text = std::fs::read_to_string(dir.join("all.pgn")).unwrap();
        let in_saved = parse_pgn(&text[..saved_len as usize]).unwrap().len() as u64;
        assert_eq!(
            in_saved, counted,
            "{signal}: the PGN as saved holds the counted games"
        );
        // The EPD output likewise: one line a counted game within the saved length.
        let epd = std::fs::read_to_string(dir.join("all.epd")).unwrap();
        let epd_saved = state.epd_bytes.unwrap() as usize;
        assert!(epd.len() >= epd_saved, "{signal}");
        assert_eq!(
            epd[..epd_saved].lines().count() as u64,
            counted,
            "{signal}: the EPD as saved"
        );
        if signal != "-KILL" {
            assert_eq!(epd.len(), epd_saved, "{signal}");
            assert_eq!(pgn_len, saved_len, "{signal}");
            assert!(
                !text.contains("Game interrupted") && !text.contains("disconnects"),
                "{signal}"
            );
        }
    }
    let (code, out, err) = run_arena(Some(&dir), &resume);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(penta_of(&out), whole_penta, "{out}");
    assert_eq!(games_of(&dir.join("all.pgn")), whole_games);
    // The final positions of the EPD output: those of the uninterrupted run, each once.
    let sorted_lines = |p: &Path| {
        let mut l: Vec<String> = std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        l.sort();
        l
    };
    assert_eq!(
        sorted_lines(&dir.join("all.epd")),
        sorted_lines(&whole.join("all.epd"))
    );
}

#[test]
fn an_interrupt_stops_at_once_while_an_engine_stalls_and_is_not_a_result() {
    let dir = temp_dir("stall");
    let line = words(&format!(
        "-engine cmd={FAULT} name=stalls args=stall -engine cmd={FAULT} name=ok args=ok -each tc=20+0.2 \
         -rounds 1 -pgnout file=s.pgn -config outname=state.json"
    ));
    let mut child = Command::new(common::ARENA)
        .args(&line)
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut out = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        out.push_str(&line);
        out.push('\n');
        if line.starts_with("Started game 1 ") {
            break;
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    Command::new("kill")
        .args(["-INT", "--", &format!("-{pid}")])
        .status()
        .unwrap();
    for line in lines {
        out.push_str(&line.unwrap());
        out.push('\n');
    }
    let code = child.wait().unwrap().code();
    let took = sent.elapsed();
    assert_eq!(code, Some(2), "{out}");
    assert!(took < Duration::from_secs(3), "stopped after {took:?}: {out}");
    let state = SavedState::from_json(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap();
    assert!(state.done.is_empty() && state.pending.is_empty(), "{state:?}");
    assert_eq!(std::fs::metadata(dir.join("s.pgn")).unwrap().len(), 0);
}

#[test]
fn a_game_that_cannot_be_written_is_not_counted_and_the_error_says_what_can_be_resumed() {
    let dir = temp_dir("full");
    let (code, out, err) = run_arena(
        Some(&dir),
        &words(&format!(
            "-engine cmd={FAULT} name=a -engine cmd={FAULT} name=b -each tc=inf nodes=1 -rounds 2 \
             -maxmoves 3 -pgnout file=/dev/full -config outname=state.json"
        )),
    );
    assert_eq!(code, 3, "{out}{err}");
    assert!(err.contains("cannot write PGN /dev/full: "), "{err}");
    assert!(err.contains("(game 1 is not counted)"), "{err}");
    assert!(
        err.contains(
            "To resume it, run: arena -config file=state.json (the saved state counts 0 finished games"
        ),
        "{err}"
    );
    let state = SavedState::from_json(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap();
    assert!(state.done.is_empty() && state.pending.is_empty(), "{state:?}");
    // A state file that cannot be written stops the match before its first game, and no
    // resume is promised.
    let (code, out, err) = run_arena(
        Some(&dir),
        &words(&format!(
            "-engine cmd={FAULT} name=a -engine cmd={FAULT} name=b -each tc=inf nodes=1 -rounds 2 \
             -maxmoves 3 -config outname=no/such/dir/state.json"
        )),
    );
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        err.contains(
            "cannot save the tournament state: cannot write no/such/dir/state.json: the directory \
             no/such/dir does not exist"
        ),
        "{err}"
    );
    assert!(
        err.contains("No state was saved: nothing can be resumed."),
        "{err}"
    );
    assert!(
        !out.contains("Started game") && !out.contains("To resume"),
        "{out}"
    );
}

#[test]
fn a_stray_bestmove_is_a_protocol_fault_not_the_next_answer() {
    let dir = temp_dir("stray");
    let mut args = words(&format!("-engine cmd={FAULT} name=double"));
    args.push("args=double --after 2".into());
    args.extend(words(&format!(
        "-engine cmd={FAULT} name=ok -each tc=inf nodes=1 -rounds 1 -games 1 -maxmoves 10 -recover -pgnout file=d.pgn"
    )));
    let (code, out, err) = run_arena(Some(&dir), &args);
    assert_eq!(code, 0, "{out}{err}");
    let pgn = std::fs::read_to_string(dir.join("d.pgn")).unwrap();
    let games = parse_pgn(&pgn).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].tag("Result"), Some("0-1"), "{pgn}");
    assert!(pgn.contains("a stray bestmove before go"), "{pgn}");
}

/// A state written by arena at 8257eee (`tests/data/state-8257eee.json`, with the PGN it
/// counts, `state-8257eee.pgn`; see `tests/data/README.md`): a 6-game match of the synthetic
/// engine stopped by Ctrl-C after 3 games, one pair done and the first game of the next
/// pending. Today's arena resumes it: it plays games 4 to 6 only, as an uninterrupted run of
/// the same command line plays them, keeps the saved games in the PGN byte for byte, and
/// counts the saved and the new games together.
#[test]
fn a_state_written_by_an_older_arena_resumes() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let old_pgn = std::fs::read_to_string(data.join("state-8257eee.pgn")).unwrap();
    // The state names its engine, book and PGN relative to where arena runs.
    let setup = |name: &str| {
        let dir = temp_dir(name);
        std::fs::copy(FAULT, dir.join("arena-fault-engine")).unwrap();
        std::fs::copy(BOOK, dir.join("book.epd")).unwrap();
        dir
    };
    let dir = setup("old-state");
    std::fs::copy(data.join("state-8257eee.json"), dir.join("state.json")).unwrap();
    std::fs::write(dir.join("games.pgn"), &old_pgn).unwrap();
    let state = dir.join("state.json").display().to_string();
    let saved = matchcore::state::load(&state).unwrap();
    assert_eq!(
        (saved.done.as_slice(), saved.pending.as_slice()),
        (&[(0, 0)][..], &[(2, 0, 1, 2)][..])
    );
    assert_eq!(saved.pgn_bytes, Some(old_pgn.len() as u64));
    let tally = &saved.pairs[0].2;
    assert_eq!(
        (tally.tri, tally.penta, tally.wl),
        ([0, 1, 1], [0, 0, 0, 1, 0], 0)
    );

    let (code, out, err) = run_arena(Some(&dir), &["-config", "file=state.json"]);
    assert_eq!(code, 0, "{out}{err}");
    let started: Vec<&str> = out.lines().filter(|l| l.starts_with("Started game")).collect();
    assert_eq!(started.len(), 3, "{out}");
    for (line, n) in started.iter().zip(4..) {
        assert!(line.starts_with(&format!("Started game {n} of 6 ")), "{out}");
    }
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert!(pgn.starts_with(&old_pgn), "the saved games are kept as they were");
    let games = parse_pgn(&pgn).unwrap();
    assert_eq!(games.len(), 6);

    // The games played on resume are those of an uninterrupted run (the synthetic engine's
    // results are a function of the options and the position alone).
    let fresh = setup("old-state-fresh");
    let (code, out_fresh, err) = run_arena(Some(&fresh), &saved.args);
    assert_eq!(code, 0, "{out_fresh}{err}");
    let text = std::fs::read_to_string(fresh.join("games.pgn")).unwrap();
    let played = |games: &[movegen::pgn::PgnGame]| -> Vec<(String, String, String)> {
        games
            .iter()
            .map(|g| {
                let tag = |k: &str| g.tag(k).unwrap_or_default().to_string();
                (tag("White"), tag("Result"), format!("{:?}", g.moves))
            })
            .collect()
    };
    assert_eq!(played(&games[3..]), played(&parse_pgn(&text).unwrap()[3..]));

    // The counts are those of the six games in the PGN, from the first engine's side.
    let halves: Vec<u8> = games
        .iter()
        .map(|g| {
            let white = match g.tag("Result") {
                Some("1-0") => 2,
                Some("0-1") => 0,
                _ => 1,
            };
            if g.tag("White") == Some("first") {
                white
            } else {
                2 - white
            }
        })
        .collect();
    let mut expected = matchcore::tally::Tally::default();
    for pair in halves.chunks(2) {
        expected.add_game(pair[0]);
        expected.add_game(pair[1]);
        expected.add_pair(pair[0], pair[1]);
    }
    let resumed = matchcore::state::load(&state).unwrap();
    assert_eq!(
        (resumed.done.as_slice(), resumed.pending.len()),
        (&[(0, 2)][..], 0)
    );
    assert_eq!(resumed.pairs[0].2, expected);
    assert_eq!(penta_of(&out), expected.penta, "{out}");
    assert!(
        out.contains(&format!(
            "Games: 6, Wins: {}, Losses: {}, Draws: {}",
            expected.tri[2], expected.tri[0], expected.tri[1]
        )),
        "{out}"
    );
}
