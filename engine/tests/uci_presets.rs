//! The UCI options datagen presets for other engines use (OpenBench's distributed datagen
//! sets them on every engine it drives), through the real `luft` binary: `UseSoftNodes`
//! makes `go nodes N` datagen's soft budget (no new iteration once N/2 nodes are spent,
//! that budget scaled by the search, a hard cap of 8 N), and `Minimal` leaves only the last
//! report's `info` line(s) before `bestmove`.
//!
//! Searches on one thread from a fresh process are deterministic, so the soft search is
//! checked against the hard search at 8 N: the same iterations, cut where the soft rule
//! can cut (its scale is the search's, within `TM_MIN_SCALE` to `TM_MAX_SCALE`).

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

mod common;

use common::{Engine, SECOND};
use engine::{hard_nodes_for, SOFT_NODES_MEAN_SCALE, TM_MAX_SCALE, TM_MIN_SCALE};

/// A middlegame position with plenty to search.
const FEN: &str = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 2 9";

/// A search's `info` lines (not `info string`) without the fields that depend on the
/// clock (`nps`, `time`), and its best move; each from a fresh engine.
fn search(options: &[(&str, &str)], go: &str) -> (Vec<String>, String) {
    let mut engine = Engine::start();
    engine.send("uci");
    engine.until("uciok", 5 * SECOND);
    for (name, value) in options {
        engine.send(&format!("setoption name {name} value {value}"));
    }
    engine.send(&format!("position fen {FEN}"));
    assert!(engine.sync().is_empty(), "the options and the position are taken");
    engine.send(go);
    let (best, lines) = engine.bestmove(60 * SECOND);
    engine.quit();
    let infos = lines
        .iter()
        .filter(|l| l.starts_with("info ") && !l.starts_with("info string"))
        .map(|l| without_clock(l))
        .collect();
    (infos, best)
}

fn without_clock(line: &str) -> String {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if matches!(tokens[i], "nps" | "time") {
            i += 2;
            continue;
        }
        out.push(tokens[i]);
        i += 1;
    }
    out.join(" ")
}

fn nodes_of(line: &str) -> u64 {
    let mut tokens = line.split_whitespace();
    tokens
        .position(|t| t == "nodes")
        .expect("an info line with nodes");
    tokens.next().unwrap().parse().unwrap()
}

/// Node budgets at which a soft and a hard budget would search differently under the
/// unscaled soft rule, from the node counts `c` of one long search's completed iterations
/// (one `info` line each); the search's scale of the soft budget (from `tm_min_depth` on)
/// can move either cut by an iteration, so at a given budget the two may still agree, and
/// the test asks only that some budget tells them apart. Where an
/// iteration costs at most about twice the one before (`c[k+1] + 16 <= 2 c[k]`), at
/// `n = c[k+1] + 16` the hard limit completes iteration k+1 while the soft budget stops after
/// iteration k at the latest (`c[k] >= n / 2`); where it costs more than twice
/// (`c[k+1] > 2 c[k] + 2`), at `n = 2 c[k] + 2` the soft budget starts iteration k+1 and
/// finishes it past n (below its hard cap, `hard_nodes_for(n)`), which the hard limit cannot. Which case
/// a search meets depends on the net and the search, so the budgets are found, not fixed
/// (fixed ones once all fell where the two agree). At most `want` budgets of 1,000 nodes or
/// more, spread over the search.
fn distinguishing_budgets(counts: &[u64], want: usize) -> Vec<u64> {
    let mut budgets = Vec::new();
    for pair in counts.windows(2) {
        let (before, next) = (pair[0], pair[1]);
        if before < 1_000 {
            continue;
        }
        if next + 16 <= 2 * before {
            budgets.push(next + 16);
        } else if next > 2 * before + 2 && next < hard_nodes_for(2 * before + 2) {
            budgets.push(2 * before + 2);
        }
    }
    if budgets.len() > want {
        let step = budgets.len() as f64 / want as f64;
        budgets = (0..want).map(|i| budgets[(i as f64 * step) as usize]).collect();
    }
    budgets
}

#[test]
fn distinguishing_budgets_cover_both_cases() {
    // Growth at most twice: just above the next iteration's count.
    assert_eq!(distinguishing_budgets(&[1_000, 1_500], 3), vec![1_516]);
    // Growth above twice: just above twice the iteration before.
    assert_eq!(distinguishing_budgets(&[1_000, 3_000], 3), vec![2_002]);
    // The narrow band between the two, and small counts, give none.
    assert!(distinguishing_budgets(&[1_000, 1_995], 3).is_empty());
    assert!(distinguishing_budgets(&[500, 700], 3).is_empty());
    assert_eq!(
        distinguishing_budgets(&[1_000, 1_500, 2_000, 3_000, 4_000], 2).len(),
        2
    );
}

#[test]
fn use_soft_nodes_turns_go_nodes_into_a_soft_budget() {
    let (reference, _) = search(&[], "go nodes 400000");
    // Completed iterations only: a slow machine may print bound lines mid-iteration.
    let counts: Vec<u64> = reference
        .iter()
        .filter(|l| !l.contains("lowerbound") && !l.contains("upperbound"))
        .map(|l| nodes_of(l))
        .collect();
    let budgets = distinguishing_budgets(&counts, 6);
    assert!(!budgets.is_empty(), "no budget to test in {counts:?}");
    let mut differing = Vec::new();
    for &n in &budgets {
        let (soft, soft_best) = search(&[("UseSoftNodes", "true")], &format!("go nodes {n}"));
        // The same search with the hard cap as its only limit, cut where the soft rule
        // stops: after the first iteration that ends with half the budget spent, the budget
        // scaled by the search (by 1 before `tm_min_depth`, else by `search_scale` over its
        // mean: from TM_MIN_SCALE to TM_MAX_SCALE of that), so the cut lies between the
        // first iteration past the least scaled half and the first past the largest.
        let (hard8, _) = search(&[], &format!("go nodes {}", hard_nodes_for(n)));
        let scaled = |scale: f64| (n as f64 * scale / SOFT_NODES_MEAN_SCALE).min(n as f64);
        let (least, most) = (
            scaled(TM_MIN_SCALE),
            n as f64 * TM_MAX_SCALE / SOFT_NODES_MEAN_SCALE,
        );
        let first_past = |half: f64| {
            hard8
                .iter()
                .position(|l| 2.0 * nodes_of(l) as f64 >= half)
                .map_or(hard8.len(), |i| i + 1)
        };
        let (earliest, latest) = (first_past(least), first_past(most));
        assert!(
            (earliest..=latest).contains(&soft.len()) && soft == hard8[..soft.len()],
            "go nodes {n} with UseSoftNodes: {soft:?} is not hard8 cut between {earliest} and {latest}: {hard8:?}"
        );
        assert_eq!(
            Some(soft_best.as_str()),
            soft.last()
                .and_then(|l| l.split(" pv ").nth(1))
                .and_then(|pv| pv.split(' ').next()),
            "{n}"
        );
        // Without the option the limit stays hard (see `distinguishing_budgets`).
        let (hard, _) = search(&[], &format!("go nodes {n}"));
        assert!(hard.iter().all(|l| nodes_of(l) <= n), "{n}: {hard:?}");
        if hard != soft {
            differing.push(n);
        }
    }
    assert!(
        !differing.is_empty(),
        "no budget of {budgets:?} searched differently with UseSoftNodes than without"
    );
}

#[test]
fn minimal_prints_only_the_last_report_before_bestmove() {
    for multipv in ["1", "3"] {
        let (full, full_best) = search(&[("MultiPV", multipv)], "go depth 8");
        let (minimal, minimal_best) = search(&[("MultiPV", multipv), ("Minimal", "true")], "go depth 8");
        let k: usize = multipv.parse().unwrap();
        assert!(full.len() > k, "{full:?}");
        assert_eq!(minimal, full[full.len() - k..], "MultiPV {multipv}");
        assert_eq!(minimal_best, full_best);
    }
    // An infinite search stopped: still one line, then the move.
    let mut engine = Engine::start();
    engine.send("setoption name Minimal value true");
    engine.send("position startpos");
    engine.send("go infinite");
    std::thread::sleep(SECOND / 5);
    engine.send("stop");
    let (best, lines) = engine.bestmove(10 * SECOND);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("info depth ") && lines[0].contains(&format!(" pv {best}")),
        "{lines:?}"
    );
    // Both options are declared as checks, off by default.
    engine.send("uci");
    let declared = engine.until("uciok", 5 * SECOND);
    for name in ["UseSoftNodes", "Minimal"] {
        let line = format!("option name {name} type check default false");
        assert!(declared.contains(&line), "{declared:?}");
    }
    engine.quit();
}
