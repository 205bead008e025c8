//! A driver for the `luft` binary over a pipe, shared by the UCI end-to-end, fault, fuzz
//! and strength tests: send lines, collect output lines with deadlines, and read `bestmove`
//! and `pv` lines. The engine searches with a fixed test net ([`TEST_NET`]), not the
//! embedded default, so that promoting a new default changes the bench signature and no
//! behaviour test.

#![allow(dead_code)] // each test file uses a different part

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

pub const SECOND: Duration = Duration::from_secs(1);

pub struct Engine {
    pub child: Child,
    stdin: ChildStdin,
    pub lines: Receiver<String>,
}

/// The net the behaviour tests search with: a committed net that stays in `nets/` (the
/// catalogue keeps every net), loaded through `EvalFile`.
pub const TEST_NET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../nets/gen21-128.nnue");

impl Engine {
    /// `luft` with [`TEST_NET`] loaded (its `info string` line consumed), ready for input.
    pub fn start() -> Engine {
        let mut engine = Engine::start_embedded();
        engine.send(&format!("setoption name EvalFile value {TEST_NET}"));
        let lines = engine.sync_within(10 * SECOND);
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string EvalFile") && l.contains("loaded")),
            "the test net did not load: {lines:?}"
        );
        engine
    }

    /// `luft` with its embedded default net, as a user starts it.
    pub fn start_embedded() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_luft"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("luft starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine { child, stdin, lines }
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("luft reads its input");
        self.stdin.flush().expect("luft reads its input");
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("luft reads its input");
        self.stdin.flush().expect("luft reads its input");
    }

    /// Lines up to and including the first that starts with `prefix`.
    pub fn until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no line starting with {prefix:?} within {timeout:?}; saw {seen:?}"),
            }
        }
    }

    /// Everything printed until `readyok` (sent `isready` first), within a second.
    pub fn sync(&mut self) -> Vec<String> {
        self.sync_within(SECOND)
    }

    /// Everything printed until `readyok` (sent `isready` first), within `timeout`.
    pub fn sync_within(&mut self, timeout: Duration) -> Vec<String> {
        self.send("isready");
        let mut lines = self.until("readyok", timeout);
        lines.pop();
        lines
    }

    /// The move of the next `bestmove` and the lines up to it.
    pub fn bestmove(&mut self, timeout: Duration) -> (String, Vec<String>) {
        let lines = self.until("bestmove", timeout);
        let best = bestmove_of(lines.last().expect("a bestmove line"));
        (best, lines)
    }

    pub fn fen(&mut self) -> String {
        self.send("d");
        let lines = self.until("Checkers:", 5 * SECOND);
        let fen = lines.iter().find(|l| l.starts_with("Fen: ")).expect("a Fen line");
        fen["Fen: ".len()..].to_string()
    }

    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    pub fn quit(mut self) {
        self.send("quit");
        let deadline = Instant::now() + 5 * SECOND;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success());
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("luft did not quit");
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move of a `bestmove` line.
pub fn bestmove_of(line: &str) -> String {
    line.split_whitespace().nth(1).unwrap_or("").to_string()
}

/// The first move of the `pv` of an `info` line that has one.
pub fn pv_first(line: &str) -> Option<String> {
    let mut tokens = line.split_whitespace();
    tokens.position(|t| t == "pv")?;
    tokens.next().map(str::to_string)
}

/// The first move of the last `multipv 1` principal variation among `lines`.
pub fn last_pv_first(lines: &[String]) -> Option<String> {
    lines
        .iter()
        .rev()
        .filter(|l| l.starts_with("info ") && l.contains(" multipv 1 "))
        .find_map(|l| pv_first(l))
}
