//! The probing logic of pyrrhic-rs 0.2.0 (`tb_init`, `probe_table`, `probe_ab`,
//! `probe_wdl`, `probe_dtz`, `probe_root` and its move generation), rewritten in safe Rust
//! over the checked tables of [`crate::table`]: the tables of one [`Prober`] instead of
//! process-wide statics, positions by value, move lists in bounded arrays, and every value
//! a table supplies checked before it indexes anything. A probe that meets a damaged table
//! answers [`Fail::Damaged`] and the table is remembered as damaged.

use crate::engine_adapter::{Color, EngineAdapter};
use crate::table::{Damaged, Encoding, Kind, Material, TableFile, INDICES, PAWN_TWIST, PIECE_KEYS};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// Why a probe has no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fail {
    /// A table the probe needs is not loaded (or the position is not one a table holds).
    Missing,
    /// A table the probe needs is damaged.
    Damaged,
}

impl From<Damaged> for Fail {
    fn from(_: Damaged) -> Fail {
        Fail::Damaged
    }
}

/// A position as the prober takes it: bitboards (bit 0 a1, bit 63 h8), the halfmove
/// clock, the en passant square (0: none) and the side to move (`true`: white).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) white: u64,
    pub(crate) black: u64,
    pub(crate) kings: u64,
    pub(crate) queens: u64,
    pub(crate) rooks: u64,
    pub(crate) bishops: u64,
    pub(crate) knights: u64,
    pub(crate) pawns: u64,
    pub(crate) rule50: u8,
    pub(crate) ep: u8,
    pub(crate) turn: bool,
}

/// A move: promotion (0 none, 1 queen, 2 rook, 3 bishop, 4 knight) << 12, from << 6, to.
pub(crate) type Move = u16;

pub(crate) fn move_from(m: Move) -> u32 {
    u32::from(m >> 6) & 0x3f
}

pub(crate) fn move_to(m: Move) -> u32 {
    u32::from(m) & 0x3f
}

pub(crate) fn move_promotes(m: Move) -> u32 {
    u32::from(m >> 12) & 0x7
}

fn make_move(promote: u32, from: u32, to: u32) -> Move {
    ((promote & 0x7) << 12 | (from & 0x3f) << 6 | to & 0x3f) as Move
}

const PROMOTES_QUEEN: u32 = 1;
const PROMOTES_ROOK: u32 = 2;
const PROMOTES_BISHOP: u32 = 3;
const PROMOTES_KNIGHT: u32 = 4;
const PROMOTION_SQUARES: u64 = 0xff00_0000_0000_00ff;

fn test_bit(bb: u64, sq: u32) -> bool {
    sq < 64 && (bb >> sq) & 1 != 0
}

fn lsb(bb: u64) -> u64 {
    u64::from(bb.trailing_zeros())
}

/// The squares of a bitboard, lowest first.
fn squares(mut bb: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (bb != 0).then(|| {
            let sq = bb.trailing_zeros();
            bb &= bb - 1;
            sq
        })
    })
}

/// Up to 256 moves (a position of at most 7 pieces has far fewer).
pub(crate) struct Moves {
    list: [Move; 256],
    len: usize,
}

impl Moves {
    fn new() -> Moves {
        Moves {
            list: [0; 256],
            len: 0,
        }
    }

    fn push(&mut self, m: Move) {
        if let Some(slot) = self.list.get_mut(self.len) {
            *slot = m;
            self.len += 1;
        }
    }

    /// A move, or its four promotions (queen, knight, rook, bishop).
    fn add(&mut self, promotes: bool, from: u32, to: u32) {
        if promotes {
            for piece in [PROMOTES_QUEEN, PROMOTES_KNIGHT, PROMOTES_ROOK, PROMOTES_BISHOP] {
                self.push(make_move(piece, from, to));
            }
        } else {
            self.push(make_move(0, from, to));
        }
    }

    pub(crate) fn as_slice(&self) -> &[Move] {
        &self.list[..self.len]
    }
}

fn color(white: bool) -> Color {
    if white {
        Color::White
    } else {
        Color::Black
    }
}

impl Pos {
    fn us(&self) -> u64 {
        if self.turn {
            self.white
        } else {
            self.black
        }
    }

    fn them(&self) -> u64 {
        if self.turn {
            self.black
        } else {
            self.white
        }
    }

    /// The pieces of `white`'s side (or black's) of type `piece` (1 pawn to 6 king).
    fn pieces_by_type(&self, white: bool, piece: u8) -> Option<u64> {
        let side = if white { self.white } else { self.black };
        let kind = match piece {
            1 => self.pawns,
            2 => self.knights,
            3 => self.bishops,
            4 => self.rooks,
            5 => self.queens,
            6 => self.kings,
            _ => return None,
        };
        Some(kind & side)
    }

    /// The material key (the sum of [`PIECE_KEYS`]), with the colours swapped when `mirror`.
    pub(crate) fn key(&self, mirror: bool) -> u64 {
        let (white, black) = if mirror {
            (self.black, self.white)
        } else {
            (self.white, self.black)
        };
        let kinds = [self.pawns, self.knights, self.bishops, self.rooks, self.queens];
        let mut key = 0u64;
        for (i, kind) in kinds.iter().enumerate() {
            let count = |side: u64| u64::from((kind & side).count_ones());
            key = key
                .wrapping_add(count(white).wrapping_mul(PIECE_KEYS[i + 1]))
                .wrapping_add(count(black).wrapping_mul(PIECE_KEYS[i + 9]));
        }
        key
    }

    fn gen_captures<E: EngineAdapter>(&self) -> Moves {
        let (us, them) = (self.us(), self.them());
        let occupied = us | them;
        let mut moves = Moves::new();
        let add_all = |from: u32, targets: u64, moves: &mut Moves| {
            for to in squares(targets) {
                moves.add(false, from, to);
            }
        };
        for from in squares(us & self.kings) {
            add_all(from, E::king_attacks(u64::from(from)) & them, &mut moves);
        }
        for from in squares(us & (self.rooks | self.queens)) {
            add_all(
                from,
                E::rook_attacks(u64::from(from), occupied) & them,
                &mut moves,
            );
        }
        for from in squares(us & (self.bishops | self.queens)) {
            add_all(
                from,
                E::bishop_attacks(u64::from(from), occupied) & them,
                &mut moves,
            );
        }
        for from in squares(us & self.knights) {
            add_all(from, E::knight_attacks(u64::from(from)) & them, &mut moves);
        }
        for from in squares(us & self.pawns) {
            let attacks = E::pawn_attacks(color(self.turn), u64::from(from));
            if self.ep != 0 && test_bit(attacks, u32::from(self.ep)) {
                moves.add(false, from, u32::from(self.ep));
            }
            for to in squares(attacks & them) {
                moves.add(test_bit(PROMOTION_SQUARES, to), from, to);
            }
        }
        moves
    }

    fn gen_moves<E: EngineAdapter>(&self) -> Moves {
        let forward: i32 = if self.turn { 8 } else { -8 };
        let (us, them) = (self.us(), self.them());
        let occupied = us | them;
        let mut moves = Moves::new();
        let add_all = |from: u32, targets: u64, moves: &mut Moves| {
            for to in squares(targets) {
                moves.add(false, from, to);
            }
        };
        for from in squares(us & self.kings) {
            add_all(from, E::king_attacks(u64::from(from)) & !us, &mut moves);
        }
        for from in squares(us & (self.rooks | self.queens)) {
            add_all(from, E::rook_attacks(u64::from(from), occupied) & !us, &mut moves);
        }
        for from in squares(us & (self.bishops | self.queens)) {
            add_all(
                from,
                E::bishop_attacks(u64::from(from), occupied) & !us,
                &mut moves,
            );
        }
        for from in squares(us & self.knights) {
            add_all(from, E::knight_attacks(u64::from(from)) & !us, &mut moves);
        }
        for from in squares(us & self.pawns) {
            let attacks = E::pawn_attacks(color(self.turn), u64::from(from));
            if self.ep != 0 && test_bit(attacks, u32::from(self.ep)) {
                moves.add(false, from, u32::from(self.ep));
            }
            let one = (from as i32).wrapping_add(forward) as u32;
            let two = (from as i32).wrapping_add(2 * forward) as u32;
            if !test_bit(occupied, one) {
                moves.add(test_bit(PROMOTION_SQUARES, one), from, one);
            }
            let start_rank = if self.turn { 1 } else { 6 };
            if from >> 3 == start_rank && !test_bit(occupied, one) && !test_bit(occupied, two) {
                moves.add(false, from, two);
            }
            for to in squares(attacks & them) {
                moves.add(test_bit(PROMOTION_SQUARES, to), from, to);
            }
        }
        moves
    }

    fn gen_legal<E: EngineAdapter>(&self) -> Moves {
        let mut legal = Moves::new();
        for &m in self.gen_moves::<E>().as_slice() {
            if self.do_move::<E>(m).1 {
                legal.push(m);
            }
        }
        legal
    }

    pub(crate) fn is_pawn_move(&self, m: Move) -> bool {
        test_bit(self.us() & self.pawns, move_from(m))
    }

    pub(crate) fn is_en_passant(&self, m: Move) -> bool {
        self.is_pawn_move(m) && move_to(m) == u32::from(self.ep) && self.ep != 0
    }

    fn is_capture(&self, m: Move) -> bool {
        test_bit(self.them(), move_to(m)) || self.is_en_passant(m)
    }

    /// Whether the side that just moved left its king safe.
    fn is_legal<E: EngineAdapter>(&self) -> bool {
        let (us, them) = (self.them(), self.us());
        let sq = lsb(self.kings & us);
        let occupied = us | them;
        E::king_attacks(sq) & self.kings & them == 0
            && E::rook_attacks(sq, occupied) & (self.rooks | self.queens) & them == 0
            && E::bishop_attacks(sq, occupied) & (self.bishops | self.queens) & them == 0
            && E::knight_attacks(sq) & self.knights & them == 0
            && E::pawn_attacks(color(!self.turn), sq) & self.pawns & them == 0
    }

    fn is_check<E: EngineAdapter>(&self) -> bool {
        let (us, them) = (self.us(), self.them());
        let sq = lsb(self.kings & us);
        let occupied = us | them;
        E::rook_attacks(sq, occupied) & (self.rooks | self.queens) & them != 0
            || E::bishop_attacks(sq, occupied) & (self.bishops | self.queens) & them != 0
            || E::knight_attacks(sq) & self.knights & them != 0
            || E::pawn_attacks(color(self.turn), sq) & self.pawns & them != 0
    }

    fn is_mate<E: EngineAdapter>(&self) -> bool {
        self.is_check::<E>()
            && !self
                .gen_moves::<E>()
                .as_slice()
                .iter()
                .any(|&m| self.do_move::<E>(m).1)
    }

    /// The position after `m`, and whether `m` was legal.
    fn do_move<E: EngineAdapter>(&self, m: Move) -> (Pos, bool) {
        let (from, to, promotes) = (move_from(m), move_to(m), move_promotes(m));
        let shift = |bb: u64| ((bb >> from) & 1) << to | bb & !(1u64 << from) & !(1u64 << to);
        let mut pos = Pos {
            white: shift(self.white),
            black: shift(self.black),
            kings: shift(self.kings),
            queens: shift(self.queens),
            rooks: shift(self.rooks),
            bishops: shift(self.bishops),
            knights: shift(self.knights),
            pawns: shift(self.pawns),
            rule50: self.rule50,
            ep: 0,
            turn: !self.turn,
        };
        if promotes != 0 {
            pos.pawns &= !(1u64 << to);
            match promotes {
                PROMOTES_QUEEN => pos.queens |= 1u64 << to,
                PROMOTES_ROOK => pos.rooks |= 1u64 << to,
                PROMOTES_BISHOP => pos.bishops |= 1u64 << to,
                PROMOTES_KNIGHT => pos.knights |= 1u64 << to,
                _ => {}
            }
            pos.rule50 = 0;
        } else if test_bit(self.pawns, from) {
            pos.rule50 = 0;
            if from ^ to == 16
                && self.turn
                && E::pawn_attacks(Color::Black, u64::from(from + 8)) & self.pawns & self.black != 0
            {
                pos.ep = (from + 8) as u8;
            }
            if from ^ to == 16
                && !self.turn
                && E::pawn_attacks(Color::White, u64::from(from.wrapping_sub(8))) & self.pawns & self.white
                    != 0
            {
                pos.ep = from.wrapping_sub(8) as u8;
            } else if to == u32::from(self.ep) {
                let captured = if self.turn { to.wrapping_sub(8) } else { to + 8 };
                if captured < 64 {
                    let keep = !(1u64 << captured);
                    pos.white &= keep;
                    pos.black &= keep;
                    pos.pawns &= keep;
                }
            }
        } else if test_bit(self.white | self.black, to) {
            pos.rule50 = 0;
        } else {
            pos.rule50 = self.rule50.wrapping_add(1);
        }
        let legal = pos.is_legal::<E>();
        (pos, legal)
    }
}

/// The largest DTZ a table value may give (see [`probe_file`]).
const MAX_TABLE_DTZ: i32 = 0xfff - 110;

/// WDL (-2 to 2) to the DTZ of a position whose best move zeroes.
const WDL_TO_DTZ: [i32; 5] = [-1, -101, 0, 101, 1];

/// One ending's tables.
#[derive(Debug)]
struct Entry {
    material: Material,
    wdl: TableFile,
    wdl_path: PathBuf,
    dtz: Option<(TableFile, PathBuf)>,
    /// A probe met damage in the WDL (0) or DTZ (1) table; it has been reported.
    damaged: [AtomicBool; 2],
    reported: [AtomicBool; 2],
}

/// A table file refused at load: its path and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) path: PathBuf,
    pub(crate) reason: String,
}

/// Hashes a material key by itself: the keys are sums of random 64-bit numbers already.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// The tables of a set of directories, loaded and checked.
#[derive(Debug, Default)]
pub(crate) struct Prober {
    entries: Vec<Entry>,
    by_key: HashMap<u64, usize, BuildHasherDefault<KeyHasher>>,
    max_pieces: u32,
    wdl_files_found: usize,
    refused: Vec<Refusal>,
    /// Some table met damage that [`Prober::take_damaged`] has not reported yet.
    new_damage: AtomicBool,
}

/// The first of `dirs` that holds `name`.
fn find(dirs: &[PathBuf], name: &str) -> Option<PathBuf> {
    dirs.iter().map(|d| d.join(name)).find(|p| p.is_file())
}

impl Prober {
    /// Loads every table of `path` (directories separated by `:`): each ending whose WDL
    /// file (`KQvKR.rtbw`) is in a directory, with its DTZ file (`.rtbz`) when one is; the
    /// first directory that has a file wins. A file that fails its checks is refused (see
    /// [`Prober::refused`]); the others load.
    pub(crate) fn load(path: &str) -> Prober {
        let dirs: Vec<PathBuf> = path
            .split(':')
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .collect();
        let mut prober = Prober::default();
        let mut names: Vec<String> = Vec::new();
        for dir in &dirs {
            let listing = match std::fs::read_dir(dir) {
                Ok(listing) => listing,
                Err(e) => {
                    prober.refused.push(Refusal {
                        path: dir.clone(),
                        reason: format!("cannot list the directory: {e}"),
                    });
                    continue;
                }
            };
            let mut here: Vec<String> = listing
                .filter_map(|entry| {
                    entry
                        .ok()?
                        .file_name()
                        .to_str()?
                        .strip_suffix(".rtbw")
                        .map(str::to_string)
                })
                .filter(|name| Material::from_name(name).is_some())
                .collect();
            here.sort();
            for name in here {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        for name in names {
            let Some(material) = Material::from_name(&name) else {
                continue;
            };
            if prober.by_key.contains_key(&material.key) {
                continue;
            }
            let Some(wdl_path) = find(&dirs, &format!("{name}{}", Kind::Wdl.suffix())) else {
                continue;
            };
            prober.wdl_files_found += 1;
            let wdl = match TableFile::open(&wdl_path, &material, Kind::Wdl) {
                Ok(table) => table,
                Err(reason) => {
                    prober.refused.push(Refusal {
                        path: wdl_path,
                        reason,
                    });
                    continue;
                }
            };
            let dtz =
                find(&dirs, &format!("{name}{}", Kind::Dtz.suffix())).and_then(|path| match TableFile::open(
                    &path,
                    &material,
                    Kind::Dtz,
                ) {
                    Ok(table) => Some((table, path)),
                    Err(reason) => {
                        prober.refused.push(Refusal { path, reason });
                        None
                    }
                });
            let index = prober.entries.len();
            prober.by_key.insert(material.key, index);
            prober.by_key.insert(material.mirrored_key, index);
            prober.max_pieces = prober.max_pieces.max(material.num as u32);
            prober.entries.push(Entry {
                material,
                wdl,
                wdl_path,
                dtz,
                damaged: Default::default(),
                reported: Default::default(),
            });
        }
        prober
    }

    /// The most pieces of a loaded WDL table (0: none loaded).
    pub(crate) fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// How many WDL files were found (loaded or refused).
    pub(crate) fn wdl_files_found(&self) -> usize {
        self.wdl_files_found
    }

    /// The files refused at load, with the reasons.
    pub(crate) fn refused(&self) -> &[Refusal] {
        &self.refused
    }

    /// The loaded endings (`KQvKR`) and whether each has its DTZ table.
    pub(crate) fn endings(&self) -> impl Iterator<Item = (&str, bool)> {
        self.entries
            .iter()
            .map(|e| (e.material.name.as_str(), e.dtz.is_some()))
    }

    /// The files in which probes met damage since the last call (each file once).
    pub(crate) fn take_damaged(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        if !self.new_damage.swap(false, Ordering::Relaxed) {
            return found;
        }
        for entry in &self.entries {
            for kind in 0..2 {
                if entry.damaged[kind].load(Ordering::Relaxed)
                    && !entry.reported[kind].swap(true, Ordering::Relaxed)
                {
                    let path = if kind == 0 {
                        Some(&entry.wdl_path)
                    } else {
                        entry.dtz.as_ref().map(|d| &d.1)
                    };
                    found.extend(path.cloned());
                }
            }
        }
        found
    }

    /// The table value for `pos` (`Some`), or `None` when its DTZ table stores the other
    /// side to move; `wdl` is the position's WDL (DTZ only).
    fn probe_table(&self, pos: &Pos, wdl: i32, kind: Kind) -> Result<Option<i32>, Fail> {
        let key = pos.key(false);
        if kind == Kind::Wdl && key == 0 {
            return Ok(Some(0)); // two bare kings
        }
        let entry = &self.entries[*self.by_key.get(&key).ok_or(Fail::Missing)?];
        let table = match kind {
            Kind::Wdl => &entry.wdl,
            Kind::Dtz => &entry.dtz.as_ref().ok_or(Fail::Missing)?.0,
        };
        let answer = probe_file(table, &entry.material, pos, key, wdl, kind);
        if answer == Err(Fail::Damaged)
            && !entry.damaged[usize::from(kind == Kind::Dtz)].swap(true, Ordering::Relaxed)
        {
            self.new_damage.store(true, Ordering::Relaxed);
        }
        answer
    }

    fn probe_wdl_table(&self, pos: &Pos) -> Result<i32, Fail> {
        self.probe_table(pos, 0, Kind::Wdl)?.ok_or(Fail::Damaged)
    }

    /// Alpha-beta over captures, then the table (pyrrhic's `probe_ab`).
    fn probe_ab<E: EngineAdapter>(&self, pos: &Pos, mut alpha: i32, beta: i32) -> Result<i32, Fail> {
        for &m in pos.gen_captures::<E>().as_slice() {
            if !pos.is_capture(m) {
                continue;
            }
            let (after, legal) = pos.do_move::<E>(m);
            if legal {
                let v = -self.probe_ab::<E>(&after, -beta, -alpha)?;
                if v > alpha {
                    if v >= beta {
                        return Ok(v);
                    }
                    alpha = v;
                }
            }
        }
        Ok(alpha.max(self.probe_wdl_table(pos)?))
    }

    /// The WDL of `pos` (-2 to 2) and whether the best move is a capture (2) or not known
    /// to be (1), as pyrrhic's `probe_wdl` and its `success`.
    pub(crate) fn probe_wdl<E: EngineAdapter>(&self, pos: &Pos) -> Result<(i32, i32), Fail> {
        let (mut best_cap, mut best_ep) = (-3, -3);
        for &m in pos.gen_captures::<E>().as_slice() {
            if !pos.is_capture(m) {
                continue;
            }
            let (after, legal) = pos.do_move::<E>(m);
            if !legal {
                continue;
            }
            let v = -self.probe_ab::<E>(&after, -2, -best_cap)?;
            if v > best_cap {
                if v == 2 {
                    return Ok((2, 2));
                }
                if !pos.is_en_passant(m) {
                    best_cap = v;
                } else if v > best_ep {
                    best_ep = v;
                }
            }
        }
        let v = self.probe_wdl_table(pos)?;
        if best_ep > best_cap {
            if best_ep > v {
                return Ok((best_ep, 2));
            }
            best_cap = best_ep;
        }
        if best_cap >= v {
            return Ok((best_cap, 1 + i32::from(best_cap > 0)));
        }
        if best_ep > -3 && v == 0 {
            // Only en passant holds the draw: unless another legal move exists or the side
            // to move is in check, it is stalemate without it.
            let other = pos
                .gen_moves::<E>()
                .as_slice()
                .iter()
                .any(|&m| !pos.is_en_passant(m) && pos.do_move::<E>(m).1);
            if !other && !pos.is_check::<E>() {
                return Ok((best_ep, 2));
            }
        }
        Ok((v, 1))
    }

    /// The DTZ of `pos` (pyrrhic's `probe_dtz`); `depth` counts the nested probes of
    /// positions whose DTZ table stores the other side (one in a valid table).
    pub(crate) fn probe_dtz<E: EngineAdapter>(&self, pos: &Pos, depth: u32) -> Result<i32, Fail> {
        if depth > 4 {
            return Err(Fail::Damaged);
        }
        let (wdl, success) = self.probe_wdl::<E>(pos)?;
        let zeroing = *WDL_TO_DTZ.get((wdl + 2) as usize).ok_or(Fail::Damaged)?;
        if wdl == 0 {
            return Ok(0);
        }
        if success == 2 {
            return Ok(zeroing);
        }
        let mut moves = Moves::new();
        if wdl > 0 {
            moves = pos.gen_legal::<E>();
            for &m in moves.as_slice() {
                if !pos.is_pawn_move(m) || pos.is_capture(m) {
                    continue;
                }
                let (after, legal) = pos.do_move::<E>(m);
                if legal && -self.probe_wdl::<E>(&after)?.0 == wdl {
                    return Ok(zeroing);
                }
            }
        }
        if let Some(dtz) = self.probe_table(pos, wdl, Kind::Dtz)? {
            return Ok(zeroing + if wdl > 0 { dtz } else { -dtz });
        }
        // The table stores the other side to move: the best of the moves.
        let mut best = if wdl > 0 { i32::MAX } else { zeroing };
        if wdl < 0 {
            moves = pos.gen_moves::<E>();
        }
        for &m in moves.as_slice() {
            if pos.is_capture(m) || pos.is_pawn_move(m) {
                continue;
            }
            let (after, legal) = pos.do_move::<E>(m);
            if !legal {
                continue;
            }
            let v = -self.probe_dtz::<E>(&after, depth + 1)?;
            if v == 1 && after.is_mate::<E>() {
                best = 1;
            } else if wdl > 0 {
                if v > 0 && v + 1 < best {
                    best = v + 1;
                }
            } else if v - 1 < best {
                best = v - 1;
            }
        }
        Ok(best)
    }

    /// Every legal move of `pos` with its result packed as pyrrhic packs it, and the move
    /// pyrrhic's `probe_root` picks (0xfffe: mated, 0xffff: stalemate, 0: none) with the
    /// root's DTZ.
    pub(crate) fn probe_root<E: EngineAdapter>(&self, pos: &Pos) -> Result<(Move, i32, Vec<u32>), Fail> {
        let dtz = self.probe_dtz::<E>(pos, 0)?;
        let moves = pos.gen_moves::<E>();
        let mut scores = Vec::with_capacity(moves.as_slice().len());
        let mut results = Vec::with_capacity(moves.as_slice().len());
        let mut num_draw = 0u64;
        for &m in moves.as_slice() {
            let (after, legal) = pos.do_move::<E>(m);
            if !legal {
                scores.push(None);
                continue;
            }
            let v = if dtz > 0 && after.is_mate::<E>() {
                1
            } else if after.rule50 != 0 {
                let v = -self.probe_dtz::<E>(&after, 0)?;
                v + v.signum()
            } else {
                let v = -self.probe_wdl::<E>(&after)?.0;
                *WDL_TO_DTZ.get((v + 2) as usize).ok_or(Fail::Damaged)?
            };
            num_draw += u64::from(v == 0);
            scores.push(Some(v));
            results.push(pack(pos, m, v, dtz_to_wdl(i32::from(pos.rule50), v)));
        }
        let moves = moves.as_slice();
        let best = if dtz > 0 {
            let best = scores
                .iter()
                .zip(moves)
                .filter_map(|(v, &m)| Some((v.filter(|&v| v > 0)?, m)))
                .min_by_key(|&(v, _)| v);
            best.map_or(0, |(_, m)| m)
        } else if dtz < 0 {
            let best = scores
                .iter()
                .zip(moves)
                .filter_map(|(v, &m)| Some((v.filter(|&v| v < 0)?, m)))
                .min_by_key(|&(v, _)| v);
            best.map_or(0xfffe, |(_, m)| m)
        } else if num_draw == 0 {
            0xffff
        } else {
            let pick = pos.key(!pos.turn) % num_draw;
            let mut draws = scores.iter().zip(moves).filter(|(v, _)| **v == Some(0));
            draws.nth(pick as usize).map_or(0, |(_, &m)| m)
        };
        Ok((best, dtz, results))
    }
}

/// The WDL (0 loss to 4 win) of a DTZ with the halfmove clock `cnt50`.
pub(crate) fn dtz_to_wdl(cnt50: i32, dtz: i32) -> u32 {
    let wdl = match dtz {
        d if d > 0 && d + cnt50 <= 100 => 2,
        d if d > 0 => 1,
        d if d < 0 && -d + cnt50 <= 100 => -2,
        d if d < 0 => -1,
        _ => 0,
    };
    (wdl + 2) as u32
}

/// A move's result as pyrrhic packs it: WDL (bits 0-3), to (4-9), from (10-15),
/// promotion (16-18), en passant (19), |DTZ| (20-31).
pub(crate) fn pack(pos: &Pos, m: Move, dtz: i32, wdl: u32) -> u32 {
    wdl & 0xf
        | move_to(m) << 4
        | move_from(m) << 10
        | move_promotes(m) << 16
        | u32::from(pos.is_en_passant(m)) << 19
        | (dtz.unsigned_abs() << 20) & 0xfff0_0000
}

/// Fills `p` from `i` on with the squares of the piece `pieces[i]` in `pos` (colours
/// swapped when `flip`, squares XORed with `mirror`); the next free slot.
fn fill_squares(
    pos: &Pos,
    pieces: &[u8; 7],
    flip: bool,
    mirror: u32,
    p: &mut [u32; 7],
    mut i: usize,
) -> Result<usize, Fail> {
    let code = *pieces.get(i).ok_or(Fail::Damaged)?;
    let white = (code >> 3 == 0) != flip;
    let bb = pos.pieces_by_type(white, code & 7).ok_or(Fail::Damaged)?;
    if bb == 0 {
        return Err(Fail::Missing);
    }
    for sq in squares(bb) {
        *p.get_mut(i).ok_or(Fail::Damaged)? = sq ^ mirror;
        i += 1;
    }
    Ok(i)
}

/// The value of `pos` in `table` (pyrrhic's `probe_table` past the lookup).
fn probe_file(
    table: &TableFile,
    material: &Material,
    pos: &Pos,
    key: u64,
    wdl: i32,
    kind: Kind,
) -> Result<Option<i32>, Fail> {
    let (flip, bside) = if material.symmetric {
        (!pos.turn, false)
    } else {
        let flip = key != material.key;
        (flip, pos.turn == flip)
    };
    let side = if kind == Kind::Wdl { usize::from(bside) } else { 0 };
    let n = material.num;
    let mut p = [0u32; 7];
    let mut flags = 0u8;
    let mut t = 0;
    let stores_other_side = |flags: u8| flags & 1 != u8::from(bside) && !material.symmetric;
    let (encoding, idx): (&Encoding, u64) = if !material.has_pawns {
        if kind == Kind::Dtz {
            flags = *table.dtz_flags.first().ok_or(Fail::Damaged)?;
            if stores_other_side(flags) {
                return Ok(None);
            }
        }
        let encoding = table.encodings[0][side].as_ref().ok_or(Fail::Damaged)?;
        let mut i = 0;
        while i < n {
            i = fill_squares(pos, &encoding.pieces, flip, 0, &mut p, i)?;
        }
        (
            encoding,
            encode_piece(&mut p, encoding, material).ok_or(Fail::Missing)?,
        )
    } else {
        let mirror = if flip { 0x38 } else { 0 };
        let first = table.encodings[0][0].as_ref().ok_or(Fail::Damaged)?;
        let mut i = fill_squares(pos, &first.pieces, flip, mirror, &mut p, 0)?;
        t = leading_pawn(&mut p, usize::from(material.pawns[0]));
        if kind == Kind::Dtz {
            flags = *table.dtz_flags.get(t).ok_or(Fail::Damaged)?;
            if stores_other_side(flags) {
                return Ok(None);
            }
        }
        let encoding = table
            .encodings
            .get(t)
            .and_then(|pair| pair[side].as_ref())
            .ok_or(Fail::Damaged)?;
        while i < n {
            i = fill_squares(pos, &encoding.pieces, flip, mirror, &mut p, i)?;
        }
        (
            encoding,
            encode_pawn(&mut p, encoding, material).ok_or(Fail::Missing)?,
        )
    };
    let w = table.value(encoding, idx)?;
    if kind == Kind::Wdl {
        return if w[0] <= 4 {
            Ok(Some(i32::from(w[0]) - 2))
        } else {
            Err(Fail::Damaged)
        };
    }
    let slot = usize::try_from(wdl + 2)
        .ok()
        .filter(|&s| s < 5)
        .ok_or(Fail::Damaged)?;
    let mut v = i32::from(w[0]) + (i32::from(w[1] & 0xf) << 8);
    if flags & 2 != 0 {
        let maps = table
            .dtz_maps
            .get(t)
            .and_then(Option::as_ref)
            .ok_or(Fail::Damaged)?;
        v = i32::from(*maps[WDL_TO_MAP[slot]].get(v as usize).ok_or(Fail::Damaged)?);
    }
    if flags & PA_FLAGS[slot] == 0 || wdl & 1 != 0 {
        v *= 2;
    }
    // Results carry |DTZ| in 12 bits; no valid table comes near (a 7-piece DTZ is at most
    // about 1,100), so a value that would overflow them, with the moves and the 101 of a
    // cursed result added, is damage.
    if v > MAX_TABLE_DTZ {
        return Err(Fail::Damaged);
    }
    Ok(Some(v))
}

/// Puts the leading pawn (the one the file encoding counts first) in `p[0]`; its file's
/// sub-table (0 to 3, a-d and the mirrored h-e).
fn leading_pawn(p: &mut [u32; 7], pawns: usize) -> usize {
    for i in 1..pawns.min(7) {
        if FLAP[p[0] as usize & 63] > FLAP[p[i] as usize & 63] {
            p.swap(0, i);
        }
    }
    usize::from(FILE_TO_FILE[p[0] as usize & 7])
}

/// The index of the pieces without pawns (pyrrhic's `encode` with `PIECE_ENC`); `None` for
/// squares no legal position has.
fn encode_piece(p: &mut [u32; 7], ei: &Encoding, material: &Material) -> Option<u64> {
    let n = material.num;
    if p[0] & 0x4 != 0 {
        p[..n].iter_mut().for_each(|sq| *sq ^= 0x7);
    }
    if p[0] & 0x20 != 0 {
        p[..n].iter_mut().for_each(|sq| *sq ^= 0x38);
    }
    let singles = if material.kk_enc { 2 } else { 3 };
    for i in 0..n {
        let off = *OFF_DIAG.get(p[i] as usize)?;
        if off != 0 {
            if off > 0 && i < singles {
                for sq in p[..n].iter_mut() {
                    *sq = u32::from(*FLIP_DIAG.get(*sq as usize)?);
                }
            }
            break;
        }
    }
    let sq = |i: usize| p[i] as usize;
    let mut idx: u64;
    let k;
    if material.kk_enc {
        idx = u64::try_from(*KK_IDX.get(usize::from(*TRIANGLE.get(sq(0))?))?.get(sq(1))?).ok()?;
        k = 2;
    } else {
        let (p0, p1, p2) = (p[0] as i64, p[1] as i64, p[2] as i64);
        let s1 = i64::from(p1 > p0);
        let s2 = i64::from(p2 > p0) + i64::from(p2 > p1);
        let diag = |s: usize| DIAG.get(s).map(|&d| i64::from(d));
        let lower = |s: usize| LOWER.get(s).map(|&d| i64::from(d));
        let off = |s: usize| OFF_DIAG.get(s).map(|&d| d != 0);
        let i = if off(sq(0))? {
            i64::from(*TRIANGLE.get(sq(0))?) * 63 * 62 + (p1 - s1) * 62 + (p2 - s2)
        } else if off(sq(1))? {
            6 * 63 * 62 + diag(sq(0))? * 28 * 62 + lower(sq(1))? * 62 + p2 - s2
        } else if off(sq(2))? {
            6 * 63 * 62 + 4 * 28 * 62 + diag(sq(0))? * 7 * 28 + (diag(sq(1))? - s1) * 28 + lower(sq(2))?
        } else {
            6 * 63 * 62
                + 4 * 28 * 62
                + 4 * 7 * 28
                + diag(sq(0))? * 7 * 6
                + (diag(sq(1))? - s1) * 6
                + (diag(sq(2))? - s2)
        };
        idx = u64::try_from(i).ok()?;
        k = 3;
    }
    idx = idx.wrapping_mul(ei.factor[0]);
    encode_groups(p, ei, n, k, idx)
}

/// The index of a position with pawns (pyrrhic's `encode` with `FILE_ENC`).
fn encode_pawn(p: &mut [u32; 7], ei: &Encoding, material: &Material) -> Option<u64> {
    let n = material.num;
    let binomial = &INDICES.binomial;
    if p[0] & 0x4 != 0 {
        p[..n].iter_mut().for_each(|sq| *sq ^= 0x7);
    }
    let lead = usize::from(material.pawns[0]);
    let twist = |sq: u32| PAWN_TWIST.get(sq as usize).copied();
    for i in 1..lead {
        for j in i + 1..lead {
            if twist(p[i])? < twist(p[j])? {
                p.swap(i, j);
            }
        }
    }
    let mut k = lead;
    let mut idx = *INDICES
        .pawn_idx
        .get(k.checked_sub(1)?)?
        .get(usize::from(*FLAP.get(p[0] as usize)?))?;
    for (i, &sq) in p.iter().enumerate().take(k).skip(1) {
        idx = idx.wrapping_add(*binomial.get(k - i)?.get(usize::from(twist(sq)?))?);
    }
    idx = idx.wrapping_mul(ei.factor[0]);
    if material.pawns[1] != 0 {
        let t = k + usize::from(material.pawns[1]);
        p.get_mut(k..t)?.sort_unstable();
        let mut s = 0u64;
        for i in k..t {
            let sq = p[i];
            let skips = p[..k].iter().filter(|&&q| sq > q).count() as u32;
            let row = (sq.checked_sub(skips)?).checked_sub(8)? as usize;
            s = s.wrapping_add(*binomial.get(i - k + 1)?.get(row)?);
        }
        idx = idx.wrapping_add(s.wrapping_mul(*ei.factor.get(k)?));
        k = t;
    }
    encode_groups(p, ei, n, k, idx)
}

/// Adds the groups of like pieces from `p[k]` on to `idx` (the common tail of pyrrhic's
/// `encode`); each group's squares are counted among those the earlier pieces leave.
fn encode_groups(p: &mut [u32; 7], ei: &Encoding, n: usize, mut k: usize, mut idx: u64) -> Option<u64> {
    let binomial = &INDICES.binomial;
    while k < n {
        let norm = usize::from(*ei.norm.get(k)?);
        if norm == 0 {
            return None;
        }
        let t = k + norm;
        p.get_mut(k..t)?.sort_unstable();
        let mut s = 0u64;
        for i in k..t {
            let sq = p[i];
            let skips = p[..k].iter().filter(|&&q| sq > q).count() as u32;
            s = s.wrapping_add(*binomial.get(i - k + 1)?.get(sq.checked_sub(skips)? as usize)?);
        }
        idx = idx.wrapping_add(s.wrapping_mul(*ei.factor.get(k)?));
        k = t;
    }
    Some(idx)
}

// The encoding tables of pyrrhic-rs 0.2.0 (from Fathom).
#[rustfmt::skip]
const OFF_DIAG: [i8; 64] = [
    0, -1, -1, -1, -1, -1, -1, -1,
    1,  0, -1, -1, -1, -1, -1, -1,
    1,  1,  0, -1, -1, -1, -1, -1,
    1,  1,  1,  0, -1, -1, -1, -1,
    1,  1,  1,  1,  0, -1, -1, -1,
    1,  1,  1,  1,  1,  0, -1, -1,
    1,  1,  1,  1,  1,  1,  0, -1,
    1,  1,  1,  1,  1,  1,  1,  0,
];

#[rustfmt::skip]
const TRIANGLE: [u8; 64] = [
    6, 0, 1, 2, 2, 1, 0, 6,
    0, 7, 3, 4, 4, 3, 7, 0,
    1, 3, 8, 5, 5, 8, 3, 1,
    2, 4, 5, 9, 9, 5, 4, 2,
    2, 4, 5, 9, 9, 5, 4, 2,
    1, 3, 8, 5, 5, 8, 3, 1,
    0, 7, 3, 4, 4, 3, 7, 0,
    6, 0, 1, 2, 2, 1, 0, 6,
];

#[rustfmt::skip]
const FLIP_DIAG: [u8; 64] = [
    0,  8, 16, 24, 32, 40, 48, 56,
    1,  9, 17, 25, 33, 41, 49, 57,
    2, 10, 18, 26, 34, 42, 50, 58,
    3, 11, 19, 27, 35, 43, 51, 59,
    4, 12, 20, 28, 36, 44, 52, 60,
    5, 13, 21, 29, 37, 45, 53, 61,
    6, 14, 22, 30, 38, 46, 54, 62,
    7, 15, 23, 31, 39, 47, 55, 63,
];

#[rustfmt::skip]
const LOWER: [u8; 64] = [
    28,  0,  1,  2,  3,  4,  5,  6,
     0, 29,  7,  8,  9, 10, 11, 12,
     1,  7, 30, 13, 14, 15, 16, 17,
     2,  8, 13, 31, 18, 19, 20, 21,
     3,  9, 14, 18, 32, 22, 23, 24,
     4, 10, 15, 19, 22, 33, 25, 26,
     5, 11, 16, 20, 23, 25, 34, 27,
     6, 12, 17, 21, 24, 26, 27, 35,
];

#[rustfmt::skip]
const DIAG: [u8; 64] = [
     0,  0,  0,  0,  0,  0,  0,  8,
     0,  1,  0,  0,  0,  0,  9,  0,
     0,  0,  2,  0,  0, 10,  0,  0,
     0,  0,  0,  3, 11,  0,  0,  0,
     0,  0,  0, 12,  4,  0,  0,  0,
     0,  0, 13,  0,  0,  5,  0,  0,
     0, 14,  0,  0,  0,  0,  6,  0,
    15,  0,  0,  0,  0,  0,  0,  7,
];

#[rustfmt::skip]
const FLAP: [u8; 64] = [
    0,  0,  0,  0,  0,  0,  0, 0,
    0,  6, 12, 18, 18, 12,  6, 0,
    1,  7, 13, 19, 19, 13,  7, 1,
    2,  8, 14, 20, 20, 14,  8, 2,
    3,  9, 15, 21, 21, 15,  9, 3,
    4, 10, 16, 22, 22, 16, 10, 4,
    5, 11, 17, 23, 23, 17, 11, 5,
    0,  0,  0,  0,  0,  0,  0, 0,
];

#[rustfmt::skip]
const KK_IDX: [[i16; 64]; 10] = [
    [
        -1, -1, -1,  0,  1,  2,  3,  4,
        -1, -1, -1,  5,  6,  7,  8,  9,
        10, 11, 12, 13, 14, 15, 16, 17,
        18, 19, 20, 21, 22, 23, 24, 25,
        26, 27, 28, 29, 30, 31, 32, 33,
        34, 35, 36, 37, 38, 39, 40, 41,
        42, 43, 44, 45, 46, 47, 48, 49,
        50, 51, 52, 53, 54, 55, 56, 57,
    ],
    [
         58,  -1,  -1,  -1,  59,  60,  61,  62,
         63,  -1,  -1,  -1,  64,  65,  66,  67,
         68,  69,  70,  71,  72,  73,  74,  75,
         76,  77,  78,  79,  80,  81,  82,  83,
         84,  85,  86,  87,  88,  89,  90,  91,
         92,  93,  94,  95,  96,  97,  98,  99,
        100, 101, 102, 103, 104, 105, 106, 107,
        108, 109, 110, 111, 112, 113, 114, 115,
    ],
    [
        116, 117,  -1,  -1,  -1, 118, 119, 120,
        121, 122,  -1,  -1,  -1, 123, 124, 125,
        126, 127, 128, 129, 130, 131, 132, 133,
        134, 135, 136, 137, 138, 139, 140, 141,
        142, 143, 144, 145, 146, 147, 148, 149,
        150, 151, 152, 153, 154, 155, 156, 157,
        158, 159, 160, 161, 162, 163, 164, 165,
        166, 167, 168, 169, 170, 171, 172, 173,
    ],
    [
        174,  -1,  -1,  -1, 175, 176, 177, 178,
        179,  -1,  -1,  -1, 180, 181, 182, 183,
        184,  -1,  -1,  -1, 185, 186, 187, 188,
        189, 190, 191, 192, 193, 194, 195, 196,
        197, 198, 199, 200, 201, 202, 203, 204,
        205, 206, 207, 208, 209, 210, 211, 212,
        213, 214, 215, 216, 217, 218, 219, 220,
        221, 222, 223, 224, 225, 226, 227, 228,
    ],
    [
        229, 230,  -1,  -1,  -1, 231, 232, 233,
        234, 235,  -1,  -1,  -1, 236, 237, 238,
        239, 240,  -1,  -1,  -1, 241, 242, 243,
        244, 245, 246, 247, 248, 249, 250, 251,
        252, 253, 254, 255, 256, 257, 258, 259,
        260, 261, 262, 263, 264, 265, 266, 267,
        268, 269, 270, 271, 272, 273, 274, 275,
        276, 277, 278, 279, 280, 281, 282, 283,
    ],
    [
        284, 285, 286, 287, 288, 289, 290, 291,
        292, 293,  -1,  -1,  -1, 294, 295, 296,
        297, 298,  -1,  -1,  -1, 299, 300, 301,
        302, 303,  -1,  -1,  -1, 304, 305, 306,
        307, 308, 309, 310, 311, 312, 313, 314,
        315, 316, 317, 318, 319, 320, 321, 322,
        323, 324, 325, 326, 327, 328, 329, 330,
        331, 332, 333, 334, 335, 336, 337, 338,
    ],
    [
         -1,  -1, 339, 340, 341, 342, 343, 344,
         -1,  -1, 345, 346, 347, 348, 349, 350,
         -1,  -1, 441, 351, 352, 353, 354, 355,
         -1,  -1,  -1, 442, 356, 357, 358, 359,
         -1,  -1,  -1,  -1, 443, 360, 361, 362,
         -1,  -1,  -1,  -1,  -1, 444, 363, 364,
         -1,  -1,  -1,  -1,  -1,  -1, 445, 365,
         -1,  -1,  -1,  -1,  -1,  -1,  -1, 446,
    ],
    [
         -1,  -1,  -1, 366, 367, 368, 369, 370,
         -1,  -1,  -1, 371, 372, 373, 374, 375,
         -1,  -1,  -1, 376, 377, 378, 379, 380,
         -1,  -1,  -1, 447, 381, 382, 383, 384,
         -1,  -1,  -1,  -1, 448, 385, 386, 387,
         -1,  -1,  -1,  -1,  -1, 449, 388, 389,
         -1,  -1,  -1,  -1,  -1,  -1, 450, 390,
         -1,  -1,  -1,  -1,  -1,  -1,  -1, 451,
    ],
    [
        452, 391, 392, 393, 394, 395, 396, 397,
         -1,  -1,  -1,  -1, 398, 399, 400, 401,
         -1,  -1,  -1,  -1, 402, 403, 404, 405,
         -1,  -1,  -1,  -1, 406, 407, 408, 409,
         -1,  -1,  -1,  -1, 453, 410, 411, 412,
         -1,  -1,  -1,  -1,  -1, 454, 413, 414,
         -1,  -1,  -1,  -1,  -1,  -1, 455, 415,
         -1,  -1,  -1,  -1,  -1,  -1,  -1, 456,
    ],
    [
        457, 416, 417, 418, 419, 420, 421, 422,
         -1, 458, 423, 424, 425, 426, 427, 428,
         -1,  -1,  -1,  -1,  -1, 429, 430, 431,
         -1,  -1,  -1,  -1,  -1, 432, 433, 434,
         -1,  -1,  -1,  -1,  -1, 435, 436, 437,
         -1,  -1,  -1,  -1,  -1, 459, 438, 439,
         -1,  -1,  -1,  -1,  -1,  -1, 460, 440,
         -1,  -1,  -1,  -1,  -1,  -1,  -1, 461,
    ],
];

const FILE_TO_FILE: [u8; 8] = [0, 1, 2, 3, 3, 2, 1, 0];
const WDL_TO_MAP: [usize; 5] = [1, 3, 0, 2, 0];
const PA_FLAGS: [u8; 5] = [8, 0, 0, 0, 4];
