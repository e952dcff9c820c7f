//! ggml-hip (llama.cpp) dispatch: which kernel family a matrix multiplication or a flash
//! attention takes on an AMD GPU. The rules are data (`data/ggml-<commit>.toml`, one file per
//! pinned ggml version); this module only evaluates them, so a newer ggml is added beside the
//! old one without touching the engine.

use rocpath_arch::TargetId;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The rule files compiled in: (version id, TOML text). The first is the default.
pub const RULESETS: &[(&str, &str)] = &[("d99724f2", include_str!("../data/ggml-d99724f2.toml"))];

/// Why a question could not be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GgmlError {
    /// The rules file does not parse (a bug in a data file).
    #[error("ggml rules {0}: {1}")]
    Rules(String, String),
    /// No rules for that version.
    #[error("no ggml rules for version {0:?} (known: {1})")]
    Version(String, String),
    /// The target is not an AMD gfx processor rocpath knows.
    #[error("unknown gfx target {0:?}")]
    Target(String),
    /// The type is not a ggml type name.
    #[error("unknown ggml type {0:?}")]
    Type(String),
    /// An expression in the data that the engine does not understand.
    #[error("bad expression {0:?} in the rules")]
    Expr(String),
}

#[derive(Debug, Clone, Deserialize)]
struct Meta {
    repo: String,
    commit: String,
    date: String,
    dir: String,
}

#[derive(Debug, Clone, Deserialize)]
struct Pred {
    #[serde(default)]
    any: Vec<String>,
    gt: Option<String>,
    ge: Option<String>,
    lt: Option<String>,
    eq: Option<String>,
    at: String,
}

#[derive(Debug, Clone, Deserialize)]
struct Rule {
    at: String,
    #[serde(default)]
    types: Vec<String>,
    arch: Option<String>,
    #[serde(default)]
    when: Vec<String>,
    returns: Option<String>,
    path: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct Stage {
    name: String,
    call: String,
    function: String,
    default: String,
    default_returns: Option<String>,
    rules: Vec<Rule>,
}

#[derive(Debug, Clone, Deserialize)]
struct Fattn {
    function: String,
    heads: Vec<i64>,
    heads_gqa: Vec<[i64; 3]>,
    heads_at: String,
    kv_types: Vec<String>,
    kv_types_at: String,
    rules: Vec<Rule>,
}

/// One pinned set of ggml rules.
#[derive(Debug, Clone, Deserialize)]
pub struct Rules {
    ggml: Meta,
    cc: BTreeMap<String, i64>,
    pred: BTreeMap<String, Pred>,
    groups: BTreeMap<String, Vec<String>>,
    consts: BTreeMap<String, i64>,
    stage: Vec<Stage>,
    fattn: Fattn,
}

/// Loads a rule set by version id (`None`: the first).
pub fn rules(version: Option<&str>) -> Result<Rules, GgmlError> {
    let known = RULESETS
        .iter()
        .map(|(v, _)| *v)
        .collect::<Vec<_>>()
        .join(", ");
    let (v, text) = match version {
        None => RULESETS.first(),
        Some(w) => RULESETS
            .iter()
            .find(|(v, _)| w.starts_with(v) || v.starts_with(w)),
    }
    .ok_or_else(|| GgmlError::Version(version.unwrap_or_default().into(), known))?;
    toml::from_str(text).map_err(|e| GgmlError::Rules((*v).into(), e.to_string()))
}

/// The question.
#[derive(Debug, Clone)]
pub struct Query {
    /// The device (`gfx1201`); ggml compiles per processor.
    pub target: TargetId,
    /// ggml type of src0 (weights), lower case (`q4_k`, `f16`).
    pub src0_type: String,
    /// src1 columns (tokens in the batch).
    pub ne11: i64,
    /// Expert count of MUL_MAT_ID (0: dense MUL_MAT).
    pub experts: i64,
    /// src0 rows (for MMF's rows-per-block condition).
    pub ne01: i64,
}

/// Flash-attention question.
#[derive(Debug, Clone)]
pub struct FaQuery {
    /// The device; ggml compiles per processor.
    pub target: TargetId,
    /// Head size (K->ne[0]).
    pub head: i64,
    /// V head size (V->ne[0]); defaults to `head`.
    pub head_v: i64,
    /// Q->ne[1]: query rows in the batch.
    pub batch: i64,
    /// GQA ratio (Q heads / K heads).
    pub gqa: i64,
    /// K/V type (`f16`, `q8_0`…).
    pub kv_type: String,
    /// K->ne[1]: KV length (padding to FATTN_KQ_STRIDE matters).
    pub kv_len: i64,
}

/// The decision.
#[derive(Debug, Clone, Serialize)]
pub struct Decision {
    /// `mmvf`, `mmf`, `mmvq`, `mmq`, `hipblas`; `fa_mma_f16`, `fa_tile`, `fa_vec`, `none`.
    pub path: String,
    /// The condition that fired.
    pub rule: String,
    /// ggml version and file:line of it.
    pub at: String,
    /// What the earlier stages said (`mmvf: no (mmvf.cu:843: ne11 <= 8 is false)`).
    pub trace: Vec<String>,
    /// The device's `cc` as ggml computes it.
    pub cc: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// ggml's `cc` for a gfx processor: the digits after `gfx` read as hex, plus the AMD offset.
pub fn cc_of(target: &TargetId, r: &Rules) -> Result<i64, GgmlError> {
    let p = target.processor.as_str();
    let bad = || GgmlError::Target(target.to_string());
    if rocpath_arch::target(p).is_none() || p.contains("generic") {
        return Err(bad());
    }
    let digits = p.strip_prefix("gfx").ok_or_else(bad)?;
    let v = i64::from_str_radix(digits, 16).map_err(|_| bad())?;
    Ok(r.cc.get("OFFSET_AMD").copied().unwrap_or(0x1000000) + v)
}

impl Rules {
    /// `repo@commit`.
    pub fn version(&self) -> String {
        format!(
            "{}@{}",
            self.ggml.repo,
            &self.ggml.commit[..8.min(self.ggml.commit.len())]
        )
    }

    fn cite(&self, at: &str) -> String {
        format!(
            "{}:{}/{} ({})",
            self.version(),
            self.ggml.dir,
            at,
            self.ggml.date
        )
    }

    fn pred(&self, name: &str, rel: i64, depth: u32) -> Result<bool, GgmlError> {
        if let Some(n) = name.strip_prefix('!') {
            return self.pred(n, rel, depth).map(|b| !b);
        }
        let p = self
            .pred
            .get(name)
            .ok_or_else(|| GgmlError::Expr(format!("predicate {name}")))?;
        if depth > 8 {
            return Err(GgmlError::Expr(format!("predicate {name} recursion")));
        }
        for a in &p.any {
            if self.pred(a, rel, depth + 1)? {
                return Ok(true);
            }
        }
        let c = |k: &Option<String>| -> Result<Option<i64>, GgmlError> {
            match k {
                None => Ok(None),
                Some(s) => match self.cc.get(s) {
                    Some(v) => Ok(Some(*v)),
                    None => s.parse().map(Some).map_err(|_| GgmlError::Expr(s.clone())),
                },
            }
        };
        let (gt, ge, lt, eq) = (c(&p.gt)?, c(&p.ge)?, c(&p.lt)?, c(&p.eq)?);
        if gt.is_none() && ge.is_none() && lt.is_none() && eq.is_none() {
            return Ok(false);
        }
        Ok(gt.is_none_or(|v| rel > v)
            && ge.is_none_or(|v| rel >= v)
            && lt.is_none_or(|v| rel < v)
            && eq.is_none_or(|v| rel == v))
    }

    fn type_in(&self, ty: &str, list: &[String]) -> bool {
        list.is_empty()
            || list.iter().any(|t| {
                t == ty
                    || self
                        .groups
                        .get(t)
                        .is_some_and(|g| g.iter().any(|x| x == ty))
            })
    }

    fn known_type(&self, ty: &str) -> bool {
        ["float", "quant"].iter().any(|g| {
            self.groups
                .get(*g)
                .is_some_and(|l| l.iter().any(|x| x == ty))
        })
    }
}

fn eval(expr: &str, vars: &BTreeMap<&str, i64>) -> Result<bool, GgmlError> {
    let e = expr.trim();
    match e {
        "true" => return Ok(true),
        "false" => return Ok(false),
        _ => {}
    }
    let parts: Vec<&str> = e.split_whitespace().collect();
    let [var, op, val] = parts.as_slice() else {
        return Err(GgmlError::Expr(e.into()));
    };
    let a = *vars.get(var).ok_or_else(|| GgmlError::Expr(e.into()))?;
    let b: i64 = val.parse().map_err(|_| GgmlError::Expr(e.into()))?;
    Ok(match *op {
        "<=" => a <= b,
        "<" => a < b,
        ">" => a > b,
        ">=" => a >= b,
        "==" => a == b,
        "!=" => a != b,
        _ => return Err(GgmlError::Expr(e.into())),
    })
}

fn locator(r: &Rules, at: &str) -> Locator {
    let (file, line) = at.split_once(':').unwrap_or((at, ""));
    let mut loc = Locator::file(format!("{}:{}/{}", r.version(), r.ggml.dir, file));
    if let Some(l) = line.split('-').next().and_then(|l| l.parse().ok()) {
        loc = loc.with_line(l);
    }
    loc
}

/// Evidence of a fired rule: its line, and the line defining the architecture predicate.
fn evidence_with(r: &Rules, at: &str, arch: Option<&str>, note: String) -> Evidence {
    let mut e = Evidence::new(Class::Inferred, Proof::CodeVerified, "explain.ggml.rule")
        .at(locator(r, at))
        .because(note);
    if let Some(p) = arch.and_then(|a| r.pred.get(a.trim_start_matches('!'))) {
        e = e.at(locator(r, &p.at));
    }
    e
}

fn evidence(r: &Rules, at: &str, note: String) -> Evidence {
    evidence_with(r, at, None, note)
}

/// Matrix-multiplication dispatch (`ggml_cuda_mul_mat`, or MUL_MAT_ID with `experts > 0`),
/// assuming F32 activations and output (else hipBLAS, ggml-cuda.cu:1828-1831).
pub fn mul_mat(r: &Rules, q: &Query) -> Result<Decision, GgmlError> {
    let ty = q.src0_type.to_ascii_lowercase();
    if !r.known_type(&ty) {
        return Err(GgmlError::Type(q.src0_type.clone()));
    }
    let cc = cc_of(&q.target, r)?;
    let rel = cc - r.cc.get("OFFSET_AMD").copied().unwrap_or(0x1000000);
    let cdna = r.pred("is_cdna", rel, 0)?;
    let rows = if cdna {
        r.consts.get("MMF_ROWS_PER_BLOCK_CDNA")
    } else {
        r.consts.get("MMF_ROWS_PER_BLOCK")
    }
    .copied()
    .unwrap_or(32);
    let mut vars = BTreeMap::new();
    vars.insert("ne11", q.ne11);
    vars.insert("experts", q.experts);
    vars.insert("rows_ok", i64::from(rows > 0 && q.ne01 % rows == 0));
    let mut trace = Vec::new();
    for st in &r.stage {
        // MUL_MAT_ID does not use MMVF/MMF's dense path the same way; the engine evaluates
        // the same predicates with n_experts as ggml_cuda_mul_mat_id does for MMQ.
        let mut fired: Option<(&str, String, bool, Option<&str>)> = None;
        for rule in &st.rules {
            if !r.type_in(&ty, &rule.types) {
                continue;
            }
            if let Some(a) = &rule.arch {
                if !r.pred(a, rel, 0)? {
                    continue;
                }
            }
            let mut ok = true;
            for w in &rule.when {
                ok &= eval(w, &vars)?;
            }
            if !ok {
                continue;
            }
            let ret = rule.returns.as_deref().unwrap_or("false");
            let v = eval(ret, &vars)?;
            let cond = match (&rule.arch, rule.when.is_empty()) {
                (Some(a), true) => format!("{a} → return {ret}"),
                (Some(a), false) => format!("{a} && {} → return {ret}", rule.when.join(" && ")),
                (None, false) => format!("{} → return {ret}", rule.when.join(" && ")),
                (None, true) => format!("return {ret}"),
            };
            fired = Some((rule.at.as_str(), cond, v, rule.arch.as_deref()));
            break;
        }
        let (at, cond, v, arch) = match fired {
            Some(f) => f,
            None => {
                let ret = st.default_returns.as_deref().unwrap_or("false");
                (
                    st.default.as_str(),
                    format!("default: return {ret}"),
                    eval(ret, &vars)?,
                    None,
                )
            }
        };
        let cond = format!(
            "{} for {ty}: {cond} ({})",
            st.function,
            if v { "true" } else { "false" }
        );
        if v {
            return Ok(Decision {
                path: st.name.clone(),
                rule: cond.clone(),
                at: r.cite(at),
                trace,
                cc: format!("0x{cc:x}"),
                evidence: evidence_with(r, at, arch, format!("{} at {}", cond, st.call)),
            });
        }
        trace.push(format!("{}: no — {} [{}]", st.name, cond, at));
    }
    let at = "ggml-cuda.cu:1868";
    Ok(Decision {
        path: "hipblas".into(),
        rule: "no kernel stage accepted the problem: ggml_cuda_mul_mat_cublas (quantized src0 is dequantized to F16 first)".into(),
        at: r.cite(at),
        trace,
        cc: format!("0x{cc:x}"),
        evidence: evidence(r, at, "fall-through to hipBLAS".into()),
    })
}

/// Flash-attention kernel choice (`ggml_cuda_get_best_fattn_kernel`), with a mask, no ALiBi.
pub fn flash_attn(r: &Rules, q: &FaQuery) -> Result<Decision, GgmlError> {
    let cc = cc_of(&q.target, r)?;
    let rel = cc - r.cc.get("OFFSET_AMD").copied().unwrap_or(0x1000000);
    let f = &r.fattn;
    let kv = q.kv_type.to_ascii_lowercase();
    let stride = r.consts.get("FATTN_KQ_STRIDE").copied().unwrap_or(256);
    let gqa_opt = q.gqa >= 2 && q.kv_len % stride == 0;
    let none = |why: String, at: &str| Decision {
        path: "none".into(),
        rule: why.clone(),
        at: r.cite(at),
        trace: Vec::new(),
        cc: format!("0x{cc:x}"),
        evidence: evidence(r, at, why),
    };
    let head_ok = if f.heads.contains(&q.head) {
        q.head_v == q.head
    } else if let Some([_, v, div]) = f.heads_gqa.iter().find(|h| h[0] == q.head) {
        q.head_v == *v && gqa_opt && q.gqa % div == 0
    } else {
        false
    };
    if !head_ok {
        return Ok(none(
            format!(
                "head size {}/{} with GQA {} is not supported: no flash-attention kernel (CPU or non-FA path)",
                q.head, q.head_v, q.gqa
            ),
            &f.heads_at,
        ));
    }
    if !f.kv_types.contains(&kv) {
        return Ok(none(
            format!("K/V type {kv} is not supported without GGML_CUDA_FA_ALL_QUANTS"),
            &f.kv_types_at,
        ));
    }
    let ncols2_max = match q.head {
        320 => 32,
        576 | 192 => 16,
        _ => 8,
    };
    let mut eff = 1;
    while q.gqa % (2 * eff) == 0 && eff < ncols2_max {
        eff *= 2;
    }
    let can_vec = q.head <= 256 && q.head % 64 == 0 && q.head != 192 && q.kv_len % stride == 0;
    let quant = r.groups.get("quant").is_some_and(|g| g.contains(&kv));
    let mut vars = BTreeMap::new();
    vars.insert("head", q.head);
    vars.insert("batch", q.batch);
    vars.insert("batch_eff", q.batch * eff);
    vars.insert("gqa_opt", i64::from(gqa_opt));
    vars.insert("kv_quant", i64::from(quant));
    vars.insert("can_vec", i64::from(can_vec));
    let mut trace = Vec::new();
    for rule in &f.rules {
        if let Some(a) = &rule.arch {
            if !r.pred(a, rel, 0)? {
                continue;
            }
        }
        let mut ok = true;
        for w in &rule.when {
            ok &= eval(w, &vars)?;
        }
        let path = rule.path.clone().unwrap_or_else(|| "fa_tile".into());
        let cond = format!(
            "{}{}",
            rule.arch
                .as_deref()
                .map(|a| format!("{a} "))
                .unwrap_or_default(),
            rule.when.join(" && ")
        );
        if ok {
            let rule_text = format!(
                "{}: {} → {path} (batch_eff = {})",
                f.function,
                cond.trim(),
                q.batch * eff
            );
            return Ok(Decision {
                path,
                rule: rule_text.clone(),
                at: r.cite(&rule.at),
                trace,
                cc: format!("0x{cc:x}"),
                evidence: evidence_with(r, &rule.at, rule.arch.as_deref(), rule_text),
            });
        }
        trace.push(format!("{path}: no — {} [{}]", cond.trim(), rule.at));
    }
    Ok(none("no rule fired".into(), &f.heads_at))
}

/// One run of a sweep: the `ne11` range that takes one path.
#[derive(Debug, Serialize)]
pub struct SweepRun<'a> {
    /// First `ne11` of the run.
    pub from: i64,
    /// Last `ne11` of the run.
    pub to: i64,
    /// The decision of the whole run.
    #[serde(flatten)]
    pub decision: &'a Decision,
}

/// The JSON document of `rocpath explain ggml --sweep`.
#[derive(Debug, Serialize)]
pub struct SweepDoc<'a> {
    /// The ggml rule set ([`Rules::version`]).
    pub ggml: String,
    /// The runs, in order of `ne11`.
    pub runs: Vec<SweepRun<'a>>,
}

impl<'a> SweepDoc<'a> {
    /// The document of the runs of [`sweep`] under rules `r`.
    pub fn new(r: &Rules, runs: &'a [(i64, i64, Decision)]) -> SweepDoc<'a> {
        SweepDoc {
            ggml: r.version(),
            runs: runs
                .iter()
                .map(|(from, to, decision)| SweepRun {
                    from: *from,
                    to: *to,
                    decision,
                })
                .collect(),
        }
    }
}

/// Where the path changes along `ne11` from `from` to `to`: `(first ne11, decision)` per run.
pub fn sweep(
    r: &Rules,
    q: &Query,
    from: i64,
    to: i64,
) -> Result<Vec<(i64, i64, Decision)>, GgmlError> {
    let mut out: Vec<(i64, i64, Decision)> = Vec::new();
    for n in from..=to {
        let d = mul_mat(
            r,
            &Query {
                ne11: n,
                ..q.clone()
            },
        )?;
        match out.last_mut() {
            Some((_, end, last)) if last.path == d.path && last.at == d.at => *end = n,
            _ => out.push((n, n, d)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(id: &str) -> TargetId {
        TargetId::parse(id).unwrap_or_else(|e| unreachable!("{e}"))
    }

    fn mm(target: &str, ty: &str, ne11: i64, experts: i64) -> String {
        let r = rules(None).unwrap();
        mul_mat(
            &r,
            &Query {
                target: t(target),
                src0_type: ty.into(),
                ne11,
                experts,
                ne01: 4096,
            },
        )
        .unwrap()
        .path
    }

    #[test]
    fn rules_load_and_cc() {
        let r = rules(None).unwrap();
        assert_eq!(cc_of(&t("gfx900:xnack-"), &r).unwrap(), 0x1000900);
        assert_eq!(cc_of(&t("gfx90a"), &r).unwrap(), 0x100090a);
        assert_eq!(cc_of(&t("gfx1201"), &r).unwrap(), 0x1001201);
        assert!(cc_of(&t("gfx9-generic"), &r).is_err());
        assert!(rules(Some("0000")).is_err());
    }

    /// upstream.md §6.4: the resulting path per target, gfx900 and gfx1201.
    #[test]
    fn table_6_4() {
        // quant, ne11 <= 8 → MMVQ on both
        assert_eq!(mm("gfx900", "q4_k", 8, 0), "mmvq");
        assert_eq!(mm("gfx1201", "q4_k", 8, 0), "mmvq");
        // quant, ne11 > 8, dense → hipBLAS on gfx900, MMQ on gfx1201
        assert_eq!(mm("gfx900", "q4_k", 9, 0), "hipblas");
        assert_eq!(mm("gfx900", "q4_0", 512, 0), "hipblas");
        assert_eq!(mm("gfx1201", "q4_k", 9, 0), "mmq");
        assert_eq!(mm("gfx1201", "q6_k", 4096, 0), "mmq");
        // quant, MoE → MMQ on both
        assert_eq!(mm("gfx900", "q4_k", 512, 8), "mmq");
        assert_eq!(mm("gfx1201", "q4_k", 512, 8), "mmq");
        // F16 weights, small ne11: MMVF ≤ 8 on gfx900; ≤ 5 then MMF ≤ 16 on gfx1201
        assert_eq!(mm("gfx900", "f16", 8, 0), "mmvf");
        assert_eq!(mm("gfx900", "f16", 9, 0), "hipblas");
        assert_eq!(mm("gfx1201", "f16", 5, 0), "mmvf");
        assert_eq!(mm("gfx1201", "f16", 6, 0), "mmf");
        assert_eq!(mm("gfx1201", "f16", 16, 0), "mmf");
        assert_eq!(mm("gfx1201", "f16", 17, 0), "hipblas");
    }

    /// Boundary values of every threshold the AMD rules have.
    #[test]
    fn thresholds() {
        // MMVF F32: ≤ 3 with MFMA (CDNA), ≤ 8 otherwise.
        assert_eq!(mm("gfx90a", "f32", 3, 0), "mmvf");
        assert_eq!(mm("gfx90a", "f32", 4, 0), "mmf"); // MMF F32 needs MFMA, ne11 ≤ 16
        assert_eq!(mm("gfx90a", "f32", 17, 0), "hipblas");
        assert_eq!(mm("gfx1030", "f32", 8, 0), "mmvf");
        assert_eq!(mm("gfx1030", "f32", 9, 0), "hipblas");
        // MMVF F16: RDNA3 ≤ 3, CDNA ≤ 2; RDNA3.0 MMF only up to 8.
        assert_eq!(mm("gfx1100", "f16", 3, 0), "mmvf");
        assert_eq!(mm("gfx1100", "f16", 4, 0), "mmf");
        assert_eq!(mm("gfx1100", "f16", 8, 0), "mmf");
        assert_eq!(mm("gfx1100", "f16", 9, 0), "hipblas");
        assert_eq!(mm("gfx1151", "f16", 16, 0), "mmf"); // RDNA3.5 up to 16
        assert_eq!(mm("gfx942", "f16", 2, 0), "mmvf");
        assert_eq!(mm("gfx942", "f16", 3, 0), "mmf");
        assert_eq!(mm("gfx90a", "f16", 3, 0), "hipblas"); // CDNA2 F16 excluded from MMF
        assert_eq!(mm("gfx942", "bf16", 4, 0), "hipblas"); // CDNA3 BF16 excluded
        assert_eq!(mm("gfx1201", "bf16", 3, 0), "mmvf");
        assert_eq!(mm("gfx1201", "bf16", 4, 0), "mmf");
        // MMVQ: CDNA2+ per-type limits; CDNA1 table.
        assert_eq!(mm("gfx90a", "q4_k", 3, 0), "mmvq");
        assert_eq!(mm("gfx90a", "q4_k", 4, 0), "mmq");
        assert_eq!(mm("gfx90a", "q2_k", 5, 0), "mmvq");
        assert_eq!(mm("gfx90a", "q6_k", 6, 0), "mmq");
        assert_eq!(mm("gfx908", "q4_k", 2, 0), "mmvq");
        assert_eq!(mm("gfx908", "q4_k", 3, 0), "mmq");
        assert_eq!(mm("gfx908", "q8_0", 6, 0), "mmvq");
        assert_eq!(mm("gfx908", "q8_0", 7, 0), "mmq");
        // MMQ on CDNA (non-CDNA3): ne11 ≤ 128, Q4_K ≤ 256, Q4_0 always, experts > 64.
        assert_eq!(mm("gfx90a", "q8_0", 128, 0), "mmq");
        assert_eq!(mm("gfx90a", "q8_0", 129, 0), "hipblas");
        assert_eq!(mm("gfx90a", "q4_k", 256, 0), "mmq");
        assert_eq!(mm("gfx90a", "q4_k", 257, 0), "hipblas");
        assert_eq!(mm("gfx90a", "q4_0", 4096, 0), "mmq");
        assert_eq!(mm("gfx90a", "q8_0", 4096, 64), "hipblas");
        assert_eq!(mm("gfx90a", "q8_0", 4096, 65), "mmq");
        assert_eq!(mm("gfx942", "q8_0", 4096, 0), "mmq"); // CDNA3 always
        // RDNA3: experts ≥ 64, Q2_K ≤ 128, Q6_K ≤ 128 (3.0) / 256 (3.5), IQ2_XS.
        assert_eq!(mm("gfx1100", "q2_k", 128, 0), "mmq");
        assert_eq!(mm("gfx1100", "q2_k", 129, 0), "hipblas");
        assert_eq!(mm("gfx1100", "q2_k", 129, 64), "mmq");
        assert_eq!(mm("gfx1100", "q2_k", 129, 63), "hipblas");
        assert_eq!(mm("gfx1100", "q6_k", 129, 0), "hipblas");
        assert_eq!(mm("gfx1151", "q6_k", 256, 0), "mmq");
        assert_eq!(mm("gfx1151", "q6_k", 257, 0), "hipblas");
        assert_eq!(mm("gfx1151", "iq2_xs", 4096, 0), "mmq");
        assert_eq!(mm("gfx1100", "iq2_xs", 129, 0), "hipblas");
        assert_eq!(mm("gfx1100", "q4_k", 4096, 0), "mmq");
        // gfx900: MMQ only for MoE; gfx906 and RDNA1/2 always MMQ.
        assert_eq!(mm("gfx900", "q8_0", 9, 1), "mmq");
        assert_eq!(mm("gfx900", "q8_0", 9, 0), "hipblas");
        assert_eq!(mm("gfx906", "q8_0", 4096, 0), "mmq");
        assert_eq!(mm("gfx1030", "q4_k", 4096, 0), "mmq");
        // A type MMQ does not support goes to hipBLAS.
        assert_eq!(mm("gfx1201", "tq1_0", 512, 0), "hipblas");
        assert!(
            mul_mat(
                &rules(None).unwrap(),
                &Query {
                    target: t("gfx900"),
                    src0_type: "q9_9".into(),
                    ne11: 1,
                    experts: 0,
                    ne01: 32
                }
            )
            .is_err()
        );
    }

    fn fa(target: &str, head: i64, batch: i64, gqa: i64, kv: &str) -> String {
        let r = rules(None).unwrap();
        flash_attn(
            &r,
            &FaQuery {
                target: t(target),
                head,
                head_v: head,
                batch,
                gqa,
                kv_type: kv.into(),
                kv_len: 4096,
            },
        )
        .unwrap()
        .path
    }

    #[test]
    fn flash_attention() {
        // gfx900: VEC for batch 1 (no GQA) / ≤ 2 (quantized K/V), else TILE.
        assert_eq!(fa("gfx900", 128, 1, 1, "f16"), "fa_vec");
        assert_eq!(fa("gfx900", 128, 2, 1, "f16"), "fa_tile");
        assert_eq!(fa("gfx900", 128, 2, 1, "q8_0"), "fa_vec");
        assert_eq!(fa("gfx900", 128, 3, 1, "q8_0"), "fa_tile");
        assert_eq!(fa("gfx900", 128, 1, 4, "f16"), "fa_tile"); // GQA optimisation: not VEC
        // gfx1201 WMMA: MMA_F16 when GQA applies, head ≤ 128 and batch × gqa_eff > 8.
        assert_eq!(fa("gfx1201", 128, 3, 4, "f16"), "fa_mma_f16");
        assert_eq!(fa("gfx1201", 128, 2, 4, "f16"), "fa_tile");
        assert_eq!(fa("gfx1201", 256, 64, 4, "f16"), "fa_tile");
        assert_eq!(fa("gfx1201", 128, 512, 1, "f16"), "fa_tile"); // no GQA: no WMMA path
        // CDNA MFMA thresholds: head 64 > 8, head 128 > 16, head 256 > 64.
        assert_eq!(fa("gfx942", 64, 9, 1, "f16"), "fa_mma_f16");
        assert_eq!(fa("gfx942", 64, 8, 1, "f16"), "fa_tile");
        assert_eq!(fa("gfx942", 128, 17, 1, "f16"), "fa_mma_f16");
        assert_eq!(fa("gfx942", 128, 16, 1, "f16"), "fa_tile");
        assert_eq!(fa("gfx942", 256, 65, 1, "f16"), "fa_mma_f16");
        assert_eq!(fa("gfx942", 256, 64, 1, "f16"), "fa_tile");
        // Unsupported head size / K-V type.
        assert_eq!(fa("gfx900", 100, 1, 1, "f16"), "none");
        assert_eq!(fa("gfx900", 128, 1, 1, "q5_1"), "none");
    }

    #[test]
    fn sweep_switch_points() {
        let r = rules(None).unwrap();
        let q = Query {
            target: t("gfx1201"),
            src0_type: "f16".into(),
            ne11: 1,
            experts: 0,
            ne01: 4096,
        };
        let s = sweep(&r, &q, 1, 64).unwrap();
        let runs: Vec<(i64, i64, &str)> = s
            .iter()
            .map(|(a, b, d)| (*a, *b, d.path.as_str()))
            .collect();
        assert_eq!(runs, [(1, 5, "mmvf"), (6, 16, "mmf"), (17, 64, "hipblas")]);
    }
}
