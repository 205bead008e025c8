//! Engine speed, measured side by side in one run:
//! 1. `bench` nps with the embedded default net and with a random 256-wide net, next to
//!    `stockfish bench` (when a `stockfish` binary is on PATH or in /usr/games);
//! 2. NNUE incremental update + evaluation against full refresh + evaluation, over the move
//!    trees of the bench positions;
//! 3. Lazy SMP: Threads=2 against Threads=1 in nps and time to depth over the bench
//!    positions, next to the machine's own parallel capacity (two independent
//!    single-threaded benches at once against one).
//!
//! `cargo bench -p engine --bench speed [-- --depth N]`

#![allow(clippy::unwrap_used)]

use engine::bench::{eval_speed, run_quiet, BENCH_FENS};
use engine::{Engine, Evaluator, Limits};
use movegen::Board;
use nnue::Network;
use std::sync::Arc;
use std::time::Instant;

fn positions() -> Vec<Board> {
    BENCH_FENS
        .lines()
        .filter_map(|l| Board::from_fen(l.trim()).ok())
        .collect()
}

fn stockfish_nps() -> Option<(u64, String)> {
    for exe in ["stockfish", "/usr/games/stockfish"] {
        if let Ok(out) = std::process::Command::new(exe).arg("bench").output() {
            let text =
                String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
            let nps = text
                .lines()
                .find(|l| l.starts_with("Nodes/second"))
                .and_then(|l| l.split(':').nth(1))
                .and_then(|v| v.trim().parse().ok());
            if let Some(nps) = nps {
                return Some((nps, exe.to_string()));
            }
        }
    }
    None
}

/// Time and nodes to search every bench position to `depth` with `threads` threads,
/// through the engine facade (a new game before each position).
fn smp_run(net: &Arc<Network>, threads: usize, depth: i32) -> (u64, f64) {
    let mut engine = Engine::with_network(net.clone());
    engine.set_option("Hash", Some("64")).unwrap();
    engine.set_option("Threads", Some(&threads.to_string())).unwrap();
    let mut nodes = 0;
    let mut seconds = 0.0;
    for board in positions() {
        engine.new_game();
        engine.set_position(board, &[]).unwrap();
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let start = Instant::now();
        let result = engine.go(limits, &mut ()).unwrap();
        seconds += start.elapsed().as_secs_f64();
        nodes += result.nodes;
    }
    (nodes, seconds)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let depth: i32 = args
        .iter()
        .position(|a| a == "--depth")
        .and_then(|i| args.get(i + 1))
        .and_then(|d| d.parse().ok())
        .unwrap_or(engine::bench::DEFAULT_BENCH_DEPTH);
    let default = engine::default_net();
    let random = Arc::new(Network::random(256, 1, 256).unwrap());
    println!("backend: {}", Evaluator::new(random.clone()).backend());

    println!("\n1. bench nps (depth {depth}, one thread)");
    for (name, net) in [("luft default net", &default), ("luft random-256", &random)] {
        let (nodes, secs) = run_quiet(depth, net, |_, _, _| {}).unwrap();
        println!(
            "   {name:<22} {:>10} nodes {:>9.0} nps",
            nodes,
            nodes as f64 / secs
        );
    }
    match stockfish_nps() {
        Some((nps, exe)) => println!(
            "   {:<22} {:>16} {:>9} nps  ({exe} bench, its own positions and net)",
            "stockfish", "", nps
        ),
        None => println!("   stockfish not found (apt-get install stockfish)"),
    }

    println!("\n2. NNUE per evaluated node: incremental update vs full refresh (ns)");
    for (name, net) in [("default net", &default), ("random-256", &random)] {
        let (inc, refresh) = eval_speed(net);
        println!(
            "   {name:<12} incremental {inc:>7.1} ns  refresh {refresh:>7.1} ns  speed-up {:.2}x",
            refresh / inc
        );
    }

    println!("\n3. Lazy SMP against the machine's parallel capacity (random-256 net)");
    let smp_depth = depth.min(12);
    let (n1, t1) = run_quiet(smp_depth, &random, |_, _, _| {}).unwrap();
    let start = Instant::now();
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let net = random.clone();
            std::thread::spawn(move || run_quiet(smp_depth, &net, |_, _, _| {}).unwrap().0)
        })
        .collect();
    let n2: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    let t2 = start.elapsed().as_secs_f64();
    let nps1 = n1 as f64 / t1;
    let capacity = (n2 as f64 / t2) / nps1;
    let (s1_nodes, s1_time) = smp_run(&random, 1, smp_depth);
    let (s2_nodes, s2_time) = smp_run(&random, 2, smp_depth);
    let smp_ratio = (s2_nodes as f64 / s2_time) / (s1_nodes as f64 / s1_time);
    println!("   one bench alone          {:>9.0} nps", nps1);
    println!(
        "   two benches at once      {:>9.0} nps total: capacity {:.2}x",
        n2 as f64 / t2,
        capacity
    );
    println!(
        "   Threads=1 search         {:>9.0} nps, {:.2} s to depth {smp_depth} over 50 positions",
        s1_nodes as f64 / s1_time,
        s1_time
    );
    println!(
        "   Threads=2 search         {:>9.0} nps, {:.2} s to depth {smp_depth}",
        s2_nodes as f64 / s2_time,
        s2_time
    );
    println!(
        "   Threads=2 / Threads=1: nps {:.2}x ({:.0}% of capacity), time to depth {:.2}x",
        smp_ratio,
        100.0 * smp_ratio / capacity,
        s1_time / s2_time
    );
}
