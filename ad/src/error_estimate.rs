//! `__enzyme_error_estimate(f, x, dx, ...)`: forward mode whose tangents are
//! estimates of floating-point error, called as `__enzyme_fwddiff` is.
//!
//! Enzyme's model, which this follows so that programs written for it get
//! the same numbers: each float value `r` carries an error `e(r)`; an
//! argument's is the value given after it. An operation `r = op(a, b, ...)`
//! propagates each operand's error scaled by that operand's condition number
//! and adds them, `Σ |e(a) · a · ∂r/∂a / r|`, and its own rounding is at
//! least `|r - r'|`, where `r'` is `r` with the last bit of its significand
//! flipped (one unit in the last place): `e(r) = max(|r - r'|, Σ ...)`.
//! Moving a value (loads, stores, phis, selects, lanes) moves its error.
//! The call returns the error of the result.

use llvm_sys::core::*;

use crate::classify::{self, Kind};
use crate::diag::Diagnostic;
use crate::emit::{Emitter, EMPTY};
use crate::ir::{self, Value};
use crate::markers::{self, MarkerCall};
use crate::names::display_name;

/// The error an operand contributes to `result`, given `scaled`, its
/// error times its value times the partial derivative (the tangent rule
/// applied to `e(a) · a`).
pub(crate) fn operand_term(e: &Emitter, scaled: Value, result: Value) -> Value {
    let relative = unsafe { LLVMBuildFDiv(e.b, scaled, result, EMPTY) };
    fabs(e, relative)
}

/// `e(r) = max(|r - r'|, propagated)`: the propagated errors, or one unit
/// in the last place of `result` where that is larger.
pub(crate) fn with_rounding(e: &Emitter, result: Value, propagated: Value) -> Value {
    let t = ir::type_of(result);
    let bits = ir::float_rank(t);
    unsafe {
        let int = LLVMIntTypeInContext(e.ctx, bits);
        let (int_t, one) = match ir::vector_lanes(t) {
            Some(n) => {
                let mut ones = vec![LLVMConstInt(int, 1, 0); n as usize];
                (LLVMVectorType(int, n), LLVMConstVector(ones.as_mut_ptr(), n))
            }
            None => (int, LLVMConstInt(int, 1, 0)),
        };
        let as_int = LLVMBuildBitCast(e.b, result, int_t, EMPTY);
        let flipped = LLVMBuildBitCast(e.b, LLVMBuildXor(e.b, as_int, one, EMPTY), t, EMPTY);
        let ulp = fabs(e, LLVMBuildFSub(e.b, result, flipped, EMPTY));
        e.intrinsic("llvm.maxnum", &[t], &mut [ulp, propagated])
    }
}

fn fabs(e: &Emitter, v: Value) -> Value {
    e.intrinsic("llvm.fabs", &[ir::type_of(v)], &mut [v])
}

/// What error estimation cannot do yet, in the functions an estimate
/// reaches: each a message at the request.
pub(crate) fn limits(
    module: llvm_sys::prelude::LLVMModuleRef,
    plan: &MarkerCall,
    functions: &[Value],
) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let fname = display_name(&ir::name(plan.function));
    let at = |message: String| markers::at_call(plan.call, message);
    if plan.width > 1 {
        diags.push(
            at("`__enzyme_error_estimate` with `enzyme_width`: vector error estimation is not supported".into())
                .with_help("estimate one input's error per call"),
        );
    }
    // Enzyme calls these, when the program defines them, for each
    // operation's error; a program defining one expects the calls.
    for log in ["enzymeLogError", "enzymeLogValue", "enzymeLogGrad", "enzymeLogInfo"] {
        if crate::runtime::existing(module, log).is_some_and(|f| !ir::is_declaration(f)) {
            diags.push(
                at(format!(
                    "the program defines `{log}`, Enzyme's per-operation error log: not supported, it would never be \
                     called"
                ))
                .with_help("remove it: `__enzyme_error_estimate` returns the error of the result"),
            );
        }
    }
    for i in functions.iter().flat_map(|f| ir::blocks(*f)).flat_map(ir::instructions) {
        let what = match classify::classify(i) {
            Kind::Custom(callee) => {
                format!("calls `{}`, which has a custom derivative", display_name(&ir::name(callee)))
            }
            Kind::Reduce(_) => "has a vector reduction".to_string(),
            _ => continue,
        };
        diags.push(
            at(format!("`{fname}` {what}: not supported by `__enzyme_error_estimate`"))
                .with_help("a custom rule gives a derivative, not an error; estimate the error of code without one"),
        );
    }
    diags
}
