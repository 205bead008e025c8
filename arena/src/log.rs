//! `-log file=F [level=L] [engine=true] [append=true|false] [realtime=true|false]`: a log
//! file for arena's own messages and, with `engine=true`, every line sent to and read from
//! each engine, with the time, the worker and the engine's name:
//!
//! ```text
//! [12:03:04.512] <w1> luft-new < go wtime 8000 btime 8000 winc 80 binc 80
//! [12:03:04.731] <w1> luft-new > bestmove e2e4
//! [12:03:05.002] [warn] engine luft-new: option.Hash=0 is outside the declared range 1..1024
//! ```
//!
//! `<` is what arena sent, `>` what the engine answered (the view from the engine). Levels
//! are fastchess's: `trace` and `info` log game starts and results as well, `warn` (the
//! default) warnings and errors, `err` and `fatal` errors only. Lines are written as they
//! happen (every line is flushed; `realtime=false` is accepted and changes nothing).
//! fastchess's `compress=true` (gzip) is not supported and is refused when the command line
//! is read. Without `-log` nothing here does anything.

use std::io::Write;
use std::sync::{Mutex, OnceLock};

/// How much arena writes to the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// As `info` (arena logs nothing finer).
    Trace,
    /// Game starts and results, warnings and errors.
    Info,
    /// Warnings and errors (the default).
    Warn,
    /// Errors only.
    Err,
    /// Errors only (as `err`).
    Fatal,
}

/// A level name that is none of `trace`, `info`, `warn`, `err` and `fatal`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown log level {0:?} (trace, info, warn, err or fatal)")]
pub struct UnknownLevel(pub String);

/// The log file cannot be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot open log file {file}: {source}")]
pub struct LogError {
    /// The file.
    pub file: String,
    /// Why.
    pub source: std::io::Error,
}

impl std::str::FromStr for Level {
    type Err = UnknownLevel;
    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        match s {
            "trace" => Ok(Level::Trace),
            "info" => Ok(Level::Info),
            "warn" => Ok(Level::Warn),
            "err" => Ok(Level::Err),
            "fatal" => Ok(Level::Fatal),
            other => Err(UnknownLevel(other.to_string())),
        }
    }
}

/// The `-log` settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogConfig {
    /// The log file (`file=`).
    pub file: String,
    /// The least severe level written (`level=`).
    pub level: Level,
    /// Log every line sent to and read from the engines (`engine=true`).
    pub engine: bool,
    /// Append to an existing file (`append=true`) rather than replace it.
    pub append: bool,
}

struct Log {
    file: Mutex<std::fs::File>,
    level: Level,
    engine: bool,
}

static LOG: OnceLock<Log> = OnceLock::new();

/// Opens the log file; later calls in the same process keep the first log. Errors:
/// [`LogError`].
pub fn open(config: &LogConfig) -> Result<(), LogError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(config.append)
        .truncate(!config.append)
        .open(&config.file)
        .map_err(|source| LogError {
            file: config.file.clone(),
            source,
        })?;
    let _ = LOG.set(Log {
        file: Mutex::new(file),
        level: config.level,
        engine: config.engine,
    });
    Ok(())
}

/// The time of day (UTC) as `HH:MM:SS.mmm`.
fn clock_time() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let ms = now.as_millis() % 86_400_000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

fn write_line(log: &Log, text: &str) {
    if let Ok(mut file) = log.file.lock() {
        // A log that cannot be written must not stop the match.
        let _ = writeln!(file, "[{}] {text}", clock_time());
    }
}

/// Whether engine lines are logged (so callers can skip building them).
pub fn logs_engines() -> bool {
    LOG.get().is_some_and(|l| l.engine)
}

/// Logs one line of engine traffic: `sent` is arena to engine.
pub fn engine_line(worker: &str, engine: &str, sent: bool, line: &str) {
    if let Some(log) = LOG.get().filter(|l| l.engine) {
        let arrow = if sent { '<' } else { '>' };
        write_line(log, &format!("<{worker}> {engine} {arrow} {line}"));
    }
}

/// Logs one of arena's messages at `level`.
pub fn message(level: Level, text: &str) {
    if let Some(log) = LOG.get().filter(|l| level >= l.level) {
        let name = match level {
            Level::Trace => "trace",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Err => "err",
            Level::Fatal => "fatal",
        };
        write_line(log, &format!("[{name}] {text}"));
    }
}

/// The first warning of the run, for `-strict`.
static FIRST_WARNING: OnceLock<String> = OnceLock::new();

/// Prints a warning on stderr (`arena: warning: ...`) and logs it; `-strict` turns the
/// first one into the match's error.
pub fn warn(text: &str) {
    output::errln!("arena: warning: {text}");
    message(Level::Warn, text);
    let _ = FIRST_WARNING.set(text.to_string());
}

/// The first warning printed so far, if any.
pub fn first_warning() -> Option<&'static str> {
    FIRST_WARNING.get().map(String::as_str)
}
