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

/// What a walk over a pointer's uses ([`reads_only`]) accepts, besides
/// address arithmetic, phis, selects and pointer comparisons.
pub(crate) struct Reads<'a> {
    /// Whether a load through the pointer is harmless.
    pub load: &'a dyn Fn(Value) -> bool,
    /// Whether the pointer may be turned into an integer or returned (the
    /// caller's uses of a returned pointer are not followed).
    pub leaves: bool,
    /// Whether it may be passed to other functions with bodies that read
    /// through it the same way (else only to a recursive call).
    pub other_callees: bool,
}

/// Whether the uses of pointer `p`, inside function `f`, only read through
/// it as `reads` says: through address arithmetic, phis and selects, and
/// into the parameters of calls (`visiting`: the parameters assumed so while
/// their bodies are read, for recursion).
pub(crate) fn reads_only(p: Value, f: Value, reads: &Reads<'_>, visiting: &mut HashSet<(Value, u32)>) -> bool {
    let mut seen: HashSet<Value> = HashSet::new();
    let mut work = vec![p];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in ir::users(v) {
            let fine = match ir::opcode(u) {
                LLVMOpcode::LLVMGetElementPtr if ir::operand(u, 0) == v => {
                    work.push(u);
                    true
                }
                LLVMOpcode::LLVMPHI => {
                    work.push(u);
                    true
                }
                LLVMOpcode::LLVMSelect if ir::operand(u, 0) != v => {
                    work.push(u);
                    true
                }
                LLVMOpcode::LLVMICmp => true,
                LLVMOpcode::LLVMLoad => (reads.load)(u),
                LLVMOpcode::LLVMPtrToInt | LLVMOpcode::LLVMRet => reads.leaves,
                LLVMOpcode::LLVMCall => {
                    let n = ir::call_arg_count(u);
                    let Some(c) = ir::called_function(u).filter(|_| ir::operand(u, n) != v) else { return false };
                    let name = ir::name(c);
                    for k in (0..n).filter(|k| ir::operand(u, *k) == v) {
                        let fine = if c == f {
                            // Recursion: the parameter's own uses join this walk.
                            work.push(unsafe { LLVMGetParam(f, k) });
                            true
                        } else if !reads.other_callees {
                            false
                        } else if name.starts_with("llvm.") {
                            // Intrinsics that do not write through it.
                            name.starts_with("llvm.lifetime.") || name.starts_with("llvm.assume")
                        } else {
                            param_read_only(c, k, reads, visiting)
                        };
                        if !fine {
                            return false;
                        }
                    }
                    true
                }
                _ => false,
            };
            if !fine {
                return false;
            }
        }
    }
    true
}

/// Whether function `f`'s body only reads through its parameter `k`, as
/// `reads` says (assumed while it is being read: recursion).
pub(crate) fn param_read_only(f: Value, k: u32, reads: &Reads<'_>, visiting: &mut HashSet<(Value, u32)>) -> bool {
    if unsafe { LLVMCountBasicBlocks(f) } == 0 {
        return false;
    }
    !visiting.insert((f, k)) || reads_only(unsafe { LLVMGetParam(f, k) }, f, reads, visiting)
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
    let load = |u: Value| {
        let t = ir::type_of(u);
        let plain = unsafe { LLVMGetVolatile(u) } == 0 && !ir::is_atomic(u);
        plain && (ir::is_int(t) || (ir::is_float(t) && only_compared(u)))
    };
    let reads = Reads { load: &load, leaves: false, other_callees: false };
    reads_only(p, ir::parent_function(p), &reads, &mut HashSet::new())
}

/// Whether integer `v` (a float's bits: `f64::to_bits`, `total_cmp`) is
/// only inspected: through shifts, bitwise and additive operations and
/// width changes it reaches nothing but integer comparisons. Such bits
/// carry no derivative, as a float that is only compared carries none.
pub(crate) fn only_inspected(v: Value) -> bool {
    let mut seen: HashSet<Value> = HashSet::new();
    let mut work = vec![v];
    while let Some(x) = work.pop() {
        if !seen.insert(x) {
            continue;
        }
        let users = ir::users(x);
        if users.is_empty() && x == v {
            return false;
        }
        for u in users {
            use LLVMOpcode::*;
            match ir::opcode(u) {
                LLVMICmp => {}
                LLVMLShr | LLVMAShr | LLVMShl | LLVMXor | LLVMAnd | LLVMOr | LLVMAdd | LLVMSub | LLVMTrunc
                | LLVMZExt | LLVMSExt
                    if ir::is_int(ir::type_of(u)) =>
                {
                    work.push(u)
                }
                _ => return false,
            }
        }
    }
    true
}
