//! The engine's refusals: constructs it cannot differentiate correctly are
//! diagnosed (what, where, a hint), never differentiated wrongly.

mod common;
use common::*;

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
