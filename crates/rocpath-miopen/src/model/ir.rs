//! The applicability model as data: MIOpen's solver registry and the bodies of the functions
//! that decide applicability (`IsApplicable`, `IsDynamic`, `MayNeedWorkspace`, `GetWti` and
//! every helper they call), read from MIOpen's C++ source into a small statement/expression
//! tree that [`super::eval`] runs over a problem, a device and an environment.
//!
//! Every node keeps its source line; the file is the one of the enclosing [`Function`].
//! Constructs the reader could not translate stay in the tree as `Unsupported` nodes with
//! their text, so a verdict that depends on them is `unresolved` at that exact line.

use serde::{Deserialize, Serialize};

/// A derived model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Model {
    /// `rocpath_docs::schema::MIOPEN_MODEL`.
    pub schema: String,
    /// Where it was read from.
    pub source: Source,
    /// Source files, by index (paths relative to the checkout).
    pub files: Vec<String>,
    /// Convolution solvers, in registry order.
    pub solvers: Vec<Solver>,
    /// Function table.
    pub functions: Vec<Function>,
    /// Environment variables read by the functions, with their declared defaults.
    pub env: Vec<EnvVar>,
    /// Build-time switches (`#if MIOPEN_USE_MLIR`) with the values of a release build.
    pub build: Vec<BuildFlag>,
    /// Named entry points of the selection path beside the solvers (`IsAlgorithmDisabled`,
    /// `IsWinograd3x3SupportedAndFast`, TunaNet's `GetModel`), by name.
    #[serde(default)]
    pub entries: Vec<(String, u32)>,
    /// Hand-written rules, each with its citation and the text of the cited lines.
    pub rules: Vec<Rule>,
    /// Version overlays: functions replaced for a newer MIOpen release.
    pub overlays: Vec<Overlay>,
    /// What could not be derived, and why.
    pub notes: Vec<String>,
}

/// The checkout a model was read from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Source {
    /// Repository (`ROCm/MIOpen`).
    pub repository: String,
    /// Commit id (40 hex digits), when the checkout is a git repository.
    pub commit: String,
    /// The path of MIOpen inside the repository (`projects/miopen` in rocm-libraries), or empty.
    pub prefix: String,
}

impl Source {
    /// `ROCm/MIOpen@2d1fd997` (the commit cut to 8 digits; `@checkout` when the folder read
    /// was not a git repository).
    pub fn short(&self) -> String {
        let c: String = self.commit.chars().take(8).collect();
        let c = if c.is_empty() {
            "checkout".to_string()
        } else {
            c
        };
        format!("{}@{}", self.repository, c)
    }
}

/// A source position: file index into [`Model::files`] and 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Site {
    /// File index.
    pub file: u32,
    /// Line.
    pub line: u32,
}

/// One registered convolution solver.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Solver {
    /// Registry id.
    pub id: u64,
    /// `SolverDbId()`, the name logs and databases use.
    pub name: String,
    /// The C++ class as registered (`conv::ConvBinWinoRxS<3, 2>`).
    pub class: String,
    /// `miopenConvolutionAlgoDirect`, …
    pub algo: String,
    /// The registration line.
    pub site: Site,
    /// Template parameters bound by the registration (`Winodata = 3`).
    pub template_args: Vec<(String, i64)>,
    /// `IsApplicable`, when found.
    pub is_applicable: Option<u32>,
    /// `IsDynamic()`, when the class or a base overrides it (default false).
    pub is_dynamic: Option<u32>,
    /// `MayNeedWorkspace()`, when overridden (default false).
    pub may_need_workspace: Option<u32>,
    /// `GetWti()`, when overridden (default −2, "unknown").
    pub wti: Option<u32>,
    /// Base classes, nearest first.
    pub bases: Vec<String>,
}

/// A function body.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Function {
    /// Qualified name (`miopen::solver::conv::ConvAsm3x3U::IsApplicable`).
    pub name: String,
    /// The class whose member it is (unqualified calls inside resolve against it), if any.
    pub class: Option<String>,
    /// Parameter names, in order.
    pub params: Vec<String>,
    /// Template parameter names, in order.
    pub template_params: Vec<String>,
    /// Where it is defined.
    pub site: Site,
    /// Body.
    pub body: Vec<Stmt>,
}

/// A statement.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "s", rename_all = "snake_case")]
pub enum Stmt {
    /// `T a = e, b = f;` (a name without initializer is bound to unknown).
    Decl {
        /// Line.
        line: u32,
        /// Names and initializers.
        vars: Vec<(String, Option<Expr>)>,
    },
    /// `a = e;`, `a += e;` (`op` is the compound operator).
    Assign {
        /// Line.
        line: u32,
        /// The variable.
        target: String,
        /// Compound operator.
        op: Option<BinOp>,
        /// Value.
        value: Expr,
    },
    /// `if(c) … else …` (also a translated `#if`, whose condition reads build flags).
    If {
        /// Line.
        line: u32,
        /// Condition.
        cond: Expr,
        /// Then branch.
        then: Vec<Stmt>,
        /// Else branch.
        els: Vec<Stmt>,
    },
    /// `return e;`.
    Return {
        /// Line.
        line: u32,
        /// Value.
        value: Option<Expr>,
    },
    /// `switch(v) { case …: … }`.
    Switch {
        /// Line.
        line: u32,
        /// Scrutinee.
        value: Expr,
        /// Arms in order (fall-through between arms as C++ does).
        arms: Vec<Arm>,
    },
    /// `break;`.
    Break {
        /// Line.
        line: u32,
    },
    /// `continue;`.
    Continue {
        /// Line.
        line: u32,
    },
    /// `for(…; cond; step) body` (its initializer precedes it in a block) and
    /// `while(cond) body`; evaluated while the condition is decided, up to a bound.
    Loop {
        /// Line.
        line: u32,
        /// Condition (none: `for(;;)`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cond: Option<Expr>,
        /// Body.
        body: Vec<Stmt>,
        /// Step after each pass (`++i`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        step: Vec<Stmt>,
    },
    /// `for(auto var : range) body`.
    ForEach {
        /// Line.
        line: u32,
        /// The loop variable.
        var: String,
        /// The range.
        range: Expr,
        /// Body.
        body: Vec<Stmt>,
    },
    /// `try { body } catch(…) { handler }`: a `throw` reached in the body runs the handler.
    Try {
        /// Line.
        line: u32,
        /// Body.
        body: Vec<Stmt>,
        /// The first handler.
        handler: Vec<Stmt>,
    },
    /// An expression evaluated for its effect that the reader does not translate (logging,
    /// a member assignment, a call with out-parameters).
    Effect {
        /// Line.
        line: u32,
        /// Locals it may change (assigned through a member or an index, passed to a call,
        /// or whose method it calls): unknown after it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        clobbers: Vec<String>,
    },
    /// `throw …` / `MIOPEN_THROW(…)`.
    Throw {
        /// Line.
        line: u32,
    },
    /// A nested block.
    Block {
        /// Statements.
        body: Vec<Stmt>,
    },
    /// Something the reader does not translate (`do … while`, a structured binding, …).
    Unsupported {
        /// Line.
        line: u32,
        /// What kind of construct.
        what: String,
        /// Its text (cut).
        text: String,
    },
}

/// One `case` group of a switch.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Arm {
    /// Labels; empty for `default:`.
    pub labels: Vec<Expr>,
    /// Statements up to the next label.
    pub body: Vec<Stmt>,
    /// A build condition the group sits under (`#if MIOPEN_USE_GEMM`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Expr>,
}

/// An expression with its line and, for conditions and calls, its text.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Expr {
    /// Line.
    pub l: u32,
    /// Source text, kept for conditions, operands of `&&`/`||` and calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<String>,
    /// The node.
    pub k: ExprKind,
}

/// Expression kinds.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "x", rename_all = "snake_case")]
pub enum ExprKind {
    /// `true` / `false`.
    Bool {
        /// Value.
        v: bool,
    },
    /// An integer literal.
    Int {
        /// Value.
        v: i64,
    },
    /// A floating literal.
    Float {
        /// Value.
        v: f64,
    },
    /// A string literal.
    Str {
        /// Value.
        v: String,
    },
    /// An enumerator or named constant (`miopenFloat`, `conv::Direction::Forward`,
    /// `std::string::npos`): the last component of the qualified name.
    Sym {
        /// Name.
        v: String,
    },
    /// `nullptr`, `std::nullopt`, `boost::none`.
    Null,
    /// A local, a parameter or a bound template parameter.
    Var {
        /// Name.
        v: String,
    },
    /// `a.b` / `a->b` (a field, not a call).
    Field {
        /// Object.
        obj: Box<Expr>,
        /// Field name.
        name: String,
    },
    /// `a[i]`.
    Index {
        /// Object.
        obj: Box<Expr>,
        /// Index.
        idx: Box<Expr>,
    },
    /// A call.
    Call {
        /// What is called.
        f: Callee,
        /// Arguments.
        args: Vec<Expr>,
    },
    /// A unary operator.
    Unary {
        /// Operator.
        op: UnOp,
        /// Operand.
        e: Box<Expr>,
    },
    /// `a && b && …` (`and`) or `a || b || …`, flattened.
    Logic {
        /// `&&` when true, `||` when false.
        and: bool,
        /// Operands in order.
        items: Vec<Expr>,
    },
    /// A binary operator.
    Binary {
        /// Operator.
        op: BinOp,
        /// Left.
        a: Box<Expr>,
        /// Right.
        b: Box<Expr>,
    },
    /// `c ? a : b`.
    Cond {
        /// Condition.
        c: Box<Expr>,
        /// Then.
        a: Box<Expr>,
        /// Else.
        b: Box<Expr>,
    },
    /// A lambda.
    Lambda {
        /// Parameters.
        params: Vec<String>,
        /// Body.
        body: Vec<Stmt>,
    },
    /// An identifier of a preprocessor condition: a build flag or a macro without definition.
    Flag {
        /// Name.
        v: String,
    },
    /// `defined(X)` in a preprocessor condition.
    Defined {
        /// Name.
        v: String,
    },
    /// Something the reader does not translate.
    Unsupported {
        /// What kind of construct.
        what: String,
    },
}

/// What a call calls.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "c", rename_all = "snake_case")]
pub enum Callee {
    /// A function of the table, with explicit template arguments.
    Func {
        /// Index into [`Model::functions`].
        id: u32,
        /// Template arguments (`IsShaderConstraintsMet<Winodata, Winofilter>`).
        targs: Vec<Expr>,
    },
    /// A method of an object (`problem.IsFp32()`, `ctx.GetStream()`); resolved at evaluation
    /// against the object's kind (a primitive, or a function of the table for the problem).
    Method {
        /// The object.
        obj: Box<Expr>,
        /// Method name.
        name: String,
    },
    /// A function the evaluator implements (`StartsWith`, `env::enabled`, `std::all_of`, …).
    Builtin {
        /// Name (unqualified, or `env::…`).
        name: String,
        /// Template arguments as text (`GetTypeSize<float>`), if any.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        targs: Vec<String>,
    },
    /// A call the reader could not resolve to a definition.
    Unresolved {
        /// The called name as written.
        name: String,
    },
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnOp {
    /// `!`.
    Not,
    /// `-`.
    Neg,
    /// `~`.
    BitNot,
    /// `*` (optional / pointer dereference).
    Deref,
    /// `+`, `&`, casts: the value itself.
    Id,
}

/// Binary operators (`&&` and `||` are [`ExprKind::Logic`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BinOp {
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
}

/// An environment variable declared with `MIOPEN_DECLARE_ENV_VAR_*`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EnvVar {
    /// Name.
    pub name: String,
    /// `bool`, `uint64` or `str`.
    pub kind: String,
    /// Declared default, as written (`""` when none).
    pub default: String,
    /// Declaration.
    pub site: Site,
}

/// A build-time switch.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BuildFlag {
    /// Name (`MIOPEN_USE_MLIR`).
    pub name: String,
    /// Value in a release build (0/1, or a number).
    pub value: i64,
    /// Where the value comes from (a rule id or a `#define` site).
    pub from: String,
}

/// A hand-written rule: a primitive's meaning, a build default, a version difference.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rule {
    /// Rule id (`primitive.ctx.use_asm_kernels`).
    pub id: String,
    /// What it says.
    pub says: String,
    /// For a forced-solver rule: the fate of compiling the listed solvers where their
    /// applicability check fails (`build_failure`, `runtime_abort`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fate: Option<String>,
    /// The solvers a forced-solver rule covers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub solvers: Vec<String>,
    /// An architecture-table feature whose absence the rule needs (`mfma`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lacks: Option<String>,
    /// Devices the rule applies to (prefixes); empty for all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<String>,
    /// The recordings the rule was fitted to, when what it says was taken from runs rather
    /// than read in the cited source: a prediction by it is a hypothesis, not code_verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrated: Option<String>,
    /// Citation `path:line[-line]@commit` (or `repo:path:line@commit` for another repository).
    pub cite: String,
    /// The cited lines' text, whitespace-collapsed, as read when the rule was written.
    pub text: String,
}

/// Functions replaced for a newer MIOpen release, where its source differs from the pinned
/// checkout in a way the logs of that release show.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Overlay {
    /// The release (`3.5.1`).
    pub version: String,
    /// Replaced function name → replacement index into [`Model::functions`].
    pub functions: Vec<(String, u32)>,
    /// Rule ids that justify it.
    pub rules: Vec<String>,
}
