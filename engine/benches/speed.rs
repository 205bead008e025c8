//! Engine speed, measured side by side in one run:
//! 1. `bench` nps with the embedded material net and with a random 256-wide net, next to
//!    `stockfish bench` (when a `stockfish` binary is on PATH or in /usr/games);
//! 2. NNUE incremental update + evaluation against full refresh + evaluation, over the move
//!    trees of the bench positions;
//! 3. Lazy SMP: Threads=2 against Threads=1 in nps and time to depth over the bench
//!    positions, next to the machine's own parallel capacity (two independent
//!    single-threaded benches at once against one).
//!
//! `cargo bench -p engine --bench speed [-- --depth N]`

#![allow(clippy::unwrap_used)]

use engine::accumulator::{detected_backend, AccumulatorStack};
use engine::bench::{run_quiet, BENCH_FENS};
use engine::search::{Limits, Shared, Worker};
use engine::threads::{self, Job};
use engine::tt::TranspositionTable;
use movegen::Board;
use nnue::Network;
use std::sync::atomic::{AtomicBool, AtomicU64};
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

fn eval_speed(net: &Arc<Network>) -> (f64, f64) {
    let boards = positions();
    let mut stack = AccumulatorStack::new(net.clone(), detected_backend());
    let mut sink = 0i64;
    // Incremental: push + evaluate for every child of every depth-1 node, depth 2.
    let start = Instant::now();
    let mut count = 0u64;
    for board in &boards {
        stack.refresh(board);
        for &mv in board.legal_moves().iter() {
            let mut child = *board;
            child.play(mv);
            stack.push(board, mv);
            for &mv2 in child.legal_moves().iter() {
                let mut grandchild = child;
                grandchild.play(mv2);
                stack.push(&child, mv2);
                sink += i64::from(stack.evaluate(&grandchild));
                stack.pop();
                count += 1;
            }
            stack.pop();
        }
    }
    let incremental = start.elapsed().as_secs_f64() * 1e9 / count as f64;
    let start = Instant::now();
    count = 0;
    for board in &boards {
        for &mv in board.legal_moves().iter() {
            let mut child = *board;
            child.play(mv);
            for &mv2 in child.legal_moves().iter() {
                let mut grandchild = child;
                grandchild.play(mv2);
                stack.refresh(&grandchild);
                sink += i64::from(stack.evaluate(&grandchild));
                count += 1;
            }
        }
    }
    let refresh = start.elapsed().as_secs_f64() * 1e9 / count as f64;
    std::hint::black_box(sink);
    (incremental, refresh)
}

/// Time and nodes to search every bench position to `depth` with `threads` threads.
fn smp_run(net: &Arc<Network>, threads: usize, depth: i32) -> (u64, f64) {
    let tt = Arc::new(TranspositionTable::new(64));
    let shared = Arc::new(Shared {
        tt: tt.clone(),
        stop: AtomicBool::new(false),
        nodes: (0..threads).map(|_| AtomicU64::new(0)).collect(),
    });
    let mut workers: Vec<Worker> = (0..threads)
        .map(|id| {
            Worker::new(
                id,
                shared.clone(),
                AccumulatorStack::new(net.clone(), detected_backend()),
            )
        })
        .collect();
    let mut nodes = 0;
    let mut seconds = 0.0;
    for board in positions() {
        tt.clear();
        workers.iter_mut().for_each(|w| w.history.clear());
        shared.stop.store(false, std::sync::atomic::Ordering::Relaxed);
        let job = Job {
            board,
            history: Vec::new(),
            limits: Limits {
                depth: Some(depth),
                multipv: 1,
                ..Limits::default()
            },
            time: None,
            infinite: false,
            ponder: false,
            pondering: Arc::new(AtomicBool::new(false)),
            chess960: false,
            start: Instant::now(),
            show_wdl: false,
        };
        let start = Instant::now();
        threads::run(&mut workers, &shared, &job, &|_| {});
        seconds += start.elapsed().as_secs_f64();
        nodes += shared.total_nodes();
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
    let material = engine::uci::default_net();
    let random = Arc::new(Network::random(256, 1, 256));
    println!("backend: {:?}", detected_backend());

    println!("\n1. bench nps (depth {depth}, one thread)");
    for (name, net) in [("luft material-32", &material), ("luft random-256", &random)] {
        let (nodes, secs) = run_quiet(depth, net, |_, _, _| {});
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
    for (name, net) in [("material-32", &material), ("random-256", &random)] {
        let (inc, refresh) = eval_speed(net);
        println!(
            "   {name:<12} incremental {inc:>7.1} ns  refresh {refresh:>7.1} ns  speed-up {:.2}x",
            refresh / inc
        );
    }

    println!("\n3. Lazy SMP against the machine's parallel capacity (random-256 net)");
    let smp_depth = depth.min(12);
    let (n1, t1) = run_quiet(smp_depth, &random, |_, _, _| {});
    let start = Instant::now();
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let net = random.clone();
            std::thread::spawn(move || run_quiet(smp_depth, &net, |_, _, _| {}).0)
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
