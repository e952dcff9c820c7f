//! The bilingual (Japanese/English) evidence site of a rocpath ledger.
//!
//! [`build`] writes a static site: every page in both languages (a switch on every page,
//! remembered in `localStorage`; a visible marker where a translation is missing), evidence
//! classes as the research pages show them (`badge-*` and `callout-*`), relative links only
//! (it works from any sub-path and from `file://`), no external resources (CSS and JS are
//! embedded in rocpath), inline SVG figures, and an offline search index.
//!
//! All text from the ledger — statements, log lines, paths — reaches HTML through one path:
//! the templates, rendered by minijinja with HTML auto-escaping on for every template, and no
//! template marks anything safe. The output depends only on the ledger: no clock is read.
//!
//! [`serve`] previews a built site on 127.0.0.1.

pub mod serve;
pub mod svg;
pub mod views;

use minijinja::{Environment, Value, context};
use rayon::prelude::*;
use rocpath_ledger::files::observation_to_json;
use rocpath_ledger::model::*;
use rocpath_ledger::schemas;
use rocpath_ledger::store::Loaded;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use thiserror::Error;
use views::*;

/// Errors of [`build`].
#[derive(Debug, Error)]
pub enum SiteError {
    /// An I/O error on a path.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The output folder holds other files.
    #[error("{0}: not empty and not a rocpath site; give an empty or new folder")]
    NotEmpty(PathBuf),
    /// A template failed (a bug in rocpath).
    #[error("template {name}: {message}")]
    Template {
        /// Template name.
        name: String,
        /// What failed.
        message: String,
    },
}

/// Build options.
#[derive(Debug, Clone)]
pub struct Options {
    /// rocpath's version, shown in the footer.
    pub version: String,
}

/// What a build wrote.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Files written.
    pub files: usize,
    /// HTML pages among them.
    pub pages: usize,
    /// Bytes written.
    pub bytes: u64,
}

/// Marker file of a rocpath site folder (a rebuild may replace such a folder).
pub const MARKER: &str = ".rocpath-site";

const TEMPLATES: [(&str, &str); 17] = [
    ("macros.html", include_str!("../templates/macros.html")),
    ("figures.html", include_str!("../templates/figures.html")),
    ("base.html", include_str!("../templates/base.html")),
    ("index.html", include_str!("../templates/index.html")),
    ("world.html", include_str!("../templates/world.html")),
    ("stack.html", include_str!("../templates/stack.html")),
    ("case.html", include_str!("../templates/case.html")),
    ("cases.html", include_str!("../templates/cases.html")),
    ("matrix.html", include_str!("../templates/matrix.html")),
    ("taxonomy.html", include_str!("../templates/taxonomy.html")),
    ("timeline.html", include_str!("../templates/timeline.html")),
    ("coverage.html", include_str!("../templates/coverage.html")),
    ("claims.html", include_str!("../templates/claims.html")),
    ("claim.html", include_str!("../templates/claim.html")),
    (
        "observation.html",
        include_str!("../templates/observation.html"),
    ),
    (
        "observations.html",
        include_str!("../templates/observations.html"),
    ),
    ("search.html", include_str!("../templates/search.html")),
];

const CSS: &str = include_str!("../assets/site.css");
const JS: &str = include_str!("../assets/site.js");

/// The template environment: every template auto-escapes HTML; undefined variables are errors.
pub fn environment() -> Result<Environment<'static>, SiteError> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    for (name, src) in TEMPLATES {
        env.add_template(name, src)
            .map_err(|e| SiteError::Template {
                name: name.to_string(),
                message: format!("{e:#}"),
            })?;
    }
    Ok(env)
}

#[derive(Serialize)]
struct Nav {
    key: &'static str,
    href: &'static str,
    ja: &'static str,
    en: &'static str,
}

const NAVS: [Nav; 9] = [
    Nav {
        key: "index",
        href: "index.html",
        ja: "トップ",
        en: "Home",
    },
    Nav {
        key: "stack",
        href: "stack.html",
        ja: "スタック地図",
        en: "Stack map",
    },
    Nav {
        key: "matrix",
        href: "matrix.html",
        ja: "判定マトリクス",
        en: "Matrix",
    },
    Nav {
        key: "cases",
        href: "cases.html",
        ja: "ケース",
        en: "Cases",
    },
    Nav {
        key: "taxonomy",
        href: "taxonomy.html",
        ja: "失敗モード",
        en: "Failure modes",
    },
    Nav {
        key: "timeline",
        href: "timeline.html",
        ja: "タイムライン",
        en: "Timeline",
    },
    Nav {
        key: "coverage",
        href: "coverage.html",
        ja: "カバレッジ",
        en: "Coverage",
    },
    Nav {
        key: "claims",
        href: "claims.html",
        ja: "主張",
        en: "Claims",
    },
    Nav {
        key: "search",
        href: "search.html",
        ja: "検索",
        en: "Search",
    },
];

struct Writer<'e> {
    out: PathBuf,
    env: &'e Environment<'static>,
    common: Value,
    files: AtomicUsize,
    pages: AtomicUsize,
    bytes: AtomicU64,
}

impl Writer<'_> {
    fn write(&self, rel: &str, bytes: &[u8]) -> Result<(), SiteError> {
        let p = self.out.join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|source| SiteError::Io {
                path: d.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&p, bytes).map_err(|source| SiteError::Io { path: p, source })?;
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Renders `template` into `rel` (depth decides the root prefix).
    fn page(
        &self,
        rel: &str,
        template: &str,
        nav: &str,
        title: TextV,
        data: Value,
    ) -> Result<(), SiteError> {
        let root = "../".repeat(rel.matches('/').count());
        let ctx = minijinja::value::merge_maps([
            context! { root => root, nav => nav, page_title => title },
            data,
            self.common.clone(),
        ]);
        let html = self
            .env
            .get_template(template)
            .and_then(|t| t.render(ctx))
            .map_err(|e| SiteError::Template {
                name: template.to_string(),
                message: format!("{e:#}"),
            })?;
        self.write(rel, html.as_bytes())?;
        self.pages.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn report(&self) -> Report {
        Report {
            files: self.files.load(Ordering::Relaxed),
            pages: self.pages.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }
}

fn prepare_out(out: &Path) -> Result<(), SiteError> {
    let io = |source| SiteError::Io {
        path: out.to_path_buf(),
        source,
    };
    match std::fs::read_dir(out) {
        Ok(mut rd) => {
            if out.join(MARKER).is_file() {
                std::fs::remove_dir_all(out).map_err(io)?;
            } else if rd.next().is_some() {
                return Err(SiteError::NotEmpty(out.to_path_buf()));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    std::fs::create_dir_all(out).map_err(io)?;
    std::fs::write(
        out.join(MARKER),
        b"This folder is generated by `rocpath site build`; a rebuild replaces it.\n",
    )
    .map_err(io)
}

const CLASS_MEANINGS: [(&str, &str, &str); 4] = [
    (
        "confirmed",
        "実機コマンド・ログ・ファイル存在・逆アセンブリ等で直接確認した事実",
        "Directly confirmed via live commands, logs, file presence, or disassembly",
    ),
    (
        "inferred",
        "確認した事実から論理的に導かれる解釈。直接確認はしていない",
        "Interpretation logically derived from confirmed facts. Not directly confirmed",
    ),
    (
        "unresolved",
        "現時点では確定できない事項。observer 制約または未実施の観測による",
        "Cannot be determined at this stage, due to observer constraints or observations not yet performed",
    ),
    (
        "limited",
        "部分的に確認できているが、tool 制限により完全ではない",
        "Partially confirmed, but incomplete due to tool limitations",
    ),
];

fn group_title(class: &str) -> TextV {
    match class {
        "confirmed" => lit("観測済み事実", "Fact (confirmed)"),
        "inferred" => lit("現時点での知見", "Interpretation (inferred)"),
        "unresolved" => lit("未確定事項", "Open question (unresolved)"),
        "limited" => lit("制約あり", "Limitation (limited)"),
        _ => lit("クラスなし", "No class"),
    }
}

const FAILURE_MODES: [(&str, &str, &str); 11] = [
    (
        "applicability_reject",
        "Applicability 棄却",
        "Applicability reject",
    ),
    (
        "build_failure",
        "Build / tuning 失敗",
        "Build / tuning failure",
    ),
    ("runtime_abort", "実行時 abort", "Runtime abort"),
    ("gpu_fault", "GPU フォールト", "GPU fault"),
    ("success", "成功", "Success"),
    ("natural", "自然選択", "Natural selection"),
    (
        "fallback_observed",
        "フォールバック成立",
        "Fallback observed",
    ),
    ("cli_error", "CLI エラー", "CLI error"),
    ("library_error", "ライブラリのエラー", "Library error"),
    ("incomplete", "未完了(中断)", "Incomplete (interrupted)"),
    ("undetermined", "判定不能", "Undetermined"),
];

#[derive(Serialize)]
struct Timeline {
    date: String,
    from: String,
    class: String,
    kind: String,
    note: TextV,
    claim: ClaimV,
}

fn timeline(m: &Model<'_>) -> Vec<Timeline> {
    let mut v = Vec::new();
    for c in &m.ix.ledger.claims {
        let Some(cv) = m.claim(&c.id) else { continue };
        let mut prev: Option<String> = None;
        for h in &c.history {
            let class = class_name(h.class);
            v.push(Timeline {
                date: h.date.clone(),
                from: prev.clone().filter(|p| *p != class).unwrap_or_default(),
                class: class.clone(),
                kind: h.kind.map(|k| k.as_str().to_string()).unwrap_or_default(),
                note: tv(&h.note),
                claim: cv.clone(),
            });
            prev = Some(class);
        }
    }
    v.sort_by(|a, b| {
        b.date
            .cmp(&a.date)
            .then_with(|| a.claim.id.cmp(&b.claim.id))
    });
    v
}

#[derive(Serialize)]
struct SearchEntry {
    t: &'static str,
    id: String,
    u: String,
    ja: String,
    en: String,
    c: String,
    w: String,
    h: String,
}

/// Builds the site of a loaded ledger into `out` (created; a previous rocpath site there is
/// replaced; any other non-empty folder is refused).
pub fn build(l: &Loaded, out: &Path, opts: &Options) -> Result<Report, SiteError> {
    prepare_out(out)?;
    let env = environment()?;
    let m = Model::new(l);
    let common = context! {
        site_title => tv(&l.meta.title),
        version => opts.version.clone(),
        navs => NAVS,
    };
    let w = Writer {
        out: out.to_path_buf(),
        env: &env,
        common,
        files: AtomicUsize::new(1), // the marker
        pages: AtomicUsize::new(0),
        bytes: AtomicU64::new(0),
    };
    w.write("assets/site.css", CSS.as_bytes())?;
    w.write("assets/site.js", JS.as_bytes())?;

    let claims_sorted = m.sorted_claims();
    let timeline = timeline(&m);
    let worlds = m.worlds();

    // Index.
    let mut class_counts: BTreeMap<String, usize> = BTreeMap::new();
    for c in &l.claims {
        *class_counts.entry(class_name(c.class)).or_default() += 1;
    }
    let classes: Vec<Value> = CLASS_MEANINGS
        .iter()
        .map(|(c, ja, en)| {
            context! { class => c, meaning => lit(ja, en), count => class_counts.get(*c).copied().unwrap_or(0) }
        })
        .collect();
    let total = l.claims.len().max(1);
    let mut x = 0.0f64;
    let mut segments = Vec::new();
    for c in ["confirmed", "inferred", "unresolved", "limited", "none"] {
        let n = class_counts.get(c).copied().unwrap_or(0);
        if n == 0 {
            continue;
        }
        let wdt = 600.0 * n as f64 / total as f64;
        segments.push(
            context! { class => c, count => n, x => format!("{x:.2}"), w => format!("{wdt:.2}") },
        );
        x += wdt;
    }
    let world_rows: Vec<Value> = worlds
        .iter()
        .map(|wd| {
            let procs = m.world_processors(&wd.id);
            let code_objects: u64 = m
                .coverage
                .cells
                .iter()
                .filter(|((_, t), _)| procs.contains(&schemas::processor_of(t)))
                .map(|(_, c)| c.code_objects)
                .sum();
            let counts: Vec<Value> = ["confirmed", "inferred", "unresolved", "limited", "none"]
                .iter()
                .map(|c| {
                    let n = l
                        .claims
                        .iter()
                        .filter(|x| x.world == wd.id && class_name(x.class) == *c)
                        .count();
                    context! { class => c, count => n }
                })
                .collect();
            context! {
                id => wd.id.clone(), name => wd.name.clone(), url => world_url(&wd.id),
                character => tv(&wd.character), status => tv(&wd.status),
                class_counts => counts, code_objects => code_objects,
            }
        })
        .collect();
    w.page(
        "index.html",
        "index.html",
        "index",
        lit("トップ", "Home"),
        context! {
            description => tv(&l.meta.description),
            classes => classes,
            class_bar => if segments.is_empty() { None } else { Some(context! { width => 600, segments => segments }) },
            worlds => world_rows,
            recent => timeline.iter().take(10).collect::<Vec<_>>(),
            n_claims => l.claims.len(),
            n_observations => l.observations.len(),
        },
    )?;

    // World pages.
    let heat = svg::heatmap(&m.coverage);
    for wd in &worlds {
        let procs = m.world_processors(&wd.id);
        let rows: Vec<Value> = m
            .coverage
            .cells
            .iter()
            .filter(|((_, t), _)| procs.contains(&schemas::processor_of(t)))
            .map(|((lib, t), c)| context! { library => lib, target => t, code_objects => c.code_objects, kernels => c.kernels })
            .collect();
        let with_code: BTreeSet<&String> = m
            .coverage
            .cells
            .keys()
            .filter(|(_, t)| procs.contains(&schemas::processor_of(t)))
            .map(|(lib, _)| lib)
            .collect();
        let no_code: Vec<String> = if procs.is_empty() {
            Vec::new()
        } else {
            m.coverage
                .libraries()
                .into_iter()
                .filter(|lib| !with_code.contains(lib))
                .collect()
        };
        let tensile: Vec<&String> = m
            .coverage
            .tensile
            .iter()
            .filter(|(p, _)| procs.contains(p))
            .map(|(_, f)| f)
            .collect();
        let miopen: Vec<&String> = m
            .coverage
            .miopen
            .iter()
            .filter(|(p, _)| procs.contains(p))
            .map(|(_, f)| f)
            .collect();
        let fams: Vec<&schemas::IsaFamily> = m
            .families
            .values()
            .filter(|f| procs.contains(&f.processor))
            .collect();
        let mut groups = Vec::new();
        for class in ["confirmed", "inferred", "unresolved", "limited", "none"] {
            let cs: Vec<ClaimV> = claims_sorted
                .iter()
                .filter(|c| c.world == wd.id && class_name(c.class) == class)
                .filter_map(|c| m.claim(&c.id))
                .collect();
            if !cs.is_empty() {
                groups.push(context! { class => class, title => group_title(class), claims => cs });
            }
        }
        let questions: Vec<QuestionV> = l
            .questions
            .iter()
            .filter(|q| q.world == wd.id)
            .map(|q| m.question(q))
            .collect();
        let observations: Vec<ObsRef> = l
            .observations
            .iter()
            .filter(|o| {
                m.processors
                    .get(o.id.as_str())
                    .is_some_and(|ps| ps.iter().any(|p| procs.contains(p)))
            })
            .map(|o| m.obs_ref(o))
            .collect();
        w.page(
            &world_url(&wd.id),
            "world.html",
            "index",
            lit(&format!("観測世界 {}", wd.id), &format!("World {}", wd.id)),
            context! {
                w => context! {
                    id => wd.id.clone(), name => wd.name.clone(), character => tv(&wd.character), status => tv(&wd.status),
                    processors => procs, coverage_rows => rows, no_code => no_code, tensile => tensile, miopen => miopen,
                    groups => groups, questions => questions, observations => observations,
                },
                heat => heat.as_ref().filter(|_| !with_code.is_empty()),
                bars_fig => svg::bars(&fams),
            },
        )?;
    }

    // Stack map.
    let floor_titles = |f: Floor| match f {
        Floor::Application => (
            lit(
                "アプリケーション — あなたが使うソフト",
                "Application — the software you use",
            ),
            lit(
                "PyTorch、Ollama、llama.cpp など",
                "PyTorch, Ollama, llama.cpp, ...",
            ),
        ),
        Floor::MathLibrary => (
            lit(
                "数学ライブラリ — 専門の計算チーム",
                "Math libraries — specialised calculation teams",
            ),
            lit(
                "rocBLAS・MIOpen・Tensile・hipBLASLt・Composable Kernel・ggml-hip",
                "rocBLAS, MIOpen, Tensile, hipBLASLt, Composable Kernel, ggml-hip",
            ),
        ),
        Floor::Runtime => (
            lit(
                "ランタイム — 受付と配達係",
                "Runtime — reception & delivery",
            ),
            lit(
                "HIP runtime・ROCr(code object の読み込み)",
                "HIP runtime, ROCr (code object loading)",
            ),
        ),
        Floor::Driver => (
            lit("ドライバ — 通訳", "Driver — the translator"),
            lit("amdgpu ドライバと KFD", "amdgpu driver and KFD"),
        ),
        Floor::Hardware => (
            lit(
                "GPU ハードウェア — 実際に計算する本体",
                "GPU hardware — the chip that computes",
            ),
            lit(
                "gfx900・gfx1201・gfx942 など",
                "gfx900, gfx1201, gfx942, ...",
            ),
        ),
    };
    let layer_keys: [(Option<Layer>, &str, TextV); 4] = [
        (Some(Layer::Build), "build", lit("維持 (Build)", "Build")),
        (
            Some(Layer::Selection),
            "selection",
            lit("管理 (Selection)", "Selection"),
        ),
        (
            Some(Layer::Fallback),
            "fallback",
            lit("補充 (Fallback)", "Fallback"),
        ),
        (None, "none", lit("層未指定", "No layer")),
    ];
    let floors: Vec<Value> = Floor::ALL
        .iter()
        .map(|&f| {
            let on: Vec<&&Claim> = claims_sorted.iter().filter(|c| c.floor == Some(f)).collect();
            let layers: Vec<Value> = layer_keys
                .iter()
                .map(|(ly, key, title)| {
                    let cs: Vec<ClaimV> = on.iter().filter(|c| c.layer == *ly).filter_map(|c| m.claim(&c.id)).collect();
                    let more = cs.len().saturating_sub(MAX_PER_LAYER);
                    context! { key => key, title => title.clone(), claims => cs.into_iter().take(MAX_PER_LAYER).collect::<Vec<_>>(), more => more }
                })
                .collect();
            let (title, who) = floor_titles(f);
            context! { number => f.number(), title => title, who => who, count => on.len(), layers => layers }
        })
        .collect();
    let unplaced: Vec<ClaimV> = claims_sorted
        .iter()
        .filter(|c| c.floor.is_none())
        .filter_map(|c| m.claim(&c.id))
        .collect();
    w.page(
        "stack.html",
        "stack.html",
        "stack",
        lit("スタック地図", "Stack map"),
        context! { floors => floors, unplaced => unplaced },
    )?;

    // Cases.
    let mut case_rows = Vec::new();
    for c in &l.cases {
        let cl: Vec<&Claim> = c
            .claims
            .iter()
            .filter_map(|id| m.ix.claims.get(id.as_str()).copied())
            .collect();
        let by = |pred: &dyn Fn(&str) -> bool| -> Vec<ClaimV> {
            cl.iter()
                .filter(|x| pred(&class_name(x.class)))
                .filter_map(|x| m.claim(&x.id))
                .collect()
        };
        let facts = by(&|k| k == "confirmed");
        let interp = by(&|k| k == "inferred");
        let open = by(&|k| k != "confirmed" && k != "inferred");
        let obs: Vec<&Observation> = c
            .observations
            .iter()
            .filter_map(|id| m.ix.observations.get(id.as_str()).copied())
            .collect();
        let outcomes: Vec<&schemas::CaseOutcome> = c
            .observations
            .iter()
            .flat_map(|id| m.outcomes.get(id).into_iter().flatten())
            .collect();
        let questions: Vec<QuestionV> = c
            .questions
            .iter()
            .filter_map(|q| m.ix.questions.get(q.as_str()))
            .map(|q| m.question(q))
            .collect();
        let cref = Model::case_ref(c);
        case_rows.push(context! {
            url => cref.url.clone(), title => cref.title.clone(), world => c.world.clone(), date => c.date.clone(),
            outcomes => outcomes.iter().map(|o| o.outcome.clone()).collect::<BTreeSet<_>>(),
            n_facts => facts.len(), n_interp => interp.len(), n_open => open.len() + questions.len(),
        });
        let outcome_rows: Vec<Value> = outcomes
            .iter()
            .map(|o| context! { name => o.name.clone(), outcome => o.outcome.clone(), forced => o.forced.clone(), selected => o.selected.clone(), exit => o.exit.clone(), errors => o.errors.clone() })
            .collect();
        w.page(
            &cref.url,
            "case.html",
            "cases",
            cref.title.clone(),
            context! { c => context! {
                id => c.id.clone(), title => cref.title, world => c.world.clone(),
                world_url => if c.world.is_empty() { String::new() } else { world_url(&c.world) },
                date => c.date.clone(), summary => tv(&c.summary),
                facts => facts, interpretations => interp, open => open, questions => questions,
                outcomes => outcome_rows, raw => m.raw_lines(&obs, &cl),
                observations => obs.iter().map(|o| m.obs_ref(o)).collect::<Vec<_>>(),
            } },
        )?;
    }
    w.page(
        "cases.html",
        "cases.html",
        "cases",
        lit("ケース", "Cases"),
        context! { cases => case_rows },
    )?;

    // Assessment matrix.
    let rows: Vec<QuestionV> = l.questions.iter().map(|q| m.question(q)).collect();
    w.page(
        "matrix.html",
        "matrix.html",
        "matrix",
        lit("判定マトリクス", "Assessment matrix"),
        context! { rows => rows },
    )?;

    // Failure-mode taxonomy.
    let mut by_mode: BTreeMap<String, Vec<&schemas::CaseOutcome>> = BTreeMap::new();
    for o in m.outcomes.values().flatten() {
        by_mode.entry(o.mode().to_string()).or_default().push(o);
    }
    let mut modes: Vec<&str> = FAILURE_MODES
        .iter()
        .map(|(k, _, _)| *k)
        .filter(|k| by_mode.contains_key(*k))
        .collect();
    modes.extend(
        by_mode
            .keys()
            .map(String::as_str)
            .filter(|k| !FAILURE_MODES.iter().any(|(f, _, _)| f == k)),
    );
    let tax_rows: Vec<Value> = modes
        .iter()
        .map(|mode| {
            let os = by_mode.get(*mode).map(Vec::as_slice).unwrap_or_default();
            let title = FAILURE_MODES.iter().find(|(k, _, _)| k == mode).map_or_else(|| lit(mode, mode), |(_, ja, en)| lit(ja, en));
            let subs: BTreeSet<String> = os.iter().filter_map(|o| o.outcome.split_once(['/', ':']).map(|(_, s)| s.to_string())).collect();
            let symptoms: BTreeSet<&String> = os.iter().flat_map(|o| o.errors.iter()).collect();
            let exits: BTreeSet<&String> = os.iter().filter_map(|o| o.exit.as_ref()).collect();
            let examples: Vec<Value> = os
                .iter()
                .take(12)
                .map(|o| {
                    let url = m.cases_by_observation.get(o.observation.as_str()).and_then(|v| v.first()).map_or_else(|| format!("observations/{}.html", o.observation), |c| format!("cases/{}.html", c.id));
                    let mut label = o.name.clone();
                    if let Some(f) = &o.forced {
                        label.push_str(&format!(" — forced {f}"));
                    } else if let Some(s) = &o.selected {
                        label.push_str(&format!(" — {s}"));
                    }
                    context! { url => url, label => label }
                })
                .collect();
            context! {
                mode => mode, title => title, subs => subs, count => os.len(),
                symptoms => symptoms.into_iter().take(8).collect::<Vec<_>>(), exits => exits, examples => examples,
            }
        })
        .collect();
    w.page(
        "taxonomy.html",
        "taxonomy.html",
        "taxonomy",
        lit("失敗モード分類", "Failure-mode taxonomy"),
        context! { rows => tax_rows },
    )?;

    // Timeline, coverage, claim list.
    w.page(
        "timeline.html",
        "timeline.html",
        "timeline",
        lit("タイムライン", "Timeline"),
        context! { entries => &timeline },
    )?;
    let all_fams: Vec<&schemas::IsaFamily> = m.families.values().collect();
    w.page(
        "coverage.html",
        "coverage.html",
        "coverage",
        lit("カバレッジ", "Coverage"),
        context! { heat => heat, bars_fig => svg::bars(&all_fams) },
    )?;
    let claim_list: Vec<ClaimV> = claims_sorted
        .iter()
        .filter_map(|c| m.claim(&c.id))
        .collect();
    w.page(
        "claims.html",
        "claims.html",
        "claims",
        lit("すべての主張", "All claims"),
        context! { claims => claim_list },
    )?;

    // Claim pages.
    let mut cited_by: BTreeMap<&str, Vec<ClaimV>> = BTreeMap::new();
    for c in &claims_sorted {
        for s in &c.support {
            if let (Some(t), Some(v)) = (&s.claim, m.claim(&c.id)) {
                cited_by.entry(t.as_str()).or_default().push(v);
            }
        }
    }
    claims_sorted.par_iter().try_for_each(|c| {
        let Some(cv) = m.claim(&c.id) else {
            return Ok(());
        };
        let answers: Vec<QuestionV> = m
            .questions_by_answer
            .get(c.id.as_str())
            .into_iter()
            .flatten()
            .map(|q| m.question(q))
            .collect();
        let in_cases: Vec<CaseRef> = m
            .cases_by_claim
            .get(c.id.as_str())
            .into_iter()
            .flatten()
            .map(|k| Model::case_ref(k))
            .collect();
        let history: Vec<Value> = c
            .history
            .iter()
            .map(|h| context! { date => h.date.clone(), class => class_name(h.class), kind => h.kind.map(|k| k.as_str()).unwrap_or_default(), note => tv(&h.note) })
            .collect();
        w.page(
            &cv.url.clone(),
            "claim.html",
            "claims",
            lit(&format!("主張 {}", c.id), &format!("Claim {}", c.id)),
            context! {
                c => minijinja::value::merge_maps([context! { falsified_by => tv(&c.falsified_by) }, Value::from_serialize(&cv)]),
                supports => m.supports(c),
                cited_by => cited_by.get(c.id.as_str()).cloned().unwrap_or_default(),
                answers => answers, in_cases => in_cases, history => history,
            },
        )
    })?;

    // Observation pages and their JSON.
    let obs_list = l.observations.par_iter().map(|o| -> Result<ObsRef, SiteError> {
        let r = m.obs_ref(o);
        let cited = m.cited_records(&o.id);
        let recs = rocpath_ledger::records::records(&o.document);
        let n_records = recs.len();
        let shown: Vec<RecordV> = recs
            .iter()
            .enumerate()
            .filter(|(i, r)| *i < MAX_RECORDS || cited.contains(&r.pointer))
            .map(|(_, r)| m.record(o, r))
            .collect();
        let citing: Vec<ClaimV> = m
            .claims_by_observation
            .get(o.id.as_str())
            .into_iter()
            .flatten()
            .filter_map(|c| m.claim(&c.id))
            .collect();
        let in_cases: Vec<CaseRef> = m
            .cases_by_observation
            .get(o.id.as_str())
            .into_iter()
            .flatten()
            .map(|k| Model::case_ref(k))
            .collect();
        let json_url = format!("data/{}.json", o.id);
        let json = observation_to_json(o).map_err(|e| SiteError::Template {
            name: "observation json".into(),
            message: e.to_string(),
        })?;
        w.write(&json_url, &json)?;
        let quotes: Vec<LineV> = o
            .quotes
            .iter()
            .take(MAX_QUOTES)
            .map(|q| LineV {
                path: q.path.clone(),
                line: q.line,
                text: q.text.clone(),
            })
            .collect();
        w.page(
            &r.url.clone(),
            "observation.html",
            "claims",
            lit(&format!("観測 {}", o.id), &format!("Observation {}", o.id)),
            context! {
                o => context! {
                    id => o.id.clone(), schema => r.schema.clone(), command => r.command.clone(), time => r.time.clone(),
                    tool => views_observed(o, "tool"), version => views_observed(o, "version"), host => views_observed(o, "host"),
                    file => o.imported.file.clone(), sha256 => o.imported.sha256.clone(), json_url => json_url,
                    inputs => o.inputs.iter().map(|i| context! { path => i.path.clone(), sha256 => i.sha256.clone(), bytes => i.bytes, note => i.note.clone() }).collect::<Vec<_>>(),
                    quotes => quotes, quotes_more => o.quotes.len().saturating_sub(MAX_QUOTES),
                    records => shown, n_records => n_records, records_more => n_records.saturating_sub(MAX_RECORDS),
                },
                cited_by => citing, in_cases => in_cases,
            },
        )?;
        Ok(r)
    }).collect::<Result<Vec<_>, _>>()?;
    w.page(
        "observations.html",
        "observations.html",
        "claims",
        lit("観測", "Observations"),
        context! { observations => obs_list },
    )?;

    // Search.
    let mut entries = Vec::new();
    for c in &claims_sorted {
        let Some(v) = m.claim(&c.id) else { continue };
        let h = format!(
            "{} {} {} {} {} {}",
            c.id, c.statement.ja, c.statement.en, c.world, v.class, v.kind
        )
        .to_lowercase();
        entries.push(SearchEntry {
            t: "claim",
            id: c.id.clone(),
            u: v.url,
            ja: v.statement.ja,
            en: v.statement.en,
            c: v.class,
            w: c.world.clone(),
            h,
        });
    }
    for c in &l.cases {
        let r = Model::case_ref(c);
        let h = format!(
            "{} {} {} {} {} {}",
            c.id, c.title.ja, c.title.en, c.summary.ja, c.summary.en, c.world
        )
        .to_lowercase();
        entries.push(SearchEntry {
            t: "case",
            id: c.id.clone(),
            u: r.url,
            ja: r.title.ja,
            en: r.title.en,
            c: String::new(),
            w: c.world.clone(),
            h,
        });
    }
    let json = serde_json::to_string(&entries).map_err(|e| SiteError::Template {
        name: "search index".into(),
        message: e.to_string(),
    })?;
    w.write(
        "assets/search-index.js",
        format!("window.ROCPATH_SEARCH = {json};\n").as_bytes(),
    )?;
    w.page(
        "search.html",
        "search.html",
        "search",
        lit("検索", "Search"),
        context! {},
    )?;
    Ok(w.report())
}

fn views_observed(o: &Observation, k: &str) -> String {
    o.document
        .get("observed")
        .and_then(|v| v.get(k))
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}
