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

use crate::build::emit::{Emitter, EMPTY};
use crate::calls::classify::{self, Kind};
use crate::ir::diag::Diagnostic;
use crate::ir::names::display_name;
use crate::ir::{self, Value};
use crate::surface::markers::{self, MarkerCall};

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
    // Enzyme calls the first two, when the program has them, for each
    // operation (see [`log_operation`]); the others are not called here.
    for (log, signature) in LOGGERS {
        if crate::build::runtime::existing(module, log).is_some() && logger(module, log).is_none() {
            diags.push(at(format!("`{log}` has another type than the one Enzyme calls it with")).with_help(signature));
        }
    }
    for log in ["enzymeLogGrad", "enzymeLogInfo"] {
        if crate::build::runtime::existing(module, log).is_some_and(|f| !ir::is_declaration(f)) {
            diags.push(
                at(format!(
                    "the program defines `{log}`, an Enzyme log that error estimates do not call: not supported, it \
                     would never be called"
                ))
                .with_help("remove it; `enzymeLogError` and `enzymeLogValue` are called for each operation"),
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

/// The per-operation loggers of an error estimate, with the declaration
/// each must have.
const LOGGERS: [(&str, &str); 2] = [
    ("enzymeLogError", "declare it `void enzymeLogError(const char *id, double err)`"),
    ("enzymeLogValue", "declare it `void enzymeLogValue(const char *id, double res, unsigned n, double *operands)`"),
];

/// The program's logger `name` when it has the type Enzyme calls it with
/// (see [`LOGGERS`]).
fn logger(module: llvm_sys::prelude::LLVMModuleRef, name: &str) -> Option<Value> {
    let f = crate::build::runtime::existing(module, name)?;
    unsafe {
        let t = ir::function_type(f);
        let n = LLVMCountParamTypes(t) as usize;
        let mut params = vec![std::ptr::null_mut(); n];
        LLVMGetParamTypes(t, params.as_mut_ptr());
        let double = |t: ir::Type| ir::kind(t) == llvm_sys::LLVMTypeKind::LLVMDoubleTypeKind;
        let fits = match name {
            "enzymeLogError" => n == 2 && ir::is_pointer(params[0]) && double(params[1]),
            _ => {
                n == 4
                    && ir::is_pointer(params[0])
                    && double(params[1])
                    && ir::is_int(params[2])
                    && ir::int_width(params[2]) == 32
                    && ir::is_pointer(params[3])
            }
        };
        (fits && LLVMIsFunctionVarArg(t) == 0).then_some(f)
    }
}

/// Enzyme's per-operation log, when the program has it: after scalar
/// operation `i` (whose result is `result` and error `err`, operands
/// `operands`), `enzymeLogValue(id, result, n, operands)` and
/// `enzymeLogError(id, err)`. Only for operations whose error reaches the
/// function's result or memory with a shadow, as Enzyme logs only active
/// ones. `id` names the function and the operation. Operations on vectors
/// are not logged (some of their lanes may hold nothing, and Enzyme's
/// logger takes one double).
pub(crate) fn log_operation(
    e: &Emitter,
    module: llvm_sys::prelude::LLVMModuleRef,
    facts: &crate::analysis::memory::Memory,
    i: Value,
    result: Value,
    err: Value,
    operands: &[Value],
) {
    let (error_log, value_log) = (logger(module, "enzymeLogError"), logger(module, "enzymeLogValue"));
    if (error_log.is_none() && value_log.is_none())
        || ir::vector_lanes(ir::type_of(result)).is_some()
        || !reaches_result(i, facts)
    {
        return;
    }
    let id = ir::cstring(&identifier(i));
    unsafe {
        let double = LLVMDoubleTypeInContext(e.ctx);
        let i32t = LLVMInt32TypeInContext(e.ctx);
        let id = LLVMBuildGlobalString(e.b, id.as_ptr(), c"enzyme_rs.log_id".as_ptr());
        if let Some(f) = value_log {
            let floats: Vec<Value> = operands.iter().filter(|o| ir::is_real(ir::type_of(**o))).copied().collect();
            let ptr = LLVMPointerTypeInContext(e.ctx, 0);
            let saved = e.intrinsic("llvm.stacksave", &[ptr], &mut []);
            let n = LLVMConstInt(i32t, floats.len() as u64, 0);
            let buf = LLVMBuildArrayAlloca(e.b, double, n, EMPTY);
            for (j, o) in floats.iter().enumerate() {
                let mut idx = [LLVMConstInt(i32t, j as u64, 0)];
                let at = LLVMBuildGEP2(e.b, double, buf, idx.as_mut_ptr(), 1, EMPTY);
                LLVMBuildStore(e.b, e.convert_float(*o, double), at);
            }
            e.call(f, &mut [id, e.convert_float(result, double), n, buf]);
            e.intrinsic("llvm.stackrestore", &[ptr], &mut [saved]);
        }
        if let Some(f) = error_log {
            e.call(f, &mut [id, e.convert_float(err, double)]);
        }
    }
}

/// `function:operation:index`, the index counting the function's
/// instructions.
pub(crate) fn identifier(i: Value) -> String {
    let f = ir::parent_function(i);
    let index = ir::blocks(f).into_iter().flat_map(ir::instructions).position(|x| x == i).unwrap_or(0);
    let what = match ir::called_function(i) {
        Some(c) => display_name(&ir::name(c)),
        None => match ir::opcode(i) {
            llvm_sys::LLVMOpcode::LLVMFAdd => "fadd".to_string(),
            llvm_sys::LLVMOpcode::LLVMFSub => "fsub".to_string(),
            llvm_sys::LLVMOpcode::LLVMFMul => "fmul".to_string(),
            llvm_sys::LLVMOpcode::LLVMFDiv => "fdiv".to_string(),
            llvm_sys::LLVMOpcode::LLVMFRem => "frem".to_string(),
            llvm_sys::LLVMOpcode::LLVMFNeg => "fneg".to_string(),
            _ => "operation".to_string(),
        },
    };
    let fname = ir::name(f);
    let fname = fname.strip_suffix(".enzyme.prep").unwrap_or(&fname);
    format!("{}:{what}:{index}", display_name(fname))
}

/// Whether the value of float operation `i` reaches, through float
/// arithmetic, choices and lanes, the function's result, memory with a
/// shadow or a call that may carry derivatives (not a library call such as
/// `printf`, which only shows it).
fn reaches_result(i: Value, facts: &crate::analysis::memory::Memory) -> bool {
    let mut work = vec![i];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in ir::users(v) {
            match classify::classify(u) {
                Kind::Rule(_)
                | Kind::FloatCast
                | Kind::Identity
                | Kind::Select
                | Kind::Phi
                | Kind::Lanes
                | Kind::Reduce(_) => work.push(u),
                Kind::Inactive | Kind::LibCall => {}
                Kind::Store | Kind::AtomicAdd => {
                    let pointers = (0..ir::operand_count(u)).map(|k| ir::operand(u, k)).filter(|p| *p != v);
                    if pointers
                        .filter(|p| ir::is_pointer(ir::type_of(*p)))
                        .any(|p| facts.status(p) == crate::analysis::memory::PtrStatus::Shadowed)
                    {
                        return true;
                    }
                }
                _ => return true,
            }
        }
    }
    false
}
