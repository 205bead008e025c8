//! The gauntlet stage (`[gauntlet] every = K`: every K-th promotion): right after its
//! promotion and before the next candidate trains, the promoted net plays `games` games
//! against each of `[gauntlet] opponents` (one `arena -tournament gauntlet` match over the
//! gate's book, `-recover`, its state in `gauntlets/NAME/state.json`); then arena's rating
//! library (`arena::rating`, the joint fit `arena rate` makes, with `[gauntlet] anchor`)
//! rates every game, written to `gauntlets/NAME/ratings.txt`.
//!
//! Records: `gauntlet_started` (the net and its games in all, before arena first starts),
//! `gauntlet_done` (the net's games, rating and interval, and the fit's table). Resume
//! rule: a gauntlet without a saved state starts with the settings of now; one with a saved
//! state resumes from it with its engines, limits and openings (a game cut short is played
//! again); the rating, made once arena has played it out, takes the anchor of now.

use super::gate_math::relocate_saved_state;
use super::{book_args, clear_unsaved_games, limit_args, match_args, say, Context, Step};
use crate::child::{poll, Running};
use crate::journal::{now, Record};
use crate::rundir::RunDir;
use anyhow::{anyhow, Context as _, Result};
use std::path::{Path, PathBuf};

/// The gauntlet stage: its arena, when one runs.
#[derive(Debug, Default)]
pub struct Gauntlet {
    child: Option<Running>,
}

impl Gauntlet {
    fn spawn(&mut self, cx: &mut Context, g: &crate::journal::Gauntlet) -> Result<()> {
        let state_rel = gauntlet_dir(&g.net).join("state.json");
        let state_file = cx.run.path(&state_rel);
        // As for the gate: the saved state once under way, else the settings of now.
        let args = if state_file.exists() {
            // The first engine is learn's luft, the others the opponents.
            relocate_saved_state(&state_file, 1, &cx.tools.luft, cx.old_roots())?;
            vec!["-config".into(), format!("file={}", state_rel.display())]
        } else {
            let net = cx
                .state
                .chain
                .iter()
                .find(|(name, _, _)| *name == g.net)
                .map(|(_, net, _)| net.clone())
                .ok_or_else(|| anyhow!("the gauntlet's net {} is not a promoted net", g.net))?;
            clear_unsaved_games(&cx.run, &gauntlet_dir(&g.net))?;
            gauntlet_args(cx, &g.net, &net)
        };
        say(&format!(
            "learn: gauntlet of {} ({} games; {})",
            g.net,
            g.games,
            if state_file.exists() { "resumed" } else { "started" }
        ));
        let log = format!("gauntlet-{}", g.net);
        self.child = Some(cx.spawn(&cx.tools.arena, &args, &log, cx.settings.gauntlet.concurrency)?);
        Ok(())
    }
}

impl Step for Gauntlet {
    /// One step: looks at the arena running (and rates the gauntlet it played out), resumes
    /// the open gauntlet, or journals and starts the one a promoted net is due, between
    /// candidates. Errors: the journal, arena or the rating failing three times in a row.
    fn step(&mut self, cx: &mut Context) -> Result<()> {
        if self.child.is_some() {
            let Some(status) = poll(&mut self.child)? else {
                return Ok(());
            };
            let Some(open) = cx.state.open_gauntlet().cloned() else {
                return Ok(());
            };
            if status.success() {
                cx.succeeded();
                return rate_gauntlet(cx, &open);
            }
            // It ended by itself before it was played out (the loop's own stops report
            // nothing): a failure, resumed on the next step.
            cx.child_failed(
                &format!("arena for the gauntlet of {} failed ({status})", open.net),
                &format!("gauntlet-{}", open.net),
            )?;
            return Ok(());
        }
        if let Some(open) = cx.state.open_gauntlet().cloned() {
            return self.spawn(cx, &open);
        }
        if cx.state.open_candidate().is_some() {
            // A gauntlet starts between candidates (right after a promotion).
            return Ok(());
        }
        let Some((name, _)) = cx.state.due_gauntlet(cx.settings.gauntlet.every) else {
            return Ok(());
        };
        std::fs::create_dir_all(cx.run.path(&gauntlet_dir(&name)))?;
        let games = cx.settings.gauntlet.games * cx.settings.gauntlet.opponents.len() as u64;
        cx.record(Record::GauntletStarted {
            t: now(),
            net: name,
            args: Vec::new(),
            games,
        })?;
        let open = cx
            .state
            .open_gauntlet()
            .cloned()
            .ok_or_else(|| anyhow!("the gauntlet vanished"))?;
        self.spawn(cx, &open)
    }

    /// Its arena, taken to be stopped with the loop's other children.
    fn take_child(&mut self) -> Option<Running> {
        self.child.take()
    }
}

/// A gauntlet's directory, relative to the run directory (`gauntlets/NAME`).
fn gauntlet_dir(net: &str) -> PathBuf {
    Path::new(RunDir::GAUNTLETS).join(net)
}

/// arena's arguments for `name`'s gauntlet: the net `net` (through EvalFile, on the run's
/// luft) as the seed against every opponent, `games` games each over the gate's book.
fn gauntlet_args(cx: &Context, name: &str, net: &Path) -> Vec<String> {
    let g = &cx.settings.gauntlet;
    let dir = gauntlet_dir(name);
    let mut args: Vec<String> = vec![
        "-tournament".into(),
        "gauntlet".into(),
        "-seeds".into(),
        "1".into(),
        "-engine".into(),
        format!("cmd={}", cx.tools.luft.display()),
        format!("name={name}"),
        format!("option.EvalFile={}", net.display()),
        format!("option.Hash={}", g.hash),
        "option.Threads=1".into(),
    ];
    for o in &g.opponents {
        args.push("-engine".into());
        args.push(format!("name={}", o.name));
        args.extend(o.engine.iter().cloned());
    }
    args.push("-each".into());
    args.extend(limit_args(g.nodes, &g.tc));
    args.push(format!("timemargin={}", g.time_margin));
    let seed = cx.state.chain.iter().position(|(n, _, _)| n == name).unwrap_or(0) as u64;
    args.extend(book_args(&cx.settings, seed * 104_729 + 17));
    args.extend(match_args(g.games / 2, g.concurrency, 0, &dir));
    args
}

/// The gauntlet's games rated by arena's rating library (`arena::rating`: the joint fit
/// `arena rate` makes, with `[gauntlet] anchor`), the table written to `ratings.txt` beside
/// the PGN and journaled with the net's own rating.
fn rate_gauntlet(cx: &mut Context, g: &crate::journal::Gauntlet) -> Result<()> {
    let dir = gauntlet_dir(&g.net);
    let pgn = dir.join("games.pgn");
    let anchor = cx.settings.gauntlet.anchor.trim().to_string();
    let rated = match rate(&cx.run.path(&pgn), &pgn, &anchor) {
        Ok(rated) => rated,
        Err(e) => return cx.failed(&format!("the rating of {} failed: {e}", pgn.display())),
    };
    let ratings = rated.1;
    output::write(&cx.run.path(&dir).join("ratings.txt"), &[], ratings.as_bytes())?;
    let (games, elo, elo_error) = rated
        .0
        .iter()
        .find(|r| r.name == g.net)
        .map_or((0, None, None), |r| {
            (r.games, Some(r.elo), Some(r.error).filter(|e| *e > 0.0))
        });
    say(&format!(
        "learn: gauntlet of {} rated: {} ({games} games)",
        g.net,
        match (elo, elo_error) {
            (Some(e), Some(err)) => format!("{e:.1} +- {err:.1}"),
            (Some(e), None) => format!("{e:.1}"),
            _ => "no rating".into(),
        }
    ));
    cx.record(Record::GauntletDone {
        t: now(),
        net: g.net.clone(),
        games,
        elo,
        elo_error,
        ratings,
    })
}

/// The players of the games in the PGN file `file` (named `shown` in errors) rated jointly
/// by arena's rating library (`arena::rating::fit`, the fit of `arena rate`, with its
/// default prior), `anchor` (`NAME=ELO`, or empty: the mean is 0) fixing the scale: the
/// ratings, strongest first, and their table (`arena::rating::render`) under a line that
/// says what was rated. Errors: a file that cannot be read or parsed, an anchor that is
/// not `NAME=ELO`, a fit that fails (no finished game, players that never met).
pub fn rate(file: &Path, shown: &Path, anchor: &str) -> Result<(Vec<arena::rating::Rating>, String)> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", shown.display()))?;
    let results = arena::rating::read_results(&String::from_utf8_lossy(&bytes), &shown.display().to_string())
        .map_err(|e| anyhow!(e))?;
    let mut options = arena::rating::FitOptions::default();
    if !anchor.is_empty() {
        let (name, elo) = anchor
            .rsplit_once('=')
            .and_then(|(name, elo)| Some((name.trim(), elo.trim().parse::<f64>().ok()?)))
            .ok_or_else(|| anyhow!("the anchor {anchor:?} is not NAME=ELO"))?;
        options.anchor = Some((name.to_string(), elo));
    }
    let ratings = arena::rating::fit(&results.games, &options).map_err(|e| anyhow!(e))?;
    let table = format!(
        "{} games of {} players from {} ({} unfinished left out), rated jointly with {}; +/- is a 95% interval\n{}",
        results.games.len(),
        ratings.len(),
        shown.display(),
        results.unfinished,
        if anchor.is_empty() {
            "the mean at 0".to_string()
        } else {
            format!("the anchor {anchor}")
        },
        arena::rating::render(&ratings)
    );
    Ok((ratings, table))
}

#[cfg(all(test, unix))]
#[path = "gauntlet_tests.rs"]
mod tests;
