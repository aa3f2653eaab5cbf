//! Which loads the reverse sweep may read again instead of keeping on a
//! tape: loads of memory that nothing writes while the derivative runs.
//!
//! Two ways to know: the whole function writes only memory of its own
//! (stack slots and heap blocks it allocates), so nothing its caller gave it
//! changes; or a pointer argument is `noalias` (C's `restrict`, Rust's `&T`
//! and `&mut T`) and the function neither writes through it nor lets it
//! escape: then no other pointer may reach that memory while the function
//! runs (that would be undefined behaviour), whatever else it writes or calls.

use std::collections::HashSet;

use llvm_sys::LLVMOpcode;

use crate::cfg::Cfg;
use crate::ir::{self, Value};
use crate::kind::Kind;
use crate::layout::root_of;
use crate::memory::is_local;

/// Whether `f` writes no memory its caller can see (only its own stack slots
/// and heap blocks): then its inputs do not change while it runs, and loads
/// from them can be repeated instead of saved.
pub(crate) fn writes_only_local_memory(f: Value, cfg: &Cfg, kind_of: impl Fn(Value) -> Kind) -> bool {
    for b in &cfg.order {
        if !cfg.live.contains(b) {
            continue;
        }
        for i in ir::instructions(*b) {
            let dst = match kind_of(i) {
                Kind::Store => ir::operand(i, 1),
                Kind::AtomicAdd => ir::operand(i, 0),
                Kind::MemSet | Kind::MemCpy | Kind::Free => ir::operand(i, 0),
                Kind::LibCall | Kind::Call(_) | Kind::Custom(_) => return false,
                // `frexp` writes its exponent through a pointer.
                Kind::Rule(_)
                    if ir::opcode(i) == LLVMOpcode::LLVMCall
                        && (0..ir::call_arg_count(i)).any(|k| ir::is_pointer(ir::type_of(ir::operand(i, k)))) =>
                {
                    return false
                }
                _ => continue,
            };
            if !is_local(root_of(dst), &kind_of) {
                return false;
            }
        }
    }
    let _ = f;
    true
}

/// Whether calling `f` a second time cannot change memory its caller sees:
/// its `memory` attribute (declared, or inferred by the optimiser) allows no
/// writes but to `errno`, or its body writes only its own stack slots and
/// heap blocks. A declaration without the attribute may write anything.
pub(crate) fn writes_no_caller_memory(f: Value) -> bool {
    // `memory(...)`: two bits (read, write) per location; `errno` is location 2.
    const WRITE_BITS: u64 = 0xAAAA_AAAA;
    const ERRNO: u64 = 0b11 << 4;
    let attr = unsafe {
        llvm_sys::core::LLVMGetEnumAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, ir::attr_kind("memory"))
    };
    if !attr.is_null() && unsafe { llvm_sys::core::LLVMGetEnumAttributeValue(attr) } & WRITE_BITS & !ERRNO == 0 {
        return true;
    }
    !ir::is_declaration(f) && writes_only_local_memory(f, &Cfg::new(f), crate::classify::classify)
}

/// The pointer arguments of `f` marked `noalias` whose memory `f` only
/// reads: nothing derived from one (through `getelementptr`, casts, phis and
/// selects) is written through, stored, passed to a call other than as the
/// source of a copy, converted to an integer or returned.
pub(crate) fn unwritten_noalias_arguments(f: Value) -> HashSet<Value> {
    let noalias = ir::attr_kind("noalias");
    ir::params(f)
        .into_iter()
        .enumerate()
        .filter(|(k, p)| {
            ir::is_pointer(ir::type_of(*p))
                && unsafe { !llvm_sys::core::LLVMGetEnumAttributeAtIndex(f, *k as u32 + 1, noalias).is_null() }
                && only_read(*p)
        })
        .map(|(_, p)| p)
        .collect()
}

/// Whether every use of `p` and of the pointers derived from it only reads.
fn only_read(p: Value) -> bool {
    use LLVMOpcode::*;
    let mut derived = vec![p];
    let mut seen: HashSet<Value> = HashSet::new();
    while let Some(v) = derived.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in ir::users(v) {
            match ir::opcode(u) {
                LLVMLoad => {}
                LLVMICmp => {}
                LLVMGetElementPtr if ir::operand(u, 0) == v => derived.push(u),
                LLVMBitCast | LLVMAddrSpaceCast | LLVMPHI => derived.push(u),
                LLVMSelect if ir::operand(u, 0) != v => derived.push(u),
                LLVMCall if is_read_by_call(u, v) => {}
                _ => return false,
            }
        }
    }
    true
}

/// Whether call `c` only reads through `v`: the source of a copy, or a
/// lifetime marker.
fn is_read_by_call(c: Value, v: Value) -> bool {
    let Some(callee) = ir::called_function(c) else { return false };
    let name = ir::name(callee);
    let count = ir::call_arg_count(c);
    if name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove") {
        return ir::operand(c, 0) != v && (2..count).all(|k| ir::operand(c, k) != v);
    }
    name.starts_with("llvm.lifetime.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_ir::{with_function, with_module};

    /// The names of `@f`'s arguments that `unwritten_noalias_arguments` keeps.
    fn kept(ir: &str) -> Vec<String> {
        with_function(ir, |f| {
            let set = unwritten_noalias_arguments(f);
            let mut names: Vec<String> = ir::params(f).into_iter().filter(|p| set.contains(p)).map(ir::name).collect();
            names.sort();
            names
        })
    }

    const DECLS: &str = "declare void @g(ptr)\ndeclare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n";

    #[test]
    fn memory_attributes_and_bodies_say_what_a_second_call_may_write() {
        let ir = "declare double @none(double) memory(none)\n\
                  declare double @errno(double) memory(errnomem: write)\n\
                  declare double @reads(ptr) memory(argmem: read)\n\
                  declare i32 @writes(ptr) memory(argmem: readwrite)\n\
                  declare double @other(double) memory(write)\n\
                  declare double @unknown(double)\n\
                  define double @local(double %x) {\n  %s = alloca double\n  store double %x, ptr %s\n  \
                  %y = load double, ptr %s\n  ret double %y\n}\n\
                  define void @stores(ptr %p, double %x) {\n  store double %x, ptr %p\n  ret void\n}\n";
        with_module(ir, |function| {
            let says = |name: &str| writes_no_caller_memory(function(name));
            assert!(says("none") && says("errno") && says("reads") && says("local"));
            assert!(!says("writes") && !says("other") && !says("unknown") && !says("stores"));
        });
    }

    #[test]
    fn a_noalias_argument_only_read_is_kept() {
        // %x: read through a gep; %y: written; %z: read but not noalias.
        let ir = format!(
            "{DECLS}define void @f(ptr noalias %x, ptr noalias %y, ptr %z, i64 %i) {{\n  %p = getelementptr double, ptr %x, i64 %i\n  \
             %a = load double, ptr %p\n  %b = load double, ptr %z\n  %c = fadd double %a, %b\n  store double %c, ptr %y\n  ret void\n}}\n"
        );
        assert_eq!(kept(&ir), ["x"]);
    }

    #[test]
    fn escaping_or_written_arguments_are_not_kept() {
        // %a passed to a call, %b stored as a value, %c the destination of a
        // copy whose source %d is only read, %e written through a phi.
        let ir = format!(
            "{DECLS}define void @f(ptr noalias %a, ptr noalias %b, ptr noalias %c, ptr noalias %d, ptr noalias %e, ptr %s, i1 %k) {{\n\
             entry:\n  call void @g(ptr %a)\n  store ptr %b, ptr %s\n  call void @llvm.memcpy.p0.p0.i64(ptr %c, ptr %d, i64 8, i1 false)\n  \
             br i1 %k, label %l, label %r\nl:\n  br label %j\nr:\n  br label %j\nj:\n  %p = phi ptr [ %e, %l ], [ %s, %r ]\n  \
             store double 1.0, ptr %p\n  ret void\n}}\n"
        );
        assert_eq!(kept(&ir), ["d"]);
    }
}
