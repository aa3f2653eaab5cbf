//! Small in-place edits of instructions that preparation, the emitter and
//! the sum-loop outliner share.

use std::collections::HashMap;

use llvm_sys::core::*;

use crate::ir::{self, Value};

/// Metadata kind marking calls that were `invoke`s in the user's code.
pub(crate) const WAS_INVOKE: &str = "enzyme_rs.was_invoke";

/// Marks a call or invoke `nounwind` and tags it (see `prep::drop_unwind_edges`).
pub(crate) fn mark_unwinding_call(t: Value) {
    let kind = ir::attr_kind("nounwind");
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(t));
        LLVMAddCallSiteAttribute(t, llvm_sys::LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, kind, 0));
    }
    ir::set_flag(t, WAS_INVOKE);
}

/// Replaces every operand of `i` found in `map`.
pub(crate) fn remap_operands(i: Value, map: &HashMap<Value, Value>) {
    for k in 0..ir::operand_count(i) {
        let op = ir::operand(i, k);
        if let Some(n) = map.get(&op) {
            unsafe { LLVMSetOperand(i, k, *n) };
        }
    }
}
