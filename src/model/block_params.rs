//! A block's keys as written: which keys its type takes, the parameters
//! compiled into trees over the model's parameters, and the settings shown by
//! `lcsfmu check`.
//!
//! Every block entry has the same raw keys (see [`RawBlock`]); which ones a
//! type takes and which it needs come from [`BlockType::keys`]. A key given to
//! the wrong type is an error naming the key and the type, so a misplaced `d`
//! on a saturation is never silently ignored.

use super::blocks::{BlockType, Params};
use super::expr::{self, Node};
use super::raw::{RawBlock, Value};
use super::validate::{MatrixContext, Res, Validator};

impl Validator<'_> {
    /// Checks a block's keys against its type and compiles its parameters.
    pub(super) fn block_params(
        &self,
        field: &str,
        b: &RawBlock,
        kind: BlockType,
        ctx: &MatrixContext,
    ) -> Res<Params> {
        let type_name = kind.name();
        let keys = kind.keys();
        let mut taken: Vec<&str> = vec!["input"];
        if kind.two_inputs() {
            taken.push("input2");
        }
        taken.extend(keys.iter().map(|(k, _)| *k));
        if kind == BlockType::Pwa {
            taken.extend(["breakpoints", "slopes"]);
        }
        let given: [(&str, bool); 14] = [
            ("input", b.input.is_some()),
            ("input2", b.input2.is_some()),
            ("lo", b.lo.is_some()),
            ("hi", b.hi.is_some()),
            ("k0", b.k0.is_some()),
            ("u0", b.u0.is_some()),
            ("breakpoints", b.breakpoints.is_some()),
            ("slopes", b.slopes.is_some()),
            ("Fc", b.fc.is_some()),
            ("G", b.g.is_some()),
            ("d", b.d.is_some()),
            ("on", b.on.is_some()),
            ("off", b.off.is_some()),
            ("start", b.start.is_some()),
        ];
        for (key, present) in given {
            if present && !taken.contains(&key) {
                return self.fail(
                    format!("{field}.{key}"),
                    format!(
                        "a {type_name} block takes no '{key}' (its keys: {})",
                        taken.join(", ")
                    ),
                );
            }
        }
        let required: Vec<&str> = taken
            .iter()
            .copied()
            .filter(|k| match *k {
                "input" | "input2" | "breakpoints" | "slopes" => true,
                k => keys
                    .iter()
                    .any(|(key, default)| *key == k && default.is_none()),
            })
            .collect();
        for key in &required {
            if !given.iter().any(|(k, present)| k == key && *present) {
                return self.fail(
                    format!("{field}.{key}"),
                    format!("missing: a {type_name} block needs {}", required.join(", ")),
                );
            }
        }
        let value_of = |key: &str| -> Option<&Value> {
            match key {
                "lo" => b.lo.as_ref(),
                "hi" => b.hi.as_ref(),
                "k0" => b.k0.as_ref(),
                "u0" => b.u0.as_ref(),
                "Fc" => b.fc.as_ref(),
                "G" => b.g.as_ref(),
                "d" => b.d.as_ref(),
                "on" => b.on.as_ref(),
                "off" => b.off.as_ref(),
                _ => None,
            }
        };
        let mut params = Params::default();
        for &(key, default) in keys {
            // A start value belongs to the state, not to the block's laws.
            if key == "start" {
                continue;
            }
            let node = match (value_of(key), default) {
                (Some(v), _) => self.parameter_node(&format!("{field}.{key}"), v, ctx)?,
                (None, Some(x)) => Node::Num(x),
                (None, None) => unreachable!("required keys were checked"),
            };
            params.named.push((key, node));
        }
        if kind == BlockType::Pwa {
            let (bp, sl) = (b.breakpoints.as_ref(), b.slopes.as_ref());
            let (bp, sl) = (bp.expect("required"), sl.expect("required"));
            if bp.is_empty() {
                return self.fail(
                    format!("{field}.breakpoints"),
                    "needs at least one breakpoint",
                );
            }
            if sl.len() != bp.len() {
                return self.fail(
                    format!("{field}.slopes"),
                    format!(
                        "needs one slope per breakpoint (the slope after it): {} breakpoints, {} slopes",
                        bp.len(),
                        sl.len()
                    ),
                );
            }
            for (list, key, out) in [
                (bp, "breakpoints", &mut params.breakpoints),
                (sl, "slopes", &mut params.slopes),
            ] {
                for (k, v) in list.iter().enumerate() {
                    out.push(self.parameter_node(&format!("{field}.{key}[{k}]"), v, ctx)?);
                }
            }
        }
        Ok(params)
    }

    /// A number or a parameter expression, finite at the defaults, as a tree.
    fn parameter_node(&self, field: &str, v: &Value, ctx: &MatrixContext) -> Res<Node> {
        let node = match v {
            Value::Number(x) => Node::Num(*x),
            Value::Text(t) => expr::parse(t).map_err(|e| self.expr_error(field, t, e))?,
        };
        let text = text_of(v);
        let value = match v {
            Value::Number(x) => *x,
            Value::Text(t) => self.parameter_expr(field, t, ctx.param)?.eval(ctx.defaults),
        };
        if !value.is_finite() {
            return self.fail(
                field,
                format!("\"{text}\" evaluates to {value} with the default parameters (block parameters must be finite)"),
            );
        }
        Ok(node)
    }
}

/// `input = ...` and the parameters as written, in the file's key order.
pub(super) fn settings(b: &RawBlock) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut put = |k: &str, v: &Option<Value>| {
        if let Some(v) = v {
            out.push((k.to_string(), text_of(v)));
        }
    };
    put("input", &b.input);
    put("input2", &b.input2);
    for (k, v) in [
        ("lo", &b.lo),
        ("hi", &b.hi),
        ("k0", &b.k0),
        ("u0", &b.u0),
        ("Fc", &b.fc),
        ("G", &b.g),
        ("d", &b.d),
        ("on", &b.on),
        ("off", &b.off),
        ("start", &b.start),
    ] {
        put(k, v);
    }
    for (k, list) in [("breakpoints", &b.breakpoints), ("slopes", &b.slopes)] {
        if let Some(list) = list {
            let items: Vec<String> = list.iter().map(text_of).collect();
            out.push((k.to_string(), format!("[{}]", items.join(", "))));
        }
    }
    out
}

/// A value as the file wrote it.
pub(super) fn text_of(v: &Value) -> String {
    match v {
        Value::Number(x) => format!("{x}"),
        Value::Text(t) => t.clone(),
    }
}
