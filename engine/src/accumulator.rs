//! NNUE inference in the search: a stack of accumulators, one entry per ply, each holding
//! both perspectives. The root entry is refreshed from scratch; every move fills the next
//! entry from the previous one with only the features the move changes (a quiet move: one
//! row off and one on per perspective; a capture: one more off; castling: two off, two on;
//! a promotion: the pawn off, the new piece on), so an evaluation costs a few row updates
//! and the output layer instead of ~30 rows per perspective.
//!
//! A horizontally mirrored net (`nnue::Network::mirrored`) indexes each perspective's
//! squares mirrored while that side's own king stands on files e-h. A move that takes a
//! king across the d/e line changes every feature of its own perspective, so that
//! perspective's half of the new entry is rebuilt from the board after the move
//! (`nnue::Network::refresh_view`, the reference's own code); the other perspective, whose
//! king did not move, is updated incrementally as usual. Such moves are a small share of all
//! (a king stepping between the d- and e-files, queen-side castling from the e-file, castling
//! from a b- or f-file king in Chess960), so a rebuild (a scalar loop) costs little on
//! average. A net without mirroring never takes that branch, and indexes as it
//! always did.
//!
//! A king-bucketed net (`nnue::FeatureSet` with K buckets) reads each perspective's 768
//! inputs of its own king's bucket. Its indices come from that perspective's
//! `nnue::View` (the bucket's offset and the mirroring), the feature set's one definition,
//! and a king move that changes the view (`nnue::FeatureSet::needs_refresh`: another
//! bucket, or across the d/e line of a mirrored set) rebuilds that perspective from the
//! board, as a mirror crossing does. The rebuild goes through a refresh table: per
//! perspective and view (king bucket and mirroring) the accumulator last built in that view
//! and the pieces (12 bitboards) it was built from; a rebuild adds the rows of the pieces
//! that are on the board and were not then, subtracts those that were and are not, and
//! copies the result. Its entries start as the bias of an empty board. Integer sums, so the
//! result equals a refresh from scratch exactly (the tests compare every ply), for a few
//! rows where a refresh adds all thirty.
//!
//! Three implementations give identical integers: AVX-512 (AVX-512 F and BW) and AVX2, the
//! best the CPU has chosen at run time, and a portable one, `nnue::output_sum` (the
//! reference's own). The portable row updates are plain loops, compiled a second time with
//! AVX2 enabled; the AVX-512 ones load the parent's 32 lanes once, add and subtract every
//! changed row in the register and store once. The SIMD output layers use the `madd` trick
//! of `docs/design/NNUE.md`: `clamp(acc)·w` fits i16 (the loader guarantees
//! `nnue::quantise::OUTPUT_WEIGHT_MIN <= w <= OUTPUT_WEIGHT_MAX`, -128 to 127), and a
//! 16-bit multiply-add with `clamp(acc)` accumulates into i32 lanes (integer sums, so the
//! order of the lanes does not change them). All end in `nnue::output_centipawns`, the one
//! output formula. A width the AVX-512 code cannot read whole (not a multiple of 32 lanes)
//! takes the AVX2 code, which that CPU also has.
//!
//! A net with hidden layers after the transformer (`(768 -> 64)x2 -> (16 -> 32 -> 1)x8`)
//! keeps the same incremental, SIMD transformer; its evaluation then runs the layer stack
//! in integers through `nnue::quantise::layer_stack`, the reference forward pass's own code
//! (i8 weights, i32 sums, CReLU between layers), compiled a second time with AVX2 enabled
//! for the AVX2 and AVX-512 paths. Integers, not floats: the sums are exact in any order and
//! at any vector width, so the engine equals the reference on every position (the tests
//! below check it along perft trees), and one definition serves every code path. The layers
//! are small next to the transformer (`2N x 16` multiply-adds for the first at N = 64).
//!
//! `LUFT_SIMD=portable|avx2|avx512` in the environment picks a code path the CPU supports
//! instead of the best one (for speed comparisons, `scripts/nnue-widths.sh`); an unknown or
//! unsupported name is reported on stderr and the best path is used.

use backend::Backend;
use movegen::{Board, CastleSide, Color, Move, Piece, PieceType, Square};
use nnue::quantise::{layer_stack, layered_centipawns};
use nnue::{output_centipawns, output_sum, Layer, Network, View, QA};
use std::sync::Arc;

/// Which code path evaluates. A submodule, so that nothing else in the crate can name the
/// AVX2 variant: a [`Backend`] that uses AVX2 exists only after the CPU reported it.
mod backend {
    use std::sync::OnceLock;

    /// A checked choice of code path.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub struct Backend(Kind);

    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    enum Kind {
        Portable,
        Avx2,
        /// AVX-512 F and BW, and AVX2 besides (for widths that are no multiple of 32).
        Avx512,
    }

    use nnue::cpu::{has_avx2 as cpu_has_avx2, has_avx512_bw as cpu_has_avx512};

    impl Backend {
        /// The portable code path (any CPU).
        pub fn portable() -> Backend {
            Backend(Kind::Portable)
        }

        /// Every code path this CPU supports, slowest first (the portable one always).
        pub fn supported() -> Vec<Backend> {
            let mut all = vec![Backend::portable()];
            if cpu_has_avx2() {
                all.push(Backend(Kind::Avx2));
            }
            if cpu_has_avx512() {
                all.push(Backend(Kind::Avx512));
            }
            all
        }

        /// The code path to use, chosen once: the one `LUFT_SIMD` names if this CPU
        /// supports it, else the fastest this CPU supports.
        pub fn detect() -> Backend {
            static BACKEND: OnceLock<Backend> = OnceLock::new();
            *BACKEND.get_or_init(|| {
                let supported = Backend::supported();
                let best = supported.last().copied().unwrap_or_else(Backend::portable);
                match std::env::var("LUFT_SIMD") {
                    Ok(name) => Backend::choose(&name, &supported).unwrap_or_else(|e| {
                        output::errln!("luft: {e}; using {}", best.name());
                        best
                    }),
                    Err(_) => best,
                }
            })
        }

        /// The path called `name` if it is among `supported`, else why not.
        pub fn choose(name: &str, supported: &[Backend]) -> Result<Backend, String> {
            let known = [Kind::Portable, Kind::Avx2, Kind::Avx512].map(Backend);
            let Some(&wanted) = known.iter().find(|b| b.name() == name.trim()) else {
                return Err(format!(
                    "LUFT_SIMD={name:?} names no code path (portable, avx2 or avx512)"
                ));
            };
            if supported.contains(&wanted) {
                Ok(wanted)
            } else {
                Err(format!(
                    "LUFT_SIMD={name}: this CPU (or this build) cannot run it"
                ))
            }
        }

        /// Whether this path may use AVX2 (then the CPU has AVX2).
        #[inline(always)]
        pub fn is_avx2(self) -> bool {
            matches!(self.0, Kind::Avx2 | Kind::Avx512)
        }

        /// Whether this is the AVX-512 path (then the CPU has AVX-512 F and BW, and AVX2).
        #[inline(always)]
        pub fn is_avx512(self) -> bool {
            self.0 == Kind::Avx512
        }

        /// "avx512", "avx2" or "portable".
        pub fn name(self) -> &'static str {
            match self.0 {
                Kind::Portable => "portable",
                Kind::Avx2 => "avx2",
                Kind::Avx512 => "avx512",
            }
        }
    }
}

/// Feature changes of one move: up to two rows removed and two added per perspective.
#[derive(Clone, Copy, Debug, Default)]
struct Delta {
    added: [(usize, usize); 2],
    removed: [(usize, usize); 2],
    n_added: usize,
    n_removed: usize,
    /// How each perspective (white, black) reads the board: king bucket and mirroring.
    views: [View; 2],
}

impl Delta {
    fn pair(&self, piece: Piece, sq: Square) -> (usize, usize) {
        (
            self.views[0].index(Color::White, piece, sq),
            self.views[1].index(Color::Black, piece, sq),
        )
    }
    fn add(&mut self, piece: Piece, sq: Square) {
        self.added[self.n_added] = self.pair(piece, sq);
        self.n_added += 1;
    }
    fn remove(&mut self, piece: Piece, sq: Square) {
        self.removed[self.n_removed] = self.pair(piece, sq);
        self.n_removed += 1;
    }
}

/// The feature changes `mv` makes on `board` (which it must be legal on), each
/// perspective (white, black) indexed in its view of `views`.
fn delta_of(board: &Board, mv: Move, views: [View; 2]) -> Delta {
    let mut d = Delta {
        views,
        ..Delta::default()
    };
    let us = board.side_to_move();
    let from = mv.from();
    let to = mv.to();
    let moving = board.piece_type_on(from).unwrap_or(PieceType::Pawn);
    if board.is_castling(mv) {
        // Castling is encoded as the king taking its own rook (`to` is the rook's square).
        let (king_to, rook_to) = CastleSide::of_castling(mv).destinations(us);
        d.remove(Piece::new(us, PieceType::King), from);
        d.remove(Piece::new(us, PieceType::Rook), to);
        d.add(Piece::new(us, PieceType::King), king_to);
        d.add(Piece::new(us, PieceType::Rook), rook_to);
        return d;
    }
    d.remove(Piece::new(us, moving), from);
    d.add(Piece::new(us, mv.promotion().unwrap_or(moving)), to);
    if let Some(captured) = board.piece_type_on(to) {
        d.remove(Piece::new(!us, captured), to);
    } else if board.is_en_passant(mv) {
        d.remove(
            Piece::new(!us, PieceType::Pawn),
            Square::from_coords(to.file(), from.rank()),
        );
    }
    d
}

/// Per-thread accumulator stack over a shared net.
pub struct AccumulatorStack {
    net: Arc<Network>,
    backend: Backend,
    hidden: usize,
    /// Whether a king move can change a perspective's view (a mirrored or king-bucketed
    /// net); false for the plain 768 inputs, which never rebuild.
    views_change: bool,
    /// `(MAX_PLY + 2)` entries of `2 * hidden`: white view, then black view.
    values: Vec<i16>,
    ply: usize,
    /// The refresh table (module documentation): per perspective, `2 · K` entries (king
    /// bucket, mirrored or not); empty for a net whose views never change.
    table: Vec<TableEntry>,
    /// Rows the refresh table has added or subtracted since the stack was made (a measure
    /// of the work a rebuild costs, against about 30 for a refresh from scratch).
    table_rows: u64,
    /// Rebuilds done through the refresh table.
    table_rebuilds: u64,
}

/// One entry of the refresh table: an accumulator of `hidden` values and the pieces, by
/// colour and piece type, it holds the rows of.
#[derive(Clone, Debug)]
struct TableEntry {
    acc: Vec<i16>,
    pieces: [[u64; 6]; 2],
}

/// The refresh table's entry of `perspective` seen in `view` for a net with `buckets` king
/// buckets.
#[inline]
fn table_index(perspective: Color, view: View, buckets: usize) -> usize {
    let bucket = view.offset / nnue::arch::FEATURES_PER_BUCKET;
    perspective as usize * 2 * buckets + 2 * bucket + usize::from(view.mirror)
}

/// Brings `entry` to `board` as `perspective` sees it in `view` (adding the rows of pieces
/// that are on the board and not in the entry, subtracting those in the entry and not on
/// the board), copies it into `out`, and returns the rows it changed.
fn rebuild_from_table(
    net: &Network,
    entry: &mut TableEntry,
    board: &Board,
    perspective: Color,
    view: View,
    out: &mut [i16],
) -> u64 {
    let mut rows = 0;
    for color in Color::ALL {
        for kind in PieceType::ALL {
            let now = board.colored_pieces(color, kind).0;
            let old = &mut entry.pieces[color as usize][kind.index()];
            let piece = Piece::new(color, kind);
            for (bits, add) in [(now & !*old, true), (*old & !now, false)] {
                for sq in movegen::Bitboard(bits) {
                    let row = net.feature_row(view.index(perspective, piece, sq));
                    for (a, w) in entry.acc.iter_mut().zip(row) {
                        *a = if add {
                            a.wrapping_add(*w)
                        } else {
                            a.wrapping_sub(*w)
                        };
                    }
                    rows += 1;
                }
            }
            *old = now;
        }
    }
    out.copy_from_slice(&entry.acc);
    rows
}

impl std::fmt::Debug for AccumulatorStack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccumulatorStack")
            .field("ply", &self.ply)
            .field("backend", &self.backend.name())
            .finish_non_exhaustive()
    }
}

impl AccumulatorStack {
    /// A stack over `net` using the fastest code path this CPU supports.
    pub fn new(net: Arc<Network>) -> Self {
        AccumulatorStack::with_backend(net, Backend::detect())
    }

    /// A stack over `net` as [`AccumulatorStack::new`], or the allocator's refusal
    /// (`crate::memory`).
    pub fn try_new(net: Arc<Network>) -> Result<Self, std::collections::TryReserveError> {
        AccumulatorStack::try_with_backend(net, Backend::detect())
    }

    fn with_backend(net: Arc<Network>, backend: Backend) -> Self {
        match AccumulatorStack::try_with_backend(net, backend) {
            Ok(stack) => stack,
            Err(e) => panic!("cannot allocate an accumulator stack: {e}"),
        }
    }

    fn try_with_backend(
        net: Arc<Network>,
        backend: Backend,
    ) -> Result<Self, std::collections::TryReserveError> {
        let hidden = net.hidden();
        let features = net.features();
        let views_change = features.is_mirrored() || features.king_buckets_count() > 1;
        let entries = if views_change {
            2 * 2 * features.king_buckets_count()
        } else {
            0
        };
        let mut table = Vec::new();
        table.try_reserve_exact(entries)?;
        for _ in 0..entries {
            let mut acc = crate::memory::try_vec(hidden, 0)?;
            acc.copy_from_slice(net.feature_bias());
            table.push(TableEntry {
                acc,
                pieces: [[0; 6]; 2],
            });
        }
        Ok(AccumulatorStack {
            net,
            backend,
            hidden,
            views_change,
            values: crate::memory::try_vec((crate::params::MAX_PLY + 2) * 2 * hidden, 0)?,
            ply: 0,
            table,
            table_rows: 0,
            table_rebuilds: 0,
        })
    }

    /// The code path's name ("avx512", "avx2" or "portable").
    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    fn entry(&self, ply: usize) -> &[i16] {
        &self.values[ply * 2 * self.hidden..(ply + 1) * 2 * self.hidden]
    }

    /// Recomputes the root entry from scratch.
    pub fn refresh(&mut self, board: &Board) {
        self.ply = 0;
        let (white, black) = self.net.refresh(board);
        let h = self.hidden;
        self.values[..h].copy_from_slice(&white);
        self.values[h..2 * h].copy_from_slice(&black);
    }

    /// Fills the next entry for `mv` played on `board` and makes it current.
    pub fn push(&mut self, board: &Board, mv: Move) {
        let net = &*self.net;
        // Mirrored or king-bucketed nets: each perspective's view, and the perspective (if
        // any) whose king changes its view with this move (another bucket, or across the
        // d/e line), to be rebuilt from the board after it.
        let mut views = [View::default(); 2];
        let mut rebuild = None;
        if self.views_change {
            views = [net.view(board, Color::White), net.view(board, Color::Black)];
            let us = board.side_to_move();
            if board.piece_type_on(mv.from()) == Some(PieceType::King) {
                let king_to = if board.is_castling(mv) {
                    CastleSide::of_castling(mv).destinations(us).0
                } else {
                    mv.to()
                };
                if net.features().needs_refresh(us, mv.from(), king_to) {
                    rebuild = Some(us as usize);
                }
            }
        }
        let delta = delta_of(board, mv, views);
        let h = self.hidden;
        let (parent_part, child_part) = self.values.split_at_mut((self.ply + 1) * 2 * h);
        let parent = &parent_part[self.ply * 2 * h..];
        let child = &mut child_part[..2 * h];
        for (view, (p, c)) in parent.chunks_exact(h).zip(child.chunks_exact_mut(h)).enumerate() {
            if rebuild == Some(view) {
                let mut after = *board;
                after.play(mv);
                let color = if view == 0 { Color::White } else { Color::Black };
                let new_view = net.view(&after, color);
                let at = table_index(color, new_view, net.features().king_buckets_count());
                self.table_rows += rebuild_from_table(net, &mut self.table[at], &after, color, new_view, c);
                self.table_rebuilds += 1;
                continue;
            }
            let pick = |pair: (usize, usize)| net.feature_row(if view == 0 { pair.0 } else { pair.1 });
            let add0 = pick(delta.added[0]);
            let sub0 = pick(delta.removed[0]);
            match (delta.n_added, delta.n_removed) {
                (1, 1) => update(self.backend, c, p, [add0], [sub0]),
                (1, 2) => update(self.backend, c, p, [add0], [sub0, pick(delta.removed[1])]),
                _ => update(
                    self.backend,
                    c,
                    p,
                    [add0, pick(delta.added[1])],
                    [sub0, pick(delta.removed[1])],
                ),
            }
        }
        self.ply += 1;
    }

    /// Makes the parent entry current again (after a move is taken back).
    #[inline]
    pub fn pop(&mut self) {
        self.ply -= 1;
    }

    /// Copies the current entry forward unchanged (for a null move).
    pub fn push_null(&mut self) {
        let h2 = 2 * self.hidden;
        let start = self.ply * h2;
        self.values.copy_within(start..start + h2, start + h2);
        self.ply += 1;
    }

    /// The evaluation of `board` (whose accumulator is current), side to move's view.
    pub fn evaluate(&self, board: &Board) -> i32 {
        let entry = self.entry(self.ply);
        let (white, black) = entry.split_at(self.hidden);
        let (us, them) = match board.side_to_move() {
            Color::White => (white, black),
            Color::Black => (black, white),
        };
        let bucket = self.net.output_bucket(board);
        let layers = self.net.layers();
        if !layers.is_empty() {
            return layered_centipawns(stack_sum(self.backend, layers, us, them, bucket));
        }
        let (w_us, w_them) = self.net.bucket_weights(bucket).split_at(self.hidden);
        let sum = forward_sum(self.backend, us, them, w_us, w_them);
        output_centipawns(sum, self.net.output_bias()[bucket])
    }

    /// Rebuilds done through the refresh table and the rows they changed, since the stack
    /// was made (for tests).
    #[cfg(test)]
    fn table_work(&self) -> (u64, u64) {
        (self.table_rebuilds, self.table_rows)
    }

    /// The current entry (white view, black view), for tests.
    #[cfg(test)]
    fn current(&self) -> (&[i16], &[i16]) {
        self.entry(self.ply).split_at(self.hidden)
    }
}

/// The layer stack of a net with hidden layers (`nnue::quantise::layer_stack`, the
/// reference's own code), built with AVX2 where the backend may use it.
#[inline]
fn stack_sum(backend: Backend, layers: &[Layer], us: &[i16], them: &[i16], bucket: usize) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if backend.is_avx2() {
        // SAFETY: `is_avx2` holds for the AVX2 and AVX-512 `Backend`s, which only
        // `Backend::supported` makes, after `nnue::cpu::has_avx2` found AVX2 (`choose` and
        // `detect` pick among those); `stack_sum_avx2` asks nothing else (bounds-checked
        // slices).
        return unsafe { stack_sum_avx2(layers, us, them, bucket) };
    }
    let _ = backend;
    layer_stack(layers, us, them, bucket)
}

/// `nnue::quantise::layer_stack` (always inlined) compiled with AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stack_sum_avx2(layers: &[Layer], us: &[i16], them: &[i16], bucket: usize) -> i32 {
    layer_stack(layers, us, them, bucket)
}

/// `child = parent + Σ adds - Σ subs`, lane by lane (wrapping like the reference).
#[inline]
fn update<const A: usize, const S: usize>(
    backend: Backend,
    child: &mut [i16],
    parent: &[i16],
    adds: [&[i16]; A],
    subs: [&[i16]; S],
) {
    #[cfg(target_arch = "x86_64")]
    {
        if backend.is_avx512() && avx512_rows_ok(child, parent, &adds, &subs) {
            // SAFETY: `is_avx512` holds for the AVX-512 `Backend` alone, which only
            // `Backend::supported` makes, after `nnue::cpu::has_avx512_bw` found AVX-512 F
            // and BW; `avx512_rows_ok` on the line above checked that every slice has one
            // length, a multiple of 32.
            unsafe { update_avx512(child, parent, adds, subs) };
            return;
        }
        if backend.is_avx2() {
            // SAFETY: `is_avx2` holds for the AVX2 and AVX-512 `Backend`s, which only
            // `Backend::supported` makes, after `nnue::cpu::has_avx2` found AVX2;
            // `update_avx2` asks nothing else (bounds-checked slices).
            unsafe { update_avx2(child, parent, &adds, &subs) };
            return;
        }
    }
    let _ = backend;
    update_portable(child, parent, &adds, &subs);
}

#[inline(always)]
fn update_portable(child: &mut [i16], parent: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
    child.copy_from_slice(parent);
    for row in adds {
        for (c, w) in child.iter_mut().zip(row.iter()) {
            *c = c.wrapping_add(*w);
        }
    }
    for row in subs {
        for (c, w) in child.iter_mut().zip(row.iter()) {
            *c = c.wrapping_sub(*w);
        }
    }
}

/// [`update_portable`] compiled with AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn update_avx2(child: &mut [i16], parent: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
    // The same loops, vectorised by the compiler with AVX2 enabled.
    update_portable(child, parent, adds, subs);
}

/// Whether the AVX-512 row update may read and write these slices: all of one length, a
/// multiple of 32 (it takes 32 lanes at a time).
#[inline(always)]
fn avx512_rows_ok(child: &[i16], parent: &[i16], adds: &[&[i16]], subs: &[&[i16]]) -> bool {
    let n = child.len();
    n.is_multiple_of(32) && parent.len() == n && adds.iter().chain(subs).all(|row| row.len() == n)
}

/// `child = parent + Σ adds - Σ subs` with AVX-512: 32 lanes at a time, each loaded from
/// the parent once, every row added or subtracted in the register, stored once.
///
/// # Safety
/// The CPU must have AVX-512 F and BW, and every slice must have one length, a multiple of
/// 32.
#[rustversion::since(1.89)]
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn update_avx512<const A: usize, const S: usize>(
    child: &mut [i16],
    parent: &[i16],
    adds: [&[i16]; A],
    subs: [&[i16]; S],
) {
    use std::arch::x86_64::*;
    for i in (0..child.len()).step_by(32) {
        // SAFETY: the unaligned loads and the store read and write lanes i..i + 32 of
        // slices of one length `len`, a multiple of 32 (this function's contract, which
        // the caller checked); `i` steps by 32 below `len`, so i + 32 <= len.
        unsafe {
            let mut v = _mm512_loadu_si512(parent.as_ptr().add(i) as *const __m512i);
            for row in adds {
                v = _mm512_add_epi16(v, _mm512_loadu_si512(row.as_ptr().add(i) as *const __m512i));
            }
            for row in subs {
                v = _mm512_sub_epi16(v, _mm512_loadu_si512(row.as_ptr().add(i) as *const __m512i));
            }
            _mm512_storeu_si512(child.as_mut_ptr().add(i) as *mut __m512i, v);
        }
    }
}

/// Compilers before 1.89 cannot build the AVX-512 code, and no AVX-512 `Backend` is ever
/// made then: this stands in for it and is never called.
///
/// # Safety
/// None needed; it runs the portable code.
#[rustversion::before(1.89)]
#[cfg(target_arch = "x86_64")]
unsafe fn update_avx512<const A: usize, const S: usize>(
    child: &mut [i16],
    parent: &[i16],
    adds: [&[i16]; A],
    subs: [&[i16]; S],
) {
    update_portable(child, parent, &adds, &subs);
}

/// Whether the AVX2 forward pass may read these slices: all four of one length, a
/// multiple of 16 (its loads take 16 lanes at a time). Every `Network` has such a width
/// (its constructors check it); this keeps the unsafe code sound even if that changed.
#[inline(always)]
fn simd_shape_ok(us: &[i16], them: &[i16], w_us: &[i16], w_them: &[i16]) -> bool {
    let n = us.len();
    n.is_multiple_of(16) && them.len() == n && w_us.len() == n && w_them.len() == n
}

#[inline]
fn forward_sum(backend: Backend, us: &[i16], them: &[i16], w_us: &[i16], w_them: &[i16]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if backend.is_avx512() && simd_shape_ok(us, them, w_us, w_them) && us.len().is_multiple_of(32) {
        // SAFETY: `is_avx512` holds for the AVX-512 `Backend` alone, which only
        // `Backend::supported` makes, after `nnue::cpu::has_avx512_bw` found AVX-512 F and
        // BW; `simd_shape_ok` and the length test in this condition checked that the four
        // slices have one length, a multiple of 32.
        return unsafe { forward_sum_avx512(us, them, w_us, w_them) };
    }
    #[cfg(target_arch = "x86_64")]
    if backend.is_avx2() && simd_shape_ok(us, them, w_us, w_them) {
        // SAFETY: `is_avx2` holds for the AVX2 and AVX-512 `Backend`s, which only
        // `Backend::supported` makes, after `nnue::cpu::has_avx2` found AVX2;
        // `simd_shape_ok` in this condition checked that the four slices have one length,
        // a multiple of 16.
        return unsafe { forward_sum_avx2(us, them, w_us, w_them) };
    }
    let _ = backend;
    output_sum(us, them, w_us, w_them)
}

/// The output layer's sum with AVX2.
///
/// # Safety
/// The CPU must have AVX2, and the four slices must have one length, a multiple of 16.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn forward_sum_avx2(us: &[i16], them: &[i16], w_us: &[i16], w_them: &[i16]) -> i32 {
    use std::arch::x86_64::*;
    let zero = _mm256_setzero_si256();
    let qa = _mm256_set1_epi16(QA as i16);
    let mut sum = _mm256_setzero_si256();
    for (acc, w) in [(us, w_us), (them, w_them)] {
        for i in (0..acc.len()).step_by(16) {
            // SAFETY: the unaligned loads read lanes i..i + 16 of two slices of one length
            // `len`, a multiple of 16 (this function's contract, which the caller checked);
            // `i` steps by 16 below `len`, so i + 16 <= len.
            let (v, wv) = unsafe {
                (
                    _mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i),
                    _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i),
                )
            };
            let v = _mm256_min_epi16(_mm256_max_epi16(v, zero), qa);
            let product = _mm256_mullo_epi16(v, wv);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(product, v));
        }
    }
    let high = _mm256_extracti128_si256(sum, 1);
    let low = _mm256_castsi256_si128(sum);
    let s = _mm_add_epi32(high, low);
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
    _mm_cvtsi128_si32(s)
}

/// The output layer's sum with AVX-512 (the AVX2 code, 32 lanes at a time).
///
/// # Safety
/// The CPU must have AVX-512 F and BW, and the four slices must have one length, a
/// multiple of 32.
#[rustversion::since(1.89)]
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn forward_sum_avx512(us: &[i16], them: &[i16], w_us: &[i16], w_them: &[i16]) -> i32 {
    use std::arch::x86_64::*;
    let zero = _mm512_setzero_si512();
    let qa = _mm512_set1_epi16(QA as i16);
    let mut sum = _mm512_setzero_si512();
    for (acc, w) in [(us, w_us), (them, w_them)] {
        for i in (0..acc.len()).step_by(32) {
            // SAFETY: the unaligned loads read lanes i..i + 32 of two slices of one length
            // `len`, a multiple of 32 (this function's contract, which the caller checked);
            // `i` steps by 32 below `len`, so i + 32 <= len.
            let (v, wv) = unsafe {
                (
                    _mm512_loadu_si512(acc.as_ptr().add(i) as *const __m512i),
                    _mm512_loadu_si512(w.as_ptr().add(i) as *const __m512i),
                )
            };
            let v = _mm512_min_epi16(_mm512_max_epi16(v, zero), qa);
            let product = _mm512_mullo_epi16(v, wv);
            sum = _mm512_add_epi32(sum, _mm512_madd_epi16(product, v));
        }
    }
    _mm512_reduce_add_epi32(sum)
}

/// Compilers before 1.89 cannot build the AVX-512 code, and no AVX-512 `Backend` is ever
/// made then: this stands in for it and is never called.
///
/// # Safety
/// None needed; it runs the portable code.
#[rustversion::before(1.89)]
#[cfg(target_arch = "x86_64")]
unsafe fn forward_sum_avx512(us: &[i16], them: &[i16], w_us: &[i16], w_them: &[i16]) -> i32 {
    output_sum(us, them, w_us, w_them)
}

#[cfg(test)]
mod tests {
    //! The incremental accumulator equals a refresh at every node of perft trees, and every
    //! backend's evaluation equals the scalar reference of the `nnue` crate exactly.

    use super::*;
    use movegen::suite::parse_suite;
    use nnue::FeatureSet;

    #[test]
    fn king_bucketed_nets_update_exactly_along_random_games() {
        // Random games (a seeded generator, king moves preferred so that kings walk across
        // buckets and the d/e line), every ply compared with a refresh and the reference
        // evaluation, with the stack pushed along the whole game.
        for (buckets, mirrored, seed, layers) in [
            (4, true, 1, ""),
            (4, false, 2, ""),
            (8, true, 3, ""),
            (2, false, 4, ""),
            (4, true, 5, "(16 -> 32 -> 1)x8"),
        ] {
            let features = FeatureSet::default_buckets(buckets, mirrored).unwrap();
            let net = Arc::new(if layers.is_empty() {
                Network::random_with(features, 32, 8, seed).unwrap()
            } else {
                let arch = format!("({features} -> 32)x2 -> {layers}").parse().unwrap();
                Network::random_arch(&arch, seed).unwrap()
            });
            let mut rng = movegen::rng::SplitMix64(seed);
            let (mut plies, mut refreshes) = (0, 0);
            let (mut table_rebuilds, mut table_rows, mut full_rows) = (0, 0, 0);
            for backend in Backend::supported() {
                for _game in 0..40 {
                    let mut board = Board::startpos();
                    let mut stack = AccumulatorStack::with_backend(net.clone(), backend);
                    stack.refresh(&board);
                    for _ply in 0..120 {
                        let moves = board.legal_moves();
                        if moves.is_empty() {
                            break;
                        }
                        let kings: Vec<Move> = moves
                            .iter()
                            .copied()
                            .filter(|m| board.piece_type_on(m.from()) == Some(PieceType::King))
                            .collect();
                        let mv = if !kings.is_empty() && rng.below(2) == 0 {
                            kings[rng.below(kings.len())]
                        } else {
                            moves[rng.below(moves.len())]
                        };
                        let us = board.side_to_move();
                        let before = net.view(&board, us);
                        stack.push(&board, mv);
                        board.play(mv);
                        if net.view(&board, us) != before {
                            refreshes += 1;
                            full_rows += u64::from(board.occupied().len());
                        }
                        let (white, black) = net.refresh(&board);
                        assert_eq!(stack.current(), (&white[..], &black[..]), "{board}");
                        assert_eq!(stack.evaluate(&board), net.evaluate(&board), "{board}");
                        plies += 1;
                    }
                    let (rebuilds, rows) = stack.table_work();
                    table_rebuilds += rebuilds;
                    table_rows += rows;
                }
            }
            assert!(plies > 2000, "{plies}");
            assert!(refreshes > 100, "{buckets} {mirrored}: {refreshes} view changes");
            assert!(
                table_rebuilds > 100,
                "{table_rebuilds} rebuilds through the refresh table"
            );
            // Every view change was a rebuild through the table, and it changed fewer rows
            // than a refresh from scratch would have added (one per piece on the board).
            assert_eq!(table_rebuilds, refreshes);
            assert!(
                table_rows * 4 < full_rows * 3,
                "{table_rows} rows in {table_rebuilds} rebuilds, {full_rows} from scratch"
            );
        }
    }

    /// What a walk checked: nodes, and (in a mirrored or king-bucketed net) moves whose
    /// king changed its own view (bucket or half of the board), those of them that castled,
    /// and promotions.
    #[derive(Default, Debug)]
    struct Walked {
        nodes: u64,
        crossings: u64,
        castling_crossings: u64,
        promotions: u64,
    }

    fn walk(stack: &mut AccumulatorStack, net: &Network, board: &Board, depth: u32, seen: &mut Walked) {
        let (white, black) = net.refresh(board);
        let (cur_white, cur_black) = stack.current();
        assert_eq!((cur_white, cur_black), (&white[..], &black[..]), "{board}");
        assert_eq!(stack.evaluate(board), net.evaluate(board), "{board}");
        seen.nodes += 1;
        if depth == 0 {
            return;
        }
        let us = board.side_to_move();
        for &mv in board.legal_moves().iter() {
            let mut child = *board;
            child.play(mv);
            if net.view(board, us) != net.view(&child, us) {
                seen.crossings += 1;
                seen.castling_crossings += u64::from(board.is_castling(mv));
            }
            seen.promotions += u64::from(mv.promotion().is_some());
            stack.push(board, mv);
            walk(stack, net, &child, depth - 1, seen);
            stack.pop();
        }
    }

    #[test]
    fn incremental_equals_refresh_along_perft_trees() {
        let plain = Arc::new(Network::random(64, 1, 11).unwrap());
        let mirrored = Arc::new(Network::random(64, 2, 12).unwrap().with_mirroring(true));
        let bucketed =
            Arc::new(Network::random_with(FeatureSet::default_buckets(4, true).unwrap(), 64, 8, 13).unwrap());
        let layered =
            |text: &str, seed| Arc::new(Network::random_arch(&text.parse().unwrap(), seed).unwrap());
        let cases = parse_suite(include_str!("../../movegen/tests/data/standard.epd")).unwrap();
        for (net, skip) in [
            (plain, 0),
            (mirrored, 2),
            (bucketed, 1),
            (layered("(768 -> 64)x2 -> (16 -> 32 -> 1)x8", 14), 3),
            (layered("(768x4hm -> 64)x2 -> (16 -> 1)x8", 15), 0),
        ] {
            let mut seen = Walked::default();
            for backend in Backend::supported() {
                for case in cases.iter().skip(skip).step_by(4) {
                    let board = Board::from_fen_relaxed(&case.fen).unwrap();
                    let mut stack = AccumulatorStack::with_backend(net.clone(), backend);
                    stack.refresh(&board);
                    walk(&mut stack, &net, &board, 3, &mut seen);
                }
            }
            assert!(
                seen.nodes > 75_000 * Backend::supported().len() as u64,
                "{seen:?}"
            );
            if net.mirrored() || net.features().king_buckets_count() > 1 {
                assert!(
                    seen.crossings > 500 * Backend::supported().len() as u64,
                    "{seen:?}"
                );
            } else {
                assert_eq!(net.features().king_buckets_count(), 1);
                assert_eq!(seen.crossings, 0);
            }
        }
    }

    #[test]
    fn chess960_castling_and_promotions_update_exactly() {
        let plain = Arc::new(Network::random(32, 1, 5).unwrap());
        let mirrored = Arc::new(Network::random(32, 1, 6).unwrap().with_mirroring(true));
        let bucketed =
            Arc::new(Network::random_with(FeatureSet::default_buckets(8, false).unwrap(), 32, 1, 7).unwrap());
        let layered = Arc::new(
            Network::random_arch(&"(768x2hm -> 32)x2 -> (8 -> 8 -> 1)x1".parse().unwrap(), 8).unwrap(),
        );
        for net in [plain, mirrored, bucketed, layered] {
            let mut seen = Walked::default();
            for fen in [
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                // Chess960 kings on b and f: castling to g and c crosses the d/e line,
                // by both sides, next to promotions by capture and by push.
                "r4k1r/1P5p/8/8/8/8/P5p1/RK5R w HAha - 0 1",
                "rk5r/p5P1/8/8/8/8/1p5P/R4K1R b HAha - 0 1",
                // Kings next to the line, en passant on the board.
                "3k4/8/8/2pP4/8/8/8/4K2R w K c6 0 2",
            ] {
                for backend in Backend::supported() {
                    let board = Board::from_fen(fen).unwrap();
                    let mut stack = AccumulatorStack::with_backend(net.clone(), backend);
                    stack.refresh(&board);
                    walk(&mut stack, &net, &board, 3, &mut seen);
                }
            }
            assert!(seen.nodes > 20_000, "{seen:?}");
            assert!(seen.promotions > 1000, "{seen:?}");
            if net.mirrored() {
                assert!(seen.castling_crossings >= 8, "{seen:?}");
                assert!(seen.crossings >= 100, "{seen:?}");
            }
        }
    }

    #[test]
    fn every_backend_matches_the_reference_on_thousands_of_positions() {
        // Every code path this CPU runs (AVX-512, AVX2, portable), at widths that are
        // multiples of 32 (where AVX-512 runs its own code) and 16 and 48 (where it takes
        // the AVX2 code), on the root entry and on the entries after every legal move of
        // every tenth position (the row updates), against the reference refresh and
        // forward pass.
        let backends = Backend::supported();
        let fens = include_str!("../../movegen/tests/data/valid.fens");
        for (hidden, buckets) in [(256, 1), (128, 8), (64, 8), (48, 2), (32, 1), (16, 3)] {
            let net = Arc::new(Network::random(hidden, buckets, hidden as u64).unwrap());
            let mut stacks: Vec<AccumulatorStack> = backends
                .iter()
                .map(|&b| AccumulatorStack::with_backend(net.clone(), b))
                .collect();
            let (mut count, mut children) = (0, 0);
            for fen in fens.lines().take(3000) {
                let board = Board::from_fen(fen).unwrap();
                let reference = net.evaluate(&board);
                for stack in &mut stacks {
                    stack.refresh(&board);
                    assert_eq!(
                        stack.evaluate(&board),
                        reference,
                        "{} {fen}",
                        stack.backend_name()
                    );
                }
                if count % 10 == 0 {
                    for &mv in board.legal_moves().iter() {
                        let mut child = board;
                        child.play(mv);
                        let (white, black) = net.refresh(&child);
                        let reference = net.evaluate(&child);
                        for stack in &mut stacks {
                            stack.push(&board, mv);
                            let name = stack.backend_name();
                            assert_eq!(stack.current(), (&white[..], &black[..]), "{name} {fen} {mv}");
                            assert_eq!(stack.evaluate(&child), reference, "{name} {fen} {mv}");
                            stack.pop();
                        }
                        children += 1;
                    }
                }
                count += 1;
            }
            assert_eq!(count, 3000);
            assert!(children > 3000, "{children}");
        }
        // A mirrored net, on every path; a position and its mirror image (no castling
        // rights) score alike.
        let net = Arc::new(Network::random(128, 8, 3).unwrap().with_mirroring(true));
        let mut stacks: Vec<AccumulatorStack> = backends
            .iter()
            .map(|&b| AccumulatorStack::with_backend(net.clone(), b))
            .collect();
        let mut images = 0;
        for fen in fens.lines().take(2000) {
            let board = Board::from_fen(fen).unwrap();
            let reference = net.evaluate(&board);
            let image = board
                .castling_rights()
                .is_empty()
                .then(|| Board::from_fen(&mirror_fen(fen)).unwrap());
            images += usize::from(image.is_some());
            for stack in &mut stacks {
                let name = stack.backend_name();
                stack.refresh(&board);
                assert_eq!(stack.evaluate(&board), reference, "{name} {fen}");
                if let Some(image) = &image {
                    stack.refresh(image);
                    assert_eq!(stack.evaluate(image), reference, "{name} {fen}");
                }
            }
        }
        assert!(images > 1000, "{images}");
        // Nets with hidden layers, on every path, at widths AVX-512 reads whole and not.
        for (text, seed) in [
            ("(768 -> 128)x2 -> (16 -> 32 -> 1)x8", 1),
            ("(768 -> 48)x2 -> (32 -> 1)x2", 2),
            ("(768x4 -> 64)x2 -> (8 -> 8 -> 8 -> 1)x8", 3),
        ] {
            let net = Arc::new(Network::random_arch(&text.parse().unwrap(), seed).unwrap());
            let mut stacks: Vec<AccumulatorStack> = backends
                .iter()
                .map(|&b| AccumulatorStack::with_backend(net.clone(), b))
                .collect();
            let mut distinct = std::collections::HashSet::new();
            for fen in fens.lines().take(1500) {
                let board = Board::from_fen(fen).unwrap();
                let reference = net.evaluate(&board);
                distinct.insert(reference);
                for stack in &mut stacks {
                    stack.refresh(&board);
                    assert_eq!(
                        stack.evaluate(&board),
                        reference,
                        "{} {text} {fen}",
                        stack.backend_name()
                    );
                }
            }
            assert!(distinct.len() > 50, "{text}: {}", distinct.len());
        }
        // The material net gives exact material scores through every path.
        let net = Arc::new(Network::material(32).unwrap());
        let board = Board::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1").unwrap();
        for backend in backends {
            let mut fast = AccumulatorStack::with_backend(net.clone(), backend);
            fast.refresh(&board);
            assert_eq!(fast.evaluate(&board), -496, "five pawn units down");
        }
    }

    #[test]
    fn luft_simd_names_a_supported_path_or_is_refused() {
        let supported = Backend::supported();
        assert_eq!(supported[0], Backend::portable());
        assert!(supported.contains(&Backend::detect()));
        for backend in &supported {
            assert_eq!(Backend::choose(backend.name(), &supported), Ok(*backend));
        }
        assert!(Backend::choose("sse9", &supported)
            .unwrap_err()
            .contains("names no code path"));
        let only_portable = [Backend::portable()];
        assert!(Backend::choose("avx2", &only_portable)
            .unwrap_err()
            .contains("cannot run it"));
        assert!(Backend::choose("avx512", &only_portable).is_err());
        // Without LUFT_SIMD the best path runs; the AVX-512 one may also use AVX2 code.
        if std::env::var("LUFT_SIMD").is_err() {
            assert_eq!(Some(&Backend::detect()), supported.last());
        }
        for backend in supported {
            assert!(!backend.is_avx512() || backend.is_avx2());
        }
    }

    /// The FEN of `fen`'s horizontal mirror image (for positions without castling rights;
    /// the en passant square mirrored).
    fn mirror_fen(fen: &str) -> String {
        let fields: Vec<&str> = fen.split(' ').collect();
        let placement: Vec<String> = fields[0].split('/').map(|r| r.chars().rev().collect()).collect();
        let ep: String = fields[3]
            .chars()
            .map(|c| match c {
                'a'..='h' => (b'h' - (c as u8 - b'a')) as char,
                c => c,
            })
            .collect();
        format!(
            "{} {} {} {ep} {}",
            placement.join("/"),
            fields[1],
            fields[2],
            fields[4..].join(" ")
        )
    }

    #[test]
    fn the_simd_path_refuses_slices_it_cannot_read_whole() {
        // A net cannot be made 8 wide any more; should such slices reach the output layer
        // anyway, the AVX2 path is skipped and the portable one gives the exact sum.
        assert!(Network::random(8, 1, 0).is_err());
        let acc: Vec<i16> = (0..24).map(|i| i * 9).collect();
        let w: Vec<i16> = (0..24).map(|i| 60 - 5 * i).collect();
        let (a8, w8) = (&acc[..8], &w[..8]);
        assert!(!simd_shape_ok(a8, a8, w8, w8));
        assert!(!simd_shape_ok(&acc[..16], &acc[..16], &w[..16], w8));
        assert!(simd_shape_ok(&acc[..16], &acc[8..24], &w[..16], &w[8..24]));
        for backend in Backend::supported() {
            assert_eq!(forward_sum(backend, a8, a8, w8, w8), output_sum(a8, a8, w8, w8));
            assert_eq!(
                forward_sum(backend, &acc[..16], &acc[8..24], &w[..16], &w[8..24]),
                output_sum(&acc[..16], &acc[8..24], &w[..16], &w[8..24])
            );
        }
        assert_eq!(Backend::portable().name(), "portable");
        assert!(!Backend::portable().is_avx2());
    }
}
