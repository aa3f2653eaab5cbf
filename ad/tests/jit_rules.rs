//! The engine through LLVM's JIT, the derivative rules: every entry of the
//! table in both modes against central differences, and `powi` and the
//! `float` variants of libm.

mod common;
use common::*;

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
