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
use movegen::{Board, Move, PieceType};

const CAPACITY: usize = 256;

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
    moves: [Move; CAPACITY],
    scores: [i32; CAPACITY],
    noisy_end: usize,
    end: usize,
    cursor: usize,
    bad_end: usize,
    bad_cursor: usize,
    /// Context for quiet scoring: the side to move's previous moves.
    previous: [PieceTo; 2],
}

impl std::fmt::Debug for MovePicker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MovePicker({:?})", self.stage)
    }
}

impl MovePicker {
    /// A picker for the main search.
    pub fn new(
        board: &Board,
        tt_move: Move,
        killers: [Move; 2],
        counter: Move,
        previous: [PieceTo; 2],
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
            moves: [Move::NULL; CAPACITY],
            scores: [0; CAPACITY],
            noisy_end: 0,
            end: 0,
            cursor: 0,
            bad_end: 0,
            bad_cursor: 0,
            previous,
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
        );
        picker.quiescence = !in_check;
        picker
    }

    /// Stops handing out quiet moves (late move pruning); captures still come.
    pub fn skip_quiets(&mut self) {
        if self.stage < Stage::BadNoisy && self.stage > Stage::GoodNoisy {
            self.stage = Stage::BadNoisy;
        }
    }

    fn push(&mut self, mv: Move) {
        if self.end < CAPACITY {
            self.moves[self.end] = mv;
            self.end += 1;
        }
    }

    /// Index of the best-scored move in `[from, to)`.
    fn best_index(&self, from: usize, to: usize) -> usize {
        let mut best = from;
        for i in from + 1..to {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        best
    }

    fn is_special(&self, mv: Move) -> bool {
        mv == self.tt_move || mv == self.killers[0] || mv == self.killers[1] || mv == self.counter
    }

    fn quiet_is_generated(&self, mv: Move) -> bool {
        self.moves[self.noisy_end..self.end].contains(&mv)
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
                            self.push(mv);
                        }
                        false
                    });
                    self.noisy_end = self.end;
                    for i in 0..self.noisy_end {
                        let mv = self.moves[i];
                        let captured = if board.is_en_passant(mv) {
                            PieceType::Pawn
                        } else {
                            board.piece_type_on(mv.to()).unwrap_or(PieceType::Pawn)
                        };
                        let moving = board.piece_type_on(mv.from()).unwrap_or(PieceType::Pawn);
                        let mvv = if board.is_capture(mv) {
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
                        self.scores[i] = mvv + promo + history.capture_score(moving, mv.to(), captured);
                    }
                    self.cursor = 0;
                    self.bad_end = 0;
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => {
                    if self.cursor < self.noisy_end {
                        let best = self.best_index(self.cursor, self.noisy_end);
                        self.moves.swap(self.cursor, best);
                        self.scores.swap(self.cursor, best);
                        let mv = self.moves[self.cursor];
                        self.cursor += 1;
                        if mv == self.tt_move {
                            continue;
                        }
                        if !see(board, mv, mp_good_noisy_see_margin()) {
                            // Set aside for the bad-capture stage.
                            self.moves[self.bad_end] = mv;
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
                                self.push(mv);
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
                    for i in self.noisy_end..self.end {
                        let mv = self.moves[i];
                        let piece = movegen::Piece::new(
                            us,
                            board.piece_type_on(mv.from()).unwrap_or(PieceType::Pawn),
                        );
                        self.scores[i] =
                            history.quiet_score(us, mv, PieceTo::new(piece, mv.to()), self.previous);
                    }
                    self.cursor = self.noisy_end;
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet => {
                    if self.cursor < self.end {
                        let best = self.best_index(self.cursor, self.end);
                        self.moves.swap(self.cursor, best);
                        self.scores.swap(self.cursor, best);
                        let mv = self.moves[self.cursor];
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
                        let mv = self.moves[self.bad_cursor];
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
