//! View models: what each page shows, computed from the ledger. Plain serializable data; the
//! markup is in `templates/`.

use rocpath_evidence::Locator;
use rocpath_ledger::index::{Index, Resolved};
use rocpath_ledger::model::*;
use rocpath_ledger::records::{self, Record};
use rocpath_ledger::schemas::{self, CaseOutcome, Coverage, IsaFamily};
use rocpath_ledger::store::Loaded;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Most records listed on an observation page (cited records are always added).
pub const MAX_RECORDS: usize = 1000;
/// Most raw lines listed on an observation or case page.
pub const MAX_QUOTES: usize = 2000;
/// Most claims per layer on the stack map.
pub const MAX_PER_LAYER: usize = 200;
/// Most records shown under one support on a claim page.
pub const MAX_SUPPORT_RECORDS: usize = 50;

/// A text in both languages, with missing-translation markers.
#[derive(Debug, Clone, Serialize, Default)]
pub struct TextV {
    /// Japanese (the English text when missing).
    pub ja: String,
    /// English (the Japanese text when missing).
    pub en: String,
    /// The Japanese is missing.
    pub ja_missing: bool,
    /// The English is missing.
    pub en_missing: bool,
}

/// A bilingual view of a ledger text.
pub fn tv(t: &Text) -> TextV {
    let (ja, en) = (t.ja.trim(), t.en.trim());
    TextV {
        ja: if ja.is_empty() { en } else { ja }.to_string(),
        en: if en.is_empty() { ja } else { en }.to_string(),
        ja_missing: ja.is_empty() && !en.is_empty(),
        en_missing: en.is_empty() && !ja.is_empty(),
    }
}

/// A fixed bilingual label.
pub fn lit(ja: &str, en: &str) -> TextV {
    tv(&Text::new(ja, en))
}

/// A file-name-safe, unique form of an id (worlds may hold any text): an id that is already a
/// safe name of at most [`SLUG_MAX`] characters is itself; any other gets its safe prefix and 16
/// hex digits of a hash of the whole id, so `a/b` and `a_b` never share a page and a long id
/// never makes a file name the file system refuses.
pub fn slug(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-';
    if !s.is_empty() && s.len() <= SLUG_MAX && !s.starts_with('.') && s.chars().all(safe) {
        return s.to_string();
    }
    let prefix: String = s
        .chars()
        .take(SLUG_MAX / 2)
        .map(|c| if safe(c) { c } else { '_' })
        .collect();
    format!("_{prefix}-{:016x}", fnv1a(s.as_bytes()))
}

/// Longest id used as a file name as it is.
pub const SLUG_MAX: usize = 100;

/// FNV-1a, 64 bits: a stable hash for file names (not a security boundary).
fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod slug_tests {
    use super::slug;

    #[test]
    fn distinct_ids_get_distinct_short_names() {
        assert_eq!(slug("gfx900"), "gfx900");
        assert_ne!(slug("a/b"), slug("a_b"));
        assert_ne!(slug("a/b"), slug("a:b"));
        let long = "w".repeat(300);
        assert!(slug(&long).len() < 90, "{}", slug(&long));
        assert_ne!(slug(&long), slug(&"w".repeat(301)));
        assert!(slug("..").starts_with('_'));
        assert!(slug("").starts_with('_'));
    }
}

/// A claim as listed anywhere.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimV {
    /// Id.
    pub id: String,
    /// Root-relative URL of its page.
    pub url: String,
    /// Statement.
    pub statement: TextV,
    /// Class name, or `none`.
    pub class: String,
    /// Kind of proof, or empty.
    pub kind: String,
    /// World.
    pub world: String,
    /// Root-relative URL of the world page.
    pub world_url: String,
    /// Floor name.
    pub floor: String,
    /// Floor number (5..1), 0 when none.
    pub floor_number: u8,
    /// Layer name.
    pub layer: String,
    /// Selection kind.
    pub selection: String,
}

/// Evidence classes in the order the pages list them (`none`: no class).
pub const CLASSES: [&str; 5] = ["confirmed", "inferred", "unresolved", "limited", "none"];

/// Whether claims of this class say what the evidence can show (confirmed, inferred); the
/// others (unresolved, limited, none) say what it cannot show yet.
pub fn shows_evidence(c: Option<rocpath_evidence::Class>) -> bool {
    matches!(
        c,
        Some(rocpath_evidence::Class::Confirmed | rocpath_evidence::Class::Inferred)
    )
}

/// Class name of an optional class.
pub fn class_name(c: Option<rocpath_evidence::Class>) -> String {
    c.map_or_else(|| "none".to_string(), |c| c.as_str().to_string())
}

/// Root-relative URL of a world page.
pub fn world_url(w: &str) -> String {
    format!("worlds/{}.html", slug(w))
}

fn claim_v(c: &Claim) -> ClaimV {
    ClaimV {
        id: c.id.clone(),
        url: format!("claims/{}.html", c.id),
        statement: tv(&c.statement),
        class: class_name(c.class),
        kind: c.kind.map(|k| k.as_str().to_string()).unwrap_or_default(),
        world: c.world.clone(),
        world_url: if c.world.is_empty() {
            String::new()
        } else {
            world_url(&c.world)
        },
        floor: c.floor.map(|f| f.as_str().to_string()).unwrap_or_default(),
        floor_number: c.floor.map_or(0, Floor::number),
        layer: c.layer.map(|l| l.as_str().to_string()).unwrap_or_default(),
        selection: c
            .selection
            .map(|s| s.as_str().to_string())
            .unwrap_or_default(),
    }
}

/// A locator for display.
#[derive(Debug, Clone, Serialize)]
pub struct LocV {
    /// Path.
    pub path: String,
    /// Container chain.
    pub member: String,
    /// Line.
    pub line: Option<u64>,
    /// Offset.
    pub offset: Option<u64>,
    /// Offset in hex.
    pub offset_hex: String,
    /// sha256.
    pub sha256: String,
}

fn loc_v(l: &Locator) -> LocV {
    LocV {
        path: l.path.clone(),
        member: l.member.clone(),
        line: l.line,
        offset: l.offset,
        offset_hex: l.offset.map(|o| format!("{o:x}")).unwrap_or_default(),
        sha256: l.sha256.clone().unwrap_or_default(),
    }
}

/// A record for display.
#[derive(Debug, Clone, Serialize)]
pub struct RecordV {
    /// Anchor id on the observation page.
    pub anchor: String,
    /// Label.
    pub label: String,
    /// JSON pointer.
    pub pointer: String,
    /// Class.
    pub class: String,
    /// Kind.
    pub kind: String,
    /// Rule.
    pub rule: String,
    /// Note.
    pub note: String,
    /// Sources.
    pub sources: Vec<LocV>,
}

fn record_v(r: &Record<'_>, n: usize) -> RecordV {
    RecordV {
        anchor: format!("rec-{n}"),
        label: records::label(r),
        pointer: if r.pointer.is_empty() {
            "/".into()
        } else {
            r.pointer.clone()
        },
        class: r.evidence.class.as_str().to_string(),
        kind: r.evidence.kind.as_str().to_string(),
        rule: r.evidence.rule.clone(),
        note: r.evidence.note.clone(),
        sources: r.evidence.sources.iter().map(loc_v).collect(),
    }
}

/// An observation reference.
#[derive(Debug, Clone, Serialize)]
pub struct ObsRef {
    /// Id.
    pub id: String,
    /// Root-relative URL.
    pub url: String,
    /// Producer schema.
    pub schema: String,
    /// Command that made it.
    pub command: String,
    /// Time it was made.
    pub time: String,
    /// Records in it.
    pub n_records: usize,
}

fn observed(o: &Observation, k: &str) -> String {
    o.document
        .get("observed")
        .and_then(|v| v.get(k))
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}

/// A case reference.
#[derive(Debug, Clone, Serialize)]
pub struct CaseRef {
    /// Id.
    pub id: String,
    /// Root-relative URL.
    pub url: String,
    /// Title.
    pub title: TextV,
}

/// A question for display.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionV {
    /// Id.
    pub id: String,
    /// Text.
    pub text: TextV,
    /// World.
    pub world: String,
    /// What would answer it.
    pub would_answer: TextV,
    /// Current answers.
    pub answers: Vec<ClaimV>,
}

/// A raw line.
#[derive(Debug, Clone, Serialize)]
pub struct LineV {
    /// File.
    pub path: String,
    /// Line number.
    pub line: u64,
    /// Text.
    pub text: String,
}

/// Everything the pages share, computed once.
pub struct Model<'a> {
    /// The ledger.
    pub ix: Index<'a>,
    /// Claim views by id.
    pub claims: HashMap<&'a str, ClaimV>,
    /// Coverage of all inventories.
    pub coverage: Coverage,
    /// Instruction groups per (family, processor).
    pub families: BTreeMap<(String, String), IsaFamily>,
    /// Case outcomes per observation id.
    pub outcomes: BTreeMap<String, Vec<CaseOutcome>>,
    /// Records order per observation: pointer → index.
    pub record_index: HashMap<&'a str, HashMap<String, usize>>,
    /// Processors each observation is about.
    pub processors: HashMap<&'a str, BTreeSet<String>>,
    /// Device × install verdicts of the surveys.
    pub surveys: Vec<schemas::SurveyRow>,
    /// Cases that list a claim.
    pub cases_by_claim: HashMap<&'a str, Vec<&'a Case>>,
    /// Cases that list an observation.
    pub cases_by_observation: HashMap<&'a str, Vec<&'a Case>>,
    /// Questions a claim answers.
    pub questions_by_answer: HashMap<&'a str, Vec<&'a Question>>,
    /// Claims that cite an observation, sorted by id.
    pub claims_by_observation: HashMap<&'a str, Vec<&'a Claim>>,
}

impl<'a> Model<'a> {
    /// Computes the shared data.
    pub fn new(l: &'a Loaded) -> Self {
        let ix = Index::new(l);
        let mut coverage = Coverage::default();
        let mut families = BTreeMap::new();
        let mut outcomes = BTreeMap::new();
        let mut record_index = HashMap::new();
        let mut processors = HashMap::new();
        let mut surveys = Vec::new();
        for o in &l.observations {
            surveys.extend(schemas::survey_rows(o));
            schemas::add_coverage(o, &mut coverage);
            schemas::add_isa_families(o, &mut families);
            let oc = schemas::case_outcomes(o);
            if !oc.is_empty() {
                outcomes.insert(o.id.clone(), oc);
            }
            record_index.insert(
                o.id.as_str(),
                records::records(&o.document)
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| (r.pointer, i))
                    .collect(),
            );
            processors.insert(o.id.as_str(), schemas::processors_of(o));
        }
        let mut cases_by_claim: HashMap<&str, Vec<&Case>> = HashMap::new();
        let mut cases_by_observation: HashMap<&str, Vec<&Case>> = HashMap::new();
        for c in &l.cases {
            for id in &c.claims {
                cases_by_claim.entry(id.as_str()).or_default().push(c);
            }
            for id in &c.observations {
                cases_by_observation.entry(id.as_str()).or_default().push(c);
            }
        }
        let mut questions_by_answer: HashMap<&str, Vec<&Question>> = HashMap::new();
        for q in &l.questions {
            for a in &q.answer {
                questions_by_answer.entry(a.as_str()).or_default().push(q);
            }
        }
        let mut sorted: Vec<&Claim> = l.claims.iter().collect();
        sorted.sort_by(|a, b| a.id.cmp(&b.id));
        let mut claims_by_observation: HashMap<&str, Vec<&Claim>> = HashMap::new();
        for c in sorted {
            let mut seen = BTreeSet::new();
            for s in &c.support {
                if let Some(o) = &s.observation {
                    if seen.insert(o.as_str()) {
                        claims_by_observation.entry(o.as_str()).or_default().push(c);
                    }
                }
            }
        }
        Model {
            cases_by_claim,
            cases_by_observation,
            questions_by_answer,
            claims_by_observation,
            claims: l
                .claims
                .iter()
                .map(|c| (c.id.as_str(), claim_v(c)))
                .collect(),
            ix,
            coverage,
            families,
            outcomes,
            record_index,
            processors,
            surveys,
        }
    }

    /// The view of a claim by id.
    pub fn claim(&self, id: &str) -> Option<ClaimV> {
        self.claims.get(id).cloned()
    }

    /// An observation reference.
    pub fn obs_ref(&self, o: &Observation) -> ObsRef {
        ObsRef {
            id: o.id.clone(),
            url: format!("observations/{}.html", o.id),
            schema: schemas::schema_of(o).to_string(),
            command: observed(o, "command"),
            time: observed(o, "time"),
            n_records: self.record_index.get(o.id.as_str()).map_or(0, HashMap::len),
        }
    }

    /// A case reference.
    pub fn case_ref(c: &Case) -> CaseRef {
        CaseRef {
            id: c.id.clone(),
            url: format!("cases/{}.html", c.id),
            title: tv(if c.title.is_empty() {
                &c.summary
            } else {
                &c.title
            }),
        }
    }

    /// A question view.
    pub fn question(&self, q: &Question) -> QuestionV {
        QuestionV {
            id: q.id.clone(),
            text: tv(&q.text),
            world: q.world.clone(),
            would_answer: tv(&q.would_answer),
            answers: q.answer.iter().filter_map(|a| self.claim(a)).collect(),
        }
    }

    /// The record view of a record of an observation (anchored by its index).
    pub fn record(&self, o: &Observation, r: &Record<'_>) -> RecordV {
        let n = self
            .record_index
            .get(o.id.as_str())
            .and_then(|m| m.get(&r.pointer))
            .copied()
            .unwrap_or(0);
        record_v(r, n)
    }

    /// Claims, sorted by id.
    pub fn sorted_claims(&self) -> Vec<&'a Claim> {
        let mut v: Vec<&Claim> = self.ix.ledger.claims.iter().collect();
        v.sort_by(|a, b| a.id.cmp(&b.id));
        v
    }

    /// The worlds with a page: declared ones in order, then the worlds of claims, questions
    /// and cases, then processors seen in inventories and isa observations.
    pub fn worlds(&self) -> Vec<WorldDecl> {
        let l = self.ix.ledger;
        let mut out: Vec<WorldDecl> = l.meta.worlds.clone();
        let mut seen: BTreeSet<String> = out.iter().map(|w| w.id.clone()).collect();
        let mut more: BTreeSet<String> = BTreeSet::new();
        for w in l
            .claims
            .iter()
            .map(|c| &c.world)
            .chain(l.questions.iter().map(|q| &q.world))
            .chain(l.cases.iter().map(|c| &c.world))
        {
            if !w.is_empty() && !seen.contains(w) {
                more.insert(w.clone());
            }
        }
        for w in more {
            seen.insert(w.clone());
            out.push(WorldDecl {
                id: w,
                ..WorldDecl::default()
            });
        }
        let mut procs: Vec<String> = self
            .coverage
            .targets()
            .iter()
            .map(|t| schemas::processor_of(t))
            .chain(self.families.keys().map(|(_, p)| p.clone()))
            .chain(self.surveys.iter().map(|r| r.processor.clone()))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter(|p| p.starts_with("gfx") && !seen.contains(p))
            .collect();
        procs.sort_by_key(|p| schemas::processor_sort_key(p));
        for p in procs {
            out.push(WorldDecl {
                id: p,
                ..WorldDecl::default()
            });
        }
        out
    }

    /// Processors a world covers, among those the ledger has seen.
    pub fn world_processors(&self, world: &str) -> Vec<String> {
        let mut all: BTreeSet<String> = self
            .coverage
            .targets()
            .iter()
            .map(|t| schemas::processor_of(t))
            .collect();
        all.extend(self.families.keys().map(|(_, p)| p.clone()));
        for ps in self.processors.values() {
            all.extend(ps.iter().cloned());
        }
        if schemas::is_processor(world) {
            all.insert(world.to_string());
        }
        let mut v: Vec<String> = all
            .into_iter()
            .filter(|p| schemas::world_covers(world, p))
            .collect();
        v.sort_by_key(|p| schemas::processor_sort_key(p));
        v
    }

    /// Raw lines that the support of a set of claims and a set of observations point at.
    /// The raw lines of a case, the deciding ones first: the lines the evidence of the
    /// records its claims rest on cites (the outcome, the selection, the error), in file
    /// order; then the others (descriptor creation, every lookup), to fold. With no record
    /// citing a line, all are deciding.
    pub fn raw_excerpt(&self, obs: &[&Observation], claims: &[&Claim]) -> (Vec<LineV>, Vec<LineV>) {
        let all = self.raw_lines(obs, claims);
        let mut cited: BTreeSet<(String, u64)> = BTreeSet::new();
        for c in claims {
            for s in &c.support {
                if let Some(l) = &s.source {
                    cited.insert((l.path.clone(), l.line.unwrap_or(0)));
                }
                let (Some(id), Some(ptr)) = (&s.observation, &s.record) else {
                    continue;
                };
                let Some(o) = obs.iter().find(|o| &o.id == id) else {
                    continue;
                };
                let sources = o
                    .document
                    .pointer(ptr)
                    .and_then(|r| r.pointer("/evidence/sources"))
                    .and_then(serde_json::Value::as_array);
                for src in sources.into_iter().flatten() {
                    if let (Some(p), Some(l)) = (
                        src.get("path").and_then(serde_json::Value::as_str),
                        src.get("line").and_then(serde_json::Value::as_u64),
                    ) {
                        cited.insert((p.to_string(), l));
                    }
                }
            }
        }
        let (deciding, rest): (Vec<LineV>, Vec<LineV>) = all
            .into_iter()
            .partition(|q| cited.contains(&(q.path.clone(), q.line)));
        if deciding.is_empty() {
            (rest, Vec::new())
        } else {
            (deciding, rest)
        }
    }

    /// The raw lines the observations quote and the claims cite, in that order, each once
    /// (at most [`MAX_QUOTES`]).
    pub fn raw_lines(&self, obs: &[&Observation], claims: &[&Claim]) -> Vec<LineV> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for o in obs {
            for q in &o.quotes {
                if out.len() >= MAX_QUOTES {
                    return out;
                }
                if seen.insert((q.path.clone(), q.line)) {
                    out.push(LineV {
                        path: q.path.clone(),
                        line: q.line,
                        text: q.text.clone(),
                    });
                }
            }
        }
        for c in claims {
            for s in &c.support {
                if let (Some(l), false) = (&s.source, s.quote.is_empty()) {
                    let line = l.line.unwrap_or(0);
                    if out.len() < MAX_QUOTES && seen.insert((l.path.clone(), line)) {
                        out.push(LineV {
                            path: l.path.clone(),
                            line,
                            text: s.quote.clone(),
                        });
                    }
                }
            }
        }
        out
    }
}

/// One support of a claim, for display.
#[derive(Debug, Serialize)]
pub struct SupportV {
    /// How the claim names it.
    pub reference: String,
    /// Why it resolves to nothing.
    pub missing: Option<String>,
    /// A claim.
    pub claim: Option<ClaimV>,
    /// A cited source.
    pub source: Option<LocV>,
    /// The cited line.
    pub quote: String,
    /// An observation.
    pub observation: Option<ObsRef>,
    /// The selector inside the observation (pointer or field values).
    pub selector: String,
    /// The records it resolves to.
    pub records: Vec<RecordV>,
    /// Records not shown.
    pub more: usize,
    /// The note.
    pub note: TextV,
}

impl Model<'_> {
    /// The supports of a claim, resolved.
    pub fn supports(&self, c: &Claim) -> Vec<SupportV> {
        c.support
            .iter()
            .map(|s| {
                let mut v = SupportV {
                    reference: s.reference(),
                    missing: None,
                    claim: None,
                    source: None,
                    quote: s.quote.clone(),
                    observation: None,
                    selector: String::new(),
                    records: Vec::new(),
                    more: 0,
                    note: tv(&s.note),
                };
                match self.ix.resolve(s) {
                    Resolved::Missing(why) => v.missing = Some(why),
                    Resolved::Claim(c) => v.claim = self.claim(&c.id),
                    Resolved::Source(l) => v.source = Some(loc_v(l)),
                    Resolved::Observation(o, recs) | Resolved::Records(o, recs) => {
                        v.observation = Some(self.obs_ref(o));
                        v.selector = if let Some(r) = &s.record {
                            r.clone()
                        } else {
                            s.filter
                                .iter()
                                .map(|(k, x)| format!("{k}={x}"))
                                .collect::<Vec<_>>()
                                .join(" & ")
                        };
                        v.more = recs.len().saturating_sub(MAX_SUPPORT_RECORDS);
                        v.records = recs
                            .iter()
                            .take(MAX_SUPPORT_RECORDS)
                            .map(|r| self.record(o, r))
                            .collect();
                    }
                }
                v
            })
            .collect()
    }

    /// Pointers of the records of an observation that claims cite (shown on its page even
    /// past [`MAX_RECORDS`]).
    pub fn cited_records(&self, oid: &str) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for c in self.claims_by_observation.get(oid).into_iter().flatten() {
            for s in &c.support {
                if s.observation.as_deref() != Some(oid) {
                    continue;
                }
                match self.ix.resolve(s) {
                    Resolved::Records(_, recs) | Resolved::Observation(_, recs) => {
                        out.extend(
                            recs.into_iter()
                                .take(MAX_SUPPORT_RECORDS)
                                .map(|r| r.pointer),
                        );
                    }
                    _ => {}
                }
            }
        }
        out
    }
}
