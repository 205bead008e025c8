//! A deliberately misbehaving UCI engine for arena's fault tests. It plays the first legal
//! move, except that on its Nth `go` (`--after N`, default 1) it does what its mode says:
//! `crash` (exits), `stall` (never answers), `illegal` (an illegal move), `overtime` (answers
//! after its whole clock), `nobestmove` (`bestmove` without a move), `flood` (prints `info`
//! lines without pause and never a move), `mate` (claims mate in 1 with a PV that does not
//! mate), `stallready` (from its Nth `ucinewgame` on, never answers `isready`), `double`
//! (answers its Nth `go` with two `bestmove` lines, the second one late), or nothing (`ok`). With `--info`, each `go` is first answered by `info string pgncomment cwd=DIR
//! cpus=LIST` (its working directory and the CPUs it may run on). It declares one option,
//! `Hash` (spin 1 to 1024), and refuses values outside 1 to 64 with `info string error`, and any
//! other option with Stockfish's `No such option`.
//!
//! Mode `spsa` is a synthetic engine for `arena spsa`'s tests, whose strength peaks at known
//! option values: it also declares `X` (spin 0 to 100, default 50) and `Y` (spin -50 to 50,
//! default 0), and at each move it gives up (`score cp -5000`, which `-resign movecount=1
//! score=1000` turns into a loss) with probability `min(0.9, 0.3 * d^2)`, where `d^2 =
//! ((X - 30) / 50)^2 + ((Y + 20) / 50)^2`; otherwise it says `score cp 0`. The chance is
//! drawn from a hash of its `--seed S` (default 0), X, Y and the `position` line, so a game's
//! result is a function of both sides' values and the opening alone: the side nearer
//! (X, Y) = (30, -20) wins more often, and a rerun gives the same games.

use movegen::Board;
use output::checksum::{fnv1a_extend, FNV_OFFSET};
use std::io::{BufRead, Write};
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().cloned().unwrap_or_else(|| "ok".into());
    let after: usize = args
        .iter()
        .position(|a| a == "--after")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let info = args.iter().any(|a| a == "--info");
    let seed: u64 = args
        .iter()
        .position(|a| a == "--seed")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let synthetic = mode == "spsa";
    // The synthetic engine's options X and Y.
    let mut xy: [i64; 2] = [50, 0];
    let mut position_line = String::new();
    let mut board = Board::startpos();
    let mut gos = 0;
    let mut new_games = 0;
    let mut deaf = false;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let reply = match tokens.first().copied() {
            Some("uci") => Some(format!(
                "id name FaultEngine\nid author arena tests\n\
                 option name Hash type spin default 1 min 1 max 1024\n{}uciok",
                if synthetic {
                    "option name X type spin default 50 min 0 max 100\n\
                     option name Y type spin default 0 min -50 max 50\n"
                } else {
                    ""
                }
            )),
            Some("isready") if deaf => None,
            Some("isready") => Some("readyok".to_string()),
            Some("ucinewgame") => {
                new_games += 1;
                deaf = mode == "stallready" && new_games >= after;
                None
            }
            Some("quit") => break,
            Some("setoption") => {
                let value_at = tokens.iter().position(|&t| t == "value").unwrap_or(tokens.len());
                let name = tokens.get(2..value_at).unwrap_or_default().join(" ");
                let value = tokens.get(value_at + 1).copied().unwrap_or("");
                let axis = ["X", "Y"].iter().position(|a| a.eq_ignore_ascii_case(&name));
                if let (true, Some(i)) = (synthetic, axis) {
                    let (lo, hi) = [(0, 100), (-50, 50)][i];
                    match value.parse::<i64>() {
                        Ok(v) if (lo..=hi).contains(&v) => {
                            xy[i] = v;
                            None
                        }
                        _ => Some(format!("info string error: {name} must be from {lo} to {hi}")),
                    }
                } else if !name.eq_ignore_ascii_case("Hash") {
                    Some(format!("No such option: {name}"))
                } else if value.parse::<u64>().is_ok_and(|mib| (1..=64).contains(&mib)) {
                    None
                } else {
                    Some(format!("info string error: cannot allocate {value} MiB"))
                }
            }
            Some("position") => {
                position_line = line.clone();
                let moves_at = tokens.iter().position(|&t| t == "moves");
                let setup = &tokens[1..moves_at.unwrap_or(tokens.len())];
                board = if setup.first() == Some(&"fen") {
                    Board::from_fen(&setup[1..].join(" ")).unwrap_or_default()
                } else {
                    Board::startpos()
                };
                for text in moves_at.map_or(&[][..], |i| &tokens[i + 1..]) {
                    if let Ok(mv) = board.parse_uci(text) {
                        board.play(mv);
                    }
                }
                None
            }
            Some("go") => {
                gos += 1;
                if info {
                    let cwd = std::env::current_dir().map_or("?".into(), |d| d.display().to_string());
                    let cpus = std::fs::read_to_string("/proc/self/status")
                        .ok()
                        .and_then(|s| {
                            s.lines().find_map(|l| {
                                l.strip_prefix("Cpus_allowed_list:").map(|v| v.trim().to_string())
                            })
                        })
                        .unwrap_or_else(|| "?".into());
                    let _ = writeln!(out, "info string pgncomment cwd={cwd} cpus={cpus}");
                }
                let first_legal = board
                    .legal_moves()
                    .first()
                    .map_or("0000".to_string(), |&m| board.to_uci(m, false));
                let misbehave = gos == after;
                match mode.as_str() {
                    "spsa" => {
                        let score = if gives_up(seed, xy, &position_line) {
                            -5000
                        } else {
                            0
                        };
                        Some(format!("info depth 1 score cp {score}\nbestmove {first_legal}"))
                    }
                    "crash" if misbehave => std::process::exit(3),
                    "stall" if misbehave => {
                        std::thread::sleep(Duration::from_secs(3600));
                        None
                    }
                    "illegal" if misbehave => Some("info depth 1 score cp 0\nbestmove a1a8".to_string()),
                    "mate" if misbehave => Some(format!(
                        "info depth 1 score mate 1 pv {first_legal}\nbestmove {first_legal}"
                    )),
                    "nobestmove" if misbehave => Some("bestmove".to_string()),
                    "double" if misbehave => {
                        let _ = writeln!(out, "bestmove {first_legal}").and_then(|_| out.flush());
                        std::thread::sleep(Duration::from_millis(30));
                        Some(format!("bestmove {first_legal}"))
                    }
                    "flood" if misbehave => {
                        let mut out = std::io::BufWriter::new(out.lock());
                        while writeln!(out, "info depth 1 score cp 0 nodes 1 pv {first_legal}").is_ok() {}
                        return;
                    }
                    "overtime" if misbehave => {
                        let time = tokens
                            .iter()
                            .position(|&t| t == "wtime" || t == "btime")
                            .and_then(|i| tokens.get(i + 1))
                            .and_then(|v| v.parse::<u64>().ok())
                            .unwrap_or(100);
                        std::thread::sleep(Duration::from_millis(time + 300));
                        Some(format!("bestmove {first_legal}"))
                    }
                    _ => Some(format!("info depth 1 score cp 0\nbestmove {first_legal}")),
                }
            }
            _ => None,
        };
        if let Some(text) = reply {
            if writeln!(out, "{text}").and_then(|_| out.flush()).is_err() {
                break;
            }
        }
    }
}

/// Whether the synthetic engine with options `xy` gives up at the position `position`
/// (probability `min(0.9, 0.3 * d^2)`, `d` its distance from (30, -20) in units of 50).
fn gives_up(seed: u64, xy: [i64; 2], position: &str) -> bool {
    let dx = (xy[0] - 30) as f64 / 50.0;
    let dy = (xy[1] + 20) as f64 / 50.0;
    let chance = (0.3 * (dx * dx + dy * dy)).min(0.9);
    // FNV-1a over the seed, the values and the position, then SplitMix64's finaliser.
    let values = [seed.to_le_bytes(), xy[0].to_le_bytes(), xy[1].to_le_bytes()];
    let mut h = values.iter().fold(FNV_OFFSET, |h, v| fnv1a_extend(h, v));
    h = fnv1a_extend(h, position.as_bytes());
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    ((h >> 11) as f64 / (1u64 << 53) as f64) < chance
}
