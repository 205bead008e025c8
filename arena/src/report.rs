//! The interval and final reports, in fastchess's form, so that a script that reads
//! fastchess output reads arena's the same way:
//!
//! ```text
//! --------------------------------------------------
//! Results of new vs base (8+0.08, 1t, 16MB, luft-8ply.epd):
//! Elo: 12.43 +/- 20.11, nElo: 19.02 +/- 30.77
//! LOS: 88.87 %, DrawRatio: 45.00 %, PairsRatio: 1.40
//! Games: 200, Wins: 62, Losses: 55, Draws: 83, Points: 103.5 (51.75 %)
//! Ptnml(0-2): [4, 20, 45, 25, 6], WL/DD Ratio: 0.29
//! LLR: 0.55 (18.7%) (-2.94, 2.94) [0.00, 5.00]
//! --------------------------------------------------
//! ```
//!
//! The numbers follow fastchess's arithmetic, with no clamping: where every pair (or game)
//! has the same result the Elo is `inf` or `-inf` and its error `nan`, a PairsRatio without
//! losing pairs is `inf`, and LOS is `100.00 %` or `0.00 %` (0/0 is `nan`, as fastchess
//! prints it). The `Results of` line names each side's limit (`8+0.08`, `40/60+0.6`, `5000
//! nodes`, `10 plies`, `0.1/move`; `A - B` when they differ), `Threads` (`1t`) and `Hash`
//! (`16MB`) as configured or declared by the engine (`NULL` when it has none), and the book's
//! file name. `-report penta=false` reports per game (no `PairsRatio`, no `Ptnml`).
//!
//! With more than two engines the report starts with one table of every engine, rated
//! jointly by maximum likelihood (`arena rate`'s fit, mean 0), then a block per pair that
//! has played.

use matchcore::sprt::{sprt_llr, SprtConfig};
use matchcore::stats::{sprt_bounds, EloEstimate};
use matchcore::tally::{estimate, Tally};

/// A number as fastchess prints it with `{:.N}`: `inf`, `-inf`, `nan`, and no `-0.00`.
pub fn num(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let text = format!("{x:.decimals$}");
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// The `Elo: X +/- E, nElo: Y +/- F` line (without the newline), as fastchess prints it;
/// the match report and `arena sprt-calc` both print it with this.
pub fn elo_line(e: &EloEstimate) -> String {
    format!(
        "Elo: {} +/- {}, nElo: {} +/- {}",
        num(e.elo, 2),
        num(e.elo_error, 2),
        num(e.nelo, 2),
        num(e.nelo_error, 2)
    )
}

/// LOS in percent as the report prints it (`100.00 %`, `nan %`).
pub fn los_text(e: &EloEstimate) -> String {
    format!("{} %", num(e.los, 2))
}

/// What the `Results of` line says about the match besides the names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchLabel {
    /// Each side's limit, `Threads` and `Hash` texts.
    pub limits: [String; 2],
    /// Each side's `Threads` option value, as text.
    pub threads: [String; 2],
    /// Each side's `Hash` option value (MiB), as text.
    pub hash: [String; 2],
    /// The book's file name, if any.
    pub book: Option<String>,
}

fn both(pair: &[String; 2]) -> String {
    if pair[0] == pair[1] {
        pair[0].clone()
    } else {
        format!("{} - {}", pair[0], pair[1])
    }
}

/// The lines of one pair's results (without the dashed rules).
pub fn pair_block(
    tally: &Tally,
    names: (&str, &str),
    label: &MatchLabel,
    penta: bool,
    sprt: Option<&SprtConfig>,
) -> String {
    let penta = penta && tally.pairs() > 0;
    let e = estimate(tally, penta);
    let [l, d, w] = tally.tri;
    let games = tally.games();
    let points = w as f64 + d as f64 / 2.0;
    let mut parts = vec![both(&label.limits), both(&label.threads), both(&label.hash)];
    if let Some(book) = &label.book {
        parts.push(book.clone());
    }
    let mut out = format!("Results of {} vs {} ({}):\n", names.0, names.1, parts.join(", "));
    out.push_str(&elo_line(&e));
    out.push('\n');
    let pairs = tally.pairs() as f64;
    if penta {
        let draw_ratio = tally.penta[2] as f64 / pairs * 100.0;
        let pairs_ratio = (tally.penta[3] + tally.penta[4]) as f64 / (tally.penta[0] + tally.penta[1]) as f64;
        out.push_str(&format!(
            "LOS: {}, DrawRatio: {} %, PairsRatio: {}\n",
            los_text(&e),
            num(draw_ratio, 2),
            num(pairs_ratio, 2)
        ));
    } else {
        out.push_str(&format!(
            "LOS: {}, DrawRatio: {} %\n",
            los_text(&e),
            num(d as f64 / games as f64 * 100.0, 2)
        ));
    }
    out.push_str(&format!(
        "Games: {games}, Wins: {w}, Losses: {l}, Draws: {d}, Points: {points:.1} ({} %)\n",
        num(points / games as f64 * 100.0, 2)
    ));
    if penta {
        let dd = tally.penta[2].saturating_sub(tally.wl);
        out.push_str(&format!(
            "Ptnml(0-2): [{}, {}, {}, {}, {}], WL/DD Ratio: {}\n",
            tally.penta[0],
            tally.penta[1],
            tally.penta[2],
            tally.penta[3],
            tally.penta[4],
            num(tally.wl as f64 / dd as f64, 2)
        ));
    }
    if let Some(s) = sprt {
        let value = sprt_llr(tally, s, penta);
        let (lower, upper) = sprt_bounds(s.alpha, s.beta);
        let fraction = if value >= 0.0 {
            value / upper
        } else {
            -value / lower
        } * 100.0;
        out.push_str(&format!(
            "LLR: {} ({}%) ({}, {}) [{}, {}]\n",
            num(value, 2),
            num(fraction, 1),
            num(lower, 2),
            num(upper, 2),
            num(s.elo0, 2),
            num(s.elo1, 2)
        ));
    }
    out
}

/// The table of every engine in a tournament of more than two: rank, name, Elo and its
/// 95% error (the joint fit of [`crate::rating`], mean 0), games, points, score and draw
/// ratio.
pub fn engine_table(ratings: &[crate::rating::Rating]) -> String {
    let width = ratings
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(25);
    let mut out = format!(
        "{:<4} {:<width$} {:>8} {:>8} {:>7} {:>8} {:>7} {:>7}\n",
        "Rank", "Name", "Elo", "+/-", "Games", "Points", "Score", "Draw"
    );
    for (rank, r) in ratings.iter().enumerate() {
        let games = r.games.max(1) as f64;
        out.push_str(&format!(
            "{:>4} {:<width$} {:>8} {:>8} {:>7} {:>8.1} {:>6}% {:>6}%\n",
            rank + 1,
            r.name,
            num(r.elo, 2),
            num(r.error, 2),
            r.games,
            r.points,
            num(100.0 * r.points / games, 1),
            num(100.0 * r.draws as f64 / games, 1),
        ));
    }
    out
}

/// The dashed rule fastchess draws around a report.
pub const RULE: &str = "--------------------------------------------------";

#[cfg(test)]
mod tests {
    use super::*;
    use matchcore::stats::Model;

    fn tally(penta: [u64; 5], wl: u64) -> Tally {
        // Games from the pairs: LL, LD, DD/WL, WD, WW.
        let mut tri = [0; 3];
        tri[0] += 2 * penta[0] + penta[1] + wl;
        tri[1] += penta[1] + 2 * (penta[2] - wl) + penta[3];
        tri[2] += penta[3] + 2 * penta[4] + wl;
        Tally { tri, penta, wl }
    }

    fn label() -> MatchLabel {
        MatchLabel {
            limits: ["8+0.08".into(), "8+0.08".into()],
            threads: ["1t".into(), "1t".into()],
            hash: ["16MB".into(), "NULL".into()],
            book: Some("book.epd".into()),
        }
    }

    #[test]
    fn the_block_reads_like_fastchess() {
        let sprt = SprtConfig {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: Model::Normalized,
        };
        let text = pair_block(
            &tally([0, 1, 16, 3, 0], 0),
            ("a", "b"),
            &label(),
            true,
            Some(&sprt),
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Results of a vs b (8+0.08, 1t, 16MB - NULL, book.epd):");
        assert_eq!(lines[1], "Elo: 17.39 +/- 33.37, nElo: 56.36 +/- 107.67");
        assert_eq!(lines[2], "LOS: 84.75 %, DrawRatio: 80.00 %, PairsRatio: 3.00");
        assert_eq!(
            lines[3],
            "Games: 40, Wins: 3, Losses: 1, Draws: 36, Points: 21.0 (52.50 %)"
        );
        assert_eq!(lines[4], "Ptnml(0-2): [0, 1, 16, 3, 0], WL/DD Ratio: 0.00");
        assert!(lines[5].starts_with("LLR: ") && lines[5].ends_with(" (-2.94, 2.94) [0.00, 5.00]"));
    }

    #[test]
    fn one_result_everywhere_is_inf() {
        let text = pair_block(&tally([0, 0, 0, 0, 4], 0), ("a", "b"), &label(), true, None);
        assert!(text.contains("Elo: inf +/- nan, nElo: inf +/- nan\n"), "{text}");
        assert!(
            text.contains("LOS: 100.00 %, DrawRatio: 0.00 %, PairsRatio: inf\n"),
            "{text}"
        );
        assert!(text.contains("WL/DD Ratio: nan"), "{text}");
        let text = pair_block(&tally([4, 0, 0, 0, 0], 0), ("a", "b"), &label(), true, None);
        assert!(text.contains("Elo: -inf +/- nan"), "{text}");
        assert!(
            text.contains("LOS: 0.00 %, DrawRatio: 0.00 %, PairsRatio: 0.00\n"),
            "{text}"
        );
        let text = pair_block(&tally([0, 0, 4, 0, 0], 0), ("a", "b"), &label(), true, None);
        assert!(text.contains("Elo: 0.00 +/- 0.00, nElo: nan +/- nan\n"), "{text}");
        assert!(
            text.contains("LOS: nan %, DrawRatio: 100.00 %, PairsRatio: nan\n"),
            "{text}"
        );
        assert!(text.contains("WL/DD Ratio: 0.00"), "{text}");
        // Per game.
        let text = pair_block(&tally([0, 0, 0, 0, 4], 0), ("a", "b"), &label(), false, None);
        assert!(text.contains("Elo: inf +/- nan"), "{text}");
        assert!(text.contains("LOS: 100.00 %, DrawRatio: 0.00 %\n"), "{text}");
        assert!(!text.contains("Ptnml"));
    }

    #[test]
    fn the_engine_table() {
        let r = |name: &str, elo: f64, points: f64| crate::rating::Rating {
            name: name.into(),
            elo,
            error: 20.0,
            games: 40,
            points,
            draws: 12,
        };
        let text = engine_table(&[r("alpha", 35.04, 25.0), r("beta", -35.04, 15.0)]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[0].starts_with("Rank Name") && lines[0].ends_with("Points   Score    Draw"),
            "{text}"
        );
        assert!(
            lines[1].starts_with("   1 alpha ")
                && lines[1].contains("   35.04    20.00      40     25.0   62.5%   30.0%"),
            "{text}"
        );
        assert!(lines[2].contains("  -35.04 "), "{text}");
    }

    #[test]
    fn numbers_print_as_fastchess_prints_them() {
        assert_eq!(num(f64::INFINITY, 2), "inf");
        assert_eq!(num(f64::NEG_INFINITY, 2), "-inf");
        assert_eq!(num(f64::NAN, 2), "nan");
        assert_eq!(num(-0.001, 2), "0.00");
        assert_eq!(num(-1.5, 1), "-1.5");
    }
}
