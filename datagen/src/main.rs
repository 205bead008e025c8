//! The `datagen` binary: self-play generation and the tools to inspect its files.
//!
//! ```text
//! datagen --threads T (--games G | --positions P) --nodes N --out DIR [--net FILE]
//!         [--book FILE.epd] [--random-plies 8] [--seed S]
//! datagen stats FILE...      games, positions, results, game lengths
//! datagen verify FILE...     checksums of every chunk (exit 1 on damage)
//! datagen convert --to text|bullet --out FILE [--all] FILE...
//! ```

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use datagen::{GenSettings, Rng, SelfPlayer};
use movegen::{Board, Color};
use nnue::record::{encode_chunk, encode_header, keep_for_training, scan, GameRecord, Wdl};
use nnue::Network;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Parser, Debug)]
#[command(
    name = "datagen",
    about = "Luft self-play data generation",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    generate: GenerateArgs,
}

#[derive(Args, Debug)]
struct GenerateArgs {
    /// Worker threads (one searcher and one output file each).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Stop after this many games in total (files already in DIR count).
    #[arg(long)]
    games: Option<u64>,
    /// Stop after this many positions in total.
    #[arg(long)]
    positions: Option<u64>,
    /// Soft node limit per move (hard limit 8x).
    #[arg(long, default_value_t = 5000)]
    nodes: u64,
    /// Output directory (resumed if it holds earlier files).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Net to play with (default: the embedded net).
    #[arg(long)]
    net: Option<PathBuf>,
    /// EPD book of start positions (default: the start position).
    #[arg(long)]
    book: Option<PathBuf>,
    /// Random plies at the start of each game (8 or one more).
    #[arg(long, default_value_t = 8)]
    random_plies: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Games, positions, results and game lengths of data files.
    Stats { files: Vec<PathBuf> },
    /// Checks every chunk's checksum; exit code 1 on damage.
    Verify { files: Vec<PathBuf> },
    /// Writes positions as text (`FEN | cp | result`, White's view) or bulletformat.
    Convert {
        #[arg(long, value_parser = ["text", "bullet"])]
        to: String,
        #[arg(long)]
        out: PathBuf,
        /// Keep every position, not only those the training filter keeps.
        #[arg(long)]
        all: bool,
        files: Vec<PathBuf>,
    },
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Stats { files }) => stats(&files),
        Some(Command::Verify { files }) => verify(&files),
        Some(Command::Convert { to, out, all, files }) => convert(&to, &out, all, &files),
        None => generate(&cli.generate),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("datagen: error: {e:#}");
            std::process::exit(2);
        }
    }
}

fn read_games(path: &Path) -> Result<(Vec<GameRecord>, Option<String>)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let s = scan(&bytes, true).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok((s.games, s.error.map(|e| format!("{}: {e}", path.display()))))
}

fn stats(files: &[PathBuf]) -> Result<i32> {
    if files.is_empty() {
        bail!("give at least one file");
    }
    let (mut games, mut positions, mut kept) = (0u64, 0u64, 0u64);
    let mut wdl = [0u64; 3];
    let mut lengths = [0u64; 9];
    let mut damaged = 0;
    for file in files {
        let (records, error) = read_games(file)?;
        if let Some(e) = error {
            eprintln!("warning: {e} (earlier games counted)");
            damaged += 1;
        }
        for g in &records {
            games += 1;
            positions += g.moves.len() as u64;
            wdl[g.result as usize] += 1;
            lengths[(g.moves.len() / 50).min(8)] += 1;
            kept += g
                .positions()
                .enumerate()
                .filter(|(ply, (b, mv, score))| keep_for_training(b, *mv, *score, *ply))
                .count() as u64;
        }
    }
    println!(
        "files: {}{}",
        files.len(),
        if damaged > 0 {
            format!(" ({damaged} damaged)")
        } else {
            String::new()
        }
    );
    println!("games: {games}");
    println!("positions: {positions} ({kept} pass the training filter)");
    let pct = |n: u64| 100.0 * n as f64 / games.max(1) as f64;
    println!(
        "results (White's view): {} wins ({:.1}%), {} draws ({:.1}%), {} losses ({:.1}%)",
        wdl[2],
        pct(wdl[2]),
        wdl[1],
        pct(wdl[1]),
        wdl[0],
        pct(wdl[0])
    );
    println!("game length (plies):");
    for (i, n) in lengths.iter().enumerate() {
        let label = if i == 8 {
            "400+".to_string()
        } else {
            format!("{}-{}", i * 50, i * 50 + 49)
        };
        println!(
            "  {label:>8} {n:>8} {}",
            "#".repeat((60.0 * *n as f64 / games.max(1) as f64).round() as usize)
        );
    }
    Ok(0)
}

fn verify(files: &[PathBuf]) -> Result<i32> {
    if files.is_empty() {
        bail!("give at least one file");
    }
    let mut bad = 0;
    for file in files {
        let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        match scan(&bytes, true) {
            Ok(s) => match s.error {
                None => println!(
                    "ok   {}: {} games, {} bytes",
                    file.display(),
                    s.games.len(),
                    bytes.len()
                ),
                Some(e) => {
                    println!(
                        "BAD  {}: {e} ({} good games before it)",
                        file.display(),
                        s.games.len()
                    );
                    bad += 1;
                }
            },
            Err(e) => {
                println!("BAD  {}: {e}", file.display());
                bad += 1;
            }
        }
    }
    Ok(if bad > 0 { 1 } else { 0 })
}

/// bulletformat's 32-byte board, from the side to move's view.
fn bullet_record(board: &Board, score_white: i16, result: Wdl) -> [u8; 32] {
    let stm = board.side_to_move();
    let flip = |sq: movegen::Square| {
        if stm == Color::White {
            sq.index()
        } else {
            sq.index() ^ 56
        }
    };
    let mut squares: Vec<(usize, u8)> = board
        .occupied()
        .map(|sq| {
            let p = board.piece_on(sq).expect("occupied");
            (flip(sq), u8::from(p.color != stm) << 3 | p.kind as u8)
        })
        .collect();
    squares.sort_by_key(|&(s, _)| s);
    let mut out = [0u8; 32];
    let occ: u64 = squares.iter().fold(0, |acc, &(s, _)| acc | 1 << s);
    out[..8].copy_from_slice(&occ.to_le_bytes());
    for (i, &(_, code)) in squares.iter().enumerate() {
        out[8 + i / 2] |= code << (4 * (i % 2));
    }
    let score = if stm == Color::White {
        score_white
    } else {
        -score_white
    };
    out[24..26].copy_from_slice(&score.to_le_bytes());
    let white_result = result as u8;
    out[26] = if stm == Color::White {
        white_result
    } else {
        2 - white_result
    };
    out[27] = flip(board.king(stm)) as u8;
    out[28] = (flip(board.king(!stm)) ^ 56) as u8;
    out
}

fn convert(to: &str, out: &Path, all: bool, files: &[PathBuf]) -> Result<i32> {
    if files.is_empty() {
        bail!("give at least one input file");
    }
    let tmp = out.with_extension("partial");
    let mut writer = std::io::BufWriter::new(
        std::fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?,
    );
    let mut written = 0u64;
    for file in files {
        let (games, error) = read_games(file)?;
        if let Some(e) = error {
            eprintln!("warning: {e} (converting the games before it)");
        }
        for g in &games {
            for (ply, (board, mv, score)) in g.positions().enumerate() {
                if !all && !keep_for_training(&board, mv, score, ply) {
                    continue;
                }
                if to == "text" {
                    let result = match g.result {
                        Wdl::WhiteWins => "1.0",
                        Wdl::Draw => "0.5",
                        Wdl::BlackWins => "0.0",
                    };
                    writeln!(writer, "{} | {score} | {result}", board.to_fen())?;
                } else {
                    writer.write_all(&bullet_record(&board, score, g.result))?;
                }
                written += 1;
            }
        }
    }
    writer.flush()?;
    drop(writer);
    std::fs::rename(&tmp, out).with_context(|| format!("cannot write {}", out.display()))?;
    println!("wrote {written} positions to {}", out.display());
    Ok(0)
}

fn settings_text(args: &GenerateArgs, net: &Network, adjudicate: bool) -> String {
    format!(
        "format=luft-games-1\nnodes={}\nrandom_plies={}\nnet={:016x}\nhidden={}\nadjudicate={adjudicate}\nbook={}\nseed={}\n",
        args.nodes,
        args.random_plies,
        net.fingerprint(),
        net.hidden,
        args.book.as_ref().map_or("none".to_string(), |b| b.display().to_string()),
        args.seed
    )
}

fn generate(args: &GenerateArgs) -> Result<i32> {
    let Some(out) = &args.out else {
        bail!("give --out DIR (or a subcommand; see --help)")
    };
    if args.games.is_none() == args.positions.is_none() {
        bail!("give exactly one of --games G and --positions P");
    }
    if !(1..=256).contains(&args.threads) {
        bail!("--threads must be 1 to 256");
    }
    if args.nodes == 0 || args.random_plies > 40 {
        bail!("--nodes must be positive and --random-plies at most 40");
    }
    let net = match &args.net {
        Some(path) => {
            Arc::new(Network::load(path).map_err(|e| anyhow::anyhow!("--net {}: {e}", path.display()))?)
        }
        None => engine::uci::default_net(),
    };
    // A material-only net's scores mean little: play out games by the rules only.
    let adjudicate = net.fingerprint() != Network::material(32).fingerprint();
    let book: Vec<Board> = match &args.book {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read book {}", path.display()))?;
            let boards: Vec<Board> = text
                .lines()
                .filter_map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    let fen = if f.len() >= 6 {
                        f[..6].join(" ")
                    } else {
                        f.get(..4)?.join(" ")
                    };
                    Board::from_fen(fen.trim_end_matches(';')).ok()
                })
                .collect();
            if boards.is_empty() {
                bail!("no positions in book {}", path.display());
            }
            boards
        }
        None => Vec::new(),
    };
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let settings = settings_text(args, &net, adjudicate);
    let header = encode_header(&settings);

    // Resume: count what is there, cut a partial chunk left by a kill.
    let games_done = Arc::new(AtomicU64::new(0));
    let positions_done = Arc::new(AtomicU64::new(0));
    let mut files = Vec::new();
    let mut existing = Vec::new();
    for t in 0..args.threads {
        let path = out.join(format!("games-{t}.bin"));
        let mut local_games = 0u64;
        if path.exists() {
            let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let s = scan(&bytes, true).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            if s.settings != settings {
                bail!(
                    "{} was written with other settings; use another --out or the same settings\n--- file ---\n{}--- now ---\n{}",
                    path.display(),
                    s.settings,
                    settings
                );
            }
            if let Some(e) = &s.error {
                eprintln!(
                    "{}: {e}; cutting {} bytes and resuming",
                    path.display(),
                    bytes.len() as u64 - s.valid_len
                );
                let f = std::fs::OpenOptions::new().write(true).open(&path)?;
                f.set_len(s.valid_len)?;
            }
            local_games = s.games.len() as u64;
            games_done.fetch_add(local_games, Ordering::Relaxed);
            positions_done.fetch_add(
                s.games.iter().map(|g| g.moves.len() as u64).sum(),
                Ordering::Relaxed,
            );
        } else {
            std::fs::write(&path, &header).with_context(|| format!("cannot create {}", path.display()))?;
        }
        existing.push(local_games);
        files.push(path);
    }
    let resumed_games = games_done.load(Ordering::Relaxed);
    let resumed_positions = positions_done.load(Ordering::Relaxed);
    if resumed_games > 0 {
        eprintln!(
            "resuming: {resumed_games} games, {resumed_positions} positions already in {}",
            out.display()
        );
    }
    let target_reached = {
        let (g, p) = (games_done.clone(), positions_done.clone());
        let (tg, tp) = (args.games, args.positions);
        move || {
            tg.is_some_and(|t| g.load(Ordering::Relaxed) >= t)
                || tp.is_some_and(|t| p.load(Ordering::Relaxed) >= t)
        }
    };

    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed))
            .context("cannot install the Ctrl-C handler")?;
    }
    let results = Arc::new([AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)]);
    let nodes_searched = Arc::new(AtomicU64::new(0));
    let gen_settings = GenSettings {
        nodes: args.nodes,
        random_plies: args.random_plies,
        adjudicate,
        max_plies: 400,
    };
    let start = Instant::now();
    let book = Arc::new(book);
    let mut handles = Vec::new();
    for (t, path) in files.iter().enumerate() {
        let (net, stop, games_done, positions_done, results, book, nodes_searched) = (
            net.clone(),
            stop.clone(),
            games_done.clone(),
            positions_done.clone(),
            results.clone(),
            book.clone(),
            nodes_searched.clone(),
        );
        let target_reached = target_reached.clone();
        let gen_settings = gen_settings.clone();
        let path = path.clone();
        let mut local = existing[t];
        let seed = args.seed;
        let handle = std::thread::Builder::new()
            .stack_size(engine::threads::SEARCH_STACK_BYTES)
            .spawn(move || -> Result<()> {
                let mut player = SelfPlayer::new(net);
                let mut file = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .with_context(|| format!("cannot open {}", path.display()))?;
                while !stop.load(Ordering::Relaxed) && !target_reached() {
                    // Each game's randomness depends only on (seed, thread, game index).
                    let mut rng = Rng(seed
                        ^ (t as u64).wrapping_mul(0xA24B_AED4_963E_E407)
                        ^ local.wrapping_mul(0x9FB2_1C65_1E98_DF25));
                    let (record, nodes) = player.play_game(&gen_settings, &book, &mut rng);
                    nodes_searched.fetch_add(nodes, Ordering::Relaxed);
                    let mut chunk = Vec::new();
                    encode_chunk(std::slice::from_ref(&record), &mut chunk);
                    file.write_all(&chunk)
                        .and_then(|_| file.flush())
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    local += 1;
                    games_done.fetch_add(1, Ordering::Relaxed);
                    positions_done.fetch_add(record.moves.len() as u64, Ordering::Relaxed);
                    results[record.result as usize].fetch_add(1, Ordering::Relaxed);
                }
                Ok(())
            })
            .context("cannot start a worker thread")?;
        handles.push(handle);
    }

    // Progress, once a second.
    let progress = |final_line: bool| {
        let secs = start.elapsed().as_secs_f64().max(1e-3);
        let g = games_done.load(Ordering::Relaxed) - resumed_games;
        let p = positions_done.load(Ordering::Relaxed) - resumed_positions;
        let r: Vec<u64> = results.iter().map(|a| a.load(Ordering::Relaxed)).collect();
        let target = match (args.games, args.positions) {
            (Some(t), _) => format!("games {}/{t}", games_done.load(Ordering::Relaxed)),
            (_, Some(t)) => format!("positions {}/{t}", positions_done.load(Ordering::Relaxed)),
            _ => String::new(),
        };
        let nodes = nodes_searched.load(Ordering::Relaxed);
        let line = format!(
            "{target}  +{g} games  +{p} positions  {:.0} pos/s  ({:.0} per thread)  W/D/L {}/{}/{}  {:.0} nodes/pos  {:.0} nps/thread  {:.0}s",
            p as f64 / secs,
            p as f64 / secs / args.threads as f64,
            r[2],
            r[1],
            r[0],
            nodes as f64 / p.max(1) as f64,
            nodes as f64 / secs / args.threads as f64,
            secs
        );
        if final_line {
            eprintln!("\r{line}");
        } else {
            eprint!("\r{line}   ");
        }
    };
    while handles.iter().any(|h| !h.is_finished()) {
        std::thread::sleep(Duration::from_millis(250));
        if start.elapsed().as_millis() % 1000 < 250 {
            progress(false);
        }
    }
    progress(true);
    let mut failed = None;
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failed = Some(e),
            Err(_) => failed = Some(anyhow::anyhow!("a worker thread panicked")),
        }
    }
    if let Some(e) = failed {
        return Err(e);
    }
    let interrupted = stop.load(Ordering::Relaxed);
    eprintln!(
        "{}: {} games, {} positions in {} ({} files); {}",
        if interrupted { "interrupted" } else { "done" },
        games_done.load(Ordering::Relaxed),
        positions_done.load(Ordering::Relaxed),
        out.display(),
        files.len(),
        if interrupted {
            "run again with the same arguments to resume"
        } else {
            "complete"
        }
    );
    Ok(if interrupted { 130 } else { 0 })
}
