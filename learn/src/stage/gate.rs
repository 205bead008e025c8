//! The gate stage: `arena` plays the exported candidate against the best net on one `luft`
//! (both through `EvalFile`), an SPRT with `[gate]`'s bounds at its time control (or fixed
//! nodes between nets of one architecture), over the gate's book, `-recover`, saving its
//! state in `gates/cK/state.json`; the verdict is read from that state ([`gate_math`]).
//!
//! Records: `gate_started` (before arena first starts), `gate_done` (the verdict, the
//! pentanomial counts, Elo and LLR). Resume rule: a gate without a saved state (no game
//! finished) starts with the settings of now; one with a saved state resumes from it with
//! its engines, limits and openings, its `-rounds` fitted to `[gate] max_games` of now
//! (raised or lowered; a cap already reached decides at once), and one the state shows
//! decided is journaled without playing on. A changed `max_games` also stops the arena in
//! flight, which then resumes with the new cap ([`Gate::cap_changed`]).

use super::gate_math::{self, fit_gate_rounds, gate_rounds, relocate_saved_state};
use super::{book_args, clear_unsaved_games, limit_args, match_args, say, Context, Step};
use crate::child::{poll, Running};
use crate::journal::{now, Candidate, Record, Stage};
use crate::rundir::RunDir;
use anyhow::{anyhow, Result};
use std::path::{Path, PathBuf};

/// The gate stage: its arena, when one runs.
#[derive(Debug, Default)]
pub struct Gate {
    child: Option<Running>,
}

impl Gate {
    /// `[gate] max_games` changed: the arena in flight stops, saving its state, and the
    /// next step resumes it with the new cap.
    pub fn cap_changed(&mut self) {
        if let Some(r) = self.child.as_mut() {
            r.stop();
        }
    }

    fn start(&mut self, cx: &mut Context, cand: &Candidate) -> Result<()> {
        // The command line is checked here, made when arena starts (`spawn`).
        gate_args(cx, cand)?;
        std::fs::create_dir_all(cx.run.path(&gate_dir(cand)))?;
        cx.record(Record::GateStarted {
            t: now(),
            cand: cand.cand,
            args: Vec::new(),
        })?;
        let cand = cx
            .state
            .open_candidate()
            .cloned()
            .ok_or_else(|| anyhow!("the candidate vanished"))?;
        self.spawn(cx, &cand)
    }

    fn spawn(&mut self, cx: &mut Context, cand: &Candidate) -> Result<()> {
        let state_rel = gate_dir(cand).join("state.json");
        let state_file = cx.run.path(&state_rel);
        // A gate under way resumes from arena's saved state (written once a game has
        // finished); one not yet under way takes the settings of now (a journal's frozen
        // command line is never run), so a gate stopped by a setting is retried with the
        // mended one.
        let args: Vec<String> = if state_file.exists() {
            vec!["-config".into(), format!("file={}", state_rel.display())]
        } else {
            clear_unsaved_games(&cx.run, &gate_dir(cand))?;
            gate_args(cx, cand)?
        };
        if state_file.exists() {
            // Both engines are learn's luft.
            relocate_saved_state(&state_file, usize::MAX, &cx.tools.luft, cx.old_roots())?;
            // The cap is learn.toml's now: a gate resumes with its saved rounds fitted to
            // `max_games`, raised or lowered (a raised cap plays on past the old one).
            let rounds = gate_rounds(cx.settings.gate.max_games);
            if let Some(old) = fit_gate_rounds(&state_file, rounds)? {
                say(&format!(
                    "learn: gate of {}: at most {} games now (was {}), as learn.toml says",
                    cand.name,
                    rounds * 2,
                    old * 2
                ));
            }
            // A gate that decided before the stop is read, not played on.
            if let Some(result) = result(cx, cand)? {
                self.child = None;
                let gate_secs = now().saturating_sub(cand.gate_started.unwrap_or(now()));
                return cx.record(Record::GateDone {
                    t: now(),
                    cand: cand.cand,
                    result,
                    gate_secs,
                });
            }
        }
        say(&format!(
            "learn: gate of {} against {} ({})",
            cand.name,
            cx.best().0,
            if state_file.exists() { "resumed" } else { "started" }
        ));
        let log = format!("gate-c{}", cand.cand);
        self.child = Some(cx.spawn(&cx.tools.arena, &args, &log, cx.settings.gate.concurrency)?);
        Ok(())
    }
}

impl Step for Gate {
    /// One step of the open candidate, exported or gating (nothing while there is none):
    /// journals and starts its gate, starts (or resumes) arena, or looks at the one running
    /// and journals the verdict once arena's state has one. Errors: the journal, a state
    /// that cannot be read, arena failing three times in a row.
    fn step(&mut self, cx: &mut Context) -> Result<()> {
        let Some(cand) = cx.open_candidate_in(|s| matches!(s, Stage::Exported | Stage::Gating)) else {
            return Ok(());
        };
        let cand = &cand;
        if cand.stage == Stage::Exported {
            return self.start(cx, cand);
        }
        if self.child.is_none() {
            return self.spawn(cx, cand);
        }
        if let Some(status) = poll(&mut self.child)? {
            match result(cx, cand)? {
                Some(result) => {
                    cx.succeeded();
                    let gate_secs = now().saturating_sub(cand.gate_started.unwrap_or(now()));
                    say(&format!(
                        "learn: gate of {} decided: {} after {} games, {} Elo, LLR {:.2}",
                        cand.name,
                        result.verdict,
                        result.games,
                        crate::journal::elo_text(&result),
                        result.llr
                    ));
                    cx.record(Record::GateDone {
                        t: now(),
                        cand: cand.cand,
                        result,
                        gate_secs,
                    })?;
                }
                // It ended by itself before it decided (the loop's own stops report
                // nothing): a failure, resumed on the next step.
                None => {
                    cx.child_failed(
                        &format!("arena for the gate of {} failed ({status})", cand.name),
                        &format!("gate-c{}", cand.cand),
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Its arena, taken to be stopped with the loop's other children.
    fn take_child(&mut self) -> Option<Running> {
        self.child.take()
    }
}

/// The gate's directory, relative to the run directory (`gates/cK`).
pub fn gate_dir(cand: &Candidate) -> PathBuf {
    Path::new(RunDir::GATES).join(format!("c{}", cand.cand))
}

/// The gate's outcome from arena's saved state, once it decided or reached the cap.
fn result(cx: &Context, cand: &Candidate) -> Result<Option<crate::journal::GateResult>> {
    let path = cx.run.path(&gate_dir(cand).join("state.json"));
    gate_math::gate_result(&path, &cx.settings.gate)
}

/// arena's command line for `cand`'s gate from the settings of now. Errors: a candidate
/// without a net.
fn gate_args(cx: &Context, cand: &Candidate) -> Result<Vec<String>> {
    let g = &cx.settings.gate;
    let (best_name, best_net, _) = cx.best();
    let net = cand
        .net
        .clone()
        .ok_or_else(|| anyhow!("{} has no net", cand.name))?;
    let dir = gate_dir(cand);
    let luft = cx.tools.luft.display().to_string();
    let mut args: Vec<String> = vec![
        "-engine".into(),
        format!("cmd={luft}"),
        format!("name={}", cand.name),
        format!("option.EvalFile={}", net.display()),
        "-engine".into(),
        format!("cmd={luft}"),
        format!("name={best_name}"),
        format!("option.EvalFile={}", best_net.display()),
        "-each".into(),
    ];
    // Fixed nodes only between nets of one architecture (the same speed); a wider,
    // narrower, bucketed or layered candidate plays at the time control, where its speed
    // counts.
    let same_speed = same_architecture(&cx.run.path(&net), &cx.run.path(&best_net));
    args.extend(limit_args(if same_speed { g.nodes } else { 0 }, &g.tc));
    args.extend([format!("option.Hash={}", g.hash), "option.Threads=1".into()]);
    args.extend(book_args(&cx.settings, u64::from(cand.cand) * 7919 + 13));
    args.extend([
        "-sprt".into(),
        format!("elo0={}", g.elo0),
        format!("elo1={}", g.elo1),
        format!("alpha={}", g.alpha),
        format!("beta={}", g.beta),
    ]);
    args.extend(match_args(gate_rounds(g.max_games), g.concurrency, 50, &dir));
    if g.max_moves > 0 {
        args.extend(["-maxmoves".into(), g.max_moves.to_string()]);
    }
    Ok(args)
}

/// Whether two net files have one architecture (so one speed, and a gate at fixed nodes is
/// fair); a file that does not load counts as different.
fn same_architecture(a: &Path, b: &Path) -> bool {
    match (nnue::Network::load(a), nnue::Network::load(b)) {
        (Ok(x), Ok(y)) => x.arch() == y.arch(),
        _ => false,
    }
}

#[cfg(all(test, unix))]
#[path = "gate_tests.rs"]
mod tests;
