//! Stack slots that only calls without a derivative write (a function
//! registered inactive returning a Rust `Vec` through its `sret` slot, a
//! library call filling a struct): what such a call writes carries no
//! derivative, and the pointers it writes point to memory that has no
//! shadow (a buffer the call allocated). So such a slot is constant memory
//! for `memory`: floats read from it do not vary, and pointers read from it
//! are constant too, so nothing is read or accumulated through a shadow the
//! call never made (before, the reverse sweep wrote adjoints through the
//! null shadow of the `Vec`'s buffer).

use llvm_sys::LLVMOpcode;

use crate::calls::classify::{classify, Kind};
use crate::ir::{self, Value};

/// Whether every use of stack slot `a` (through address arithmetic and
/// casts) reads it, marks its lifetime, or hands it to a direct call of a
/// function without a derivative (registered inactive, or a library call
/// that runs as it is), and at least one such call does.
pub(crate) fn written_only_by_inactive_calls(a: Value) -> bool {
    let mut written = false;
    let fits = every_use(a, &mut |u, p| match ir::opcode(u) {
        LLVMOpcode::LLVMLoad => !ir::is_atomic(u),
        LLVMOpcode::LLVMCall if ir::is_lifetime_marker(u) => true,
        LLVMOpcode::LLVMCall if matches!(classify(u), Kind::Inactive | Kind::LibCall) => {
            // Handed over as an argument, not as the callee.
            written = true;
            ir::operand(u, ir::operand_count(u) - 1) != p
        }
        _ => false,
    });
    fits && written
}

/// Whether every use of `base`, and of the addresses computed from it
/// (address arithmetic and casts), is one `fits` accepts (given the use and
/// the address it uses).
fn every_use(base: Value, fits: &mut dyn FnMut(Value, Value) -> bool) -> bool {
    let mut work = vec![base];
    let mut seen = std::collections::HashSet::new();
    while let Some(p) = work.pop() {
        if !seen.insert(p) {
            continue;
        }
        for u in ir::users(p) {
            let arithmetic = matches!(
                ir::opcode(u),
                LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast
            ) && ir::operand(u, 0) == p;
            if arithmetic {
                work.push(u);
            } else if !fits(u, p) {
                return false;
            }
        }
    }
    true
}

/// Whether call `call` (of a function without a derivative) may write
/// through its argument `k`: not when the parameter is `readonly` or
/// `readnone` (at the call or on the callee), nor when the callee's body
/// only reads through it (an unoptimised build leaves it unmarked, and keeps
/// it in a stack slot of its own first).
pub(crate) fn may_write_through(call: Value, k: u32) -> bool {
    let Some(callee) = ir::called_function(call) else { return true };
    let marked = |f: Value, at_call: bool| {
        ["readonly", "readnone"].iter().any(|a| unsafe {
            let kind = ir::attr_kind(a);
            let index = k + 1;
            let found = if at_call {
                llvm_sys::core::LLVMGetCallSiteEnumAttribute(f, index, kind)
            } else {
                llvm_sys::core::LLVMGetEnumAttributeAtIndex(f, index, kind)
            };
            !found.is_null()
        })
    };
    !(marked(call, true) || marked(callee, false) || param_only_read(callee, k, 4))
}

/// Whether function `f`'s body only reads through its parameter `k`:
/// through address arithmetic, casts, phis, selects and a private stack slot
/// holding it, it is loaded from, compared, or passed to a callee that only
/// reads through it (`depth` more calls deep).
fn param_only_read(f: Value, k: u32, depth: u32) -> bool {
    if ir::is_declaration(f) || depth == 0 || k >= unsafe { llvm_sys::core::LLVMCountParams(f) } {
        return false;
    }
    let mut work = vec![unsafe { llvm_sys::core::LLVMGetParam(f, k) }];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in ir::users(v) {
            use LLVMOpcode::*;
            let fine = match ir::opcode(u) {
                LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMPHI => {
                    work.push(u);
                    true
                }
                LLVMSelect if ir::operand(u, 0) != v => {
                    work.push(u);
                    true
                }
                LLVMLoad | LLVMICmp => true,
                // Kept in a slot of its own (-O0): what is loaded back is the pointer.
                LLVMStore if ir::operand(u, 0) == v && ir::is_private_slot(ir::operand(u, 1)) => {
                    work.extend(
                        ir::users(ir::operand(u, 1)).into_iter().filter(|l| ir::opcode(*l) == LLVMOpcode::LLVMLoad),
                    );
                    true
                }
                LLVMCall => {
                    let n = ir::call_arg_count(u);
                    match ir::called_function(u) {
                        Some(c) if ir::operand(u, n) != v => (0..n)
                            .filter(|j| ir::operand(u, *j) == v)
                            .all(|j| ir::is_lifetime_marker(u) || param_only_read(c, j, depth - 1)),
                        _ => false,
                    }
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

/// The arguments (0-based, with the callee's name) through which `call`, of
/// a function registered inactive, may write memory that carries
/// derivatives (`shadowed` says which pointers have shadows): its writes have
/// no derivative, but the derivatives of what they overwrite would stay in
/// place, a silently wrong result. Empty for any other call.
pub(crate) fn overwrites_derivatives(call: Value, shadowed: &dyn Fn(Value) -> bool) -> Vec<(u32, String)> {
    let Some(callee) = ir::called_function(call).filter(|c| crate::surface::registry::is_inactive_call(call, *c))
    else {
        return Vec::new();
    };
    (0..ir::call_arg_count(call))
        .filter(|k| {
            let o = ir::operand(call, *k);
            ir::is_pointer(ir::type_of(o))
                && shadowed(o)
                && !ir::pointer_bases(o).into_iter().all(holds_no_floats)
                && may_write_through(call, *k)
        })
        .map(|k| (k, crate::ir::names::display_name(&ir::name(callee))))
        .collect()
}

/// Whether `base` is a stack slot the function only ever reads and writes
/// as integers (a random generator's state handed to an inactive function
/// by `&mut`), besides handing it to calls without a derivative: nothing
/// there has a derivative to keep.
fn holds_no_floats(base: Value) -> bool {
    let slot = ir::is_instruction(base) && ir::opcode(base) == LLVMOpcode::LLVMAlloca;
    slot && every_use(base, &mut |u, p| match ir::opcode(u) {
        LLVMOpcode::LLVMLoad => ir::is_int(ir::type_of(u)),
        LLVMOpcode::LLVMStore => ir::operand(u, 1) == p && ir::is_int(ir::type_of(ir::operand(u, 0))),
        LLVMOpcode::LLVMCall => ir::is_lifetime_marker(u) || matches!(classify(u), Kind::Inactive | Kind::LibCall),
        _ => false,
    })
}
