//! The run's state folded from the journal's records ([`State::replay`]): the best net and
//! the chain of promoted nets, the self-play segments, every candidate with the stage it is
//! in, and every gauntlet. The loop decides its next step from it; `learn status` and `learn
//! report` show it.

use super::{DataSlice, GateResult, Record, SweepTag};
use std::path::PathBuf;

/// A self-play segment as the journal knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// Number from 0.
    pub index: u64,
    /// datagen directory.
    pub dir: PathBuf,
    /// The net that plays it.
    pub net: String,
    /// `classical` or `dfrc`.
    pub openings: String,
    /// datagen's position target.
    pub target: u64,
    /// datagen seed.
    pub seed: u64,
    /// (games, positions) once done.
    pub done: Option<(u64, u64)>,
    /// Unix time it started.
    pub started: u64,
}

/// Where a candidate is.
#[derive(Clone, Debug, PartialEq)]
pub enum Stage {
    /// Training (or to be resumed).
    Training,
    /// A sweep's candidate, exported, waiting for the rest of its sweep and the screen.
    Trained,
    /// Exported (a sweep's: picked by the screen), the gate not started.
    Exported,
    /// Playing its gate.
    Gating,
    /// The gate decided, not yet promoted or rejected.
    Decided,
    /// Promoted.
    Promoted,
    /// Rejected.
    Rejected(String),
    /// A sweep's candidate the screen did not pick (why: its loss and the picked one's).
    ScreenedOut(String),
}

/// A candidate as the journal knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Number (generation).
    pub cand: u32,
    /// Name.
    pub name: String,
    /// Trainer directory.
    pub dir: PathBuf,
    /// The data.
    pub data: Vec<DataSlice>,
    /// Segments in its data.
    pub segments: Vec<u64>,
    /// Trainer arguments as a journal before 2026-12-06 froze them (empty since: see
    /// `DIR/candidates/cK/command.json`).
    pub args: Vec<String>,
    /// The best net it was trained from and gated against.
    pub parent: String,
    /// Where it is.
    pub stage: Stage,
    /// Exported net, its fingerprint and validation loss.
    pub net: Option<PathBuf>,
    /// Fingerprint.
    pub fingerprint: Option<String>,
    /// Validation loss.
    pub val_loss: Option<f64>,
    /// Gate outcome.
    pub gate: Option<GateResult>,
    /// Seconds spent training and gating.
    pub train_secs: u64,
    /// Seconds spent in the gate.
    pub gate_secs: u64,
    /// Unix times the stages started.
    pub train_started: u64,
    /// When the gate started.
    pub gate_started: Option<u64>,
    /// Its place in a recipe sweep, if any.
    pub sweep: Option<SweepTag>,
    /// Its loss on the sweep's held-out data, once screened.
    pub screen_loss: Option<f64>,
}

/// A sweep's screen as the journal knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Screen {
    /// The sweep (its first candidate's number).
    pub first: u32,
    /// The held-out data.
    pub data: Vec<DataSlice>,
    /// The WDL weight of the measure.
    pub wdl: f64,
    /// Positions measured.
    pub positions: u64,
    /// The candidate picked for the gate.
    pub picked: u32,
}

/// A gauntlet as the journal knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Gauntlet {
    /// The promoted net's name.
    pub net: String,
    /// arena's arguments as a journal before 2026-12-06 froze them (empty since).
    pub args: Vec<String>,
    /// Games it plays in all.
    pub games: u64,
    /// Unix time it started.
    pub started: u64,
    /// Once rated: (games, Elo, its interval, the ratings table).
    pub done: Option<(u64, Option<f64>, Option<f64>, String)>,
    /// Seconds it took.
    pub secs: u64,
}

/// The run's state, folded from the journal.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    /// The best net: (name, file, generation number).
    pub best: Option<(String, PathBuf, u32)>,
    /// Every promoted net in order, the first one the start: (name, file, Elo over its
    /// parent by its gate).
    pub chain: Vec<(String, PathBuf, f64)>,
    /// Segments in order.
    pub segments: Vec<Segment>,
    /// Candidates in order.
    pub candidates: Vec<Candidate>,
    /// Gauntlets in order.
    pub gauntlets: Vec<Gauntlet>,
    /// Sweeps' screens in order.
    pub screens: Vec<Screen>,
    /// Settings changes, in order: (time, lines).
    pub settings: Vec<(u64, Vec<String>)>,
    /// Start time of the run.
    pub started: u64,
}

impl State {
    /// Folds the records.
    pub fn replay(records: &[Record]) -> State {
        let mut s = State::default();
        for r in records {
            match r {
                Record::Init { t, net, name, gen } => {
                    s.started = *t;
                    s.best = Some((name.clone(), net.clone(), *gen));
                    s.chain.push((name.clone(), net.clone(), 0.0));
                }
                Record::Settings { t, changes } => s.settings.push((*t, changes.clone())),
                Record::SegmentStarted {
                    t,
                    index,
                    dir,
                    net,
                    openings,
                    target,
                    seed,
                } => s.segments.push(Segment {
                    index: *index,
                    dir: dir.clone(),
                    net: net.clone(),
                    openings: openings.clone(),
                    target: *target,
                    seed: *seed,
                    done: None,
                    started: *t,
                }),
                Record::SegmentDone {
                    index,
                    games,
                    positions,
                    ..
                } => {
                    if let Some(seg) = s.segments.iter_mut().find(|g| g.index == *index) {
                        seg.done = Some((*games, *positions));
                    }
                }
                Record::TrainStarted {
                    t,
                    cand,
                    name,
                    dir,
                    data,
                    segments,
                    args,
                    sweep,
                } => s.candidates.push(Candidate {
                    cand: *cand,
                    name: name.clone(),
                    dir: dir.clone(),
                    data: data.clone(),
                    segments: segments.clone(),
                    args: args.clone(),
                    parent: s.best.as_ref().map_or(String::new(), |b| b.0.clone()),
                    stage: Stage::Training,
                    net: None,
                    fingerprint: None,
                    val_loss: None,
                    gate: None,
                    train_secs: 0,
                    gate_secs: 0,
                    train_started: *t,
                    gate_started: None,
                    sweep: sweep.clone(),
                    screen_loss: None,
                }),
                Record::Exported {
                    cand,
                    net,
                    fingerprint,
                    val_loss,
                    train_secs,
                    ..
                } => {
                    if let Some(c) = s.candidate_mut(*cand) {
                        c.stage = if c.sweep.is_some() {
                            Stage::Trained
                        } else {
                            Stage::Exported
                        };
                        c.net = Some(net.clone());
                        c.fingerprint = Some(fingerprint.clone());
                        c.val_loss = *val_loss;
                        c.train_secs = *train_secs;
                    }
                }
                Record::Screened {
                    first,
                    data,
                    wdl,
                    positions,
                    entries,
                    picked,
                    ..
                } => {
                    let best = entries.iter().find(|e| e.cand == *picked).and_then(|e| e.loss);
                    let picked_name = entries
                        .iter()
                        .find(|e| e.cand == *picked)
                        .map_or(String::new(), |e| e.name.clone());
                    for e in entries {
                        if let Some(c) = s.candidate_mut(e.cand) {
                            c.screen_loss = e.loss;
                            c.stage = if e.cand == *picked {
                                Stage::Exported
                            } else {
                                Stage::ScreenedOut(format!(
                                    "screen loss {} against {picked_name}'s {}",
                                    loss_text(e.loss),
                                    loss_text(best)
                                ))
                            };
                        }
                    }
                    s.screens.push(Screen {
                        first: *first,
                        data: data.clone(),
                        wdl: *wdl,
                        positions: *positions,
                        picked: *picked,
                    });
                }
                Record::GateStarted { t, cand, .. } => {
                    if let Some(c) = s.candidate_mut(*cand) {
                        c.stage = Stage::Gating;
                        c.gate_started = Some(*t);
                    }
                }
                Record::GateDone {
                    cand,
                    result,
                    gate_secs,
                    ..
                } => {
                    if let Some(c) = s.candidate_mut(*cand) {
                        c.stage = Stage::Decided;
                        c.gate = Some(result.clone());
                        c.gate_secs = *gate_secs;
                    }
                }
                Record::Promoted { cand, net, .. } => {
                    let mut promoted = None;
                    if let Some(c) = s.candidate_mut(*cand) {
                        c.stage = Stage::Promoted;
                        promoted = Some((c.name.clone(), c.gate.as_ref().map_or(0.0, |g| g.elo)));
                    }
                    if let Some((cand_name, elo)) = promoted {
                        // The promoted net's own name (gen14-128), not the candidate's.
                        let name = net
                            .file_stem()
                            .map_or(cand_name, |n| n.to_string_lossy().into_owned());
                        let gen = s.best.as_ref().map_or(0, |b| b.2) + 1;
                        s.best = Some((name.clone(), net.clone(), gen));
                        s.chain.push((name, net.clone(), elo));
                    }
                }
                Record::Rejected { cand, why, .. } => {
                    if let Some(c) = s.candidate_mut(*cand) {
                        c.stage = Stage::Rejected(why.clone());
                    }
                }
                Record::GauntletStarted { t, net, args, games } => {
                    // A gauntlet started again (settings changed before it began) replaces
                    // its unfinished record.
                    s.gauntlets.retain(|g| !(g.net == *net && g.done.is_none()));
                    s.gauntlets.push(Gauntlet {
                        net: net.clone(),
                        args: args.clone(),
                        games: *games,
                        started: *t,
                        done: None,
                        secs: 0,
                    });
                }
                Record::GauntletDone {
                    t,
                    net,
                    games,
                    elo,
                    elo_error,
                    ratings,
                } => {
                    if let Some(g) = s
                        .gauntlets
                        .iter_mut()
                        .rev()
                        .find(|g| g.net == *net && g.done.is_none())
                    {
                        g.done = Some((*games, *elo, *elo_error, ratings.clone()));
                        g.secs = t.saturating_sub(g.started);
                    }
                }
                Record::Stopped { .. } => {}
            }
        }
        s
    }

    /// The gauntlet started and not yet rated, if any.
    pub fn open_gauntlet(&self) -> Option<&Gauntlet> {
        self.gauntlets.iter().find(|g| g.done.is_none())
    }

    /// The first promoted net due a gauntlet (every `every`-th promotion, counted from the
    /// run's first) that has none started: (name, net file).
    pub fn due_gauntlet(&self, every: u32) -> Option<(String, PathBuf)> {
        if every == 0 {
            return None;
        }
        self.chain
            .iter()
            .skip(1)
            .enumerate()
            .filter(|(i, _)| (*i as u64 + 1).is_multiple_of(u64::from(every)))
            .map(|(_, (name, net, _))| (name.clone(), net.clone()))
            .find(|(name, _)| !self.gauntlets.iter().any(|g| &g.net == name))
    }

    fn candidate_mut(&mut self, cand: u32) -> Option<&mut Candidate> {
        self.candidates.iter_mut().find(|c| c.cand == cand)
    }

    /// The candidate not yet promoted or rejected, if any: the newest one, or, after a
    /// sweep's screen, the one it picked (the newest not screened out).
    pub fn open_candidate(&self) -> Option<&Candidate> {
        self.candidates
            .iter()
            .rev()
            .find(|c| !matches!(c.stage, Stage::ScreenedOut(_)))
            .filter(|c| !matches!(c.stage, Stage::Promoted | Stage::Rejected(_)))
    }

    /// The candidates of the sweep `first`, in training order.
    pub fn sweep_of(&self, first: u32) -> Vec<&Candidate> {
        self.candidates
            .iter()
            .filter(|c| c.sweep.as_ref().is_some_and(|w| w.first == first))
            .collect()
    }

    /// The segment still playing, if any.
    pub fn open_segment(&self) -> Option<&Segment> {
        self.segments.last().filter(|s| s.done.is_none())
    }
}

/// A loss for the journal's words: six decimals, or `?`.
pub fn loss_text(loss: Option<f64>) -> String {
    loss.map_or("?".into(), |v| format!("{v:.6}"))
}
