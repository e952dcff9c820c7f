//! What the derivation rules read of an observation file: its id, the world it was imported
//! for, and its document, typed per producer schema. Every document a rule reads is read with
//! its own types (`rocpath-docs`; `explain gemm`'s are next to the GEMM model, in
//! `rocpath-gemm`): a field of another shape makes the document an error naming it. An
//! inventory and an ISA census are reduced to what the rules use as they are read, so deriving
//! over many holds one whole document at a time per thread; a comparison's full prediction
//! (the explaining crate's type) and the GEMM model's derived values (its problem, its walk)
//! are skipped while parsing.

use crate::files::{ParseError, check_id, check_schema};
use crate::model::OBSERVATION_SCHEMA;
use rocpath_docs::compare::{ComparisonsDoc, ReadComparison};
use rocpath_gemm::doc::{GemmDoc, GemmExplanation};
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::path::Path;

/// One observation as the rules see it.
#[derive(Debug, Clone)]
pub struct ObsDigest {
    /// Observation id.
    pub id: String,
    /// The world named at import (`ledger import --world`), when the document names none.
    pub world: String,
    /// The producer schema.
    pub schema: String,
    /// What the rules read of the document.
    pub doc: Doc,
}

/// The document, by producer.
#[derive(Debug, Clone)]
pub enum Doc {
    /// `rocpath.case/1`, read with the document's own types (`rocpath_docs::case`).
    Case(Box<rocpath_docs::case::CaseDoc>),
    /// `rocpath.explain.compare/1`, read with the document's own types
    /// (`rocpath_docs::compare`), the predictions' details skipped.
    Compare(Box<ComparisonsDoc<Vec<ReadComparison>>>),
    /// `rocpath.explain.gemm/1`, read with the document's own types (`rocpath_gemm::doc`,
    /// next to the model), the model's derived values skipped.
    Gemm(Box<GemmDoc<Vec<GemmExplanation>>>),
    /// `rocpath.trace/2`, read with the document's own types (`rocpath_docs::trace`).
    Trace(Box<rocpath_docs::trace::TraceDoc>),
    /// `rocpath.ollama/2`, read with the document's own types (`rocpath_docs::ollama`).
    Ollama(Box<rocpath_docs::ollama::ReadDoc>),
    /// `rocpath.strace/1`, read with the document's own types (`rocpath_docs::strace`).
    Strace(Box<rocpath_docs::strace::StraceDoc>),
    /// `rocpath.lanes/2`, read with the document's own types (`rocpath_docs::lanes`).
    Lanes(Box<rocpath_docs::lanes::LanesDoc>),
    /// `rocpath.inventory/1`, read with the document's own types (`rocpath_docs::inventory`)
    /// and reduced to its coverage as it is read.
    Inventory(Coverage),
    /// `rocpath.isa/1`, read with the document's own types (`rocpath_docs::isa`) and reduced
    /// to its totals per processor as it is read.
    Isa(IsaTotals),
    /// `rocpath.check/1`, read with the document's own types (`rocpath_docs::check`).
    Check(Box<rocpath_docs::check::CheckDoc>),
    /// `rocpath.gates/1`, read with the document's own types (`rocpath_docs::gates`).
    Gates(Box<rocpath_docs::gates::GatesDoc>),
    /// `rocpath.provenance/1`, read with the document's own types (`rocpath_docs::provenance`).
    Provenance(rocpath_docs::provenance::ProvenanceDoc),
    /// `rocpath.follow/1`, read with the document's own types (`rocpath_docs::follow`).
    Follow(rocpath_docs::follow::FollowDoc),
    /// Any other producer: no rule reads it.
    Other,
}

/// A string, number or boolean as text; anything else (or null) as `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loose(pub Option<String>);

impl<'de> Deserialize<'de> for Loose {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = Loose;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Loose, E> {
                Ok(Loose((!v.is_empty()).then(|| v.to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Loose, E> {
                Ok(Loose(Some(v.to_string())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Loose, E> {
                Ok(Loose(Some(v.to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Loose, E> {
                Ok(Loose(Some(v.to_string())))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Loose, E> {
                Ok(Loose(Some(v.to_string())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Loose, E> {
                Ok(Loose(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Loose, E> {
                Ok(Loose(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
                Loose::deserialize(d)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<Loose, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Loose(None))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<Loose, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Loose(None))
            }
        }
        d.deserialize_any(V)
    }
}

impl Loose {
    /// The text, or `""`.
    pub fn as_str(&self) -> &str {
        self.0.as_deref().unwrap_or_default()
    }
}

// ---------------------------------------------------------------- strace

// ---------------------------------------------------------------- lanes

// ---------------------------------------------------------------- isa

/// What the ISA rule reads of a census, per processor: kernels, instructions and instructions
/// per coarse group. A census lists every kernel's mnemonics (tens of MB for a library); it
/// is reduced to this while it is read, so deriving over many holds one at a time per thread.
#[derive(Debug, Clone, Default)]
pub struct IsaTotals {
    /// Processor → totals.
    pub per: BTreeMap<String, IsaSums>,
}

/// The totals of one processor's kernels.
#[derive(Debug, Clone, Default)]
pub struct IsaSums {
    /// Kernels (and device functions) with code.
    pub kernels: u64,
    /// Their instructions.
    pub instructions: u64,
    /// Their instructions per coarse group (`mfma`, `dot`, …).
    pub groups: BTreeMap<String, u64>,
}

impl IsaTotals {
    /// The totals of a census.
    pub fn of(d: &rocpath_docs::isa::IsaReport) -> IsaTotals {
        let mut per: BTreeMap<String, IsaSums> = BTreeMap::new();
        for co in &d.code_objects {
            let e = per.entry(co.target.processor.clone()).or_default();
            for k in &co.kernels {
                e.kernels += 1;
                e.instructions += k.counts.instructions;
                for (g, n) in &k.counts.groups {
                    *e.groups.entry(g.clone()).or_default() += n;
                }
            }
        }
        IsaTotals { per }
    }
}

// ---------------------------------------------------------------- inventory

/// What the shipped-code rule reads of an inventory: its coverage matrix, library → target id
/// → cell. An inventory lists every code object and kernel of an install (hundreds of MB for a
/// whole ROCm); it is reduced to this while it is read.
pub type Coverage = BTreeMap<String, BTreeMap<String, rocpath_docs::inventory::Cell>>;

/// The coverage of an inventory, target ids as text.
fn coverage_of(inv: rocpath_docs::inventory::Inventory) -> Coverage {
    inv.coverage
        .into_iter()
        .map(|(lib, row)| {
            (
                lib,
                row.into_iter().map(|(t, c)| (t.to_string(), c)).collect(),
            )
        })
        .collect()
}

// ---------------------------------------------------------------- follow

// ---------------------------------------------------------------- reading

#[derive(Deserialize)]
struct Envelope<'a> {
    schema: String,
    id: String,
    #[serde(borrow)]
    imported: &'a RawValue,
    #[serde(default)]
    #[allow(dead_code)]
    inputs: IgnoredAny,
    #[serde(default)]
    #[allow(dead_code)]
    quotes: IgnoredAny,
    #[serde(borrow)]
    document: &'a RawValue,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ImportedWorld {
    world: Loose,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct SchemaOnly {
    schema: Loose,
}

/// Reads what the rules use of the observation file at `path`.
pub fn read(path: &Path) -> Result<ObsDigest, ParseError> {
    let bytes = std::fs::read(path).map_err(|e| ParseError::Read(e.to_string()))?;
    parse(&bytes)
}

/// Parses what the rules use of an observation file's bytes.
pub fn parse(bytes: &[u8]) -> Result<ObsDigest, ParseError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ParseError::utf8(&e))?;
    let e: Envelope<'_> = serde_json::from_str(text).map_err(|e| ParseError::json(&e))?;
    check_schema(&e.schema, OBSERVATION_SCHEMA)?;
    check_id(&e.id)?;
    let world: ImportedWorld = serde_json::from_str(e.imported.get()).unwrap_or_default();
    let raw = e.document.get();
    let schema: SchemaOnly = serde_json::from_str(raw).map_err(|e| ParseError::json(&e))?;
    let mut schema = schema.schema.0.unwrap_or_default();
    // An older version is brought to the current one first (as a tree: the slow path, taken
    // only for documents imported from an older rocpath).
    let upgraded;
    let raw = if rocpath_docs::migrate::is_older(&schema) {
        let mut v: serde_json::Value =
            serde_json::from_str(raw).map_err(|e| ParseError::json(&e))?;
        crate::files::current_version(&mut v)?;
        upgraded = v.to_string();
        schema = v["schema"].as_str().unwrap_or_default().to_string();
        upgraded.as_str()
    } else {
        raw
    };
    Ok(ObsDigest {
        id: e.id,
        world: world.world.0.unwrap_or_default(),
        doc: typed_doc(&schema, raw)?,
        schema,
    })
}

/// The typed reading of a current-version document.
fn typed_doc(schema: &str, raw: &str) -> Result<Doc, ParseError> {
    use rocpath_docs::schema as s;
    fn typed<'a, T: Deserialize<'a>>(raw: &'a str) -> Result<T, ParseError> {
        serde_json::from_str(raw).map_err(|e| ParseError::json(&e))
    }
    Ok(match schema {
        // A case table (`rows[]`) is a view for people of what `case read` documents hold;
        // the rules read the case reports, so it derives nothing (it was read as a case
        // document with no `cases[]`: nothing, without a word).
        x if x == s::CASE.id => Doc::Case(typed(raw)?),
        x if x == s::EXPLAIN_COMPARE.id => Doc::Compare(typed(raw)?),
        x if x == s::EXPLAIN_GEMM.id => Doc::Gemm(typed(raw)?),
        x if x == s::TRACE.id => Doc::Trace(typed(raw)?),
        x if x == s::OLLAMA.id => Doc::Ollama(typed(raw)?),
        x if x == s::STRACE.id => Doc::Strace(typed(raw)?),
        x if x == s::LANES.id => Doc::Lanes(typed(raw)?),
        x if x == s::INVENTORY.id => Doc::Inventory(coverage_of(typed(raw)?)),
        x if x == s::ISA.id => Doc::Isa(IsaTotals::of(&typed(raw)?)),
        x if x == s::CHECK.id => Doc::Check(typed(raw)?),
        x if x == s::GATES.id => Doc::Gates(typed(raw)?),
        x if x == s::PROVENANCE.id => Doc::Provenance(typed(raw)?),
        x if x == s::FOLLOW.id => Doc::Follow(typed(raw)?),
        _ => Doc::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A whole case document, as `case read` prints one (a MIOpenDriver run, fields cut to
    /// what one case needs).
    const CASE: &str = r#"{"schema":"rocpath.case/1","cases":[{"name":"a","path":"/c/a",
        "complete":true,"files":[],"meta":{"schema":"rocpath.case-meta/1","source":"case.json",
        "name":"a","started":null,"host":null,"cwd":null,"command":[],
        "command_line":"MIOpenDriver convint8 -n 1 -c 8 -H 8 -W 8 -k 8 -y 3 -x 3","env":{}},
        "device":{"arch":"gfx900:xnack-","evidence":{"class":"confirmed","kind":"runtime_verified","rule":"d"}},
        "libraries":[{"what":"miopen_version","value":"3.5.1.abc","evidence":{"class":"confirmed","kind":"runtime_verified","rule":"v"}}],
        "problems":[{"key":"8-8-8-3x3-8-6-6-1-0x0-1x1-1x1-0-NCHW-INT8-F","problem":{"spatial_dims":2,
        "in_c":8,"in_dhw":[1,8,8],"fil_dhw":[1,3,3],"out_c":8,"out_dhw":[1,6,6],"batch":1,"pad":[0,0,0],
        "stride":[0,1,1],"dilation":[0,1,1],"bias":0,"layouts":["NCHW","NCHW","NCHW"],
        "types":["INT8","INT8","INT32"],"casts":[null,null,null],"groups":1,"direction":"F"},
        "seen_as":["driver_command"],"evidence":{"class":"confirmed","kind":"runtime_verified","rule":"p"}}],
        "candidates":[],"forced":null,"selected":{"solver_id":85,"solver":"ConvDirectNaiveConvFwd",
        "kernels":[],"evidence":{"class":"confirmed","kind":"runtime_verified","rule":"s"}},
        "db_lookups":[],"code_objects":[],"timings":[],"verification":null,
        "outcome":{"kind":"natural","reason":"r","evidence":{"class":"confirmed","kind":"runtime_verified","rule":"o"}},
        "exit":{"code":0,"signal":null},"gemm_calls":[],"api_calls":[],"tensile_kernels":[],
        "fallbacks":[],"errors":[],"notes":[]}],"errors":[]}"#;

    #[test]
    fn a_case_is_read_with_its_own_type() {
        let text = format!(
            r#"{{"schema":"rocpath.ledger.observation/1","id":"c1","imported":{{"world":"gfx906"}},"document":{CASE}}}"#
        );
        let d = parse(text.as_bytes()).unwrap();
        let Doc::Case(c) = &d.doc else {
            panic!("not a case")
        };
        let c = &c.cases[0];
        assert_eq!(c.outcome.kind, rocpath_docs::case::OutcomeKind::Natural);
        assert_eq!(
            c.problems[0].problem.types[2],
            rocpath_docs::conv::DataType::Int32
        );
        let f = super::super::cases::fact(&d, 0, c);
        assert_eq!(
            (
                f.world.as_str(),
                f.library.as_str(),
                f.op.as_str(),
                f.dtype.as_str()
            ),
            ("gfx900", "MIOpen 3.5.1", "conv_fwd", "INT8 (out INT32)")
        );
        assert_eq!(f.problem, "F|INT8/INT8/INT32|-/-/-|NCHW/NCHW/NCHW");
        assert_eq!(
            (f.api.as_str(), f.mode.as_str()),
            ("MIOpenDriver", "natural")
        );
    }

    #[test]
    fn a_case_field_of_another_shape_is_an_error_naming_it() {
        let e = error_of(CASE.replace(
            r#""types":["INT8","INT8","INT32"]"#,
            r#""types":["INT8",3,null]"#,
        ));
        assert!(e.contains("invalid type: integer `3`"), "{e}");
    }

    /// Why an observation of `doc` does not read.
    fn error_of(doc: String) -> String {
        let text = format!(
            r#"{{"schema":"rocpath.ledger.observation/1","id":"x","imported":{{}},"document":{doc}}}"#
        );
        parse(text.as_bytes()).unwrap_err().to_string()
    }

    proptest::proptest! {
        /// Any bytes, and any cut of a case document: a digest or an error, and the rules
        /// run on whatever was read; the whole one gives its findings.
        #[test]
        fn never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512), cut in 0usize..2300) {
            let _ = parse(&bytes);
            cut_reads(CASE, cut)?;
        }
    }

    proptest::proptest! {
        /// Any cut of a trail, a gates scan or a check: a digest or an error, never a panic.
        #[test]
        fn source_documents_never_panic(cut in 0usize..1500, which in 0usize..3) {
            let docs = [
                r#"{"schema":"rocpath.follow/1","spec":"num_gpu","repos":[{"name":"app","root":"/src/app",
                   "commit":null,"files":2,"cached":false}],"depth":24,"limit":400,"matched":1,
                   "truncated":true,"notes":["limit"],"hops":[{"path":"a.go","line":3,"commit":null,"text":"n := 1",
                   "evidence":"code_verified","symbol":"n","kind":"origin","children":[{"path":"b.go","line":9,
                   "commit":null,"text":"f(n)","evidence":"unresolved","symbol":"m","kind":"call-arg","note":"cgo",
                   "children":[]}]}]}"#,
                r#"{"schema":"rocpath.gates/1","repos":[{"name":"MIOpen","root":"/s/MIOpen","commit":"2d1fd997a6fc",
                   "files":1,"bytes":9,"parsed":1,"gates":1}],"gates":[{"repo":"MIOpen","path":"s.cpp","line":4,
                   "language":"cpp","kind":"string","layer":"selection","effect":"includes","alternative":false,
                   "patterns":[],"covers":["gfx900"],"guards":"S","text":"x","at":"MIOpen:s.cpp:4",
                   "evidence":{"class":"confirmed","kind":"code_verified","rule":"r"},"provenance":{"path":"s.cpp",
                   "line":4,"text":"x","introduced":{"hash":"abc","author":"A","email":"a@b","date":"2021-01-01",
                   "time":1,"subject":"s","path":"s.cpp","line":4},"roles":{"insertion":{"status":"unresolved","basis":"b"},
                   "maintenance":{"status":"unresolved","basis":"b"},"operational":{"status":"unresolved","basis":"b"},
                   "repair_capable":{"status":"unresolved","basis":"b"}},
                   "evidence":{"class":"confirmed","kind":"history_verified","rule":"r"}}}],
                   "targets":[{"arch":"gfx900","rows":[{"arch":"gfx900","layer":"selection","verdict":"includes",
                   "named":true,"gate":0,"repo":"MIOpen","path":"s.cpp","kind":"string","at":"a",
                   "evidence":{"class":"confirmed","kind":"code_verified","rule":"r"}}]}],"errors":[]}"#,
                r#"{"schema":"rocpath.check/1","devices":[{"device":{"source":"--target","name":null,
                   "target":"gfx900:xnack-","generic":[],"cus":null},"override":null,"libraries":[{"library":
                   "/opt/rocm/lib/librocblas.so","kind":"code_objects","verdict":"runs","compatible":1,"total":5,
                   "targets":["gfx900"],"deciders":[],"why":"w","with_override":{"verdict":"runs","compatible":1,
                   "why":"w"},"evidence":{"class":"inferred","kind":"code_verified","rule":"r"}}],"summary":{"runs":1},
                   "verdict":"runs"}],"errors":[]}"#,
            ];
            cut_reads(docs[which], cut)?;
        }
    }

    proptest::proptest! {
        /// Any cut of a lanes summary, a strace report, a kernel trace or Ollama runs (read
        /// with their producers' types): a digest or an error naming the document, never a
        /// panic; the whole one gives its findings.
        #[test]
        fn run_documents_never_panic(cut in 0usize..1400, which in 0usize..4) {
            let ev = r#"{"class":"inferred","kind":"runtime_verified","rule":"r"}"#;
            let lanes = format!(
                r#"{{"schema":"rocpath.lanes/2","metric":"eval_rate","unit":"tok/s","definition":"d",
                "bootstrap_iterations":10,"seed":1,"lanes":[{{"name":"MI25","files":["a.jsonl"],
                "values":[1.0,2.0],"n":2,"min":1.0,"p10":1.1,"median":1.5,"p90":1.9,"max":2.0,
                "mean":1.5,"stdev":0.5,"stdev_sample":null,"records":2,"failed":0,"warmup":0,
                "meta_records":0,"literal_newline_records":0,"not_json":0,"evidence":{ev}}}],
                "comparisons":[{{"a":"MI25","b":"Vega64","ratio_of_medians":1.2,"ci_low":1.1,
                "ci_high":1.3,"u":0.0,"p_value":0.01,"test":"exact","verdict":"differ",
                "evidence":{ev}}}],"errors":[]}}"#
            );
            let strace = format!(
                r#"{{"schema":"rocpath.strace/1","files":1,"opens":3,"ok":3,"failed":0,
                "research":{{"libggml_hip_openat":1,"fallback_dat_openat":1,"fallback_hsaco_openat":1}},
                "fallback_confirmed":true,"tensile":[],"libraries":[],"catalog_read":{ev},
                "processes":[],"rocblas_traces":[],"link":{{"fallback_confirmed":true,
                "dispatch_confirmed":false,"direct_rocblas_or_tensile_dispatch":false,
                "link_status":"insufficient_evidence","blas_kernel_dispatches":0,
                "rocblas_gemm_calls":0,"layers":["catalog_read"],"evidence":{ev}}},"errors":[]}}"#
            );
            let trace = format!(
                r#"{{"schema":"rocpath.trace/2","dispatches":1,"blas_dispatches":0,"families":[],
                "kernels":[],"research":{{"kernel_dispatch_rows":1,"kernel_mul_mat_q_rows":0,
                "kernel_mul_mat_vec_rows":0,"kernel_flash_attn_rows":0,"kernel_quantize_rows":0,
                "kernel_copy_rows":0,"kernel_tensile_like_rows":0}},"evidence":{ev},"traces":[],
                "notes":[],"errors":[]}}"#
            );
            let ollama = format!(
                r#"{{"schema":"rocpath.ollama/2","runs":[{{"run":"r","files":[],"verdict":{{
                "verdict":"GPU","signals":[{{"side":"gpu","what":"gpu_layers","value":"23",
                "at":{{"path":"j.log","line":3}},"pid":7,"counted":true}}],"evidence":{ev}}},
                "server":{{"compute":"gfx900","gpu_layers":23}},"failures":[],"notes":[]}}],
                "notes":[],"errors":[]}}"#
            );
            let doc = [lanes, strace, trace, ollama][which].clone();
            cut_reads(&doc, cut)?;
        }
    }

    proptest::proptest! {
        /// Any cut of an inventory or an ISA census (read whole, reduced as they are read): a
        /// digest or an error, never a panic; the whole one gives its findings.
        #[test]
        fn shipped_documents_never_panic(cut in 0usize..1200, which in 0usize..2) {
            let ev = r#"{"class":"confirmed","kind":"shipped_artifact_verified","rule":"r"}"#;
            let counts = r#""instructions":4,"code_bytes":16,"unknown":0,"mnemonics":{"v_dot4_i32_i8":1,
                "s_endpgm":3},"classes":{},"groups":{"dot":1},"signals":{}"#;
            let inventory = r#"{"schema":"rocpath.inventory/1","code_objects":[],"tensile":[],"miopen_dbs":[],
                "targets":{},"coverage":{"libx.so":{"gfx906":{"code_objects":1,"kernels":2,
                "bytes":3}}},"errors":[],"stats":{"files":1,"bytes":3}}"#.to_string();
            let isa = format!(
                r#"{{"schema":"rocpath.isa/1","code_objects":[{{"path":"a.co","container":"",
                "library":"a.co","offset":0,"sha256_source":"computed",
                "target":"amdgcn-amd-amdhsa--gfx906","target_id":"gfx906","processor":"gfx906",
                "decoder":"gfx906",{counts},"kernel_count":1,
                "kernels":[{{"name":"k","is_kernel":true,{counts}}}],"evidence":{ev}}}],
                "targets":{{}},"find":[],"not_found":[],"disasm":[],"skipped":[],"errors":[]}}"#
            );
            cut_reads(&[inventory, isa][which], cut)?;
        }
    }

    /// A document cut at `cut` inside an observation reads as a digest or an error, never a
    /// panic, and the rules run on what was read; the whole document gives findings.
    fn cut_reads(doc: &str, cut: usize) -> Result<(), proptest::test_runner::TestCaseError> {
        let text = format!(
            r#"{{"schema":"rocpath.ledger.observation/1","id":"o","imported":{{"world":"gfx900"}},"document":{}}}"#,
            doc.get(..cut.min(doc.len())).unwrap_or(doc)
        );
        match parse(text.as_bytes()) {
            Ok(d) => {
                let found = crate::derive::findings(&[d]);
                proptest::prop_assert!(cut < doc.len() || !found.is_empty());
            }
            Err(_) => proptest::prop_assert!(cut < doc.len()),
        }
        Ok(())
    }

    /// A case comparison and a kernel comparison, as `explain --compare` prints them (the
    /// explanation and the decision cut to a stub: the reader skips them).
    const COMPARISONS: &str = r#"{"schema":"rocpath.explain.compare/1","comparisons":[
        {"case":"a","arch":"gfx900:xnack-","problem_key":"32-28-28-1x1-32-28-28-16-0x0-1x1-1x1-0-NCHW-INT8-F",
         "mode":"find","release":"3.5.1","observed":"ConvDirectNaiveConvFwd","observed_outcome":"natural",
         "predicted":"ConvDirectNaiveConvFwd","verdict":"agree","statement":"s","question":null,
         "evidence":{"class":"confirmed","kind":"runtime_verified","rule":"r"},"solvers":[
         {"solver":"ConvAsm1x1U","logged":"not_applicable","line":3,"model":"not_applicable","verdict":"agree"}],
         "solver_counts":{"agree":1},"explanation":{"path":[{"step":"find_db"}],"ranked":[]}},
        {"trace":"t.csv","arch":"gfx900","kernel":"mul_mat_q<(ggml_type)12, 64>","family":"mul_mat_q",
         "ggml_type":"q4_k","phase":"prefill","dispatches":3,"observed":"mmq","predicted":"mmvq",
         "observed_path_ne11":[[1,8]],"verdict":"disagree","statement":"s","question":"q",
         "evidence":{"class":"unresolved","kind":"runtime_verified","rule":"r"},
         "decision":{"path":"mmvq","rule":"r"}}]}"#;

    #[test]
    fn comparisons_are_read_with_their_own_types() {
        let text = format!(
            r#"{{"schema":"rocpath.ledger.observation/1","id":"x","imported":{{}},"document":{COMPARISONS}}}"#
        );
        let d = parse(text.as_bytes()).unwrap();
        let Doc::Compare(c) = &d.doc else {
            panic!("not a comparison")
        };
        assert!(matches!(
            c.comparisons.as_slice(),
            [ReadComparison::Case(_), ReadComparison::Kernel(_)]
        ));
        let found = crate::derive::findings(&[d]);
        assert_eq!(found.len(), 2, "{found:?}");
        let e = error_of(COMPARISONS.replace(r#""dispatches":3"#, r#""dispatches":"3""#));
        assert!(e.contains("invalid type: string \"3\""), "{e}");
    }

    proptest::proptest! {
        /// Any cut of a comparisons document: a digest or an error, never a panic; the whole
        /// one gives its findings.
        #[test]
        fn comparisons_never_panic(cut in 0usize..1500) {
            cut_reads(COMPARISONS, cut)?;
        }
    }

    #[test]
    fn a_case_table_is_no_case_document() {
        let text = r#"{"schema":"rocpath.ledger.observation/1","id":"t","imported":{},
            "document":{"schema":"rocpath.case-table/1","rows":[{"case":"a","outcome":"natural"}],
            "errors":[]}}"#;
        assert!(matches!(parse(text.as_bytes()).unwrap().doc, Doc::Other));
    }

    #[test]
    fn other_schemas_and_bad_files() {
        let text = r#"{"schema":"rocpath.ledger.observation/1","id":"x","imported":{},
            "document":{"schema":"rocpath.survey/1","gates":[1,2]}}"#;
        assert!(matches!(parse(text.as_bytes()).unwrap().doc, Doc::Other));
        assert!(parse(b"{").is_err());
        assert!(parse(b"\xff").is_err());
    }
}
