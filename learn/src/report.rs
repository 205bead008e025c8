//! `learn status DIR` (where the run is, from the journal and the live files) and `learn
//! report DIR` (a Markdown report with PNG plots drawn by plotters, and `candidates.json`,
//! every candidate's provenance in machine-readable form). Both only read the run: they work
//! while `learn run` holds the directory.

use crate::data::scan_data;
use crate::journal::{loss_text, now, read, Stage, State};
use crate::rundir::RunDir;
use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

fn stage_name(stage: &Stage) -> String {
    match stage {
        Stage::Training => "training".into(),
        Stage::Trained => "trained, waits for the screen".into(),
        Stage::Exported => "exported".into(),
        Stage::Gating => "gate".into(),
        Stage::Decided => "decided".into(),
        Stage::Promoted => "promoted".into(),
        Stage::Rejected(why) => format!("rejected ({why})"),
        Stage::ScreenedOut(why) => format!("screened out ({why})"),
    }
}

/// `2412.3 +- 80.1` (no interval for an anchor; `no rating` when the fit has none).
fn gauntlet_elo(elo: Option<f64>, err: Option<f64>) -> String {
    match (elo, err) {
        (Some(e), Some(x)) => format!("{e:.1} +- {x:.1}"),
        (Some(e), None) => format!("{e:.1}"),
        _ => "no rating".into(),
    }
}

fn hours(secs: u64) -> String {
    format!("{:.2} h", secs as f64 / 3600.0)
}

/// `learn status DIR`.
pub fn status(dir: &Path) -> Result<String> {
    let run = RunDir::new(dir)?;
    let (records, _) = read(&run.journal())?;
    let s = State::replay(&records);
    if s.best.is_none() {
        return Err(run.no_start_error());
    }
    let mut out = String::new();
    // A learn.toml that does not check is said, and the run shown with the settings last
    // applied (what a running loop keeps), or the defaults.
    let settings = match crate::config::Settings::load(&run.settings()) {
        Ok(settings) => settings,
        Err(e) => {
            writeln!(out, "learn.toml is not applied: {e:#}")?;
            std::fs::read_to_string(run.logs().join("settings.applied.toml"))
                .ok()
                .and_then(|text| toml::from_str(&text).ok())
                .unwrap_or_default()
        }
    };
    let (best, net, gen) = s.best.clone().unwrap_or_default();
    writeln!(
        out,
        "run {} (started {} ago)",
        run.root.display(),
        hours(now().saturating_sub(s.started))
    )?;
    writeln!(out, "best net: {best} (generation {gen}), {}", net.display())?;
    let running = std::fs::read_to_string(run.root.join("lock.pid"))
        .ok()
        .and_then(|pid| {
            let pid = pid.trim().to_string();
            Path::new(&format!("/proc/{pid}")).exists().then_some(pid)
        });
    let locked = std::fs::File::open(run.root.join("lock")).ok().is_some_and(|f| {
        matches!(
            fs4::FileExt::try_lock_shared(&f),
            Err(fs4::TryLockError::WouldBlock)
        )
    });
    let running = if locked { running } else { None };
    writeln!(
        out,
        "learn run: {}",
        match &running {
            Some(pid) => format!("running (pid {pid})"),
            None => "not running".into(),
        }
    )?;
    let mut total = 0;
    writeln!(out, "self-play segments:")?;
    for seg in &s.segments {
        let (games, positions) = match seg.done {
            Some(d) => d,
            None => {
                let slices = scan_data(&run.root, &seg.dir)?;
                (
                    slices.iter().map(|d| d.games).sum(),
                    slices.iter().map(|d| d.positions).sum(),
                )
            }
        };
        total += positions;
        let state = if seg.done.is_some() {
            "done".to_string()
        } else if running.is_none() {
            "stopped (learn run resumes it)".to_string()
        } else if positions == 0 {
            "playing, no position yet".to_string()
        } else {
            // The segment's average rate since it started (time stopped counts against it:
            // a rough estimate, never an absurd one).
            let elapsed = now().saturating_sub(seg.started).max(1);
            let rate = positions as f64 / elapsed as f64;
            let left = seg.target.saturating_sub(positions) as f64 / rate;
            format!(
                "playing, ETA {} at this segment's average rate",
                hours(left as u64)
            )
        };
        writeln!(
            out,
            "  s{} {} {}: {games} games, {positions} / {} positions, {state}",
            seg.index, seg.net, seg.openings, seg.target
        )?;
    }
    writeln!(out, "the run's own positions: {total}")?;
    writeln!(out, "candidates:")?;
    for c in &s.candidates {
        let mut line = format!("  {} (from {}): {}", c.name, c.parent, stage_name(&c.stage));
        if let Some(g) = &c.gate {
            write!(
                line,
                "; gate {} {} Elo, {} games, LLR {:.2}",
                g.verdict,
                crate::journal::elo_text(g),
                g.games,
                g.llr
            )?;
        } else if c.stage == Stage::Gating {
            let path = run.gates().join(format!("c{}", c.cand)).join("state.json");
            let g = &settings.gate;
            match crate::stage::gate_math::live_reading(&path, g) {
                Ok(Some((r, (lo, hi)))) => write!(
                    line,
                    "; {} games of at most {}, {:+.1} +- {} Elo, LLR {:.2} ({lo:.2}, {hi:.2})",
                    r.games,
                    g.max_games,
                    r.elo,
                    r.elo_error.map_or("inf".to_string(), |e| format!("{e:.1}")),
                    r.llr
                )?,
                Ok(None) => {}
                Err(e) => write!(line, "; the gate's saved state cannot be read: {e}")?,
            }
        }
        if let Some(v) = c.val_loss {
            write!(line, "; validation loss {v:.6}")?;
        }
        writeln!(out, "{line}")?;
    }
    if let Some(first) = s
        .candidates
        .iter()
        .rev()
        .find_map(|c| c.sweep.as_ref().map(|w| w.first))
    {
        for line in sweep_lines(&s, first) {
            writeln!(out, "{line}")?;
        }
    }
    if !s.gauntlets.is_empty() || settings.gauntlet.every > 0 {
        writeln!(
            out,
            "gauntlets (every {} promotions; 0: none):",
            settings.gauntlet.every
        )?;
    }
    for g in &s.gauntlets {
        match &g.done {
            Some((games, elo, err, _)) => writeln!(
                out,
                "  {}: rated after {games} games: {}",
                g.net,
                gauntlet_elo(*elo, *err)
            )?,
            None => {
                let path = run.root.join("gauntlets").join(&g.net).join("state.json");
                match crate::stage::gate_math::games_saved(&path) {
                    Ok(played) => writeln!(out, "  {}: playing, {played} of {} games", g.net, g.games)?,
                    Err(e) => writeln!(
                        out,
                        "  {}: playing, of {} games; the gauntlet's saved state cannot be read: {e}",
                        g.net, g.games
                    )?,
                }
            }
        }
    }
    let cores = settings.selfplay.threads_idle.max(
        settings.selfplay.threads_busy
            + settings.train.threads.max(settings.gate.concurrency)
            + if settings.gauntlet.every > 0 {
                settings.gauntlet.concurrency
            } else {
                0
            },
    );
    writeln!(
        out,
        "core budget: self-play {} alone, {} beside a training ({}) or a gate ({} at once){}: at most {}",
        output::count(settings.selfplay.threads_idle as u64, "thread"),
        settings.selfplay.threads_busy,
        output::count(settings.train.threads as u64, "thread"),
        output::count(settings.gate.concurrency as u64, "game"),
        if settings.gauntlet.every > 0 {
            format!(
                ", and a gauntlet ({} at once) beside them",
                output::count(settings.gauntlet.concurrency as u64, "game")
            )
        } else {
            String::new()
        },
        output::count(cores as u64, "core")
    )?;
    Ok(out)
}

/// `learn report DIR`: writes `DIR/report.md`, `DIR/report-elo.png`,
/// `DIR/report-positions.png` and `DIR/candidates.json`; returns the report's path.
///
/// Errors: a directory that holds no run (no journal, or one without its start), before
/// anything is written; a file that cannot be read or written.
pub fn report(dir: &Path) -> Result<std::path::PathBuf> {
    let run = RunDir::new(dir)?;
    let (records, _) = read(&run.journal())?;
    let s = State::replay(&records);
    if s.best.is_none() {
        return Err(run.no_start_error());
    }
    let mut md = String::new();
    // The run's name, not where it is: the report travels with the directory.
    let title = run.root.file_name().map_or_else(
        || run.root.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    writeln!(md, "# learn run {title}\n")?;
    let (best, _, gen) = s.best.clone().unwrap_or_default();
    writeln!(md, "Best net: **{best}** (generation {gen}).\n")?;
    writeln!(md, "## Promotions (Elo along the SPRT chain)\n")?;
    writeln!(
        md,
        "| net | Elo over its parent (gate) | Elo over the start (sum) |"
    )?;
    writeln!(md, "|---|---|---|")?;
    let (rows, chain_points) = promotion_rows(&s.chain);
    md.push_str(&rows);
    if !s.gauntlets.is_empty() {
        writeln!(md, "\n## Gauntlets (Elo against independent engines)\n")?;
        writeln!(md, "| net | games | Elo (joint fit) | time |")?;
        writeln!(md, "|---|---|---|---|")?;
        for g in &s.gauntlets {
            match &g.done {
                Some((games, elo, err, _)) => writeln!(
                    md,
                    "| {} | {games} | {} | {} |",
                    g.net,
                    gauntlet_elo(*elo, *err),
                    hours(g.secs)
                )?,
                None => writeln!(md, "| {} | playing | - | - |", g.net)?,
            }
        }
        for g in s.gauntlets.iter().filter(|g| g.done.is_some()) {
            if let Some((_, _, _, table)) = &g.done {
                writeln!(md, "\n{}'s fit (`arena::rating`):\n\n```\n{}```", g.net, table)?;
            }
        }
    }
    writeln!(md, "\n## Candidates\n")?;
    writeln!(
        md,
        "| candidate | from | positions | validation loss | gate | outcome | train | gate time |"
    )?;
    writeln!(md, "|---|---|---|---|---|---|---|---|")?;
    let mut json = Vec::new();
    for c in &s.candidates {
        let positions: u64 = c.data.iter().map(|d| d.positions).sum();
        let gate = c.gate.as_ref().map_or("-".to_string(), |g| {
            format!(
                "{} {}, {} games, Ptnml {:?}, LLR {:.2}",
                g.verdict,
                crate::journal::elo_text(g),
                g.games,
                g.penta,
                g.llr
            )
        });
        writeln!(
            md,
            "| {} | {} | {positions} | {} | {gate} | {} | {} | {} |",
            c.name,
            c.parent,
            c.val_loss.map_or("-".into(), |v| format!("{v:.6}")),
            stage_name(&c.stage),
            hours(c.train_secs),
            hours(c.gate_secs)
        )?;
        json.push(serde_json::json!({
            "name": c.name,
            "parent": c.parent,
            "stage": stage_name(&c.stage),
            "net": c.net,
            "fingerprint": c.fingerprint,
            "data": c.data,
            "segments": c.segments,
            "trainer_args": trainer_args(&run, c),
            "recipe": recipe_applied(&run, c),
            "screen": c.sweep.as_ref().map(|w| {
                let screen = s.screens.iter().find(|x| x.first == w.first);
                serde_json::json!({
                    "sweep": w.first,
                    "held_out_segments": w.held_out,
                    "wdl": screen.map(|x| x.wdl),
                    "positions": screen.map(|x| x.positions),
                    "loss": c.screen_loss,
                    "picked": screen.map(|x| x.picked == c.cand),
                })
            }),
            "validation_loss": c.val_loss,
            "gate": c.gate,
            "train_secs": c.train_secs,
            "gate_secs": c.gate_secs,
        }));
    }
    let firsts: Vec<u32> = s
        .candidates
        .iter()
        .filter(|c| c.sweep.as_ref().is_some_and(|w| w.first == c.cand))
        .map(|c| c.cand)
        .collect();
    if !firsts.is_empty() {
        writeln!(md, "\n## Recipe sweeps\n")?;
    }
    for first in firsts {
        let mut lines = sweep_lines(&s, first).into_iter();
        writeln!(md, "{}\n", lines.next().unwrap_or_default())?;
        writeln!(md, "| candidate | recipe | screen loss | outcome |")?;
        writeln!(md, "|---|---|---|---|")?;
        for c in s.sweep_of(first) {
            let recipe = recipe_applied(&run, c).map_or(String::new(), |r| r.describe());
            writeln!(
                md,
                "| {} | {recipe} | {} | {} |",
                c.name,
                loss_text(c.screen_loss),
                stage_name(&c.stage)
            )?;
        }
    }
    writeln!(md, "\n## Self-play\n")?;
    writeln!(md, "| segment | net | openings | games | positions |")?;
    writeln!(md, "|---|---|---|---|---|")?;
    let mut positions_points = Vec::new();
    let mut total = 0u64;
    for seg in &s.segments {
        let (games, positions) = seg.done.unwrap_or_else(|| {
            let slices = scan_data(&run.root, &seg.dir).unwrap_or_default();
            (
                slices.iter().map(|d| d.games).sum(),
                slices.iter().map(|d| d.positions).sum(),
            )
        });
        total += positions;
        positions_points.push((seg.index as f64, total as f64));
        writeln!(
            md,
            "| s{} | {} | {} | {games} | {positions} |",
            seg.index, seg.net, seg.openings
        )?;
    }
    writeln!(md, "\nThe run's own positions in all: {total}.\n")?;
    if !s.settings.is_empty() {
        writeln!(md, "## Settings changes\n")?;
        for (t, changes) in &s.settings {
            writeln!(md, "- {}: {}", crate::journal::utc(*t), changes.join("; "))?;
        }
    }
    writeln!(md, "\n![Elo](report-elo.png) ![Positions](report-positions.png)")?;
    plot(
        &run.root.join("report-elo.png"),
        "Elo over the start net (SPRT chain)",
        "promotion",
        "Elo",
        &chain_points,
    )?;
    plot(
        &run.root.join("report-positions.png"),
        "The run's own self-play positions",
        "segment",
        "positions",
        &positions_points,
    )?;
    output::write(
        &run.root.join("candidates.json"),
        &[],
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    let path = run.root.join("report.md");
    output::write(&path, &[], md.as_bytes())?;
    Ok(path)
}

/// The promotions table's rows (`| net | gate Elo | sum |`, one line each) and the plot's
/// points (promotion index, Elo over the start) of the chain `(name, net, gate Elo)`. A gate
/// won by every game has an infinite Elo: shown as `+inf`, left out of the sum, whose cell
/// then says how many such gates it leaves out (the true sum is larger).
fn promotion_rows(chain: &[(String, std::path::PathBuf, f64)]) -> (String, Vec<(f64, f64)>) {
    let (mut rows, mut points) = (String::new(), Vec::new());
    let (mut sum, mut left_out) = (0.0, 0);
    for (i, (name, _, elo)) in chain.iter().enumerate() {
        if elo.is_finite() {
            sum += elo;
        } else {
            left_out += 1;
        }
        points.push((i as f64, sum));
        let more = match left_out {
            0 => String::new(),
            n => format!(" and {} of +inf", output::count(n, "gate")),
        };
        rows.push_str(&format!("| {name} | {elo:+.1} | {sum:+.1}{more} |\n"));
    }
    (rows, points)
}

/// The sweep `first` (its first candidate's number): a heading line (its generation, held-out
/// segments and screen), then a line per recipe, trained or not yet: its overrides, its
/// candidate and stage, its screen loss and whether the screen picked it.
fn sweep_lines(s: &State, first: u32) -> Vec<String> {
    let cands = s.sweep_of(first);
    let Some(tag) = cands.first().and_then(|c| c.sweep.clone()) else {
        return Vec::new();
    };
    let screen = s.screens.iter().find(|x| x.first == first);
    let generation = cands
        .first()
        .and_then(|c| crate::init::parse_gen(&c.name))
        .map_or(0, |g| g.0);
    let mut out = vec![format!(
        "sweep of c{first} (generation {generation}, {} recipes, segments {:?} held out){}:",
        tag.recipes.len(),
        tag.held_out,
        screen.map_or(": not screened yet".to_string(), |x| format!(
            "; screened at wdl {} on {} positions",
            x.wdl, x.positions
        ))
    )];
    for r in &tag.recipes {
        let line = match cands
            .iter()
            .find(|c| c.sweep.as_ref().is_some_and(|w| w.recipe == r.name))
        {
            None => "not started".to_string(),
            Some(c) => {
                let stage = match &c.stage {
                    Stage::ScreenedOut(_) => "screened out".to_string(),
                    other => stage_name(other),
                };
                let mut line = format!("{}, {stage}", c.name);
                if let Some(x) = screen {
                    line.push_str(&format!("; screen loss {}", loss_text(c.screen_loss)));
                    if x.picked == c.cand {
                        line.push_str(", picked");
                    }
                }
                line
            }
        };
        out.push(format!("  {}: {line}", r.describe()));
    }
    out
}

/// The trainer's command line of candidate `c`: the one learn last started it from scratch
/// with (`DIR/candidates/cK/command.json`), or the one a journal before 2026-12-06 froze
/// (empty when neither is there).
fn trainer_args(run: &RunDir, c: &crate::journal::Candidate) -> Vec<String> {
    std::fs::read_to_string(run.root.join(&c.dir).join(crate::stage::train::COMMAND_FILE))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| c.args.clone())
}

/// The recipe of a sweep's candidate `c` as its training applied it
/// (`DIR/candidates/cK/recipe.json`: learn.toml's recipe when its trainer started from
/// scratch), else as its sweep's journaled plan gives it; none outside a sweep.
fn recipe_applied(run: &RunDir, c: &crate::journal::Candidate) -> Option<crate::config::Recipe> {
    let tag = c.sweep.as_ref()?;
    std::fs::read_to_string(run.root.join(&c.dir).join(crate::stage::train::RECIPE_FILE))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .or_else(|| Some(tag.own()))
}

/// A line plot of points with a title and axis names (the report's Elo chain and
/// positions over time), 720 x 420.
struct LinePlot<'a> {
    title: &'a str,
    x: &'a str,
    y: &'a str,
    points: &'a [(f64, f64)],
}

impl picture::Picture for LinePlot<'_> {
    fn size(&self) -> (u32, u32) {
        (720, 420)
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> std::result::Result<(), String> {
        use picture::err;
        let points = self.points;
        root.fill(&WHITE).map_err(err)?;
        let xmax = points.iter().map(|p| p.0).fold(1.0, f64::max);
        let ymin = points.iter().map(|p| p.1).fold(0.0, f64::min);
        let ymax = points.iter().map(|p| p.1).fold(1.0, f64::max);
        let mut chart = ChartBuilder::on(root)
            .caption(self.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..xmax.max(1.0), ymin..ymax * 1.05 + 1e-9)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(self.x)
            .y_desc(self.y)
            .draw()
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new(points.iter().copied(), &BLUE))
            .map_err(err)?;
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, BLUE.filled())))
            .map_err(err)?;
        root.present().map_err(err)
    }
}

fn plot(path: &Path, title: &str, x: &str, y: &str, points: &[(f64, f64)]) -> Result<()> {
    let picture = LinePlot { title, x, y, points };
    picture::write(path, &picture).map_err(|e| anyhow!("the report's plot: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_promotions_sum_leaves_out_an_infinite_gate_and_says_so() {
        let chain = [
            ("gen1", 0.0),
            ("gen2", 20.5),
            ("gen3", f64::INFINITY),
            ("gen4", 10.0),
        ]
        .map(|(n, e)| {
            (
                n.to_string(),
                std::path::PathBuf::from(format!("nets/{n}.nnue")),
                e,
            )
        });
        let (rows, points) = promotion_rows(&chain);
        assert_eq!(
            rows,
            "| gen1 | +0.0 | +0.0 |\n| gen2 | +20.5 | +20.5 |\n\
             | gen3 | +inf | +20.5 and 1 gate of +inf |\n| gen4 | +10.0 | +30.5 and 1 gate of +inf |\n"
        );
        assert_eq!(points, [(0.0, 0.0), (1.0, 20.5), (2.0, 20.5), (3.0, 30.5)]);
    }
}
