//! The active set of a tridiagonal Z-matrix problem in one sweep, `O(n)`.
//!
//! A chain of bodies pushing on their neighbours along one line gives a
//! tridiagonal contact matrix whose off-diagonal entries are `<= 0` (a
//! Z-matrix; with the P-property an M-matrix). For such problems the solution
//! is the least feasible point, and freeing any pinned component whose `w` is
//! negative never frees one too many (Chandrasekaran): the free set only
//! grows. Block pivoting follows that path one contact per active-set solve
//! when a load has to travel along the chain (a struck column: hundreds of
//! `O(n)` solves in one step). Here the same monotone path is walked from the
//! left in a single pass: the free components form blocks separated by pinned
//! ones, each block is summarized by its end values and the 2×2 response of
//! its ends to loads applied there (its Green's function at the ends), and
//! freeing a component merges its neighbouring blocks in `O(1)`. Every merge
//! removes a block, so the pass is `O(n)` whatever the order of events.
//!
//! A pinned component is freed when its `w` is negative beyond a small
//! fraction of the size of the terms that `w` sums, row by row, as the
//! acceptance test measures: the same decisions in any units, and a row of
//! rounding noise (beads at rest on one another) decided in its own scale.
//! (One threshold for the whole chain, a fraction of its largest load, left
//! such rows to block pivoting, which freed them about one per solve.)
//!
//! The sweep only decides the active set; the caller solves it exactly with the
//! band LU and verifies the result, so rounding in the summaries can at worst
//! cost a few block-pivoting iterations afterwards, never a wrong answer.

use super::banded::BandProblem;
use super::Bound;

/// A run `a..=b` of free components. With loads `x` into `a` and `y` into `b`
/// (from outside the run) its end values are `v_a = ca + gaa x + gab y`,
/// `v_b = cb + gba x + gbb y`; values are above the lower bounds.
#[derive(Clone, Copy, Debug)]
struct Block {
    a: usize,
    b: usize,
    ca: f64,
    cb: f64,
    gaa: f64,
    gab: f64,
    gba: f64,
    gbb: f64,
}

/// Workspace of the sweep, allocated once for problems of order `n`.
#[derive(Clone, Debug)]
pub(super) struct Sweep {
    /// The blocks left of the current position, in order (at most `n`).
    blocks: Vec<Block>,
    /// `q + M lo`: the offset in the shifted unknowns `v = u - lo >= 0`.
    qs: Vec<f64>,
    /// The size of the terms `qs` sums (`|q_i| + sum_j |M_ij lo_j|`), to which
    /// each row's threshold adds the terms of its neighbours' values.
    qs_mag: Vec<f64>,
}

/// Entries of row `i` of a tridiagonal band: `(M(i,i-1), M(i,i), M(i,i+1))`.
#[inline]
fn row3(p: &BandProblem, i: usize) -> (f64, f64, f64) {
    let r = p.m.row(i);
    (r[0], r[1], r[2])
}

impl Sweep {
    pub(super) fn new(n: usize) -> Self {
        Sweep {
            blocks: Vec::with_capacity(n),
            qs: vec![0.0; n],
            qs_mag: vec![0.0; n],
        }
    }

    /// Whether the sweep is exact for `p`: `M` tridiagonal with a positive
    /// diagonal and no positive off-diagonal entry, every lower bound finite,
    /// every upper bound either `+inf` or equal to the lower one (a fixed
    /// component). Upper bounds that can become active break the monotone path.
    pub(super) fn applies(p: &BandProblem) -> bool {
        if p.m.kl() != 1 || p.m.ku() != 1 {
            return false;
        }
        (0..p.n()).all(|i| {
            let (l, d, r) = row3(p, i);
            let (lo, hi) = (p.lo[i], p.hi[i]);
            d > 0.0
                && d.is_finite()
                && l <= 0.0
                && r <= 0.0
                && l.is_finite()
                && r.is_finite()
                && lo.is_finite()
                && (hi == lo || hi == f64::INFINITY)
        })
    }

    /// Writes the active set of `p` (which must satisfy [`Sweep::applies`])
    /// into `active`: `Free` or `Lower`; a pinned component `k` is freed when
    /// its `w` is below `-eps` times the size of the terms that `w` sums
    /// (`|q_k|`, `|M_kj lo_j|` and `|M_kj|` times the values the sweep has
    /// reached above the neighbours' bounds), the module text's per-row scale.
    /// False when a merge meets a non-positive pivot (then `M` is not an
    /// M-matrix), leaving `active` alone.
    pub(super) fn run(&mut self, p: &BandProblem, eps: f64, active: &mut [Bound]) -> bool {
        let n = p.n();
        for i in 0..n {
            let (l, d, r) = row3(p, i);
            let lo = |j: usize| p.lo[j];
            let mut s = p.q[i] + d * lo(i);
            let mut a = p.q[i].abs() + (d * lo(i)).abs();
            if i > 0 {
                s += l * lo(i - 1);
                a += (l * lo(i - 1)).abs();
            }
            if i + 1 < n {
                s += r * lo(i + 1);
                a += (r * lo(i + 1)).abs();
            }
            self.qs[i] = s;
            self.qs_mag[i] = a;
        }
        self.blocks.clear();
        for k in 0..n {
            if p.lo[k] == p.hi[k] {
                continue;
            }
            // Only the left neighbour can be above its bound yet.
            let lv = row3(p, k).0 * self.end_before(k);
            let w = self.qs[k] + lv;
            if w >= -eps * (self.qs_mag[k] + lv.abs()) {
                continue;
            }
            let mut blk = singleton(p, &self.qs, k);
            if let Some(top) = self.pop_ending_at(k) {
                match merge(p, &top, &blk) {
                    Some(m) => blk = m,
                    None => return false,
                }
            }
            // The run's values rose: its pinned left neighbour may now be
            // pushed below its bound, and so on down the chain.
            while blk.a > 0 {
                let j = blk.a - 1;
                if p.lo[j] == p.hi[j] {
                    break;
                }
                let (l, _, r) = row3(p, j);
                let (lv, rv) = (l * self.end_before(j), r * blk.ca);
                let w = self.qs[j] + lv + rv;
                if w >= -eps * (self.qs_mag[j] + lv.abs() + rv.abs()) {
                    break;
                }
                let mut s = singleton(p, &self.qs, j);
                if let Some(top) = self.pop_ending_at(j) {
                    match merge(p, &top, &s) {
                        Some(m) => s = m,
                        None => return false,
                    }
                }
                match merge(p, &s, &blk) {
                    Some(m) => blk = m,
                    None => return false,
                }
            }
            self.blocks.push(blk);
        }
        active[..n].fill(Bound::Lower);
        for b in &self.blocks {
            active[b.a..=b.b].fill(Bound::Free);
        }
        true
    }

    /// The shifted value of component `k - 1` as seen from a pinned `k`: the
    /// end of the last block when it ends there, else zero.
    fn end_before(&self, k: usize) -> f64 {
        match self.blocks.last() {
            Some(t) if k > 0 && t.b + 1 == k => t.cb,
            _ => 0.0,
        }
    }

    /// Removes and returns the last block when it ends at `k - 1`.
    fn pop_ending_at(&mut self, k: usize) -> Option<Block> {
        match self.blocks.last() {
            Some(t) if k > 0 && t.b + 1 == k => self.blocks.pop(),
            _ => None,
        }
    }
}

/// The block of the single free component `k`.
fn singleton(p: &BandProblem, qs: &[f64], k: usize) -> Block {
    let d = row3(p, k).1;
    let g = 1.0 / d;
    let c = -qs[k] * g;
    Block {
        a: k,
        b: k,
        ca: c,
        cb: c,
        gaa: g,
        gab: g,
        gba: g,
        gbb: g,
    }
}

/// Joins the adjacent blocks `l` (ending at `c`) and `r` (starting at
/// `c + 1`): the two coupled end values are solved for in terms of the outer
/// loads. `None` when the coupling's determinant is not positive.
fn merge(p: &BandProblem, l: &Block, r: &Block) -> Option<Block> {
    let (c, d) = (l.b, r.a);
    debug_assert_eq!(c + 1, d);
    let mcd = row3(p, c).2;
    let mdc = row3(p, d).0;
    // v_c + l.gbb mcd v_d = l.cb + l.gba x,  r.gaa mdc v_c + v_d = r.ca + r.gab y.
    let (lc, rd) = (l.gbb * mcd, r.gaa * mdc);
    let det = 1.0 - lc * rd;
    if !(det > 0.0) || !det.is_finite() {
        return None;
    }
    let inv = 1.0 / det;
    let (vc0, vcx, vcy) = ((l.cb - lc * r.ca) * inv, l.gba * inv, -lc * r.gab * inv);
    let (vd0, vdx, vdy) = ((r.ca - rd * l.cb) * inv, -rd * l.gba * inv, r.gab * inv);
    // The outer ends feel the other side through the coupling loads
    // -mcd v_d (into c) and -mdc v_c (into d).
    let (la, rb) = (l.gab * mcd, r.gba * mdc);
    Some(Block {
        a: l.a,
        b: r.b,
        ca: l.ca - la * vd0,
        gaa: l.gaa - la * vdx,
        gab: -la * vdy,
        cb: r.cb - rb * vc0,
        gba: -rb * vcx,
        gbb: r.gbb - rb * vcy,
    })
}
