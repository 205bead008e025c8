//! `arena spsa`: a local SPSA tuner (see [`crate::spsa`] for the mathematics). One engine
//! plays itself: each iteration draws a perturbation, sets theta+ on one side and theta- on
//! the other (`setoption` between games, on engine processes that live for the whole run),
//! plays `pairs` game pairs over the next openings of the book (each opening twice, theta+
//! White first), and moves theta by theta+'s wins less its losses.
//!
//! The command line is arena's, with one `-engine` and the `-spsa` settings (see
//! [`crate::cli::SPSA_USAGE`]):
//!
//! ```text
//! arena spsa -engine cmd=./luft-tune name=luft -each nodes=20000 option.Hash=8 \
//!     -openings file=book.epd order=random -concurrency 2 \
//!     -spsa params=spsa.txt iterations=5000 pairs=8 seed=1 -config outname=tune.json
//! arena spsa -config file=tune.json          # resume
//! ```
//!
//! **State.** After every iteration the tuner appends theta to the CSV (`csv=`, which is the
//! run's history: one row per iteration, row 0 the start), syncs it, then saves the state
//! (serde_json, through a temporary file, synced, and a rename):
//!
//! ```json
//! {"arena_spsa": 1, "args": ["-engine", "..."],
//!  "params": [{"name": "X", "kind": "int", "start": 80, "min": 0, "max": 100, "c_end": 5, "r_end": 0.2}],
//!  "k": 37, "rng": 1234567, "theta": [61.2, 13.9], "wins": 40, "draws": 70, "losses": 38,
//!  "csv": "tune.csv", "csv_bytes": 2048, "plot": "tune.png"}
//! ```
//!
//! `args` is the command line without `-config` and `params` the parameter list as read at
//! the start (a resume does not read the file again); `k` the iterations done, `rng` the
//! generator's state after them, `theta` the values after them (written exactly: serde_json
//! reads floats back bit for bit with its `float_roundtrip` feature), `wins`/`draws`/`losses`
//! theta+'s games so far, `csv_bytes` the CSV's length holding rows 0 to `k`. A resume cuts
//! the CSV back to that length (a row written by a run killed before its state was saved),
//! reads the rows back for the plot, and plays on from iteration `k + 1` with the same
//! perturbations, roundings and openings: the games of an iteration cut short (Ctrl-C, a
//! kill) are played again, so a run stopped and resumed ends where an uninterrupted one does
//! when the engine's results depend only on its options and the position (fixed nodes, one
//! thread).
//!
//! **Output.** At the start, the schedule; every `print=N` iterations and at the end, the
//! values as `luft spsa` lines (integers rounded: the block is a parameter file for another
//! run) and as `option.NAME=VALUE` tokens for arena, and the plot (`plot=`, see
//! [`crate::spsa_plot`]) redrawn. On a terminal, a progress bar over the games. Exit codes:
//! 0 finished, 2 interrupted, 3 error (bad input, an engine that does not declare a tuned
//! option, a fault without `-recover`).

use crate::cli::{self, CliError, MatchConfig};
use crate::engine_process::{EngineFault, EngineProcess, ProcessSetup};
use crate::log::{self, Level, LogError};
use crate::play::{play_game, GameResult, GameSettings, Opening};
use crate::progress::Progress;
use crate::runner::{self, MatchError};
use crate::spsa::{self, Kind, Param, ParamError, Perturbation, Rng, Schedule};
use crate::spsa_plot::{self, SpsaPlot};
use matchcore::termination::Termination;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Most iterations a run may have.
pub const MAX_ITERATIONS: u64 = 100_000_000;
/// Most game pairs an iteration may have.
pub const MAX_PAIRS: u64 = 100_000;
/// The state file when `-config` names none.
pub const DEFAULT_STATE: &str = "spsa.json";

/// The options `arena spsa` takes besides `-engine`, `-spsa` and `-config`.
const MATCH_OPTIONS: &[&str] = &[
    "each",
    "openings",
    "concurrency",
    "resign",
    "draw",
    "maxmoves",
    "variant",
    "recover",
    "startup-ms",
    "ucinewgame-ms",
    "ping-ms",
    "use-affinity",
    "log",
];

/// The `-spsa` settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaSettings {
    /// The parameter file (`params=`), in the `luft spsa` format.
    pub params_file: String,
    /// The gain sequences (`iterations=`, `alpha=`, `gamma=`, `A_ratio=`).
    pub schedule: Schedule,
    /// Game pairs an iteration (`pairs=`).
    pub pairs: u64,
    /// The seed of the signs, the roundings and the opening order (`seed=`).
    pub seed: u64,
    /// Print the values every this many iterations (`print=`; 0: at the end only).
    pub print_every: u64,
    /// The CSV (`csv=`), when given.
    pub csv: Option<String>,
    /// The picture (`plot=`), when given.
    pub plot: Option<String>,
}

/// A whole `arena spsa` run.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaConfig {
    /// The games' settings: `engines[0]` is theta+'s side (`NAME-plus`), `engines[1]`
    /// theta-'s (`NAME-minus`), both the one `-engine`; openings, concurrency, adjudication.
    pub games: MatchConfig,
    /// The `-spsa` settings.
    pub spsa: SpsaSettings,
    /// Where the state is saved.
    pub state_file: String,
    /// Where theta's path is written, one row per iteration.
    pub csv: String,
    /// Where the paths are drawn (`.png` or `.svg`).
    pub plot: String,
    /// The command line without `-config`, saved for a resume.
    pub args: Vec<String>,
    /// The state a resumed run continues (`-config file=`).
    pub resume: Option<SpsaState>,
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum SpsaCommand {
    /// Tune.
    Run(Box<SpsaConfig>),
    /// Print [`cli::SPSA_USAGE`].
    Help,
}

/// What a saved run holds (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaState {
    /// The command line without `-config`.
    pub args: Vec<String>,
    /// The parameters as read when the run started.
    pub params: Vec<Param>,
    /// Iterations done.
    pub k: u64,
    /// The generator after them.
    pub rng: Rng,
    /// theta after them, one value a parameter.
    pub theta: Vec<f64>,
    /// theta+'s wins, draws and losses so far.
    pub wdl: [u64; 3],
    /// The CSV's path.
    pub csv: String,
    /// The CSV's length in bytes holding rows 0 to `k`.
    pub csv_bytes: u64,
    /// The picture's path.
    pub plot: String,
}

/// Why `arena spsa` cannot start, or stopped with an error; the messages are its last
/// words after `arena: ` (`arena: error: ` once the run started).
#[derive(Debug, thiserror::Error)]
pub enum SpsaError {
    /// A command line or setting refused as a match's would be.
    #[error(transparent)]
    Cli(#[from] CliError),
    /// The book, the tables or the outputs of the games, as a match reports them.
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The log file cannot be opened.
    #[error(transparent)]
    Log(#[from] LogError),
    /// Any other setting, or combination of settings, that `arena spsa` refuses; the
    /// message names them.
    #[error("{0}")]
    Invalid(String),
    /// A file cannot be read or written: `doing` says which and how (`read params p.txt`).
    #[error("cannot {doing}: {source}")]
    Io {
        /// What could not be done, naming the file.
        doing: String,
        /// Why.
        source: std::io::Error,
    },
    /// A state file that is no state.
    #[error("{path}: {source}")]
    State {
        /// The file.
        path: String,
        /// Why.
        source: SpsaStateError,
    },
    /// The command line a state holds is refused.
    #[error("{file}: its command line: {source}")]
    SavedArgs {
        /// The state file.
        file: String,
        /// Why.
        source: Box<SpsaError>,
    },
    /// The params file is no parameter list.
    #[error("params {file}: {source}")]
    Params {
        /// The params file.
        file: String,
        /// Why.
        source: ParamError,
    },
    /// The CSV of a resumed run does not hold what the state counts.
    #[error("the CSV {path}: {source}")]
    Csv {
        /// The CSV file.
        path: String,
        /// Why.
        source: CsvError,
    },
    /// An engine that does not start.
    #[error("engine {name} failed at start-up: {fault}")]
    Start {
        /// The engine's name.
        name: String,
        /// What went wrong.
        fault: EngineFault,
    },
    /// An engine that faults while it is given a parameter's value.
    #[error("engine {name} {fault} while setting option.{option}={value}")]
    SetOption {
        /// The engine's name.
        name: String,
        /// What went wrong.
        fault: EngineFault,
        /// The parameter.
        option: String,
        /// Its value.
        value: String,
    },
    /// What stopped an iteration (an engine's fault without `-recover`, ...).
    #[error("{0}")]
    Stopped(String),
    /// What stopped the run, and (on the next line) how to resume it.
    #[error("{source}\n{resume}")]
    Resumable {
        /// What stopped it.
        source: Box<SpsaError>,
        /// What the state holds, and how to resume it.
        resume: String,
    },
}

/// Why the text of an `arena spsa` state is not a state.
#[derive(Debug, thiserror::Error)]
pub enum SpsaStateError {
    /// Not JSON, or JSON of another shape (serde_json's words).
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// No `arena_spsa` of this version.
    #[error("not an arena spsa state of version {STATE_VERSION}")]
    NotAState,
    /// A parameter of a kind other than int and float.
    #[error("parameter {name} has kind {kind:?}, not int or float")]
    Kind {
        /// The parameter.
        name: String,
        /// Its kind.
        kind: String,
    },
    /// A parameter that cannot be tuned.
    #[error("parameter {name}: {source}")]
    Param {
        /// The parameter.
        name: String,
        /// Why.
        source: ParamError,
    },
    /// A parameter listed twice.
    #[error("parameter {0} is listed twice")]
    Twice(String),
    /// No parameters.
    #[error("no parameters")]
    Empty,
    /// A theta of another length than the parameters.
    #[error("theta has {values} values for {params} parameters")]
    ThetaLength {
        /// Values in theta.
        values: usize,
        /// Parameters.
        params: usize,
    },
    /// A value of theta outside its parameter's range.
    #[error("theta's {name} = {value} lies outside [{min}, {max}]")]
    ThetaOutside {
        /// The parameter.
        name: String,
        /// Its value in theta.
        value: f64,
        /// Its lower bound.
        min: f64,
        /// Its upper bound.
        max: f64,
    },
}

/// Why a run's CSV does not read back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CsvError {
    /// The header names other parameters.
    #[error("its header does not name the run's parameters")]
    Header,
    /// A row (1-based, after the header) of another shape.
    #[error("row {0} is not iteration,games,wins,draws,losses and a value a parameter")]
    Row(usize),
}

/// [`SpsaError::Io`] for `doing`.
fn io_error(doing: String) -> impl FnOnce(std::io::Error) -> SpsaError {
    move |source| SpsaError::Io { doing, source }
}

/// The version written in `arena_spsa`.
const STATE_VERSION: u64 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamJson {
    name: String,
    kind: String,
    start: f64,
    min: f64,
    max: f64,
    c_end: f64,
    r_end: f64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateJson {
    arena_spsa: u64,
    args: Vec<String>,
    params: Vec<ParamJson>,
    k: u64,
    rng: u64,
    theta: Vec<f64>,
    wins: u64,
    draws: u64,
    losses: u64,
    csv: String,
    csv_bytes: u64,
    plot: String,
}

impl SpsaState {
    /// The state as JSON text.
    pub fn to_json(&self) -> String {
        let json = StateJson {
            arena_spsa: STATE_VERSION,
            args: self.args.clone(),
            params: self
                .params
                .iter()
                .map(|p| ParamJson {
                    name: p.name.clone(),
                    kind: p.kind.as_str().to_string(),
                    start: p.start,
                    min: p.min,
                    max: p.max,
                    c_end: p.c_end,
                    r_end: p.r_end,
                })
                .collect(),
            k: self.k,
            rng: self.rng.state,
            theta: self.theta.clone(),
            wins: self.wdl[0],
            draws: self.wdl[1],
            losses: self.wdl[2],
            csv: self.csv.clone(),
            csv_bytes: self.csv_bytes,
            plot: self.plot.clone(),
        };
        // Strings and finite numbers always serialise.
        let mut text = serde_json::to_string(&json).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads what [`SpsaState::to_json`] writes, checking that it holds together.
    pub fn from_json(text: &str) -> Result<SpsaState, SpsaStateError> {
        let value: serde_json::Value = serde_json::from_str(text)?;
        if value.get("arena_spsa").and_then(serde_json::Value::as_u64) != Some(STATE_VERSION) {
            return Err(SpsaStateError::NotAState);
        }
        let json: StateJson = serde_json::from_value(value)?;
        let mut params: Vec<Param> = Vec::new();
        for p in &json.params {
            let kind = match p.kind.as_str() {
                "int" => Kind::Int,
                "float" => Kind::Float,
                other => {
                    return Err(SpsaStateError::Kind {
                        name: p.name.clone(),
                        kind: other.to_string(),
                    })
                }
            };
            let param = Param {
                name: p.name.clone(),
                kind,
                start: p.start,
                min: p.min,
                max: p.max,
                c_end: p.c_end,
                r_end: p.r_end,
            };
            param.check().map_err(|source| SpsaStateError::Param {
                name: p.name.clone(),
                source,
            })?;
            if params.iter().any(|q| q.name == p.name) {
                return Err(SpsaStateError::Twice(p.name.clone()));
            }
            params.push(param);
        }
        if params.is_empty() {
            return Err(SpsaStateError::Empty);
        }
        if json.theta.len() != params.len() {
            return Err(SpsaStateError::ThetaLength {
                values: json.theta.len(),
                params: params.len(),
            });
        }
        if let Some((p, v)) = params
            .iter()
            .zip(&json.theta)
            .find(|(p, v)| !(p.min..=p.max).contains(*v))
        {
            return Err(SpsaStateError::ThetaOutside {
                name: p.name.clone(),
                value: *v,
                min: p.min,
                max: p.max,
            });
        }
        Ok(SpsaState {
            args: json.args,
            params,
            k: json.k,
            rng: Rng { state: json.rng },
            theta: json.theta,
            wdl: [json.wins, json.draws, json.losses],
            csv: json.csv,
            csv_bytes: json.csv_bytes,
            plot: json.plot,
        })
    }
}

/// Writes `state` to `path` (through a temporary file, synced, and a rename).
pub fn save_state(path: &str, state: &SpsaState) -> Result<(), SpsaError> {
    let tmp = format!("{path}.tmp");
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(state.to_json().as_bytes())?;
        f.sync_data()
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_error(format!("write {tmp}"))(e));
    }
    std::fs::rename(&tmp, path).map_err(io_error(format!("rename {tmp} to {path}")))
}

/// Reads a state file.
pub fn load_state(path: &str) -> Result<SpsaState, SpsaError> {
    let text = std::fs::read_to_string(path).map_err(io_error(format!("read {path}")))?;
    SpsaState::from_json(&text).map_err(|source| SpsaError::State {
        path: path.to_string(),
        source,
    })
}

/// A real number from `lo` to `hi`.
fn real(key: &str, value: &str, lo: f64, hi: f64) -> Result<f64, SpsaError> {
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (lo..=hi).contains(&v) => Ok(v),
        _ => Err(SpsaError::Invalid(format!(
            "-spsa {key} must be a number from {lo} to {hi}, found {value:?}"
        ))),
    }
}

fn parse_settings(values: &[String]) -> Result<SpsaSettings, SpsaError> {
    let mut params_file = None;
    let mut iterations = None;
    let mut s = SpsaSettings {
        params_file: String::new(),
        schedule: Schedule {
            iterations: 0,
            alpha: spsa::ALPHA,
            gamma: spsa::GAMMA,
            a_ratio: spsa::A_RATIO,
        },
        pairs: 8,
        seed: 0,
        print_every: 10,
        csv: None,
        plot: None,
    };
    for (k, v) in cli::key_values("spsa", values)? {
        match k.as_str() {
            "params" => params_file = Some(v),
            "iterations" => iterations = Some(cli::whole("-spsa iterations", &v, 1, MAX_ITERATIONS)?),
            "pairs" => s.pairs = cli::whole("-spsa pairs", &v, 1, MAX_PAIRS)?,
            "seed" => s.seed = cli::whole("-spsa seed", &v, 0, u64::MAX)?,
            "alpha" => s.schedule.alpha = real("alpha", &v, 0.0, 1.0)?,
            "gamma" => s.schedule.gamma = real("gamma", &v, 0.0, 1.0)?,
            "A_ratio" => s.schedule.a_ratio = real("A_ratio", &v, 0.0, 10.0)?,
            "print" => s.print_every = cli::whole("-spsa print", &v, 0, MAX_ITERATIONS)?,
            "csv" => s.csv = Some(v),
            "plot" => {
                let lower = v.to_ascii_lowercase();
                if !(lower.ends_with(".png") || lower.ends_with(".svg")) {
                    return Err(SpsaError::Invalid(format!(
                        "-spsa plot={v}: the file name must end in .png or .svg"
                    )));
                }
                s.plot = Some(v);
            }
            other => {
                return Err(SpsaError::Invalid(format!(
                    "-spsa: unknown key {other:?} (params, iterations, pairs, seed, alpha, gamma, A_ratio, \
                     print, csv, plot)"
                )))
            }
        }
    }
    let missing = |what: &str| SpsaError::Invalid(format!("-spsa needs {what}"));
    s.params_file = params_file.ok_or_else(|| missing("params=FILE (the `luft spsa` format)"))?;
    s.schedule.iterations = iterations.ok_or_else(|| missing("iterations=N"))?;
    if s.schedule.alpha == 0.0 {
        return Err(SpsaError::Invalid("-spsa alpha must be above 0".into()));
    }
    Ok(s)
}

/// Parses the command line of a new run (without `-config`).
fn parse_new(args: &[String]) -> Result<(MatchConfig, SpsaSettings), SpsaError> {
    let groups = cli::groups(args)?;
    let mut settings = None;
    let mut engines = Vec::new();
    let mut rest = Vec::new();
    for (name, values) in &groups {
        match name.as_str() {
            "spsa" if settings.is_some() => return Err(SpsaError::Invalid("-spsa is given twice".into())),
            "spsa" => settings = Some(parse_settings(values)?),
            "engine" => engines.push(values.clone()),
            n if MATCH_OPTIONS.contains(&n) => rest.push((name.clone(), values.clone())),
            other => {
                return Err(SpsaError::Invalid(format!(
                    "-{other} is not an option of arena spsa (see arena spsa -help)"
                )))
            }
        }
    }
    let settings = settings.ok_or_else(|| {
        SpsaError::Invalid("give -spsa params=FILE iterations=N (see arena spsa -help)".into())
    })?;
    let engine = match engines.as_slice() {
        [one] => one,
        [] => {
            return Err(SpsaError::Invalid(
                "give the engine to tune: -engine cmd=PATH [name=NAME] ...".into(),
            ))
        }
        many => {
            return Err(SpsaError::Invalid(format!(
                "arena spsa tunes one engine against itself: give one -engine, found {}",
                many.len()
            )))
        }
    };
    let limit_keys = ["tc=", "nodes=", "plies=", "depth=", "st="];
    let each: Vec<&String> = rest
        .iter()
        .filter(|(n, _)| n == "each")
        .flat_map(|(_, v)| v)
        .collect();
    if !engine
        .iter()
        .chain(each)
        .any(|v| limit_keys.iter().any(|k| v.starts_with(k)))
    {
        return Err(SpsaError::Invalid(
            "arena spsa needs a limit for the moves: give nodes=N, tc=BASE+INC, st=SECONDS or plies=N \
             (in -engine or -each)"
                .into(),
        ));
    }
    // The engine twice, as theta+'s side and theta-'s.
    let base = engine
        .iter()
        .rev()
        .find_map(|v| v.strip_prefix("name="))
        .map(String::from)
        .or_else(|| {
            engine
                .iter()
                .rev()
                .find_map(|v| v.strip_prefix("cmd="))
                .map(|cmd| {
                    std::path::Path::new(cmd)
                        .file_name()
                        .map_or_else(|| cmd.to_string(), |n| n.to_string_lossy().into_owned())
                })
        })
        .unwrap_or_default();
    let without_name: Vec<String> = engine
        .iter()
        .filter(|v| !v.starts_with("name="))
        .cloned()
        .collect();
    let mut sides = Vec::new();
    for side in ["plus", "minus"] {
        let mut values = without_name.clone();
        values.push(format!("name={base}-{side}"));
        sides.push(("engine".to_string(), values));
    }
    sides.extend(rest);
    let mut games = cli::build(args, &sides)?;
    games.seed = settings.seed;
    Ok((games, settings))
}

/// `path` with its `.json` ending (if any) replaced by `ending`.
fn beside(path: &str, ending: &str) -> String {
    let stem = path.strip_suffix(".json").unwrap_or(path);
    format!("{stem}{ending}")
}

/// Parses an `arena spsa` command line (without `spsa`).
pub fn parse(args: &[String]) -> Result<SpsaCommand, SpsaError> {
    let groups = cli::groups(args)?;
    if groups.iter().any(|(n, _)| matches!(n.as_str(), "help" | "h")) {
        return Ok(SpsaCommand::Help);
    }
    let (config, own_args) = cli::split_config(args, &groups)?;
    if config.as_ref().is_some_and(|c| !c.stats) {
        return Err(SpsaError::Invalid(
            "-config stats= has no meaning for arena spsa".into(),
        ));
    }
    let config = config.unwrap_or_default();
    if let (Some(file), false) = (&config.file, config.discard) {
        if !own_args.is_empty() {
            return Err(SpsaError::Invalid(format!(
                "-config file={file} resumes the saved run as it was started; other options ({}) cannot be \
                 added (start a new one, or use discard=true to replace it)",
                own_args[0]
            )));
        }
        let saved = load_state(file)?;
        let (games, spsa) = parse_new(&saved.args).map_err(|e| SpsaError::SavedArgs {
            file: file.clone(),
            source: Box::new(e),
        })?;
        if saved.k > spsa.schedule.iterations {
            return Err(SpsaError::Invalid(format!(
                "{file}: {} iterations done of {}",
                saved.k, spsa.schedule.iterations
            )));
        }
        return Ok(SpsaCommand::Run(Box::new(SpsaConfig {
            games,
            spsa,
            state_file: config.outname.clone().unwrap_or_else(|| file.clone()),
            csv: saved.csv.clone(),
            plot: saved.plot.clone(),
            args: saved.args.clone(),
            resume: Some(saved),
        })));
    }
    let (games, spsa) = parse_new(&own_args)?;
    let replace = config.discard && config.file.is_some();
    let state_file = config
        .outname
        .clone()
        .or(if replace { config.file.clone() } else { None })
        .unwrap_or_else(|| DEFAULT_STATE.to_string());
    if !replace && std::path::Path::new(&state_file).exists() {
        return Err(SpsaError::Invalid(format!(
            "{state_file} holds a run already: resume it with arena spsa -config file={state_file}, or start \
             over with -config file={state_file} discard=true"
        )));
    }
    let csv = spsa.csv.clone().unwrap_or_else(|| beside(&state_file, ".csv"));
    let plot = spsa.plot.clone().unwrap_or_else(|| beside(&state_file, ".png"));
    let same = |a: &str, b: &str| {
        output::same_file(
            std::path::Path::new(a),
            std::path::Path::new(b),
            output::Compare::TwoOutputs,
        )
    };
    if same(&csv, &state_file) || same(&plot, &state_file) || same(&csv, &plot) {
        return Err(SpsaError::Invalid(format!(
            "the state ({state_file}), the CSV ({csv}) and the plot ({plot}) need three different files"
        )));
    }
    Ok(SpsaCommand::Run(Box::new(SpsaConfig {
        games,
        spsa,
        state_file,
        csv,
        plot,
        args: own_args,
        resume: None,
    })))
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpsaOutcome {
    /// Every iteration played.
    Finished,
    /// Stopped by Ctrl-C (or SIGTERM) before the end; the state holds the whole iterations.
    Interrupted,
}

/// Why an iteration did not finish.
enum Stop {
    Interrupted,
    Error(String),
}

/// theta+'s and theta-'s engines of one worker, kept from game to game.
struct Slot {
    engines: [Option<EngineProcess>; 2],
    setup: ProcessSetup,
}

/// The fixed facts of a run.
struct Plan<'a> {
    config: &'a SpsaConfig,
    params: Vec<Param>,
    book: Vec<Opening>,
    settings: GameSettings,
    progress: Progress,
}

/// What the workers of one iteration share.
struct Shared {
    /// theta+'s wins, draws and losses in this iteration.
    wdl: [u64; 3],
    error: Option<String>,
    interrupted: bool,
}

/// The values of `side` (0: theta+, 1: theta-) sent to the engine.
fn side_values(params: &[Param], p: &Perturbation, side: usize) -> Vec<String> {
    let values = if side == 0 { &p.plus } else { &p.minus };
    params.iter().zip(values).map(|(q, &v)| q.value_text(v)).collect()
}

/// Starts `slot`'s engine of `side` if need be and gives it `values`.
fn ready_engine(plan: &Plan, slot: &mut Slot, side: usize, values: &[String]) -> Result<(), SpsaError> {
    let spec = &plan.config.games.engines[side];
    let engine = match &mut slot.engines[side] {
        Some(engine) => engine,
        empty => empty.insert(
            EngineProcess::start_with(&spec.config, &slot.setup).map_err(|fault| SpsaError::Start {
                name: spec.config.name.clone(),
                fault,
            })?,
        ),
    };
    for (p, value) in plan.params.iter().zip(values) {
        if engine.option_value(&p.name).as_deref() != Some(value.as_str()) {
            if let Err(fault) = engine.set_option(&p.name, value) {
                slot.engines[side] = None;
                return Err(SpsaError::SetOption {
                    name: spec.config.name.clone(),
                    fault,
                    option: p.name.clone(),
                    value: value.clone(),
                });
            }
        }
    }
    Ok(())
}

/// One worker's share of iteration `k`: games taken from `next` until none is left.
#[allow(clippy::too_many_arguments)]
fn play_games(
    plan: &Plan,
    slot: &mut Slot,
    k: u64,
    values: &[Vec<String>; 2],
    next: &AtomicUsize,
    shared: &Mutex<Shared>,
    interrupted: &AtomicBool,
) {
    let config = &plan.config;
    let pairs = config.spsa.pairs;
    let lock = || shared.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if interrupted.load(Ordering::Relaxed) {
            lock().interrupted = true;
            return;
        }
        if lock().error.is_some() {
            return;
        }
        let g = next.fetch_add(1, Ordering::Relaxed) as u64;
        if g >= 2 * pairs {
            return;
        }
        let opening_index = ((k - 1) * pairs + g / 2) % plan.book.len() as u64;
        let opening = &plan.book[opening_index as usize];
        let plus_white = g.is_multiple_of(2);
        for (side, side_values) in values.iter().enumerate() {
            if let Err(e) = ready_engine(plan, slot, side, side_values) {
                lock().error.get_or_insert(e.to_string());
                return;
            }
        }
        let (white_side, black_side) = if plus_white { (0, 1) } else { (1, 0) };
        let (Some(mut white), Some(mut black)) =
            (slot.engines[white_side].take(), slot.engines[black_side].take())
        else {
            lock().error.get_or_insert("an engine went missing".into());
            return;
        };
        let stop = || interrupted.load(Ordering::Relaxed);
        let finished = play_game(&mut white, &mut black, opening, &plan.settings, &stop);
        let names = (white.config.name.clone(), black.config.name.clone());
        if finished.termination == Termination::Unterminated {
            slot.engines[white_side] = Some(white);
            slot.engines[black_side] = Some(black);
            lock().interrupted = true;
            return;
        }
        let white_half: u8 = match finished.result {
            GameResult::WhiteWins => 2,
            GameResult::Draw => 1,
            GameResult::BlackWins => 0,
        };
        let plus_half = if plus_white { white_half } else { 2 - white_half };
        log::message(
            Level::Info,
            &format!(
                "iteration {k} game {} ({} vs {}): {} {{{}}}",
                g + 1,
                names.0,
                names.1,
                finished.result.pgn(),
                finished.reason
            ),
        );
        let faulted = finished.faulted.map(|c| c.index());
        let mut s = lock();
        if faulted.is_some() && !config.games.recover {
            s.error.get_or_insert(format!(
                "{} in iteration {k} ({} vs {}) (use -recover to restart faulty engines and go on)",
                finished.reason, names.0, names.1
            ));
        } else {
            // wdl from theta+'s side: wins, draws, losses.
            s.wdl[2 - usize::from(plus_half)] += 1;
        }
        drop(s);
        plan.progress
            .game_finished(format!("iteration {k} of {}", config.spsa.schedule.iterations));
        for (i, side, engine) in [(0, white_side, white), (1, black_side, black)] {
            if faulted == Some(i) {
                engine.quit();
            } else {
                slot.engines[side] = Some(engine);
            }
        }
    }
}

/// Plays iteration `k` over `slots`: theta+'s wins, draws and losses.
fn play_iteration(
    plan: &Plan,
    slots: &mut [Slot],
    k: u64,
    p: &Perturbation,
    interrupted: &AtomicBool,
) -> Result<[u64; 3], Stop> {
    let values = [side_values(&plan.params, p, 0), side_values(&plan.params, p, 1)];
    let next = AtomicUsize::new(0);
    let shared = Mutex::new(Shared {
        wdl: [0; 3],
        error: None,
        interrupted: false,
    });
    std::thread::scope(|scope| {
        for slot in slots.iter_mut() {
            let (values, next, shared) = (&values, &next, &shared);
            scope.spawn(move || play_games(plan, slot, k, values, next, shared, interrupted));
        }
    });
    let s = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    match (s.error, s.interrupted || interrupted.load(Ordering::Relaxed)) {
        (Some(e), _) => Err(Stop::Error(e)),
        (None, true) => Err(Stop::Interrupted),
        (None, false) => Ok(s.wdl),
    }
}

/// theta's path: (iteration, one value a parameter), from iteration 0.
type History = Vec<(u64, Vec<f64>)>;

/// The CSV's header: `iteration,games,wins,draws,losses,NAME...`.
fn csv_header(params: &[Param]) -> String {
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    format!("iteration,games,wins,draws,losses,{}\n", names.join(","))
}

/// One CSV row: the iteration, the games so far, theta+'s results in it, theta after it.
fn csv_row(k: u64, games: u64, wdl: [u64; 3], theta: &[f64]) -> String {
    let values: Vec<String> = theta.iter().map(|&v| spsa::number_text(v)).collect();
    format!(
        "{k},{games},{},{},{},{}\n",
        wdl[0],
        wdl[1],
        wdl[2],
        values.join(",")
    )
}

/// The rows of a CSV [`csv_row`] wrote: (iteration, theta).
fn read_csv(text: &str, params: &[Param]) -> Result<History, CsvError> {
    let mut lines = text.lines();
    if lines.next().map(|h| format!("{h}\n")) != Some(csv_header(params)) {
        return Err(CsvError::Header);
    }
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        let bad = || CsvError::Row(i + 1);
        if fields.len() != 5 + params.len() {
            return Err(bad());
        }
        let k = fields[0].parse::<u64>().map_err(|_| bad())?;
        let values: Result<Vec<f64>, _> = fields[5..].iter().map(|f| f.parse::<f64>()).collect();
        rows.push((k, values.map_err(|_| bad())?));
    }
    Ok(rows)
}

/// Opens the CSV of a resumed run, cut back to the state's length; its rows.
fn resume_csv(state: &SpsaState) -> Result<(std::fs::File, History), SpsaError> {
    let path = &state.csv;
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(io_error(format!("open the CSV {path} of the saved run")))?;
    let len = file
        .metadata()
        .map_err(io_error(format!("read the CSV {path}")))?
        .len();
    if len < state.csv_bytes {
        return Err(SpsaError::Invalid(format!(
            "the CSV {path} holds {len} bytes, fewer than the {} the saved state counts: it was changed since",
            state.csv_bytes
        )));
    }
    if len > state.csv_bytes {
        file.set_len(state.csv_bytes)
            .map_err(io_error(format!("cut the CSV {path} back to the saved state")))?;
        output::errln!(
            "arena: note: the CSV {path} held {} bytes after the last saved state; they were cut off",
            len - state.csv_bytes
        );
    }
    let text = std::fs::read_to_string(path).map_err(io_error(format!("read the CSV {path}")))?;
    let rows = read_csv(&text, &state.params).map_err(|source| SpsaError::Csv {
        path: path.clone(),
        source,
    })?;
    if rows.len() as u64 != state.k + 1 || rows.last().map(|r| &r.1) != Some(&state.theta) {
        return Err(SpsaError::Invalid(format!(
            "the CSV {path} does not end at the saved state's iteration {} (resume with the files as they were)",
            state.k
        )));
    }
    Ok((file, rows))
}

/// The values as `luft spsa` lines and `option.NAME=VALUE` tokens.
pub fn values_text(params: &[Param], theta: &[f64]) -> String {
    let mut text = String::new();
    for (p, &v) in params.iter().zip(theta) {
        text.push_str(&p.line(v));
        text.push('\n');
    }
    let options: Vec<String> = params
        .iter()
        .zip(theta)
        .map(|(p, &v)| format!("option.{}={}", p.name, p.value_text(v)))
        .collect();
    text.push_str(&options.join(" "));
    text
}

/// Checks that the engine declares every tuned option (and warns when a range reaches past
/// the declared one).
fn probe(config: &SpsaConfig, params: &[Param], setup: &ProcessSetup) -> Result<(), SpsaError> {
    let spec = &config.games.engines[0];
    let engine = EngineProcess::start_with(&spec.config, setup).map_err(|fault| SpsaError::Start {
        name: spec.config.name.clone(),
        fault,
    })?;
    let mut missing = Vec::new();
    for p in params {
        match engine
            .declared
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(&p.name))
        {
            None => missing.push(p.name.clone()),
            Some(d) => {
                let below = d.min.is_some_and(|m| p.min < m as f64);
                let above = d.max.is_some_and(|m| p.max > m as f64);
                if below || above {
                    log::warn(&format!(
                        "engine {} declares {} from {} to {}, the params file tunes it from {} to {}",
                        spec.config.name,
                        d.name,
                        d.min.map_or("?".into(), |m| m.to_string()),
                        d.max.map_or("?".into(), |m| m.to_string()),
                        p.min,
                        p.max
                    ));
                }
            }
        }
    }
    engine.quit();
    if !missing.is_empty() {
        return Err(SpsaError::Invalid(format!(
            "engine {} does not declare the option{} {} (for luft, tune a build with the tune feature: \
             cargo build --release -p engine --features tune)",
            config.games.engines[0].config.cmd,
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        )));
    }
    Ok(())
}

/// Runs the tuner; how it ended. Errors: [`SpsaError`] (once the run started, the state file
/// holds the whole iterations played, and the error says how to resume).
pub fn run(config: &SpsaConfig, interrupted: Arc<AtomicBool>) -> Result<SpsaOutcome, SpsaError> {
    if let Some(log_config) = &config.games.log {
        log::open(log_config)?;
    }
    let schedule = config.spsa.schedule;
    let n = schedule.iterations;
    let pairs = config.spsa.pairs;
    let params = match &config.resume {
        Some(state) => state.params.clone(),
        None => {
            let file = &config.spsa.params_file;
            let text = std::fs::read_to_string(file).map_err(io_error(format!("read params {file}")))?;
            spsa::parse_params(&text).map_err(|source| SpsaError::Params {
                file: file.clone(),
                source,
            })?
        }
    };
    for (option, _) in &config.games.engines[0].config.options {
        if params.iter().any(|p| p.name.eq_ignore_ascii_case(option)) {
            return Err(SpsaError::Invalid(format!(
                "option.{option} is tuned: leave it out of -engine and -each (its start is in the params file)"
            )));
        }
    }
    let (book, _) = runner::load_book(&config.games)?;
    if book.is_empty() {
        return Err(SpsaError::Invalid("the openings book holds no positions".into()));
    }

    let games = &config.games;
    let setup_for = |w: usize| {
        let cpus = games.affinity.as_ref().map(|list| {
            let all: Vec<usize> = if list.is_empty() {
                (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect()
            } else {
                list.clone()
            };
            let threads = games.engines[0]
                .config
                .options
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("Threads"))
                .and_then(|(_, v)| v.parse::<usize>().ok())
                .unwrap_or(1)
                .max(1);
            runner::worker_cpus(&all, w, threads)
        });
        ProcessSetup {
            startup_ms: games.startup_ms,
            ucinewgame_ms: games.ucinewgame_ms,
            ping_ms: games.ping_ms,
            cpus: cpus.unwrap_or_default(),
            worker: format!("w{}", w + 1),
        }
    };
    probe(config, &params, &setup_for(0))?;

    // The state and the CSV: new, or as saved.
    let (mut state, mut csv, mut history) = match &config.resume {
        Some(saved) => {
            let (file, rows) = resume_csv(saved)?;
            (saved.clone(), file, rows)
        }
        None => {
            let theta: Vec<f64> = params.iter().map(|p| p.start).collect();
            let mut file = std::fs::File::create(&config.csv)
                .map_err(io_error(format!("create the CSV {}", config.csv)))?;
            let text = format!("{}{}", csv_header(&params), csv_row(0, 0, [0; 3], &theta));
            file.write_all(text.as_bytes())
                .and_then(|()| file.sync_data())
                .map_err(io_error(format!("write the CSV {}", config.csv)))?;
            let state = SpsaState {
                args: config.args.clone(),
                params: params.clone(),
                k: 0,
                rng: Rng::new(config.spsa.seed),
                theta: theta.clone(),
                wdl: [0; 3],
                csv: config.csv.clone(),
                csv_bytes: text.len() as u64,
                plot: config.plot.clone(),
            };
            save_state(&config.state_file, &state)?;
            (state, file, vec![(0, theta)])
        }
    };
    let resume_note = |k: u64| {
        format!(
            "The state in {} holds {k} of {n} iterations: to resume, run: arena spsa -config file={}",
            config.state_file, config.state_file
        )
    };
    let games_per_iteration = 2 * pairs;

    println!(
        "SPSA: {} parameters, {n} iterations of {pairs} game pairs ({} games), A = {}, alpha = {}, gamma = {}, \
         seed {}",
        params.len(),
        n.saturating_mul(games_per_iteration),
        spsa::number_text(schedule.big_a()),
        spsa::number_text(schedule.alpha),
        spsa::number_text(schedule.gamma),
        config.spsa.seed
    );
    for p in &params {
        println!(
            "  {}: c_k {:.4} to {:.4}, a_k / c_k^2 {:.6} to {:.6}",
            p.name,
            schedule.c_k(p, 1),
            schedule.c_k(p, n),
            schedule.r_k(p, 1),
            schedule.r_k(p, n)
        );
    }
    println!(
        "State: {} (after every iteration); path: {}, {}",
        config.state_file, config.csv, config.plot
    );
    if state.k > 0 {
        println!("Resuming after iteration {} of {n}", state.k);
    }

    let draw = |history: &[(u64, Vec<f64>)], k: u64| {
        let names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
        let plot = SpsaPlot {
            names: &names,
            history,
            title: format!(
                "SPSA: {k} of {n} iterations, {} games",
                k.saturating_mul(games_per_iteration)
            ),
        };
        if let Err(e) = spsa_plot::write(&config.plot, &plot) {
            log::warn(&e.to_string());
        }
    };
    let plan = Plan {
        config,
        params: params.clone(),
        book,
        settings: GameSettings {
            limits: [games.engines[0].limits.clone(), games.engines[1].limits.clone()],
            adjudication: games.adjudication.clone(),
            chess960: games.chess960,
            patterns: Vec::new(),
            check_mate_pvs: false,
            tables: crate::runner::load_tables(&games.adjudication)?,
        },
        progress: Progress::new(
            n.saturating_mul(games_per_iteration),
            state.k.saturating_mul(games_per_iteration),
        ),
    };
    let workers = games.concurrency.min(games_per_iteration as usize).max(1);
    let mut slots: Vec<Slot> = (0..workers)
        .map(|w| Slot {
            engines: [None, None],
            setup: setup_for(w),
        })
        .collect();

    let mut outcome = Ok(SpsaOutcome::Finished);
    while state.k < n {
        let k = state.k + 1;
        let mut rng = state.rng;
        let perturbation = spsa::perturb(&params, &state.theta, &schedule, k, &mut rng);
        let wdl = match play_iteration(&plan, &mut slots, k, &perturbation, &interrupted) {
            Ok(wdl) => wdl,
            Err(Stop::Interrupted) => {
                outcome = Ok(SpsaOutcome::Interrupted);
                break;
            }
            Err(Stop::Error(e)) => {
                outcome = Err(SpsaError::Stopped(e));
                break;
            }
        };
        let theta = spsa::update(
            &params,
            &state.theta,
            &schedule,
            &perturbation,
            wdl[0] as i64 - wdl[2] as i64,
        );
        let row = csv_row(k, k.saturating_mul(games_per_iteration), wdl, &theta);
        if let Err(e) = csv.write_all(row.as_bytes()).and_then(|()| csv.sync_data()) {
            let _ = csv.set_len(state.csv_bytes);
            outcome = Err(io_error(format!("write the CSV {}", config.csv))(e));
            break;
        }
        let mut next = state.clone();
        next.k = k;
        next.rng = rng;
        next.theta = theta;
        for (total, add) in next.wdl.iter_mut().zip(wdl) {
            *total += add;
        }
        next.csv_bytes += row.len() as u64;
        if let Err(e) = save_state(&config.state_file, &next) {
            let _ = csv.set_len(state.csv_bytes);
            outcome = Err(e);
            break;
        }
        state = next;
        history.push((k, state.theta.clone()));
        let every = config.spsa.print_every;
        if (every > 0 && k % every == 0) || k == n {
            plan.progress.say(&format!(
                "SPSA iteration {k} of {n} ({} games; theta+ {} wins, {} draws, {} losses)\n{}",
                k.saturating_mul(games_per_iteration),
                state.wdl[0],
                state.wdl[1],
                state.wdl[2],
                values_text(&params, &state.theta)
            ));
            draw(&history, k);
        }
    }
    plan.progress.finish();
    for slot in slots {
        for engine in slot.engines.into_iter().flatten() {
            engine.quit();
        }
    }
    match outcome {
        Ok(SpsaOutcome::Finished) => {
            println!(
                "SPSA finished: {n} iterations, {} games",
                n.saturating_mul(games_per_iteration)
            );
            if config.resume.as_ref().is_some_and(|s| s.k == n) {
                println!("{}", values_text(&params, &state.theta));
                draw(&history, n);
            }
            Ok(SpsaOutcome::Finished)
        }
        Ok(SpsaOutcome::Interrupted) => {
            draw(&history, state.k);
            println!(
                "SPSA was interrupted in iteration {} (its games are played again on resume). {}",
                state.k + 1,
                resume_note(state.k)
            );
            println!("{}", values_text(&params, &state.theta));
            Ok(SpsaOutcome::Interrupted)
        }
        Err(e) => {
            draw(&history, state.k);
            log::message(Level::Err, &e.to_string());
            Err(SpsaError::Resumable {
                source: Box::new(e),
                resume: resume_note(state.k),
            })
        }
    }
}

/// `arena spsa ARGS`: parses, runs and reports; the process exit code (0 finished, 2
/// interrupted, 3 error).
pub fn command(args: &[String]) -> u8 {
    let config = match parse(args) {
        Ok(SpsaCommand::Help) => {
            println!("{}", cli::SPSA_USAGE);
            return 0;
        }
        Ok(SpsaCommand::Run(config)) => config,
        Err(e) => {
            output::errln!("arena: {e}");
            return 3;
        }
    };
    let start = Instant::now();
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = interrupted.clone();
    if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)) {
        output::errln!("arena: cannot install the Ctrl-C handler: {e}");
    }
    let result = run(&config, interrupted);
    let s = start.elapsed().as_secs();
    println!(
        "Total Time: {:02}:{:02}:{:02} (hours:minutes:seconds)",
        s / 3600,
        s / 60 % 60,
        s % 60
    );
    match result {
        Ok(SpsaOutcome::Finished) => 0,
        Ok(SpsaOutcome::Interrupted) => 2,
        Err(e) => {
            output::errln!("arena: error: {e}");
            3
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    fn parse_run(text: &str) -> Result<SpsaConfig, SpsaError> {
        match parse(&args(text))? {
            SpsaCommand::Run(c) => Ok(*c),
            SpsaCommand::Help => Err(SpsaError::Invalid("help".into())),
        }
    }

    fn state() -> SpsaState {
        SpsaState {
            args: args("-engine cmd=./e -each nodes=5 -spsa params=p.txt iterations=10"),
            params: spsa::parse_params("x, int, 80, 0, 100, 5, 0.2\ny, float, 0.5, 0, 1, 0.05, 0.002")
                .unwrap(),
            k: 3,
            rng: Rng { state: u64::MAX - 5 },
            // Values that a shortest-digits printer and a fast float parser can disagree on.
            theta: vec![61.123456789012345, 0.1 + 0.2],
            wdl: [4, 5, 3],
            csv: "a.csv".into(),
            csv_bytes: 123,
            plot: "a.png".into(),
        }
    }

    #[test]
    fn a_command_line_becomes_two_sides_of_one_engine() {
        let c = parse_run(
            "-engine cmd=./luft-tune option.Hash=8 -each nodes=2000 -openings file=b.epd order=random \
             -concurrency 2 -resign movecount=3 score=800 -maxmoves 60 -recover \
             -spsa params=p.txt iterations=500 pairs=4 seed=9 alpha=0.7 gamma=0.2 A_ratio=0.05 print=0 \
             -config outname=/nonexistent/t.json",
        )
        .unwrap();
        let names: Vec<&str> = c.games.engines.iter().map(|e| e.config.name.as_str()).collect();
        assert_eq!(names, ["luft-tune-plus", "luft-tune-minus"]);
        assert_eq!(c.games.engines[1].config.cmd, "./luft-tune");
        assert_eq!(
            c.games.engines[0].config.options,
            [("Hash".to_string(), "8".to_string())]
        );
        assert_eq!(c.games.engines[0].limits.nodes, Some(2000));
        assert_eq!((c.games.concurrency, c.games.seed), (2, 9));
        assert!(c.games.recover && c.games.openings.as_ref().unwrap().random);
        assert_eq!(c.games.adjudication.max_moves, Some(60));
        let s = &c.spsa;
        assert_eq!(
            s.schedule,
            Schedule {
                iterations: 500,
                alpha: 0.7,
                gamma: 0.2,
                a_ratio: 0.05
            }
        );
        assert_eq!((s.pairs, s.seed, s.print_every), (4, 9, 0));
        assert_eq!(s.params_file, "p.txt");
        assert_eq!(
            (c.state_file.as_str(), c.csv.as_str(), c.plot.as_str()),
            ("/nonexistent/t.json", "/nonexistent/t.csv", "/nonexistent/t.png")
        );
        assert!(!c
            .args
            .iter()
            .any(|a| a.contains("config") || a.contains("t.json")));
        // Defaults, a name, and outputs named.
        let c = parse_run(
            "-engine cmd=e name=luft tc=1+0.01 -spsa params=p iterations=2 csv=/x/path.csv plot=/x/p.svg \
             -config outname=/nonexistent/s",
        )
        .unwrap();
        assert_eq!(c.games.engines[0].config.name, "luft-plus");
        assert_eq!(c.spsa.pairs, 8);
        assert_eq!(
            c.spsa.schedule,
            Schedule {
                iterations: 2,
                alpha: 0.602,
                gamma: 0.101,
                a_ratio: 0.1
            }
        );
        assert_eq!((c.csv.as_str(), c.plot.as_str()), ("/x/path.csv", "/x/p.svg"));
        assert!(matches!(parse(&args("-spsa -help")), Ok(SpsaCommand::Help)));
    }

    #[test]
    fn bad_command_lines_are_refused_with_a_reason() {
        let base = "-engine cmd=e -each nodes=10";
        let spsa = "-spsa params=p iterations=5";
        let out = "-config outname=/nonexistent/s.json";
        for (line, error) in [
            (format!("{base} {out}"), "give -spsa params=FILE iterations=N"),
            (format!("-each nodes=1 {spsa} {out}"), "give the engine to tune"),
            (
                format!("{base} -engine cmd=f {spsa} {out}"),
                "give one -engine, found 2",
            ),
            (
                format!("-engine cmd=e {spsa} {out}"),
                "arena spsa needs a limit for the moves",
            ),
            (
                format!("{base} -rounds 5 {spsa} {out}"),
                "-rounds is not an option of arena spsa",
            ),
            (
                format!("{base} -sprt {spsa} {out}"),
                "-sprt is not an option of arena spsa",
            ),
            (
                format!("{base} -spsa iterations=5 {out}"),
                "-spsa needs params=FILE",
            ),
            (format!("{base} -spsa params=p {out}"), "-spsa needs iterations=N"),
            (
                format!("{base} {spsa} pairs=0 {out}"),
                "-spsa pairs must be a whole number from 1 to 100000",
            ),
            (
                format!("{base} {spsa} iterations=0 {out}"),
                "-spsa iterations must be a whole number",
            ),
            (
                format!("{base} {spsa} alpha=0 {out}"),
                "-spsa alpha must be above 0",
            ),
            (
                format!("{base} {spsa} gamma=2 {out}"),
                "-spsa gamma must be a number from 0 to 1",
            ),
            (
                format!("{base} {spsa} A_ratio=x {out}"),
                "-spsa A_ratio must be a number",
            ),
            (
                format!("{base} {spsa} plot=p.jpg {out}"),
                "must end in .png or .svg",
            ),
            (
                format!("{base} {spsa} bogus=1 {out}"),
                "-spsa: unknown key \"bogus\"",
            ),
            (format!("{base} {spsa} {spsa} {out}"), "-spsa is given twice"),
            (
                format!("{base} {spsa} csv=/nonexistent/s.json {out}"),
                "need three different files",
            ),
            (
                format!("{base} {spsa} -config file=/nonexistent/s.json"),
                "other options (-engine) cannot be added",
            ),
            (
                "-config file=/nonexistent/s.json".to_string(),
                "cannot read /nonexistent/s.json",
            ),
            (
                format!("{base} -each depth=0 {spsa} {out}"),
                "depth must be a whole number from 1 to 1000",
            ),
            (
                format!("{base} {spsa} -config outname=a -config outname=b"),
                "-config is given twice",
            ),
        ] {
            let e = parse_run(&line).unwrap_err().to_string();
            assert!(e.contains(error), "{line}: {e}");
        }
    }

    #[test]
    fn a_new_run_does_not_overwrite_a_saved_one() {
        let dir = testing::temp("spsa-parse");
        let path = dir.join("s.json");
        std::fs::write(&path, state().to_json()).unwrap();
        let p = path.display();
        let e = parse_run(&format!(
            "-engine cmd=e -each nodes=1 -spsa params=q iterations=3 -config outname={p}"
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("holds a run already: resume it with arena spsa -config file="),
            "{e}"
        );
        let c = parse_run(&format!(
            "-engine cmd=e -each nodes=1 -spsa params=q iterations=3 -config file={p} discard=true"
        ))
        .unwrap();
        assert_eq!((c.state_file, c.resume), (p.to_string(), None));
        // A resume takes the saved command line, the saved paths and nothing else.
        let c = parse_run(&format!("-config file={p}")).unwrap();
        assert_eq!(c.resume, Some(state()));
        assert_eq!((c.spsa.schedule.iterations, c.csv.as_str()), (10, "a.csv"));
        let e = parse_run(&format!("-config file={p} -each nodes=3"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot be added"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn states_go_round_trip_exactly_and_broken_ones_are_refused() {
        let s = state();
        let again = SpsaState::from_json(&s.to_json()).unwrap();
        assert_eq!(again, s);
        assert_eq!(again.theta[1].to_bits(), (0.1f64 + 0.2).to_bits());
        let theta = format!("\"theta\":[{},", serde_json::to_string(&s.theta[0]).unwrap());
        for (from, to, why) in [
            (
                "\"arena_spsa\":1",
                "\"arena_spsa\":2",
                "not an arena spsa state of version 1",
            ),
            ("\"kind\":\"int\"", "\"kind\":\"long\"", "not int or float"),
            (
                "\"min\":0.0,\"max\":100.0",
                "\"min\":0.0,\"max\":50.0",
                "start (80) must lie in",
            ),
            (&theta, "\"theta\":[", "theta has 1 values for 2 parameters"),
            (&theta, "\"theta\":[161.0,", "lies outside [0, 100]"),
            ("\"k\":3", "\"k\":3,\"extra\":1", "unknown field `extra`"),
        ] {
            let text = s.to_json();
            assert!(text.contains(from), "{from} not in {text}");
            let e = SpsaState::from_json(&text.replace(from, to))
                .unwrap_err()
                .to_string();
            assert!(e.contains(why), "{to}: {e}");
        }
    }

    #[test]
    fn csv_rows_read_back_as_written() {
        let params = state().params;
        let text = format!(
            "{}{}{}",
            csv_header(&params),
            csv_row(0, 0, [0; 3], &[80.0, 0.5]),
            csv_row(1, 16, [5, 7, 4], &[79.25, 0.1 + 0.2])
        );
        assert!(
            text.starts_with("iteration,games,wins,draws,losses,x,y\n0,0,0,0,0,80,0.5\n1,16,5,7,4,79.25,")
        );
        let rows = read_csv(&text, &params).unwrap();
        assert_eq!(rows, [(0, vec![80.0, 0.5]), (1, vec![79.25, 0.1 + 0.2])]);
        assert!(read_csv("iteration,games,wins,draws,losses,x\n", &params).is_err());
        assert!(read_csv(&format!("{}1,2,3\n", csv_header(&params)), &params).is_err());
        assert_eq!(
            values_text(&params, &[61.5, 0.25]),
            "x, int, 62, 0, 100, 5, 0.2\ny, float, 0.25, 0, 1, 0.05, 0.002\noption.x=62 option.y=0.25"
        );
    }
}
