//! What the engine's JIT tests share: the marker declarations, a JIT over a
//! differentiated module, typed lookups of its functions, and tolerances.
#![allow(dead_code)] // Each test file uses some of these.

use inkwell::context::Context;
use inkwell::execution_engine::JitFunction;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::targets::{InitializationConfig, Target};
use inkwell::OptimizationLevel;

pub type F1 = unsafe extern "C" fn(f64) -> f64;
pub type F2 = unsafe extern "C" fn(f64, f64) -> f64;

pub const DECLS: &str = r#"
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
pub fn with_jit<R>(ir: &str, run: impl FnOnce(&inkwell::execution_engine::ExecutionEngine) -> R) -> R {
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

pub fn f1<'a>(ee: &'a inkwell::execution_engine::ExecutionEngine, name: &str) -> JitFunction<'a, F1> {
    unsafe { ee.get_function::<F1>(name).unwrap() }
}

pub fn f2<'a>(ee: &'a inkwell::execution_engine::ExecutionEngine, name: &str) -> JitFunction<'a, F2> {
    unsafe { ee.get_function::<F2>(name).unwrap() }
}

pub type FI = unsafe extern "C" fn(f64, i32) -> f64;

pub fn fi<'a>(ee: &'a inkwell::execution_engine::ExecutionEngine, name: &str) -> JitFunction<'a, FI> {
    unsafe { ee.get_function::<FI>(name).unwrap() }
}

/// `@grad` (reverse) and `@tangent` (forward, seed 1) of `@f(double %x, i32 %n)`,
/// differentiated with respect to `%x`.
pub fn grad_and_tangent_xn(f: &str) -> String {
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

pub fn diagnostics(ir: &str) -> Vec<ad::Diagnostic> {
    let ctx = Context::create();
    let src = format!("{DECLS}\n{ir}");
    let buf = MemoryBuffer::create_from_memory_range_copy(src.as_bytes(), "test.ll");
    let module = ctx.create_module_from_ir(buf).unwrap();
    ad::differentiate(&module).expect_err("differentiation should fail")
}

pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

#[track_caller]
pub fn assert_close(got: f64, want: f64, tol: f64) {
    assert!(close(got, want, tol), "got {got}, want {want} (tolerance {tol})");
}
