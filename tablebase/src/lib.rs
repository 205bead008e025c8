//! `tablebase`: Syzygy endgame tablebases for the engine, datagen and arena, one prober for
//! all three. [`Tablebases::open`] loads the tables of one or more directories (`:`
//! between them, as UCI GUIs send `SyzygyPath`); [`Tablebases::probe_wdl`] answers
//! win/draw/loss and is safe from any number of search threads; [`Tablebases::probe_dtz`]
//! answers the distance to the next zeroing move as python-chess's `probe_dtz` does; and
//! [`Tablebases::probe_root`] ranks every legal move of a root position for the engine's
//! root move filter. The tables are memory-mapped and checked when they load.
//!
//! **The prober.** The probing code is pyrrhic-rs 0.2.0 (MIT), a pure-Rust transliteration
//! of Pyrrhic, itself Fathom's descendant: no C compiler, no GPL code (`shakmaty-syzygy` is
//! GPL; `fathom-syzygy` would bundle C). It is vendored in `vendor/pyrrhic-rs` and
//! rewritten there in safe Rust (see its README): the published crate read the tables
//! through unchecked pointers, so one damaged byte could crash the process or corrupt its
//! memory. Its WDL and DTZ answers are checked against python-chess on 4,240 positions of
//! every 3- and 4-piece ending (`tests/python_chess.rs`). Traits this wrapper absorbs, so
//! nothing above it needs to know them:
//!
//! - *One set per process.* [`Tablebases::open`] returns an [`Arc`] to the one owner: a
//!   second open of the same directories shares it, a different set is refused with
//!   [`TablebaseError::Busy`] while the first is in use, and the last `Arc` dropped frees
//!   the tables (under a lock, so a new open never races the free). (The published crate
//!   kept its tables in process-wide statics; the vendored one does not, but the engine,
//!   datagen and arena still load one set at a time.)
//! - *Damaged tables.* Syzygy files carry no checksum a prober could afford to check, so
//!   the prober checks each file's structure when it loads: a file that fails is refused
//!   ([`Tablebases::refused`] says which and why) and the other tables load; a path whose
//!   WDL tables are all refused is [`TablebaseError::Refused`]. A probe that meets damage
//!   the load could not see answers `None`, like a position the tables do not hold, and
//!   [`Tablebases::take_damaged`] names the file once, for a warning. Where the damage
//!   still reads as a valid table, a probe can answer wrongly: only a checksum of the whole
//!   file would catch that.
//! - *No 50-move counter in WDL.* [`Tablebases::probe_wdl`] answers for a halfmove clock of
//!   0, as the tables store; the engine probes right after captures and pawn moves, where
//!   that is exact. [`Tablebases::probe_root`] takes the board's clock.
//! - *DTZ from a root probe.* The crate's only DTZ entry point ranks every move of a root;
//!   [`Tablebases::probe_dtz`] reads the root's own DTZ from it. Root probes are serialised
//!   by a mutex (the published crate's was not thread-safe).
//! - *Castling and the piece limit.* A position with castling rights, more pieces than the
//!   tables hold, or a halfmove clock the crate cannot store (over 255) is not probed.
//!
//! Tests find the tables through [`tables_for_tests`]: the published 3-4 piece set (70
//! files, 4.4 MB) committed in `tablebase/tests/data/syzygy`, the one place every crate's
//! Syzygy tests take them from (the damaged-table tests copy its KQvK and KPvK files).

#![warn(missing_docs)]

use movegen::{attacks, Bitboard, Board, Color, Move, PieceType, Square};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

/// The move generation the prober needs, from `movegen`'s attack tables.
#[derive(Clone, Copy, Debug)]
struct Adapter;

fn square(index: u64) -> Square {
    Square::new((index & 63) as u8)
}

impl pyrrhic_rs::EngineAdapter for Adapter {
    fn pawn_attacks(color: pyrrhic_rs::Color, sq: u64) -> u64 {
        let color = match color {
            pyrrhic_rs::Color::White => Color::White,
            pyrrhic_rs::Color::Black => Color::Black,
        };
        attacks::pawn_attacks(color, square(sq)).0
    }
    fn knight_attacks(sq: u64) -> u64 {
        attacks::knight_attacks(square(sq)).0
    }
    fn bishop_attacks(sq: u64, occupied: u64) -> u64 {
        attacks::bishop_attacks(square(sq), Bitboard(occupied)).0
    }
    fn rook_attacks(sq: u64, occupied: u64) -> u64 {
        attacks::rook_attacks(square(sq), Bitboard(occupied)).0
    }
    fn queen_attacks(sq: u64, occupied: u64) -> u64 {
        attacks::queen_attacks(square(sq), Bitboard(occupied)).0
    }
    fn king_attacks(sq: u64) -> u64 {
        attacks::king_attacks(square(sq)).0
    }
}

/// A tablebase's verdict from the side to move's view, ordered from worst to best.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    /// Lost.
    Loss,
    /// Lost, but drawn by the 50-move rule.
    BlessedLoss,
    /// Drawn.
    Draw,
    /// Won, but drawn by the 50-move rule.
    CursedWin,
    /// Won.
    Win,
}

impl Wdl {
    /// The Syzygy value: -2 (loss) to 2 (win), as python-chess's `probe_wdl` answers.
    pub fn value(self) -> i32 {
        self as i32 - 2
    }

    /// The verdict for the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// The result under the 50-move rule (`rule50`) or without it: cursed wins and blessed
    /// losses are draws with the rule and decisive without.
    pub fn outcome(self, rule50: bool) -> Wdl {
        match self {
            Wdl::CursedWin if rule50 => Wdl::Draw,
            Wdl::CursedWin => Wdl::Win,
            Wdl::BlessedLoss if rule50 => Wdl::Draw,
            Wdl::BlessedLoss => Wdl::Loss,
            other => other,
        }
    }

    fn from_pyrrhic(wdl: pyrrhic_rs::WdlProbeResult) -> Wdl {
        match wdl {
            pyrrhic_rs::WdlProbeResult::Loss => Wdl::Loss,
            pyrrhic_rs::WdlProbeResult::BlessedLoss => Wdl::BlessedLoss,
            pyrrhic_rs::WdlProbeResult::Draw => Wdl::Draw,
            pyrrhic_rs::WdlProbeResult::CursedWin => Wdl::CursedWin,
            pyrrhic_rs::WdlProbeResult::Win => Wdl::Win,
        }
    }

    /// The sign of a DTZ with this verdict: 1 for wins, -1 for losses, 0 for draws.
    fn sign(self) -> i32 {
        self.value().signum()
    }
}

/// One legal move of a root probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootMove {
    /// The move.
    pub mv: Move,
    /// The verdict after it, from the root's side to move's view, counting the root's
    /// halfmove clock (a win that the 50-move rule would spoil from here is `CursedWin`).
    pub wdl: Wdl,
    /// Plies from the root to the next zeroing move along the best play after this move:
    /// positive when the root's side wins, negative when it loses, 0 for a draw. A move
    /// that mates is 1, a winning zeroing move 1, a cursed one 101.
    pub dtz: i32,
}

/// What [`Tablebases::probe_root`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootProbe {
    /// The root's verdict counting its halfmove clock.
    pub wdl: Wdl,
    /// The root's DTZ (signed as [`Tablebases::probe_dtz`]).
    pub dtz: i32,
    /// Every legal move (none when the root is mate or stalemate).
    pub moves: Vec<RootMove>,
}

/// Why tables were not loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TablebaseError {
    /// The path names no directory (empty, or only separators).
    Empty,
    /// A directory of the path does not exist or is not a directory.
    NotADirectory(PathBuf),
    /// A directory could not be listed (the system's reason).
    Unreadable(PathBuf, String),
    /// No Syzygy WDL table (`K...vK....rtbw`) in any directory of the path.
    NoTables(String),
    /// Every WDL table of the path was refused as damaged (each file with its reason).
    Refused(Vec<RefusedTable>),
    /// Other tables (these directories) are loaded and still in use in this process.
    Busy {
        /// The path of the tables in use.
        loaded: String,
    },
    /// The prober refused to start (its reason).
    Prober(String),
}

impl fmt::Display for TablebaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TablebaseError::Empty => write!(f, "no Syzygy directory given"),
            TablebaseError::NotADirectory(p) => write!(f, "{} is not a directory", p.display()),
            TablebaseError::Unreadable(p, e) => write!(f, "cannot read {}: {e}", p.display()),
            TablebaseError::NoTables(p) => write!(f, "no Syzygy tables (.rtbw files) in {p}"),
            TablebaseError::Refused(files) => {
                write!(f, "every Syzygy WDL table is damaged: ")?;
                let list: Vec<String> = files.iter().map(RefusedTable::to_string).collect();
                write!(f, "{}", list.join("; "))
            }
            TablebaseError::Busy { loaded } => write!(
                f,
                "the Syzygy tables of {loaded} are still in use in this process; one set at a time"
            ),
            TablebaseError::Prober(e) => write!(f, "the Syzygy prober failed to start: {e}"),
        }
    }
}

impl std::error::Error for TablebaseError {}

/// A table file refused when the tables were loaded: its structure is not a valid table's
/// (or it could not be read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedTable {
    /// The file.
    pub path: PathBuf,
    /// Why, for a message (`magic number 0x00000000, not 0x5d23e871`).
    pub reason: String,
}

impl fmt::Display for RefusedTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} refused: {}", self.path.display(), self.reason)
    }
}

/// The loaded tables: one owner per process, shared by [`Arc`] (see the crate
/// documentation).
pub struct Tablebases {
    /// `Some` until dropped (taken under the global lock).
    prober: Option<pyrrhic_rs::TableBases<Adapter>>,
    path: String,
    dirs: Vec<PathBuf>,
    max_pieces: u32,
    /// Material keys ([`material_key`]) of the endings with a WDL and with a DTZ table
    /// loaded.
    wdl_tables: Vec<u32>,
    dtz_tables: Vec<u32>,
    /// The table files refused at load.
    refused: Vec<RefusedTable>,
    /// Serialises the crate's root probe.
    root: Mutex<()>,
}

impl fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tablebases")
            .field("path", &self.path)
            .field("max_pieces", &self.max_pieces)
            .field("wdl_tables", &self.wdl_tables.len())
            .field("dtz_tables", &self.dtz_tables.len())
            .field("refused", &self.refused.len())
            .finish_non_exhaustive()
    }
}

/// The process's one owner of the prober's global state.
struct Global {
    current: Weak<Tablebases>,
    /// Tables are loaded (set at open, cleared once a drop has freed them).
    live: bool,
}

static GLOBAL: Mutex<Global> = Mutex::new(Global {
    current: Weak::new(),
    live: false,
});

fn global() -> MutexGuard<'static, Global> {
    GLOBAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Drop for Tablebases {
    fn drop(&mut self) {
        let mut global = global();
        drop(self.prober.take());
        global.live = false;
    }
}

/// A material signature independent of colour: the counts of queens, rooks, bishops,
/// knights and pawns of each side (3 bits each), the smaller of the two orders.
fn material_key(white: [u32; 5], black: [u32; 5]) -> u32 {
    let pack = |a: [u32; 5], b: [u32; 5]| a.iter().chain(b.iter()).fold(0u32, |key, &n| key << 3 | n.min(7));
    pack(white, black).min(pack(black, white))
}

const KINDS: [PieceType; 5] = [
    PieceType::Queen,
    PieceType::Rook,
    PieceType::Bishop,
    PieceType::Knight,
    PieceType::Pawn,
];

fn board_material(board: &Board) -> u32 {
    let side = |color| KINDS.map(|kind| board.colored_pieces(color, kind).len());
    material_key(side(Color::White), side(Color::Black))
}

/// The pieces of a table name's side (`KRP`), or `None` when it is not one.
fn side_counts(side: &str) -> Option<[u32; 5]> {
    let rest = side.strip_prefix('K')?;
    let mut counts = [0; 5];
    for c in rest.chars() {
        let i = "QRBNP".find(c)?;
        counts[i] += 1;
    }
    Some(counts)
}

/// A table file's ending (`KRPvKN.rtbw`): its material key, piece count, and whether it
/// is a WDL (`rtbw`) or DTZ (`rtbz`) table.
fn table_of(name: &str) -> Option<(u32, u32, bool)> {
    let (stem, wdl) = if let Some(stem) = name.strip_suffix(".rtbw") {
        (stem, true)
    } else {
        (name.strip_suffix(".rtbz")?, false)
    };
    let (a, b) = stem.split_once('v')?;
    let (a, b) = (side_counts(a)?, side_counts(b)?);
    let pieces = 2 + a.iter().sum::<u32>() + b.iter().sum::<u32>();
    Some((material_key(a, b), pieces, wdl))
}

/// The directories of a path (`:` between them), each checked to exist, to be listable
/// and, among them all, to hold some WDL table file of at most 7 pieces.
fn scan(path: &str) -> Result<Vec<PathBuf>, TablebaseError> {
    let dirs: Vec<PathBuf> = path
        .split(':')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .collect();
    if dirs.is_empty() {
        return Err(TablebaseError::Empty);
    }
    let mut found = Vec::new();
    let mut any_table = false;
    for dir in dirs {
        if !dir.is_dir() {
            return Err(TablebaseError::NotADirectory(dir));
        }
        let unreadable = |e: std::io::Error| TablebaseError::Unreadable(dir.clone(), e.to_string());
        for entry in std::fs::read_dir(&dir).map_err(unreadable)? {
            let entry = entry.map_err(unreadable)?;
            if let Some((_, pieces, true)) = entry.file_name().to_str().and_then(table_of) {
                any_table |= pieces <= 7;
            }
        }
        if !found.contains(&dir) {
            found.push(dir);
        }
    }
    if !any_table {
        return Err(TablebaseError::NoTables(path.to_string()));
    }
    Ok(found)
}

/// How long [`Tablebases::open`] waits for the previous tables to be freed by their last
/// owner on another thread.
const FREE_WAIT: Duration = Duration::from_secs(5);

impl Tablebases {
    /// Loads the tables in `path`: one directory, or several separated by `:` (spaces
    /// inside a directory's name are kept; around it they are trimmed). Every directory
    /// must exist and at least one must hold a WDL table. Each table file is checked as it
    /// loads: a damaged one is refused ([`Tablebases::refused`]) and the others load; when
    /// every WDL table is refused the path is [`TablebaseError::Refused`]. When the same
    /// directories are already loaded in this process, the loaded tables are shared; other
    /// tables still in use are [`TablebaseError::Busy`].
    pub fn open(path: &str) -> Result<Arc<Tablebases>, TablebaseError> {
        let dirs = scan(path)?;
        let joined = dirs
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(":");
        if joined.contains('\0') {
            return Err(TablebaseError::NotADirectory(PathBuf::from(path)));
        }
        let deadline = Instant::now() + FREE_WAIT;
        loop {
            let mut global = global();
            if let Some(loaded) = global.current.upgrade() {
                if loaded.dirs == dirs {
                    return Ok(loaded);
                }
                return Err(TablebaseError::Busy {
                    loaded: loaded.path.clone(),
                });
            }
            if global.live {
                // The last owner is freeing its tables on another thread.
                drop(global);
                if Instant::now() > deadline {
                    return Err(TablebaseError::Prober(
                        "the previous tables were not freed".into(),
                    ));
                }
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            let prober = pyrrhic_rs::TableBases::<Adapter>::new(&joined)
                .map_err(|e| TablebaseError::Prober(format!("{e:?}")))?;
            let refused: Vec<RefusedTable> = prober
                .refused()
                .into_iter()
                .map(|r| RefusedTable {
                    path: r.path,
                    reason: r.reason,
                })
                .collect();
            if prober.max_pieces() == 0 {
                return Err(TablebaseError::Refused(refused));
            }
            let (mut wdl_tables, mut dtz_tables) = (Vec::new(), Vec::new());
            for (name, has_dtz) in prober.endings() {
                if let Some((key, _, _)) = table_of(&format!("{name}.rtbw")) {
                    wdl_tables.push(key);
                    if has_dtz {
                        dtz_tables.push(key);
                    }
                }
            }
            for list in [&mut wdl_tables, &mut dtz_tables] {
                list.sort_unstable();
                list.dedup();
            }
            let tables = Arc::new(Tablebases {
                max_pieces: prober.max_pieces(),
                prober: Some(prober),
                path: joined,
                dirs,
                wdl_tables,
                dtz_tables,
                refused,
                root: Mutex::new(()),
            });
            global.current = Arc::downgrade(&tables);
            global.live = true;
            return Ok(tables);
        }
    }

    /// Whether `path` could load (as [`Tablebases::open`] checks it before it loads: every
    /// directory exists and some WDL table file is there), without loading anything.
    pub fn check(path: &str) -> Result<(), TablebaseError> {
        scan(path).map(|_| ())
    }

    /// The table files refused as damaged when the tables loaded, with the reasons; their
    /// endings are probed without them (an ending whose WDL table is refused, not at all).
    pub fn refused(&self) -> &[RefusedTable] {
        &self.refused
    }

    /// The table files in which a probe met damage that the checks at load could not see,
    /// since the last call: each file once for the life of the tables, for a warning. Such
    /// a probe answered `None`.
    pub fn take_damaged(&self) -> Vec<PathBuf> {
        self.prober.as_ref().map_or_else(Vec::new, |p| p.take_damaged())
    }

    /// The directories loaded, joined by `:`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The most pieces (kings included) of any loaded WDL table.
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// The number of endings with a WDL table.
    pub fn wdl_count(&self) -> usize {
        self.wdl_tables.len()
    }

    /// The number of endings with a DTZ table.
    pub fn dtz_count(&self) -> usize {
        self.dtz_tables.len()
    }

    /// Whether a WDL probe of `board` can answer: no castling rights, at most
    /// [`Tablebases::max_pieces`] pieces, and its ending's WDL table loaded.
    pub fn covers(&self, board: &Board) -> bool {
        board.occupied().len() <= self.max_pieces
            && board.castling_rights().is_empty()
            && (board.occupied().len() == 2 || self.wdl_tables.binary_search(&board_material(board)).is_ok())
    }

    fn covers_dtz(&self, board: &Board) -> bool {
        self.covers(board)
            && (board.occupied().len() == 2 || self.dtz_tables.binary_search(&board_material(board)).is_ok())
    }

    /// The verdict for `board` with its halfmove clock taken as 0 (what the tables store):
    /// exact right after a capture or a pawn move. `None` when the tables do not cover the
    /// position or the probe fails (a table it needs is missing or damaged).
    pub fn probe_wdl(&self, board: &Board) -> Option<Wdl> {
        if !self.covers(board) {
            return None;
        }
        let prober = self.prober.as_ref()?;
        let p = Position::of(board);
        prober
            .probe_wdl(
                p.white, p.black, p.kings, p.queens, p.rooks, p.bishops, p.knights, p.pawns, p.ep, p.turn,
            )
            .ok()
            .map(Wdl::from_pyrrhic)
    }

    /// The distance to zero of `board` in plies, as python-chess's `probe_dtz`: positive
    /// when the side to move wins, negative when it loses, 0 for a draw; over 100 in
    /// magnitude for a cursed win or blessed loss; -1 when checkmated. It may be one ply
    /// more than the true distance where a zeroing move follows (the tables' rounding).
    /// The halfmove clock is not used. `None` when the tables (WDL and DTZ) do not cover
    /// the position or the probe fails (a table it needs is missing or damaged).
    pub fn probe_dtz(&self, board: &Board) -> Option<i32> {
        if !self.covers_dtz(board) {
            return None;
        }
        if !board.has_legal_move() {
            return Some(if board.in_check() { -1 } else { 0 });
        }
        let root = self.root_probe(board, 0)?;
        match root.root {
            pyrrhic_rs::DtzProbeValue::DtzResult(r) => {
                Some(Wdl::from_pyrrhic(r.wdl).sign() * i32::from(r.dtz))
            }
            pyrrhic_rs::DtzProbeValue::Checkmate => Some(-1),
            pyrrhic_rs::DtzProbeValue::Stalemate => Some(0),
            pyrrhic_rs::DtzProbeValue::Failed => None,
        }
    }

    /// Every legal move of `board` with its verdict and DTZ (see [`RootMove`]), counting
    /// the board's halfmove clock; the root's own verdict and DTZ. Serialised: one root
    /// probe at a time in the process. `None` when the tables (WDL and DTZ) do not cover
    /// the position, the clock is over 255, or the probe fails (a table it needs is missing
    /// or damaged).
    pub fn probe_root(&self, board: &Board) -> Option<RootProbe> {
        if !self.covers_dtz(board) || board.halfmove_clock() > 255 {
            return None;
        }
        let legal = board.legal_moves();
        if legal.is_empty() {
            let (wdl, dtz) = if board.in_check() {
                (Wdl::Loss, -1)
            } else {
                (Wdl::Draw, 0)
            };
            return Some(RootProbe {
                wdl,
                dtz,
                moves: Vec::new(),
            });
        }
        let rule50 = u32::from(board.halfmove_clock());
        let raw = self.root_probe(board, rule50)?;
        let pyrrhic_rs::DtzProbeValue::DtzResult(root) = raw.root else {
            return None;
        };
        let root_wdl = Wdl::from_pyrrhic(root.wdl);
        let mut moves = Vec::with_capacity(raw.num_moves);
        for value in &raw.moves[..raw.num_moves] {
            let pyrrhic_rs::DtzProbeValue::DtzResult(r) = value else {
                return None;
            };
            let promotion = match r.promotion {
                pyrrhic_rs::Piece::Queen => Some(PieceType::Queen),
                pyrrhic_rs::Piece::Rook => Some(PieceType::Rook),
                pyrrhic_rs::Piece::Bishop => Some(PieceType::Bishop),
                pyrrhic_rs::Piece::Knight => Some(PieceType::Knight),
                _ => None,
            };
            let mv = Move::new(
                Square::new(r.from_square & 63),
                Square::new(r.to_square & 63),
                promotion,
            );
            if !legal.contains(mv) {
                return None;
            }
            let wdl = Wdl::from_pyrrhic(r.wdl);
            moves.push(RootMove {
                mv,
                wdl,
                dtz: wdl.sign() * i32::from(r.dtz),
            });
        }
        if moves.len() != legal.len() {
            return None;
        }
        Some(RootProbe {
            wdl: root_wdl,
            dtz: root_wdl.sign() * i32::from(root.dtz),
            moves,
        })
    }

    /// The crate's root probe, one at a time.
    fn root_probe(&self, board: &Board, rule50: u32) -> Option<pyrrhic_rs::DtzProbeResult> {
        let prober = self.prober.as_ref()?;
        let _one_at_a_time = self.root.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let p = Position::of(board);
        prober
            .probe_root(
                p.white, p.black, p.kings, p.queens, p.rooks, p.bishops, p.knights, p.pawns, rule50, p.ep,
                p.turn,
            )
            .ok()
    }
}

/// A board as the prober takes it.
struct Position {
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    turn: bool,
}

impl Position {
    fn of(board: &Board) -> Position {
        let bb = |kind| board.pieces(kind).0;
        Position {
            white: board.colored(Color::White).0,
            black: board.colored(Color::Black).0,
            kings: bb(PieceType::King),
            queens: bb(PieceType::Queen),
            rooks: bb(PieceType::Rook),
            bishops: bb(PieceType::Bishop),
            knights: bb(PieceType::Knight),
            pawns: bb(PieceType::Pawn),
            ep: board.en_passant().map_or(0, |sq| sq.index() as u32),
            turn: board.side_to_move() == Color::White,
        }
    }
}

/// The tables for tests: the published 3-4 piece set (all 70 files, 4.4 MB), committed in
/// `tablebase/tests/data/syzygy` so that every crate's Syzygy tests run on a fresh clone with
/// nothing beside it.
///
/// # Panics
/// When the folder is missing: a missing fixture fails the test that asked for it.
pub fn tables_for_tests() -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy");
    assert!(
        dir.join("KQvK.rtbw").is_file() && dir.join("KRPvK.rtbz").is_file(),
        "the committed Syzygy tables are missing from {}",
        dir.display()
    );
    dir.canonicalize().unwrap_or(dir).to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_give_material_keys_independent_of_colour() {
        let (krvk, n, wdl) = table_of("KRvK.rtbw").unwrap();
        assert_eq!((n, wdl), (3, true));
        assert_eq!(table_of("KRvK.rtbz").unwrap(), (krvk, 3, false));
        let board = Board::from_fen("8/8/8/8/8/8/r7/K6k w - - 0 1").unwrap();
        assert_eq!(board_material(&board), krvk);
        let board = Board::from_fen("8/8/8/8/8/8/R7/K6k w - - 0 1").unwrap();
        assert_eq!(board_material(&board), krvk);
        assert_eq!(table_of("KQRBNPvKQRBNP.rtbw").map(|t| t.1), Some(12));
        for bad in ["KRvK.txt", "KRK.rtbw", "QvK.rtbw", "KXvK.rtbw", "KRvK.rtbm"] {
            assert_eq!(table_of(bad), None, "{bad}");
        }
    }

    #[test]
    fn bad_paths_are_refused_with_their_reason() {
        assert_eq!(Tablebases::open("").unwrap_err(), TablebaseError::Empty);
        assert_eq!(Tablebases::open(" : ").unwrap_err(), TablebaseError::Empty);
        let missing = "/nonexistent/syzygy";
        assert_eq!(
            Tablebases::open(missing).unwrap_err().to_string(),
            "/nonexistent/syzygy is not a directory"
        );
        let empty = std::env::temp_dir().join(format!("luft-tb-empty-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let text = empty.to_string_lossy().into_owned();
        assert!(matches!(
            Tablebases::open(&text),
            Err(TablebaseError::NoTables(_))
        ));
        std::fs::write(empty.join("KQvK.rtbw"), b"not a table").unwrap();
        let refused = Tablebases::open(&text).unwrap_err();
        assert_eq!(
            refused,
            TablebaseError::Refused(vec![RefusedTable {
                path: empty.join("KQvK.rtbw"),
                reason: "11 bytes, not 64 n + 16 as every table".into()
            }])
        );
        assert!(refused
            .to_string()
            .starts_with("every Syzygy WDL table is damaged: "));
        std::fs::remove_dir_all(&empty).unwrap();
    }

    #[test]
    fn verdicts_flip_and_follow_the_fifty_move_rule() {
        assert_eq!(Wdl::CursedWin.flip(), Wdl::BlessedLoss);
        assert_eq!(Wdl::CursedWin.outcome(true), Wdl::Draw);
        assert_eq!(Wdl::CursedWin.outcome(false), Wdl::Win);
        assert_eq!(Wdl::BlessedLoss.outcome(false), Wdl::Loss);
        assert_eq!(
            [Wdl::Loss, Wdl::BlessedLoss, Wdl::Draw, Wdl::CursedWin, Wdl::Win].map(Wdl::value),
            [-2, -1, 0, 1, 2]
        );
        assert!(Wdl::Win > Wdl::CursedWin && Wdl::Draw > Wdl::BlessedLoss);
    }
}
