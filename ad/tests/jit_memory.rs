//! The engine through LLVM's JIT, values in memory and in vectors: vector
//! lanes and reductions, float aggregates in registers and memory, lanes
//! moved through integer vectors, pointers only read to compare, and floats'
//! bits only compared as `total_cmp` does.

mod common;
use common::*;

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
