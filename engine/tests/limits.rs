//! The limits of the machine: under an address-space limit (`ulimit -v 310000`: a 256 MiB
//! table and the search threads' tables on whole huge pages), `Hash 256` with `Threads 2`
//! still answers a legal move in the start position, `Threads 8` does not abort (refused
//! with `info string error` and the old count kept, or taken), and search threads that
//! cannot start leave the search to those that did, said once; a closed stdout ends luft
//! quietly, in UCI mode and in its subcommands.

#![allow(clippy::unwrap_used)]

use movegen::Board;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// luft under `ulimit -v KIB`, fed lines one by one.
struct Limited {
    child: std::process::Child,
    lines: Receiver<String>,
}

impl Limited {
    fn start(kib: u64) -> Limited {
        let mut child = Command::new("sh")
            .args([
                "-c",
                &format!("ulimit -v {kib} && exec \"$0\""),
                env!("CARGO_BIN_EXE_luft"),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Limited { child, lines }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The lines up to the answer to `isready`, which follows the last search's answer.
    fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no readyok; saw {seen:?}"));
            if line == "readyok" {
                return seen;
            }
            seen.push(line);
        }
    }

    /// Searches the start position to depth 8 and returns the lines, checking the answer
    /// is one legal move.
    fn search(&mut self) -> Vec<String> {
        self.send("position startpos");
        self.send("go depth 8");
        // `go depth` ends by itself; `isready` is answered once it has (the answer first).
        std::thread::sleep(Duration::from_millis(50));
        let mut lines = self.sync();
        while !lines.iter().any(|l| l.starts_with("bestmove")) {
            lines.extend(self.sync());
        }
        let best: Vec<&String> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
        assert_eq!(best.len(), 1, "{lines:?}");
        let mv = best[0].split_whitespace().nth(1).unwrap();
        assert_ne!(mv, "0000", "{lines:?}");
        assert!(
            Board::startpos().parse_uci(mv).is_ok(),
            "{mv} is not legal: {lines:?}"
        );
        lines
    }

    fn quit(mut self) -> String {
        self.send("quit");
        let out = self.child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{:?}: {stderr}", out.status);
        stderr
    }
}

/// What a `setoption` printed: nothing, or a refusal that keeps the old value.
fn accepted_or_kept(lines: &[String], what: &str) -> bool {
    match lines {
        [] => true,
        [one] => one.starts_with("info string error: ") && one.contains(what) && one.contains("keeping"),
        _ => false,
    }
}

#[test]
fn hash_256_and_two_threads_under_an_address_space_limit_answer_a_legal_move() {
    let mut e = Limited::start(310_000);
    e.send("setoption name Hash value 256");
    e.send("setoption name Threads value 2");
    let set = e.sync();
    assert!(accepted_or_kept(&set, ""), "{set:?}");
    for _ in 0..2 {
        let lines = e.search();
        assert!(lines.iter().any(|l| l.starts_with("info depth 8 ")), "{lines:?}");
    }
    let stderr = e.quit();
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn many_threads_under_an_address_space_limit_never_abort_and_a_shortfall_is_said_once() {
    for threads in [3, 8, 256] {
        let mut e = Limited::start(310_000);
        e.send("setoption name Hash value 256");
        e.send(&format!("setoption name Threads value {threads}"));
        let set = e.sync();
        assert!(
            accepted_or_kept(
                &set,
                &format!("cannot allocate the tables of {threads} search threads")
            ),
            "{threads}: {set:?}"
        );
        let mut notes = 0;
        for _ in 0..3 {
            let lines = e.search();
            notes += lines
                .iter()
                .filter(|l| l.starts_with("info string") && l.contains("could not be started"))
                .count();
        }
        assert!(
            notes <= 1,
            "{threads}: a shortfall is said once, not {notes} times"
        );
        let stderr = e.quit();
        assert!(stderr.is_empty(), "{threads}: {stderr}");
    }
    // With room, 2 threads are taken without a word.
    let mut e = Limited::start(u64::from(u32::MAX));
    e.send("setoption name Threads value 2");
    assert_eq!(e.sync(), Vec::<String>::new());
    e.search();
    e.quit();
}

#[test]
fn a_closed_stdout_ends_luft_quietly() {
    let cases: [(&[&str], &str); 3] = [
        (&["bench", "2"], ""),
        (&["perft", "3"], ""),
        (&[], "uci\nisready\nposition startpos\ngo depth 3\n"),
    ];
    for (args, input) in cases {
        let mut child = Command::new(env!("CARGO_BIN_EXE_luft"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(output::closed_pipe().unwrap())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // luft may be gone before it reads all of this.
        let _ = stdin.write_all(input.as_bytes());
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert_eq!(output::closed_stdout_fault(&out), None, "{args:?}");
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
