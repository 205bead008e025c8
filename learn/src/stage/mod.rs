//! The loop's stages, one type each, driven by the [`crate::run::Runner`]:
//!
//! | stage | file | its journal records | it resumes |
//! |---|---|---|---|
//! | self-play | `selfplay.rs` | `segment_started`, `segment_done` | in the open segment's datagen directory |
//! | training | `train.rs` | `train_started`, `exported` | from the trainer's checkpoint, by its `status.json` |
//! | screen (a recipe sweep's) | `screen.rs` | `screened` | from `trainer validate`'s JSON, or again |
//! | gate | `gate.rs` (`gate_math.rs`: the SPRT's reading) | `gate_started`, `gate_done` | from arena's saved state |
//! | promotion | `promote.rs` | `promoted`, `rejected` | from the gate's journaled verdict |
//! | gauntlet | `gauntlet.rs` | `gauntlet_started`, `gauntlet_done` | from arena's saved state |
//!
//! A stage writes a record before it acts on it, and reads where it is from the journal's
//! state ([`crate::journal::State`]) and its tool's files, never from a memory of its own:
//! what a stage holds is only its running child, so a stage dropped at any moment (a kill)
//! and made again from the journal goes on to the same records. A stage takes the settings
//! of when its tool starts; a tool that resumes from its own saved state keeps the settings
//! that state holds (docs/learn.md, "Resume after anything").
//!
//! [`Context`] is what every stage works with: the run directory, the settings and tools of
//! now, the journal and the state folded from it, and the count of failures in a row.

pub mod gate;
pub mod gate_math;
pub mod gauntlet;
pub mod promote;
pub mod screen;
pub mod selfplay;
#[cfg(all(test, unix))]
pub(crate) mod testkit;
pub mod train;

use crate::child::{spawn, Running};
use crate::config::Settings;
use crate::journal::{Candidate, Journal, Record, State};
use crate::rundir::RunDir;
use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A stage of the loop, stepped by the [`crate::run::Runner`] at every turn: it starts its
/// tool, looks at it, or journals what the tool finished, as the journal's state says.
pub trait Step {
    /// One step. Errors: the journal, a file the stage cannot read or write, its tool
    /// failing three times in a row.
    fn step(&mut self, cx: &mut Context) -> Result<()>;

    /// Its running tool, if any, taken to be stopped with the loop's other children.
    fn take_child(&mut self) -> Option<Running> {
        None
    }
}

/// The tools a run drives, by absolute paths.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolPaths {
    /// The engine.
    pub luft: PathBuf,
    /// Self-play.
    pub datagen: PathBuf,
    /// The trainer.
    pub trainer: PathBuf,
    /// The match runner.
    pub arena: PathBuf,
}

impl ToolPaths {
    /// The tools of `settings`, whose relative `[tools]` paths are read from `base` (the
    /// settings file's directory), an empty one the binary of that name next to `learn`.
    /// Errors: a tool that is not there, or is not a program (a directory, a file without an
    /// execute bit).
    pub fn of(settings: &Settings, base: &Path) -> Result<ToolPaths> {
        let here = std::env::current_exe()?
            .parent()
            .map(Path::to_path_buf)
            .ok_or_else(|| anyhow!("learn's own directory is unknown"))?;
        let pick = |set: &Path, name: &str| -> Result<PathBuf> {
            let p = if set.as_os_str().is_empty() {
                here.join(name)
            } else {
                crate::config::resolve(base, set)
            };
            if !p.exists() {
                bail!(
                    "{} not found: build the workspace (`cargo build --release`) or set [tools] {name} in learn.toml",
                    p.display()
                );
            }
            if !is_program(&p) {
                bail!(
                    "[tools] {name} = {}: not a program (a directory, or a file without the permission \
                     to run it); give the {name} binary",
                    p.display()
                );
            }
            Ok(std::path::absolute(&p)?)
        };
        let t = &settings.tools;
        Ok(ToolPaths {
            luft: pick(&t.luft, "luft")?,
            datagen: pick(&t.datagen, "datagen")?,
            trainer: pick(&t.trainer, "trainer")?,
            arena: pick(&t.arena, "arena")?,
        })
    }
}

/// Whether `path` may be a program: a regular file (through links) with any execute bit set
/// (on Unix; elsewhere a regular file). Whether this user may run it is the start's to say.
fn is_program(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// `text` on stdout after the time of day (UTC, `[HH:MM:SS]`).
pub fn say(text: &str) {
    let t = crate::journal::now();
    let (h, m, s) = ((t / 3600) % 24, (t / 60) % 60, t % 60);
    output::outln!("[{h:02}:{m:02}:{s:02}] {text}");
}

/// What every stage works with: the run directory, the settings and tools of now, the
/// journal and the state folded from it, and the failures in a row.
#[derive(Debug)]
pub struct Context {
    /// The run directory.
    pub run: RunDir,
    /// The settings of now (`learn.toml` as last read and checked).
    pub settings: Settings,
    /// The tools of those settings.
    pub tools: ToolPaths,
    /// The state folded from the journal's records.
    pub state: State,
    /// How long to wait after a failure before the stage tries again.
    pub retry_pause: Duration,
    journal: Journal,
    records: Vec<Record>,
    failures: u32,
}

impl Context {
    /// The run in `run`: its settings (checked), its tools, its journal (a torn last line
    /// cut off) and the state folded from it. Errors: settings that do not load or check, a
    /// tool that is not there, a damaged journal, a journal without a start net.
    pub fn open(run: RunDir) -> Result<Context> {
        // The journal first: a run without its start record says so (and how to go on)
        // before anything about its settings or tools.
        let (journal, records) = Journal::open(&run.journal())?;
        let state = State::replay(&records);
        if state.best.is_none() {
            return Err(run.no_start_error());
        }
        let settings = Settings::load(&run.settings())?;
        let tools = ToolPaths::of(&settings, &run.root)?;
        Ok(Context {
            run,
            settings,
            tools,
            state,
            retry_pause: Duration::from_secs(2),
            journal,
            records,
            failures: 0,
        })
    }

    /// Appends `r` to the journal (synced) and folds it into the state.
    pub fn record(&mut self, r: Record) -> Result<()> {
        self.journal.append(&r)?;
        self.records.push(r);
        self.state = State::replay(&self.records);
        Ok(())
    }

    /// The journal's records so far.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Where the run was, by the absolute paths of a journal written before 2026-12-06
    /// ([`Journal::old_roots`]).
    pub fn old_roots(&self) -> &[PathBuf] {
        self.journal.old_roots()
    }

    /// The open candidate (neither promoted nor rejected) when its stage is one `at` takes.
    pub fn open_candidate_in(&self, at: impl Fn(&crate::journal::Stage) -> bool) -> Option<Candidate> {
        self.state.open_candidate().filter(|c| at(&c.stage)).cloned()
    }

    /// The best net: its name, its file (relative to the run directory) and generation.
    pub fn best(&self) -> (String, PathBuf, u32) {
        self.state.best.clone().unwrap_or_default()
    }

    /// [`Context::failed`] for a child that ended by itself: `what` followed by the last
    /// lines of its log `log` (a name under the run's `logs/`, `RunDir::log`).
    pub fn child_failed(&mut self, what: &str, log: &str) -> Result<()> {
        let tail = crate::child::log_tail(&self.run.log(log));
        self.failed(&format!("{what}{tail}"))
    }

    /// A child failed: counted; three in a row stop the run with the reason (an error),
    /// otherwise the stage tries again after [`Context::retry_pause`].
    pub fn failed(&mut self, what: &str) -> Result<()> {
        self.failures += 1;
        say(&format!(
            "learn: {what} (failure {} of 3 in a row)",
            self.failures
        ));
        if self.failures >= 3 {
            bail!("{what}, three times in a row");
        }
        std::thread::sleep(self.retry_pause);
        Ok(())
    }

    /// A child did its work: the failures in a row start again from none.
    pub fn succeeded(&mut self) {
        self.failures = 0;
    }

    /// Starts `program` with `args` in the run directory ([`spawn`]), its output appended
    /// to `logs/LOG.log`, and lists it in `DIR/lock.children` for a later run to wait on.
    pub fn spawn(&self, program: &Path, args: &[String], log: &str, threads: usize) -> Result<Running> {
        let child = spawn(program, args, &self.run.root, &self.run.log(log))?;
        let exe = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
        let mut list = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.run.root.join("lock.children"))?;
        std::io::Write::write_all(
            &mut list,
            format!("{} {}\n", child.id(), exe.display()).as_bytes(),
        )?;
        Ok(Running::new(child, threads))
    }
}

/// An arena `-each` limit: `nodes` a move (and no clock) when above 0, else the clock `tc`.
pub fn limit_args(nodes: u64, tc: &str) -> Vec<String> {
    if nodes > 0 {
        vec!["tc=inf".into(), format!("nodes={nodes}")]
    } else {
        vec![format!("tc={tc}")]
    }
}

/// The end of a gate's or gauntlet's arena command line: `rounds` encounters of two games,
/// `concurrency` at once, engines restarted after a fault, a report every `rating_interval`
/// pairs, the PGN and the saved state in `dir`.
pub fn match_args(rounds: u64, concurrency: usize, rating_interval: u32, dir: &Path) -> Vec<String> {
    vec![
        "-rounds".into(),
        rounds.to_string(),
        "-games".into(),
        "2".into(),
        "-concurrency".into(),
        concurrency.to_string(),
        "-recover".into(),
        "-ratinginterval".into(),
        rating_interval.to_string(),
        "-pgnout".into(),
        format!("file={}", dir.join("games.pgn").display()),
        "-config".into(),
        format!("outname={}", dir.join("state.json").display()),
    ]
}

/// Readies `dir` (relative to the run directory) for a match started afresh, with no saved
/// state: removes a `games.pgn` a killed first start left there. arena appends to the PGN it
/// finds, as fastchess does, and saves its state only after a game, so a kill between the
/// two leaves games no state accounts for; read with the new start's, they would be counted
/// twice. Errors: the file cannot be removed.
pub fn clear_unsaved_games(run: &RunDir, dir: &Path) -> Result<()> {
    let pgn = run.path(&dir.join("games.pgn"));
    match std::fs::remove_file(&pgn) {
        Ok(()) => {
            say(&format!(
                "learn: {} held games of a start killed before its first saved state: removed",
                dir.join("games.pgn").display()
            ));
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(anyhow!("cannot remove {}: {e}", pgn.display())),
    }
}

/// arena's openings for gates and gauntlets: `[gate] openings`, or the book arena ships
/// (written into the run directory), in random order from `seed`.
pub fn book_args(settings: &Settings, seed: u64) -> Vec<String> {
    let book = if settings.gate.openings.as_os_str().is_empty() {
        PathBuf::from(RunDir::BOOK)
    } else {
        settings.gate.openings.clone()
    };
    vec![
        "-openings".into(),
        format!("file={}", book.display()),
        "format=epd".into(),
        "order=random".into(),
        "-srand".into(),
        seed.to_string(),
    ]
}
