//! The `datagen` binary: self-play generation and the tools to inspect its files.
//!
//! ```text
//! datagen --threads T (--games G | --positions P) --nodes N (--out DIR | --gen NAME)
//!         [--net FILE] [--book FILE.epd | --openings-960 none|frc|dfrc] [--random-plies 8] [--seed S]
//! datagen stats PATH...      per generation (directory): games, positions, W/D/L, nodes per
//!                            position, positions passing the training filter; and totals
//! datagen verify PATH...     every chunk's checksum, duplicates, headers, gaps in the sequence
//!                            numbers (exit 1 on a problem)
//! datagen convert --to text|bullet --out FILE [--all] PATH...
//! datagen import-pgn FILE.pgn... (--out DIR | --gen NAME)
//!                            games with each move's score in its comment (fastchess, arena,
//!                            OpenBench) as data files (`src/import.rs`)
//! datagen pack PATH... --out FILE.pack
//!                            every game of the data files in one compact, checksummed archive
//!                            (`records::pack`, about 2.5 bytes a position; `src/archive.rs`)
//! datagen unpack FILE.pack --out DIR
//!                            the packed data files again, the same games in the same chunks
//! datagen wdl-fit PATH...    fits the engine's WDL model (UCI_ShowWDL) to the games
//! datagen label-quality [--positions K] [--nodes 1250,2500,...] [--reference R] [--net FILE]
//!                       [--threads T] [--seed S] PATH...
//!                            label error of each node budget against a deep search, and
//!                            positions per hour (`datagen::label_quality`)
//! ```
//! A PATH is a data file, a pack, or a directory, searched at any depth for `*.bin` files (a
//! whole store, `$LUFT_DATA`, works); every reader tells data files and packs apart by their
//! first bytes (`records::source`), so `stats`, `verify`, `convert`, `wdl-fit`, `label-quality`
//! and the trainer read packs as they are (name them: a directory search finds `*.bin`
//! only). `--gen NAME` writes to `$LUFT_DATA/NAME` (default store `~/.local/share/luft`).
//! Every reader skips a damaged chunk, says where it was, and reads the rest; running the
//! same generate command again resumes, repairing without deleting an
//! intact game (`datagen::store`).
//!
//! While generating, stderr shows a progress bar (the workspace's `progress` crate) towards
//! `--games` or `--positions` (rate, ETA, W/D/L, nodes per position) when it is a terminal,
//! and otherwise a plain progress line every 10 s; the last progress line and the summary are
//! printed either way, in the same words. The streams do not share counters with the
//! display: each sends an event per finished game down a `crossbeam` channel to one
//! reporter thread, which owns the bar (or line) and every count it shows, and ends when
//! the last stream hangs up. (The streams share only what stops them exactly at the
//! target: games reserved and positions written.)
//!
//! The line gives the search speed twice: `nps/thread` is nodes per wall-clock second per
//! thread, what this run achieved on this machine (it falls when other processes share the
//! cores), and `nps/cpu-s` is nodes per second of the process's CPU time (every thread's),
//! the speed of the search itself, which `luft bench` nps on an idle core compares with
//! (`scripts/datagen-nps.sh` measures both side by side).
//!
//! Ctrl-C (SIGINT) or SIGTERM stops the run within a moment: every stream's search in
//! progress ends at once (`engine::SearchStopper`), its game is given up unwritten, and
//! datagen says `interrupted` and exits 130; the same command again resumes, playing the
//! given-up games whole. `--nodes` takes at most [`datagen::MAX_NODES`] (100,000,000).
//!
//! A stream that cannot write its file (a full disk) stops the run: the other streams end
//! after their game in flight, and every stream's error is told. The tests make a full disk
//! with `LUFT_DATAGEN_DISK_BYTES=N` ([`DISK_BYTES_ENV`]): each stream's file takes at most N
//! more bytes this run, and the write that would go beyond writes what fits, then fails as
//! a full disk does. `verify`, `stats`, `convert` and `label-quality` on a directory a
//! datagen is writing (its lock is held) take the damaged end of a file as the game in
//! flight, with a note, not a problem. Standard output goes through the `output` crate (a
//! closed pipe ends datagen quietly, status 141), standard error too (`output::errln!`: a
//! closed one drops the messages and the work goes on), and `convert` and `pack` write their file
//! by its rule (a regular file replaced atomically, a link kept, `/dev/null` or a FIFO
//! written through, an input refused).

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use datagen::label_quality::{self, summarise, table, Reservoir, Sample, Searched};
use datagen::store::{self, DirLock};
use datagen::{adjudication_text, GenSettings, SelfPlayer, MAX_NODES};
use engine::SearchStopper;
use movegen::openings::{opening_rng, OpeningSource, StartPositions};
use movegen::Board;
use nnue::Network;
use output::checksum::fnv1a;
use progress::{process_cpu_time, ProgressBar, Throttle, PLAIN_EVERY};
use records::manifest::PackEntry;
use records::positions::{bullet_record, text_line};
use records::record::{
    encode_chunk, keep_for_training, start_positions_name, GameRecord, GenHeader, Header, RecordError,
    SeqGaps, Wdl,
};
use records::source::{DataSource, Format, SourceItem};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

mod archive;
mod import;
mod wdl_fit;

#[derive(Parser, Debug)]
#[command(
    name = "datagen",
    version,
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
    /// Stop after this many games in total (every file already in the directory counts).
    #[arg(long)]
    games: Option<u64>,
    /// Stop after this many positions in total.
    #[arg(long)]
    positions: Option<u64>,
    /// Soft node limit per move (hard limit 8x).
    #[arg(long, default_value_t = 5000)]
    nodes: u64,
    /// Output directory, any path (resumed if it holds earlier files).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Output generation in the data store: $LUFT_DATA/NAME (default store
    /// ~/.local/share/luft).
    #[arg(long = "gen", value_name = "NAME")]
    generation: Option<String>,
    /// Net to play with (default: the embedded net).
    #[arg(long)]
    net: Option<PathBuf>,
    /// EPD book of start positions (default: the start position).
    #[arg(long)]
    book: Option<PathBuf>,
    /// Start games from random Chess960 positions (frc: one back rank for both sides) or
    /// double-Chess960 ones (dfrc: each side its own), before the random plies; none: the
    /// classical start position. Not with --book.
    #[arg(long = "openings-960", value_enum, default_value_t = Openings960::None)]
    openings_960: Openings960,
    /// Random plies at the start of each game (8 or one more).
    #[arg(long, default_value_t = 8)]
    random_plies: usize,
    /// Syzygy tablebase directories (`:` between them): a game ends as soon as it reaches
    /// a position the tables cover, with its true result (recorded in the file header).
    #[arg(long, value_name = "DIR")]
    syzygy: Option<String>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// `--openings-960`: where games start when there is no book (OpenBench's `frc`/`dfrc`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Openings960 {
    /// The classical start position.
    None,
    /// Chess960: a random back rank, the same for both sides.
    Frc,
    /// Double Chess960: a random back rank for each side.
    Dfrc,
}

impl Openings960 {
    fn start_positions(self) -> StartPositions {
        match self {
            Openings960::None => StartPositions::Classical,
            Openings960::Frc => StartPositions::Chess960,
            Openings960::Dfrc => StartPositions::DoubleChess960,
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Per generation (directory) and in total: games, positions, results, nodes per
    /// position, positions passing the training filter, game lengths.
    Stats { paths: Vec<PathBuf> },
    /// Checks every chunk's checksum, repeated chunks, headers and gaps in each file's
    /// sequence numbers (games gone); exit code 1 on a problem.
    /// With `--manifest DIR`, also checks the corpus folder DIR against its manifest (every
    /// listed pack present with its size, checksum, games and positions; none listed twice
    /// under two names; none unlisted) and verifies every pack it lists.
    Verify {
        /// A corpus folder whose `manifest.toml` to check the folder against.
        #[arg(long, value_name = "DIR")]
        manifest: Option<PathBuf>,
        paths: Vec<PathBuf>,
    },
    /// Adds to corpus folder DIR's manifest (`DIR/manifest.toml`, made when missing) every
    /// pack of DIR it does not list yet, read whole for its games, positions and settings;
    /// listed packs are kept as they are (`verify --manifest` checks them). A pack with the
    /// same bytes as another (the same games) is refused, naming both, and nothing is added.
    Manifest {
        /// The corpus folder.
        dir: PathBuf,
        /// The date the new packs joined the corpus, `YYYY-MM-DD`, a real calendar date
        /// (default: today, UTC).
        #[arg(long)]
        date: Option<String>,
        /// A folder of nets (e.g. `nets/`): a pack played by an engine's embedded net is
        /// described by the name of the net file with the same fingerprint.
        #[arg(long, value_name = "DIR")]
        nets: Option<PathBuf>,
        /// Packs to copy into the corpus first, each under its corpus name
        /// (`genN-OPENINGS-NNN.pack`: the generation of the net that played, the start
        /// positions, the next free counter); the originals are left as they are.
        #[arg(long, value_name = "PACK", num_args = 1..)]
        add: Vec<PathBuf>,
    },
    /// Writes positions as text (`FEN | cp | result`, White's view) or bulletformat.
    Convert {
        #[arg(long, value_parser = ["text", "bullet"])]
        to: String,
        #[arg(long)]
        out: PathBuf,
        /// Keep every position, not only those the training filter keeps.
        #[arg(long)]
        all: bool,
        paths: Vec<PathBuf>,
    },
    /// Packs data files (or directories of them, or packs) into one compact, checksummed
    /// archive: about 2.5 bytes a position, every game, chunk number, node count and
    /// settings header kept (`records::pack`).
    Pack {
        /// The pack to write (written to FILE.partial, then renamed).
        #[arg(long)]
        out: PathBuf,
        /// Data files, directories searched for `*.bin` at any depth, or packs.
        paths: Vec<PathBuf>,
    },
    /// Writes a pack's games back out as data files under DIR, one per packed file, under
    /// the names and headers they were packed with.
    Unpack {
        /// The pack to read.
        pack: PathBuf,
        /// The directory to write (must not exist, or be empty).
        #[arg(long)]
        out: PathBuf,
    },
    /// Turns PGNs with each move's score in its comment (fastchess, arena, OpenBench) into
    /// data files: each game from its first scored move after the book, the mover's score
    /// in pawns as White's centipawns, scoreless moves marked so the training filter drops
    /// them (`src/import.rs`).
    ImportPgn {
        /// The PGN files (each becomes `import-<name>.bin`).
        #[arg(required = true)]
        pgns: Vec<PathBuf>,
        /// Output directory, any path.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Output generation in the data store: $LUFT_DATA/NAME (default store
        /// ~/.local/share/luft).
        #[arg(long = "gen", value_name = "NAME")]
        generation: Option<String>,
    },
    /// Fits the engine's win-draw-loss model (UCI_ShowWDL) to the games.
    WdlFit(wdl_fit::FitArgs),
    /// Label quality against positions per hour: samples positions that pass the training
    /// filter, searches each at every --nodes budget and at --reference, as datagen searches
    /// (fresh table each search), and prints each budget's label error against the
    /// reference and its cost.
    LabelQuality(LabelQualityArgs),
}

#[derive(Args, Debug)]
struct LabelQualityArgs {
    /// Positions to sample, uniformly from those that pass the training filter.
    #[arg(long, default_value_t = 1000)]
    positions: usize,
    /// Soft node budgets to measure, comma separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1250, 2500, 5000, 10000, 20000])]
    nodes: Vec<u64>,
    /// The deep search every budget is compared with (soft nodes; at least 10x the largest
    /// budget is best: its own error is in every figure).
    #[arg(long, default_value_t = 300_000)]
    reference: u64,
    /// Net to search with (default: the embedded net).
    #[arg(long)]
    net: Option<PathBuf>,
    /// Searching threads (each position on one thread; CPU time is per thread).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Seed of the sample.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Data files or directories to sample from.
    paths: Vec<PathBuf>,
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Stats { paths }) => stats(&paths),
        Some(Command::Verify { manifest, paths }) => verify_all(manifest.as_deref(), &paths),
        Some(Command::Manifest { dir, date, nets, add }) => {
            add_to_manifest(&dir, date.as_deref(), nets.as_deref(), &add)
        }
        Some(Command::Convert { to, out, all, paths }) => {
            remove_partials_on_interrupt("convert").and_then(|()| convert(&to, &out, all, &paths))
        }
        Some(Command::Pack { out, paths }) => {
            remove_partials_on_interrupt("pack").and_then(|()| archive::pack(&paths, &out))
        }
        Some(Command::Unpack { pack, out }) => {
            remove_partials_on_interrupt("unpack").and_then(|()| archive::unpack(&pack, &out))
        }
        Some(Command::ImportPgn {
            pgns,
            out,
            generation,
        }) => output_dir(out.as_ref(), generation.as_deref()).and_then(|dir| import::import_pgn(&pgns, &dir)),
        Some(Command::WdlFit(args)) => wdl_fit::run(&args),
        Some(Command::LabelQuality(args)) => label_quality(&args),
        None => generate(&cli.generate),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            output::errln!("datagen: error: {e:#}");
            std::process::exit(2);
        }
    }
}

/// The data files the paths name (directories searched at any depth), each once
/// (`records::record::input_files`: a file reached twice is refused, not read twice).
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if paths.is_empty() {
        bail!("give at least one data file or directory");
    }
    Ok(records::record::input_files(paths, false)?
        .into_iter()
        .map(|(_, file)| file)
        .collect())
}

/// The net of `--net`, or the embedded net.
fn load_net(path: Option<&Path>) -> Result<Arc<Network>> {
    match path {
        Some(path) => Ok(Arc::new(
            Network::load(path).map_err(|e| anyhow::anyhow!("--net {}: {e}", path.display()))?,
        )),
        None => Ok(engine::default_net()),
    }
}

/// `datagen label-quality`: samples, searches on `--threads` threads (a bar or plain lines
/// over the positions on stderr), prints the table (`datagen::label_quality`).
fn label_quality(args: &LabelQualityArgs) -> Result<i32> {
    if args.positions == 0 {
        bail!("--positions must be at least 1");
    }
    if args.nodes.is_empty() {
        bail!("--nodes: give at least one node budget");
    }
    let budgets = args.nodes.iter().map(|&n| ("--nodes", n));
    for (flag, n) in budgets.chain([("--reference", args.reference)]) {
        if !(1..=MAX_NODES).contains(&n) {
            bail!("{flag} {n}: give 1 to {MAX_NODES} soft nodes a search");
        }
    }
    if !(1..=datagen::MAX_THREADS).contains(&args.threads) {
        bail!("--threads must be 1 to {}", datagen::MAX_THREADS);
    }
    let files = expand(&args.paths)?;
    let net = load_net(args.net.as_deref())?;
    let mut reservoir = Reservoir::new(args.positions, args.seed);
    for file in &files {
        let read = read_file(file, |_, g| reservoir.add_game(g))?;
        for p in &read.problems {
            output::errln!(
                "warning: {}: {p} (sampling from the rest of the file)",
                file.display()
            );
        }
        if let Some(note) = &read.in_flight {
            output::errln!("note: {}: {note}", file.display());
        }
    }
    let (seen, kept) = reservoir.seen();
    let samples = reservoir.into_samples();
    if samples.is_empty() {
        bail!("no position in the data passes the training filter");
    }
    // The budgets in increasing order, the reference last.
    let mut budgets = args.nodes.clone();
    budgets.sort_unstable();
    budgets.dedup();
    budgets.retain(|&b| b != args.reference);
    budgets.push(args.reference);
    output::errln!(
        "searching {} positions at {} budgets on {} thread{}",
        samples.len(),
        budgets.len(),
        args.threads,
        if args.threads == 1 { "" } else { "s" }
    );
    let (start, cpu_start) = (Instant::now(), progress::process_cpu_time());
    let results = search_samples(&net, &samples, &budgets, args.threads)?;
    let (wall, cpu) = (
        start.elapsed(),
        cpu_start
            .zip(progress::process_cpu_time())
            .map(|(a, b)| b.saturating_sub(a)),
    );
    let kept_share = kept as f64 / seen.max(1) as f64;
    output::outln!(
        "label quality: {} positions sampled (seed {}) from {kept} that pass the training filter \
         ({:.1}% of {seen} positions) in {} file{}; net {:016x} ({}); each search from an empty \
         {} MiB table at a soft budget, hard cap {}x",
        results.len(),
        args.seed,
        100.0 * kept_share,
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        net.fingerprint(),
        args.net
            .as_ref()
            .map_or("embedded".to_string(), |p| p.display().to_string()),
        datagen::HASH_MIB,
        engine::SOFT_NODES_HARD_FACTOR,
    );
    let rows = summarise(&budgets, &results, budgets.len() - 1);
    output::out!("{}", table(&rows, args.reference, kept_share));
    output::errln!(
        "{:.0} s wall-clock{}",
        wall.as_secs_f64(),
        cpu.map_or(String::new(), |c| format!(", {:.0} s CPU", c.as_secs_f64()))
    );
    Ok(0)
}

/// Searches every sample at every budget on `threads` threads (sample `i` on thread
/// `i % threads`, one player each), showing progress; the results in the samples' order
/// (positions without a legal move, which the training filter never keeps, left out).
fn search_samples(
    net: &Arc<Network>,
    samples: &[Sample],
    budgets: &[u64],
    threads: usize,
) -> Result<Vec<Vec<Searched>>> {
    let total = samples.len() as u64;
    let bar = progress::stderr_is_terminal().then(|| {
        progress::bar(
            Some(total),
            0,
            "{spinner} {elapsed_precise} [{wide_bar}] {pos}/{len} positions, ETA {eta}",
        )
    });
    let mut plain = Throttle::new(PLAIN_EVERY);
    let start = Instant::now();
    let (sender, received) = crossbeam_channel::unbounded::<(usize, Option<Vec<Searched>>)>();
    let mut results: Vec<Option<Vec<Searched>>> = vec![None; samples.len()];
    std::thread::scope(|scope| -> Result<()> {
        let mut handles = Vec::new();
        for t in 0..threads {
            let sender = sender.clone();
            let handle = std::thread::Builder::new()
                .stack_size(engine::SEARCH_STACK_BYTES)
                .spawn_scoped(scope, move || -> Result<()> {
                    let mut player = SelfPlayer::new(net.clone()).context("cannot make a searcher")?;
                    for (i, sample) in samples.iter().enumerate().skip(t).step_by(threads) {
                        let searched = label_quality::measure(&mut player, sample, budgets);
                        if sender.send((i, searched)).is_err() {
                            break;
                        }
                    }
                    Ok(())
                })
                .context("cannot start a search thread")?;
            handles.push(handle);
        }
        drop(sender);
        let mut done = 0u64;
        for (i, searched) in received.iter() {
            results[i] = searched;
            done += 1;
            match &bar {
                Some(bar) => bar.set_position(done),
                None if plain.due() || done == total => {
                    output::errln!("positions {done}/{total}  {:.0}s", start.elapsed().as_secs_f64())
                }
                None => {}
            }
        }
        if let Some(bar) = &bar {
            bar.finish_and_clear();
        }
        for h in handles {
            h.join()
                .map_err(|_| anyhow::anyhow!("a search thread panicked"))??;
        }
        Ok(())
    })?;
    Ok(results.into_iter().flatten().collect())
}

/// What reading one file found besides its games.
struct FileRead {
    /// A data file or a pack.
    format: Format,
    /// The data files its games came from: the file itself, or a pack's sources (with
    /// any its games name beyond a lost table).
    sources: Vec<SourceRead>,
    /// Every problem, one line each (empty for a clean file).
    problems: Vec<String>,
    /// A damaged end of a file that a datagen is writing now (its lock is held): the game
    /// in flight, not a problem (see [`in_flight`]).
    in_flight: Option<String>,
    /// Why the file is no data file at all: its header is unreadable and not one game was
    /// read from it.
    not_data: Option<String>,
    /// Whether games of it are lost to damage: in a data file a damaged range (not the
    /// game being written now), in a pack its own count of lost games (damage to a table
    /// copy, a prefix or a block's header loses none). A repeated chunk or a damaged
    /// header alone loses no game, and a gap in the sequence numbers is games missing
    /// before this read (`verify` reports it), not lost by it.
    games_lost: bool,
    /// A pack's version (`None`: another file, or a pack whose prefix and tables are lost).
    pack_version: Option<u32>,
    games: u64,
    bytes: u64,
}

/// Whether damage `d` of a file is the end a datagen is writing now: the directory's lock
/// is held (`writing`), nothing valid came after it (`last`), and it reaches at least the
/// `bytes` the file held before it was read (the writer may have added more since, so the
/// damage can end beyond them).
fn in_flight(d: &records::record::Damage, writing: bool, last: bool, bytes: u64) -> bool {
    writing && last && d.offset.saturating_add(d.len) >= bytes
}

/// What one source (data file) of a file held.
struct SourceRead {
    /// Its file name, or its name in the pack.
    name: String,
    header: Result<Header, RecordError>,
    /// Nodes searched and positions, over the chunks that record nodes.
    nodes: u64,
    nodes_positions: u64,
}

impl FileRead {
    /// The pack version and its sources' formats, or the data file's format.
    fn format_text(&self) -> String {
        let formats: std::collections::BTreeSet<String> = self
            .sources
            .iter()
            .map(|s| {
                s.header
                    .as_ref()
                    .map_or("unknown".to_string(), |h| h.version().to_string())
            })
            .collect();
        let formats: Vec<String> = formats.into_iter().collect();
        match self.format {
            Format::Games => format!("format {}", formats.join(", ")),
            Format::Text => "text positions".to_string(),
            Format::Bullet => "bulletformat positions".to_string(),
            Format::Pack => format!(
                "pack version {}, {} source{} of format {}",
                self.pack_version.map_or("unknown".to_string(), |v| v.to_string()),
                self.sources.len(),
                if self.sources.len() == 1 { "" } else { "s" },
                if formats.is_empty() {
                    "unknown".to_string()
                } else {
                    formats.join(", ")
                }
            ),
        }
    }
}

/// Reads `path` (a data file or a pack, `records::source`) chunk by chunk, giving every game of
/// every intact chunk to `each` with the index of its source in [`FileRead::sources`].
fn read_file(path: &Path, mut each: impl FnMut(usize, &GameRecord)) -> Result<FileRead> {
    let cannot = || format!("cannot read {}", path.display());
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut source = DataSource::open(path).with_context(cannot)?;
    let mut read = FileRead {
        format: source.format(),
        sources: source
            .sources()
            .iter()
            .map(|s| SourceRead {
                name: s.name.clone(),
                header: s.header.clone(),
                nodes: 0,
                nodes_positions: 0,
            })
            .collect(),
        problems: Vec::new(),
        in_flight: None,
        not_data: None,
        games_lost: false,
        pack_version: source.pack_version(),
        games: 0,
        bytes,
    };
    if !read.format.has_games() {
        bail!("{}", no_games(path, read.format));
    }
    let header_bad = read.format == Format::Games && source.header_error().is_some();
    read.problems.extend(source.header_error().map(str::to_string));
    let writing = path.parent().is_some_and(DirLock::is_held);
    // Each source's sequence numbers: a gap below the last is games gone.
    let mut gaps: Vec<SeqGaps> = Vec::new();
    // Damage that may be the end being written: a problem only once something follows it.
    let mut tail: Option<records::record::Damage> = None;
    while let Some(item) = source.next_item().with_context(cannot)? {
        if let Some(d) = tail.take() {
            read.problems.push(d.to_string());
            read.games_lost |= read.format == Format::Games;
        }
        match item {
            SourceItem::Chunk { source: s, chunk: c } => {
                while read.sources.len() <= s {
                    let i = read.sources.len();
                    read.sources.push(SourceRead {
                        name: format!("source-{i}.bin"),
                        header: Err(RecordError::BadHeader("the pack's source table is lost".into())),
                        nodes: 0,
                        nodes_positions: 0,
                    });
                }
                let src = &mut read.sources[s];
                read.games += c.games.len() as u64;
                if let Some(n) = c.nodes {
                    src.nodes += n;
                    src.nodes_positions += c.games.iter().map(|g| g.moves.len() as u64).sum::<u64>();
                }
                read.problems.extend(c.problem);
                if let Some(seq) = c.seq {
                    if gaps.len() <= s {
                        gaps.resize_with(s + 1, SeqGaps::default);
                    }
                    gaps[s].add(seq, c.games.len() as u64);
                }
                c.games.iter().for_each(|g| each(s, g));
            }
            // A damaged header is already named; its range is the start of the file.
            SourceItem::Damage(d) if d.offset == 0 && header_bad => {
                if d.len > 0 {
                    read.problems
                        .push(format!("{} bytes skipped at the start", d.len));
                }
            }
            SourceItem::Damage(d) if in_flight(&d, writing, true, bytes) => tail = Some(d),
            SourceItem::Damage(d) => {
                read.problems.push(d.to_string());
                read.games_lost |= read.format == Format::Games;
            }
            SourceItem::Duplicate(d) => read.problems.push(d.to_string()),
            SourceItem::Problem(p) => read.problems.push(p),
            SourceItem::Positions { .. } => bail!("{}", no_games(path, read.format)),
        }
    }
    for (s, gaps) in gaps.iter().enumerate() {
        if let Some(text) = SeqGaps::text(&gaps.missing()) {
            read.problems.push(match read.format {
                Format::Pack => format!("{}: {text}", read.sources[s].name),
                _ => text,
            });
        }
    }
    if let Some(d) = tail {
        read.in_flight = Some(format!(
            "a datagen is writing this directory now: the {} bytes from byte {} are the game \
             being written, not counted",
            d.len, d.offset
        ));
    }
    if header_bad && read.games == 0 {
        read.not_data = source.header_error().map(str::to_string);
    }
    read.games_lost |= source.pack_loss().is_some_and(|loss| loss.any());
    Ok(read)
}

/// Ctrl-C (or SIGTERM) during a command that writes one output (`convert`, `pack`,
/// `unpack`): its partial file or directory is removed (`output::remove_partials`), the
/// output it would have replaced stays as it was, and it exits 130 saying so. Without it
/// the signal ended the process and left `X.partial`, which a later `unpack` to the same
/// directory refused.
fn remove_partials_on_interrupt(command: &'static str) -> Result<()> {
    ctrlc::set_handler(move || {
        let removed = output::remove_partials();
        let what = if removed.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = removed.iter().map(|p| p.display().to_string()).collect();
            format!("; removed its partial output {}", names.join(", "))
        };
        output::errln!("datagen {command}: interrupted before its output was complete{what}");
        std::process::exit(130);
    })
    .context("cannot install the Ctrl-C handler")
}

/// Why a text or bulletformat file cannot be read by a tool that reads games.
pub(crate) fn no_games(path: &Path, format: Format) -> String {
    let what = if format == Format::Text {
        "text"
    } else {
        "bulletformat"
    };
    format!(
        "{} holds {what} positions without their games; this command reads data files and packs \
         (the trainer reads {what} files)",
        path.display()
    )
}

/// A one-line summary of how a file's games were made (the same for a run's format 2 and 3
/// files: the format is shown apart).
fn provenance(header: &Header) -> String {
    match header {
        Header::V2(h) | Header::V3(h) | Header::V4(h) if h.generator.ends_with(" import-pgn") => format!(
            "imported from {} (the scores of its move comments), {} start positions",
            h.book.strip_prefix("pgn ").unwrap_or(&h.book),
            start_positions_name(h.start_positions)
        ),
        Header::V2(h) | Header::V3(h) | Header::V4(h) => format!(
            "net {:016x} (hidden {}, {}), {} nodes (hard {}), seed {}, book {}, {} start positions, \
             {} random plies, {}",
            h.net_fingerprint,
            h.net_hidden,
            h.net_source,
            h.soft_nodes,
            h.hard_nodes,
            h.seed,
            h.book,
            start_positions_name(h.start_positions),
            h.random_plies,
            adjudication_text(header)
        ),
        Header::V1 { settings } => {
            let fields: Vec<&str> = settings
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with("format="))
                .collect();
            format!("{}; {}", fields.join(", "), adjudication_text(header))
        }
    }
}

/// Counts for one generation (directory) or the total.
#[derive(Default)]
struct Tally {
    files: u64,
    damaged: u64,
    games: u64,
    positions: u64,
    kept: u64,
    wdl: [u64; 3],
    lengths: [u64; 9],
    nodes: u64,
    nodes_positions: u64,
    settings: Vec<String>,
    /// The container formats of its files (1, 2, 3).
    formats: std::collections::BTreeSet<u32>,
}

impl Tally {
    fn add_game(&mut self, g: &GameRecord) {
        self.games += 1;
        self.positions += g.moves.len() as u64;
        self.wdl[g.result as usize] += 1;
        self.lengths[(g.moves.len() / 50).min(8)] += 1;
        self.kept += g
            .positions()
            .enumerate()
            .filter(|(ply, (b, mv, score))| keep_for_training(b, *mv, *score, *ply))
            .count() as u64;
    }

    fn add(&mut self, other: &Tally) {
        self.files += other.files;
        self.damaged += other.damaged;
        self.games += other.games;
        self.positions += other.positions;
        self.kept += other.kept;
        self.nodes += other.nodes;
        self.nodes_positions += other.nodes_positions;
        for i in 0..3 {
            self.wdl[i] += other.wdl[i];
        }
        for i in 0..9 {
            self.lengths[i] += other.lengths[i];
        }
    }

    fn wdl_text(&self) -> String {
        let pct = |n: u64| 100.0 * n as f64 / self.games.max(1) as f64;
        format!(
            "W/D/L {:.1}% / {:.1}% / {:.1}%",
            pct(self.wdl[2]),
            pct(self.wdl[1]),
            pct(self.wdl[0])
        )
    }

    fn nodes_text(&self) -> String {
        if self.nodes_positions == 0 {
            "nodes per position not recorded (format 1 files and PGN imports)".to_string()
        } else {
            let part = if self.nodes_positions < self.positions {
                format!(" (over the {} positions that record it)", self.nodes_positions)
            } else {
                String::new()
            };
            format!(
                "{:.0} nodes per position{part}",
                self.nodes as f64 / self.nodes_positions as f64
            )
        }
    }
}

fn stats(paths: &[PathBuf]) -> Result<i32> {
    let files = expand(paths)?;
    // One generation per directory; a pack's sources by the directory they were packed from.
    let mut generations: BTreeMap<PathBuf, Tally> = BTreeMap::new();
    for file in &files {
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut counts: Vec<Tally> = Vec::new();
        let read = read_file(file, |s, g| {
            if counts.len() <= s {
                counts.resize_with(s + 1, Tally::default);
            }
            counts[s].add_game(g);
        })?;
        for p in &read.problems {
            output::errln!(
                "warning: {}: {p} (the rest of the file is counted)",
                file.display()
            );
        }
        if let Some(note) = &read.in_flight {
            output::errln!("note: {}: {note}", file.display());
        }
        let generation = |name: &str| match read.format {
            Format::Games | Format::Text | Format::Bullet => dir.clone(),
            Format::Pack => match name.rsplit_once('/') {
                Some((gen, _)) => PathBuf::from(format!("{}:{gen}", file.display())),
                None => file.clone(),
            },
        };
        if read.sources.is_empty() {
            let tally = generations.entry(generation("")).or_default();
            tally.files += 1;
            tally.damaged += u64::from(!read.problems.is_empty());
        }
        for (i, source) in read.sources.iter().enumerate() {
            let tally = generations.entry(generation(&source.name)).or_default();
            if let Some(counts) = counts.get(i) {
                tally.add(counts);
            }
            tally.files += 1;
            tally.nodes += source.nodes;
            tally.nodes_positions += source.nodes_positions;
            // A pack's problems belong to no one source: each of its generations shows them.
            if !read.problems.is_empty() && (read.format == Format::Pack || i == 0) {
                tally.damaged += 1;
            }
            if let Ok(h) = &source.header {
                tally.formats.insert(h.version());
                let text = provenance(h);
                if !tally.settings.contains(&text) {
                    tally.settings.push(text);
                }
            }
        }
    }
    let mut total = Tally::default();
    for (dir, t) in &generations {
        output::outln!(
            "{}  ({} file{}{})",
            if dir.as_os_str().is_empty() {
                ".".to_string()
            } else {
                dir.display().to_string()
            },
            t.files,
            if t.files == 1 { "" } else { "s" },
            if t.damaged > 0 {
                format!(", {} with problems", t.damaged)
            } else {
                String::new()
            }
        );
        let formats: Vec<String> = t.formats.iter().map(u32::to_string).collect();
        let formats = match formats.len() {
            0 => String::new(),
            1 => format!("format {}; ", formats[0]),
            _ => format!("formats {}; ", formats.join(", ")),
        };
        match t.settings.as_slice() {
            [] => output::outln!("  settings: unknown (no readable header)"),
            [one] => output::outln!("  {formats}{one}"),
            many => {
                output::outln!("  {formats}settings differ between its files:");
                for s in many {
                    output::outln!("    {s}");
                }
            }
        }
        output::outln!(
            "  games {}, positions {} ({} pass the training filter), {}, {}",
            t.games,
            t.positions,
            t.kept,
            t.wdl_text(),
            t.nodes_text()
        );
        total.add(t);
    }
    output::outln!(
        "total: {} generation{}, {} file{}{}",
        generations.len(),
        if generations.len() == 1 { "" } else { "s" },
        total.files,
        if total.files == 1 { "" } else { "s" },
        if total.damaged > 0 {
            format!(" ({} with problems)", total.damaged)
        } else {
            String::new()
        }
    );
    output::outln!("games: {}", total.games);
    output::outln!(
        "positions: {} ({} pass the training filter)",
        total.positions,
        total.kept
    );
    let pct = |n: u64| 100.0 * n as f64 / total.games.max(1) as f64;
    output::outln!(
        "results (White's view): {} wins ({:.1}%), {} draws ({:.1}%), {} losses ({:.1}%)",
        total.wdl[2],
        pct(total.wdl[2]),
        total.wdl[1],
        pct(total.wdl[1]),
        total.wdl[0],
        pct(total.wdl[0])
    );
    output::outln!("{}", total.nodes_text());
    output::outln!("game length (plies):");
    for (i, n) in total.lengths.iter().enumerate() {
        let label = if i == 8 {
            "400+".to_string()
        } else {
            format!("{}-{}", i * 50, i * 50 + 49)
        };
        output::outln!(
            "  {label:>8} {n:>8} {}",
            "#".repeat((60.0 * *n as f64 / total.games.max(1) as f64).round() as usize)
        );
    }
    Ok(0)
}

/// `verify`, with `--manifest DIR` first checking the folder against its manifest and then
/// verifying the packs it lists besides `paths`.
fn verify_all(manifest: Option<&Path>, paths: &[PathBuf]) -> Result<i32> {
    let Some(dir) = manifest else {
        if paths.is_empty() {
            bail!("nothing to verify: give data files, directories or packs, or --manifest DIR");
        }
        return verify(paths);
    };
    let found = records::manifest::check(dir, true)?;
    for d in &found {
        output::outln!("BAD  {d}");
    }
    let listed = records::manifest::Manifest::read(dir)?.unwrap_or_default();
    let (games, positions) = listed.totals();
    if found.is_empty() {
        output::outln!(
            "ok   {}: {} packs, {games} games, {positions} positions, as its manifest lists",
            dir.display(),
            listed.packs.len()
        );
    }
    let mut all = listed.files(dir);
    all.retain(|f| f.is_file());
    all.extend(paths.iter().cloned());
    let code = if all.is_empty() { 0 } else { verify(&all)? };
    Ok(if found.is_empty() { code } else { 1 })
}

/// `datagen manifest DIR`: lists DIR's unlisted packs in its manifest.
fn add_to_manifest(dir: &Path, date: Option<&str>, nets: Option<&Path>, add: &[PathBuf]) -> Result<i32> {
    let date = match date {
        Some(d) => {
            let ok = d.len() == 10
                && d.bytes().enumerate().all(|(i, b)| {
                    if i == 4 || i == 7 {
                        b == b'-'
                    } else {
                        b.is_ascii_digit()
                    }
                });
            if !ok {
                bail!("--date {d:?}: expected YYYY-MM-DD");
            }
            let number = |range: std::ops::Range<usize>| d[range].parse::<i64>().unwrap_or(0);
            let (year, month, day) = (number(0..4), number(5..7), number(8..10));
            match output::days_in_month(year, month) {
                None => bail!("--date {d}: month {month} is not a month (1 to 12)"),
                Some(days) if !(1..=days).contains(&day) => {
                    bail!("--date {d}: day {day} is not a day of {year}-{month:02} (1 to {days})")
                }
                Some(_) => {}
            }
            d.to_string()
        }
        None => today_utc(),
    };
    if !dir.is_dir() {
        bail!("{}: not a directory", dir.display());
    }
    let manifest = records::manifest::Manifest::read(dir)?.unwrap_or_default();
    let named = nets_by_fingerprint(nets)?;
    let name_nets = |settings: &mut [records::manifest::SourceSettings]| {
        for s in settings {
            if s.net == "embedded" {
                if let Some(name) = named.get(&s.net_fingerprint) {
                    s.net = format!("{name} (embedded)");
                }
            }
        }
    };
    // A pack with the same bytes as one listed or being listed is the same games: refused,
    // naming both, before anything is copied or listed.
    // The first is named where it is: in the folder, or an `--add` before it (`given`:
    // each with the corpus file it will be copied to).
    let refuse_duplicate =
        |known: &records::manifest::Manifest,
         given: &[(&PathBuf, PathBuf)],
         path: &Path,
         entry: &PackEntry| match known.same_content(entry.bytes, &entry.fnv1a64) {
            Some(first) => {
                let first = match given.iter().find(|(_, to)| to.ends_with(&first.file)) {
                    Some((earlier, _)) => format!("{}, given before it", earlier.display()),
                    None => dir.join(&first.file).display().to_string(),
                };
                bail!(
                    "{}: the same bytes as {first} ({} bytes, fnv1a64 {}), so the same games, which a \
                 corpus holds once; nothing was added",
                    path.display(),
                    entry.bytes,
                    entry.fnv1a64
                )
            }
            None => Ok(()),
        };
    // The folder's unlisted packs, then `--add`'s (read whole first: a damaged pack is
    // refused before anything is copied), each copied in under its corpus name.
    let mut known = manifest.clone();
    let mut unlisted: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pack") && p.is_file())
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            !manifest.packs.iter().any(|e| e.file == name)
        })
        .collect();
    unlisted.sort();
    for pack in &unlisted {
        let mut entry = records::manifest::describe(pack, &date)?;
        name_nets(&mut entry.settings);
        refuse_duplicate(&known, &[], pack, &entry)?;
        known.packs.push(entry);
    }
    let mut copies = Vec::new();
    for pack in add {
        let mut entry = records::manifest::describe(pack, &date)?;
        name_nets(&mut entry.settings);
        refuse_duplicate(&known, &copies, pack, &entry)?;
        let mut taken: Vec<String> = known.packs.iter().map(|p| p.file.clone()).collect();
        if let Ok(rd) = std::fs::read_dir(dir) {
            taken.extend(
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned()),
            );
        }
        entry.file = records::manifest::corpus_name(&entry.settings, taken.iter().map(String::as_str))
            .with_context(|| format!("{}", pack.display()))?;
        copies.push((pack, dir.join(&entry.file)));
        known.packs.push(entry);
    }
    let new: Vec<&Path> = unlisted
        .iter()
        .map(PathBuf::as_path)
        .chain(add.iter().map(PathBuf::as_path))
        .collect();
    refuse_shared_games(dir, &manifest, &new)?;
    for (pack, to) in copies {
        let name = to
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let partial = dir.join(format!(".{name}.partial"));
        std::fs::copy(pack, &partial)
            .with_context(|| format!("cannot copy {} into {}", pack.display(), dir.display()))?;
        std::fs::rename(&partial, &to).with_context(|| format!("cannot write {}", to.display()))?;
        output::outln!("copied {} to {}", pack.display(), to.display());
    }
    let added = known.packs.len() - manifest.packs.len();
    for entry in &known.packs[manifest.packs.len()..] {
        output::outln!(
            "added {}: {} games, {} positions, {} bytes",
            entry.file,
            entry.games,
            entry.positions,
            entry.bytes
        );
    }
    let manifest = known;
    manifest.write(dir)?;
    let (games, positions) = manifest.totals();
    output::outln!(
        "{}: {} packs ({} added), {games} games, {positions} positions",
        dir.join(records::manifest::MANIFEST_NAME).display(),
        manifest.packs.len(),
        added
    );
    Ok(0)
}

/// Refuses packs about to be listed (`new`) that share game records
/// (`records::manifest::game_key`: start, moves, scores and result) with the packs `listed`
/// in corpus folder `dir` and the new packs before them, in all, or hold one game twice, as
/// often as `records::manifest::shared_games_limit` of their games allows or more (a listed
/// pack missing from the folder is an error: it cannot be checked against): such a pack holds
/// copies of games the corpus has (packed again from the same data files, or a pack of
/// packs), and a corpus holds each game once. Self-play repeats a record only by chance, a
/// few times in the whole corpus. Reads every listed pack whole.
fn refuse_shared_games(dir: &Path, listed: &records::manifest::Manifest, new: &[&Path]) -> Result<()> {
    use records::manifest::{game_keys, shared_games_limit};
    if new.is_empty() {
        return Ok(());
    }
    let refuse = |pack: &Path, shared: u64, other: &Path| -> Result<()> {
        if pack == other {
            bail!(
                "{}: holds {shared} of its games twice (the same records), which a corpus \
                 holds once; nothing was added",
                pack.display()
            );
        }
        bail!(
            "{}: {shared} of its games are in {} already (the same records: start, moves, \
             scores and result), so it holds copies of those games, which a corpus holds \
             once; nothing was added",
            pack.display(),
            other.display()
        )
    };
    // For each new pack: the games it shares in all, and with which pack the most.
    let mut keys: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    let mut limits = Vec::new();
    let mut total = vec![0u64; new.len()];
    let mut most: Vec<(u64, PathBuf)> = vec![(0, PathBuf::new()); new.len()];
    for (i, pack) in new.iter().enumerate() {
        let own = game_keys(pack)?;
        limits.push(shared_games_limit(own.len() as u64));
        let mut shared = vec![0u64; i + 1];
        for key in own {
            if let Some(j) = keys.insert(key, i) {
                shared[j] += 1;
            }
        }
        if shared[i] >= limits[i] {
            refuse(pack, shared[i], pack)?;
        }
        for (j, &n) in shared.iter().enumerate().take(i) {
            total[i] += n;
            if n > most[i].0 {
                most[i] = (n, new[j].to_path_buf());
            }
        }
    }
    let files = listed.files(dir);
    if let Some(missing) = files.iter().find(|f| !f.is_file()) {
        bail!(
            "{}: listed in the corpus manifest, not found; the packs being added cannot be \
             checked against it for copies of its games (restore it, or take its line out of \
             the manifest); nothing was added",
            missing.display()
        );
    }
    if !files.is_empty() {
        output::errln!(
            "reading the {} listed packs for games in common with {}",
            files.len(),
            output::count(new.len() as u64, "new pack")
        );
    }
    for file in files {
        let mut shared = vec![0u64; new.len()];
        for key in game_keys(&file)? {
            if let Some(&i) = keys.get(&key) {
                shared[i] += 1;
            }
        }
        for (i, &n) in shared.iter().enumerate() {
            total[i] += n;
            if n > most[i].0 {
                most[i] = (n, file.clone());
            }
        }
    }
    // Copies spread over several packs count together.
    if let Some(i) = (0..new.len()).find(|&i| total[i] >= limits[i]) {
        let (n, other) = &most[i];
        if *n == total[i] {
            refuse(new[i], total[i], other)?;
        }
        bail!(
            "{}: {} of its games are in the corpus or the packs added before it already ({} \
             in {}, the most in one), so it holds copies of those games, which a corpus holds \
             once; nothing was added",
            new[i].display(),
            total[i],
            n,
            other.display()
        );
    }
    Ok(())
}

/// Fingerprint (16 hex digits) -> file stem of every net in folder `nets`.
fn nets_by_fingerprint(nets: Option<&Path>) -> Result<std::collections::HashMap<String, String>> {
    let mut named = std::collections::HashMap::new();
    let Some(nets) = nets else { return Ok(named) };
    for e in std::fs::read_dir(nets).with_context(|| format!("cannot read {}", nets.display()))? {
        let p = e?.path();
        if p.extension().is_some_and(|x| x == "nnue") {
            let net = Network::load(&p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            named.insert(format!("{:016x}", net.fingerprint()), stem);
        }
    }
    Ok(named)
}

/// Today's date, UTC, as `YYYY-MM-DD` (the civil calendar from days since 1970-01-01).
fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = output::civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

fn verify(paths: &[PathBuf]) -> Result<i32> {
    let mut bad = 0;
    for file in expand(paths)? {
        let read = read_file(&file, |_, _| {})?;
        let format = read.format_text();
        // The end of a file being written is no problem: it is the game in flight.
        let note = read
            .in_flight
            .as_ref()
            .map_or(String::new(), |n| format!(" [{n}]"));
        if read.problems.is_empty() {
            output::outln!(
                "ok   {}: {} games, {} bytes ({format}){note}",
                file.display(),
                read.games,
                read.bytes
            );
        } else {
            bad += 1;
            output::outln!(
                "BAD  {}: {} ({} intact games read, {format})",
                file.display(),
                read.problems[0],
                read.games
            );
            for p in &read.problems[1..] {
                output::outln!("       {p}");
            }
            if let Some(n) = &read.in_flight {
                output::outln!("       {n}");
            }
        }
    }
    Ok(if bad > 0 { 1 } else { 0 })
}

fn convert(to: &str, out: &Path, all: bool, paths: &[PathBuf]) -> Result<i32> {
    if out.is_dir() {
        bail!("--out {} is a directory; give a file name", out.display());
    }
    // A path that cannot be written (a missing directory is named), before any work.
    output::plan(out)?;
    let files = expand(paths)?;
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    // By the workspace's rule for output files: `<out>.partial` renamed into place at the
    // end and removed on any error, so a failed conversion leaves nothing behind (a device
    // or FIFO is written through, a link kept, an input refused).
    let mut writer = std::io::BufWriter::new(output::OutFile::create(out, &inputs)?);
    let mut written = 0u64;
    let mut failed = None;
    let mut lost = Vec::new();
    for file in &files {
        let read = read_file(file, |_, g| {
            if failed.is_some() {
                return;
            }
            for (ply, (board, mv, score)) in g.positions().enumerate() {
                if !all && !keep_for_training(&board, mv, score, ply) {
                    continue;
                }
                // The formats of `records::positions`, which the trainer reads back.
                let done = if to == "text" {
                    writeln!(writer, "{}", text_line(&board, score, g.result))
                } else {
                    writer.write_all(&bullet_record(&board, score, g.result))
                };
                if let Err(e) = done {
                    failed = Some(e);
                    return;
                }
                written += 1;
            }
        })?;
        if let Some(why) = &read.not_data {
            bail!(
                "{} is not a data file or a pack ({why}); nothing converted",
                file.display()
            );
        }
        for p in &read.problems {
            output::errln!("warning: {}: {p} (converting the rest)", file.display());
        }
        if let Some(note) = &read.in_flight {
            output::errln!("note: {}: {note}", file.display());
        }
        if read.games_lost {
            lost.push(file);
        }
    }
    if let Some(e) = failed {
        return Err(e.into());
    }
    writer.into_inner().map_err(|e| e.into_error())?.finish()?;
    output::outln!("wrote {written} positions to {}", out.display());
    // What read is converted, but a script's `convert && rm INPUTS` must stop here (as for
    // `pack` and `unpack`).
    for file in &lost {
        output::errln!(
            "datagen: error: games of {} are lost to damage; the games that read are converted into {} (the warnings above say where)",
            file.display(),
            out.display()
        );
    }
    Ok(if lost.is_empty() { 0 } else { 1 })
}

/// The settings text a format 1 file of this run would carry: version 1 files in the output
/// directory count toward the target only when theirs is the same (its book by file name:
/// `store::prepare` compares the book line of a format 1 file, which kept the path given,
/// by its file name). Format 1 files all
/// started classically; a Chess960 run says so in a line no format 1 file has, so it never
/// counts them.
fn v1_settings_text(args: &GenerateArgs, net: &Network, adjudicate: bool) -> String {
    let start = args.openings_960.start_positions();
    format!(
        "format=luft-games-1\nnodes={}\nrandom_plies={}\nnet={:016x}\nhidden={}\nadjudicate={adjudicate}\nbook={}\nseed={}\n{}",
        args.nodes,
        args.random_plies,
        net.fingerprint(),
        net.hidden(),
        args.book.as_deref().map_or("none".to_string(), datagen::file_name),
        args.seed,
        if start == StartPositions::Classical {
            String::new()
        } else {
            format!("start_positions={}\n", start_positions_name(start))
        }
    )
}

/// The directory of `--out DIR` or `--gen NAME` (exactly one of them).
fn output_dir(out: Option<&PathBuf>, generation: Option<&str>) -> Result<PathBuf> {
    match (out, generation) {
        (Some(out), None) => Ok(out.clone()),
        (None, Some(name)) => store::generation_dir(name),
        (None, None) => bail!("give --out DIR or --gen NAME (or a subcommand; see --help)"),
        (Some(_), Some(_)) => bail!("give only one of --out DIR and --gen NAME"),
    }
}

fn generate(args: &GenerateArgs) -> Result<i32> {
    let out = output_dir(args.out.as_ref(), args.generation.as_deref())?;
    let out = &out;
    if args.games.is_none() == args.positions.is_none() {
        bail!("give exactly one of --games G and --positions P");
    }
    if !(1..=datagen::MAX_THREADS).contains(&args.threads) {
        bail!("--threads must be 1 to {}", datagen::MAX_THREADS);
    }
    if !(1..=MAX_NODES).contains(&args.nodes) {
        bail!(
            "--nodes {}: give 1 to {MAX_NODES} soft nodes a move (a larger budget would never finish a game)",
            args.nodes
        );
    }
    if args.random_plies > datagen::MAX_RANDOM_PLIES {
        bail!(
            "--random-plies {}: give at most {}",
            args.random_plies,
            datagen::MAX_RANDOM_PLIES
        );
    }
    if args.book.is_some() && args.openings_960 != Openings960::None {
        bail!("give --book or --openings-960, not both (a book brings its own start positions)");
    }
    // Ctrl-C from here: while the net, book and tables load and the directory is prepared
    // (its files checked and their torn ends cut, as a resume after a crash does), no game
    // has started, so it ends at once with 130 saying so; once the streams run, it stops
    // them after their game in flight.
    let running: Arc<std::sync::OnceLock<Arc<Run>>> = Arc::new(std::sync::OnceLock::new());
    {
        let running = running.clone();
        let shown = out.display().to_string();
        ctrlc::set_handler(move || match running.get() {
            Some(run) => run.request_stop(),
            None => {
                output::errln!(
                    "datagen: interrupted before the first game; the same command starts (or \
                     resumes) {shown}"
                );
                std::process::exit(130);
            }
        })
        .context("cannot install the Ctrl-C handler")?;
    }
    let net = load_net(args.net.as_deref())?;
    // A material-only net's scores mean little: play out games by the rules only.
    let adjudicate =
        Network::material(32).map_or(true, |material| net.fingerprint() != material.fingerprint());
    let (book, book_fingerprint): (Vec<Board>, u64) = match &args.book {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read book {}", path.display()))?;
            // The shared book reader: a byte-order mark, comments and EPD operations are
            // understood, and a line that is not a legal position is an error (never a
            // silently smaller book).
            let (boards, notes) = movegen::openings::read_epd(&text)
                .map_err(|e| anyhow::anyhow!("book {}: {e}", path.display()))?;
            for note in notes {
                output::errln!("note: book {}: {note}", path.display());
            }
            (boards, fnv1a(text.as_bytes()))
        }
        None => (Vec::new(), 0),
    };
    let tables = match &args.syzygy {
        Some(path) => {
            let tables =
                tablebase::Tablebases::open(path).map_err(|e| anyhow::anyhow!("--syzygy {path}: {e}"))?;
            for refused in tables.refused() {
                output::errln!("warning: --syzygy {path}: {refused}; games of its ending are played out");
            }
            Some(tables)
        }
        None => None,
    };
    let gen_settings = GenSettings {
        start_positions: args.openings_960.start_positions(),
        syzygy: tables.as_ref().map_or(String::new(), |t| {
            records::record::syzygy_description(t.wdl_count())
        }),
        syzygy_pieces: tables.as_ref().map_or(0, |t| t.max_pieces()),
        ..GenSettings::new(args.nodes, args.random_plies, adjudicate)
    };
    let header = run_header(args, &net, &gen_settings, book.len(), book_fingerprint);

    // Lock the directory, repair what a kill or damage left, count every file in it.
    let prepared = store::prepare(
        out,
        &header,
        &v1_settings_text(args, &net, adjudicate),
        args.threads,
        |line| output::errln!("{line}"),
    )?;
    let (resumed_games, resumed_positions) = (prepared.games, prepared.positions);
    if resumed_games > 0 {
        output::errln!(
            "resuming: {}, {} already in {} ({})",
            output::count(resumed_games, "game"),
            output::count(resumed_positions, "position"),
            out.display(),
            output::count(prepared.files as u64, "file")
        );
    }
    let openings = gen_settings.opening_source(&book);
    let run = Arc::new(Run {
        net,
        tables,
        settings: gen_settings,
        openings,
        seed: args.seed,
        games: args.games,
        positions: args.positions,
        stop: AtomicBool::new(false),
        stoppers: Mutex::new(Vec::new()),
        failed: AtomicBool::new(false),
        targets: Targets::resumed(resumed_games, resumed_positions),
        disk_bytes: std::env::var(DISK_BYTES_ENV)
            .ok()
            .and_then(|v| v.trim().parse().ok()),
    });
    // From here Ctrl-C stops the streams (the handler above).
    running
        .set(run.clone())
        .map_err(|_| anyhow::anyhow!("the run was set up twice"))?;
    // Progress: each stream sends an event per finished game down a channel; one reporter
    // thread owns the bar (or the plain line) and every count it shows, and ends with the
    // final line once every stream has hung up.
    let (events, received) = crossbeam_channel::unbounded::<Event>();
    let progress = Progress::new(args, resumed_games, resumed_positions);
    let reporter = std::thread::Builder::new()
        .name("progress".into())
        .spawn(move || progress.run(&received, PLAIN_EVERY))
        .context("cannot start the progress thread")?;
    let mut handles = Vec::new();
    for writer in &prepared.writers {
        let (run, events) = (run.clone(), events.clone());
        let (path, stream) = (writer.path.clone(), u64::from(writer.stream));
        // The numbers whose games are gone first, then on from the last.
        let seqs = writer
            .missing
            .clone()
            .into_iter()
            .flatten()
            .chain(writer.next_seq..);
        let handle = std::thread::Builder::new()
            .stack_size(engine::SEARCH_STACK_BYTES)
            .spawn(move || {
                let result = play_stream(&run, &path, stream, seqs, &events);
                if result.is_err() {
                    run.failed.store(true, Ordering::Relaxed);
                }
                result
            })
            .context("cannot start a worker thread")?;
        handles.push(handle);
    }
    drop(events);
    // Every stream's error is told (on a full disk each stream fails on its own file).
    let mut failed = Vec::new();
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failed.push(format!("{e:#}")),
            Err(_) => failed.push("a worker thread panicked".to_string()),
        }
    }
    let totals = reporter
        .join()
        .map_err(|_| anyhow::anyhow!("the progress thread panicked"))?;
    match failed.as_slice() {
        [] => {}
        [one] => bail!("{one}"),
        many => bail!(
            "{} of {} streams failed:\n  {}",
            many.len(),
            prepared.writers.len(),
            many.join("\n  ")
        ),
    }
    let interrupted = run.stop.load(Ordering::Relaxed);
    output::errln!(
        "{}: {}, {} in {} ({}); {}",
        if interrupted { "interrupted" } else { "done" },
        output::count(totals.games, "game"),
        output::count(totals.positions, "position"),
        out.display(),
        output::count(prepared.writers.len() as u64, "file"),
        if interrupted {
            "run again with the same arguments to resume"
        } else {
            "complete"
        }
    );
    Ok(if interrupted { 130 } else { 0 })
}

/// The settings header of this run's files: the generation settings, the net and the book
/// (by file name and fingerprint: no folder of this machine goes into a file).
fn run_header(
    args: &GenerateArgs,
    net: &Network,
    gen_settings: &GenSettings,
    book_positions: usize,
    book_fingerprint: u64,
) -> GenHeader {
    gen_settings.fill_header(GenHeader {
        generator: format!("luft-datagen {}", env!("CARGO_PKG_VERSION")),
        stream: 0,
        seed: args.seed,
        net_fingerprint: net.fingerprint(),
        net_hidden: net.hidden() as u32,
        net_source: args
            .net
            .as_deref()
            .map_or("embedded".to_string(), datagen::file_name),
        book: args
            .book
            .as_deref()
            .map_or("none".to_string(), datagen::file_name),
        book_fingerprint,
        book_positions: book_positions as u32,
        ..GenHeader::default()
    })
}

/// What every stream thread shares: the run's settings, its targets and the stop flag.
struct Run {
    net: Arc<Network>,
    /// `--syzygy`'s tables.
    tables: Option<Arc<tablebase::Tablebases>>,
    settings: GenSettings,
    /// Where the games' openings come from (the book, or the start positions).
    openings: OpeningSource,
    seed: u64,
    /// `--games` and `--positions` (one of them is set).
    games: Option<u64>,
    positions: Option<u64>,
    /// Set by Ctrl-C (or SIGTERM, [`Run::request_stop`]): each thread gives up its game in
    /// progress, unwritten, and stops.
    stop: AtomicBool,
    /// Each stream's player's stopper, which ends the search in progress at once.
    stoppers: Mutex<Vec<SearchStopper>>,
    /// Set when a stream failed: the others finish their game and stop.
    failed: AtomicBool,
    targets: Targets,
    /// Room left for each stream's file this run ([`DISK_BYTES_ENV`], for the tests).
    disk_bytes: Option<u64>,
}

/// The test seam for a full disk: each stream's file takes at most this many more bytes
/// this run (see the module notes).
const DISK_BYTES_ENV: &str = "LUFT_DATAGEN_DISK_BYTES";

/// Appends `chunk` to `file`, in the `room` left on the disk (`None`: all it takes): a
/// chunk beyond it is written as far as it fits, then fails as on a full disk.
fn append_chunk(file: &mut std::fs::File, chunk: &[u8], room: &mut Option<u64>) -> std::io::Result<()> {
    if let Some(left) = room.as_mut() {
        let len = chunk.len() as u64;
        if len > *left {
            let fits = usize::try_from(*left).unwrap_or(chunk.len()).min(chunk.len());
            file.write_all(&chunk[..fits])?;
            *left = 0;
            return Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                format!("no space left on device ({DISK_BYTES_ENV})"),
            ));
        }
        *left -= len;
    }
    file.write_all(chunk)
}

/// What the streams must agree on to stop exactly at the target: games reserved before they
/// start, and positions written, over every file of the run (resumed ones included). The
/// progress display does not read these: it counts the events it receives.
struct Targets {
    started: AtomicU64,
    positions: AtomicU64,
}

impl Targets {
    fn resumed(games: u64, positions: u64) -> Targets {
        Targets {
            started: AtomicU64::new(games),
            positions: AtomicU64::new(positions),
        }
    }
}

impl Run {
    /// Stops the run: every stream's search in progress ends at once, its game is given up
    /// (unwritten: a resume plays it again), and no game starts.
    fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        for stopper in self
            .stoppers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
        {
            stopper.stop();
        }
    }

    /// Makes `stopper` stop when the run is stopped, also when that was before now.
    fn add_stopper(&self, stopper: SearchStopper) {
        let mut stoppers = self.stoppers.lock().unwrap_or_else(PoisonError::into_inner);
        // Under the lock: a stop either comes after this and stops it, or came before and
        // is seen here.
        if self.stop.load(Ordering::SeqCst) {
            stopper.stop();
        }
        stoppers.push(stopper);
    }

    /// Whether another game may start (reserving it against a `--games` target).
    fn may_start(&self) -> bool {
        let t = &self.targets;
        if self
            .positions
            .is_some_and(|p| t.positions.load(Ordering::Relaxed) >= p)
        {
            return false;
        }
        self.games
            .is_none_or(|g| t.started.fetch_add(1, Ordering::Relaxed) < g)
    }
}

/// What a stream tells the progress reporter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// A game was written: its positions, result and the nodes its search took.
    Game { positions: u64, result: Wdl, nodes: u64 },
}

/// One stream: plays games until the run's target is met or it is stopped, appending each
/// game to the stream's file at `path` as its own synced chunk, numbered by `seqs` in turn.
fn play_stream(
    run: &Run,
    path: &Path,
    stream: u64,
    mut seqs: impl Iterator<Item = u64>,
    events: &crossbeam_channel::Sender<Event>,
) -> Result<()> {
    let mut player = SelfPlayer::new(run.net.clone()).context("cannot make a searcher")?;
    player.set_tablebases(run.tables.clone());
    run.add_stopper(player.stopper());
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let mut chunk = Vec::new();
    let mut room = run.disk_bytes;
    while !run.stop.load(Ordering::Relaxed) && !run.failed.load(Ordering::Relaxed) && run.may_start() {
        let Some(seq) = seqs.next() else { break };
        // Each game's opening depends only on (seed, stream, game number), as genfens' do.
        let mut rng = opening_rng(run.seed, stream, seq);
        let played = player.play_game(&run.settings, &run.openings, &mut rng);
        // Stopped: the game cut short is not written (a resume plays it whole).
        let Some((record, nodes)) = played.with_context(|| format!("game {seq} of {}", path.display()))?
        else {
            break;
        };
        chunk.clear();
        encode_chunk(std::slice::from_ref(&record), seq, nodes, &mut chunk);
        append_chunk(&mut file, &chunk, &mut room)
            .and_then(|_| file.sync_data())
            .with_context(|| format!("cannot write {}", path.display()))?;
        let positions = record.moves.len() as u64;
        run.targets.positions.fetch_add(positions, Ordering::Relaxed);
        // The reporter only goes away with the process; a failed send loses a display count.
        let _ = events.send(Event::Game {
            positions,
            result: record.result,
            nodes,
        });
    }
    Ok(())
}

/// Totals over every file of the run (resumed ones included), when the reporter ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Totals {
    games: u64,
    positions: u64,
}

/// The progress reporter, owned by its own thread: a bar on a terminal, else a plain line
/// every [`PLAIN_EVERY`]; the last line always. It counts what the streams' [`Event`]s tell
/// it (this session's games, positions, results and nodes).
struct Progress {
    bar: Option<ProgressBar>,
    games_target: Option<u64>,
    positions_target: Option<u64>,
    threads: usize,
    start: Instant,
    /// The process's CPU time when the reporter started (`None` where it cannot be read).
    cpu_start: Option<Duration>,
    resumed: Totals,
    /// This session: games, positions, results by `Wdl as usize`, nodes.
    games: u64,
    positions: u64,
    results: [u64; 3],
    nodes: u64,
}

impl Progress {
    fn new(args: &GenerateArgs, resumed_games: u64, resumed_positions: u64) -> Progress {
        let bar = progress::stderr_is_terminal().then(|| {
            let (len, done, unit) = match (args.games, args.positions) {
                (Some(t), _) => (Some(t), resumed_games, "games"),
                (_, Some(t)) => (Some(t), resumed_positions, "positions"),
                _ => (None, resumed_games, "games"),
            };
            let template = match len {
                Some(_) => format!(
                    "{{spinner}} {{elapsed_precise}} [{{wide_bar}}] {{pos}}/{{len}} {unit}, ETA {{eta}}  {{msg}}"
                ),
                None => format!("{{spinner}} {{elapsed_precise}} {{pos}} {unit}  {{msg}}"),
            };
            progress::bar(len, done, &template)
        });
        Progress {
            bar,
            games_target: args.games,
            positions_target: args.positions,
            threads: args.threads,
            start: Instant::now(),
            cpu_start: process_cpu_time(),
            resumed: Totals {
                games: resumed_games,
                positions: resumed_positions,
            },
            games: 0,
            positions: 0,
            results: [0; 3],
            nodes: 0,
        }
    }

    /// Receives events until every stream has hung up, showing progress on the way (the
    /// bar at each event, the plain line every `plain_every`), then prints the last line
    /// and returns the run's totals.
    fn run(mut self, events: &crossbeam_channel::Receiver<Event>, plain_every: Duration) -> Totals {
        let ticks = crossbeam_channel::tick(plain_every);
        loop {
            crossbeam_channel::select! {
                recv(events) -> event => match event {
                    Ok(event) => {
                        self.add(event);
                        if self.bar.is_some() {
                            self.show(false);
                        }
                    }
                    Err(_) => break,
                },
                recv(ticks) -> _ => {
                    if self.bar.is_none() {
                        self.show(false);
                    }
                }
            }
        }
        self.show(true);
        self.totals()
    }

    fn add(&mut self, event: Event) {
        match event {
            Event::Game {
                positions,
                result,
                nodes,
            } => {
                self.games += 1;
                self.positions += positions;
                self.results[result as usize] += 1;
                self.nodes += nodes;
            }
        }
    }

    fn totals(&self) -> Totals {
        Totals {
            games: self.resumed.games + self.games,
            positions: self.resumed.positions + self.positions,
        }
    }

    /// The progress line: the target so far, then this session's counts and rates.
    fn line(&self) -> String {
        let secs = self.start.elapsed().as_secs_f64();
        let cpu_secs = self
            .cpu_start
            .zip(process_cpu_time())
            .map(|(start, now)| now.saturating_sub(start).as_secs_f64());
        self.line_at(secs, cpu_secs)
    }

    /// The progress line after `secs` seconds of wall-clock time and `cpu_secs` of the
    /// process's CPU time (left out of the line when unknown).
    fn line_at(&self, secs: f64, cpu_secs: Option<f64>) -> String {
        let secs = secs.max(1e-3);
        let (g, p, r) = (self.games, self.positions, self.results);
        let totals = self.totals();
        let target = match (self.games_target, self.positions_target) {
            (Some(t), _) => format!("games {}/{t}", totals.games),
            (_, Some(t)) => format!("positions {}/{t}", totals.positions),
            _ => String::new(),
        };
        let per_cpu = cpu_secs.map_or(String::new(), |c| {
            format!("  {:.0} nps/cpu-s", self.nodes as f64 / c.max(1e-3))
        });
        format!(
            "{target}  +{g} games  +{p} positions  {:.0} pos/s  ({:.0} per thread)  W/D/L {}/{}/{}  {:.0} nodes/pos  {:.0} nps/thread{per_cpu}  {:.0}s",
            p as f64 / secs,
            p as f64 / secs / self.threads as f64,
            r[2],
            r[1],
            r[0],
            self.nodes as f64 / p.max(1) as f64,
            self.nodes as f64 / secs / self.threads as f64,
            secs
        )
    }

    /// Updates the bar, or prints the progress line (always for the final one).
    fn show(&self, final_line: bool) {
        match &self.bar {
            Some(bar) if !final_line => {
                let totals = self.totals();
                bar.set_position(match (self.games_target, self.positions_target) {
                    (None, Some(_)) => totals.positions,
                    _ => totals.games,
                });
                bar.set_message(
                    self.line()
                        .split_once("  ")
                        .map_or(String::new(), |(_, s)| s.to_string()),
                );
            }
            Some(bar) => {
                bar.finish_and_clear();
                output::errln!("{}", self.line());
            }
            None => output::errln!("{}", self.line()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reporter(games: Option<u64>, threads: usize) -> Progress {
        Progress {
            bar: None,
            games_target: games,
            positions_target: None,
            threads,
            start: Instant::now(),
            cpu_start: None,
            resumed: Totals {
                games: 4,
                positions: 400,
            },
            games: 0,
            positions: 0,
            results: [0; 3],
            nodes: 0,
        }
    }

    #[test]
    fn the_reporter_counts_every_event_of_every_stream() {
        let (events, received) = crossbeam_channel::unbounded();
        let progress = reporter(Some(40), 3);
        let report = std::thread::spawn(move || {
            let totals_before = progress.totals();
            (totals_before, progress.run(&received, Duration::from_millis(5)))
        });
        let streams: Vec<_> = (0..3u64)
            .map(|s| {
                let events = events.clone();
                std::thread::spawn(move || {
                    for i in 0..12u64 {
                        let result = [Wdl::BlackWins, Wdl::Draw, Wdl::WhiteWins][(i % 3) as usize];
                        events
                            .send(Event::Game {
                                positions: 10 + s,
                                result,
                                nodes: 1000,
                            })
                            .unwrap();
                        std::thread::sleep(Duration::from_millis(1));
                    }
                })
            })
            .collect();
        drop(events);
        for s in streams {
            s.join().unwrap();
        }
        // The reporter ends once every sender is gone, with the resumed counts added.
        let (before, totals) = report.join().unwrap();
        assert_eq!(
            before,
            Totals {
                games: 4,
                positions: 400
            }
        );
        assert_eq!(
            totals,
            Totals {
                games: 4 + 36,
                positions: 400 + 12 * (10 + 11 + 12)
            }
        );
    }

    #[test]
    fn the_line_shows_the_target_and_this_sessions_counts() {
        let mut p = reporter(Some(40), 2);
        p.add(Event::Game {
            positions: 100,
            result: Wdl::WhiteWins,
            nodes: 500_000,
        });
        p.add(Event::Game {
            positions: 50,
            result: Wdl::Draw,
            nodes: 250_000,
        });
        let line = p.line();
        assert!(
            line.starts_with("games 6/40  +2 games  +150 positions  "),
            "{line}"
        );
        assert!(line.contains("W/D/L 1/1/0  5000 nodes/pos"), "{line}");
        // Wall-clock nps per thread, then nps per CPU second when the CPU time is known.
        assert!(
            p.line_at(10.0, Some(5.0)).ends_with(
                "150 positions  15 pos/s  (8 per thread)  W/D/L 1/1/0  5000 nodes/pos  \
                            37500 nps/thread  150000 nps/cpu-s  10s"
            ),
            "{}",
            p.line_at(10.0, Some(5.0))
        );
        assert!(p.line_at(10.0, None).ends_with("37500 nps/thread  10s"));
    }
}
