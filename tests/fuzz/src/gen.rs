//! Random C functions `void f(const double *x, double *y)` mixing
//! arithmetic, libm calls, branches, loops (with loop-carried rotations),
//! local arrays, heap blocks from every C allocator, a global scratch array
//! and a global table, calls of a function with custom rules and of
//! functions and globals registered with Enzyme,
//! structs, calls, in-place updates and copies (`memcpy`/`memmove`/`memset`
//! with sizes known only at run time, under `if`, in loops and in helpers,
//! overlapping shifts), kept bounded so finite differences stay meaningful.
//!
//! A function is a tree of statements ([`Stmt`]) so the reducer can take
//! statements out; everything is declared at the top and every output is
//! written at the end, so any subset of statements is still a valid program.

use rand::rngs::StdRng;
use rand::Rng;

/// Inputs and outputs of every generated function.
pub const NX: usize = 4;
/// Outputs.
pub const NY: usize = 4;
/// Length of the local array and of the heap block.
const LEN: usize = 8;

/// One statement: C text, or a block holding statements.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// A complete statement.
    Line(String),
    /// `if (cond) { then } else { otherwise }`.
    If(String, Vec<Stmt>, Vec<Stmt>),
    /// `for (int i = 0; i < bound; i++) { body }` (`i` named per depth).
    For(String, String, Vec<Stmt>),
    /// `{ prologue body epilogue }`: a scope with its own declarations.
    Scope(String, Vec<Stmt>, String),
}

/// A generated function.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub body: Vec<Stmt>,
}

/// What the generated statements lean towards: the whole mix, or one
/// construct that then makes up a good part of every function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Focus {
    /// Every construct, at its usual share.
    Mix,
    /// Loop-carried values that rotate (swaps, rotations of two and three
    /// values, kept copies, shifts through arrays, conditional and nested).
    Rotations,
    /// Calls of a function with custom rules (forward, gradient and split
    /// forward) whose body the engine could not differentiate (float bits).
    CustomRules,
    /// Calls of functions registered inactive or like a math function, and
    /// a global registered inactive written with varying values.
    Registrations,
    /// Heap blocks from every C allocation function (`calloc`,
    /// `aligned_alloc`, `memalign`, `posix_memalign`, `reallocarray`,
    /// `realloc`, `malloc`).
    Allocations,
}

/// The function with custom rules the generated code calls (see [`PRELUDE`]).
pub const CUSTOM_RULE_FUNCTION: &str = "newton_sqrt";

struct Ctx<'r> {
    rng: &'r mut StdRng,
    focus: Focus,
    /// Loop variables in scope.
    loops: Vec<String>,
    depth: u32,
}

impl Ctx<'_> {
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.rng.gen_range(0..xs.len())]
    }

    fn konst(&mut self) -> String {
        format!("{:.3}", self.rng.gen_range(-1.5..1.5))
    }

    fn var(&mut self) -> String {
        format!("v{}", self.rng.gen_range(0..NX))
    }

    /// An index into `a` or `h`: a constant, a loop variable, or from `n`.
    fn index(&mut self) -> String {
        match self.rng.gen_range(0..6) {
            0 | 1 if !self.loops.is_empty() => {
                let l = self.loops[self.rng.gen_range(0..self.loops.len())].clone();
                if self.rng.gen_bool(0.5) {
                    l
                } else {
                    format!("({l} + {}) % {LEN}", self.rng.gen_range(1..LEN))
                }
            }
            2 => format!("(n + {}) % {LEN}", self.rng.gen_range(0..LEN)),
            _ => self.rng.gen_range(0..LEN).to_string(),
        }
    }

    fn leaf(&mut self) -> String {
        match self.rng.gen_range(0..11) {
            0 | 1 => self.var(),
            2 => format!("x[{}]", self.rng.gen_range(0..NX)),
            // An element of the local array, the heap block, the global
            // scratch array or the global table.
            k @ (3 | 4 | 9 | 10) => {
                let array = match k {
                    3 => "a",
                    4 => "h",
                    9 => "G",
                    _ => "T",
                };
                let i = self.index();
                format!("{array}[{i}]")
            }
            5 => "s.p".into(),
            6 => format!("s.q[{}]", self.rng.gen_range(0..2)),
            7 => format!("(double)s.k * {}", self.konst()),
            _ => self.konst(),
        }
    }

    /// A bounded expression (leaves are bounded, and so is each operation
    /// on bounded values).
    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.gen_bool(0.3) {
            return self.leaf();
        }
        let a = self.expr(depth - 1);
        match self.rng.gen_range(0..22) {
            0 => format!("sin({a})"),
            1 => format!("cos({a})"),
            // Arguments of exponentials squashed: an overflow to infinity
            // would make 0 · ∞ = NaN in the chain rule (IEEE semantics, as in
            // Enzyme without enzyme_strong_zero), which is not what is tested here.
            2 => format!("exp(tanh({a}))"),
            3 => format!("log(1.1 + {a} * {a})"),
            4 => format!("sqrt(1.0 + {a} * {a})"),
            5 => format!("tanh({a})"),
            6 => format!("atan({a})"),
            7 => format!("erf({a})"),
            8 => format!("log1p({a} * {a})"),
            9 => format!("expm1(tanh({a}))"),
            10 => format!("fabs({a})"),
            11 => format!("floor({a})"),
            12 => format!("cbrt(3.0 + {a})"),
            _ => {
                let b = self.expr(depth - 1);
                match self.rng.gen_range(0..9) {
                    0 | 1 => format!("({a} + {b})"),
                    2 => format!("({a} - {b})"),
                    3 | 4 => format!("({a} * {b})"),
                    5 => format!("({a} / (1.5 + {b} * {b}))"),
                    6 => format!("pow(1.2 + {a} * {a}, tanh({b}))"),
                    7 => format!("fmax({a}, {b})"),
                    _ => format!("hypot(1.0 + {a} * {a}, {b})"),
                }
            }
        }
    }

    /// A value that stays in a bounded range whatever `e` is.
    fn squash(&mut self, e: String) -> String {
        let f = self.pick(&["tanh", "sin", "atan", "erf"]);
        format!("{f}({e})")
    }

    /// Distinct variables `v0`..`v3`, `n` of them.
    fn distinct_vars(&mut self, n: usize) -> Vec<String> {
        let mut all: Vec<usize> = (0..NX).collect();
        for k in 0..n {
            let j = self.rng.gen_range(k..NX);
            all.swap(k, j);
        }
        all[..n].iter().map(|k| format!("v{k}")).collect()
    }

    /// One step of a loop-carried rotation (written inside a loop, so the
    /// values rotate from one iteration to the next): the reverse sweep
    /// must treat a block's phis as one parallel copy, and at -O0 the same
    /// values move through stack slots. Each new value is a contraction of
    /// old ones, so the loop stays bounded.
    fn rotation(&mut self) -> String {
        let e = self.expr(2);
        let s = self.squash(e);
        match self.rng.gen_range(0..8) {
            0 => {
                // (a, b) <- (b, t b + s)
                let v = self.distinct_vars(2);
                let (a, b) = (&v[0], &v[1]);
                format!("{{\n  double t = {a};\n  {a} = {b};\n  {b} = 0.5 * t * {b} + 0.5 * {s};\n}}")
            }
            1 => {
                // Three values: (a, b, c) <- (b, c, f(a))
                let v = self.distinct_vars(3);
                let (a, b, c) = (&v[0], &v[1], &v[2]);
                format!("{{\n  double t = {a};\n  {a} = {b};\n  {b} = {c};\n  {c} = 0.5 * t + 0.25 * {s};\n}}")
            }
            2 => {
                // A plain swap through a temporary, then one of them updated.
                let v = self.distinct_vars(2);
                let (a, b) = (&v[0], &v[1]);
                format!("{{\n  double t = {a};\n  {a} = {b};\n  {b} = t;\n}}\n{a} = 0.5 * {a} + 0.5 * {s};")
            }
            3 => {
                // A conditional rotation: which way depends on the data.
                let v = self.distinct_vars(3);
                let (a, b, c) = (&v[0], &v[1], &v[2]);
                format!(
                    "if ({a} < {b}) {{\n  double t = {a};\n  {a} = {b};\n  {b} = {c};\n  {c} = t;\n}} else {{\n  double t = \
                     {b};\n  {b} = {a};\n  {a} = 0.9 * t;\n}}\n{c} = 0.5 * {c} + 0.5 * {s};"
                )
            }
            4 => {
                // Kept copies: the old values live on one step.
                let v = self.distinct_vars(3);
                let (a, b, c) = (&v[0], &v[1], &v[2]);
                format!("{{\n  double next = 0.5 * {a} + 0.25 * {b} * {c} + 0.25 * {s};\n  {c} = {b};\n  {b} = {a};\n  {a} = next;\n}}")
            }
            5 => {
                // The kept value is the one before the update (the lost copy).
                let v = self.distinct_vars(2);
                let (a, b) = (&v[0], &v[1]);
                format!("{a} = {b};\n{b} = {b} * {s};")
            }
            6 => {
                // A shift through the local array: a delay line.
                let k = self.rng.gen_range(2..LEN);
                format!(
                    "{{\n  double in = 0.5 * a[0] + 0.5 * {s};\n  for (int m = {k}; m > 0; m--) a[m] = a[m - 1];\n  a[0] = in;\n}}"
                )
            }
            _ => {
                // Two elements swapped in place, one of them updated.
                let (i, j) = (self.index(), self.index());
                format!("{{\n  double t = a[{i}];\n  a[{i}] = a[{j}];\n  a[{j}] = 0.5 * t + 0.5 * {s};\n}}")
            }
        }
    }

    /// The counter and bound of a new loop: a run-time or constant count.
    fn loop_head(&mut self) -> (String, String) {
        let var = format!("i{}", self.loops.len());
        let bound = match self.rng.gen_range(0..3) {
            0 => "n".to_string(),
            1 => "n + 2".to_string(),
            _ => self.rng.gen_range(1..LEN).to_string(),
        };
        (var, bound)
    }

    /// A loop whose body rotates values (and may do more).
    fn rotation_loop(&mut self) -> Stmt {
        let (var, bound) = self.loop_head();
        self.loops.push(var.clone());
        self.depth += 1;
        let mut body = vec![Stmt::Line(self.rotation())];
        if self.rng.gen_bool(0.4) {
            let at = self.rng.gen_range(0..=body.len());
            let extra = self.stmt();
            body.insert(at, extra);
        }
        self.depth -= 1;
        self.loops.pop();
        Stmt::For(var, bound, body)
    }

    /// A call of the function with custom rules.
    fn custom_rule_call(&mut self) -> Stmt {
        let v = self.var();
        let e = self.expr(2);
        let s = self.squash(e);
        Stmt::Line(format!("{v} = 0.5 * {v} + 0.25 * {CUSTOM_RULE_FUNCTION}(1.0 + {s} * {s});"))
    }

    /// A use of one of Enzyme's registrations (see [`PRELUDE`]).
    fn registration(&mut self) -> Stmt {
        let v = self.var();
        let e = self.expr(2);
        let s = self.squash(e);
        match self.rng.gen_range(0..3) {
            // Registered inactive: runs, carries nothing.
            0 => Stmt::Line(format!("note_value({s});")),
            // Registered like `exp`: differentiated by exp's rule.
            1 => Stmt::Line(format!("{v} = 0.5 * {v} + 0.5 * like_exp(-{s} * {s});")),
            // A global registered inactive, written and read back with no
            // effect on the outputs (times zero), in either mode.
            _ => Stmt::Line(format!("fuzz_log = {s};\n{v} = {v} * (1.0 + 0.0 * fuzz_log);")),
        }
    }

    /// A heap block of the function's own from one of the C allocators,
    /// filled, written, read and freed.
    fn allocation(&mut self) -> Stmt {
        let v = self.var();
        let e = self.expr(2);
        let s = self.squash(e);
        let alloc = match self.rng.gen_range(0..7) {
            0 => "double *t = (double *)malloc(4 * sizeof(double));",
            1 => "double *t = (double *)calloc(4, sizeof(double));",
            2 => "double *t = (double *)aligned_alloc(32, 4 * sizeof(double));",
            3 => "double *t = (double *)memalign(64, 4 * sizeof(double));",
            4 => "double *t = NULL;\nif (posix_memalign((void **)&t, 32, 4 * sizeof(double)) != 0) abort();",
            5 => "double *t = (double *)reallocarray(NULL, 2, sizeof(double));\nt[0] = t[1] = 0;\nt = (double *)reallocarray(t, 4, sizeof(double));",
            _ => "double *t = (double *)malloc(2 * sizeof(double));\nt[0] = t[1] = 0;\nt = (double *)realloc(t, 4 * sizeof(double));",
        };
        let fill = "for (int j = 0; j < 4; j++) t[j] = a[j] * (j + 1);";
        Stmt::Scope(
            format!("{alloc}\n{fill}"),
            vec![Stmt::Line(format!("t[{}] = {s};", self.rng.gen_range(0..4)))],
            format!("{v} = 0.5 * (t[{}] + t[{}]);\nfree(t);", self.rng.gen_range(0..4), self.rng.gen_range(0..4)),
        )
    }

    fn stmt(&mut self) -> Stmt {
        let nested = self.depth < 2;
        // The constructs a focus leans towards: a good part of each function,
        // and a small one of the mix.
        let share = |f: Focus| {
            if self.focus == f {
                0.4
            } else if self.focus == Focus::Mix {
                0.03
            } else {
                0.0
            }
        };
        let (custom, registrations, allocations) =
            (share(Focus::CustomRules), share(Focus::Registrations), share(Focus::Allocations));
        if self.rng.gen_bool(custom) {
            return self.custom_rule_call();
        }
        if self.rng.gen_bool(registrations) {
            return self.registration();
        }
        if self.rng.gen_bool(allocations) {
            return self.allocation();
        }
        // Rotations: a loop of their own, or a step inside a loop already open.
        let rotations = match self.focus {
            Focus::Rotations => 0.45,
            Focus::Mix => 0.06,
            _ => 0.0,
        };
        if self.rng.gen_bool(rotations) {
            if nested {
                return self.rotation_loop();
            }
            if !self.loops.is_empty() {
                return Stmt::Line(self.rotation());
            }
        }
        let k = self.rng.gen_range(0..if nested { 26 } else { 20 });
        let e = self.expr(3);
        match k {
            0..=2 => {
                let v = self.var();
                let s = self.squash(e);
                Stmt::Line(format!("{v} = {s};"))
            }
            3 => {
                let v = self.var();
                let w = self.var();
                Stmt::Line(format!("{v} = 0.5 * ({w} + {});", self.squash(e)))
            }
            4 => {
                let i = self.index();
                let s = self.squash(e);
                Stmt::Line(format!("a[{i}] = {s};"))
            }
            5 => {
                let i = self.index();
                let s = self.squash(e);
                Stmt::Line(format!("a[{i}] = 0.5 * a[{i}] + 0.25 * {s};"))
            }
            6 => {
                let i = self.index();
                let s = self.squash(e);
                Stmt::Line(format!("h[{i}] = {s};"))
            }
            7 => {
                let s = self.squash(e);
                if self.rng.gen_bool(0.5) {
                    Stmt::Line(format!("s.p = {s};"))
                } else {
                    Stmt::Line(format!("s.q[{}] = 0.5 * s.q[0] + 0.5 * {s};", self.rng.gen_range(0..2)))
                }
            }
            8 => {
                // A scalar copied into a slot, or a slot into a scalar.
                let i = self.rng.gen_range(0..LEN);
                let v = self.var();
                if self.rng.gen_bool(0.5) {
                    let arr = self.pick(&["a", "h"]);
                    Stmt::Line(format!("memcpy(&{arr}[{i}], &{v}, sizeof(double));"))
                } else {
                    let arr = self.pick(&["a", "h"]);
                    Stmt::Line(format!("memcpy(&{v}, &{arr}[{i}], sizeof {v});"))
                }
            }
            9 => {
                // A copy of a run-time length (0 to 3 elements) between arrays.
                let (d, s) = if self.rng.gen_bool(0.5) { ("a", "h") } else { ("h", "a") };
                let (i, j) = (self.rng.gen_range(0..=LEN - 3), self.rng.gen_range(0..=LEN - 3));
                let f = self.pick(&["memcpy", "memmove", "copy_n"]);
                if f == "copy_n" {
                    Stmt::Line(format!("copy_n({d} + {i}, {s} + {j}, n);"))
                } else {
                    Stmt::Line(format!("{f}({d} + {i}, {s} + {j}, n * sizeof(double));"))
                }
            }
            10 => {
                // Overlapping shift by one element, either way.
                let arr = self.pick(&["a", "h"]);
                let c = self.rng.gen_range(1..LEN);
                if self.rng.gen_bool(0.5) {
                    Stmt::Line(format!("memmove({arr} + 1, {arr}, {c} * sizeof(double));"))
                } else {
                    Stmt::Line(format!("memmove({arr}, {arr} + 1, {c} * sizeof(double));"))
                }
            }
            11 => {
                let arr = self.pick(&["a", "h"]);
                let i = self.rng.gen_range(0..LEN);
                if self.rng.gen_bool(0.5) {
                    Stmt::Line(format!("memset(&{arr}[{i}], 0, sizeof(double));"))
                } else {
                    Stmt::Line(format!("if (n > 1) memcpy(&{arr}[{i}], &s.p, sizeof s.p);"))
                }
            }
            12 => {
                let v = self.var();
                let b = self.expr(2);
                Stmt::Line(format!("{v} = mix({e}, {b});"))
            }
            13 => {
                let i = self.rng.gen_range(0..LEN - 3);
                let arr = self.pick(&["a", "h"]);
                let v = self.var();
                Stmt::Line(format!("scale_n({arr} + {i}, n, {v});"))
            }
            14 => {
                // A struct copied whole, changed, and copied back.
                let s = self.squash(e);
                Stmt::Scope(
                    "struct rec t;\nmemcpy(&t, &s, sizeof t);".into(),
                    vec![Stmt::Line(format!("t.p = 0.5 * t.p + 0.5 * {s};"))],
                    "s = t;".into(),
                )
            }
            // A heap block of the function's own.
            15 => self.allocation(),
            16 => {
                let v = self.var();
                Stmt::Line(format!("{v} = (double)(int)(2.0 * {e}) * 0.25 + {v} * 0.5;"))
            }
            17 => {
                let v = self.var();
                Stmt::Line(format!("{v} = 0.5 * {v} + 0.5 * sum_n(a, n + 1);"))
            }
            18 => {
                // The global scratch array (each function fills it first).
                let i = self.index();
                let s = self.squash(e);
                if self.rng.gen_bool(0.5) {
                    Stmt::Line(format!("G[{i}] = {s};"))
                } else {
                    Stmt::Line(format!("G[{i}] = 0.5 * G[{i}] + 0.25 * {s};"))
                }
            }
            19 => {
                // A copy between the global and the local array.
                let (i, j) = (self.rng.gen_range(0..=LEN - 3), self.rng.gen_range(0..=LEN - 3));
                if self.rng.gen_bool(0.5) {
                    Stmt::Line(format!("memcpy(G + {i}, a + {j}, n * sizeof(double));"))
                } else {
                    Stmt::Line(format!("copy_n(a + {i}, G + {j}, n);"))
                }
            }
            20..=22 => {
                let c = format!("{} > {}", self.expr(2), self.konst());
                self.depth += 1;
                let t = self.block(1, 3);
                let f = if self.rng.gen_bool(0.5) { self.block(0, 2) } else { Vec::new() };
                self.depth -= 1;
                Stmt::If(c, t, f)
            }
            _ => {
                let (var, bound) = self.loop_head();
                self.loops.push(var.clone());
                self.depth += 1;
                let body = self.block(1, 3);
                self.depth -= 1;
                self.loops.pop();
                Stmt::For(var, bound, body)
            }
        }
    }

    fn block(&mut self, min: usize, max: usize) -> Vec<Stmt> {
        let n = self.rng.gen_range(min..=max);
        (0..n).map(|_| self.stmt()).collect()
    }
}

/// A random function named `name` of about `size` top-level statements.
pub fn function(rng: &mut StdRng, name: &str, size: usize, focus: Focus) -> Function {
    let mut c = Ctx { rng, focus, loops: Vec::new(), depth: 0 };
    let n = c.rng.gen_range(size / 2..=size);
    Function { name: name.to_string(), body: c.block(n, n) }
}

/// Helpers every program defines (called by generated statements).
pub const PRELUDE: &str = r#"#define _GNU_SOURCE
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_width, enzyme_dupv, enzyme_dupnoneedv;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
void __enzyme_fwdsplit(void *, ...);

struct rec {
  double p;
  int k;
  double q[2];
};

/* Sizes known only at run time (0 to 3). */
int runtime_n;

static void copy_n(double *d, const double *s, int k) {
  if (k > 0)
    memcpy(d, s, k * sizeof(double));
}
static void scale_n(double *p, int k, double c) {
  for (int i = 0; i < k; i++) p[i] *= tanh(c);
}
static double sum_n(const double *p, int k) {
  double t = 0;
  for (int i = 0; i < k; i++) t += p[i];
  return tanh(t);
}
static double mix(double p, double q) { return sin(p) * tanh(q) + 0.5 * p * tanh(p); }

/* sqrt for x >= 1 from a first guess made of the float's bits and Newton
   steps (exact to rounding): the engine cannot follow the bits, so it has
   custom rules (forward, gradient, split forward), with its slope as the tape. */
__attribute__((noinline)) static double newton_sqrt(double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  bits = (bits >> 1) + (1023ULL << 51);
  double r;
  memcpy(&r, &bits, sizeof r);
  for (int k = 0; k < 6; k++) r = 0.5 * (r + x / r);
  return r;
}
typedef struct { void *tape; double y; double shadow; } newton_aug_t;
typedef struct { double y, dy; } newton_dual_t;
static newton_aug_t newton_sqrt_aug(double x) {
  double r = newton_sqrt(x);
  double *slope = (double *)malloc(sizeof(double));
  *slope = 0.5 / r;
  newton_aug_t a = {slope, r, 0};
  return a;
}
static double newton_sqrt_rev(double x, double dy, void *tape) {
  (void)x;
  double slope = *(double *)tape;
  free(tape);
  return slope * dy;
}
static double newton_sqrt_split(double x, double dx, void *tape) { return newton_sqrt_rev(x, dx, tape); }
static newton_dual_t newton_sqrt_fwd(double x, double dx) {
  double r = newton_sqrt(x);
  newton_dual_t d = {r, 0.5 / r * dx};
  return d;
}
void *__enzyme_register_gradient_newton_sqrt[3] = {(void *)newton_sqrt, (void *)newton_sqrt_aug, (void *)newton_sqrt_rev};
void *__enzyme_register_splitderivative_newton_sqrt[3] = {(void *)newton_sqrt, (void *)newton_sqrt_aug, (void *)newton_sqrt_split};
void *__enzyme_register_derivative_newton_sqrt[2] = {(void *)newton_sqrt, (void *)newton_sqrt_fwd};

/* Registered inactive: a log of values, no derivative. */
static int notes;
static double noted;
static void note_value(double x) { notes++; noted += x; }
void *__enzyme_inactivefn[1] = {(void *)note_value};
/* Differentiated as exp by exp's rule. */
static double like_exp(double x) { return exp(x); }
void *__enzyme_function_like[2] = {(void *)like_exp, (void *)"exp"};
/* A global registered inactive. */
double fuzz_log;
void *__enzyme_inactive_global[1] = {(void *)&fuzz_log};
"#;

fn write_stmts(out: &mut String, stmts: &[Stmt], indent: usize) {
    let pad = "  ".repeat(indent);
    for s in stmts {
        match s {
            Stmt::Line(l) => {
                for line in l.lines() {
                    out.push_str(&format!("{pad}{line}\n"));
                }
            }
            Stmt::If(c, t, f) => {
                out.push_str(&format!("{pad}if ({c}) {{\n"));
                write_stmts(out, t, indent + 1);
                if f.is_empty() {
                    out.push_str(&format!("{pad}}}\n"));
                } else {
                    out.push_str(&format!("{pad}}} else {{\n"));
                    write_stmts(out, f, indent + 1);
                    out.push_str(&format!("{pad}}}\n"));
                }
            }
            Stmt::For(v, bound, body) => {
                out.push_str(&format!("{pad}for (int {v} = 0; {v} < {bound}; {v}++) {{\n"));
                write_stmts(out, body, indent + 1);
                out.push_str(&format!("{pad}}}\n"));
            }
            Stmt::Scope(pro, body, epi) => {
                out.push_str(&format!("{pad}{{\n"));
                write_stmts(out, &[Stmt::Line(pro.clone())], indent + 1);
                write_stmts(out, body, indent + 1);
                write_stmts(out, &[Stmt::Line(epi.clone())], indent + 1);
                out.push_str(&format!("{pad}}}\n"));
            }
        }
    }
}

/// The C definition of a function.
pub fn c_function(f: &Function) -> String {
    let mut out = format!("static void {}(const double *x, double *y) {{\n", f.name);
    out.push_str("  int n = runtime_n;\n");
    let vars: Vec<String> = (0..NX).map(|k| format!("v{k} = x[{k}]")).collect();
    out.push_str(&format!("  double {};\n", vars.join(", ")));
    out.push_str(&format!(
        "  double a[{LEN}];\n  for (int j = 0; j < {LEN}; j++) a[j] = x[j % {NX}] * (0.5 + 0.1 * j);\n"
    ));
    out.push_str(&format!(
        "  double *h = (double *)malloc({LEN} * sizeof(double));\n  for (int j = 0; j < {LEN}; j++) h[j] = x[(j + 1) % \
         {NX}] - 0.05 * j;\n"
    ));
    out.push_str("  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};\n");
    out.push_str(&format!("  for (int j = 0; j < {LEN}; j++) G[j] = x[(j + 2) % {NX}] * 0.25 + T[j];\n"));
    write_stmts(&mut out, &f.body, 1);
    out.push_str("  y[0] = v0 + v1 * 0.5 + v2 * v3;\n");
    out.push_str(&format!("  y[1] = 0;\n  for (int j = 0; j < {LEN}; j++) y[1] += a[j] * (j + 1) * 0.1;\n"));
    out.push_str(&format!(
        "  y[2] = s.p + 2.0 * s.q[0] - s.q[1];\n  for (int j = 0; j < {LEN}; j++) y[2] += h[j] * (j % 3 + 1) * \
         0.1;\n"
    ));
    out.push_str("  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]) + 0.5 * G[3] - 0.25 * G[6];\n");
    out.push_str("  free(h);\n}\n");
    out
}

/// The check of one function: its Jacobian by reverse mode (one seed per
/// output), forward mode (one tangent per input), both again in vector mode
/// (one call each, a lane per seed or tangent; reverse only where no custom
/// gradient is called), split reverse and split forward mode (from the
/// tape of an augmented call, after the inputs changed), and central differences at
/// two steps; the vector Jacobians must match width 1, forward must match
/// reverse closely, and reverse must match the
/// differences wherever the two steps agree with each other (elsewhere the
/// function is not smooth enough to say). The primal outputs of the
/// derivative calls must equal the function's own, up to rounding: the
/// optimiser may fuse a multiply-add (`llvm.fmuladd`) in one and not the other.
pub fn c_check(name: &str, custom_rules: bool) -> String {
    // Vector reverse mode does not take custom gradients (a build error):
    // such a function's reverse Jacobian in one call is left out.
    let reverse_vector = if custom_rules {
        "for (int k = 0; k < NY; k++) for (int i = 0; i < NX; i++) dxr[k][i] = rev[k][i]; (void)yr; (void)dyr;"
            .to_string()
    } else {
        format!("__enzyme_autodiff((void *){name}, enzyme_width, NY, enzyme_dupv, sizeof dxr[0], xr, &dxr[0][0], enzyme_dupnoneedv, sizeof dyr[0], yr, &dyr[0][0]);")
    };
    format!(
        r#"  for (int nn = 0; nn < 3; nn++) {{
    runtime_n = nn == 2 ? 3 : nn;
    double x0[NX], y0[NY];
    for (int i = 0; i < NX; i++) x0[i] = base[i];
    {name}(x0, y0);
    int finite = 1;
    for (int j = 0; j < NY; j++) finite &= isfinite(y0[j]);
    if (!finite) {{ printf("skip %s n=%d: non-finite primal\n", "{name}", runtime_n); skipped++; continue; }}
    double rev[NY][NX], fwd[NY][NX], fd[NY][NX], fd2[NY][NX];
    for (int i = 0; i < NX; i++) {{
      double xp[NX], xm[NX], yp[NY], ym[NY];
      for (int hs = 0; hs < 2; hs++) {{
        double hh = hs ? 5e-7 : 1e-6;
        for (int k = 0; k < NX; k++) xp[k] = xm[k] = x0[k];
        xp[i] += hh; xm[i] -= hh;
        {name}(xp, yp); {name}(xm, ym);
        for (int j = 0; j < NY; j++) (hs ? fd2 : fd)[j][i] = (yp[j] - ym[j]) / (2 * hh);
      }}
    }}
    for (int j = 0; j < NY; j++) {{
      double x[NX], dx[NX] = {{0}}, y[NY], dy[NY] = {{0}};
      for (int k = 0; k < NX; k++) x[k] = x0[k];
      dy[j] = 1;
      __enzyme_autodiff((void *){name}, enzyme_dup, x, dx, enzyme_dup, y, dy);
      for (int k = 0; k < NY; k++) if (!(fabs(y[k] - y0[k]) <= 1e-13 * (1 + fabs(y0[k])))) {{ printf("FAIL %s n=%d: primal y[%d] from reverse mode %.17g != %.17g\n", "{name}", runtime_n, k, y[k], y0[k]); failures++; }}
      for (int i = 0; i < NX; i++) rev[j][i] = dx[i];
    }}
    for (int i = 0; i < NX; i++) {{
      double x[NX], tx[NX] = {{0}}, y[NY], ty[NY] = {{0}};
      for (int k = 0; k < NX; k++) x[k] = x0[k];
      tx[i] = 1;
      __enzyme_fwddiff((void *){name}, enzyme_dup, x, tx, enzyme_dup, y, ty);
      for (int k = 0; k < NY; k++) if (!(fabs(y[k] - y0[k]) <= 1e-13 * (1 + fabs(y0[k])))) {{ printf("FAIL %s n=%d: primal y[%d] from forward mode %.17g != %.17g\n", "{name}", runtime_n, k, y[k], y0[k]); failures++; }}
      for (int j = 0; j < NY; j++) fwd[j][i] = ty[j];
    }}
    for (int j = 0; j < NY; j++) {{
      /* Split reverse mode: the forward part, then the adjoints from its
         tape after the inputs are overwritten. */
      double x[NX], y[NY], sx[NX] = {{0}}, sy[NY] = {{0}};
      for (int k = 0; k < NX; k++) x[k] = x0[k];
      void *tape = __enzyme_augmentfwd((void *){name}, enzyme_dup, x, sx, enzyme_dup, y, sy);
      for (int k = 0; k < NX; k++) x[k] = -7;
      sy[j] = 1;
      __enzyme_reverse((void *){name}, enzyme_dup, x, sx, enzyme_dup, y, sy, tape);
      for (int i = 0; i < NX; i++) if (!(fabs(sx[i] - rev[j][i]) <= 1e-10 * (1 + fabs(rev[j][i])))) {{ printf("FAIL %s n=%d J[%d][%d]: split reverse %.17g, reverse %.17g\n", "{name}", runtime_n, j, i, sx[i], rev[j][i]); failures++; }}
    }}
    for (int i = 0; i < NX; i++) {{
      /* Split forward mode: the forward part, then the tangents from its
         tape after the inputs are overwritten, given no primals. */
      double x[NX], y[NY], sx[NX] = {{0}}, sy[NY] = {{0}}, tx[NX] = {{0}}, ty[NY] = {{0}};
      for (int k = 0; k < NX; k++) x[k] = x0[k];
      void *tape = __enzyme_augmentfwd((void *){name}, enzyme_dup, x, sx, enzyme_dup, y, sy);
      for (int k = 0; k < NX; k++) x[k] = -7;
      tx[i] = 1;
      __enzyme_fwdsplit((void *){name}, enzyme_dup, (double *)0, tx, enzyme_dup, (double *)0, ty, tape);
      for (int j = 0; j < NY; j++) if (!(fabs(ty[j] - fwd[j][i]) <= 1e-10 * (1 + fabs(fwd[j][i])))) {{ printf("FAIL %s n=%d J[%d][%d]: split forward %.17g, forward %.17g\n", "{name}", runtime_n, j, i, ty[j], fwd[j][i]); failures++; }}
    }}
    {{
      /* Vector mode: the whole Jacobian in one forward call (a lane per
         input) and one reverse call (a lane per output), against width 1. */
      double x[NX], e[NX][NX] = {{{{0}}}}, y[NY], t[NX][NY];
      double xr[NX], dxr[NY][NX] = {{{{0}}}}, yr[NY], dyr[NY][NY] = {{{{0}}}};
      for (int k = 0; k < NX; k++) x[k] = xr[k] = x0[k], e[k][k] = 1;
      for (int k = 0; k < NY; k++) dyr[k][k] = 1;
      __enzyme_fwddiff((void *){name}, enzyme_width, NX, enzyme_dupv, sizeof e[0], x, &e[0][0], enzyme_dupnoneedv, sizeof t[0], y, &t[0][0]);
      {reverse_vector}
      for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {{
          if (!(fabs(t[i][j] - fwd[j][i]) <= 1e-10 * (1 + fabs(fwd[j][i])))) {{ printf("FAIL %s n=%d J[%d][%d]: forward width %d %.17g, width 1 %.17g\n", "{name}", runtime_n, j, i, NX, t[i][j], fwd[j][i]); failures++; }}
          if (!(fabs(dxr[j][i] - rev[j][i]) <= 1e-10 * (1 + fabs(rev[j][i])))) {{ printf("FAIL %s n=%d J[%d][%d]: reverse width %d %.17g, width 1 %.17g\n", "{name}", runtime_n, j, i, NY, dxr[j][i], rev[j][i]); failures++; }}
        }}
    }}
    for (int j = 0; j < NY; j++)
      for (int i = 0; i < NX; i++) {{
        double r = rev[j][i], f = fwd[j][i], d = fd[j][i], d2 = fd2[j][i];
        checks++;
        if (!(fabs(f - r) <= 1e-9 * (1 + fabs(r)))) {{
          printf("FAIL %s n=%d J[%d][%d]: forward %.17g, reverse %.17g, finite difference %.10g\n", "{name}", runtime_n, j, i, f, r, d);
          failures++;
        }} else if (fabs(d - d2) > 1e-6 * (1 + fabs(d)) || 2.3e-16 * fabs(y0[j]) / 5e-7 > 1e-6 * (1 + fabs(r))) {{
          /* Not smooth enough, or the output too large for a step of 5e-7
             to resolve its change (rounding alone moves the difference more
             than the tolerance). */
          skipped++;
        }} else if (!(fabs(r - d) <= 1e-5 * (1 + fabs(d)))) {{
          printf("FAIL %s n=%d J[%d][%d]: reverse %.17g and forward %.17g, finite difference %.10g\n", "{name}", runtime_n, j, i, r, f, d);
          failures++;
        }}
      }}
  }}
"#
    )
}

/// A whole program checking `functions` at the input point `base`.
pub fn program(functions: &[Function], base: &[f64; NX]) -> String {
    let mut out = String::from(PRELUDE);
    out.push_str(&format!("#define NX {NX}\n#define NY {NY}\n\n"));
    // A scratch array the functions write (a shadow global), and a table
    // they only read (constant for their derivatives).
    out.push_str(&format!("double G[{LEN}], T[{LEN}];\n\n"));
    for f in functions {
        out.push_str(&c_function(f));
        out.push('\n');
    }
    let b: Vec<String> = base.iter().map(|v| format!("{v:.6}")).collect();
    out.push_str(&format!(
        "int main(void) {{\n  const double base[NX] = {{{}}};\n  int checks = 0, failures = 0, skipped = 0;\n  for \
         (int j = 0; j < {LEN}; j++) T[j] = 0.3 + 0.1 * j;\n",
        b.join(", ")
    ));
    for f in functions {
        out.push_str(&c_check(&f.name, format!("{:?}", f.body).contains(CUSTOM_RULE_FUNCTION)));
    }
    out.push_str(
        "  printf(\"entries checked %d, failed %d, not smooth enough to check against differences %d\\n\", checks, \
         failures, skipped);\n  return failures != 0;\n}\n",
    );
    out
}
