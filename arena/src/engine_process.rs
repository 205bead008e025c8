//! One UCI engine process: start-up handshake, options, `isready` pings and `go` with a
//! deadline. Output is read on a thread into a channel so every wait has a timeout: an
//! engine that crashes, stalls or never answers becomes an [`EngineFault`], never a hung
//! runner.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How an engine is started and configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    pub cmd: String,
    pub name: String,
    pub args: Vec<String>,
    /// `option.Name=value` pairs, in order.
    pub options: Vec<(String, String)>,
}

/// What went wrong with an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFault {
    /// The process could not be started.
    Spawn(String),
    /// The process exited or closed its output.
    Crashed,
    /// No answer within the deadline (`what` names the awaited reply).
    Timeout(&'static str),
    /// An answer that is not UCI (e.g. `bestmove` without a move).
    Protocol(String),
}

impl std::fmt::Display for EngineFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineFault::Spawn(e) => write!(f, "could not start: {e}"),
            EngineFault::Crashed => write!(f, "crashed"),
            EngineFault::Timeout(what) => write!(f, "stalled (no {what})"),
            EngineFault::Protocol(line) => write!(f, "protocol error: {line}"),
        }
    }
}

/// The answer to one `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchReply {
    pub bestmove: String,
    /// Last reported score from the engine's side: `Cp(n)` or `Mate(n)`.
    pub score: Option<Score>,
    pub depth: Option<u32>,
    pub elapsed_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

impl Score {
    /// Centipawns with mates as large values (for adjudication).
    pub fn as_cp(self) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(m) if m > 0 => 100_000 - m,
            Score::Mate(m) => -100_000 - m,
        }
    }
}

pub struct EngineProcess {
    pub config: EngineConfig,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl std::fmt::Debug for EngineProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EngineProcess({})", self.config.name)
    }
}

/// Time allowed for start-up and `isready` answers.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

impl EngineProcess {
    /// Starts the engine and completes `uci` / options / `isready`.
    pub fn start(config: &EngineConfig) -> Result<EngineProcess, EngineFault> {
        let mut child = Command::new(&config.cmd)
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| EngineFault::Spawn(format!("{}: {e}", config.cmd)))?;
        let stdin = child.stdin.take().ok_or(EngineFault::Spawn("no stdin".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or(EngineFault::Spawn("no stdout".into()))?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut engine = EngineProcess {
            config: config.clone(),
            child,
            stdin,
            lines,
        };
        engine.send("uci")?;
        engine.wait_for("uciok", HANDSHAKE_TIMEOUT, "uciok")?;
        for (name, value) in &config.options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.ping()?;
        Ok(engine)
    }

    pub fn send(&mut self, line: &str) -> Result<(), EngineFault> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|_| EngineFault::Crashed)
    }

    /// Reads lines until one equals `token` (or starts with it followed by a space).
    fn wait_for(
        &mut self,
        token: &str,
        timeout: Duration,
        what: &'static str,
    ) -> Result<String, EngineFault> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if line == token || line.starts_with(&format!("{token} ")) {
                        return Ok(line);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(EngineFault::Timeout(what)),
                Err(RecvTimeoutError::Disconnected) => return Err(EngineFault::Crashed),
            }
        }
    }

    /// `isready` / `readyok`.
    pub fn ping(&mut self) -> Result<(), EngineFault> {
        self.send("isready")?;
        self.wait_for("readyok", HANDSHAKE_TIMEOUT, "readyok").map(|_| ())
    }

    pub fn new_game(&mut self) -> Result<(), EngineFault> {
        self.send("ucinewgame")?;
        self.ping()
    }

    /// Sends `position` and `go`, then waits up to `deadline` for `bestmove`.
    pub fn search(
        &mut self,
        position: &str,
        go: &str,
        deadline: Duration,
    ) -> Result<SearchReply, EngineFault> {
        // Drop anything left over from an earlier search.
        while self.lines.try_recv().is_ok() {}
        self.send(position)?;
        let start = Instant::now();
        self.send(go)?;
        let mut reply = SearchReply::default();
        loop {
            let left = deadline.saturating_sub(start.elapsed());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err(EngineFault::Timeout("bestmove")),
                Err(RecvTimeoutError::Disconnected) => return Err(EngineFault::Crashed),
            };
            let mut tokens = line.split_whitespace();
            match tokens.next() {
                Some("bestmove") => {
                    reply.elapsed_ms = start.elapsed().as_millis() as u64;
                    reply.bestmove = tokens
                        .next()
                        .ok_or_else(|| EngineFault::Protocol("bestmove without a move".into()))?
                        .to_string();
                    return Ok(reply);
                }
                Some("info") => parse_info(&line, &mut reply),
                _ => {}
            }
        }
    }

    /// Asks the engine to quit, and kills it if it does not within a second.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn parse_info(line: &str, reply: &mut SearchReply) {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    // Only lines of the principal variation (multipv 1 or none) count.
    if let Some(i) = tokens.iter().position(|&t| t == "multipv") {
        if tokens.get(i + 1) != Some(&"1") {
            return;
        }
    }
    let mut i = 1;
    while i < tokens.len() {
        match tokens[i] {
            "depth" => {
                reply.depth = tokens.get(i + 1).and_then(|d| d.parse().ok()).or(reply.depth);
                i += 2;
            }
            "score" => {
                let value = tokens.get(i + 2).and_then(|v| v.parse::<i32>().ok());
                match (tokens.get(i + 1), value) {
                    (Some(&"cp"), Some(v)) => reply.score = Some(Score::Cp(v)),
                    (Some(&"mate"), Some(v)) => reply.score = Some(Score::Mate(v)),
                    _ => {}
                }
                i += 3;
            }
            "pv" | "string" => break,
            _ => i += 1,
        }
    }
}
