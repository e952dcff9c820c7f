//! A Keras network as frugally-deep stores it (`*.tn.model`): the functional graph of
//! `architecture.config.layers` with their `inbound_nodes`, and the weights of
//! `trainable_params` as base64 little-endian `float32` chunks. Evaluated in `f32`, layer by
//! layer, as frugally-deep does.
//!
//! Sources: Dobiasd/frugally-deep@9683d557 (the commit MIOpen's `requirements.txt` pins):
//! `keras_export/convert_model.py:204-208` (`encode_floats`), `:328-340` (Dense weights,
//! `(n_in, units)` row-major), `include/fdeep/layers/dense_layer.hpp` (`x · W + b`),
//! `include/fdeep/layers/relu_layer.hpp` (`max_value`, `negative_slope`, `threshold`),
//! `include/fdeep/import_model.hpp` (activations named in a layer's config).
//!
//! Only the layers of flat vector networks are read (Input, Dense, ReLU, LeakyReLU, Add,
//! Activation, Softmax, Dropout); any other layer is an error that names it.

use base64::Engine as _;
use serde_json::Value;

/// Largest layer width or weight count accepted (a hostile file cannot ask for more).
const MAX_VALUES: usize = 1 << 26;

/// An activation function.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Act {
    Linear,
    Relu,
    Sigmoid,
    Tanh,
    Softmax,
}

/// One layer's operation.
#[derive(Debug, Clone, PartialEq)]
enum Op {
    Input(usize),
    Dense {
        units: usize,
        w: Vec<f32>,
        b: Vec<f32>,
        act: Act,
    },
    Relu {
        max: f32,
        slope: f32,
        threshold: f32,
    },
    Act(Act),
    Add,
    Identity,
}

#[derive(Debug, Clone, PartialEq)]
struct Layer {
    name: String,
    op: Op,
    inputs: Vec<usize>,
}

/// A network ready to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Net {
    layers: Vec<Layer>,
    input: usize,
    output: usize,
}

fn obj<'a>(v: &'a Value, key: &str) -> Result<&'a Value, String> {
    v.get(key).ok_or_else(|| format!("`{key}` is missing"))
}

fn floats(v: &Value, what: &str) -> Result<Vec<f32>, String> {
    let chunks = v
        .as_array()
        .ok_or_else(|| format!("{what}: not a list of base64 strings"))?;
    let mut text = String::new();
    for c in chunks {
        text.push_str(
            c.as_str()
                .ok_or_else(|| format!("{what}: not a list of base64 strings"))?,
        );
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.as_bytes())
        .map_err(|e| format!("{what}: base64: {e}"))?;
    if bytes.len() % 4 != 0 || bytes.len() / 4 > MAX_VALUES {
        return Err(format!(
            "{what}: {} bytes is not a float32 array",
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn act(name: Option<&str>) -> Result<Act, String> {
    Ok(match name {
        None | Some("linear") => Act::Linear,
        Some("relu") => Act::Relu,
        Some("sigmoid") => Act::Sigmoid,
        Some("tanh") => Act::Tanh,
        Some("softmax") => Act::Softmax,
        Some(o) => return Err(format!("activation `{o}` is not read")),
    })
}

fn num(cfg: &Value, key: &str, default: f32) -> f32 {
    cfg.get(key)
        .and_then(Value::as_f64)
        .map_or(default, |v| v as f32)
}

fn width(cfg: &Value) -> Result<usize, String> {
    let shape = cfg
        .get("batch_input_shape")
        .or_else(|| cfg.get("batch_shape"))
        .and_then(Value::as_array)
        .ok_or("an input layer without `batch_input_shape`")?;
    match shape.as_slice() {
        [_, w] => w
            .as_u64()
            .map(|w| w as usize)
            .filter(|w| (1..=MAX_VALUES).contains(w))
            .ok_or_else(|| format!("input width {w} is not a size")),
        _ => Err(format!("input shape {shape:?}: only flat vectors are read")),
    }
}

fn op(class: &str, cfg: &Value, params: Option<&Value>, name: &str) -> Result<Op, String> {
    Ok(match class {
        "InputLayer" => Op::Input(width(cfg)?),
        "Dense" => {
            let p = params.ok_or_else(|| format!("Dense `{name}` has no weights"))?;
            let units = cfg
                .get("units")
                .and_then(Value::as_u64)
                .map(|u| u as usize)
                .filter(|u| (1..=MAX_VALUES).contains(u))
                .ok_or_else(|| format!("Dense `{name}`: `units` is not a size"))?;
            let w = floats(obj(p, "weights")?, name)?;
            // Each unit has at least one weight: a file cannot ask for more units than it
            // carries numbers (the bias below is as long as `units`).
            if w.len() < units || w.len() % units != 0 {
                return Err(format!(
                    "Dense `{name}`: {} weights for {units} units",
                    w.len()
                ));
            }
            let b = match p.get("bias") {
                Some(b) => floats(b, name)?,
                None => vec![0.0; units],
            };
            if b.len() != units || w.len() % units != 0 {
                return Err(format!(
                    "Dense `{name}`: {} weights and {} biases for {units} units",
                    w.len(),
                    b.len()
                ));
            }
            let a = act(cfg.get("activation").and_then(Value::as_str))?;
            Op::Dense {
                units,
                w,
                b,
                act: a,
            }
        }
        "ReLU" => Op::Relu {
            max: num(cfg, "max_value", f32::INFINITY),
            slope: num(cfg, "negative_slope", 0.0),
            threshold: num(cfg, "threshold", 0.0),
        },
        "LeakyReLU" => Op::Relu {
            max: f32::INFINITY,
            slope: num(cfg, "alpha", 0.3),
            threshold: 0.0,
        },
        "Activation" => Op::Act(act(cfg.get("activation").and_then(Value::as_str))?),
        "Softmax" => Op::Act(Act::Softmax),
        "Add" => Op::Add,
        "Dropout" => Op::Identity,
        other => return Err(format!("layer `{name}` is a {other}, which is not read")),
    })
}

fn inbound(l: &Value, index: &[(String, usize)], name: &str) -> Result<Vec<usize>, String> {
    let nodes = l.get("inbound_nodes").and_then(Value::as_array);
    let Some(first) = nodes.and_then(|n| n.first()) else {
        return Ok(Vec::new());
    };
    if nodes.is_some_and(|n| n.len() > 1) {
        return Err(format!("layer `{name}` is used more than once"));
    }
    let mut out = Vec::new();
    for edge in first.as_array().into_iter().flatten() {
        let from = edge
            .get(0)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("layer `{name}`: an inbound node without a name"))?;
        let i = index
            .iter()
            .find(|(n, _)| n == from)
            .map(|(_, i)| *i)
            .ok_or_else(|| format!("layer `{name}` reads `{from}`, which comes after it"))?;
        out.push(i);
    }
    Ok(out)
}

fn end_layer(arch: &Value, key: &str, index: &[(String, usize)]) -> Result<usize, String> {
    let ends = obj(arch, key)?
        .as_array()
        .ok_or_else(|| format!("`{key}` is not a list"))?;
    let [one] = ends.as_slice() else {
        return Err(format!("{} {key}: only one is read", ends.len()));
    };
    let n = one.get(0).and_then(Value::as_str).unwrap_or("");
    index
        .iter()
        .find(|(x, _)| x == n)
        .map(|(_, i)| *i)
        .ok_or_else(|| format!("{key} names `{n}`, which is not a layer"))
}

impl Net {
    /// Reads a frugally-deep model document.
    pub fn parse(doc: &Value) -> Result<Net, String> {
        let arch = obj(obj(doc, "architecture")?, "config")?;
        let params = doc.get("trainable_params");
        let list = obj(arch, "layers")?
            .as_array()
            .ok_or("`layers` is not a list")?;
        let mut layers = Vec::with_capacity(list.len());
        let mut index: Vec<(String, usize)> = Vec::new();
        for l in list {
            let name = l
                .get("name")
                .or_else(|| l.pointer("/config/name"))
                .and_then(Value::as_str)
                .ok_or("a layer without a name")?
                .to_string();
            let class = l.get("class_name").and_then(Value::as_str).unwrap_or("");
            let cfg = l.get("config").unwrap_or(&Value::Null);
            let op = op(class, cfg, params.and_then(|p| p.get(&name)), &name)?;
            let inputs = inbound(l, &index, &name)?;
            index.push((name.clone(), layers.len()));
            layers.push(Layer { name, op, inputs });
        }
        let input = end_layer(arch, "input_layers", &index)?;
        let output = end_layer(arch, "output_layers", &index)?;
        let net = Net {
            layers,
            input,
            output,
        };
        net.check_widths()?;
        Ok(net)
    }

    /// The number of inputs.
    pub fn inputs(&self) -> usize {
        match self.layers[self.input].op {
            Op::Input(w) => w,
            _ => 0,
        }
    }

    /// Every layer's output width, checking each layer's inputs against it.
    fn check_widths(&self) -> Result<(), String> {
        let mut w = vec![0usize; self.layers.len()];
        for (i, l) in self.layers.iter().enumerate() {
            let ins: Vec<usize> = l.inputs.iter().map(|&j| w[j]).collect();
            w[i] = match (&l.op, ins.as_slice()) {
                (Op::Input(n), []) => *n,
                (Op::Dense { units, w: m, .. }, [n]) if *n * units == m.len() => *units,
                (Op::Add, [a, rest @ ..]) if !rest.is_empty() && rest.iter().all(|r| r == a) => *a,
                (Op::Relu { .. } | Op::Act(_) | Op::Identity, [n]) => *n,
                _ => {
                    return Err(format!(
                        "layer `{}` does not fit its inputs (widths {ins:?})",
                        l.name
                    ));
                }
            };
        }
        if !matches!(self.layers[self.input].op, Op::Input(_)) {
            return Err(format!(
                "`{}` is not an input layer",
                self.layers[self.input].name
            ));
        }
        Ok(())
    }

    /// Runs the network on one input vector (its length was checked by the caller against
    /// [`Net::inputs`]).
    pub fn run(&self, x: &[f32]) -> Vec<f32> {
        let mut out: Vec<Vec<f32>> = Vec::with_capacity(self.layers.len());
        for l in &self.layers {
            let arg = |k: usize| -> &[f32] { l.inputs.get(k).map_or(&[][..], |&j| &out[j]) };
            let v = match &l.op {
                Op::Input(_) => x.to_vec(),
                Op::Dense { units, w, b, act } => {
                    let mut y = b.clone();
                    for (xi, row) in arg(0).iter().zip(w.chunks_exact(*units)) {
                        for (yj, wij) in y.iter_mut().zip(row) {
                            *yj += xi * wij;
                        }
                    }
                    apply(*act, y)
                }
                Op::Relu {
                    max,
                    slope,
                    threshold,
                } => arg(0)
                    .iter()
                    .map(|&v| relu(v, *max, *slope, *threshold))
                    .collect(),
                Op::Act(a) => apply(*a, arg(0).to_vec()),
                Op::Add => {
                    let mut y = arg(0).to_vec();
                    for k in 1..l.inputs.len() {
                        for (a, b) in y.iter_mut().zip(arg(k)) {
                            *a += b;
                        }
                    }
                    y
                }
                Op::Identity => arg(0).to_vec(),
            };
            out.push(v);
        }
        out.swap_remove(self.output)
    }
}

fn relu(v: f32, max: f32, slope: f32, threshold: f32) -> f32 {
    if v >= max {
        max
    } else if v >= threshold {
        v
    } else {
        slope * (v - threshold)
    }
}

fn apply(a: Act, mut y: Vec<f32>) -> Vec<f32> {
    match a {
        Act::Linear => {}
        Act::Relu => y.iter_mut().for_each(|v| *v = v.max(0.0)),
        Act::Sigmoid => y.iter_mut().for_each(|v| *v = 1.0 / (1.0 + (-*v).exp())),
        Act::Tanh => y.iter_mut().for_each(|v| *v = v.tanh()),
        Act::Softmax => {
            let m = y.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            y.iter_mut().for_each(|v| *v = (*v - m).exp());
            let s: f32 = y.iter().sum();
            y.iter_mut().for_each(|v| *v /= s);
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(v: &[f32]) -> String {
        let bytes: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    fn tiny() -> Value {
        serde_json::json!({
            "architecture": {"class_name": "Functional", "config": {
                "layers": [
                    {"class_name": "InputLayer", "name": "in", "config": {"batch_input_shape": [null, 2]}, "inbound_nodes": []},
                    {"class_name": "Dense", "name": "d", "config": {"units": 2, "activation": "linear"}, "inbound_nodes": [[["in", 0, 0, {}]]]},
                    {"class_name": "ReLU", "name": "r", "config": {}, "inbound_nodes": [[["d", 0, 0, {}]]]},
                    {"class_name": "Add", "name": "a", "config": {}, "inbound_nodes": [[["r", 0, 0, {}], ["d", 0, 0, {}]]]}
                ],
                "input_layers": [["in", 0, 0]],
                "output_layers": [["a", 0, 0]]
            }},
            "trainable_params": {"d": {"weights": [b64(&[1.0, -1.0, 2.0, 0.5])], "bias": [b64(&[0.0, 1.0])]}}
        })
    }

    #[test]
    fn dense_relu_add() {
        let n = Net::parse(&tiny()).unwrap();
        assert_eq!(n.inputs(), 2);
        // d = [1*1 + 2*2 + 0, 1*-1 + 2*0.5 + 1] = [5, 1]; relu = [5, 1]; add = [10, 2]
        assert_eq!(n.run(&[1.0, 2.0]), vec![10.0, 2.0]);
        // d = [-5, 1 + 1 + ... ] with x = [-1, -2]: [-1 - 4, 1 - 1 + 1] = [-5, 1]
        assert_eq!(n.run(&[-1.0, -2.0]), vec![-5.0, 2.0]);
    }

    #[test]
    fn a_layer_not_read_is_named() {
        let mut doc = tiny();
        doc["architecture"]["config"]["layers"][2]["class_name"] = "Conv2D".into();
        let e = Net::parse(&doc).unwrap_err();
        assert!(e.contains("`r` is a Conv2D"), "{e}");
    }

    #[test]
    fn weights_that_do_not_fit_are_refused() {
        let mut doc = tiny();
        doc["trainable_params"]["d"]["weights"] = serde_json::json!([b64(&[1.0, 2.0, 3.0])]);
        assert!(Net::parse(&doc).is_err());
        doc["trainable_params"]["d"]["weights"] = serde_json::json!(["!!!"]);
        assert!(Net::parse(&doc).unwrap_err().contains("base64"));
    }
}
