//! The gate's SPRT, read from arena's saved state: the one place where learn uses the match
//! core (`matchcore`: the saved match state, the SPRT settings and statistics, the
//! pentanomial tally and the typed verdict). The gate, gauntlet and promotion stages,
//! `learn status` and the tests read arena's states and verdicts through these functions.

use crate::config::Gate;
use crate::journal::GateResult;
use anyhow::{anyhow, Result};
use matchcore::sprt::Verdict;
use std::path::{Path, PathBuf};

/// Whether a decided gate promotes its candidate (its verdict is `H1`).
pub fn promotes(gate: &GateResult) -> bool {
    gate.verdict == Verdict::H1
}

/// Arena's saved state at `path`. Errors: a file that cannot be read or is not a state,
/// naming the file and why (once).
pub fn load_state(path: &Path) -> Result<matchcore::state::SavedState> {
    // By its Display alone: the error's source chain repeats its own words.
    matchcore::state::load(&path.display().to_string()).map_err(|e| anyhow!("{e}"))
}

/// Arena's saved state at `path`, None while there is none. Errors: [`load_state`]'s.
fn state_if_any(path: &Path) -> Result<Option<matchcore::state::SavedState>> {
    if !path.exists() {
        return Ok(None);
    }
    load_state(path).map(Some)
}

/// The gate's outcome from arena's saved state at `path` (absolute), judged by `g`'s SPRT
/// bounds and cap: None until it decided or reached the cap, or while there is no state.
/// Errors: a state that cannot be read.
pub fn gate_result(path: &Path, g: &Gate) -> Result<Option<GateResult>> {
    Ok(state_if_any(path)?
        .and_then(|saved| gate_verdict(&saved, g.elo0, g.elo1, g.alpha, g.beta, g.max_games)))
}

/// What a gate under way says now, for `learn status`: the [`gate_reading`] of arena's
/// saved state at `path` by `g`, and the SPRT's LLR bounds (lower, upper); None while
/// there is no state. Errors: a state that cannot be read.
pub fn live_reading(path: &Path, g: &Gate) -> Result<Option<(GateResult, (f64, f64))>> {
    Ok(state_if_any(path)?.map(|saved| {
        let reading = gate_reading(&saved, g.elo0, g.elo1, g.alpha, g.beta);
        (reading, matchcore::stats::sprt_bounds(g.alpha, g.beta))
    }))
}

/// The games arena's saved state at `path` holds, finished and under way (0 while there is
/// no state): how far a gauntlet is, for `learn status`. Errors: a state that cannot be
/// read.
pub fn games_saved(path: &Path) -> Result<usize> {
    Ok(state_if_any(path)?.map_or(0, |saved| saved.games.len() + saved.pending.len()))
}

/// Sets the `-rounds` of the arena state at `path` (a gate's) to `rounds` encounters of two
/// games; the old count when it changed, None when it already was `rounds`. Errors: a
/// state that cannot be read or written, or one without `-rounds N`.
pub fn fit_gate_rounds(path: &Path, rounds: u64) -> Result<Option<u64>> {
    let file = path.display().to_string();
    let mut saved = load_state(path)?;
    let at = saved
        .args
        .iter()
        .position(|a| a == "-rounds")
        .filter(|&i| i + 1 < saved.args.len())
        .ok_or_else(|| anyhow!("{file}: the gate's command line has no -rounds"))?;
    let old: u64 = saved.args[at + 1]
        .parse()
        .map_err(|_| anyhow!("{file}: -rounds {:?} is not a count", saved.args[at + 1]))?;
    if old == rounds {
        return Ok(None);
    }
    saved.args[at + 1] = rounds.to_string();
    matchcore::state::save(&file, &saved).map_err(|e| anyhow!(e))?;
    Ok(Some(old))
}

/// The rounds (game pairs) a gate plays at most: `max_games` rounded up to whole pairs.
/// One definition for the gate's arena (`-rounds`), the fit of a resumed gate to a changed
/// cap, and the verdict `undecided`.
pub fn gate_rounds(max_games: u64) -> u64 {
    max_games.div_ceil(2)
}

/// What a gate's saved arena state says now: the candidate's pentanomial counts (pair 0
/// against 1), its Elo and the LLR, with the verdict `H1` or `H0` (an LLR bound crossed) or
/// `undecided` (neither, yet: [`gate_verdict`] tells a gate still playing from one whose cap
/// of `max_games`, rounded up to whole pairs, came first). One reading for the loop's
/// decision and for `learn status`.
pub fn gate_reading(
    saved: &matchcore::state::SavedState,
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
) -> GateResult {
    let tally = saved
        .pairs
        .iter()
        .find(|p| p.0 == 0 && p.1 == 1)
        .map(|p| p.2.clone())
        .unwrap_or_default();
    let sprt = matchcore::sprt::SprtConfig {
        elo0,
        elo1,
        alpha,
        beta,
        model: matchcore::stats::Model::Normalized,
    };
    let llr = matchcore::sprt::sprt_llr(&tally, &sprt, true);
    let (lower, upper) = matchcore::stats::sprt_bounds(alpha, beta);
    let games = tally.games();
    let verdict = Verdict::of_llr(llr, (lower, upper)).unwrap_or(Verdict::Undecided);
    let e = matchcore::tally::estimate(&tally, tally.pairs() > 0);
    GateResult {
        verdict,
        games,
        penta: tally.penta,
        // Infinite at a score of 0% or 100% (kept, with its sign); NaN only before any game.
        elo: if e.elo.is_nan() { 0.0 } else { e.elo },
        // No interval where the Elo is infinite or the counts have no spread (every pair
        // alike gives a variance of 0, which is no certainty).
        elo_error: (e.elo.is_finite() && e.elo_error.is_finite() && e.elo_error > 0.0).then_some(e.elo_error),
        llr,
    }
}

/// The gate's decision from its saved state, once there is one: [`gate_reading`] once an
/// LLR bound is crossed or the cap of `max_games` (rounded up to whole pairs) is reached,
/// `None` while the gate is still playing.
pub fn gate_verdict(
    saved: &matchcore::state::SavedState,
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    max_games: u64,
) -> Option<GateResult> {
    let reading = gate_reading(saved, elo0, elo1, alpha, beta);
    let capped = reading.games >= gate_rounds(max_games) * 2;
    (reading.verdict != Verdict::Undecided || capped).then_some(reading)
}

/// Makes arena's saved state at `path` (a gate's or gauntlet's) run in this directory:
/// every argument naming a file of the run by an absolute path where the run was (saved
/// by the code before 2026-12-06, `roots`: [`crate::journal::Journal::old_roots`]) is
/// named relative to the run directory, where arena runs, and the `cmd=` of the first
/// `own` engines (learn's luft) is `luft`, the luft of `[tools]` now (a tool is not part
/// of the run). Written back only when something changed. Errors: a state that cannot be
/// read or written.
pub fn relocate_saved_state(path: &Path, own: usize, luft: &Path, roots: &[PathBuf]) -> Result<()> {
    let file = path.display().to_string();
    let mut saved = load_state(path)?;
    let luft = format!("cmd={}", luft.display());
    let mut engines = 0usize;
    let mut changed = false;
    for arg in &mut saved.args {
        if arg == "-engine" || arg == "--engine" {
            engines += 1;
        }
        let new = if (1..=own).contains(&engines) && arg.starts_with("cmd=") {
            luft.clone()
        } else {
            crate::journal::reroot_arg(arg, roots)
        };
        if new != *arg {
            *arg = new;
            changed = true;
        }
    }
    if changed {
        matchcore::state::save(&file, &saved).map_err(|e| anyhow!(e))?;
    }
    Ok(())
}

/// A gate's saved arena state with `rounds` rounds and the candidate's pentanomial counts
/// `penta` (pair 0 against 1), written to `path`: what the stage tests' arena saves.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) fn write_state(path: &Path, rounds: u64, penta: [u64; 5]) {
    let tally = tally_of(penta);
    let rounds = rounds.to_string();
    let saved = matchcore::state::SavedState {
        args: [
            "-engine", "cmd=luft", "-engine", "cmd=luft", "-rounds", &rounds, "-games", "2",
        ]
        .map(String::from)
        .to_vec(),
        pairs: vec![(0, 1, tally)],
        ..Default::default()
    };
    matchcore::state::save(&path.display().to_string(), &saved).unwrap();
}

/// The result of a gate with the counts `penta` and the cap `max_games` at the SPRT
/// bounds 0 and 15, alpha and beta 0.05 (its decision, or its reading while it plays): a
/// gate's result for the stage tests.
#[cfg(test)]
pub(crate) fn reading_of(penta: [u64; 5], max_games: u64) -> GateResult {
    let saved = matchcore::state::SavedState {
        pairs: vec![(0, 1, tally_of(penta))],
        ..Default::default()
    };
    gate_verdict(&saved, 0.0, 15.0, 0.05, 0.05, max_games)
        .unwrap_or_else(|| gate_reading(&saved, 0.0, 15.0, 0.05, 0.05))
}

/// The counts of pentanomial `penta` (LL, LD, DD+WL, WD, WW), with their games.
#[cfg(test)]
fn tally_of(penta: [u64; 5]) -> matchcore::tally::Tally {
    let [ll, ld, mid, wd, ww] = penta;
    matchcore::tally::Tally {
        penta,
        tri: [2 * ll + ld, ld + 2 * mid + wd, wd + 2 * ww],
        wl: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gate_in_flight_takes_the_cap_learn_toml_gives() {
        let dir = std::env::temp_dir().join(format!("learn-gate-cap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.json");
        let tally = matchcore::tally::Tally {
            penta: [40, 100, 200, 110, 50],
            tri: [300, 380, 320],
            wl: 50,
        };
        let saved = matchcore::state::SavedState {
            args: ["-engine", "cmd=a", "-rounds", "600", "-games", "2", "-recover"]
                .map(String::from)
                .to_vec(),
            done: vec![(0, 499)],
            pairs: vec![(0, 1, tally)],
            ..Default::default()
        };
        matchcore::state::save(&path.display().to_string(), &saved).unwrap();
        let rounds_now = || {
            let s = matchcore::state::load(&path.display().to_string()).unwrap();
            let at = s.args.iter().position(|a| a == "-rounds").unwrap();
            (s.args[at + 1].clone(), s.done.clone(), s.pairs.len())
        };
        // Raised: 1,200 games -> 3,000; the games played stay.
        assert_eq!(fit_gate_rounds(&path, 1500).unwrap(), Some(600));
        assert_eq!(rounds_now(), ("1500".to_string(), vec![(0, 499)], 1));
        // The same cap again changes nothing.
        assert_eq!(fit_gate_rounds(&path, 1500).unwrap(), None);
        // With 1,000 games played, the raised cap reads as playing, a lowered one as
        // undecided at once.
        let saved = matchcore::state::load(&path.display().to_string()).unwrap();
        assert_eq!(gate_verdict(&saved, 0.0, 15.0, 0.05, 0.05, 3000), None);
        assert_eq!(fit_gate_rounds(&path, 400).unwrap(), Some(1500));
        let saved = matchcore::state::load(&path.display().to_string()).unwrap();
        assert_eq!(
            gate_verdict(&saved, 0.0, 15.0, 0.05, 0.05, 800).map(|r| r.verdict),
            Some(Verdict::Undecided)
        );
        // A state without -rounds is an error, not a guess.
        let bare = matchcore::state::SavedState {
            args: vec!["-engine".into(), "cmd=a".into()],
            ..Default::default()
        };
        matchcore::state::save(&path.display().to_string(), &bare).unwrap();
        assert!(fit_gate_rounds(&path, 1500).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_gate_reads_its_verdict_from_the_saved_counts() {
        let mut saved = matchcore::state::SavedState::default();
        let tally = |penta: [u64; 5]| {
            let [ll, ld, mid, wd, ww] = penta;
            // tri from penta: LL is two losses, LD a loss and a draw, ...
            matchcore::tally::Tally {
                penta,
                tri: [2 * ll + ld, ld + 2 * mid + wd, wd + 2 * ww],
                wl: 0,
            }
        };
        saved.pairs = vec![(0, 1, tally([0, 2, 10, 2, 0]))];
        assert_eq!(gate_verdict(&saved, 0.0, 15.0, 0.05, 0.05, 1000), None);
        let capped = gate_verdict(&saved, 0.0, 15.0, 0.05, 0.05, 28).unwrap();
        assert_eq!((capped.verdict, capped.games), (Verdict::Undecided, 28));
        saved.pairs = vec![(0, 1, tally([0, 5, 40, 60, 30]))];
        assert_eq!(
            gate_verdict(&saved, 0.0, 15.0, 0.05, 0.05, 1000).unwrap().verdict,
            Verdict::H1
        );
        saved.pairs = vec![(0, 1, tally([30, 60, 40, 5, 0]))];
        assert_eq!(
            gate_verdict(&saved, 0.0, 15.0, 0.05, 0.05, 1000).unwrap().verdict,
            Verdict::H0
        );
        // Lopsided counts after a few games: every game lost is -inf Elo (not 0), every
        // pair alike gives an Elo with no interval (not +- 0).
        saved.pairs = vec![(0, 1, tally([2, 0, 0, 0, 0]))];
        let lost = gate_reading(&saved, 0.0, 15.0, 0.05, 0.05);
        assert_eq!((lost.elo, lost.elo_error), (f64::NEG_INFINITY, None));
        assert_eq!(crate::journal::elo_text(&lost), "-inf +- inf");
        saved.pairs = vec![(0, 1, tally([0, 0, 0, 0, 3]))];
        assert_eq!(gate_reading(&saved, 0.0, 15.0, 0.05, 0.05).elo, f64::INFINITY);
        saved.pairs = vec![(0, 1, tally([0, 0, 0, 2, 0]))];
        let alike = gate_reading(&saved, 0.0, 15.0, 0.05, 0.05);
        assert!((alike.elo - 190.85).abs() < 0.1, "{}", alike.elo);
        assert_eq!(alike.elo_error, None);
        assert_eq!(crate::journal::elo_text(&alike), "+190.8 +- inf");
        saved.pairs = vec![];
        let none = gate_reading(&saved, 0.0, 15.0, 0.05, 0.05);
        assert_eq!((none.games, none.elo, none.elo_error), (0, 0.0, None));
    }
}
