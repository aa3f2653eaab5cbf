//! The engine through LLVM's JIT, control flow: straight-line code, branches,
//! phis and selects, switches and several returns, calls with several active
//! arguments, recursion, float widths, and loops as the optimiser and `-O0`
//! leave them. Numbers against analytic derivatives and central differences.

mod common;
use common::*;

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

/// A product computed on every path but kept only where its operand is
/// defined (how the optimiser leaves `if let Some(old) = map.insert(k, v) {
/// total += old * x }`: the `None` payload is `undef`, the product is
/// speculated and a `select` drops it). Where it is dropped its seed is zero,
/// and zero times the undefined operand (any bits: a NaN) must stay zero: the
/// reverse sweep guards that product, and only that one.
#[test]
fn speculated_product_of_an_undefined_operand_is_guarded() {
    let ir = r#"
@table = internal constant [4 x double] [double 0.0, double 1.0, double 2.0, double 3.0]
@seen = internal global i32 0
define double @f(double %x, i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %some, label %join
some:
  %at = getelementptr double, ptr @table, i32 %n
  %v = load double, ptr %at
  %big = fcmp ogt double %v, 1.5
  br i1 %big, label %a, label %b
a:
  store volatile i32 1, ptr @seen
  br label %join
b:
  store volatile i32 2, ptr @seen
  br label %join
join:
  %pay = phi double [ undef, %entry ], [ %v, %a ], [ %v, %b ]
  %m = fmul double %pay, %x
  %t = fadd double %m, %x
  %sq = fmul double %x, %x
  %keep = icmp sgt i32 %n, 1
  %s = select i1 %keep, double %t, double %sq
  ret double %s
}
"#;
    let src = format!("{ir}\n{}", grad_and_tangent_xn("f"));
    with_jit(&src, |ee| unsafe {
        // n > 1: table[n]·x + x; otherwise x² (the product computed too
        // for n = 1, and from an undefined operand for n < 1).
        for (n, want) in [(3, 4.0), (2, 3.0), (1, 3.0), (-2, 3.0)] {
            assert_close(fi(ee, "grad").call(1.5, n), want, 1e-15);
            assert_close(fi(ee, "tangent").call(1.5, n), want, 1e-15);
        }
    });
    // The guard: a comparison of the seed with zero beside the product with
    // the undefined operand, none beside `x * x`.
    let ctx = inkwell::context::Context::create();
    let text = format!("{DECLS}\n{src}");
    let buf = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "t.ll");
    let module = ctx.create_module_from_ir(buf).expect("parses");
    ad::differentiate(&module).expect("differentiates");
    use inkwell::values::AnyValue;
    let grad = module
        .get_functions()
        .find(|f| f.get_name().to_string_lossy().starts_with("diffe_f"))
        .expect("a reverse derivative of @f")
        .print_to_string()
        .to_string();
    assert_eq!(grad.matches("fcmp oeq double").count(), 1, "{grad}");
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
