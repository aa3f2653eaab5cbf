//! Reads of globals registered inactive (`__enzyme_inactive_global`, the
//! `enzyme_inactive` attribute on a variable) carry no derivative, whatever
//! the optimiser later makes of them.
//!
//! Marking the global is not enough: the pre-AD pipeline forwards a value
//! stored into the global to the loads after it (`g = x * x; return g * x;`
//! becomes `x * x * x`), and the derivative would flow through the stored
//! value as if the global were not there. So before any optimisation each
//! float load through the global's address is followed by a call of a
//! stop-gradient helper (`__enzyme_ignore_derivatives.<type>`, memory-free,
//! so it blocks no optimisation), which the engine takes as inactive and
//! which becomes its argument again once derivatives are made
//! ([`crate::surface::registry::finish`]).

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

use crate::ir::{self, Value};

/// Name prefix of the typed stop-gradient helpers made here.
const HELPER_PREFIX: &str = "__enzyme_ignore_derivatives.";

/// Whether `name` is one of the typed stop-gradient helpers made here.
pub(crate) fn is_helper(name: &str) -> bool {
    name.starts_with(HELPER_PREFIX)
}

/// Cuts the derivative of every float read through the address of `g`
/// (directly, or through constant and instruction address arithmetic and
/// casts). Idempotent: a load already cut is left alone.
pub(crate) fn cut(module: LLVMModuleRef, g: Value) {
    let mut work = vec![g];
    let mut seen = std::collections::HashSet::new();
    while let Some(p) = work.pop() {
        if !seen.insert(p) {
            continue;
        }
        for u in ir::users(p) {
            if !ir::is_instruction(u) {
                // Constant address arithmetic over the global.
                if unsafe { !LLVMIsAConstantExpr(u).is_null() } {
                    work.push(u);
                }
                continue;
            }
            match ir::opcode(u) {
                LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast
                    if ir::operand(u, 0) == p =>
                {
                    work.push(u)
                }
                LLVMOpcode::LLVMLoad if carries_float(ir::type_of(u)) => cut_load(module, u),
                _ => {}
            }
        }
    }
}

fn carries_float(t: ir::Type) -> bool {
    ir::is_real(t) || ir::is_float_aggregate(t)
}

/// `v = load p` becomes `v' = helper(load p)`, every use of `v` taking `v'`.
fn cut_load(module: LLVMModuleRef, load: Value) {
    let users = ir::users(load);
    let already = users.len() == 1
        && ir::opcode(users[0]) == LLVMOpcode::LLVMCall
        && ir::called_function(users[0]).is_some_and(|f| is_helper(&ir::name(f)));
    if already || users.is_empty() {
        return;
    }
    unsafe {
        let t = ir::type_of(load);
        let helper = helper_for(module, t);
        let ctx = LLVMGetTypeContext(t);
        let b = LLVMCreateBuilderInContext(ctx);
        let next = LLVMGetNextInstruction(load);
        LLVMPositionBuilderBefore(b, next);
        let mut args = [load];
        let call = LLVMBuildCall2(b, LLVMGlobalGetValueType(helper), helper, args.as_mut_ptr(), 1, c"".as_ptr());
        LLVMDisposeBuilder(b);
        LLVMReplaceAllUsesWith(load, call);
        // The call's own operand was replaced too: give it the load back.
        LLVMSetOperand(call, 0, load);
    }
}

/// The helper `T helper(T)` for type `t`: no memory, no side effects, so it
/// blocks no optimisation; only its result is opaque.
fn helper_for(module: LLVMModuleRef, t: ir::Type) -> Value {
    let name = format!("{HELPER_PREFIX}{}", type_tag(t));
    let cname = ir::cstring(&name);
    unsafe {
        let existing = LLVMGetNamedFunction(module, cname.as_ptr());
        if !existing.is_null() {
            return existing;
        }
        let mut params = [t];
        let ft = LLVMFunctionType(t, params.as_mut_ptr(), 1, 0);
        let f = LLVMAddFunction(module, cname.as_ptr(), ft);
        for attr in ["nounwind", "willreturn", "nosync", "nofree"] {
            ir::add_function_attr(f, attr);
        }
        // memory(none): the effects attribute's value 0.
        let ctx = LLVMGetTypeContext(t);
        let memory = LLVMCreateEnumAttribute(ctx, ir::attr_kind("memory"), 0);
        LLVMAddAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, memory);
        f
    }
}

/// A name for a type usable in a symbol (`double`, `v4f32`, `sl_double_double`).
fn type_tag(t: ir::Type) -> String {
    ir::print_type(t).chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}
