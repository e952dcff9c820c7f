//! TunaNet, the network MIOpen's immediate-mode fallback asks which solver is fastest for a
//! problem without a find-db record: the device's model and metadata files as MIOpen installs
//! them (`<db>/<arch>.tn.model`, `<db>/<arch>_metadata.tn.model`), the problem's features, the
//! network run, and the solvers in the order MIOpen sorts them.
//!
//! Sources (ROCm/MIOpen@2d1fd997 `src/conv/heuristics/ai_heuristics.cpp`): `:65-85` (metadata:
//! encodings, the features' names, overall and test statistics), `:87-113` (`Encode*`),
//! `:126-131` and `:157-165` (`Forward`: the first `num_outputs − num_solvers` outputs are
//! skipped), `:270-303` (gfx908's 24 features, overall statistics), `:371-396` (gfx90a's 18),
//! `:464-490` (gfx942's 18, *test* statistics; ROCm/MIOpen rocm-6.2.2 `:418-445` writes 19,
//! the layout after the batch size — the features are taken by the metadata's names), `:496-503` (`GetModel`: gfx942, gfx90a, else the
//! gfx908 model), `:536-565` (`PredictSolver`: sorted by the output, descending; names that are
//! not a solver id are dropped). The network itself: [`net`].
//!
//! This module reads text; the caller finds and reads the files.

pub mod net;

use crate::problem::{DataType, Direction, Problem};
use serde::Serialize;
use serde_json::Value;

pub use net::Net;

/// The model class `GetModel` returns for a device name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelClass {
    /// `Gfx908Model`: every device other than gfx90a and gfx942.
    Gfx908,
    /// `Gfx90aModel`.
    Gfx90a,
    /// `Gfx942Model`.
    Gfx942,
}

impl ModelClass {
    /// `GetModel(device)` (ai_heuristics.cpp:496-503).
    pub fn for_device(name: &str) -> ModelClass {
        match name {
            "gfx942" => ModelClass::Gfx942,
            "gfx90a" => ModelClass::Gfx90a,
            _ => ModelClass::Gfx908,
        }
    }

    /// The arch the class loads its files for.
    pub fn arch(self) -> &'static str {
        match self {
            ModelClass::Gfx908 => "gfx908",
            ModelClass::Gfx90a => "gfx90a",
            ModelClass::Gfx942 => "gfx942",
        }
    }

    /// The network file's name.
    pub fn model_file(self) -> String {
        format!("{}.tn.model", self.arch())
    }

    /// The metadata file's name.
    pub fn metadata_file(self) -> String {
        format!("{}_metadata.tn.model", self.arch())
    }

    /// The rule citing this class's `ToFeatures`.
    pub fn features_rule(self) -> &'static str {
        match self {
            ModelClass::Gfx908 => "tunanet.features.gfx908",
            ModelClass::Gfx90a => "tunanet.features.gfx90a",
            ModelClass::Gfx942 => "tunanet.features.gfx942",
        }
    }
}

/// The metadata MIOpen reads beside a network.
#[derive(Debug, Clone, PartialEq)]
pub struct Metadata {
    direction: [(String, f32); 3],
    precision: Vec<(String, f32)>,
    layout: Vec<(String, f32)>,
    /// Solver names by output index (after the skipped outputs).
    pub solvers: Vec<String>,
    /// Outputs before the solvers' (`num_outputs − num_solvers`).
    pub offset: usize,
    /// The features' names, in order.
    pub features: Vec<String>,
    mean: Vec<f32>,
    std: Vec<f32>,
}

fn get<'a>(v: &'a Value, path: &str) -> Result<&'a Value, String> {
    v.pointer(path)
        .ok_or_else(|| format!("`{path}` is missing"))
}

fn size(v: &Value, path: &str) -> Result<usize, String> {
    get(v, path)?
        .as_u64()
        .map(|n| n as usize)
        .filter(|n| *n <= 1 << 20)
        .ok_or_else(|| format!("`{path}` is not a count"))
}

fn encoding(v: &Value, path: &str) -> Result<Vec<(String, f32)>, String> {
    let m = get(v, path)?
        .as_object()
        .ok_or_else(|| format!("`{path}` is not a map"))?;
    m.iter()
        .map(|(k, v)| {
            v.as_f64()
                .map(|x| (k.clone(), x as f32))
                .ok_or_else(|| format!("`{path}/{k}` is not a number"))
        })
        .collect()
}

fn stats(v: &Value, path: &str, names: &[String]) -> Result<Vec<f32>, String> {
    names
        .iter()
        .map(|n| {
            get(v, path)?
                .get(n)
                .and_then(Value::as_f64)
                .map(|x| x as f32)
                .ok_or_else(|| format!("`{path}` has no `{n}`"))
        })
        .collect()
}

fn lookup(enc: &[(String, f32)], key: &str) -> Option<f32> {
    enc.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
}

impl Metadata {
    /// Reads `<arch>_metadata.tn.model`; `class` picks the statistics its `ToFeatures` uses.
    pub fn parse(doc: &Value, class: ModelClass) -> Result<Metadata, String> {
        let d = encoding(doc, "/encodings/Direction")?;
        let dir =
            |k: &str| lookup(&d, k).ok_or_else(|| format!("`/encodings/Direction` has no `{k}`"));
        let direction = [
            ("F".to_string(), dir("F")?),
            ("B".to_string(), dir("B")?),
            ("W".to_string(), dir("W")?),
        ];
        let features: Vec<String> = get(doc, "/conv_params_used_as_features")?
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let set = if class == ModelClass::Gfx942 {
            "test"
        } else {
            "overall"
        };
        let outputs = size(doc, "/num_outputs")?;
        let n = size(doc, "/num_solvers")?;
        let mut solvers = vec![String::new(); n];
        for (name, idx) in encoding(doc, "/encodings/solver")? {
            let i = idx as usize;
            match solvers.get_mut(i) {
                Some(s) if idx >= 0.0 && s.is_empty() => *s = name,
                _ => return Err(format!("solver `{name}` has index {idx} of {n}")),
            }
        }
        Ok(Metadata {
            direction,
            precision: encoding(doc, "/encodings/Precision")?,
            layout: encoding(doc, "/encodings/Layout")?,
            offset: outputs.checked_sub(n).ok_or("more solvers than outputs")?,
            mean: stats(doc, &format!("/stats/{set}/features/mean"), &features)?,
            std: stats(doc, &format!("/stats/{set}/features/std"), &features)?,
            features,
            solvers,
        })
    }

    fn dir(&self, d: Direction) -> f32 {
        let i = match d {
            Direction::Forward => 0,
            Direction::BackwardData => 1,
            Direction::BackwardWeights => 2,
        };
        self.direction[i].1
    }

    /// `EncodePrecision`: BF16, FP16 and FP32 only (MIOpen throws otherwise).
    fn precision(&self, t: DataType) -> Result<f32, String> {
        let key = match t {
            DataType::Bf16 => "BF16",
            DataType::Fp16 => "FP16",
            DataType::Fp32 => "FP32",
            o => return Err(format!("TunaNet takes no {} problem", o.key_name())),
        };
        lookup(&self.precision, key).ok_or_else(|| format!("no encoding of {key}"))
    }

    /// `EncodeLayout`: NCHW and NCDHW only.
    fn layout(&self, l: &str) -> Result<f32, String> {
        if l != "NCHW" && l != "NCDHW" {
            return Err(format!("TunaNet takes no {l} problem"));
        }
        lookup(&self.layout, l).ok_or_else(|| format!("no encoding of {l}"))
    }
}

/// A device's TunaNet: which class, its metadata and network.
#[derive(Debug, Clone, PartialEq)]
pub struct TunaNet {
    /// The class `GetModel` picked.
    pub class: ModelClass,
    /// Its metadata.
    pub meta: Metadata,
    net: Net,
}

/// One solver in TunaNet's order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    /// The solver's name as the metadata spells it.
    pub solver: String,
    /// The network's output for it (higher ranks first).
    pub score: f32,
}

/// Why a device class's two TunaNet documents could not be read, by the file at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The metadata (`<arch>_metadata.tn.model`): what is wrong in it.
    #[error("metadata: {0}")]
    Metadata(String),
    /// The network (`<arch>.tn.model`): what is wrong in it.
    #[error("network: {0}")]
    Network(String),
    /// Each reads, but the network does not take the features the metadata names.
    #[error("the {arch} network takes {inputs} inputs and its metadata names {features} features")]
    Mismatch {
        /// The device class (`gfx942`).
        arch: &'static str,
        /// The network's input width.
        inputs: usize,
        /// The features the metadata names.
        features: usize,
    },
}

impl TunaNet {
    /// Reads the two documents of `class`'s files.
    pub fn parse(
        class: ModelClass,
        model: &Value,
        metadata: &Value,
    ) -> Result<TunaNet, ParseError> {
        let meta = Metadata::parse(metadata, class).map_err(ParseError::Metadata)?;
        let net = Net::parse(model).map_err(ParseError::Network)?;
        if net.inputs() != meta.features.len() {
            return Err(ParseError::Mismatch {
                arch: class.arch(),
                inputs: net.inputs(),
                features: meta.features.len(),
            });
        }
        Ok(TunaNet { class, meta, net })
    }

    /// `ToFeatures`: the problem as numbers, normalised.
    pub fn features(&self, p: &Problem) -> Result<Vec<f32>, String> {
        let raw = raw_features(&self.meta, p)?;
        Ok(raw
            .iter()
            .zip(self.meta.mean.iter().zip(&self.meta.std))
            .map(|(x, (m, s))| (x - m) / s)
            .collect())
    }

    /// `Forward` and `PredictSolver`'s sort: every solver of the metadata with its output,
    /// best first (a stable sort: equal outputs keep the metadata's order).
    pub fn rank(&self, p: &Problem) -> Result<Vec<Scored>, String> {
        let out = self.net.run(&self.features(p)?);
        let Some(tail) = out.get(self.meta.offset..) else {
            return Err(format!("the network gives {} outputs", out.len()));
        };
        if tail.len() != self.meta.solvers.len() {
            return Err(format!(
                "the network gives {} solver outputs for {} solvers",
                tail.len(),
                self.meta.solvers.len()
            ));
        }
        let mut v: Vec<Scored> = self
            .meta
            .solvers
            .iter()
            .zip(tail)
            .map(|(s, &score)| Scored {
                solver: s.clone(),
                score,
            })
            .collect();
        v.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(v)
    }
}

/// The unnormalised features, named by the metadata in the order `ToFeatures` writes them
/// (each release's code and metadata agree on it; the oracle test checks both): the forward
/// view of a backward problem (`isFwd ? GetIn… : GetOut…`), depth 1 for 2-D, and gfx908's
/// `Padding0`/`Stride0` written as 1 as its code writes them ("trained on a dataset of 2D
/// problems where PadD was incorrectly set to 1").
fn raw_features(meta: &Metadata, p: &Problem) -> Result<Vec<f32>, String> {
    let fwd = p.direction == Direction::Forward;
    let three = p.spatial_dims > 2;
    let f = |v: u64| v as f32;
    let i = |v: i64| v as f32;
    let (xc, xdhw, yc, ydhw) = if fwd {
        (p.in_c, p.in_dhw, p.out_c, p.out_dhw)
    } else {
        (p.out_c, p.out_dhw, p.in_c, p.in_dhw)
    };
    let depth = |d: u64| if three { f(d) } else { 1.0 };
    meta.features
        .iter()
        .map(|name| {
            Ok(match name.as_str() {
                "Inp_0" | "InChannels" => f(xc),
                "InDepth" => depth(xdhw[0]),
                "Inp_2" | "InHeight" => f(xdhw[1]),
                "Inp_3" | "InWidth" => f(xdhw[2]),
                "FilterDim0" => depth(p.fil_dhw[0]),
                "Fil_1" | "FilterDim1" => f(p.fil_dhw[1]),
                "Fil_2" | "FilterDim2" => f(p.fil_dhw[2]),
                "Out_0" | "OutChannels" => f(yc),
                "OutDepth" => depth(ydhw[0]),
                "Out_2" | "OutHeight" => f(ydhw[1]),
                "Out_3" | "OutWidth" => f(ydhw[2]),
                "BatchSize" => f(p.batch),
                "Padding0" | "Stride0" => 1.0,
                "Pad_1" | "Padding1" => i(p.pad[1]),
                "Pad_2" | "Padding2" => i(p.pad[2]),
                "Str_1" | "Stride1" => i(p.stride[1]),
                "Str_2" | "Stride2" => i(p.stride[2]),
                "Dil_1" | "Dilation1" => i(p.dilation[1]),
                "Dil_2" | "Dilation2" => i(p.dilation[2]),
                "Layout" => meta.layout(&p.layouts[0])?,
                "Precision" => meta.precision(p.types[0])?,
                "Direction" => meta.dir(p.direction),
                "GroupSize" => f(p.groups),
                other => return Err(format!("feature `{other}` is not one MIOpen's code writes")),
            })
        })
        .collect()
}
