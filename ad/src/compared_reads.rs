//! Pointers that only read values to compare them (a sort's pivot kept as
//! `Option<&T>`, null or into the slice being sorted). No derivative flows
//! through such a pointer, so it needs no shadow, whether it points into
//! differentiated memory or not: the memory analysis gives it none rather
//! than refusing it as a pointer that may or may not have one.

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;
use std::collections::HashSet;

use crate::ir::{self, Value};

/// Whether float `v` is only compared (or converted to an integer): it
/// carries no derivative anywhere.
pub(crate) fn only_compared(v: Value) -> bool {
    let users = ir::users(v);
    !users.is_empty()
        && users
            .iter()
            .all(|u| matches!(ir::opcode(*u), LLVMOpcode::LLVMFCmp | LLVMOpcode::LLVMFPToSI | LLVMOpcode::LLVMFPToUI))
}

/// Whether pointer `p` (an instruction) is only used to read values that
/// carry no derivative: through address arithmetic, phis and selects, it is
/// compared as a pointer, loaded from (integers, or floats only compared),
/// or passed on to a recursive call of its function in a parameter used the
/// same way.
pub(crate) fn reads_only_compared(p: Value) -> bool {
    if !ir::is_instruction(p) {
        return false;
    }
    let f = ir::parent_function(p);
    let mut seen: HashSet<Value> = HashSet::new();
    let mut work = vec![p];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in ir::users(v) {
            match ir::opcode(u) {
                LLVMOpcode::LLVMGetElementPtr if ir::operand(u, 0) == v => work.push(u),
                LLVMOpcode::LLVMPHI => work.push(u),
                LLVMOpcode::LLVMSelect if ir::operand(u, 0) != v => work.push(u),
                LLVMOpcode::LLVMICmp => {}
                LLVMOpcode::LLVMLoad if unsafe { LLVMGetVolatile(u) } == 0 && !ir::is_atomic(u) => {
                    let t = ir::type_of(u);
                    let fine = ir::is_int(t) || (ir::is_float(t) && only_compared(u));
                    if !fine {
                        return false;
                    }
                }
                LLVMOpcode::LLVMCall if ir::called_function(u) == Some(f) => {
                    let n = ir::call_arg_count(u);
                    if ir::operand(u, n) == v {
                        return false;
                    }
                    for k in 0..n {
                        if ir::operand(u, k) == v {
                            work.push(unsafe { LLVMGetParam(f, k) });
                        }
                    }
                }
                _ => return false,
            }
        }
    }
    true
}
