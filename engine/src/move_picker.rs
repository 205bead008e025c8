//! The staged move picker: moves come out in the order most likely to cause a cutoff, and
//! later stages are only generated when earlier ones failed to cut:
//! 1. the transposition-table move (checked for legality);
//! 2. good captures and promotions, by MVV plus capture history, kept only if SEE >= 0;
//! 3. the two killer moves of this ply, then the counter move (if legal quiet moves);
//! 4. the remaining quiet moves by quiet and continuation history;
//! 5. the bad captures set aside in stage 2.
//!
//! Quiescence search uses stages 1 and 2 only (plus the bad captures, which it prunes).

use crate::history::{History, PieceTo};
use crate::params::{
    mp_good_noisy_see_margin, mp_mvv_multiplier, mp_queen_promotion, mp_under_promotion, see_value,
};
use crate::see::see;
use movegen::{Bitboard, Board, Move, PieceType};
use std::mem::MaybeUninit;

const CAPACITY: usize = 256;

/// The picker's move list and scores: `CAPACITY` slots left uninitialised, since a picker
/// is made at every node, quiescence included, and most nodes use a few slots of 1.5 KiB;
/// slot `i` is written before it is read, which the picker keeps by reading only below
/// `end` (moves) and inside the scored ranges (scores).
struct MoveList {
    moves: [MaybeUninit<Move>; CAPACITY],
    scores: [MaybeUninit<i32>; CAPACITY],
    /// Moves written: slots `0..end` hold moves.
    end: usize,
}

impl MoveList {
    #[inline]
    fn new() -> Self {
        MoveList {
            moves: [const { MaybeUninit::uninit() }; CAPACITY],
            scores: [const { MaybeUninit::uninit() }; CAPACITY],
            end: 0,
        }
    }

    /// Appends `mv` (dropped past `CAPACITY`, which no legal position reaches: at most 218).
    #[inline]
    fn push(&mut self, mv: Move) {
        if self.end < CAPACITY {
            self.moves[self.end] = MaybeUninit::new(mv);
            self.end += 1;
        }
    }

    /// The move in slot `i`. Panics if `i >= end` (never written).
    #[inline]
    fn get(&self, i: usize) -> Move {
        assert!(i < self.end);
        // SAFETY: slots below `end` were written by `push` or `set`, which never lower `end`.
        unsafe { self.moves[i].assume_init() }
    }

    /// Overwrites slot `i < end`.
    #[inline]
    fn set(&mut self, i: usize, mv: Move) {
        assert!(i < self.end);
        self.moves[i] = MaybeUninit::new(mv);
    }

    /// The moves in slots `from..to` (`to <= end`).
    #[inline]
    fn slice(&self, from: usize, to: usize) -> &[Move] {
        assert!(from <= to && to <= self.end);
        // SAFETY: slots below `end` are written; `MaybeUninit<Move>` has `Move`'s layout.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().add(from).cast::<Move>(), to - from) }
    }

    /// Gives slot `i < end` its score.
    #[inline]
    fn set_score(&mut self, i: usize, score: i32) {
        assert!(i < self.end);
        self.scores[i] = MaybeUninit::new(score);
    }

    /// The score of slot `i`; the caller has scored it with `set_score` (or a `swap` moved a
    /// scored one there).
    #[inline]
    fn score(&self, i: usize) -> i32 {
        assert!(i < self.end);
        // SAFETY: `i < end`, and every slot of a range is scored before the range is picked
        // from (`GenerateNoisy` scores `0..noisy_end`, `GenerateQuiet` `noisy_end..end`);
        // an `i32` has no invalid bit patterns either way.
        unsafe { self.scores[i].assume_init() }
    }

    /// Swaps slots `a` and `b` (moves and scores), both below `end`.
    #[inline]
    fn swap(&mut self, a: usize, b: usize) {
        assert!(a < self.end && b < self.end);
        self.moves.swap(a, b);
        self.scores.swap(a, b);
    }

    /// Index of the best-scored move in `[from, to)`.
    #[inline]
    fn best_index(&self, from: usize, to: usize) -> usize {
        let mut best = from;
        let mut best_score = self.score(from);
        for i in from + 1..to {
            let score = self.score(i);
            if score > best_score {
                best = i;
                best_score = score;
            }
        }
        best
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    TtMove,
    GenerateNoisy,
    GoodNoisy,
    Killer1,
    Killer2,
    Counter,
    GenerateQuiet,
    Quiet,
    BadNoisy,
    Done,
}

pub struct MovePicker {
    stage: Stage,
    tt_move: Move,
    killers: [Move; 2],
    counter: Move,
    quiescence: bool,
    list: MoveList,
    noisy_end: usize,
    cursor: usize,
    bad_end: usize,
    bad_cursor: usize,
    /// Context for quiet scoring: the side to move's previous moves.
    previous: [PieceTo; 2],
    /// Context for quiet scoring: the squares the opponent attacks.
    threats: Bitboard,
}

impl std::fmt::Debug for MovePicker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MovePicker({:?})", self.stage)
    }
}

impl MovePicker {
    /// A picker for the main search; `threats` are the squares the opponent attacks.
    pub fn new(
        board: &Board,
        tt_move: Move,
        killers: [Move; 2],
        counter: Move,
        previous: [PieceTo; 2],
        threats: Bitboard,
    ) -> Self {
        let tt_move = if !tt_move.is_null() && board.is_legal(tt_move) {
            tt_move
        } else {
            Move::NULL
        };
        MovePicker {
            stage: Stage::TtMove,
            tt_move,
            killers,
            counter,
            quiescence: false,
            list: MoveList::new(),
            noisy_end: 0,
            cursor: 0,
            bad_end: 0,
            bad_cursor: 0,
            previous,
            threats,
        }
    }

    /// A picker for quiescence: noisy moves only (all moves when in check).
    pub fn quiescence(board: &Board, tt_move: Move) -> Self {
        let in_check = board.in_check();
        let tt_ok =
            !tt_move.is_null() && (in_check || board.is_capture(tt_move) || tt_move.promotion().is_some());
        let mut picker = MovePicker::new(
            board,
            if tt_ok { tt_move } else { Move::NULL },
            [Move::NULL; 2],
            Move::NULL,
            [PieceTo::NONE; 2],
            // Quiet moves come only as check evasions.
            if in_check {
                board.attacks_by(!board.side_to_move())
            } else {
                Bitboard::EMPTY
            },
        );
        picker.quiescence = !in_check;
        picker
    }

    /// Whether the move `next` returned last came from the good noisy stage: it won at least
    /// `mp_good_noisy_see_margin` by static exchange (SEE is monotone in its threshold, so
    /// any lower threshold holds too).
    #[inline]
    pub fn last_passed_see(&self) -> bool {
        self.stage == Stage::GoodNoisy
    }

    /// Whether the move `next` returned last was a bad noisy move: it failed static exchange
    /// at `mp_good_noisy_see_margin`, and so at any higher threshold; every later move is one
    /// too.
    #[inline]
    pub fn last_failed_see(&self) -> bool {
        self.stage == Stage::BadNoisy
    }

    /// Stops handing out quiet moves (late move pruning); captures still come.
    pub fn skip_quiets(&mut self) {
        if self.stage < Stage::BadNoisy && self.stage > Stage::GoodNoisy {
            self.stage = Stage::BadNoisy;
        }
    }

    fn is_special(&self, mv: Move) -> bool {
        mv == self.tt_move || mv == self.killers[0] || mv == self.killers[1] || mv == self.counter
    }

    fn quiet_is_generated(&self, mv: Move) -> bool {
        self.list.slice(self.noisy_end, self.list.end).contains(&mv)
    }

    /// The next move, or `None` when all are out.
    pub fn next(&mut self, board: &Board, history: &History) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::GenerateNoisy;
                    if !self.tt_move.is_null() {
                        return Some(self.tt_move);
                    }
                }
                Stage::GenerateNoisy => {
                    board.generate_noisy_moves(|pm| {
                        for mv in pm {
                            self.list.push(mv);
                        }
                        false
                    });
                    self.noisy_end = self.list.end;
                    for i in 0..self.noisy_end {
                        let mv = self.list.get(i);
                        // Noisy moves never castle, so a piece on the destination is
                        // an enemy one; en passant (its destination empty) takes a pawn.
                        let target = board.piece_type_on(mv.to());
                        let captured = target.unwrap_or(PieceType::Pawn);
                        let moving = board.piece_type_on(mv.from()).unwrap_or(PieceType::Pawn);
                        let mvv = if target.is_some() || board.is_en_passant(mv) {
                            see_value(captured) * mp_mvv_multiplier()
                        } else {
                            0
                        };
                        let promo = mv.promotion().map_or(0, |p| {
                            if p == PieceType::Queen {
                                mp_queen_promotion()
                            } else {
                                mp_under_promotion()
                            }
                        });
                        self.list
                            .set_score(i, mvv + promo + history.capture_score(moving, mv.to(), captured));
                    }
                    self.cursor = 0;
                    self.bad_end = 0;
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => {
                    if self.cursor < self.noisy_end {
                        let best = self.list.best_index(self.cursor, self.noisy_end);
                        self.list.swap(self.cursor, best);
                        let mv = self.list.get(self.cursor);
                        self.cursor += 1;
                        if mv == self.tt_move {
                            continue;
                        }
                        if !see(board, mv, mp_good_noisy_see_margin()) {
                            // Set aside for the bad-capture stage.
                            self.list.set(self.bad_end, mv);
                            self.bad_end += 1;
                            continue;
                        }
                        return Some(mv);
                    }
                    self.stage = if self.quiescence {
                        Stage::BadNoisy
                    } else {
                        Stage::Killer1
                    };
                    if !self.quiescence {
                        // Quiets are generated now so killers can be checked against them.
                        board.generate_quiet_moves(|pm| {
                            for mv in pm {
                                self.list.push(mv);
                            }
                            false
                        });
                    }
                }
                Stage::Killer1 | Stage::Killer2 | Stage::Counter => {
                    let (mv, next) = match self.stage {
                        Stage::Killer1 => (self.killers[0], Stage::Killer2),
                        Stage::Killer2 => (self.killers[1], Stage::Counter),
                        _ => (self.counter, Stage::GenerateQuiet),
                    };
                    self.stage = next;
                    let duplicate = mv == self.tt_move
                        || (self.stage == Stage::GenerateQuiet
                            && (mv == self.killers[0] || mv == self.killers[1]))
                        || (self.stage == Stage::Counter && mv == self.killers[0]);
                    if !mv.is_null() && !duplicate && self.quiet_is_generated(mv) {
                        return Some(mv);
                    }
                }
                Stage::GenerateQuiet => {
                    let us = board.side_to_move();
                    for i in self.noisy_end..self.list.end {
                        let mv = self.list.get(i);
                        let score = history.quiet_score(
                            us,
                            mv,
                            PieceTo::of_move(board, mv),
                            self.previous,
                            self.threats,
                        );
                        self.list.set_score(i, score);
                    }
                    self.cursor = self.noisy_end;
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet => {
                    if self.cursor < self.list.end {
                        let best = self.list.best_index(self.cursor, self.list.end);
                        self.list.swap(self.cursor, best);
                        let mv = self.list.get(self.cursor);
                        self.cursor += 1;
                        if self.is_special(mv) {
                            continue;
                        }
                        return Some(mv);
                    }
                    self.stage = Stage::BadNoisy;
                }
                Stage::BadNoisy => {
                    if self.bad_cursor < self.bad_end {
                        let mv = self.list.get(self.bad_cursor);
                        self.bad_cursor += 1;
                        return Some(mv);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The picker against the move generator along perft trees: at every node it yields
    //! each legal move exactly once, whatever hash move, killers and counter it is given
    //! (legal, pseudo-legal but illegal, from another position, garbage), and in
    //! quiescence exactly the evasions (in check) or the captures and promotions; and at
    //! every node the board's mailbox agrees with its bitboards.

    use super::*;
    use movegen::rng::SplitMix64;
    use movegen::{Color, Piece, Square};

    /// (FEN, depth): perft trees over castling (standard and Chess960), en passant
    /// (including one pinned along the rank), promotions and under-promotions, checks and
    /// double checks.
    const POSITIONS: &[(&str, u32)] = &[
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            2,
        ),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            2,
        ),
        ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 2),
        ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", 3),
        ("8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1", 3),
        ("r3k2r/8/8/8/3pPp2/8/8/R3K1RR b KQkq e3 0 1", 2),
        ("4k3/8/8/2b5/8/8/1n6/R3K2R w KQ - 0 1", 3),
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            2,
        ),
        ("r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1", 2),
        ("2r5/8/8/8/8/8/6PP/k2KR3 w K - 0 1", 3),
        ("4r3/3k4/8/8/8/8/6PP/qR1K1R2 w KQ - 0 1", 3),
    ];

    fn sorted(mut moves: Vec<Move>) -> Vec<Move> {
        moves.sort_by_key(|m| m.to_u16());
        moves
    }

    /// Every move the picker hands out, in order.
    fn drain(picker: &mut MovePicker, board: &Board, history: &History) -> Vec<Move> {
        let mut out = Vec::new();
        while let Some(mv) = picker.next(board, history) {
            out.push(mv);
            assert!(out.len() <= 256, "the picker does not stop");
        }
        out
    }

    /// A history with arbitrary scores, so the ordering is not trivial.
    fn noisy_history(rng: &mut SplitMix64) -> History {
        let mut history = History::default();
        for _ in 0..20_000 {
            let from = Square::new(rng.below(64) as u8);
            let to = Square::new(rng.below(64) as u8);
            let color = if rng.below(2) == 0 {
                Color::White
            } else {
                Color::Black
            };
            let kind = PieceType::ALL[rng.below(6)];
            let captured = PieceType::ALL[rng.below(5)];
            let bonus = rng.below(4000) as i32 - 2000;
            let piece_to = PieceTo::new(Piece::new(color, kind), to);
            let previous = [PieceTo::new(Piece::new(!color, kind), from), PieceTo::NONE];
            let threats = movegen::Bitboard(rng.next_u64());
            history.update_quiet(
                color,
                Move::new(from, to, None),
                piece_to,
                previous,
                threats,
                bonus,
            );
            history.update_capture(kind, to, captured, bonus);
        }
        history
    }

    struct Walk {
        rng: SplitMix64,
        history: History,
        nodes: u64,
        leaves: u64,
    }

    impl Walk {
        /// A candidate for the hash move, a killer or the counter: a legal move of this
        /// position (quiet or noisy), a legal move of the parent (almost always illegal
        /// here), a move of one of our pieces to any square (often pseudo-legal but
        /// illegal: pinned, into check, blocked), garbage, or none.
        fn candidate(&mut self, board: &Board, legal: &[Move], parent: &[Move]) -> Move {
            let pick = |rng: &mut SplitMix64, list: &[Move]| {
                if list.is_empty() {
                    Move::NULL
                } else {
                    list[rng.below(list.len())]
                }
            };
            match self.rng.below(7) {
                0 | 1 => pick(&mut self.rng, legal),
                2 => {
                    let quiets: Vec<Move> = legal
                        .iter()
                        .copied()
                        .filter(|&m| !board.is_capture(m) && m.promotion().is_none())
                        .collect();
                    pick(&mut self.rng, &quiets)
                }
                3 => pick(&mut self.rng, parent),
                4 => {
                    let ours: Vec<Square> = board.colored(board.side_to_move()).into_iter().collect();
                    let from = ours[self.rng.below(ours.len())];
                    let to = Square::new(self.rng.below(64) as u8);
                    let promotion =
                        (self.rng.below(4) == 0).then(|| PieceType::PROMOTIONS[self.rng.below(4)]);
                    Move::new(from, to, promotion)
                }
                5 => Move::from_u16(self.rng.next_u64() as u16 & 0x4fff).unwrap_or(Move::NULL),
                _ => Move::NULL,
            }
        }

        fn visit(&mut self, board: &Board, depth: u32, parent: &[Move]) {
            self.nodes += 1;
            let legal: Vec<Move> = board.legal_moves().iter().copied().collect();
            let expected = sorted(legal.clone());
            let fen = board.to_fen();
            // The piece types the picker scores with come from the board's mailbox.
            assert_eq!(board.mailbox_mismatch(), None, "{fen}");

            // Main search: every legal move once, whatever the candidates.
            for _ in 0..4 {
                let tt_move = self.candidate(board, &legal, parent);
                let mut killers = [
                    self.candidate(board, &legal, parent),
                    self.candidate(board, &legal, parent),
                ];
                let mut counter = self.candidate(board, &legal, parent);
                // Duplicates among the candidates, as the search can give them.
                match self.rng.below(4) {
                    0 => killers[1] = killers[0],
                    1 => counter = killers[0],
                    2 => killers[0] = tt_move,
                    _ => {}
                }
                let us = board.side_to_move();
                let previous = [
                    PieceTo::new(
                        Piece::new(!us, PieceType::ALL[self.rng.below(6)]),
                        Square::new(self.rng.below(64) as u8),
                    ),
                    PieceTo::NONE,
                ];
                let threats = board.attacks_by(!us);
                let mut picker = MovePicker::new(board, tt_move, killers, counter, previous, threats);
                let got = drain(&mut picker, board, &self.history);
                assert_eq!(
                    sorted(got.clone()),
                    expected,
                    "{fen}: tt {tt_move} killers {killers:?} counter {counter}"
                );
                if board.is_legal(tt_move) {
                    assert_eq!(got.first(), Some(&tt_move), "{fen}: the hash move comes first");
                }
                // The other quiet moves come by quiet history under the opponent's threats.
                let scores: Vec<i32> = got
                    .iter()
                    .filter(|&&m| {
                        !board.is_capture(m)
                            && m.promotion().is_none()
                            && m != tt_move
                            && !killers.contains(&m)
                            && m != counter
                    })
                    .map(|&m| {
                        self.history
                            .quiet_score(us, m, PieceTo::of_move(board, m), previous, threats)
                    })
                    .collect();
                assert!(
                    scores.windows(2).all(|w| w[0] >= w[1]),
                    "{fen}: quiet moves out of history order {scores:?}"
                );

                // Late move pruning after the first quiet move: every noisy move still comes.
                let mut picker = MovePicker::new(board, tt_move, killers, counter, previous, threats);
                let mut got = Vec::new();
                let mut skipped = false;
                while let Some(mv) = picker.next(board, &self.history) {
                    got.push(mv);
                    if !skipped && !board.is_capture(mv) && mv.promotion().is_none() {
                        picker.skip_quiets();
                        skipped = true;
                    }
                }
                let unique = sorted(got.clone());
                assert!(
                    unique.windows(2).all(|w| w[0] != w[1]),
                    "{fen}: a move twice: {got:?}"
                );
                assert!(got.iter().all(|m| legal.contains(m)), "{fen}: {got:?}");
                for &mv in &legal {
                    if board.is_capture(mv) || mv.promotion().is_some() {
                        assert!(got.contains(&mv), "{fen}: noisy {mv} lost by skip_quiets");
                    }
                }
            }

            // Quiescence: evasions in check, else exactly the captures and promotions.
            let noisy: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|&m| board.is_capture(m) || m.promotion().is_some())
                .collect();
            assert_eq!(
                sorted(noisy.clone()),
                sorted(board.noisy_moves().iter().copied().collect())
            );
            let want = if board.in_check() {
                expected.clone()
            } else {
                sorted(noisy)
            };
            for _ in 0..3 {
                let tt_move = self.candidate(board, &legal, parent);
                let mut picker = MovePicker::quiescence(board, tt_move);
                let got = drain(&mut picker, board, &self.history);
                assert_eq!(sorted(got.clone()), want, "{fen}: quiescence, tt {tt_move}");
                if want.contains(&tt_move) {
                    assert_eq!(got.first(), Some(&tt_move), "{fen}: quiescence hash move first");
                }
            }

            if depth == 0 {
                self.leaves += 1;
                return;
            }
            for &mv in &legal {
                let mut child = *board;
                child.play(mv);
                self.visit(&child, depth - 1, &legal);
            }
        }
    }

    #[test]
    fn the_picker_yields_exactly_the_legal_moves_along_perft_trees() {
        let mut rng = SplitMix64(0x5eed);
        let history = noisy_history(&mut rng);
        let mut walk = Walk {
            rng,
            history,
            nodes: 0,
            leaves: 0,
        };
        for &(fen, depth) in POSITIONS {
            let board = Board::from_fen(fen).unwrap();
            walk.leaves = 0;
            walk.visit(&board, depth, &[]);
            // The walk covered the whole tree.
            assert_eq!(walk.leaves, movegen::perft(&board, depth), "{fen}");
        }
        assert!(walk.nodes > 50_000, "{}", walk.nodes);
    }
}
