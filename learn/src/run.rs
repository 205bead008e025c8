//! `learn run`: the loop that drives the stages ([`crate::stage`]). Self-play (`datagen`)
//! plays in segments, one datagen directory each, always with the best net; once enough
//! finished segments have arrived, a candidate is trained (`trainer train`), exported, and
//! gated by an `arena` SPRT against the best net on the same binary (with `[train]
//! recipes`, one candidate per recipe, the one `trainer validate` screens best gated); H1
//! promotes it, H0 or the game cap rejects it; a promoted net due a gauntlet plays it
//! before the next candidate. Self-play goes on while a candidate trains or plays its gate, with
//! `[selfplay] threads_busy` threads, and with `threads_idle` otherwise.
//!
//! The [`Runner`] holds no state of its own beyond its children: at every step it picks the
//! candidate's stage from the journal ([`Track`]), then steps the gauntlet and self-play,
//! which run beside it. Every step is a journal record written before it is acted on
//! ([`crate::journal`]), and each tool resumes itself: datagen from its directory, the
//! trainer from its checkpoint, arena from its saved state. The children run in process
//! groups of their own and get SIGINT if `learn` dies (`PR_SET_PDEATHSIG`), so a terminal's
//! Ctrl-C reaches `learn` alone: it stops its children itself, each saving its state, and a
//! later `learn run` goes on where it was. One run per directory: `DIR/lock`.

use crate::child::{stop_all, wait_for_orphans, Running};
use crate::config::Settings;
use crate::journal::{now, Record, Stage, State};
use crate::rundir::RunDir;
use crate::stage::gate::Gate;
use crate::stage::gauntlet::Gauntlet;
use crate::stage::promote::Promotion;
use crate::stage::screen::Screening;
use crate::stage::selfplay::SelfPlay;
use crate::stage::train::Training;
use crate::stage::{say, Context, Step, ToolPaths};
use anyhow::{bail, Context as _, Result};
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use crate::stage::gate_math::{fit_gate_rounds, gate_reading, gate_rounds, gate_verdict};

/// How often the loop looks at its children.
const POLL: Duration = Duration::from_millis(200);

/// Why a run stopped when it was asked to (the journal's `stopped` record).
const INTERRUPTED: &str = "interrupted";

/// How long a new run tries the lock that a gone run's starting tool may still hold for a
/// moment ([`Runner::open`]).
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// When the run ends by itself.
#[derive(Clone, Copy, Debug)]
pub enum Until {
    /// Until stopped.
    Stopped,
    /// At this instant.
    At(Instant),
    /// Once this many candidates (in all, this run and earlier ones) are decided.
    Candidates(usize),
}

/// Where the candidate track is, by the journal: the stage that steps next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Track {
    /// No candidate is open and the next one is due: it starts training.
    StartTraining,
    /// The open candidate trains (or is exported).
    Training,
    /// Every recipe of the open sweep is trained: the screen picks the one to gate.
    Screen,
    /// The open candidate is exported or plays its gate.
    Gate,
    /// The open candidate's gate decided: promotion or rejection.
    Promotion,
    /// No candidate is open and none is due yet (or a gauntlet comes first).
    Waiting,
}

impl Track {
    /// The candidate track's stage in `cx`'s journal state.
    pub fn of(cx: &Context) -> Track {
        match cx.state.open_candidate().map(|c| &c.stage) {
            Some(Stage::Training) => Track::Training,
            Some(Stage::Trained) => {
                let next = cx.state.open_candidate().and_then(|c| c.sweep.as_ref()?.next());
                if next.is_some() {
                    Track::StartTraining
                } else {
                    Track::Screen
                }
            }
            Some(Stage::Exported | Stage::Gating) => Track::Gate,
            Some(Stage::Decided) => Track::Promotion,
            Some(Stage::Promoted | Stage::Rejected(_) | Stage::ScreenedOut(_)) => Track::Waiting,
            None if Training::due(cx) => Track::StartTraining,
            None => Track::Waiting,
        }
    }
}

/// The candidate's stages, stepped by [`Track`]: training, a sweep's screen, the gate and
/// the promotion, one at a time.
#[derive(Debug, Default)]
pub struct CandidateStages {
    training: Training,
    screening: Screening,
    gate: Gate,
    promotion: Promotion,
}

impl CandidateStages {
    /// Their running tools, taken to be stopped with the loop's other children.
    fn take_children(&mut self) -> Vec<Running> {
        let all = [
            self.training.take_child(),
            self.screening.take_child(),
            self.gate.take_child(),
        ];
        all.into_iter().flatten().collect()
    }
}

impl Step for CandidateStages {
    /// One step of the stage the journal's [`Track`] names. Errors: that stage's.
    fn step(&mut self, cx: &mut Context) -> Result<()> {
        match Track::of(cx) {
            Track::StartTraining => Training::start(cx),
            Track::Training => self.training.step(cx),
            Track::Screen => self.screening.step(cx),
            Track::Gate => self.gate.step(cx),
            Track::Promotion => self.promotion.step(cx),
            Track::Waiting => Ok(()),
        }
    }

    /// The running tool (at most one runs at a time).
    fn take_child(&mut self) -> Option<Running> {
        self.take_children().into_iter().next()
    }
}

/// The loop over one run directory: the stages and what they share.
#[derive(Debug)]
pub struct Runner {
    cx: Context,
    settings_text: String,
    selfplay: SelfPlay,
    candidate: CandidateStages,
    gauntlet: Gauntlet,
    stop: Arc<AtomicBool>,
    until: Until,
    _lock: File,
}

impl Runner {
    /// Opens the run directory: takes its lock, waits for the children of an earlier run,
    /// reads settings and journal, and journals the settings as first read or changed
    /// since the last run read them. Errors: no run there, another `learn run` on it,
    /// settings that do not check, a damaged journal.
    pub fn open(dir: &Path, stop: Arc<AtomicBool>, until: Until) -> Result<Runner> {
        let run = RunDir::new(dir)?;
        if !run.journal().exists() {
            return Err(run.no_start_error());
        }
        let lock_path = run.root.join("lock");
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .read(true)
            .open(&lock_path)
            .with_context(|| format!("cannot open {}", lock_path.display()))?;
        // A run killed while it started a tool leaves the lock, for a moment, with the tool's
        // process between its fork and its exec (the lock's descriptor is closed at the exec,
        // or the process exits on seeing its parent gone): the lock is tried again for a
        // while when the run that wrote lock.pid is gone, and refused at once while it lives.
        let waited = std::time::Instant::now();
        loop {
            match fs4::FileExt::try_lock(&lock) {
                Ok(()) => break,
                Err(fs4::TryLockError::WouldBlock) => {
                    let pid = std::fs::read_to_string(run.root.join("lock.pid")).unwrap_or_default();
                    let holder_gone = pid.trim().parse::<u32>().is_ok_and(|p| !crate::child::alive(p));
                    if !holder_gone || waited.elapsed() > LOCK_WAIT {
                        bail!(
                            "another `learn run` holds {} (pid {}): one run per directory",
                            dir.display(),
                            pid.trim()
                        );
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(fs4::TryLockError::Error(e)) => return Err(e).context("cannot lock the run directory"),
            }
        }
        std::fs::write(run.root.join("lock.pid"), std::process::id().to_string())?;
        let settings_text = std::fs::read_to_string(run.settings()).unwrap_or_default();
        let cx = Context::open(run)?;
        let t = &cx.tools;
        wait_for_orphans(
            &cx.run.root.join("lock.children"),
            &cx.run.root,
            &[&t.arena, &t.datagen, &t.trainer, &t.luft],
        );
        let mut runner = Runner {
            cx,
            settings_text,
            selfplay: SelfPlay::default(),
            candidate: CandidateStages::default(),
            gauntlet: Gauntlet::default(),
            stop,
            until,
            _lock: lock,
        };
        // The settings as first read, and any change since the last run read them.
        let seen = runner
            .cx
            .records()
            .iter()
            .any(|r| matches!(r, Record::Settings { .. }));
        match seen.then(|| runner.last_settings()).flatten() {
            None => {
                runner.cx.record(Record::Settings {
                    t: now(),
                    changes: vec!["settings as first read".into()],
                })?;
                runner.save_settings_snapshot()?;
            }
            Some(old) => {
                let changes = old.changes(&runner.cx.settings);
                if !changes.is_empty() {
                    runner.cx.record(Record::Settings { t: now(), changes })?;
                    runner.save_settings_snapshot()?;
                }
            }
        }
        Ok(runner)
    }

    fn last_settings(&self) -> Option<Settings> {
        let text = std::fs::read_to_string(self.cx.run.logs().join("settings.applied.toml")).ok()?;
        toml::from_str(&text).ok()
    }

    fn save_settings_snapshot(&self) -> Result<()> {
        std::fs::create_dir_all(self.cx.run.logs())?;
        std::fs::write(
            self.cx.run.logs().join("settings.applied.toml"),
            self.cx.settings.to_toml()?,
        )?;
        Ok(())
    }

    /// Runs until stopped, or until `until`; journals why it stopped (`stopped`). Returns
    /// whether it was interrupted (Ctrl-C or SIGTERM: `learn run` then exits 130, as
    /// datagen and the trainer do) rather than ending at `until`. Errors: what stopped the
    /// loop (a stage failing three times in a row, the journal, ...).
    pub fn run(&mut self) -> Result<bool> {
        let (best, _, _) = self.cx.best();
        say(&format!(
            "learn: running {} (best net {best}; {}, {} so far)",
            self.cx.run.root.display(),
            output::count(self.cx.state.segments.len() as u64, "segment"),
            output::count(self.cx.state.candidates.len() as u64, "candidate")
        ));
        let result = self.main_loop();
        let why = match &result {
            Ok(why) => why.clone(),
            Err(e) => format!("error: {e:#}"),
        };
        self.stop_children();
        let _ = self.cx.record(Record::Stopped {
            t: now(),
            why: why.clone(),
        });
        say(&format!(
            "learn: stopped ({why}); `learn run {}` resumes",
            self.cx.run.root.display()
        ));
        result.map(|why| why == INTERRUPTED)
    }

    fn main_loop(&mut self) -> Result<String> {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(INTERRUPTED.into());
            }
            match self.until {
                Until::At(t) if Instant::now() >= t => {
                    self.selfplay.pack(&self.cx, &self.stop);
                    return Ok("the set time was reached".into());
                }
                Until::Candidates(n) if decided(&self.cx.state) >= n => {
                    self.selfplay.pack(&self.cx, &self.stop);
                    return Ok(format!("{} decided", output::count(n as u64, "candidate")));
                }
                _ => {}
            }
            self.reload_settings()?;
            self.step()?;
            std::thread::sleep(POLL);
        }
    }

    /// One step of every stage under way: the candidate's (by [`Track`]), the gauntlet's
    /// and self-play's, then the packing of finished segments.
    fn step(&mut self) -> Result<()> {
        let cx = &mut self.cx;
        self.candidate.step(cx)?;
        self.gauntlet.step(cx)?;
        self.selfplay.step(cx)?;
        self.selfplay.pack(cx, &self.stop);
        Ok(())
    }

    /// Applies a changed learn.toml from the next stage (a bad file is reported and the old
    /// settings kept).
    fn reload_settings(&mut self) -> Result<()> {
        let text = std::fs::read_to_string(self.cx.run.settings()).unwrap_or_default();
        if text == self.settings_text {
            return Ok(());
        }
        self.settings_text = text;
        let new = match Settings::load(&self.cx.run.settings()) {
            Ok(new) => new,
            Err(e) => {
                say(&format!(
                    "learn: learn.toml not applied, the old settings stay: {e:#}"
                ));
                return Ok(());
            }
        };
        let changes = self.cx.settings.changes(&new);
        if changes.is_empty() {
            return Ok(());
        }
        // The tools are checked like the rest: one that is not there keeps the old settings.
        let tools = match ToolPaths::of(&new, &self.cx.run.root) {
            Ok(tools) => tools,
            Err(e) => {
                say(&format!(
                    "learn: learn.toml not applied, the old settings stay: {e:#}"
                ));
                return Ok(());
            }
        };
        // A new cap for the gate in flight: its arena stops (saving its state) and the next
        // step resumes it with the new cap.
        if new.gate.max_games != self.cx.settings.gate.max_games {
            self.candidate.gate.cap_changed();
        }
        say(&format!("learn: settings changed: {}", changes.join("; ")));
        self.cx.settings = new;
        self.cx.tools = tools;
        self.cx.record(Record::Settings { t: now(), changes })?;
        self.save_settings_snapshot()
    }

    /// Stops every child with SIGINT (each saves its state), waiting for each.
    fn stop_children(&mut self) {
        let mut all = self.candidate.take_children();
        all.extend(self.selfplay.take_child());
        all.extend(self.gauntlet.take_child());
        stop_all(all);
    }
}

/// Candidates promoted or rejected, in all.
fn decided(state: &State) -> usize {
    state
        .candidates
        .iter()
        .filter(|c| matches!(c.stage, Stage::Promoted | Stage::Rejected(_)))
        .count()
}

#[cfg(all(test, unix))]
#[path = "run_tests.rs"]
mod tests;
