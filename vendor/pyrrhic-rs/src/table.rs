//! One Syzygy table file (WDL `.rtbw` or DTZ `.rtbz`): its structure checked when it is
//! loaded, and its values read with bounds-checked slice access when it is probed.
//!
//! A Syzygy file carries no checksum that a prober could afford to verify, so a damaged
//! file is caught by its structure: at load, the magic number, the file size (64 n + 16
//! bytes), each sub-table's piece encoding (the ending's pieces, each kind in one run, an
//! encoding order that names a group), the Huffman header (code lengths 1 to 32, at most
//! 4,095 symbols, every symbol's children inside the table and no symbol its own
//! descendant, WDL values 0 to 4), the DTZ value maps, and the sizes of the index, block
//! size and data tables, which must end where the file does. At probe, every index, block
//! and map lookup is checked against its table; a lookup that falls outside is
//! [`Damaged`], never a read outside the file. (Where the changed bytes still describe a
//! valid table, a probe can read a wrong value: nothing short of a checksum of the whole
//! file catches that.)
//!
//! The layout is pyrrhic-rs 0.2.0's `init_table`, `setup_pairs`, `init_enc_info`,
//! `calc_symLen` and `decompress_pairs`, rewritten over a byte slice.

use memmap2::Mmap;
use std::fs::File;
use std::path::Path;

/// A WDL or a DTZ table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Wdl,
    Dtz,
}

impl Kind {
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Kind::Wdl => ".rtbw",
            Kind::Dtz => ".rtbz",
        }
    }

    fn magic(self) -> u32 {
        match self {
            Kind::Wdl => 0x5d23e871,
            Kind::Dtz => 0xa50c66d7,
        }
    }
}

/// A probe met bytes that no valid table holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Damaged;

/// Piece codes as the tables store them: 1-6 pawn to king of the table's first side
/// ("white", the side named first), 9-14 of the second.
const PAWN: u8 = 1;
const KING: u8 = 6;
const SECOND_SIDE: u8 = 8;

/// Random 64-bit keys per piece code (pyrrhic's `PYRRHIC_PRIME_*`; kings count nothing):
/// a material key is the sum of its pieces' keys.
pub(crate) const PIECE_KEYS: [u64; 16] = [
    0,
    17008651141875982339, // white pawn
    15202887380319082783, // white knight
    12311744257139811149, // white bishop
    10979190538029446137, // white rook
    11811845319353239651, // white queen
    0,
    0,
    0,
    11695583624105689831, // black pawn
    13469005675588064321, // black knight
    15394650811035483107, // black bishop
    18264461213049635989, // black rook
    15484752644942473553, // black queen
    0,
    0,
];

/// An ending as a table file names it (`KQvKR`): the counts of each piece code.
#[derive(Clone, Debug)]
pub(crate) struct Material {
    /// The name, as in the file name (`KQvKR`).
    pub(crate) name: String,
    /// Pieces of each code.
    pub(crate) counts: [u8; 16],
    /// Pieces in all, kings included (3 to 7).
    pub(crate) num: usize,
    /// The material key with the named sides as white and black, and mirrored.
    pub(crate) key: u64,
    pub(crate) mirrored_key: u64,
    /// Both sides have the same pieces.
    pub(crate) symmetric: bool,
    pub(crate) has_pawns: bool,
    /// Without pawns: only the two kings are single pieces (the kings are encoded
    /// together, 462 ways).
    pub(crate) kk_enc: bool,
    /// With pawns: the leading side's pawns (the side with fewer pawns, the first side
    /// when equal) and the other side's.
    pub(crate) pawns: [u8; 2],
}

impl Material {
    /// The ending of a table name (`KQvKR`), or `None` when it is not one: a king on each
    /// side, queens, rooks, bishops, knights and pawns after it, 3 to 7 pieces in all.
    pub(crate) fn from_name(name: &str) -> Option<Material> {
        let (first, second) = name.split_once('v')?;
        let mut counts = [0u8; 16];
        for (side, color) in [(first, 0), (second, SECOND_SIDE)] {
            let rest = side.strip_prefix('K')?;
            counts[(KING | color) as usize] += 1;
            for c in rest.chars() {
                let code = match c {
                    'P' => 1,
                    'N' => 2,
                    'B' => 3,
                    'R' => 4,
                    'Q' => 5,
                    _ => return None,
                };
                counts[(code | color) as usize] += 1;
            }
        }
        let num: usize = counts.iter().map(|&c| usize::from(c)).sum();
        if !(3..=7).contains(&num) {
            return None;
        }
        let key_of = |mirror: u8| {
            (0..16).fold(0u64, |key, code| {
                key.wrapping_add(u64::from(counts[code ^ usize::from(mirror)]).wrapping_mul(PIECE_KEYS[code]))
            })
        };
        let (key, mirrored_key) = (key_of(0), key_of(SECOND_SIDE));
        let (white_pawns, black_pawns) = (counts[PAWN as usize], counts[(PAWN | SECOND_SIDE) as usize]);
        let has_pawns = white_pawns + black_pawns > 0;
        let mut pawns = [white_pawns, black_pawns];
        if black_pawns > 0 && (white_pawns == 0 || white_pawns > black_pawns) {
            pawns.swap(0, 1);
        }
        Some(Material {
            name: name.to_string(),
            counts,
            num,
            key,
            mirrored_key,
            symmetric: key == mirrored_key,
            has_pawns,
            kk_enc: !has_pawns && counts.iter().filter(|&&c| c == 1).count() == 2,
            pawns,
        })
    }
}

/// Binomial coefficients and the pawn index tables of the file encoding (pyrrhic's
/// `init_indices`; the rank encoding is only DTM's, which this prober does not read).
pub(crate) struct Indices {
    pub(crate) binomial: [[u64; 64]; 7],
    pub(crate) pawn_idx: [[u64; 24]; 6],
    pub(crate) pawn_factor_file: [[u64; 4]; 6],
}

pub(crate) static INDICES: Indices = indices();

/// The order in which the file encoding counts the leading pawn's squares.
#[rustfmt::skip]
pub(crate) const PAWN_TWIST: [u8; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    47, 35, 23, 11, 10, 22, 34, 46,
    45, 33, 21,  9,  8, 20, 32, 44,
    43, 31, 19,  7,  6, 18, 30, 42,
    41, 29, 17,  5,  4, 16, 28, 40,
    39, 27, 15,  3,  2, 14, 26, 38,
    37, 25, 13,  1,  0, 12, 24, 36,
     0,  0,  0,  0,  0,  0,  0,  0,
];

const fn indices() -> Indices {
    let mut binomial = [[0u64; 64]; 7];
    let mut i = 0;
    while i < 7 {
        let mut j = 0;
        while j < 64 {
            // C(j, i), 0 when j < i (a factor j - j).
            let (mut f, mut l) = (1i64, 1i64);
            let mut k = 0;
            while k < i {
                f *= j as i64 - k as i64;
                l *= (k + 1) as i64;
                k += 1;
            }
            binomial[i][j] = (f / l) as u64;
            j += 1;
        }
        i += 1;
    }
    let mut pawn_idx = [[0u64; 24]; 6];
    let mut pawn_factor_file = [[0u64; 4]; 6];
    let mut i = 0;
    while i < 6 {
        let mut s = 0u64;
        let mut j = 0;
        while j < 24 {
            pawn_idx[i][j] = s;
            s += binomial[i][PAWN_TWIST[(1 + j % 6) * 8 + j / 6] as usize];
            if (j + 1) % 6 == 0 {
                pawn_factor_file[i][j / 6] = s;
                s = 0;
            }
            j += 1;
        }
        i += 1;
    }
    Indices {
        binomial,
        pawn_idx,
        pawn_factor_file,
    }
}

/// How one sub-table maps a position to an index: the pieces in the order they are
/// encoded, their groups (`norm`: a group's size at its first piece) and each group's
/// factor; `size` is the number of indices.
#[derive(Clone, Debug)]
pub(crate) struct Encoding {
    pub(crate) pieces: [u8; 7],
    pub(crate) norm: [u8; 7],
    pub(crate) factor: [u64; 7],
    pub(crate) size: u64,
    pub(crate) values: Values,
}

/// The values of a sub-table: one value for every position, or Huffman-coded blocks.
#[derive(Clone, Debug)]
pub(crate) enum Values {
    Constant([u8; 2]),
    Huffman(Box<Huffman>),
}

/// A symbol of a Huffman table as its 3-byte pattern gives it: a leaf (`right` is
/// [`LEAF`]) stands for one value, `value`; any other symbol for the values of `left` then
/// `right`, `len + 1` values in all.
#[derive(Clone, Copy, Debug)]
struct Symbol {
    len: u8,
    left: u16,
    right: u16,
    value: [u8; 2],
}

/// Marks a leaf symbol in a table's symbol patterns.
const LEAF: u16 = 0xfff;

/// A Huffman-coded sub-table: its code (canonical, lengths `min_len..`), its symbols, and
/// where its index, block size and data tables are in the file.
#[derive(Clone, Debug)]
pub(crate) struct Huffman {
    block_size: u32,
    idx_bits: u32,
    min_len: u32,
    /// Blocks in the block size table, and blocks of data (the first `data_blocks`).
    size_blocks: u64,
    data_blocks: u64,
    /// Per code length from `min_len`: the first symbol, and the lowest code (left-aligned).
    offsets: Vec<u16>,
    base: Vec<u64>,
    /// Per symbol, the number of values it stands for less one (0: a leaf), and where the
    /// symbols' 3-byte patterns are in the file.
    sym_len: Vec<u8>,
    sym_pat: usize,
    index_table: usize,
    size_table: usize,
    data: usize,
    /// Sizes of the index, block size and data tables, in bytes.
    sizes: [u64; 3],
}

/// A loaded table file.
#[derive(Debug)]
pub(crate) struct TableFile {
    bytes: Bytes,
    /// Per sub-table (one without pawns; four with, by the leading pawn's file), the
    /// encoding with white to move and with black to move (`None`: not stored).
    pub(crate) encodings: Vec<[Option<Encoding>; 2]>,
    /// DTZ only, per sub-table: its flags (bit 0: the side to move it stores; bit 1: values
    /// mapped; bit 4: 16-bit maps; bits 2-3: which values are exact) and its four maps.
    pub(crate) dtz_flags: Vec<u8>,
    pub(crate) dtz_maps: Vec<Option<[Vec<u16>; 4]>>,
}

/// A table's bytes: mapped from its file, or held (tests).
#[derive(Debug)]
enum Bytes {
    Mapped(Mmap),
    #[allow(dead_code)] // only unit tests build tables from memory
    Held(Vec<u8>),
}

impl Bytes {
    fn get(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Held(bytes) => bytes,
        }
    }
}

impl TableFile {
    /// Maps and checks the table `path` of `material`. Errors: the file cannot be read, or
    /// its structure is not a valid table's (the reason, for a message).
    #[allow(unsafe_code)]
    pub(crate) fn open(path: &Path, material: &Material, kind: Kind) -> Result<TableFile, String> {
        let file = File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
        let len = file.metadata().map_err(|e| format!("cannot read it: {e}"))?.len();
        if len % 64 != 16 {
            return Err(format!("{len} bytes, not 64 n + 16 as every table"));
        }
        // SAFETY: a read-only private mapping; every read of it is bounds-checked against
        // its length. (Like every reader of a mapped file, this one assumes the file is not
        // truncated or rewritten on disk while it is mapped.)
        let map = unsafe { Mmap::map(&file) }.map_err(|e| format!("cannot map it: {e}"))?;
        TableFile::parse(Bytes::Mapped(map), material, kind)
    }

    /// A table from bytes in memory (tests).
    #[cfg(test)]
    pub(crate) fn from_bytes(bytes: Vec<u8>, material: &Material, kind: Kind) -> Result<TableFile, String> {
        TableFile::parse(Bytes::Held(bytes), material, kind)
    }

    fn parse(bytes: Bytes, material: &Material, kind: Kind) -> Result<TableFile, String> {
        let buf = bytes.get();
        let len = buf.len();
        if len % 64 != 16 {
            return Err(format!("{len} bytes, not 64 n + 16 as every table"));
        }
        let magic = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]);
        if magic != kind.magic() {
            return Err(format!("magic number {magic:#010x}, not {:#010x}", kind.magic()));
        }
        let split = kind == Kind::Wdl && buf[4] & 1 != 0;
        if kind == Kind::Wdl && !split && !material.symmetric {
            return Err("one side to move only, in the WDL table of an asymmetric ending".into());
        }
        let sides = if split { 2 } else { 1 };
        let tables = if material.has_pawns { 4 } else { 1 };
        let more_pawns = material.has_pawns && material.pawns[1] > 0;
        let per_table = material.num + 1 + usize::from(more_pawns);

        let mut r = Reader { buf, pos: 5 };
        let mut encodings: Vec<[Option<Encoding>; 2]> = Vec::with_capacity(tables);
        for t in 0..tables {
            let header = r.take(per_table, "piece encoding")?;
            let mut pair = [None, None];
            for (side, slot) in pair.iter_mut().enumerate().take(sides) {
                *slot = Some(encoding(header, material, 4 * side as u32, t)?);
            }
            encodings.push(pair);
        }
        if material.has_pawns {
            // Every sub-table leads with the same pawns: the probe reads them before it
            // knows which sub-table it needs.
            let lead = |e: &Encoding| e.pieces[..usize::from(material.pawns[0])].to_vec();
            let first = encodings[0][0].as_ref().map(lead);
            if encodings
                .iter()
                .flatten()
                .flatten()
                .any(|e| Some(lead(e)) != first)
            {
                return Err("sub-tables lead with different pawns".into());
            }
        }
        r.align(2);

        let mut dtz_flags = Vec::new();
        for pair in encodings.iter_mut() {
            for encoding in pair.iter_mut().flatten() {
                let (values, flags) = values(&mut r, encoding.size, kind)?;
                encoding.values = values;
                if kind == Kind::Dtz {
                    dtz_flags.push(flags);
                }
            }
        }

        let mut dtz_maps = Vec::new();
        if kind == Kind::Dtz {
            for &flags in &dtz_flags {
                if flags & 2 == 0 {
                    dtz_maps.push(None);
                    continue;
                }
                let mut maps: [Vec<u16>; 4] = Default::default();
                if flags & 16 == 0 {
                    for map in maps.iter_mut() {
                        let n = usize::from(r.take(1, "DTZ map")?[0]);
                        *map = r.take(n, "DTZ map")?.iter().map(|&b| u16::from(b)).collect();
                    }
                } else {
                    r.align(2);
                    for map in maps.iter_mut() {
                        let n = r.take(2, "DTZ map")?;
                        let n = usize::from(u16::from_le_bytes([n[0], n[1]]));
                        *map = r
                            .take(2 * n, "DTZ map")?
                            .chunks_exact(2)
                            .map(|w| u16::from_le_bytes([w[0], w[1]]))
                            .collect();
                    }
                }
                dtz_maps.push(Some(maps));
            }
            r.align(2);
        }

        // The index tables, then the block size tables, then the data (each sub-table's
        // aligned to 64 bytes), in the order of the sub-tables.
        for part in 0..3 {
            for encoding in encodings.iter_mut().flatten().flatten() {
                let Values::Huffman(h) = &mut encoding.values else {
                    if part == 2 {
                        r.align(64);
                    }
                    continue;
                };
                if part == 2 {
                    r.align(64);
                }
                let at = r.pos;
                r.skip(h.sizes[part], ["index table", "block size table", "data"][part])?;
                match part {
                    0 => h.index_table = at,
                    1 => h.size_table = at,
                    _ => h.data = at,
                }
            }
        }
        let end = r.pos;
        if end.div_ceil(64) * 64 + 16 != len {
            return Err(format!(
                "its tables end at byte {end}, but the file has {len} bytes"
            ));
        }
        Ok(TableFile {
            bytes,
            encodings,
            dtz_flags,
            dtz_maps,
        })
    }

    /// The value at `idx` of `encoding` (one of this file's): the two bytes of its symbol.
    pub(crate) fn value(&self, encoding: &Encoding, idx: u64) -> Result<[u8; 2], Damaged> {
        if idx >= encoding.size {
            return Err(Damaged);
        }
        match &encoding.values {
            Values::Constant(value) => Ok(*value),
            Values::Huffman(h) => h.decode(self.bytes.get(), idx),
        }
    }
}

/// A cursor over a table's bytes; reading past the end is an error naming what was read.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&end| end <= self.buf.len());
        let Some(end) = end else {
            return Err(format!(
                "its {what} at byte {} runs past the end of the file",
                self.pos
            ));
        };
        let bytes = &self.buf[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    fn skip(&mut self, n: u64, what: &str) -> Result<(), String> {
        let n = usize::try_from(n).map_err(|_| format!("its {what} is too large ({n} bytes)"))?;
        self.take(n, what).map(|_| ())
    }

    /// Moves to the next multiple of `n` (a power of two; the file is mapped at a page).
    fn align(&mut self, n: usize) {
        self.pos = self.pos.saturating_add(n - 1) & !(n - 1);
    }
}

/// `C(n, k)`-like count of the ways to place `k` like pieces on `n` squares.
fn subfactor(k: u64, n: u64) -> u64 {
    let (mut f, mut l) = (n, 1u64);
    for i in 1..k {
        f = f.wrapping_mul(n.wrapping_sub(i));
        l = l.wrapping_mul(i + 1);
    }
    f / l.max(1)
}

/// Sub-table `t`'s encoding for one side to move (`shift` 0 or 4: the low or the high
/// nibbles of `header`), with its factors and index count (pyrrhic's `init_enc_info`).
fn encoding(header: &[u8], material: &Material, shift: u32, t: usize) -> Result<Encoding, String> {
    let n = material.num;
    let more_pawns = material.has_pawns && material.pawns[1] > 0;
    let mut pieces = [0u8; 7];
    for (i, piece) in pieces.iter_mut().enumerate().take(n) {
        *piece = (header[i + 1 + usize::from(more_pawns)] >> shift) & 0xf;
    }
    check_pieces(&pieces[..n], material)?;
    let order = usize::from((header[0] >> shift) & 0xf);
    let order2 = if more_pawns {
        usize::from((header[1] >> shift) & 0xf)
    } else {
        0xf
    };
    let mut norm = [0u8; 7];
    norm[0] = if material.has_pawns {
        material.pawns[0]
    } else if material.kk_enc {
        2
    } else {
        3
    };
    let mut k = usize::from(norm[0]);
    if more_pawns {
        norm[k] = material.pawns[1];
        k += usize::from(norm[k]);
    }
    let mut i = k;
    while i < n {
        let mut j = i;
        while j < n && pieces[j] == pieces[i] {
            norm[i] += 1;
            j += 1;
        }
        i += usize::from(norm[i]);
    }
    let overflow = || "its index count overflows".to_string();
    let mut free = 64 - k as u64;
    let mut f: u64 = 1;
    let mut factor = [0u64; 7];
    let (mut seen_order, mut seen_order2) = (false, !more_pawns);
    let mut i = 0;
    while k < n || i == order || i == order2 {
        if i == order {
            factor[0] = f;
            let ways = if material.has_pawns {
                INDICES.pawn_factor_file[usize::from(norm[0]) - 1][t]
            } else if material.kk_enc {
                462
            } else {
                31332
            };
            f = f.checked_mul(ways).ok_or_else(overflow)?;
            seen_order = true;
        } else if i == order2 {
            let n0 = usize::from(norm[0]);
            factor[n0] = f;
            f = f
                .checked_mul(subfactor(u64::from(norm[n0]), 48 - n0 as u64))
                .ok_or_else(overflow)?;
            seen_order2 = true;
        } else {
            factor[k] = f;
            f = f
                .checked_mul(subfactor(u64::from(norm[k]), free))
                .ok_or_else(overflow)?;
            free -= u64::from(norm[k]);
            k += usize::from(norm[k]);
        }
        i += 1;
    }
    if !seen_order || !seen_order2 {
        return Err(format!(
            "its encoding order ({order}, {order2}) names no group of pieces"
        ));
    }
    Ok(Encoding {
        pieces,
        norm,
        factor,
        size: f,
        values: Values::Constant([0, 0]),
    })
}

/// Checks that `pieces` (a sub-table's encoding order) are the ending's: each kind once in
/// a run as long as the ending has of it; without pawns the first two or three (the kings,
/// or three single pieces) single; with pawns the leading side's pawns first, then the
/// other side's.
fn check_pieces(pieces: &[u8], material: &Material) -> Result<(), String> {
    let wrong = || format!("its piece list {pieces:?} is not {}'s", material.name);
    let mut seen = [false; 16];
    let mut i = 0;
    let mut runs = Vec::new();
    while i < pieces.len() {
        let code = pieces[i];
        let count = usize::from(material.counts[usize::from(code)]);
        if count == 0
            || seen[usize::from(code)]
            || pieces
                .get(i..i + count)
                .is_none_or(|run| run.iter().any(|&p| p != code))
        {
            return Err(wrong());
        }
        seen[usize::from(code)] = true;
        runs.push(code);
        i += count;
    }
    if material.has_pawns {
        let pawn = |code: u8| code & 7 == PAWN;
        let leading = material.pawns[0];
        if !pawn(runs[0]) || material.counts[usize::from(runs[0])] != leading {
            return Err(wrong());
        }
        if material.pawns[1] > 0 && (runs.len() < 2 || !pawn(runs[1])) {
            return Err(wrong());
        }
    } else {
        let singles = if material.kk_enc { 2 } else { 3 };
        if pieces.len() < singles
            || runs[..singles]
                .iter()
                .any(|&c| material.counts[usize::from(c)] != 1)
        {
            return Err(wrong());
        }
    }
    Ok(())
}

/// Reads one sub-table's value header (pyrrhic's `setup_pairs`): a constant, or a
/// Huffman code with its symbols. Returns the values and the header's flags byte.
fn values(r: &mut Reader, size: u64, kind: Kind) -> Result<(Values, u8), String> {
    let at = r.pos;
    let flags = r.take(1, "value header")?[0];
    if flags & 0x80 != 0 {
        let value = r.take(1, "value header")?[0];
        let value = if kind == Kind::Wdl { value } else { 0 };
        if value > 4 {
            return Err(format!("its constant WDL value is {value} (0 to 4)"));
        }
        return Ok((Values::Constant([value, 0]), flags));
    }
    let head = r.take(9, "value header")?;
    let (block_size, idx_bits, extra_blocks) = (u32::from(head[0]), u32::from(head[1]), u64::from(head[2]));
    let data_blocks = u64::from(u32::from_le_bytes([head[3], head[4], head[5], head[6]]));
    let (max_len, min_len) = (u32::from(head[7]), u32::from(head[8]));
    let bad = |what: String| format!("the value header at byte {at}: {what}");
    if min_len == 0 || min_len > max_len || max_len > 32 {
        return Err(bad(format!("code lengths {min_len} to {max_len} (1 to 32)")));
    }
    if idx_bits == 0 || idx_bits > 32 || block_size > 32 {
        return Err(bad(format!(
            "{idx_bits} index bits (1 to 32), blocks of 2^{block_size} bytes (at most 2^32)"
        )));
    }
    let lengths = (max_len - min_len + 1) as usize;
    let offsets: Vec<u16> = r
        .take(2 * lengths, "code table")?
        .chunks_exact(2)
        .map(|w| u16::from_le_bytes([w[0], w[1]]))
        .collect();
    let count = r.take(2, "code table")?;
    let count = usize::from(u16::from_le_bytes([count[0], count[1]]));
    if count == 0 || count > 4095 {
        return Err(bad(format!("{count} symbols (1 to 4,095)")));
    }
    let sym_pat = r.pos;
    let patterns = r.take(3 * count, "symbol table")?;
    r.take(count & 1, "symbol table")?;
    let sym_len = symbol_lengths(patterns, kind).map_err(bad)?;

    // The lowest code of each length, left-aligned in 64 bits.
    let mut base = vec![0u64; lengths];
    for i in (0..lengths - 1).rev() {
        base[i] = base[i + 1]
            .wrapping_add(u64::from(offsets[i]))
            .wrapping_sub(u64::from(offsets[i + 1]))
            / 2;
    }
    for (i, b) in base.iter_mut().enumerate() {
        *b <<= 64 - (min_len + i as u32);
    }
    // A canonical code: the lowest code of each length no higher than the shorter
    // lengths', and the codes of each length standing for a run of symbols, the runs
    // together the symbols from 0 on (every 64-bit pattern decodes to a symbol of the
    // table). Every one of the 169 Huffman tables of the 3-4 piece set is so.
    let mut runs: Vec<(u64, u64)> = Vec::with_capacity(lengths);
    for i in 0..lengths {
        let upper = if i == 0 {
            1u128 << 64
        } else {
            u128::from(base[i - 1])
        };
        if upper < u128::from(base[i]) {
            return Err(bad("its code table is not a canonical Huffman code".into()));
        }
        let codes = ((upper - u128::from(base[i])) >> (64 - (min_len + i as u32))) as u64;
        if codes > 0 {
            runs.push((u64::from(offsets[i]), u64::from(offsets[i]) + codes));
        }
    }
    runs.sort_unstable();
    let mut next = 0;
    for (first, end) in runs {
        if first != next {
            return Err(bad(
                "its code table does not number the symbols from 0 in one run".into(),
            ));
        }
        next = end;
    }
    if next > count as u64 {
        return Err(bad(format!(
            "its codes stand for {next} symbols, the table has {count}"
        )));
    }

    let num_indices = size.div_ceil(1u64 << idx_bits);
    let size_blocks = data_blocks + extra_blocks;
    let sizes = [
        num_indices.checked_mul(6),
        Some(size_blocks * 2),
        data_blocks.checked_mul(1u64 << block_size),
    ];
    let [Some(index_bytes), Some(size_bytes), Some(data_bytes)] = sizes else {
        return Err(bad("its table sizes overflow".into()));
    };
    Ok((
        Values::Huffman(Box::new(Huffman {
            block_size,
            idx_bits,
            min_len,
            size_blocks,
            data_blocks,
            offsets,
            base,
            sym_len,
            sym_pat,
            index_table: 0,
            size_table: 0,
            data: 0,
            sizes: [index_bytes, size_bytes, data_bytes],
        })),
        flags,
    ))
}

/// The number of values less one each symbol of `patterns` (3 bytes each) stands for
/// (pyrrhic's `calc_symLen`, without recursion): every child must be a symbol of the
/// table and no symbol its own descendant; WDL leaves must be values 0 to 4.
fn symbol_lengths(patterns: &[u8], kind: Kind) -> Result<Vec<u8>, String> {
    let count = patterns.len() / 3;
    let mut symbols: Vec<Symbol> = patterns
        .chunks_exact(3)
        .map(|w| Symbol {
            len: 0,
            left: u16::from(w[1] & 0xf) << 8 | u16::from(w[0]),
            right: u16::from(w[2]) << 4 | u16::from(w[1] >> 4),
            value: [w[0], w[1]],
        })
        .collect();
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; count];
    let mut stack: Vec<(usize, bool)> = Vec::new();
    for root in 0..count {
        stack.push((root, false));
        while let Some((s, children_done)) = stack.pop() {
            let sym = symbols[s];
            if sym.right == LEAF {
                if kind == Kind::Wdl && sym.value[0] > 4 {
                    return Err(format!("symbol {s} is the WDL value {} (0 to 4)", sym.value[0]));
                }
                state[s] = DONE;
                continue;
            }
            let (left, right) = (usize::from(sym.left), usize::from(sym.right));
            if left >= count || right >= count {
                return Err(format!(
                    "symbol {s} refers to symbol {} of {count}",
                    left.max(right)
                ));
            }
            if children_done {
                let len = u32::from(symbols[left].len) + u32::from(symbols[right].len) + 1;
                symbols[s].len =
                    u8::try_from(len).map_err(|_| format!("symbol {s} stands for over 256 values"))?;
                state[s] = DONE;
            } else if state[s] == NEW {
                state[s] = OPEN;
                stack.push((s, true));
                for child in [left, right] {
                    match state[child] {
                        NEW => stack.push((child, false)),
                        OPEN => return Err(format!("symbol {s} is its own descendant")),
                        _ => {}
                    }
                }
            }
        }
    }
    Ok(symbols.iter().map(|s| s.len).collect())
}

/// `n` bytes of `buf` at `at`, or [`Damaged`] past its end.
fn bytes_at<const N: usize>(buf: &[u8], at: usize) -> Result<[u8; N], Damaged> {
    let end = at.checked_add(N).ok_or(Damaged)?;
    buf.get(at..end).and_then(|b| b.try_into().ok()).ok_or(Damaged)
}

impl Huffman {
    /// The value at `idx` (below the sub-table's index count): the index table gives a
    /// block and an offset, the block size table the block that holds it, and the block's
    /// Huffman code its symbol (pyrrhic's `decompress_pairs`, every read checked).
    fn decode(&self, buf: &[u8], idx: u64) -> Result<[u8; 2], Damaged> {
        let main = usize::try_from(idx >> self.idx_bits).map_err(|_| Damaged)?;
        let mut lit = (idx & ((1u64 << self.idx_bits) - 1)) as i64 - (1i64 << (self.idx_bits - 1));
        let entry: [u8; 6] = bytes_at(buf, main.checked_mul(6).ok_or(Damaged)? + self.index_table)?;
        let mut block = u64::from(u32::from_le_bytes([entry[0], entry[1], entry[2], entry[3]]));
        lit += i64::from(u16::from_le_bytes([entry[4], entry[5]]));
        let block_len = |block: u64| -> Result<i64, Damaged> {
            if block >= self.size_blocks {
                return Err(Damaged);
            }
            let w: [u8; 2] = bytes_at(buf, self.size_table + 2 * block as usize)?;
            Ok(i64::from(u16::from_le_bytes(w)))
        };
        if lit < 0 {
            while lit < 0 {
                block = block.checked_sub(1).ok_or(Damaged)?;
                lit += block_len(block)? + 1;
            }
        } else {
            loop {
                let len = block_len(block)?;
                if lit <= len {
                    break;
                }
                lit -= len + 1;
                block += 1;
            }
        }
        if block >= self.data_blocks {
            return Err(Damaged);
        }
        let mut at = self.data + (block << self.block_size) as usize;
        let mut code = u64::from_be_bytes(bytes_at(buf, at)?);
        at += 8;
        let mut bits = 0u32;
        let mut sym = loop {
            let mut l = 0;
            while code < *self.base.get(l).ok_or(Damaged)? {
                l += 1;
            }
            let len = self.min_len + l as u32;
            let sym = usize::from(self.offsets[l]) + ((code - self.base[l]) >> (64 - len)) as usize;
            let width = i64::from(*self.sym_len.get(sym).ok_or(Damaged)?) + 1;
            if lit < width {
                break sym;
            }
            lit -= width;
            code <<= len;
            bits += len;
            if bits >= 32 {
                bits -= 32;
                code |= u64::from(u32::from_be_bytes(bytes_at(buf, at)?)) << bits;
                at += 4;
            }
        };
        // Down the symbol's tree to the value: checked acyclic at load, so at most 256
        // steps (each child stands for fewer values).
        for _ in 0..=256 {
            let len = *self.sym_len.get(sym).ok_or(Damaged)?;
            let w: [u8; 3] = bytes_at(buf, self.sym_pat + 3 * sym)?;
            if len == 0 {
                return Ok([w[0], w[1]]);
            }
            let left = usize::from(w[1] & 0xf) << 8 | usize::from(w[0]);
            let width = i64::from(*self.sym_len.get(left).ok_or(Damaged)?) + 1;
            if lit < width {
                sym = left;
            } else {
                lit -= width;
                sym = usize::from(w[2]) << 4 | usize::from(w[1] >> 4);
            }
        }
        Err(Damaged)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_give_the_endings_material() {
        let krvk = Material::from_name("KRvK").unwrap();
        assert_eq!(
            (krvk.num, krvk.has_pawns, krvk.symmetric, krvk.kk_enc),
            (3, false, false, false)
        );
        let kqqvk = Material::from_name("KQQvK").unwrap();
        assert!(kqqvk.kk_enc);
        let kpvkp = Material::from_name("KPvKP").unwrap();
        assert!(kpvkp.symmetric && kpvkp.has_pawns && kpvkp.pawns == [1, 1]);
        let kvkpp = Material::from_name("KPPvKP").unwrap();
        assert_eq!(kvkpp.pawns, [1, 2]);
        for bad in ["KvK", "QvK", "KXvK", "KQvQ", "KQRBNPPvK", "KQ"] {
            assert!(Material::from_name(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_cycle_of_symbols_is_refused_not_followed() {
        // Symbol 0 = (1, 1), symbol 1 = (0, 0).
        let patterns = [1, 0x10, 0, 0, 0, 0];
        assert!(symbol_lengths(&patterns, Kind::Dtz)
            .unwrap_err()
            .contains("its own descendant"));
        // Symbol 0 a leaf, symbol 1 = (0, 0): two values.
        let patterns = [2, 0xf0, 0xff, 0, 0, 0];
        assert_eq!(symbol_lengths(&patterns, Kind::Wdl).unwrap(), [0, 1]);
        // A child beyond the table.
        let patterns = [2, 0xf0, 0xff, 5, 0, 0];
        assert!(symbol_lengths(&patterns, Kind::Wdl)
            .unwrap_err()
            .contains("refers to symbol 5"));
        // A WDL leaf out of range.
        let patterns = [9, 0xf0, 0xff];
        assert!(symbol_lengths(&patterns, Kind::Wdl).is_err());
    }

    #[test]
    fn a_file_of_the_wrong_size_or_magic_is_refused() {
        let kqvk = Material::from_name("KQvK").unwrap();
        let err = TableFile::from_bytes(vec![0; 100], &kqvk, Kind::Wdl).unwrap_err();
        assert!(err.contains("100 bytes"), "{err}");
        let err = TableFile::from_bytes(vec![0; 80], &kqvk, Kind::Wdl).unwrap_err();
        assert!(err.contains("magic number 0x00000000"), "{err}");
    }
}
