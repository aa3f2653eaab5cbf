//! The derivative table: one entry per instruction, intrinsic or libm
//! function, giving the partial derivative of the result with respect to each
//! argument as a small expression. Forward mode emits `Σ ∂f/∂xᵢ · ẋᵢ`, reverse
//! mode emits `x̄ᵢ += ∂f/∂xᵢ · ȳ`: the rule is written once and serves both.
//!
//! Expression language (parsed once, checked by a unit test):
//! - names: the entry's parameters, `result` (the primal result), `pi`, `ln2`, `ln10`;
//! - numbers, `+ - * /`, unary `-`, comparisons `< <= > >= == !=`;
//! - `select(cond, a, b)` and calls of LLVM math intrinsics by base name
//!   (`cos(x)` becomes `llvm.cos.<type>`), `powi(x, n)` included.
//!
//! A parameter written `#n` is an integer: it has no derivative (its partial is
//! `_`) but may be used in expressions (it is converted to the float type).

use std::collections::HashMap;
use std::sync::OnceLock;

/// One table entry.
#[derive(Debug)]
pub struct Rule {
    /// Instruction names (`fadd`), intrinsic base names (`llvm.sin`) and libm
    /// names (`sin`); libm `f`/`l` suffix variants are matched automatically.
    pub names: &'static [&'static str],
    /// Parameter names, space separated; `#name` marks an integer parameter.
    pub params: &'static str,
    /// One partial derivative per parameter; `_` for integer parameters.
    pub partials: &'static [&'static str],
}

macro_rules! rule {
    ([$($name:literal),+], $params:literal, [$($p:literal),+]) => {
        Rule { names: &[$($name),+], params: $params, partials: &[$($p),+] }
    };
}

/// The table. Keep one line per entry; the order does not matter.
pub static RULES: &[Rule] = &[
    // Instructions.
    rule!(["fadd"], "x y", ["1", "1"]),
    rule!(["fsub"], "x y", ["1", "-1"]),
    rule!(["fmul"], "x y", ["y", "x"]),
    // One division: the second partial reuses the first (`1 / y` is emitted
    // once), as a division costs several multiplications.
    rule!(["fdiv"], "x y", ["1 / y", "-result * (1 / y)"]),
    rule!(["frem"], "x y", ["1", "-trunc(x / y)"]),
    rule!(["fneg"], "x", ["-1"]),
    // Intrinsics and libm.
    rule!(["llvm.sqrt", "sqrt"], "x", ["select(x == 0, 0, 0.5 / result)"]),
    rule!(["cbrt"], "x", ["select(x == 0, 0, result / (3 * x))"]),
    rule!(["llvm.sin", "sin"], "x", ["cos(x)"]),
    rule!(["llvm.cos", "cos"], "x", ["-sin(x)"]),
    rule!(["llvm.tan", "tan"], "x", ["1 + result * result"]),
    rule!(["llvm.asin", "asin"], "x", ["1 / sqrt(1 - x * x)"]),
    rule!(["llvm.acos", "acos"], "x", ["-1 / sqrt(1 - x * x)"]),
    rule!(["llvm.atan", "atan"], "x", ["1 / (1 + x * x)"]),
    rule!(["llvm.atan2", "atan2"], "y x", ["x / (x * x + y * y)", "-y / (x * x + y * y)"]),
    rule!(["llvm.sinh", "sinh"], "x", ["cosh(x)"]),
    rule!(["llvm.cosh", "cosh"], "x", ["sinh(x)"]),
    rule!(["llvm.tanh", "tanh"], "x", ["1 - result * result"]),
    rule!(["llvm.exp", "exp"], "x", ["result"]),
    rule!(["llvm.exp2", "exp2"], "x", ["result * ln2"]),
    rule!(["llvm.exp10", "exp10"], "x", ["result * ln10"]),
    rule!(["expm1"], "x", ["result + 1"]),
    rule!(["llvm.log", "log"], "x", ["1 / x"]),
    rule!(["llvm.log2", "log2"], "x", ["1 / (x * ln2)"]),
    rule!(["llvm.log10", "log10"], "x", ["1 / (x * ln10)"]),
    rule!(["log1p"], "x", ["1 / (1 + x)"]),
    rule!(["llvm.pow", "pow"], "x y", ["select(y == 0, 0, y * pow(x, y - 1))", "select(x == 0, 0, result * log(x))"]),
    rule!(["llvm.powi"], "x #n", ["select(n == 0, 0, n * powi(x, n - 1))", "_"]),
    rule!(["hypot"], "x y", ["select(result == 0, 0, x / result)", "select(result == 0, 0, y / result)"]),
    rule!(["llvm.fabs", "fabs"], "x", ["select(x < 0, -1, 1)"]),
    rule!(["llvm.fma", "fma", "llvm.fmuladd"], "x y z", ["y", "x", "1"]),
    // The sign bits decide, as in Enzyme: `copysign(-0.0, 1)` has slope -1.
    rule!(["llvm.copysign", "copysign"], "x y", ["copysign(1, x) * copysign(1, y)", "0"]),
    // Ties (and NaNs) go to the second argument of a minimum and the first of
    // a maximum, as Enzyme's rules pick them.
    rule!(
        ["llvm.minnum", "llvm.minimum", "llvm.minimumnum", "fmin"],
        "x y",
        ["select(x < y, 1, 0)", "select(x < y, 0, 1)"]
    ),
    rule!(
        ["llvm.maxnum", "llvm.maximum", "llvm.maximumnum", "fmax"],
        "x y",
        ["select(y > x, 0, 1)", "select(y > x, 1, 0)"]
    ),
    rule!(["erf"], "x", ["1.1283791670955126 * exp(-(x * x))"]),
    rule!(["erfc"], "x", ["-1.1283791670955126 * exp(-(x * x))"]),
    rule!(["fmod"], "x y", ["1", "-trunc(x / y)"]),
    rule!(["remainder"], "x y", ["1", "-roundeven(x / y)"]),
    rule!(["lgamma"], "x", ["digamma(x)"]),
    rule!(["tgamma"], "x", ["result * digamma(x)"]),
    rule!(["ldexp"], "x #n", ["exp2(n)", "_"]),
    // The exponent goes to memory (`int *`): no derivative, not read here.
    rule!(["frexp"], "x #e", ["select(x == 0, 1, result / x)", "_"]),
    rule!(
        [
            "llvm.floor",
            "floor",
            "llvm.ceil",
            "ceil",
            "llvm.trunc",
            "trunc",
            "llvm.round",
            "round",
            "llvm.rint",
            "rint",
            "llvm.nearbyint",
            "nearbyint",
            "llvm.roundeven",
            "roundeven"
        ],
        "x",
        ["0"]
    ),
];

/// A parsed partial-derivative expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A numeric literal; it takes the type of its context.
    Num(f64),
    /// A parameter (by index into the rule's parameters).
    Param(usize),
    /// The primal result of the instruction or call.
    Result,
    /// `-e`.
    Neg(Box<Expr>),
    /// `a op b`.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `a cmp b` (yields a boolean).
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    /// `select(c, a, b)`.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A math function, emitted as the LLVM intrinsic `llvm.<name>`.
    Call(&'static str, Vec<Expr>),
}

impl Expr {
    /// Whether the expression refers to parameter `k`.
    pub fn uses_param(&self, k: usize) -> bool {
        match self {
            Expr::Num(_) | Expr::Result => false,
            Expr::Param(j) => *j == k,
            Expr::Neg(a) => a.uses_param(k),
            Expr::Bin(_, a, b) | Expr::Cmp(_, a, b) => a.uses_param(k) || b.uses_param(k),
            Expr::Select(c, a, b) => c.uses_param(k) || a.uses_param(k) || b.uses_param(k),
            Expr::Call(_, args) => args.iter().any(|e| e.uses_param(k)),
        }
    }

    /// Whether the expression refers to the primal result.
    pub fn uses_result(&self) -> bool {
        match self {
            Expr::Num(_) | Expr::Param(_) => false,
            Expr::Result => true,
            Expr::Neg(a) => a.uses_result(),
            Expr::Bin(_, a, b) | Expr::Cmp(_, a, b) => a.uses_result() || b.uses_result(),
            Expr::Select(c, a, b) => c.uses_result() || a.uses_result() || b.uses_result(),
            Expr::Call(_, args) => args.iter().any(Expr::uses_result),
        }
    }
}

/// Arithmetic operators of the expression language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

/// Comparison operators of the expression language (ordered comparisons for floats).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

/// A rule ready for emission.
#[derive(Debug)]
pub struct CompiledRule {
    /// The table entry it came from.
    pub rule: &'static Rule,
    /// Whether each parameter is an integer (no derivative).
    pub int_params: Vec<bool>,
    /// Partials; `None` for integer parameters.
    pub partials: Vec<Option<Expr>>,
}

/// Math functions the expression language may call, with their arity.
const FUNCTIONS: &[(&str, usize)] = &[
    ("sin", 1),
    ("cos", 1),
    ("sinh", 1),
    ("cosh", 1),
    ("exp", 1),
    ("log", 1),
    ("sqrt", 1),
    ("trunc", 1),
    ("fabs", 1),
    ("pow", 2),
    ("copysign", 2),
    ("powi", 2),
    ("exp2", 1),
    ("roundeven", 1),
    // Not an LLVM intrinsic: a helper the engine adds to the module (ψ, the
    // derivative of log Γ).
    ("digamma", 1),
];

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    params: &'a [&'a str],
}

impl<'a> Parser<'a> {
    fn skip_ws(&mut self) {
        while self.src[self.pos..].starts_with(' ') {
            self.pos += 1;
        }
    }
    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.src[self.pos..].chars().next()
    }
    fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.src[self.pos..].starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }
    fn err(&self, what: &str) -> String {
        format!("in `{}` at {}: {what}", self.src, self.pos)
    }
    fn expr(&mut self) -> Result<Expr, String> {
        let lhs = self.sum()?;
        for (tok, op) in [
            ("<=", CmpOp::Le),
            (">=", CmpOp::Ge),
            ("==", CmpOp::Eq),
            ("!=", CmpOp::Ne),
            ("<", CmpOp::Lt),
            (">", CmpOp::Gt),
        ] {
            if self.eat(tok) {
                let rhs = self.sum()?;
                return Ok(Expr::Cmp(op, Box::new(lhs), Box::new(rhs)));
            }
        }
        Ok(lhs)
    }
    fn sum(&mut self) -> Result<Expr, String> {
        let mut lhs = self.product()?;
        loop {
            let op = if self.eat("+") {
                BinOp::Add
            } else if self.eat("-") {
                BinOp::Sub
            } else {
                return Ok(lhs);
            };
            let rhs = self.product()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }
    fn product(&mut self) -> Result<Expr, String> {
        let mut lhs = self.unary()?;
        loop {
            let op = if self.eat("*") {
                BinOp::Mul
            } else if self.eat("/") {
                BinOp::Div
            } else {
                return Ok(lhs);
            };
            let rhs = self.unary()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }
    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat("-") {
            let e = self.unary()?;
            return Ok(match e {
                Expr::Num(x) => Expr::Num(-x),
                e => Expr::Neg(Box::new(e)),
            });
        }
        self.primary()
    }
    fn primary(&mut self) -> Result<Expr, String> {
        if self.eat("(") {
            let e = self.expr()?;
            if !self.eat(")") {
                return Err(self.err("expected `)`"));
            }
            return Ok(e);
        }
        let c = self.peek().ok_or_else(|| self.err("unexpected end"))?;
        if c.is_ascii_digit() || c == '.' {
            let start = self.pos;
            while self.src[self.pos..].chars().next().is_some_and(|c| c.is_ascii_digit() || c == '.' || c == 'e') {
                self.pos += 1;
            }
            return self.src[start..self.pos].parse::<f64>().map(Expr::Num).map_err(|_| self.err("bad number"));
        }
        if c.is_ascii_alphabetic() {
            let start = self.pos;
            while self.src[self.pos..].chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                self.pos += 1;
            }
            let word = &self.src[start..self.pos];
            if self.eat("(") {
                let mut args = Vec::new();
                loop {
                    args.push(self.expr()?);
                    if self.eat(")") {
                        break;
                    }
                    if !self.eat(",") {
                        return Err(self.err("expected `,` or `)`"));
                    }
                }
                if word == "select" {
                    if args.len() != 3 {
                        return Err(self.err("select takes 3 arguments"));
                    }
                    let mut it = args.into_iter();
                    let (c, a, b) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
                    return Ok(Expr::Select(Box::new(c), Box::new(a), Box::new(b)));
                }
                let (name, arity) = FUNCTIONS
                    .iter()
                    .find(|(n, _)| *n == word)
                    .ok_or_else(|| self.err(&format!("unknown function `{word}`")))?;
                if *arity != args.len() {
                    return Err(self.err(&format!("`{word}` takes {arity} arguments")));
                }
                return Ok(Expr::Call(name, args));
            }
            return match word {
                "result" => Ok(Expr::Result),
                "pi" => Ok(Expr::Num(std::f64::consts::PI)),
                "ln2" => Ok(Expr::Num(std::f64::consts::LN_2)),
                "ln10" => Ok(Expr::Num(std::f64::consts::LN_10)),
                _ => self
                    .params
                    .iter()
                    .position(|p| *p == word)
                    .map(Expr::Param)
                    .ok_or_else(|| self.err(&format!("unknown name `{word}`"))),
            };
        }
        Err(self.err(&format!("unexpected `{c}`")))
    }
}

/// Parses one expression against a parameter list.
pub fn parse_expr(src: &str, params: &[&str]) -> Result<Expr, String> {
    let mut p = Parser { src, pos: 0, params };
    let e = p.expr()?;
    p.skip_ws();
    if p.pos != src.len() {
        return Err(p.err("trailing input"));
    }
    Ok(e)
}

fn compile(rule: &'static Rule) -> Result<CompiledRule, String> {
    let raw: Vec<&str> = rule.params.split_whitespace().collect();
    let int_params: Vec<bool> = raw.iter().map(|p| p.starts_with('#')).collect();
    let names: Vec<&str> = raw.iter().map(|p| p.trim_start_matches('#')).collect();
    if rule.partials.len() != names.len() {
        return Err(format!("{:?}: {} partials for {} parameters", rule.names, rule.partials.len(), names.len()));
    }
    let mut partials = Vec::new();
    for (k, src) in rule.partials.iter().enumerate() {
        if int_params[k] {
            if *src != "_" {
                return Err(format!("{:?}: integer parameter must have partial `_`", rule.names));
            }
            partials.push(None);
        } else {
            partials.push(Some(parse_expr(src, &names).map_err(|e| format!("{:?}: {e}", rule.names))?));
        }
    }
    Ok(CompiledRule { rule, int_params, partials })
}

struct Table {
    by_name: HashMap<&'static str, CompiledRule>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut by_name = HashMap::new();
        for rule in RULES {
            for name in rule.names {
                // The table is static data; a malformed entry is a bug caught by the unit test.
                by_name.insert(*name, compile(rule).unwrap_or_else(|e| panic!("bad derivative rule: {e}")));
            }
        }
        Table { by_name }
    })
}

/// Table names that are instructions, not callable functions.
const INSTRUCTIONS: &[&str] = &["fadd", "fsub", "fmul", "fdiv", "frem", "fneg"];

/// The rule for an instruction name (`fmul`).
pub fn for_instruction(name: &str) -> Option<&'static CompiledRule> {
    table().by_name.get(name)
}

/// The rule for a called function: an intrinsic (`llvm.sin.f64`) or a libm
/// function (`sin`, `sinf`, `sinl`). `float_bits` is the width of the call's
/// floating-point type, used to accept the `f`/`l` suffixes only where they fit.
pub fn for_callee(name: &str, float_bits: u32) -> Option<&'static CompiledRule> {
    let t = table();
    if let Some(rest) = name.strip_prefix("llvm.") {
        // `llvm.sin.f64` -> `llvm.sin`; `llvm.powi.f64.i32` -> `llvm.powi`.
        let base = rest.split('.').next().unwrap_or(rest);
        return t.by_name.get(format!("llvm.{base}").as_str());
    }
    let libm = |n: &str| {
        if INSTRUCTIONS.contains(&n) {
            None
        } else {
            t.by_name.get(n)
        }
    };
    if let Some(r) = libm(name) {
        if float_bits == 64 {
            return Some(r);
        }
    }
    if float_bits == 32 {
        if let Some(base) = name.strip_suffix('f') {
            return libm(base);
        }
    }
    if float_bits >= 80 {
        if let Some(base) = name.strip_suffix('l') {
            return libm(base);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_parses() {
        for r in RULES {
            compile(r).unwrap();
        }
        assert!(for_instruction("fmul").is_some());
    }

    #[test]
    fn callee_names_resolve() {
        assert!(for_callee("llvm.sin.f64", 64).is_some());
        assert!(for_callee("llvm.powi.f32.i32", 32).is_some());
        assert!(for_callee("sin", 64).is_some());
        assert!(for_callee("sinf", 32).is_some());
        assert!(for_callee("sinl", 80).is_some());
        assert!(for_callee("sinf", 64).is_none());
        assert!(for_callee("sin", 32).is_none());
        assert!(for_callee("floorf", 32).is_some());
        assert!(for_callee("fmaxf", 32).is_some());
        assert!(for_callee("printf", 64).is_none());
        // `fadd` is an instruction, not a libm function.
        assert!(for_callee("fadd", 64).is_none());
    }

    #[test]
    fn parser_precedence() {
        let e = parse_expr("1 + x * 2", &["x"]).unwrap();
        assert_eq!(
            e,
            Expr::Bin(
                BinOp::Add,
                Box::new(Expr::Num(1.0)),
                Box::new(Expr::Bin(BinOp::Mul, Box::new(Expr::Param(0)), Box::new(Expr::Num(2.0))))
            )
        );
        assert!(parse_expr("foo(x)", &["x"]).is_err());
        assert!(parse_expr("x +", &["x"]).is_err());
    }
}
