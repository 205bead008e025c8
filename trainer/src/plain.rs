//! The plain reference implementation the benchmark measures the trainer against: per
//! sample, f32, rows as fixed-size arrays, one gradient buffer per thread allocated once,
//! one chunk of the batch per thread, no hand-tuned loops and no CPU-specific code. It
//! computes the same function and gradient as [`crate::model::Kernel`].
//!
//! A comparison is only fair when both sides are compiled for the same CPU:
//! [`PlainNet::batch_for`] runs this same code built with the target features of a given
//! [`Kernel`] (the kernel's own dispatch compiles the per-thread loop, with
//! [`PlainNet::sample`] inlined, into its `#[target_feature]` builds), chosen by the same
//! CPU check, so that the compiler vectorises it as it would with `-C target-cpu=native`.
//! [`PlainNet::batch`] is the portable build.

#![allow(clippy::needless_range_loop)] // plain indexed loops, on purpose

use crate::data::{sigmoid, Position};
use crate::model::Kernel;
use crate::simd::PerIsa;
use rayon::prelude::*;

/// Weights of a width-`N` network in plain form.
#[derive(Clone, Debug)]
pub struct PlainNet<const N: usize> {
    /// Feature weights: `INPUTS` rows of N.
    pub ft_w: Vec<[f32; N]>,
    /// Feature biases.
    pub ft_b: [f32; N],
    /// Output weights: side to move's N, then the other side's.
    pub out_w: [[f32; N]; 2],
    /// Output bias.
    pub out_b: f32,
}

/// Gradients of a [`PlainNet`], in the same shape.
#[derive(Clone, Debug)]
pub struct PlainGrad<const N: usize> {
    /// Of the feature weights.
    pub ft_w: Vec<[f32; N]>,
    /// Of the feature biases.
    pub ft_b: [f32; N],
    /// Of the output weights.
    pub out_w: [[f32; N]; 2],
    /// Of the output bias.
    pub out_b: f32,
}

impl<const N: usize> PlainGrad<N> {
    /// All zero.
    pub fn zeroed() -> Self {
        PlainGrad {
            ft_w: vec![[0.0; N]; nnue::INPUTS],
            ft_b: [0.0; N],
            out_w: [[0.0; N]; 2],
            out_b: 0.0,
        }
    }
    fn clear(&mut self) {
        self.ft_w.iter_mut().for_each(|r| *r = [0.0; N]);
        self.ft_b = [0.0; N];
        self.out_w = [[0.0; N]; 2];
        self.out_b = 0.0;
    }
}

impl<const N: usize> PlainNet<N> {
    /// The net of a flat one-bucket parameter vector (`crate::model::Layout::new(N)`).
    pub fn from_flat(params: &[f32]) -> Self {
        let l = crate::model::Layout::new(N);
        let mut net = PlainNet {
            ft_w: vec![[0.0; N]; nnue::INPUTS],
            ft_b: [0.0; N],
            out_w: [[0.0; N]; 2],
            out_b: params[l.out_b],
        };
        for (f, row) in net.ft_w.iter_mut().enumerate() {
            row.copy_from_slice(&params[f * N..(f + 1) * N]);
        }
        net.ft_b.copy_from_slice(&params[l.ft_bias..l.out_w]);
        net.out_w[0].copy_from_slice(&params[l.out_w..l.out_w + N]);
        net.out_w[1].copy_from_slice(&params[l.out_w + N..l.out_b]);
        net
    }

    /// Forward and backward of one sample into `g`; returns its loss. (Always inlined, so
    /// that each build of [`PlainNet::batch_for`] compiles it with its CPU features.)
    #[inline(always)]
    pub fn sample(&self, pos: &Position, wdl: f32, g: &mut PlainGrad<N>) -> f32 {
        let mut acc = [self.ft_b, self.ft_b];
        for i in 0..pos.count as usize {
            let (s, n) = (pos.stm[i] as usize, pos.nstm[i] as usize);
            for j in 0..N {
                acc[0][j] += self.ft_w[s][j];
                acc[1][j] += self.ft_w[n][j];
            }
        }
        let mut out = self.out_b;
        for v in 0..2 {
            for j in 0..N {
                let x = acc[v][j].clamp(0.0, 1.0);
                out += x * x * self.out_w[v][j];
            }
        }
        let p = sigmoid(out);
        let t = pos.target(wdl);
        let d = 2.0 * (p - t) * p * (1.0 - p);
        g.out_b += d;
        let mut delta = [[0.0f32; N]; 2];
        for v in 0..2 {
            for j in 0..N {
                let a = acc[v][j];
                let x = a.clamp(0.0, 1.0);
                g.out_w[v][j] += d * x * x;
                if a > 0.0 && a < 1.0 {
                    delta[v][j] = 2.0 * d * self.out_w[v][j] * a;
                }
                g.ft_b[j] += delta[v][j];
            }
        }
        for i in 0..pos.count as usize {
            let (s, n) = (pos.stm[i] as usize, pos.nstm[i] as usize);
            for j in 0..N {
                g.ft_w[s][j] += delta[0][j];
                g.ft_w[n][j] += delta[1][j];
            }
        }
        (p - t) * (p - t)
    }

    /// One batch on the current rayon pool: a chunk per gradient buffer; returns the loss.
    /// The portable build ([`PlainNet::batch_for`] with [`Kernel::portable`]).
    pub fn batch(&self, batch: &[Position], wdl: f32, grads: &mut [PlainGrad<N>]) -> f64 {
        self.batch_for(Kernel::portable(), batch, wdl, grads)
    }

    /// [`PlainNet::batch`] with the plain code built for `kernel`'s instruction set: the
    /// target features the kernel is compiled with, available because `kernel` exists
    /// (only constructors that checked the CPU make one).
    pub fn batch_for(&self, kernel: Kernel, batch: &[Position], wdl: f32, grads: &mut [PlainGrad<N>]) -> f64 {
        let chunk = batch.len().div_ceil(grads.len()).max(1);
        grads
            .par_iter_mut()
            .zip(batch.par_chunks(chunk))
            .map(|(g, positions)| {
                g.clear();
                kernel.run(Samples {
                    net: self,
                    positions,
                    wdl,
                    g,
                })
            })
            .sum()
    }

    /// Every sample of `positions` in order into `g`; returns the summed loss.
    #[inline(always)]
    fn samples(&self, positions: &[Position], wdl: f32, g: &mut PlainGrad<N>) -> f64 {
        let mut loss = 0.0;
        for p in positions {
            loss += f64::from(self.sample(p, wdl, g));
        }
        loss
    }
}

/// [`PlainNet::samples`] of one thread's share, as [`Kernel::run`] builds it (the same
/// code for every instruction set).
struct Samples<'a, const N: usize> {
    net: &'a PlainNet<N>,
    positions: &'a [Position],
    wdl: f32,
    g: &'a mut PlainGrad<N>,
}

impl<const N: usize> PerIsa for Samples<'_, N> {
    type Out = f64;

    #[inline(always)]
    fn portable(self) -> f64 {
        self.net.samples(self.positions, self.wdl, self.g)
    }
}
