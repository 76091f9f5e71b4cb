//! Second stage for the signal form: states whose derivatives are linear
//! forms (`der = "-k*x1 - c*x2 + F"`) and Simulink-style [`blocks`](super::blocks), lowered
//! onto the same first-order [`System`] the matrix form gives.
//!
//! Lowering runs in two passes. The first checks every block's type and keys
//! and allocates its variables: the user's states, then one state per block
//! with memory, then per block its output pair (unless the output is a state)
//! and the pairs of its roles, all in file order. Every name is known after
//! it, so the second pass can read any signal from any expression, including
//! a block's own output or a later block's (algebraic loops end up in one LCP,
//! solved jointly). The second pass turns derivatives and block laws into one
//! row per state (`x'`) and per pair (`y`), and splits the rows into
//! `A B E f` and `C D F g`.

use super::affine::{self, Affine, Symbol};
use super::block_params::{settings, text_of};
use super::blocks::{BlockType, Output, Params};
use super::expr::{self, Expr, Node};
use super::program::Nonlinear;
use super::raw::{RawBlock, RawModel, RawPair, RawSystem, RawVariable, Value};
use super::validate::{MatrixContext, Names, Res, Validator};
use super::{Block, Condition, ExprMatrix, Pair, System, Variable};

/// What the signal form lowers into.
pub(super) struct Lowered {
    pub states: Vec<Variable>,
    pub pairs: Vec<Pair>,
    pub system: System,
    pub blocks: Vec<Block>,
    pub conditions: Vec<Condition>,
    /// The nonlinear remainders of derivatives and pair rows (outputs come later).
    pub nonlinear: Nonlinear,
}

/// The parts of a file the signal form reads.
pub(super) struct Signals<'r> {
    pub states: &'r [RawVariable],
    pub blocks: &'r [RawBlock],
    pub system: &'r RawSystem,
    pub complementarity: &'r [RawPair],
}

/// A block after the first pass.
struct Placed<'r> {
    raw: &'r RawBlock,
    kind: BlockType,
    params: Params,
    out: Slot,
    /// The pairs of its roles.
    roles: Vec<usize>,
}

/// Where a block's output lives.
#[derive(Clone, Copy)]
enum Slot {
    State(usize),
    Pair(usize),
}

const DER_HINT: &str = " (a derivative reads states, inputs, block outputs, parameters and time)";
const INPUT_HINT: &str =
    " (a block input reads states, inputs, block outputs, parameters and time)";

/// Whether a file uses the signal form.
pub(super) fn wanted(raw: &RawModel) -> bool {
    !raw.blocks.is_empty() || raw.states.iter().any(|s| s.der.is_some())
}

impl Validator<'_> {
    pub(super) fn signals(
        &self,
        raw: Signals,
        inputs: &[Variable],
        names: &mut Names,
        ctx: &MatrixContext,
    ) -> Res<Lowered> {
        let s = raw.system;
        let system_given = [&s.a, &s.b, &s.e, &s.c, &s.d, &s.fw]
            .iter()
            .any(|m| m.is_some())
            || s.f.is_some()
            || s.g.is_some();
        let clash = if system_given {
            Some("system")
        } else if !raw.complementarity.is_empty() {
            Some("complementarity")
        } else {
            None
        };
        if let Some(field) = clash {
            return self.fail(
                field,
                "a model written with state derivatives (der) and blocks derives its matrices and pairs; remove this section or write every state without der",
            );
        }

        let mut states = Vec::new();
        for (i, v) in raw.states.iter().enumerate() {
            let field = format!("states[{i}]");
            names.declare(self, field.clone(), &v.name)?;
            let start = self.constant(&format!("{field}.start"), v.start.as_ref())?;
            if v.der.is_none() {
                return self.fail(
                    format!("{field}.der"),
                    "missing: in a model with blocks or derivatives every state gives its derivative (der = \"...\")",
                );
            }
            states.push(state_variable(v, start));
        }

        // First pass: types, keys, parameters, and where every variable goes.
        let mut placed = Vec::with_capacity(raw.blocks.len());
        let mut pairs: Vec<Pair> = Vec::new();
        let mut conditions = Vec::new();
        for (i, b) in raw.blocks.iter().enumerate() {
            let field = format!("blocks[{i}]");
            let kind = BlockType::from_name(&b.kind).map_or_else(
                || {
                    let known: Vec<&str> = super::blocks::TYPES.iter().map(|(n, _)| *n).collect();
                    self.fail(
                        format!("{field}.type"),
                        format!(
                            "unknown block type '{}' (expected one of: {})",
                            b.kind,
                            known.join(", ")
                        ),
                    )
                },
                Ok,
            )?;
            let params = self.block_params(&field, b, kind, ctx)?;
            for c in kind.conditions(&params, &b.name) {
                let value = Expr::compile(&c.value, ctx.param)
                    .map_err(|e| self.expr_error(&field, &b.name, e))?;
                let condition = Condition {
                    value,
                    strict: c.strict,
                    what: c.what,
                };
                if let Some(why) = condition.violated(ctx.defaults) {
                    let at = format!("{field}.{}", c.key);
                    return self.fail(at, format!("{why} with the default parameters"));
                }
                conditions.push(condition);
            }
            names.declare(self, field.clone(), &b.name)?;
            let out = match kind.output() {
                Output::State => {
                    let start = self.constant(&format!("{field}.start"), b.start.as_ref())?;
                    states.push(Variable {
                        name: b.name.clone(),
                        start,
                        description: describe(b, kind, "state"),
                        unit: b.unit.clone(),
                    });
                    Slot::State(states.len() - 1)
                }
                // An algebraic variable is a free pair whose y = 0 is the block's equation.
                output @ (Output::Pair { .. } | Output::Free) => {
                    let (lo, hi) = match output {
                        Output::Pair { lo, hi } => (lo, hi),
                        _ => (f64::NEG_INFINITY, f64::INFINITY),
                    };
                    pairs.push(pair(
                        b.name.clone(),
                        lo,
                        hi,
                        describe(b, kind, "output"),
                        b,
                        true,
                    ));
                    Slot::Pair(pairs.len() - 1)
                }
            };
            let mut roles = Vec::new();
            for r in kind.roles(params.breakpoints.len()) {
                let name = format!("{}_{}", b.name, r.suffix);
                names
                    .declare_at(self, format!("{field}.name"), &name)
                    .map_err(|mut e| {
                        e.message
                            .push_str(&format!(" (block '{}' adds the pair '{name}')", b.name));
                        e
                    })?;
                let what = format!("{} {}: {}", kind.name(), b.name, r.what);
                let mut p = pair(name, r.lo, r.hi, what, b, r.algebraic);
                p.unit.clear();
                pairs.push(p);
                roles.push(pairs.len() - 1);
            }
            placed.push(Placed {
                raw: b,
                kind,
                params,
                out,
                roles,
            });
        }
        // Variables of linear forms: the states, then the pairs, then the inputs.
        let (nx, nu) = (states.len(), pairs.len());
        let var = |slot: Slot| match slot {
            Slot::State(i) => i,
            Slot::Pair(j) => nx + j,
        };

        let symbols = super::validate::variable_symbols(&states, &pairs, inputs);
        let lookup = |n: &str| {
            symbols
                .get(n)
                .copied()
                .or_else(|| (ctx.param)(n).map(Symbol::Param))
                .or_else(|| (n == "time").then_some(Symbol::Time))
        };

        // Second pass: one row per state and per pair, with the field that defines it.
        let mut rows: Vec<Option<(Affine, String, String)>> = vec![None; nx + nu];
        for (i, v) in raw.states.iter().enumerate() {
            let field = format!("states[{i}].der");
            let der = v.der.as_ref().expect("checked above");
            let form = self.affine_value(&field, der, &lookup, DER_HINT)?;
            rows[i] = Some((form, field, text_of(der)));
        }
        let mut blocks = Vec::with_capacity(placed.len());
        for (i, p) in placed.iter().enumerate() {
            let field = format!("blocks[{i}]");
            let b = p.raw;
            let input = b.input.as_ref().expect("checked in block_params");
            let e = self.affine_value(&format!("{field}.input"), input, &lookup, INPUT_HINT)?;
            // Coefficients that are not finite, and nonsmooth functions of the
            // state, are reported where they were written.
            self.check_row(&format!("{field}.input"), &text_of(input), &e, &lookup, ctx)?;
            let e2 = match &b.input2 {
                Some(v) => {
                    let at = format!("{field}.input2");
                    let e2 = self.affine_value(&at, v, &lookup, INPUT_HINT)?;
                    self.check_row(&at, &text_of(v), &e2, &lookup, ctx)?;
                    Some(e2)
                }
                None => None,
            };
            let roles: Vec<usize> = p.roles.iter().map(|&r| nx + r).collect();
            for (v, row) in p.kind.lower(&e, e2.as_ref(), &p.params, var(p.out), &roles) {
                rows[v] = Some((row, field.clone(), format!("block {}", b.name)));
            }
            let role_names: Vec<String> = p.roles.iter().map(|&r| pairs[r].name.clone()).collect();
            let e2_text = b.input2.as_ref().map_or(String::new(), text_of);
            let (state, mut block_pairs) = match p.out {
                Slot::State(i) => (Some(i), vec![]),
                Slot::Pair(j) => (None, vec![j]),
            };
            block_pairs.extend(&p.roles);
            blocks.push(Block {
                name: b.name.clone(),
                kind: p.kind.name().to_string(),
                settings: settings(b),
                laws: p.kind.laws(&b.name, &text_of(input), &e2_text, &role_names),
                pairs: block_pairs,
                state,
            });
        }

        let mut system = System {
            a: ExprMatrix::zeros(nx, nx),
            b: ExprMatrix::zeros(nx, nu),
            e: ExprMatrix::zeros(nx, inputs.len()),
            f: ExprMatrix::zeros(nx, 1),
            c: ExprMatrix::zeros(nu, nx),
            d: ExprMatrix::zeros(nu, nu),
            fw: ExprMatrix::zeros(nu, inputs.len()),
            g: ExprMatrix::zeros(nu, 1),
        };
        let mut nonlinear = Nonlinear::default();
        for (var, row) in rows.into_iter().enumerate() {
            let (form, field, text) = row.expect("every state and pair has a row");
            let row = self.compile_row(&field, &text, &form, &lookup, ctx)?;
            let (constant, mut terms) = (row.constant, row.terms);
            if let Some(program) = row.remainder {
                if var < nx {
                    nonlinear.der.push((var, program));
                } else {
                    nonlinear.y.push((var - nx, program));
                }
            }
            terms.sort_by_key(|(j, _)| *j);
            let (i, [on_x, on_u, on_w, cst]) = if var < nx {
                (
                    var,
                    [&mut system.a, &mut system.b, &mut system.e, &mut system.f],
                )
            } else {
                (
                    var - nx,
                    [&mut system.c, &mut system.d, &mut system.fw, &mut system.g],
                )
            };
            if !constant.is_zero() {
                cst.entries.push((i, 0, constant));
            }
            for (j, c) in terms {
                match j {
                    j if j < nx => on_x.entries.push((i, j, c)),
                    j if j < nx + nu => on_u.entries.push((i, j - nx, c)),
                    j => on_w.entries.push((i, j - nx - nu, c)),
                }
            }
        }
        Ok(Lowered {
            states,
            pairs,
            system,
            blocks,
            conditions,
            nonlinear,
        })
    }

    /// A linear form given as a number or a text.
    fn affine_value(
        &self,
        field: &str,
        v: &Value,
        lookup: &dyn Fn(&str) -> Option<Symbol>,
        hint: &str,
    ) -> Res<Affine> {
        match v {
            Value::Number(x) => {
                self.finite(field, *x)?;
                Ok(Affine::constant(Node::Num(*x)))
            }
            Value::Text(t) => {
                let err = |e| self.expr_error_hinted(field, t, e, hint);
                let node = expr::parse(t).map_err(err)?;
                affine::split(&node, lookup).map_err(err)
            }
        }
    }
}

fn state_variable(v: &RawVariable, start: f64) -> Variable {
    Variable {
        name: v.name.clone(),
        start,
        description: v.description.clone(),
        unit: v.unit.clone(),
    }
}

fn pair(
    name: String,
    lo: f64,
    hi: f64,
    description: String,
    b: &RawBlock,
    algebraic: bool,
) -> Pair {
    Pair {
        name,
        lo: Expr::constant(lo),
        hi: Expr::constant(hi),
        description,
        unit: b.unit.clone(),
        algebraic,
    }
}

/// The user's description of a block's output, or what it is.
fn describe(b: &RawBlock, kind: BlockType, what: &str) -> String {
    if b.description.is_empty() {
        format!("{what} of the {} block", kind.name())
    } else {
        b.description.clone()
    }
}
