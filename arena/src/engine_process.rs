//! One UCI engine process: start-up handshake, options, `isready` pings and `go` with a
//! deadline. Output is read on a thread into a bounded channel so every wait has a
//! deadline that the clock enforces, however much the engine prints: an engine that
//! crashes, stalls, never answers or floods its output becomes an [`EngineFault`], never a
//! hung or ever-growing runner. Lines are cut at [`MAX_LINE_BYTES`], at most
//! [`LINE_QUEUE`] wait unread (the reader then waits, and so does the engine's write), and
//! more than [`MAX_LINES_PER_SECOND`] lines in a second is a flood. Options the engine does
//! not declare, values outside what it declares, and settings it answers with an error are
//! reported on stderr, naming the engine and the option.
//!
//! An engine may run in its own working directory (`dir=`; a relative `cmd=` with a path
//! is taken from there, as fastchess does), be pinned to CPUs (`-use-affinity`, Linux), and
//! wait as long as `-startup-ms`, `-ucinewgame-ms` and `-ping-ms` allow. With `-log ...
//! engine=true` every line each way goes to the log. Each search reply carries what the
//! last `info` line of the principal variation said (score, depth, seldepth, nodes, nps,
//! hashfull, tbhits, time, pv) and, per `match_line` pattern, the last output line that
//! matched it.

use crate::regex::Regex;
use crossbeam_channel::{bounded, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Longest output line kept, in bytes; the rest of a longer line is dropped.
pub const MAX_LINE_BYTES: usize = 16 * 1024;
/// Lines read from an engine but not yet handled; when full, the reader thread waits.
pub const LINE_QUEUE: usize = 256;
/// More lines than this within one second (a line of [`MAX_LINE_BYTES`] or more counts
/// once per [`MAX_LINE_BYTES`]) makes the engine faulty: it floods its output.
pub const MAX_LINES_PER_SECOND: u64 = 100_000;

/// How an engine is started and configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// The program to run (`cmd=`), a path or a name on `PATH`.
    pub cmd: String,
    /// The engine's name in the tournament (`name=`; default: the program's file name).
    pub name: String,
    /// Command-line arguments for it (`args=`, split at whitespace; no quoting).
    pub args: Vec<String>,
    /// `option.Name=value` pairs, in order.
    pub options: Vec<(String, String)>,
    /// Working directory (`dir=`).
    pub dir: Option<String>,
}

/// How long an engine may take to answer, in milliseconds (fastchess's `-startup-ms`,
/// `-ucinewgame-ms`, `-ping-ms`), and where its process runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessSetup {
    /// `uci` to `uciok`.
    pub startup_ms: u64,
    /// `ucinewgame` and the `isready` after it.
    pub ucinewgame_ms: u64,
    /// Every other `isready`.
    pub ping_ms: u64,
    /// CPUs the process is pinned to (empty: no pinning).
    pub cpus: Vec<usize>,
    /// The worker's name in the log.
    pub worker: String,
}

impl Default for ProcessSetup {
    fn default() -> Self {
        ProcessSetup {
            startup_ms: 10_000,
            ucinewgame_ms: 60_000,
            ping_ms: 60_000,
            cpus: Vec::new(),
            worker: "main".to_string(),
        }
    }
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
    /// More than [`MAX_LINES_PER_SECOND`] lines in a second (`what` names the awaited
    /// reply).
    Flood(&'static str),
    /// arena itself was interrupted (Ctrl-C, SIGTERM) while waiting: not the engine's fault,
    /// and the game is not a result.
    Interrupted,
    /// The engine declares the option but refused the value set: the games would be played
    /// with some other value, so nothing is played.
    OptionRefused(Box<OptionRefusal>),
}

/// An option value an engine refused: what [`EngineFault::OptionRefused`] reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionRefusal {
    /// The option's name, as configured.
    pub option: String,
    /// The value refused.
    pub value: String,
    /// The engine's answer.
    pub line: String,
}

impl std::fmt::Display for EngineFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineFault::Spawn(e) => write!(f, "could not start: {e}"),
            EngineFault::Crashed => write!(f, "crashed"),
            EngineFault::Timeout(what) => write!(f, "stalled (no {what})"),
            EngineFault::Protocol(line) => write!(f, "protocol error: {line}"),
            EngineFault::Flood(what) => write!(
                f,
                "floods its output (more than {MAX_LINES_PER_SECOND} lines a second while awaiting {what})"
            ),
            EngineFault::Interrupted => write!(f, "interrupted (arena was stopped)"),
            EngineFault::OptionRefused(r) => write!(
                f,
                "refused option.{}={}, which it declares (it answered {:?}); the games would be played with \
                 another value",
                r.option, r.value, r.line
            ),
        }
    }
}

/// The answer to one `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchReply {
    /// The move of the `bestmove` line, as the engine wrote it (UCI notation).
    pub bestmove: String,
    /// Last reported score from the engine's side: `Cp(n)` or `Mate(n)`.
    pub score: Option<Score>,
    /// Last reported `depth`, in plies.
    pub depth: Option<u32>,
    /// Last reported `seldepth`, in plies.
    pub seldepth: Option<u32>,
    /// Last reported `nodes`.
    pub nodes: Option<u64>,
    /// Last reported `nps` (nodes per second).
    pub nps: Option<u64>,
    /// Last reported `hashfull`, in permille.
    pub hashfull: Option<u32>,
    /// Last reported `tbhits`.
    pub tbhits: Option<u64>,
    /// The `time` the engine reported, in milliseconds.
    pub time_ms: Option<u64>,
    /// The principal variation, in UCI moves.
    pub pv: Vec<String>,
    /// Per `match_line` pattern, the last line that matched it.
    pub matched_lines: Vec<String>,
    /// Wall time from `go` to `bestmove` as arena measured it, in milliseconds.
    pub elapsed_ms: u64,
}

/// A UCI score, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (`score cp N`).
    Cp(i32),
    /// Moves to mate (`score mate N`): positive when the engine mates, negative when it is
    /// mated.
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

/// What the reader thread hands over.
#[derive(Debug)]
enum Output {
    Line(String),
    /// The engine exceeded [`MAX_LINES_PER_SECOND`]; the reader has stopped.
    Flood,
}

/// Counts lines in one-second windows.
struct LineRate {
    window_start: Instant,
    count: u64,
    limit: u64,
}

impl LineRate {
    fn new(limit: u64) -> Self {
        LineRate {
            window_start: Instant::now(),
            count: 0,
            limit,
        }
    }

    /// Adds `lines`; false once the current second holds more than the limit.
    fn allow(&mut self, lines: u64) -> bool {
        if lines == 0 {
            return true;
        }
        let now = Instant::now();
        if now.duration_since(self.window_start) >= Duration::from_secs(1) {
            self.window_start = now;
            self.count = 0;
        }
        self.count += lines;
        self.count <= self.limit
    }
}

/// The reader thread: splits `out` into lines of at most [`MAX_LINE_BYTES`] and sends them
/// until end of file, a closed channel, or a flood (more than `per_second` lines in a
/// second).
fn read_lines(out: impl Read, tx: &Sender<Output>, per_second: u64) {
    let mut reader = BufReader::with_capacity(64 * 1024, out);
    let mut line: Vec<u8> = Vec::with_capacity(256);
    // Bytes of the current line beyond MAX_LINE_BYTES not yet counted for the rate.
    let mut dropped = 0usize;
    let mut rate = LineRate::new(per_second);
    loop {
        let (used, complete) = match reader.fill_buf() {
            Ok([]) => break,
            Ok(buf) => {
                let end = buf.iter().position(|&b| b == b'\n');
                let chunk = &buf[..end.unwrap_or(buf.len())];
                let keep = chunk.len().min(MAX_LINE_BYTES - line.len());
                line.extend_from_slice(&chunk[..keep]);
                dropped += chunk.len() - keep;
                (end.map_or(buf.len(), |e| e + 1), end.is_some())
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        reader.consume(used);
        let long_pieces = dropped / MAX_LINE_BYTES;
        dropped %= MAX_LINE_BYTES;
        if !rate.allow(long_pieces as u64 + u64::from(complete)) {
            let _ = tx.send(Output::Flood);
            return;
        }
        if complete {
            let text = String::from_utf8_lossy(&line).trim_end().to_string();
            line.clear();
            dropped = 0;
            if tx.send(Output::Line(text)).is_err() {
                return;
            }
        }
    }
    if !line.is_empty() {
        let _ = tx.send(Output::Line(
            String::from_utf8_lossy(&line).trim_end().to_string(),
        ));
    }
}

/// Starts the reader thread on `out`; its lines come through a channel of [`LINE_QUEUE`].
fn spawn_reader(out: impl Read + Send + 'static, per_second: u64) -> Receiver<Output> {
    let (tx, rx) = bounded(LINE_QUEUE);
    std::thread::spawn(move || read_lines(out, &tx, per_second));
    rx
}

/// An option as the engine declares it after `uci`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeclaredOption {
    /// The option's name, as declared (matched case-insensitively).
    pub name: String,
    /// `spin`, `check`, `combo`, `button`, `string`.
    pub kind: String,
    /// The smallest value of a `spin` option.
    pub min: Option<i64>,
    /// The largest value of a `spin` option.
    pub max: Option<i64>,
    /// The `var` values of a combo.
    pub vars: Vec<String>,
    /// The `default` value, if declared.
    pub default: Option<String>,
}

impl DeclaredOption {
    /// Reads `option name <Name> type <kind> [default X] [min A] [max B] [var V]...`.
    pub fn parse(line: &str) -> Option<DeclaredOption> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.first() != Some(&"option") || tokens.get(1) != Some(&"name") {
            return None;
        }
        let keywords = ["type", "default", "min", "max", "var"];
        let type_at = tokens.iter().position(|&t| t == "type")?;
        let name = tokens.get(2..type_at)?.join(" ");
        if name.is_empty() {
            return None;
        }
        let mut option = DeclaredOption {
            name,
            kind: tokens.get(type_at + 1)?.to_string(),
            ..DeclaredOption::default()
        };
        let mut i = type_at + 2;
        while i < tokens.len() {
            let key = tokens[i];
            let end = tokens[i + 1..]
                .iter()
                .position(|t| keywords.contains(t))
                .map_or(tokens.len(), |p| i + 1 + p);
            let value = tokens[i + 1..end].join(" ");
            match key {
                "min" => option.min = value.parse().ok(),
                "max" => option.max = value.parse().ok(),
                "var" => option.vars.push(value),
                "default" => option.default = Some(value),
                _ => {}
            }
            i = end;
        }
        Some(option)
    }

    /// Why `value` does not fit the declaration, if it does not.
    pub fn check(&self, value: &str) -> Option<String> {
        match self.kind.as_str() {
            "spin" => match value.trim().parse::<i64>() {
                Err(_) => Some("is not a whole number".to_string()),
                Ok(v) if self.min.is_some_and(|m| v < m) || self.max.is_some_and(|m| v > m) => {
                    let bound = |b: Option<i64>| b.map_or("?".to_string(), |b| b.to_string());
                    Some(format!(
                        "is outside the declared range {}..{}",
                        bound(self.min),
                        bound(self.max)
                    ))
                }
                Ok(_) => None,
            },
            "check" if !matches!(value, "true" | "false") => Some("is not true or false".to_string()),
            "combo" if !self.vars.iter().any(|v| v.eq_ignore_ascii_case(value)) => {
                Some(format!("is not one of {}", self.vars.join(", ")))
            }
            _ => None,
        }
    }
}

/// Whether an engine line answers a `setoption` with a refusal (`info string error: ...`,
/// Stockfish's `No such option: X`, and the like).
pub fn is_refusal(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    let text = match line.strip_prefix("info string ") {
        Some(text) => text,
        None if matches!(
            first,
            "id" | "option" | "info" | "bestmove" | "readyok" | "uciok" | "copyprotection" | "registration"
        ) =>
        {
            return false
        }
        None => line,
    };
    // The message's first words say it, or an "error:" inside it does.
    let text = text.trim().to_ascii_lowercase();
    [
        "error",
        "no such option",
        "unknown option",
        "invalid",
        "illegal",
        "bad value",
        "unsupported",
        "not supported",
    ]
    .iter()
    .any(|start| text.starts_with(start))
        || text.contains("error:")
}

/// Prints a warning on stderr once per process, however many workers or restarts meet it.
pub fn warn_once(message: String) {
    static SEEN: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    let seen = SEEN.get_or_init(|| Mutex::new(HashSet::new()));
    let first = seen.lock().map_or(true, |mut s| s.insert(message.clone()));
    if first {
        crate::log::warn(&message);
    }
}

/// A running UCI engine: its process, pipes and a reader thread that turns its output into
/// lines with deadlines, so that a silent, flooding or crashing engine is a fault, never a hang.
pub struct EngineProcess {
    /// How it was started and what it is called.
    pub config: EngineConfig,
    /// `id name` and `id author` from the handshake.
    pub uci_name: Option<String>,
    /// The `id author` of the handshake.
    pub uci_author: Option<String>,
    /// The options the engine declared.
    pub declared: Vec<DeclaredOption>,
    setup: ProcessSetup,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Output>,
}

impl std::fmt::Debug for EngineProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EngineProcess({})", self.config.name)
    }
}

/// The program to run for `config`: a relative command with a path is taken from `dir`.
fn program(config: &EngineConfig) -> std::path::PathBuf {
    let cmd = std::path::Path::new(&config.cmd);
    match &config.dir {
        Some(dir) if cmd.is_relative() && config.cmd.contains(std::path::MAIN_SEPARATOR) => {
            let dir = std::path::Path::new(dir);
            let dir = if dir.is_relative() {
                std::env::current_dir()
                    .map(|d| d.join(dir))
                    .unwrap_or_else(|_| dir.to_path_buf())
            } else {
                dir.to_path_buf()
            };
            dir.join(cmd)
        }
        _ => cmd.to_path_buf(),
    }
}

/// Pins the process about to be started to `cpus` (Linux; elsewhere nothing happens and the
/// command line refuses `-use-affinity`).
#[cfg(target_os = "linux")]
fn pin(command: &mut Command, cpus: &[usize]) {
    use std::os::unix::process::CommandExt;
    if cpus.is_empty() {
        return;
    }
    // SAFETY: an all-zero cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        if cpu < libc::CPU_SETSIZE as usize {
            // SAFETY: CPU_SET only writes inside the set for cpu < CPU_SETSIZE, checked above.
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
    }
    // SAFETY: sched_setaffinity is async-signal-safe and touches only the child; the set
    // is copied into the closure.
    unsafe {
        command.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn pin(_command: &mut Command, _cpus: &[usize]) {}

/// How often a search's wait checks whether arena was interrupted.
const STOP_POLL: Duration = Duration::from_millis(20);

/// Whether an output line is a `bestmove`.
fn is_bestmove(line: &str) -> bool {
    line.split_whitespace().next() == Some("bestmove")
}

/// At most this many `option` declarations are kept from one engine.
const MAX_DECLARED_OPTIONS: usize = 4096;

impl EngineProcess {
    /// Starts the engine and completes `uci` / options / `isready`. Each option is
    /// followed by an `isready`, so that a refusal is pinned on the option that caused it.
    pub fn start(config: &EngineConfig) -> Result<EngineProcess, EngineFault> {
        Self::start_with(config, &ProcessSetup::default())
    }

    /// [`EngineProcess::start`] with the given time-outs, CPUs and worker name.
    pub fn start_with(config: &EngineConfig, setup: &ProcessSetup) -> Result<EngineProcess, EngineFault> {
        let mut command = Command::new(program(config));
        command
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &config.dir {
            command.current_dir(dir);
        }
        // Each engine in a process group of its own: a terminal's Ctrl-C (SIGINT to the
        // whole foreground group) reaches arena alone, which stops the engines itself; an
        // engine killed by the user's interrupt would otherwise lose its game as a
        // disconnect.
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        pin(&mut command, &setup.cpus);
        let mut child = command.spawn().map_err(|e| {
            let place = config
                .dir
                .as_ref()
                .map_or(String::new(), |d| format!(" (in {d})"));
            EngineFault::Spawn(format!("{}{place}: {e}", config.cmd))
        })?;
        let stdin = child.stdin.take().ok_or(EngineFault::Spawn("no stdin".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or(EngineFault::Spawn("no stdout".into()))?;
        let lines = spawn_reader(stdout, MAX_LINES_PER_SECOND);
        let mut engine = EngineProcess {
            config: config.clone(),
            uci_name: None,
            uci_author: None,
            declared: Vec::new(),
            setup: setup.clone(),
            child,
            stdin,
            lines,
        };
        engine.send("uci")?;
        let deadline = Instant::now() + Duration::from_millis(setup.startup_ms);
        let mut declared = Vec::new();
        loop {
            let line = engine.next_line(deadline, "uciok")?;
            if line == "uciok" || line.starts_with("uciok ") {
                break;
            }
            if let Some(name) = line.strip_prefix("id name ") {
                engine.uci_name = Some(name.trim().to_string());
            } else if let Some(author) = line.strip_prefix("id author ") {
                engine.uci_author = Some(author.trim().to_string());
            } else if declared.len() < MAX_DECLARED_OPTIONS {
                declared.extend(DeclaredOption::parse(&line));
            }
        }
        let name = &config.name;
        for (option, value) in &config.options {
            match declared.iter().find(|d| d.name.eq_ignore_ascii_case(option)) {
                None => warn_once(format!(
                    "engine {name} does not declare option {option:?}: option.{option}={value} is sent anyway and may have no effect"
                )),
                Some(d) => {
                    if let Some(why) = d.check(value) {
                        warn_once(format!("engine {name}: option.{option}={value} {why}"));
                    }
                }
            }
        }
        engine.declared = declared;
        for (option, value) in &config.options {
            engine.send_option(option, value)?;
        }
        engine.ping()?;
        Ok(engine)
    }

    /// Sends `setoption name OPTION value VALUE` and waits for `readyok`. A refusal (see
    /// [`is_refusal`]) of an option the engine declares is [`EngineFault::OptionRefused`]: a
    /// match must not go on with a value other than the one asked for (a net file the engine
    /// could not load, a size it could not allocate). A refusal of an option it does not
    /// declare is a warning on stderr, once per message, as fastchess reports it.
    fn send_option(&mut self, option: &str, value: &str) -> Result<(), EngineFault> {
        self.send(&format!("setoption name {option} value {value}"))?;
        let refusals = self.ping_collecting(is_refusal)?;
        let declared = self.declared.iter().any(|d| d.name.eq_ignore_ascii_case(option));
        if let (true, Some(line)) = (declared, refusals.first()) {
            return Err(EngineFault::OptionRefused(Box::new(OptionRefusal {
                option: option.to_string(),
                value: value.to_string(),
                line: line.clone(),
            })));
        }
        for refusal in refusals {
            warn_once(format!(
                "engine {} refused option.{option}={value}: {refusal}",
                self.config.name
            ));
        }
        Ok(())
    }

    /// The value option `name` has: the one configured, else the declared default.
    pub fn option_value(&self, name: &str) -> Option<String> {
        self.config
            .options
            .iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .or_else(|| {
                self.declared
                    .iter()
                    .find(|d| d.name.eq_ignore_ascii_case(name))
                    .and_then(|d| d.default.clone())
            })
    }

    /// Sets an option of the running engine (`setoption name NAME value VALUE`, then
    /// `isready`), as start-up does, and [`EngineProcess::option_value`] gives the new value
    /// from now on. `arena spsa` sets the tuned values this way between games. Errors: those
    /// of [`EngineProcess::send`] and the wait for `readyok`, and
    /// [`EngineFault::OptionRefused`] when the engine declares the option and refuses the
    /// value (a refused undeclared option is a warning on stderr).
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineFault> {
        self.send_option(name, value)?;
        match self
            .config
            .options
            .iter_mut()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
        {
            Some(slot) => slot.1 = value.to_string(),
            None => self.config.options.push((name.to_string(), value.to_string())),
        }
        Ok(())
    }

    /// Writes `line` (and a newline) to the engine. Errors: [`EngineFault::Crashed`] when its
    /// input is closed.
    pub fn send(&mut self, line: &str) -> Result<(), EngineFault> {
        crate::log::engine_line(&self.setup.worker, &self.config.name, true, line);
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|_| EngineFault::Crashed)
    }

    /// The next line, or the reason there is none by `deadline`. The deadline is checked
    /// on the clock before every line, so a talking engine cannot hold it off.
    fn next_line(&mut self, deadline: Instant, what: &'static str) -> Result<String, EngineFault> {
        let now = Instant::now();
        if now >= deadline {
            return Err(EngineFault::Timeout(what));
        }
        match self.lines.recv_timeout(deadline - now) {
            Ok(Output::Line(line)) => {
                crate::log::engine_line(&self.setup.worker, &self.config.name, false, &line);
                Ok(line)
            }
            Ok(Output::Flood) => Err(EngineFault::Flood(what)),
            Err(RecvTimeoutError::Timeout) => Err(EngineFault::Timeout(what)),
            Err(RecvTimeoutError::Disconnected) => Err(EngineFault::Crashed),
        }
    }

    /// Reads lines until one equals `token` (or starts with it followed by a space);
    /// returns the lines before it that `keep` selects (at most [`LINE_QUEUE`]).
    fn wait_for(
        &mut self,
        token: &str,
        timeout: Duration,
        what: &'static str,
        keep: impl Fn(&str) -> bool,
    ) -> Result<Vec<String>, EngineFault> {
        let deadline = Instant::now() + timeout;
        let mut kept = Vec::new();
        loop {
            let line = self.next_line(deadline, what)?;
            if line == token || line.strip_prefix(token).is_some_and(|r| r.starts_with(' ')) {
                return Ok(kept);
            }
            if kept.len() < LINE_QUEUE && keep(&line) {
                kept.push(line);
            }
        }
    }

    /// `isready` / `readyok`.
    pub fn ping(&mut self) -> Result<(), EngineFault> {
        self.ping_collecting(|_| false).map(|_| ())
    }

    /// `isready` / `readyok`, returning the lines before `readyok` that `keep` selects.
    fn ping_collecting(&mut self, keep: impl Fn(&str) -> bool) -> Result<Vec<String>, EngineFault> {
        self.send("isready")?;
        let timeout = Duration::from_millis(self.setup.ping_ms);
        self.wait_for("readyok", timeout, "readyok", keep)
    }

    /// `ucinewgame` and `isready`, answered within `-ucinewgame-ms`.
    pub fn new_game(&mut self) -> Result<(), EngineFault> {
        self.send("ucinewgame")?;
        self.send("isready")?;
        let timeout = Duration::from_millis(self.setup.ucinewgame_ms);
        self.wait_for("readyok", timeout, "readyok", |_| false)
            .map(|_| ())
    }

    /// Sends `position` and `go`, then waits up to `deadline` for `bestmove`; `patterns`
    /// pick output lines to keep (`match_line`). `stop` is polled while waiting: when it
    /// says so, the wait ends at once with [`EngineFault::Interrupted`].
    ///
    /// Output before `go` is never an answer: leftovers of an earlier search are dropped,
    /// then `isready` / `readyok` fences the engine's output, and a `bestmove` that arrives
    /// before `readyok` (an engine that answered a search twice) is a
    /// [`EngineFault::Protocol`] fault, reported as a stray `bestmove`.
    pub fn search(
        &mut self,
        position: &str,
        go: &str,
        deadline: Duration,
        patterns: &[Regex],
        stop: &dyn Fn() -> bool,
    ) -> Result<SearchReply, EngineFault> {
        // Drop what is left over from an earlier search: at most a queue's worth, so an
        // engine that never stops talking cannot keep us here.
        let mut stray = None;
        for _ in 0..LINE_QUEUE {
            match self.lines.try_recv() {
                Ok(Output::Line(line)) => {
                    if stray.is_none() && is_bestmove(&line) {
                        stray = Some(line);
                    }
                }
                Ok(Output::Flood) => return Err(EngineFault::Flood("bestmove")),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return Err(EngineFault::Crashed),
            }
        }
        if stray.is_none() {
            stray = self.ping_collecting(is_bestmove)?.into_iter().next();
        }
        if let Some(line) = stray {
            return Err(EngineFault::Protocol(format!(
                "a stray bestmove before go (\"{}\"), not an answer",
                line.chars().take(40).collect::<String>()
            )));
        }
        self.send(position)?;
        let start = Instant::now();
        self.send(go)?;
        let deadline = start + deadline;
        let mut reply = SearchReply::default();
        let mut matched: Vec<Option<String>> = vec![None; patterns.len()];
        loop {
            if stop() {
                return Err(EngineFault::Interrupted);
            }
            // Wait in short steps, so that an interrupt stops the game at once, not when a
            // stalled engine's clock runs out.
            let step = (Instant::now() + STOP_POLL).min(deadline);
            let line = match self.next_line(step, "bestmove") {
                Err(EngineFault::Timeout(_)) if Instant::now() < deadline => continue,
                other => other?,
            };
            for (slot, pattern) in matched.iter_mut().zip(patterns) {
                if pattern.is_match(&line) {
                    *slot = Some(line.clone());
                }
            }
            let mut tokens = line.split_whitespace();
            match tokens.next() {
                Some("bestmove") => {
                    reply.elapsed_ms = start.elapsed().as_millis() as u64;
                    reply.bestmove = tokens
                        .next()
                        .ok_or_else(|| EngineFault::Protocol("bestmove without a move".into()))?
                        .to_string();
                    reply.matched_lines = matched.into_iter().flatten().collect();
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
    if tokens.get(1) == Some(&"string") {
        return;
    }
    // Only lines of the principal variation (multipv 1 or none) count.
    if let Some(i) = tokens.iter().position(|&t| t == "multipv") {
        if tokens.get(i + 1) != Some(&"1") {
            return;
        }
    }
    fn number<T: std::str::FromStr>(tokens: &[&str], i: usize) -> Option<T> {
        tokens.get(i + 1).and_then(|v| v.parse().ok())
    }
    let mut i = 1;
    while i < tokens.len() {
        match tokens[i] {
            "depth" => reply.depth = number(&tokens, i).or(reply.depth),
            "seldepth" => reply.seldepth = number(&tokens, i).or(reply.seldepth),
            "nodes" => reply.nodes = number(&tokens, i).or(reply.nodes),
            "nps" => reply.nps = number(&tokens, i).or(reply.nps),
            "hashfull" => reply.hashfull = number(&tokens, i).or(reply.hashfull),
            "tbhits" => reply.tbhits = number(&tokens, i).or(reply.tbhits),
            "time" => reply.time_ms = number(&tokens, i).or(reply.time_ms),
            "score" => {
                let value = tokens.get(i + 2).and_then(|v| v.parse::<i32>().ok());
                match (tokens.get(i + 1), value) {
                    (Some(&"cp"), Some(v)) => reply.score = Some(Score::Cp(v)),
                    (Some(&"mate"), Some(v)) => reply.score = Some(Score::Mate(v)),
                    _ => {}
                }
                i += 3;
                continue;
            }
            "pv" => {
                reply.pv = tokens[i + 1..].iter().map(|t| t.to_string()).collect();
                break;
            }
            "string" => break,
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(input: Vec<u8>, per_second: u64) -> Vec<Output> {
        let (tx, rx) = bounded(LINE_QUEUE);
        let reader = std::thread::spawn(move || read_lines(std::io::Cursor::new(input), &tx, per_second));
        let out: Vec<Output> = rx.iter().collect();
        reader.join().unwrap();
        out
    }

    #[test]
    fn lines_are_cut_at_the_length_limit() {
        let mut input = b"uciok\r\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE_BYTES + 5));
        input.extend_from_slice(b"\nreadyok");
        let out = lines_of(input, MAX_LINES_PER_SECOND);
        let texts: Vec<&str> = out
            .iter()
            .map(|o| match o {
                Output::Line(l) => l.as_str(),
                Output::Flood => "FLOOD",
            })
            .collect();
        assert_eq!(texts.len(), 3);
        assert_eq!(texts[0], "uciok");
        assert_eq!(texts[1].len(), MAX_LINE_BYTES);
        assert_eq!(texts[2], "readyok", "a last line without a newline still counts");
    }

    #[test]
    fn a_flood_stops_the_reader_with_a_flood_marker() {
        // What `yes` prints, more lines than a second allows, all at once.
        let out = lines_of(b"y\n".repeat(1000), 100);
        assert!(matches!(out.last(), Some(Output::Flood)), "no flood marker");
        assert_eq!(out.len(), 101, "100 lines, then the marker");
        // (The production limit, MAX_LINES_PER_SECOND, is not checked here: whether 100,000
        // lines pass through the channel within one second depends on the machine's load,
        // and a loaded CI machine made that check fail.)
        // Under the limit, nothing is lost.
        assert_eq!(lines_of(b"y\n".repeat(100), 100).len(), 100);
        // A line without end counts once per MAX_LINE_BYTES.
        let out = lines_of(vec![b'z'; 150 * MAX_LINE_BYTES], 100);
        assert_eq!(out.len(), 1);
        assert!(matches!(out[0], Output::Flood));
    }

    #[test]
    fn the_reader_waits_when_the_queue_is_full() {
        let rx = spawn_reader(std::io::Cursor::new(b"a\n".repeat(10_000)), MAX_LINES_PER_SECOND);
        let deadline = Instant::now() + Duration::from_secs(20);
        while rx.len() < LINE_QUEUE && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(
            rx.len(),
            LINE_QUEUE,
            "the queue fills to LINE_QUEUE lines and no further"
        );
        assert_eq!(rx.iter().count(), 10_000, "then every line comes through");
    }

    #[test]
    fn declared_options_are_read_and_values_checked() {
        let hash = DeclaredOption::parse("option name Hash type spin default 16 min 1 max 65536").unwrap();
        assert_eq!(
            (hash.name.as_str(), hash.min, hash.max),
            ("Hash", Some(1), Some(65536))
        );
        assert_eq!(hash.check("16"), None);
        assert_eq!(
            hash.check("0").as_deref(),
            Some("is outside the declared range 1..65536")
        );
        assert_eq!(hash.check("x").as_deref(), Some("is not a whole number"));
        let overhead =
            DeclaredOption::parse("option name Move Overhead type spin default 10 min 0 max 5000").unwrap();
        assert_eq!(overhead.name, "Move Overhead");
        let check = DeclaredOption::parse("option name Ponder type check default false").unwrap();
        assert_eq!(check.check("yes").as_deref(), Some("is not true or false"));
        assert_eq!(check.check("true"), None);
        let combo = DeclaredOption::parse(
            "option name Style type combo default Normal var Solid var Normal var Risky",
        )
        .unwrap();
        assert_eq!(combo.vars, ["Solid", "Normal", "Risky"]);
        assert_eq!(combo.check("risky"), None);
        assert_eq!(
            combo.check("Wild").as_deref(),
            Some("is not one of Solid, Normal, Risky")
        );
        let file = DeclaredOption::parse("option name EvalFile type string default <default>").unwrap();
        assert_eq!(file.check("anything"), None);
        assert_eq!(DeclaredOption::parse("id name x"), None);
        assert_eq!(DeclaredOption::parse("option name type spin"), None);
    }

    #[test]
    fn refusals_are_recognised() {
        assert!(is_refusal("info string error: Hash must be 1 to 65536"));
        assert!(is_refusal("No such option: Nope"));
        assert!(is_refusal("info string ERROR unknown option"));
        assert!(is_refusal("info string Invalid value for Threads"));
        assert!(is_refusal("info string option Hash: error: too large"));
        assert!(!is_refusal("info string EvalFile nets/x.nnue loaded"));
        assert!(!is_refusal("info string EvalFile nets/error.nnue loaded"));
        assert!(!is_refusal("info depth 3 score cp 20 pv e2e4"));
        assert!(!is_refusal("option name Error type check default false"));
        assert!(!is_refusal("readyok"));
    }
}
