//! Build script: computes every attack table the move generator needs and writes them as
//! Rust statics into `$OUT_DIR/tables.rs`, so the tables cost nothing at start-up and are
//! plain memory reads at run time.
//!
//! Slider attacks use "fancy" magic bitboards: for each square a mask of relevant
//! occupancy bits, a multiplier and a shift map every occupancy subset to a slot of a shared
//! table. The multipliers are found here by a seeded random search (deterministic, a few
//! milliseconds), not copied from anywhere. With the `pext` feature the slot is instead the
//! BMI2 `pext` of the occupancy by the mask, and the table is laid out in that order.

#![allow(clippy::unwrap_used)] // writing into a String cannot fail

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

fn on_board(file: i32, rank: i32) -> bool {
    (0..8).contains(&file) && (0..8).contains(&rank)
}

fn bit(file: i32, rank: i32) -> u64 {
    1u64 << (rank * 8 + file)
}

/// Squares a slider on `sq` attacks along `dirs`, stopping at (and including) blockers.
fn slider_attacks(sq: usize, occupied: u64, dirs: &[(i32, i32)]) -> u64 {
    let (f0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut attacks = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while on_board(f, r) {
            attacks |= bit(f, r);
            if occupied & bit(f, r) != 0 {
                break;
            }
            f += df;
            r += dr;
        }
    }
    attacks
}

/// Occupancy bits that matter for a slider on `sq`: its rays without the board edge.
fn relevant_mask(sq: usize, dirs: &[(i32, i32)]) -> u64 {
    let (f0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut mask = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while on_board(f + df, r + dr) {
            mask |= bit(f, r);
            f += df;
            r += dr;
        }
    }
    mask
}

fn leaper_attacks(sq: usize, deltas: &[(i32, i32)]) -> u64 {
    let (f0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
    deltas
        .iter()
        .filter(|&&(df, dr)| on_board(f0 + df, r0 + dr))
        .fold(0, |acc, &(df, dr)| acc | bit(f0 + df, r0 + dr))
}

/// Software PEXT: gathers the bits of `value` selected by `mask` into the low bits.
fn pext(value: u64, mut mask: u64) -> u64 {
    let mut result = 0;
    let mut out_bit = 1;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if value & low != 0 {
            result |= out_bit;
        }
        out_bit <<= 1;
        mask &= mask - 1;
    }
    result
}

/// All subsets of `mask` (carry-rippler enumeration).
fn subsets(mask: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(1 << mask.count_ones());
    let mut subset = 0u64;
    loop {
        out.push(subset);
        subset = subset.wrapping_sub(mask) & mask;
        if subset == 0 {
            break;
        }
    }
    out
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

struct SliderTable {
    masks: Vec<u64>,
    magics: Vec<u64>,
    shifts: Vec<u32>,
    offsets: Vec<usize>,
    table: Vec<u64>,
}

fn build_slider(dirs: &[(i32, i32)], use_pext: bool, rng: &mut Rng) -> SliderTable {
    let mut t = SliderTable {
        masks: vec![],
        magics: vec![],
        shifts: vec![],
        offsets: vec![],
        table: vec![],
    };
    for sq in 0..64 {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        let occs = subsets(mask);
        let attacks: Vec<u64> = occs.iter().map(|&o| slider_attacks(sq, o, dirs)).collect();
        let size = 1usize << bits;
        let mut slots = vec![0u64; size];
        let magic = if use_pext {
            for (o, a) in occs.iter().zip(&attacks) {
                slots[pext(*o, mask) as usize] = *a;
            }
            0
        } else {
            let mut used = vec![false; size];
            loop {
                let magic = rng.sparse();
                if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
                    continue;
                }
                used.iter_mut().for_each(|u| *u = false);
                let mut ok = true;
                for (o, a) in occs.iter().zip(&attacks) {
                    let idx = (o.wrapping_mul(magic) >> (64 - bits)) as usize;
                    if !used[idx] {
                        used[idx] = true;
                        slots[idx] = *a;
                    } else if slots[idx] != *a {
                        ok = false;
                        break;
                    }
                }
                if ok {
                    break magic;
                }
            }
        };
        t.masks.push(mask);
        t.magics.push(magic);
        t.shifts.push(64 - bits);
        t.offsets.push(t.table.len());
        t.table.extend_from_slice(&slots);
    }
    t
}

fn write_array(out: &mut String, name: &str, ty: &str, values: impl Iterator<Item = String>) {
    let values: Vec<String> = values.collect();
    writeln!(out, "pub(crate) static {name}: [{ty}; {}] = [", values.len()).unwrap();
    for chunk in values.chunks(8) {
        writeln!(out, "    {},", chunk.join(", ")).unwrap();
    }
    writeln!(out, "];").unwrap();
}

fn hex(v: u64) -> String {
    format!("0x{v:016x}")
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_FEATURE_PEXT");
    let use_pext = env::var_os("CARGO_FEATURE_PEXT").is_some()
        && env::var("CARGO_CFG_TARGET_FEATURE")
            .map(|f| f.split(',').any(|x| x == "bmi2"))
            .unwrap_or(false);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = String::new();
    writeln!(out, "// Generated by movegen/build.rs. Do not edit.").unwrap();

    let knight = [
        (1, 2),
        (2, 1),
        (2, -1),
        (1, -2),
        (-1, -2),
        (-2, -1),
        (-2, 1),
        (-1, 2),
    ];
    let king = [
        (1, 0),
        (1, 1),
        (0, 1),
        (-1, 1),
        (-1, 0),
        (-1, -1),
        (0, -1),
        (1, -1),
    ];
    write_array(
        &mut out,
        "KNIGHT_ATTACKS",
        "u64",
        (0..64).map(|s| hex(leaper_attacks(s, &knight))),
    );
    write_array(
        &mut out,
        "KING_ATTACKS",
        "u64",
        (0..64).map(|s| hex(leaper_attacks(s, &king))),
    );
    write_array(
        &mut out,
        "WHITE_PAWN_ATTACKS",
        "u64",
        (0..64).map(|s| hex(leaper_attacks(s, &[(-1, 1), (1, 1)]))),
    );
    write_array(
        &mut out,
        "BLACK_PAWN_ATTACKS",
        "u64",
        (0..64).map(|s| hex(leaper_attacks(s, &[(-1, -1), (1, -1)]))),
    );

    // Between (exclusive) and full line tables for every square pair on a common line.
    let mut between = vec![0u64; 64 * 64];
    let mut line = vec![0u64; 64 * 64];
    for a in 0..64 {
        for dirs in [&ROOK_DIRS[..], &BISHOP_DIRS[..]] {
            let rays_a = slider_attacks(a, 0, dirs);
            for b in 0..64 {
                if a == b || rays_a & (1u64 << b) == 0 {
                    continue;
                }
                between[a * 64 + b] = slider_attacks(a, 1u64 << b, dirs) & slider_attacks(b, 1u64 << a, dirs);
                line[a * 64 + b] = (rays_a & slider_attacks(b, 0, dirs)) | (1u64 << a) | (1u64 << b);
            }
        }
    }
    write_array(&mut out, "BETWEEN", "u64", between.iter().map(|&v| hex(v)));
    write_array(&mut out, "LINE", "u64", line.iter().map(|&v| hex(v)));

    for (name, dirs) in [("ROOK", &ROOK_DIRS[..]), ("BISHOP", &BISHOP_DIRS[..])] {
        let t = build_slider(dirs, use_pext, &mut rng);
        write_array(
            &mut out,
            &format!("{name}_RAYS"),
            "u64",
            (0..64).map(|s| hex(slider_attacks(s, 0, dirs))),
        );
        writeln!(out, "pub(crate) static {name}_MAGICS: [Magic; 64] = [").unwrap();
        for sq in 0..64 {
            writeln!(
                out,
                "    Magic {{ mask: {}, magic: {}, shift: {}, offset: {} }},",
                hex(t.masks[sq]),
                hex(t.magics[sq]),
                t.shifts[sq],
                t.offsets[sq]
            )
            .unwrap();
        }
        writeln!(out, "];").unwrap();
        write_array(
            &mut out,
            &format!("{name}_TABLE"),
            "u64",
            t.table.iter().map(|&v| hex(v)),
        );
    }
    writeln!(out, "pub(crate) const USE_PEXT: bool = {use_pext};").unwrap();

    let path = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("tables.rs");
    fs::write(path, out).expect("write tables.rs");
}
