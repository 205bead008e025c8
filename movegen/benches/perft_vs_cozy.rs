//! Side-by-side perft benchmark: Luft's `movegen` against the cozy-chess crate, same build,
//! same positions, same algorithm (copy-make, bulk counting at the last ply), runs
//! alternated so drift hits both alike. Prints Mnps for each and the ratio Luft / cozy.
//!
//! `cargo bench -p movegen --bench perft_vs_cozy` (add `-- --rounds N` for more rounds; use
//! `RUSTFLAGS="-C target-cpu=native"` with `--features pext,cozy-chess/pext` for PEXT).

use std::time::Instant;

const POSITIONS: &[(&str, &str, u32, bool)] = &[
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        6,
        false,
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        5,
        false,
    ),
    (
        "position4",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        5,
        false,
    ),
    (
        "chess960",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        6,
        true,
    ),
];

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut nodes = 0;
    if depth == 1 {
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
    } else {
        board.generate_moves(|moves| {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                nodes += cozy_perft(&child, depth - 1);
            }
            false
        });
    }
    nodes
}

fn time<F: FnMut() -> u64>(mut f: F) -> (u64, f64) {
    let start = Instant::now();
    let nodes = f();
    (nodes, start.elapsed().as_secs_f64())
}

fn main() {
    let mut rounds = 3;
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--rounds") {
        rounds = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(3);
    }
    println!(
        "perft, best of {rounds} alternating runs; pext: luft {}",
        cfg!(all(feature = "pext", target_feature = "bmi2"))
    );
    println!(
        "{:<10} {:>5} {:>12} {:>11} {:>11} {:>7}",
        "position", "depth", "nodes", "luft Mnps", "cozy Mnps", "ratio"
    );
    let mut ratios = Vec::new();
    for &(name, fen, depth, chess960) in POSITIONS {
        let luft_board = movegen::Board::from_fen(fen).expect("valid FEN");
        let cozy_board = cozy_chess::Board::from_fen(fen, chess960).expect("valid FEN");
        let (mut best_luft, mut best_cozy) = (f64::MAX, f64::MAX);
        let mut nodes = 0;
        for _ in 0..rounds {
            let (n_luft, t_luft) = time(|| movegen::perft(&luft_board, depth));
            let (n_cozy, t_cozy) = time(|| cozy_perft(&cozy_board, depth));
            assert_eq!(n_luft, n_cozy, "{name}: the two generators disagree");
            nodes = n_luft;
            best_luft = best_luft.min(t_luft);
            best_cozy = best_cozy.min(t_cozy);
        }
        let (luft_mnps, cozy_mnps) = (nodes as f64 / best_luft / 1e6, nodes as f64 / best_cozy / 1e6);
        ratios.push(luft_mnps / cozy_mnps);
        println!(
            "{name:<10} {depth:>5} {nodes:>12} {luft_mnps:>11.1} {cozy_mnps:>11.1} {:>7.3}",
            luft_mnps / cozy_mnps
        );
    }
    let geo = ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64;
    println!("geometric mean ratio luft/cozy: {:.3}", geo.exp());
}
