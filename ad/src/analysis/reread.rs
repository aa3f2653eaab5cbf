//! Which loads the reverse sweep may read again instead of keeping on a
//! tape: loads of memory that nothing writes while the derivative runs.
//!
//! Two ways to know: the whole function writes only memory of its own
//! (stack slots and heap blocks it allocates), so nothing its caller gave it
//! changes; or a pointer argument is `noalias` (C's `restrict`, Rust's `&T`
//! and `&mut T`) and the function neither writes through it nor lets it
//! escape: then no other pointer may reach that memory while the function
//! runs (that would be undefined behaviour), whatever else it writes or calls.
//!
//! And per load, for the function's own stack slots that nothing but direct
//! loads, stores and memory intrinsics reach: when no write of the slot can
//! follow the load (a table filled before a loop and only read in it), the
//! value is still there when the reverse sweep runs.

use std::collections::{HashMap, HashSet};

use llvm_sys::LLVMOpcode;

use crate::analysis::memory::is_local;
use crate::ir::cfg::Cfg;
use crate::ir::kind::Kind;
use crate::ir::layout::root_of;
use crate::ir::{self, Value};

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
    !ir::is_declaration(f) && writes_only_local_memory(f, &Cfg::new(f), crate::calls::classify::classify)
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
    derived_pointers(p, |u, v| match ir::opcode(u) {
        LLVMLoad | LLVMICmp => true,
        LLVMCall => is_read_by_call(u, v),
        _ => false,
    })
    .is_some()
}

/// `p` and the pointers derived from it (through `getelementptr`, casts,
/// phis and selects), calling `judge(user, pointer)` on every other use of
/// them; `None` as soon as a judgement is false.
pub(crate) fn derived_pointers(p: Value, mut judge: impl FnMut(Value, Value) -> bool) -> Option<HashSet<Value>> {
    use LLVMOpcode::*;
    let mut derived = vec![p];
    let mut seen: HashSet<Value> = HashSet::new();
    while let Some(v) = derived.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in ir::users(v) {
            match ir::opcode(u) {
                LLVMGetElementPtr if ir::operand(u, 0) == v => derived.push(u),
                LLVMBitCast | LLVMAddrSpaceCast | LLVMPHI => derived.push(u),
                LLVMSelect if ir::operand(u, 0) != v => derived.push(u),
                _ if judge(u, v) => {}
                _ => return None,
            }
        }
    }
    Some(seen)
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

/// The stack slots of `f` (allocas of its entry block) that only direct
/// loads, stores, memory intrinsics and lifetime markers reach (through
/// `getelementptr`, casts, phis and selects), each with the blocks from
/// which a write of it can still be reached: a load outside those blocks
/// reads what the slot holds when the reverse sweep runs.
pub(crate) fn settled_slots(f: Value, cfg: &Cfg) -> HashMap<Value, HashSet<crate::ir::Block>> {
    let mut out = HashMap::new();
    let Some(entry) = ir::blocks(f).first().copied() else { return out };
    for a in ir::instructions(entry).into_iter().filter(|i| ir::opcode(*i) == LLVMOpcode::LLVMAlloca) {
        let Some(writes) = slot_writes(a) else { continue };
        // Every block from which a write can be reached (the writes' own too).
        let mut tainted: HashSet<crate::ir::Block> = HashSet::new();
        let mut work: Vec<crate::ir::Block> = writes.iter().map(|w| ir::parent_block(*w)).collect();
        while let Some(b) = work.pop() {
            if tainted.insert(b) {
                work.extend(cfg.preds.get(&b).into_iter().flatten().copied());
            }
        }
        out.insert(a, tainted);
    }
    out
}

/// The instructions writing slot `a`, if only direct accesses reach it.
fn slot_writes(a: Value) -> Option<Vec<Value>> {
    use LLVMOpcode::*;
    let mut writes = Vec::new();
    let direct = derived_pointers(a, |u, v| match ir::opcode(u) {
        LLVMLoad => true,
        LLVMStore if ir::operand(u, 1) == v && ir::operand(u, 0) != v => {
            writes.push(u);
            true
        }
        LLVMCall if ir::is_lifetime_marker(u) => true,
        LLVMCall => {
            let name = ir::called_function(u).map(ir::name).unwrap_or_default();
            let count = ir::call_arg_count(u);
            let is_copy = name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove");
            // The destination of a copy or a fill is written; the source only read.
            let fits = (is_copy || name.starts_with("llvm.memset")) && (2..count).all(|k| ir::operand(u, k) != v);
            if fits && ir::operand(u, 0) == v {
                writes.push(u);
            }
            fits
        }
        _ => false,
    });
    direct.map(|_| writes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::{with_function, with_module};

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

    #[test]
    fn a_slot_filled_before_a_loop_is_read_again_in_it() {
        // %t: filled in %fill, read in %use (no write after): settled there.
        // %u: written and read in %use: every block reaches a write.
        // %v: passed to a call: not a slot of direct accesses.
        let ir = format!(
            "{DECLS}define double @f(double %x, i64 %n) {{\n\
             entry:\n  %t = alloca [4 x double]\n  %u = alloca double\n  %v = alloca double\n  call void @g(ptr %v)\n  br label %fill\n\
             fill:\n  %i = phi i64 [ 0, %entry ], [ %i1, %fill ]\n  %p = getelementptr double, ptr %t, i64 %i\n  \
             store double %x, ptr %p\n  %i1 = add i64 %i, 1\n  %c = icmp eq i64 %i1, 4\n  br i1 %c, label %use, label %fill\n\
             use:\n  %j = phi i64 [ 0, %fill ], [ %j1, %use ]\n  %s = phi double [ 0.0, %fill ], [ %s1, %use ]\n  \
             %q = getelementptr double, ptr %t, i64 %j\n  %a = load double, ptr %q\n  store double %a, ptr %u\n  %b = load double, ptr %u\n  \
             %s1 = fadd double %s, %b\n  %j1 = add i64 %j, 1\n  %d = icmp eq i64 %j1, %n\n  br i1 %d, label %out, label %use\n\
             out:\n  ret double %s1\n}}\n"
        );
        with_function(&ir, |f| {
            let cfg = Cfg::new(f);
            let slots = settled_slots(f, &cfg);
            let named = |n: &str| slots.iter().find(|(a, _)| ir::name(**a) == n).map(|(_, t)| t.clone());
            let block = |n: &str| ir::blocks(f).into_iter().find(|b| ir::name(ir::block_value(*b)) == n).unwrap();
            let t = named("t").expect("a slot of direct accesses");
            assert!(t.contains(&block("fill")) && t.contains(&block("entry")) && !t.contains(&block("use")));
            assert!(named("u").expect("a slot of direct accesses").contains(&block("use")));
            assert!(named("v").is_none());
        });
    }
}
