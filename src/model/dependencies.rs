//! Direct feedthrough: which outputs change at once when an input is set.
//!
//! States, and the pairs that act on states (forces, percussions, the rates
//! of a backlash), are step quantities: an input changes them only through
//! the next step. An algebraic pair (a block's static map, see
//! [`Pair::algebraic`]) is a function of the current instant instead. It
//! depends on input `j` when its row `y_i` reads `w_j` (an entry of `F`) or
//! reads (an entry of `D`) another algebraic pair that depends on `j`. The
//! relation is taken along the direction of reading: a pair that no input
//! reaches keeps its step value, and so do the rows it feeds, which makes the
//! pairs that do depend on inputs a closed sub-problem (the FMU re-solves
//! exactly those). Named outputs depend on the inputs they read and on those of
//! the algebraic pairs they read. The XML's `dependencies` and the FMU's
//! behaviour both come from here.
//!
//! [`Pair::algebraic`]: super::Pair::algebraic

use super::Model;

impl Model {
    /// For every pair, the inputs it depends on at once, in increasing order.
    pub fn pair_feedthrough(&self) -> Vec<Vec<usize>> {
        let nu = self.nu();
        let mut deps: Vec<Vec<usize>> = vec![vec![]; nu];
        if !self.pairs.iter().any(|p| p.algebraic) {
            return deps;
        }
        let s = &self.system;
        let algebraic = |i: usize| self.pairs[i].algebraic;
        // Only the declared inputs: the partitions' columns of w change at
        // sample instants, never when the importer sets a value.
        let declared = self.inputs.len();
        for &(i, j, _) in &s.fw.entries {
            if algebraic(i) && j < declared {
                deps[i].push(j);
            }
        }
        let mut reads: Vec<Vec<usize>> = vec![vec![]; nu];
        for &(i, k, _) in &s.d.entries {
            if i != k && algebraic(i) && algebraic(k) {
                reads[i].push(k);
            }
        }
        // A nonlinear remainder reads what its program reads.
        let (nx, nw) = (self.nx(), self.inputs.len());
        for (i, program) in self.nonlinear.iter().flat_map(|n| &n.y) {
            if !algebraic(*i) {
                continue;
            }
            for v in program.variables() {
                if v >= nx + nu && v - nx - nu < nw {
                    deps[*i].push(v - nx - nu);
                } else if v >= nx && v - nx != *i && algebraic(v - nx) {
                    reads[*i].push(v - nx);
                }
            }
        }
        for d in &mut deps {
            d.sort_unstable();
            d.dedup();
        }
        // A fixpoint over at most nu rounds: each round settles one more link
        // of the longest chain of reads.
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..nu {
                for &k in &reads[i] {
                    for j in deps[k].clone() {
                        if !deps[i].contains(&j) {
                            deps[i].push(j);
                            changed = true;
                        }
                    }
                }
            }
        }
        for d in &mut deps {
            d.sort_unstable();
        }
        deps
    }

    /// For every named output, the inputs it depends on at once, in increasing order.
    pub fn output_feedthrough(&self) -> Vec<Vec<usize>> {
        let pairs = self.pair_feedthrough();
        let (nx, nu) = (self.nx(), self.nu());
        self.outputs
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let mut d: Vec<usize> = o.inputs.iter().map(|(j, _)| *j).collect();
                for (k, _) in &o.pairs {
                    d.extend(&pairs[*k]);
                }
                let programs = self.nonlinear.iter().flat_map(|n| &n.outputs);
                for (_, program) in programs.filter(|(k, _)| *k == i) {
                    for v in program.variables() {
                        if v >= nx + nu {
                            d.push(v - nx - nu);
                        } else if v >= nx {
                            d.extend(&pairs[v - nx]);
                        }
                    }
                }
                // Held outputs read by an output are no inputs of the importer's.
                d.retain(|&j| j < self.inputs.len());
                d.sort_unstable();
                d.dedup();
                d
            })
            .collect()
    }
}
