//! Engine tests without a compiler process: LLVM IR text is parsed,
//! differentiated, verified and run through LLVM's JIT, and the numbers are
//! checked against analytic derivatives and central finite differences.

use inkwell::context::Context;
use inkwell::execution_engine::JitFunction;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::targets::{InitializationConfig, Target};
use inkwell::OptimizationLevel;

type F1 = unsafe extern "C" fn(f64) -> f64;
type F2 = unsafe extern "C" fn(f64, f64) -> f64;

const DECLS: &str = r#"
@enzyme_const = external global i32
@enzyme_out = external global i32
@enzyme_dup = external global i32
@enzyme_dupnoneed = external global i32
@enzyme_width = external global i32
@enzyme_bogus = external global i32
@enzyme_interleave = external global i32
declare double @__enzyme_autodiff(ptr, ...)
declare { double, double } @__enzyme_autodiff2(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
"#;

/// Differentiates `ir` (plus the common declarations) and calls `run` with
/// a JIT over the result.
fn with_jit<R>(ir: &str, run: impl FnOnce(&inkwell::execution_engine::ExecutionEngine) -> R) -> R {
    Target::initialize_native(&InitializationConfig::default()).unwrap();
    let ctx = Context::create();
    let src = format!("{DECLS}\n{ir}");
    let buf = MemoryBuffer::create_from_memory_range_copy(src.as_bytes(), "test.ll");
    let module = ctx.create_module_from_ir(buf).unwrap_or_else(|e| panic!("bad test IR: {e}"));
    if let Err(diags) = ad::differentiate(&module) {
        panic!("differentiation failed:\n{}", diags.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n"));
    }
    if let Err(e) = module.verify() {
        panic!("invalid IR after AD: {}\n{}", e.to_string(), module.print_to_string().to_string());
    }
    let ee = module.create_jit_execution_engine(OptimizationLevel::None).unwrap();
    run(&ee)
}

fn f1<'a>(ee: &'a inkwell::execution_engine::ExecutionEngine, name: &str) -> JitFunction<'a, F1> {
    unsafe { ee.get_function::<F1>(name).unwrap() }
}

fn f2<'a>(ee: &'a inkwell::execution_engine::ExecutionEngine, name: &str) -> JitFunction<'a, F2> {
    unsafe { ee.get_function::<F2>(name).unwrap() }
}

type FI = unsafe extern "C" fn(f64, i32) -> f64;

fn fi<'a>(ee: &'a inkwell::execution_engine::ExecutionEngine, name: &str) -> JitFunction<'a, FI> {
    unsafe { ee.get_function::<FI>(name).unwrap() }
}

/// `@grad` (reverse) and `@tangent` (forward, seed 1) of `@f(double %x, i32 %n)`,
/// differentiated with respect to `%x`.
fn grad_and_tangent_xn(f: &str) -> String {
    format!(
        r#"
define double @grad(double %x, i32 %n) {{
  %g = call double (ptr, ...) @__enzyme_autodiff(ptr @{f}, double %x, i32 %n)
  ret double %g
}}
define double @tangent(double %x, i32 %n) {{
  %g = call double (ptr, ...) @__enzyme_fwddiff(ptr @{f}, double %x, double 1.0, i32 %n)
  ret double %g
}}
"#
    )
}

fn diagnostics(ir: &str) -> Vec<ad::Diagnostic> {
    let ctx = Context::create();
    let src = format!("{DECLS}\n{ir}");
    let buf = MemoryBuffer::create_from_memory_range_copy(src.as_bytes(), "test.ll");
    let module = ctx.create_module_from_ir(buf).unwrap();
    ad::differentiate(&module).expect_err("differentiation should fail")
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

#[track_caller]
fn assert_close(got: f64, want: f64, tol: f64) {
    assert!(close(got, want, tol), "got {got}, want {want} (tolerance {tol})");
}

#[test]
fn square_reverse_and_forward() {
    let ir = r#"
define double @square(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
define double @grad(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @square, double %x)
  ret double %r
}
define double @tangent(double %x, double %dx) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @square, ptr @enzyme_dup, double %x, double %dx)
  ret double %r
}
"#;
    with_jit(ir, |ee| unsafe {
        assert_close(f1(ee, "grad").call(3.0), 6.0, 1e-15);
        assert_close(f2(ee, "tangent").call(3.0, 2.0), 12.0, 1e-15);
    });
}

#[test]
fn branches_phis_and_selects() {
    // f(x) = x > 0 ? x*x*x : 2x, written with real branches and a phi, then a select.
    let ir = r#"
define double @f(double %x) {
entry:
  %c = fcmp ogt double %x, 0.0
  br i1 %c, label %pos, label %neg
pos:
  %a = fmul double %x, %x
  %b = fmul double %a, %x
  br label %join
neg:
  %n = fmul double %x, -3.0
  br label %join
join:
  %p = phi double [ %b, %pos ], [ %n, %neg ]
  %t = fmul double %x, 2.0
  %s = select i1 %c, double %p, double %t
  ret double %s
}
define double @grad(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}
define double @tangent(double %x) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)
  ret double %r
}
"#;
    with_jit(ir, |ee| unsafe {
        for x in [-2.0, -0.5, 0.5, 2.0] {
            let want = if x > 0.0 { 3.0 * x * x } else { 2.0 };
            assert_close(f1(ee, "grad").call(x), want, 1e-14);
            assert_close(f1(ee, "tangent").call(x), want, 1e-14);
        }
    });
}

#[test]
fn switch_and_multiple_returns() {
    let ir = r#"
define double @f(double %x, i32 %k) {
entry:
  switch i32 %k, label %other [ i32 0, label %zero
                                i32 1, label %one
                                i32 2, label %one ]
zero:
  %a = fmul double %x, %x
  ret double %a
one:
  %b = call double @llvm.sin.f64(double %x)
  br label %join
other:
  %c = fmul double %x, 5.0
  br label %join
join:
  %p = phi double [ %b, %one ], [ %c, %other ]
  %q = fmul double %p, %x
  ret double %q
}
declare double @llvm.sin.f64(double)
"#;
    with_jit(&format!("{ir}{}", grad_and_tangent_xn("f")), |ee| unsafe {
        let (g, t) = (fi(ee, "grad"), fi(ee, "tangent"));
        let x = 0.7f64;
        let want = [2.0 * x, x.cos() * x + x.sin(), x.cos() * x + x.sin(), 10.0 * x];
        for (k, w) in want.iter().enumerate() {
            assert_close(g.call(x, k as i32), *w, 1e-14);
            assert_close(t.call(x, k as i32), *w, 1e-14);
        }
    });
}

#[test]
fn calls_two_active_arguments_and_markers() {
    // g(x, y) = x * sin(y); f(x, y) = g(x, y) * g(y, x) + x
    let ir = r#"
declare double @sin(double)
define internal double @g(double %x, double %y) {
  %s = call double @sin(double %y)
  %m = fmul double %x, %s
  ret double %m
}
define double @f(double %x, double %y) {
  %a = call double @g(double %x, double %y)
  %b = call double @g(double %y, double %x)
  %m = fmul double %a, %b
  %r = fadd double %m, %x
  ret double %r
}
define double @dfdx(double %x, double %y) {
  %ld = load i32, ptr @enzyme_const
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff2(ptr @f, double %x, double %y)
  %a = extractvalue { double, double } %r, 0
  ret double %a
}
define double @dfdy(double %x, double %y) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff2(ptr @f, double %x, double %y)
  %b = extractvalue { double, double } %r, 1
  ret double %b
}
define double @dfdy_const_x(double %x, double %y) {
  %c = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %c, double %x, double %y)
  ret double %r
}
define double @fwd_y(double %x, double %y) {
  %c = load i32, ptr @enzyme_const
  %d = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %c, double %x, i32 %d, double %y, double 1.0)
  ret double %r
}
define double @primal(double %x, double %y) {
  %r = call double @f(double %x, double %y)
  ret double %r
}
"#;
    with_jit(ir, |ee| unsafe {
        let (x, y) = (0.8f64, -1.3f64);
        let p = f2(ee, "primal");
        let h = 1e-6;
        let fdx = (p.call(x + h, y) - p.call(x - h, y)) / (2.0 * h);
        let fdy = (p.call(x, y + h) - p.call(x, y - h)) / (2.0 * h);
        // analytic: f = x y sin(x) sin(y) + x
        let ax = y * x.sin() * y.sin() + x * y * x.cos() * y.sin() + 1.0;
        let ay = x * x.sin() * y.sin() + x * y * x.sin() * y.cos();
        assert_close(f2(ee, "dfdx").call(x, y), ax, 1e-13);
        assert_close(f2(ee, "dfdy").call(x, y), ay, 1e-13);
        assert_close(f2(ee, "dfdy_const_x").call(x, y), ay, 1e-13);
        assert_close(f2(ee, "fwd_y").call(x, y), ay, 1e-13);
        assert_close(fdx, ax, 1e-8);
        assert_close(fdy, ay, 1e-8);
    });
}

#[test]
fn recursion_and_float_widths() {
    // p(x, n) = n == 0 ? 1 : x * p(x, n - 1) computed in float, called with a double.
    let ir = r#"
define float @p(float %x, i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %rec
rec:
  %m = sub i32 %n, 1
  %r = call float @p(float %x, i32 %m)
  %q = fmul float %x, %r
  ret float %q
done:
  ret float 1.0
}
define double @wrap(double %x) {
  %f = fptrunc double %x to float
  %r = call float @p(float %f, i32 4)
  %e = fpext float %r to double
  ret double %e
}
define double @grad(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @wrap, double %x)
  ret double %r
}
define double @tangent(double %x) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @wrap, double %x, double 1.0)
  ret double %r
}
define double @gradf(double %x) {
  ; C varargs promote float to double: the engine converts back.
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @p, double %x, i32 3)
  ret double %r
}
"#;
    with_jit(ir, |ee| unsafe {
        let x = 1.5f64;
        assert_close(f1(ee, "grad").call(x), 4.0 * x.powi(3), 1e-6);
        assert_close(f1(ee, "tangent").call(x), 4.0 * x.powi(3), 1e-6);
        assert_close(f1(ee, "gradf").call(x), 3.0 * x.powi(2), 1e-6);
    });
}

/// One table entry under test: the callee, its argument count, and where to evaluate.
struct Case {
    callee: &'static str,
    arity: usize,
    at: &'static [f64],
}

/// Every rule of the table, checked in both modes against central differences.
#[test]
fn every_rule_matches_finite_differences() {
    let cases = [
        Case { callee: "llvm.sqrt.f64", arity: 1, at: &[2.0] },
        Case { callee: "sqrt", arity: 1, at: &[0.3] },
        Case { callee: "cbrt", arity: 1, at: &[2.5] },
        Case { callee: "llvm.sin.f64", arity: 1, at: &[0.4] },
        Case { callee: "cos", arity: 1, at: &[0.4] },
        Case { callee: "tan", arity: 1, at: &[0.4] },
        Case { callee: "asin", arity: 1, at: &[0.3] },
        Case { callee: "acos", arity: 1, at: &[0.3] },
        Case { callee: "atan", arity: 1, at: &[1.3] },
        Case { callee: "atan2", arity: 2, at: &[0.7, -1.2] },
        Case { callee: "sinh", arity: 1, at: &[0.9] },
        Case { callee: "cosh", arity: 1, at: &[0.9] },
        Case { callee: "tanh", arity: 1, at: &[0.9] },
        Case { callee: "exp", arity: 1, at: &[0.9] },
        Case { callee: "llvm.exp2.f64", arity: 1, at: &[0.9] },
        Case { callee: "expm1", arity: 1, at: &[0.2] },
        Case { callee: "log", arity: 1, at: &[2.2] },
        Case { callee: "log2", arity: 1, at: &[2.2] },
        Case { callee: "log10", arity: 1, at: &[2.2] },
        Case { callee: "log1p", arity: 1, at: &[0.2] },
        Case { callee: "pow", arity: 2, at: &[1.7, 2.3] },
        Case { callee: "hypot", arity: 2, at: &[1.7, -2.3] },
        Case { callee: "fabs", arity: 1, at: &[-1.7] },
        Case { callee: "llvm.fabs.f64", arity: 1, at: &[1.7] },
        Case { callee: "fma", arity: 3, at: &[1.5, -2.0, 0.5] },
        Case { callee: "llvm.fmuladd.f64", arity: 3, at: &[1.5, -2.0, 0.5] },
        Case { callee: "copysign", arity: 2, at: &[1.5, -2.0] },
        Case { callee: "fmin", arity: 2, at: &[1.5, -2.0] },
        Case { callee: "llvm.maxnum.f64", arity: 2, at: &[1.5, -2.0] },
        Case { callee: "erf", arity: 1, at: &[0.6] },
        Case { callee: "erfc", arity: 1, at: &[0.6] },
        Case { callee: "fmod", arity: 2, at: &[5.3, 1.7] },
        Case { callee: "floor", arity: 1, at: &[1.3] },
        Case { callee: "llvm.round.f64", arity: 1, at: &[1.3] },
    ];
    for case in &cases {
        check_rule(case);
    }
}

fn check_rule(case: &Case) {
    let n = case.arity;
    let params: Vec<String> = (0..n).map(|k| format!("double %a{k}")).collect();
    let params = params.join(", ");
    let args: Vec<String> = (0..n).map(|k| format!("double %a{k}")).collect();
    let args = args.join(", ");
    let struct_ty = format!("{{ {} }}", vec!["double"; n].join(", "));
    let ir = format!(
        r#"
declare double @{callee}({types})
declare {struct_ty} @__enzyme_autodiff_n(ptr, ...)
define double @f({params}) {{
  %r = call double @{callee}({args})
  %s = fmul double %r, 1.5
  ret double %s
}}
"#,
        callee = case.callee,
        types = vec!["double"; n].join(", "),
    );
    // One gradient component and one tangent function per direction.
    let mut fwd = String::new();
    for dir in 0..n {
        fwd.push_str(&format!(
            "define double @grad{dir}({params}) {{\n  %r = call {struct_ty} (ptr, ...) @__enzyme_autodiff_n(ptr @f, {args})\n  %e = extractvalue {struct_ty} %r, {dir}\n  ret double %e\n}}\n"
        ));
        let fargs: Vec<String> =
            (0..n).map(|k| format!("double %a{k}, double {}", if k == dir { "1.0" } else { "0.0" })).collect();
        fwd.push_str(&format!(
            "define double @tangent{dir}({params}) {{\n  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, {})\n  ret double %r\n}}\n",
            fargs.join(", ")
        ));
    }
    let ir = format!("{ir}\n{fwd}");
    with_jit(&ir, |ee| unsafe {
        let x = case.at;
        let h = 1e-6;
        let eval = |v: &[f64]| -> f64 {
            match n {
                1 => f1(ee, "f").call(v[0]),
                2 => f2(ee, "f").call(v[0], v[1]),
                _ => ee.get_function::<unsafe extern "C" fn(f64, f64, f64) -> f64>("f").unwrap().call(v[0], v[1], v[2]),
            }
        };
        let call = |name: &str| -> f64 {
            match n {
                1 => f1(ee, name).call(x[0]),
                2 => f2(ee, name).call(x[0], x[1]),
                _ => {
                    ee.get_function::<unsafe extern "C" fn(f64, f64, f64) -> f64>(name).unwrap().call(x[0], x[1], x[2])
                }
            }
        };
        let grads: Vec<f64> = (0..n).map(|dir| call(&format!("grad{dir}"))).collect();
        for dir in 0..n {
            let mut lo = x.to_vec();
            let mut hi = x.to_vec();
            lo[dir] -= h;
            hi[dir] += h;
            let fd = (eval(&hi) - eval(&lo)) / (2.0 * h);
            let tangent = call(&format!("tangent{dir}"));
            assert!(
                close(grads[dir], fd, 1e-6),
                "{}: reverse d/dx{dir} = {}, finite difference {fd}",
                case.callee,
                grads[dir]
            );
            assert!(close(tangent, grads[dir], 1e-12), "{}: forward {tangent} != reverse {}", case.callee, grads[dir]);
        }
    });
}

#[test]
fn powi_and_float_libm_variants() {
    let ir = r#"
declare double @llvm.powi.f64.i32(double, i32)
declare float @sinf(float)
define double @f(double %x) {
  %p = call double @llvm.powi.f64.i32(double %x, i32 5)
  ret double %p
}
define float @g(float %x) {
  %s = call float @sinf(float %x)
  %m = fmul float %s, %x
  ret float %m
}
define double @gf(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}
define double @tf(double %x) {
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)
  ret double %r
}
define double @gg(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @g, double %x)
  ret double %r
}
"#;
    with_jit(ir, |ee| unsafe {
        let x = 1.2f64;
        assert_close(f1(ee, "gf").call(x), 5.0 * x.powi(4), 1e-14);
        assert_close(f1(ee, "tf").call(x), 5.0 * x.powi(4), 1e-14);
        assert_close(f1(ee, "gg").call(x), x.cos() * x + x.sin(), 1e-6);
    });
}

#[test]
fn unsupported_constructs_are_diagnosed() {
    let memory = r#"
@g = global ptr null
define double @f(double %x) {
  %m = fmul double %x, %x
  %p = load ptr, ptr @g
  store double %m, ptr %p
  ret double %m
}
define double @grad(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}
"#;
    let d = diagnostics(memory);
    assert!(
        d.iter().any(|d| d.message.contains("store of a differentiated value into memory that has no shadow")
            && d.function.as_deref() == Some("f")),
        "{d:?}"
    );

    let external = r#"
declare double @mystery(double)
define double @f(double %x) {
  %v = call double @mystery(double %x)
  ret double %v
}
define double @grad(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}
"#;
    let d = diagnostics(external);
    assert!(d.iter().any(|d| d.message.contains("external function `mystery`")), "{d:?}");

    let marker = r#"
define double @f(double %x) {
  ret double %x
}
define double @grad(double %x) {
  %c = load i32, ptr @enzyme_bogus
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %c, double %x)
  ret double %r
}
define double @width(double %x) {
  %c = load i32, ptr @enzyme_width
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %c, i32 2, double %x)
  ret double %r
}
define double @interleave(double %x) {
  %c = load i32, ptr @enzyme_interleave
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %c, double %x)
  ret double %r
}
"#;
    let d = diagnostics(marker);
    assert!(d.iter().any(|d| d.message.contains("unknown activity marker `enzyme_bogus`")), "{d:?}");
    // Two lanes' adjoints do not fit one double.
    assert!(
        d.iter().any(|d| d.message.contains("cannot hold 2 adjoint(s)") && d.function.as_deref() == Some("width")),
        "{d:?}"
    );
    // `enzyme_interleave` with a value after it and no duplicated primal before.
    assert!(d.iter().any(|d| d.message.contains("more shadows than duplicated primals")), "{d:?}");

    let args = r#"
define double @f(double %x, double %y) {
  %m = fmul double %x, %y
  ret double %m
}
define double @missing(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}
define double @extra(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %x, double %x, double %x)
  ret double %r
}
define double @notfn(ptr %p, double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr %p, double %x)
  ret double %r
}
define double @twoout(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %x)
  ret double %r
}
"#;
    // Two pointers stored as one vector (a vectoriser's copy of a struct of
    // pointers) into memory with a shadow: their shadows would not follow.
    let pointer_vector = r#"
define double @f(ptr %x, ptr %out) {
  %x1 = getelementptr double, ptr %x, i64 1
  %v0 = insertelement <2 x ptr> poison, ptr %x1, i64 0
  %v = insertelement <2 x ptr> %v0, ptr %x, i64 1
  store <2 x ptr> %v, ptr %out
  %r = load double, ptr %x
  ret double %r
}
define void @grad(ptr %x, ptr %dx, ptr %out, ptr %dout) {
  %d = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %d, ptr %x, ptr %dx, i32 %d, ptr %out, ptr %dout)
  ret void
}
"#;
    let d = diagnostics(pointer_vector);
    assert!(
        d.iter().any(|d| d.message.contains("store of `<2 x ptr>`, pointers or integers grouped")
            && d.function.as_deref() == Some("f")),
        "{d:?}"
    );

    // A masked store of floats (what a vectoriser makes of a conditional
    // store) writes them: not taken for an inactive intrinsic.
    let masked = r#"
declare void @llvm.masked.store.v2f64.p0(<2 x double>, ptr, i32, <2 x i1>)
define double @f(ptr %x, double %y) {
  %m = fmul double %y, %y
  %v0 = insertelement <2 x double> poison, double %m, i64 0
  %v = insertelement <2 x double> %v0, double %y, i64 1
  call void @llvm.masked.store.v2f64.p0(<2 x double> %v, ptr %x, i32 8, <2 x i1> <i1 true, i1 false>)
  %r = load double, ptr %x
  ret double %r
}
define double @grad(ptr %x, ptr %dx, double %y) {
  %d = load i32, ptr @enzyme_dup
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %d, ptr %x, ptr %dx, double %y)
  ret double %r
}
"#;
    let d = diagnostics(masked);
    assert!(d.iter().any(|d| d.message.contains("call to intrinsic `llvm.masked.store")), "{d:?}");

    let d = diagnostics(args);
    assert!(d.iter().any(|d| d.message.contains("missing an argument for parameter `y`")), "{d:?}");
    assert!(d.iter().any(|d| d.message.contains("more argument(s) than `f` takes")), "{d:?}");
    assert!(d.iter().any(|d| d.message.contains("must be a function")), "{d:?}");
    assert!(d.iter().any(|d| d.message.contains("cannot hold 2 adjoint(s)")), "{d:?}");
}

/// A loop as `-O0` leaves it (test at the top, body feeding only the header
/// phi): the body's adjoint arrives through the back edge, after the body's
/// reverse is generated. Regression test for a derivative that came out zero.
#[test]
fn loop_with_test_at_top_and_back_edge_only_use() {
    let ir = r#"
define double @pw(double %x, i32 %n) {
entry:
  br label %head
head:
  %r = phi double [ 1.0, %entry ], [ %r2, %body ]
  %i = phi i32 [ 0, %entry ], [ %i2, %body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %exit
body:
  %r2 = fmul double %r, %x
  %i2 = add i32 %i, 1
  br label %head
exit:
  ret double %r
}
"#;
    with_jit(&format!("{ir}{}", grad_and_tangent_xn("pw")), |ee| unsafe {
        let (g, t) = (fi(ee, "grad"), fi(ee, "tangent"));
        for n in [0, 1, 2, 7, 40] {
            let x = 1.05f64;
            let want = if n == 0 { 0.0 } else { n as f64 * x.powi(n - 1) };
            assert_close(g.call(x, n), want, 1e-13);
            assert_close(t.call(x, n), want, 1e-13);
        }
    });
}

/// Nested loops with a data-dependent inner trip count and an early exit.
#[test]
fn nested_loops_with_early_exit() {
    // s = sum_{i<n} sum_{j<=i} x^(i+1) * (j+1), stopping the outer loop once s > 1e6
    let ir = r#"
define double @f(double %x, i32 %n) {
entry:
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i2, %olatch ]
  %s = phi double [ 0.0, %entry ], [ %s3, %olatch ]
  %p = phi double [ 1.0, %entry ], [ %p2, %olatch ]
  %oc = icmp slt i32 %i, %n
  br i1 %oc, label %obody, label %done
obody:
  %p2 = fmul double %p, %x
  br label %inner
inner:
  %j = phi i32 [ 0, %obody ], [ %j2, %inner ]
  %si = phi double [ %s, %obody ], [ %s2, %inner ]
  %j1 = add i32 %j, 1
  %jf = sitofp i32 %j1 to double
  %t = fmul double %p2, %jf
  %s2 = fadd double %si, %t
  %j2 = add i32 %j, 1
  %ic = icmp sle i32 %j2, %i
  br i1 %ic, label %inner, label %olatch
olatch:
  %s3 = phi double [ %s2, %inner ]
  %big = fcmp ogt double %s3, 1.0e6
  %i2 = add i32 %i, 1
  br i1 %big, label %done, label %outer
done:
  %res = phi double [ %s, %outer ], [ %s3, %olatch ]
  ret double %res
}
"#;
    with_jit(&format!("{ir}{}", grad_and_tangent_xn("f")), |ee| unsafe {
        let (g, t) = (fi(ee, "grad"), fi(ee, "tangent"));
        let x = 1.2f64;
        for n in [0, 1, 3, 6] {
            // d/dx sum_i x^(i+1) * (i+1)(i+2)/2
            let want: f64 = (0..n).map(|i| (i + 1) as f64 * x.powi(i) * ((i + 1) * (i + 2)) as f64 / 2.0).sum();
            assert_close(g.call(x, n), want, 1e-12);
            assert_close(t.call(x, n), want, 1e-12);
        }
    });
}

/// Internal functions get `fastcc` from the optimiser; clones must be called
/// the same way, or the optimiser deletes the "undefined" calls and the
/// derivative silently becomes `unreachable`. Regression test.
#[test]
fn fastcc_recursive_callee_in_a_loop() {
    let ir = r#"
define internal fastcc double @pr(double %x, i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %one, label %rec
one:
  ret double 1.0
rec:
  %m = sub i32 %n, 1
  %r = call fastcc double @pr(double %x, i32 %m)
  %q = fmul double %x, %r
  ret double %q
}
define double @poly(double %x) {
entry:
  br label %head
head:
  %k = phi i32 [ 0, %entry ], [ %k2, %body ]
  %s = phi double [ 0.0, %entry ], [ %s2, %body ]
  %c = icmp slt i32 %k, 5
  br i1 %c, label %body, label %exit
body:
  %p = call fastcc double @pr(double %x, i32 %k)
  %s2 = fadd double %s, %p
  %k2 = add i32 %k, 1
  br label %head
exit:
  ret double %s
}
define double @grad(double %x) {
  %g = call double (ptr, ...) @__enzyme_autodiff(ptr @poly, double %x)
  ret double %g
}
define double @tangent(double %x) {
  %g = call double (ptr, ...) @__enzyme_fwddiff(ptr @poly, double %x, double 1.0)
  ret double %g
}
"#;
    with_jit(ir, |ee| unsafe {
        let x = 0.7f64;
        let want: f64 = (1..5).map(|k| k as f64 * x.powi(k - 1)).sum();
        assert_close(f1(ee, "grad").call(x), want, 1e-13);
        assert_close(f1(ee, "tangent").call(x), want, 1e-13);
    });
}

#[test]
fn no_marker_calls_leaves_module_valid() {
    with_jit("define double @id(double %x) {\n ret double %x\n}\n", |ee| unsafe {
        assert_close(f1(ee, "id").call(2.0), 2.0, 0.0);
    });
}

#[test]
fn vector_lanes_and_reductions() {
    // p = 2·x·x²·(x−1)·(x−3) (a product with a lane that is zero at x = 1,
    // where dividing the product by a lane would give NaN); m = max(x, x, 2, −x)
    // (a tie at x = 3: the derivative counts once); s = x + Σ lanes, through a
    // narrowing shuffle that reads one lane twice.
    let mut ir = r#"
declare double @llvm.vector.reduce.fmul.v4f64(double, <4 x double>)
declare double @llvm.vector.reduce.fmax.v4f64(<4 x double>)
declare double @llvm.vector.reduce.fadd.v2f64(double, <2 x double>)
define double @prod(double %x, i32 %n) {
  %a = insertelement <4 x double> poison, double %x, i64 0
  %x2 = fmul double %x, %x
  %b = insertelement <4 x double> %a, double %x2, i64 1
  %xm = fsub double %x, 1.0
  %c = insertelement <4 x double> %b, double %xm, i64 2
  %xs = fsub double %x, 3.0
  %d = insertelement <4 x double> %c, double %xs, i64 3
  %p = call double @llvm.vector.reduce.fmul.v4f64(double 2.0, <4 x double> %d)
  ret double %p
}
define double @max(double %x, i32 %n) {
  %a = insertelement <4 x double> poison, double %x, i64 0
  %s = shufflevector <4 x double> %a, <4 x double> <double poison, double poison, double 2.0, double poison>, <4 x i32> <i32 0, i32 0, i32 6, i32 poison>
  %nx = fneg double %x
  %v = insertelement <4 x double> %s, double %nx, i64 3
  %m = call double @llvm.vector.reduce.fmax.v4f64(<4 x double> %v)
  ret double %m
}
define double @sum(double %x, i32 %n) {
  %a = insertelement <4 x double> zeroinitializer, double %x, i64 1
  %sq = fmul double %x, %x
  %b = insertelement <4 x double> %a, double %sq, i64 3
  %w = fmul <4 x double> %b, <double 5.0, double 3.0, double 7.0, double 0.5>
  %narrow = shufflevector <4 x double> %w, <4 x double> poison, <2 x i32> <i32 3, i32 1>
  %twice = shufflevector <2 x double> %narrow, <2 x double> poison, <2 x i32> <i32 1, i32 1>
  %both = fadd <2 x double> %narrow, %twice
  %r = call double @llvm.vector.reduce.fadd.v2f64(double %x, <2 x double> %both)
  %lane = extractelement <2 x double> %both, i32 %n
  %out = fadd double %r, %lane
  ret double %out
}
"#
    .to_string();
    for f in ["prod", "max", "sum"] {
        ir += &grad_and_tangent_xn(f)
            .replace("@grad(", &format!("@grad_{f}("))
            .replace("@tangent(", &format!("@tangent_{f}("));
    }
    with_jit(&ir, |ee| unsafe {
        let call = |name: &str, x: f64, n: i32| fi(ee, name).call(x, n);
        // d/dx 2x³(x−1)(x−3) = 2(5x⁴ − 16x³ + 9x²)
        for x in [1.0f64, 0.5, 3.0, -1.25] {
            let want = 2.0 * (5.0 * x.powi(4) - 16.0 * x.powi(3) + 9.0 * x * x);
            assert_close(call("grad_prod", x, 0), want, 1e-12);
            assert_close(call("tangent_prod", x, 0), want, 1e-12);
        }
        for (x, want) in [(3.0, 1.0), (-3.0, -1.0), (1.0, 0.0), (2.5, 1.0)] {
            assert_close(call("grad_max", x, 0), want, 1e-15);
            assert_close(call("tangent_max", x, 0), want, 1e-15);
        }
        // s = x + (0.5x² + 3x) + 2·(3x) [lanes: narrow = (0.5x², 3x), twice = (3x, 3x)],
        // plus lane n of `both`: n = 0 → 0.5x² + 3x, n = 1 → 6x.
        for (x, n) in [(0.75, 0), (0.75, 1), (-2.0, 0), (-2.0, 1)] {
            let want = 1.0 + (x + 3.0) + 6.0 + if n == 0 { x + 3.0 } else { 6.0 };
            assert_close(call("grad_sum", x, n), want, 1e-12);
            assert_close(call("tangent_sum", x, n), want, 1e-12);
        }
    });
}

#[test]
fn float_aggregates_in_registers_and_memory() {
    // A pair carried by a loop phi, fields read and replaced, a nested struct
    // with an array and an integer field stored to and loaded from a stack
    // slot, a select of aggregates.
    let mut ir = r#"
%pair = type { double, double }
%rec = type { double, [2 x double], i32 }
declare double @llvm.sin.f64(double)
define double @agg(double %x, i32 %n) {
entry:
  %slot = alloca %rec
  %a = insertvalue %pair undef, double %x, 0
  %x2 = fmul double %x, %x
  %b = insertvalue %pair %a, double %x2, 1
  br label %loop
loop:
  %p = phi %pair [ %b, %entry ], [ %q, %loop ]
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %re = extractvalue %pair %p, 0
  %im = extractvalue %pair %p, 1
  %re2 = fmul double %re, %im
  %im2 = fadd double %re, %im
  %s = call double @llvm.sin.f64(double %im2)
  %q0 = insertvalue %pair %p, double %re2, 0
  %q = insertvalue %pair %q0, double %s, 1
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %fre = extractvalue %pair %q, 0
  %fim = extractvalue %pair %q, 1
  %r0 = insertvalue %rec { double 1.0, [2 x double] zeroinitializer, i32 7 }, double %fre, 1, 0
  %r1 = insertvalue %rec %r0, double %fim, 1, 1
  %r2 = insertvalue %rec %r1, i32 %n, 2
  store %rec %r2, ptr %slot
  %big = fcmp ogt double %fre, %fim
  %sw = insertvalue %pair undef, double %fim, 0
  %sw1 = insertvalue %pair %sw, double %fre, 1
  %pick = select i1 %big, %pair %q, %pair %sw1
  %back = load %rec, ptr %slot
  %arr = extractvalue %rec %back, 1
  %e0 = extractvalue [2 x double] %arr, 0
  %e1 = extractvalue %rec %back, 1, 1
  %k = extractvalue %rec %back, 2
  %kf = sitofp i32 %k to double
  %pk = extractvalue %pair %pick, 0
  %t0 = fmul double %e0, %e1
  %t1 = fmul double %pk, %kf
  %t = fadd double %t0, %t1
  ret double %t
}
"#
    .to_string();
    ir += &grad_and_tangent_xn("agg");
    with_jit(&ir, |ee| unsafe {
        let f = |x: f64, n: i32| fi(ee, "agg").call(x, n);
        for (x, n) in [(0.4, 1), (0.4, 3), (-0.6, 2), (0.9, 4)] {
            let h = 1e-6;
            let fd = (f(x + h, n) - f(x - h, n)) / (2.0 * h);
            let g = fi(ee, "grad").call(x, n);
            assert_close(g, fd, 1e-6);
            assert_close(fi(ee, "tangent").call(x, n), g, 1e-12);
        }
    });
}

#[test]
fn lane_swap_through_integer_vectors_beside_a_call() {
    // A vectorised `reverse` of four doubles: the front read as <2 x double>
    // and written with the back's bits as <2 x i64>, the back written with
    // the front as <2 x double>; the same memory is handed to a call (the
    // function's own recursion, as in a sort), so the function's other
    // accesses say nothing of what it holds: the places the integers are
    // loaded from and stored to are themselves read or written as doubles.
    // Three reversals: obj(a) = Σ (k + 1)·a[3 - k].
    let ir = r#"
define void @swap(ptr %a, i32 %d) {
entry:
  %more = icmp sgt i32 %d, 0
  br i1 %more, label %deeper, label %here
deeper:
  %d1 = sub i32 %d, 1
  call void @swap(ptr %a, i32 %d1)
  br label %here
here:
  %back = getelementptr i8, ptr %a, i64 16
  %f = load <2 x double>, ptr %a
  %b = load <2 x i64>, ptr %back
  %bs = shufflevector <2 x i64> %b, <2 x i64> poison, <2 x i32> <i32 1, i32 0>
  store <2 x i64> %bs, ptr %a
  %fs = shufflevector <2 x double> %f, <2 x double> poison, <2 x i32> <i32 1, i32 0>
  store <2 x double> %fs, ptr %back
  ret void
}
define double @obj(ptr %a) {
  call void @swap(ptr %a, i32 2)
  %v = load <4 x double>, ptr %a
  %w = fmul <4 x double> %v, <double 1.0, double 2.0, double 3.0, double 4.0>
  %e0 = extractelement <4 x double> %w, i64 0
  %e1 = extractelement <4 x double> %w, i64 1
  %e2 = extractelement <4 x double> %w, i64 2
  %e3 = extractelement <4 x double> %w, i64 3
  %s0 = fadd double %e0, %e1
  %s1 = fadd double %e2, %e3
  %s = fadd double %s0, %s1
  ret double %s
}
"#;
    let (a, da) = array_gradient(ir, &[0.5, -1.0, 2.0, 3.0]);
    for (got, want) in da.iter().zip([4.0, 3.0, 2.0, 1.0]) {
        assert_close(*got, want, 1e-15);
    }
    assert_eq!(a, [3.0, 2.0, -1.0, 0.5]);
}

#[test]
fn pointer_read_only_to_compare_needs_no_shadow() {
    // A pivot kept as `Option<&f64>` (null, or into the array being worked
    // on): chosen between the caller's and one of the array's, read only to
    // compare, passed on to the recursion. It may or may not point into
    // differentiated memory, and needs no shadow either way.
    // a = [a0, a1, a2] -> [a0·(a0 < a1 ? 3 : 2), 2·a1, a2]; obj = Σ a'[k]².
    let ir = r#"
define void @rec(ptr %a, ptr %pivot, i32 %d) {
entry:
  %p1 = getelementptr inbounds double, ptr %a, i64 1
  %isnull = icmp eq ptr %pivot, null
  %piv = select i1 %isnull, ptr %p1, ptr %pivot
  %pv = load double, ptr %piv
  %x = load double, ptr %a
  %lt = fcmp olt double %x, %pv
  %s = select i1 %lt, double 3.0, double 2.0
  %x2 = fmul double %x, %s
  store double %x2, ptr %a
  %more = icmp sgt i32 %d, 0
  br i1 %more, label %deeper, label %done
deeper:
  %d1 = sub i32 %d, 1
  call void @rec(ptr %p1, ptr %piv, i32 %d1)
  br label %done
done:
  ret void
}
define double @obj(ptr %a) {
  call void @rec(ptr %a, ptr null, i32 1)
  %q1 = getelementptr inbounds double, ptr %a, i64 1
  %q2 = getelementptr inbounds double, ptr %a, i64 2
  %x0 = load double, ptr %a
  %x1 = load double, ptr %q1
  %x2 = load double, ptr %q2
  %s0 = fmul double %x0, %x0
  %s1 = fmul double %x1, %x1
  %s2 = fmul double %x2, %x2
  %t = fadd double %s0, %s1
  %s = fadd double %t, %s2
  ret double %s
}
"#;
    let (a, da) = array_gradient(ir, &[0.5, 1.0, 2.0]);
    for (got, want) in da.iter().zip([9.0, 8.0, 4.0]) {
        assert_close(*got, want, 1e-15);
    }
    assert_eq!(a, [1.5, 2.0, 2.0]);
}

/// The reverse-mode gradient of `@obj(ptr %a)` (defined in `ir`) at `a`,
/// with `a` as the call left it.
fn array_gradient(ir: &str, a: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let ir = format!(
        "{ir}
define void @grad(ptr %a, ptr %da) {{
  call double (ptr, ...) @__enzyme_autodiff(ptr @obj, ptr @enzyme_dup, ptr %a, ptr %da)
  ret void
}}"
    );
    with_jit(&ir, |ee| unsafe {
        type G = unsafe extern "C" fn(*mut f64, *mut f64);
        let grad = ee.get_function::<G>("grad").unwrap();
        let mut a = a.to_vec();
        let mut da = vec![0.0; a.len()];
        grad.call(a.as_mut_ptr(), da.as_mut_ptr());
        (a, da)
    })
}

#[test]
fn float_bits_only_compared_as_total_cmp_does() {
    // Two doubles ordered by their bits, as `f64::total_cmp` does (the
    // optimiser loads them as integers for that, and turns them back into
    // doubles to move them): the bits carry no derivative, the moves do.
    // a = [2, -1] -> [-1, 2]; obj = a'[0] + 3·a'[1].
    let ir = r#"
define void @sort2(ptr %a) {
  %p1 = getelementptr inbounds i8, ptr %a, i64 8
  %x = load i64, ptr %a
  %y = load i64, ptr %p1
  %xs = ashr i64 %x, 63
  %xm = lshr i64 %xs, 1
  %xk = xor i64 %xm, %x
  %ys = ashr i64 %y, 63
  %ym = lshr i64 %ys, 1
  %yk = xor i64 %ym, %y
  %lt = icmp slt i64 %yk, %xk
  %xd = bitcast i64 %x to double
  %yd = bitcast i64 %y to double
  %lo = select i1 %lt, double %yd, double %xd
  %hi = select i1 %lt, double %xd, double %yd
  store double %lo, ptr %a
  store double %hi, ptr %p1
  ret void
}
define double @obj(ptr %a) {
  call void @sort2(ptr %a)
  %p1 = getelementptr inbounds i8, ptr %a, i64 8
  %x0 = load double, ptr %a
  %x1 = load double, ptr %p1
  %w = fmul double %x1, 3.0
  %s = fadd double %x0, %w
  ret double %s
}
"#;
    let (a, da) = array_gradient(ir, &[2.0, -1.0]);
    assert_eq!(a, [-1.0, 2.0]);
    assert_close(da[0], 3.0, 1e-15);
    assert_close(da[1], 1.0, 1e-15);
    let (_, da) = array_gradient(ir, &[-1.0, 2.0]);
    assert_close(da[0], 1.0, 1e-15);
    assert_close(da[1], 3.0, 1e-15);
}
