//! A netlist inside a TOML model: `[circuit] netlist = """..."""` beside
//! `[model]`, `[[inputs]]`, `[[outputs]]`, `[experiment]`, `[scheme]` and
//! `[reference]`, for what SPICE cannot say.
//!
//! - The netlist has no title line (the model's name and description are
//!   `[model]`'s); its lines are numbered as the TOML file's, so a refusal
//!   reads `model.toml:LINE: ...`.
//! - An input's name may stand for a source's value, `V1 in 0 {vin}`: the
//!   source then follows the FMU input (a column of `E` and `F`).
//! - `[[outputs]]` may read the circuit's quantities by their variable names
//!   (`V_out`, `I_R1`, the states and pairs), inputs and `time`.
//! - `[experiment]` and `[scheme]` replace `.tran` and `.options`.
//! - The dynamics come from the netlist alone: `[[states]]`, `[system]`,
//!   `[[complementarity]]`, `[[blocks]]` and the mechanical tables are
//!   refused, and so are `[[parameters]]` (a circuit's values are numbers
//!   when it is read).

use super::{lines, lower_circuit, parse, NetError, Place, Settings};
use crate::model::affine::{self, Symbol};
use crate::model::expr::{self, Node};
use crate::model::raw::RawModel;
use crate::model::validate::{variable_symbols, MatrixContext, Names, Res, Validator};
use crate::model::{Model, Output};
use std::collections::HashMap;

/// How many lines of a TOML file come before its netlist's first line: the
/// line of `netlist = """` (whose newline TOML drops), 0 when not found.
pub fn offset(text: &str) -> usize {
    for (k, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("netlist") else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start();
        for quotes in ["\"\"\"", "'''"] {
            if let Some(after) = value.strip_prefix(quotes) {
                return if after.trim().is_empty() { k + 1 } else { k };
            }
        }
        return k;
    }
    0
}

impl Validator<'_> {
    /// A model whose dynamics are `[circuit] netlist`; `offset` as [`offset`].
    pub(in crate::model) fn circuit_model(&self, mut raw: RawModel, offset: usize) -> Res<Model> {
        self.identifier("model.name", &raw.model.name)?;
        let system_given = raw.system.any_given();
        let clash = [
            ("states", !raw.states.is_empty()),
            ("complementarity", !raw.complementarity.is_empty()),
            ("system", system_given),
            ("blocks", !raw.blocks.is_empty()),
            ("coordinates", !raw.coordinates.is_empty()),
            ("contacts", !raw.contacts.is_empty()),
            ("constraints", !raw.constraints.is_empty()),
            ("mechanics", raw.mechanics.is_some()),
        ]
        .into_iter()
        .find(|(_, given)| *given);
        if let Some((field, _)) = clash {
            return self.fail(
                field,
                "a model with [circuit] takes its states and pairs from the netlist; remove this section",
            );
        }
        if !raw.parameters.is_empty() {
            return self.fail(
                "parameters",
                "a circuit's values are numbers once its netlist is read (.param in the netlist); tunable circuit parameters are not supported yet",
            );
        }
        if let Some(i) = raw.inputs.iter().position(|w| w.der.is_some()) {
            return self.fail(
                format!("inputs[{i}].der"),
                "an input has no derivative (only states take der)",
            );
        }
        let mut names = Names::default();
        let inputs = self.variables(std::mem::take(&mut raw.inputs), "inputs", &mut names)?;
        let input_names: Vec<String> = inputs.iter().map(|w| w.name.clone()).collect();

        let circuit = raw.circuit.take().expect("called for a [circuit] model");
        let at = Place {
            path: self.file(),
            offset,
        };
        let text = lines::split(&circuit.netlist, false).map_err(|e| at.error(e))?;
        let parsed = parse::circuit(&text, &input_names).map_err(|e| at.error(e))?;
        let experiment = match raw.experiment.take() {
            Some(e) => Some(self.experiment(Some(e))?),
            None => None,
        };
        let settings = Settings {
            method: self.method,
            experiment,
            scheme: raw.scheme.take(),
        };
        let (lowered, quantities) =
            lower_circuit(&parsed, raw.model.name.clone(), &at, settings, &input_names)?;
        let mut model = lowered.model;
        model.description = raw.model.description;
        model.inputs = inputs;

        // The circuit's names, then the file's outputs.
        let circuit_names = model
            .states
            .iter()
            .map(|v| &v.name)
            .chain(model.pairs.iter().map(|p| &p.name))
            .chain(model.outputs.iter().map(|o| &o.name));
        for name in circuit_names {
            names
                .declare_at(self, "circuit.netlist".into(), name)
                .map_err(|e| at.error(NetError::at(1, e.message)))?;
        }
        let defaults: Vec<f64> = Vec::new();
        let no_parameters = |_: &str| None;
        let ctx = MatrixContext {
            param: &no_parameters,
            defaults: &defaults,
        };
        let symbols = variable_symbols(&model.states, &model.pairs, &model.inputs);
        let lookup = |n: &str| {
            symbols
                .get(n)
                .copied()
                .or_else(|| (n == "time").then_some(Symbol::Time))
        };
        let quantities: HashMap<&str, &Node> =
            quantities.iter().map(|(n, q)| (n.as_str(), q)).collect();
        let (nx, nu) = (model.nx(), model.nu());
        let first = model.outputs.len();
        let mut nonlinear = model.nonlinear.take().unwrap_or_default();
        for (i, o) in raw.outputs.into_iter().enumerate() {
            let field = format!("outputs[{i}]");
            names.declare(self, field.clone(), &o.name)?;
            let field = format!("{field}.value");
            let node = expr::parse(&o.value).map_err(|e| self.expr_error(&field, &o.value, e))?;
            let node = substitute(node, &quantities);
            let form =
                affine::split(&node, &lookup).map_err(|e| self.expr_error(&field, &o.value, e))?;
            let row = self.compile_row(&field, &o.value, &form, &lookup, &ctx)?;
            let mut out = Output {
                name: o.name,
                description: o.description,
                unit: o.unit,
                definition: o.value,
                constant: row.constant,
                states: vec![],
                pairs: vec![],
                inputs: vec![],
            };
            for (j, c) in row.terms {
                match j {
                    j if j < nx => out.states.push((j, c)),
                    j if j < nx + nu => out.pairs.push((j - nx, c)),
                    j => out.inputs.push((j - nx - nu, c)),
                }
            }
            if let Some(program) = row.remainder {
                nonlinear.outputs.push((first + i, program));
            }
            model.outputs.push(out);
        }
        model.nonlinear = (nonlinear != Default::default()).then_some(nonlinear);
        if model.nonlinear_dynamics() && !model.scheme.theta_gamma.is_default() {
            return self.fail(
                "scheme",
                "gamma and gamma_relation weight the linear multiplier term of the theta-method; this circuit's sources read time (Newton step), where they are not defined",
            );
        }
        model.reference = self.reference(raw.reference.take(), &model.experiment, &names)?;
        Ok(model)
    }
}

/// `node` with every name of a circuit quantity replaced by its expression.
fn substitute(node: Node, quantities: &HashMap<&str, &Node>) -> Node {
    match node {
        Node::Name(n) => match quantities.get(n.as_str()) {
            Some(q) => (*q).clone(),
            None => Node::Name(n),
        },
        Node::Neg(a) => Node::Neg(Box::new(substitute(*a, quantities))),
        Node::Bin(op, a, b) => Node::Bin(
            op,
            Box::new(substitute(*a, quantities)),
            Box::new(substitute(*b, quantities)),
        ),
        Node::Call(f, a) => Node::Call(f, Box::new(substitute(*a, quantities))),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_netlist_starts_below_its_key() {
        let text = "[model]\nname = \"m\"\n[circuit]\nnetlist = \"\"\"\nR1 a 0 1\n\"\"\"\n";
        assert_eq!(super::offset(text), 4);
        assert_eq!(super::offset("[circuit]\nnetlist = '''R1 a 0 1\n'''"), 1);
        assert_eq!(super::offset("x = 1"), 0);
    }
}
