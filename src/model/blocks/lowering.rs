//! What a block becomes: its rows in the first-order LCS, and the same
//! formulation written out with the block's own names.
//!
//! [`BlockType::lower`] gives the `y` of each pair (zero for an algebraic
//! variable) and the derivative of each state as affine forms over the
//! model's variables; [`BlockType::laws`] writes the laws for `lcsfmu check`
//! and the documentation. Both follow the roles of [`BlockType::roles`].

use super::super::affine::Affine;
use super::super::expr::{BinOp, Node};
use super::{bin, num, BlockType, Params};

impl BlockType {
    /// The block's rows: `(variable, row)` where the row is the `y` of a pair
    /// (equal to 0 for an algebraic variable) or the derivative of a state.
    /// `z` is the output's variable index and `roles` those of
    /// [`BlockType::roles`], in order.
    pub fn lower(
        self,
        e: &Affine,
        e2: Option<&Affine>,
        p: &Params,
        z: usize,
        roles: &[usize],
    ) -> Vec<(usize, Affine)> {
        use BlockType::*;
        let v = Affine::var;
        let k = |n: &Node| Affine::constant(n.clone());
        let e = || e.clone();
        let e2 = || e2.expect("two-input blocks get input2").clone();
        let neg = |a: Affine| Affine::zero().minus(a);
        // A ramp r = max(a, 0): its y is r - a.
        let ramp = |r: usize, a: Affine| (r, v(r).minus(a));
        match self {
            Abs => vec![
                (z, v(z).minus(v(roles[0]).times(&num(2.0))).plus(e())),
                ramp(roles[0], e()),
            ],
            Sign => vec![(z, neg(e()))],
            Relay => {
                let span = bin(BinOp::Sub, p.get("on").clone(), p.get("off").clone());
                vec![
                    (
                        z,
                        v(z).minus(k(p.get("off"))).minus(v(roles[0]).times(&span)),
                    ),
                    (roles[0], neg(e())),
                ]
            }
            Max0 => vec![ramp(z, e())],
            Max => vec![
                (z, v(z).minus(e2()).minus(v(roles[0]))),
                ramp(roles[0], e().minus(e2())),
            ],
            Min => vec![
                (z, v(z).minus(e2()).plus(v(roles[0]))),
                ramp(roles[0], e2().minus(e())),
            ],
            Pwa => {
                let mut out = v(z).minus(e().times(p.get("k0"))).minus(k(p.get("u0")));
                let mut rows = Vec::with_capacity(roles.len() + 1);
                let mut before = p.get("k0");
                for (i, &r) in roles.iter().enumerate() {
                    let step = bin(BinOp::Sub, p.slopes[i].clone(), before.clone());
                    out = out.minus(v(r).times(&step));
                    before = &p.slopes[i];
                    rows.push(ramp(r, e().minus(k(&p.breakpoints[i]))));
                }
                rows.insert(0, (z, out));
                rows
            }
            Saturation | DeadZone => {
                let (lo, hi) = (roles[0], roles[1]);
                let out = if self == Saturation {
                    v(z).minus(e()).minus(v(lo)).plus(v(hi))
                } else {
                    v(z).minus(v(hi)).plus(v(lo))
                };
                vec![
                    (z, out),
                    ramp(lo, k(p.get("lo")).minus(e())),
                    ramp(hi, e().minus(k(p.get("hi")))),
                ]
            }
            CoulombViscous => vec![
                (
                    z,
                    v(z).minus(e().times(p.get("G")))
                        .minus(v(roles[0]).times(p.get("Fc"))),
                ),
                (roles[0], neg(e())),
            ],
            Diode => vec![(z, e())],
            Backlash => {
                let half = bin(BinOp::Div, p.get("d").clone(), num(2.0));
                vec![
                    (z, v(roles[0]).minus(v(roles[1]))),
                    (roles[0], v(z).minus(e()).plus(k(&half))),
                    (roles[1], e().minus(v(z)).plus(k(&half))),
                ]
            }
            SaturatedIntegrator => vec![
                (z, e().plus(v(roles[0])).minus(v(roles[1]))),
                (roles[0], v(z).minus(k(p.get("lo")))),
                (roles[1], k(p.get("hi")).minus(v(z))),
            ],
            ZeroCrossing => vec![
                (z, v(roles[1])),
                (roles[0], neg(e())),
                (roles[1], v(z).minus(v(roles[0]))),
            ],
        }
    }

    /// The formulation with the block's own names: `z` is the output, `r`
    /// the role names, and `e`, `e2` the input texts. Parameters keep their
    /// key names (`lo`, `d`, `k1`, ...).
    pub fn laws(self, z: &str, e: &str, e2: &str, r: &[String]) -> Vec<String> {
        use BlockType::*;
        // `$e` and `$e2` stand for the inputs until the end.
        let ramp =
            |r: &str, a: &str| format!("0 <= {r}  ⟂  {r} - ({a}) >= 0    ({r} = max({a}, 0))");
        let laws = match self {
            Abs => vec![format!("{z} = 2 {} - $e", r[0]), ramp(&r[0], "$e")],
            Sign => vec![format!("-1 <= {z} <= 1  ⟂  -$e    ({z} ∈ Sign($e))")],
            Relay => vec![
                format!("{z} = off + (on - off) {}", r[0]),
                format!("0 <= {0} <= 1  ⟂  -$e    ({0} ∈ Step($e))", r[0]),
            ],
            Max0 => vec![ramp(z, "$e")],
            Max => vec![format!("{z} = $e2 + {}", r[0]), ramp(&r[0], "$e - $e2")],
            Min => vec![format!("{z} = $e2 - {}", r[0]), ramp(&r[0], "$e2 - $e")],
            Pwa => {
                let mut sum = format!("{z} = k0 $e + u0");
                for (i, name) in r.iter().enumerate() {
                    let before = if i == 0 { "k0".into() } else { format!("k{i}") };
                    sum.push_str(&format!(" + (k{} - {before}) {name}", i + 1));
                }
                let mut out = vec![sum];
                out.extend(
                    r.iter()
                        .enumerate()
                        .map(|(i, name)| ramp(name, &format!("$e - y{}", i + 1))),
                );
                out
            }
            Saturation => vec![
                format!("{z} = $e + {} - {}", r[0], r[1]),
                ramp(&r[0], "lo - $e"),
                ramp(&r[1], "$e - hi"),
            ],
            DeadZone => vec![
                format!("{z} = {} - {}", r[1], r[0]),
                ramp(&r[0], "lo - $e"),
                ramp(&r[1], "$e - hi"),
            ],
            CoulombViscous => vec![
                format!("{z} = G $e + Fc {}", r[0]),
                format!("-1 <= {0} <= 1  ⟂  -$e    ({0} ∈ Sign($e))", r[0]),
            ],
            Diode => vec![format!("0 <= {z}  ⟂  $e >= 0")],
            Backlash => vec![
                format!("{z}' = {} - {}", r[0], r[1]),
                format!("0 <= {}  ⟂  {z} - $e + d/2 >= 0", r[0]),
                format!("0 <= {}  ⟂  $e - {z} + d/2 >= 0", r[1]),
            ],
            SaturatedIntegrator => vec![
                format!("{z}' = $e + {} - {}", r[0], r[1]),
                format!("0 <= {}  ⟂  {z} - lo >= 0", r[0]),
                format!("0 <= {}  ⟂  hi - {z} >= 0", r[1]),
            ],
            ZeroCrossing => vec![
                format!("{z}' = {}", r[1]),
                format!("0 <= {0} <= 1  ⟂  -$e    ({0} ∈ Step($e))", r[0]),
                format!("0 <= {}  ⟂  {z} - {} >= 0", r[1], r[0]),
            ],
        };
        laws.into_iter()
            .map(|law| law.replace("$e2", &paren(e2)).replace("$e", &paren(e)))
            .collect()
    }
}

/// `text` in parentheses unless it is a single name or number.
fn paren(text: &str) -> String {
    let t = text.trim();
    if t.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        t.to_string()
    } else {
        format!("({t})")
    }
}
