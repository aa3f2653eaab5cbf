//! Loads of a local array that the reverse sweep computes again from what
//! was stored, instead of keeping them on a tape.
//!
//! The pattern (GMM's `xc[i] = x[i] - mean[i]`, then `xc[i]` read in the next
//! loops): one loop writes one element of a local array on each iteration,
//! and a later sibling loop running as many iterations reads, on its
//! iteration `k`, the element the writer wrote on its iteration `k`. Both
//! addresses are `base + offset + stride * counter`, each with its own loop's
//! counter (a header phi from a constant start by a constant step), so that
//! is a matter of constants (Fortran's 1-based arrays and a reader counting
//! from 1 included). The array is written nowhere else and never escapes, so
//! what the load reads is what the store wrote in the same iteration of the
//! enclosing loop: the stored value, with the writer's counter replaced by
//! the reader's (plus the difference of their starts). When that value can
//! be computed again in the reverse sweep from values that are there anyway
//! (inputs nothing writes, the enclosing loops' counters, constants), it is,
//! and the load costs no tape.
//!
//! Both loops must run the same number of iterations
//! ([`crate::ir::trip::same_iterations`]), leave only from their latch (every
//! iteration runs the whole body), and the store must run on every
//! iteration. The reading loop can only be reached through the writing loop
//! within an iteration of their enclosing loop.

use std::collections::{HashSet, VecDeque};

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::generate::reverse::state::{Forwarding, Reverse};
use crate::ir::{self, Block, Value};

/// How deep the stored value's computation may be.
const MAX_DEPTH: u32 = 8;

impl<'g> Reverse<'g> {
    /// The store a load of a local array reads from, when the reverse sweep
    /// can compute its value again (see the module's comment).
    pub(in crate::generate) fn stored_value(&self, load: Value) -> Option<Forwarding> {
        if self.g.ablation().no_store_forwarding || self.split.is_some() || self.atomic {
            return None;
        }
        // A sum step's tape holds one iteration of its loop and stays in the
        // cache: reading it back is cheaper than computing the value again
        // (GMM's step: 4-6% faster taping `xc`, bench/results).
        if self.in_sum_step {
            return None;
        }
        if ir::opcode(load) != LLVMOpcode::LLVMLoad || ir::is_atomic(load) || unsafe { LLVMGetVolatile(load) != 0 } {
            return None;
        }
        let dl = unsafe { llvm_sys::target::LLVMGetModuleDataLayout(LLVMGetGlobalParent(ir::parent_function(load))) };
        let read = linear_address(ir::operand(load, 0), dl)?;
        if unsafe { LLVMIsAAllocaInst(read.base).is_null() } {
            return None;
        }
        let store = only_store(read.base)?;
        if ir::type_of(ir::operand(store, 0)) != ir::type_of(load) || unsafe { LLVMGetVolatile(store) != 0 } {
            return None;
        }
        let written = linear_address(ir::operand(store, 1), dl)?;
        // Each address steps with one loop's counter, by the same stride.
        let ((from, w_stride), (to, r_stride)) = (written.counter?, read.counter?);
        if written.base != read.base || w_stride != r_stride || w_stride == 0 {
            return None;
        }
        let (writer, w_start, w_step) = self.simple_counter(from)?;
        let (reader, r_start, r_step) = self.simple_counter(to)?;
        if writer == reader || w_step != r_step || ir::type_of(from) != ir::type_of(to) {
            return None;
        }
        // Iteration k of either loop is at the same element.
        let at = |offset: i64, start: i64| offset.checked_add(w_stride.checked_mul(start)?);
        if at(written.offset, w_start)? != at(read.offset, r_start)? {
            return None;
        }
        let (wl, rl) = (&self.cfg.loops[writer], &self.cfg.loops[reader]);
        if wl.parent != rl.parent {
            return None;
        }
        // The loops run the same number of iterations.
        let wc = crate::ir::trip::counted(&self.cfg, wl)?;
        let rc = crate::ir::trip::counted(&self.cfg, rl)?;
        if !crate::ir::trip::same_iterations(&wc, &rc) {
            return None;
        }
        // Every iteration runs the whole body; the store runs on each.
        let store_block = *self.prep_block.get(&ir::parent_block(store))?;
        let leaves_at_latch = |l: &crate::ir::cfg::Loop| l.exits.len() == 1 && l.latches == vec![l.exits[0].0];
        if !leaves_at_latch(wl) || !leaves_at_latch(rl) || !self.cfg.dominates(store_block, wl.latches[0]) {
            return None;
        }
        if self.cfg.innermost.get(&store_block) != Some(&writer) {
            return None;
        }
        // The load runs in the reading loop (perhaps in a loop inside it).
        if !rl.blocks.contains(self.prep_block.get(&ir::parent_block(load))?) {
            return None;
        }
        if !self.passes_through(wl.header, rl.header, rl.parent) {
            return None;
        }
        let f = Forwarding { value: ir::operand(store, 0), from, to, delta: w_start - r_start, reader };
        self.recomputable_from_store(&f, f.value, 0).then_some(f)
    }

    /// A loop counter: a phi of a loop's header starting at a constant and
    /// stepped by a constant each iteration; its loop, start and step.
    fn simple_counter(&self, v: Value) -> Option<(usize, i64, i64)> {
        let l = self.header_loop_of(v)?;
        let lp = &self.cfg.loops[l];
        let c = crate::ir::trip::stepped(v, |b| Some(lp.blocks.contains(self.prep_block.get(&b)?)))?;
        Some((l, ir::const_int_value(c.start)?, ir::const_int_value(c.step)?))
    }

    /// Whether, within an iteration of `parent` (or of the function), every
    /// path to `to` passes through `through`.
    fn passes_through(&self, through: Block, to: Block, parent: Option<usize>) -> bool {
        let (start, inside): (Block, Box<dyn Fn(Block) -> bool>) = match parent {
            Some(p) => {
                let l = &self.cfg.loops[p];
                (l.header, Box::new(move |b| l.blocks.contains(&b)))
            }
            None => (self.cfg.entry(), Box::new(|_| true)),
        };
        let mut seen: HashSet<Block> = HashSet::from([start]);
        let mut work = VecDeque::from([start]);
        while let Some(b) = work.pop_front() {
            if b == to {
                return false;
            }
            if b == through {
                continue;
            }
            for s in ir::successors(ir::terminator(b)) {
                // Not around the enclosing loop again.
                if Some(s) == parent.map(|p| self.cfg.loops[p].header) || !inside(s) || !seen.insert(s) {
                    continue;
                }
                work.push_back(s);
            }
        }
        true
    }

    /// Whether `v`, a value of the stored value's computation, is defined
    /// where the reverse sweep inside the reading loop cannot fetch it (in
    /// a loop that does not enclose the reading loop).
    pub(in crate::generate) fn foreign_to(&self, f: &Forwarding, v: Value) -> bool {
        if !ir::is_instruction(v) || self.available_as_is(v) {
            return false;
        }
        let Some(b) = self.prep_block.get(&ir::parent_block(v)) else { return true };
        let Some(&l) = self.cfg.innermost.get(b) else { return false };
        // Loops enclosing the reading loop: their current instance is the one.
        let mut up = self.cfg.loops[f.reader].parent;
        while let Some(p) = up {
            if p == l {
                return false;
            }
            up = self.cfg.loops[p].parent;
        }
        true
    }

    /// Whether the reverse sweep can compute `v` again with `f.from`
    /// replaced: what is defined in the writing loop (or any loop not around
    /// the reading one) is integer arithmetic, address arithmetic, float
    /// arithmetic or a load of memory nothing writes, of such values.
    fn recomputable_from_store(&self, f: &Forwarding, v: Value, depth: u32) -> bool {
        if v == f.from || !self.foreign_to(f, v) {
            return true;
        }
        if depth >= MAX_DEPTH || !recomputable_kind(v) {
            return false;
        }
        if ir::opcode(v) == LLVMOpcode::LLVMLoad && !self.rereadable(v) {
            return false;
        }
        (0..ir::operand_count(v)).all(|k| self.recomputable_from_store(f, ir::operand(v, k), depth + 1))
    }
}

/// Intrinsics without effects that the reverse sweep may call again.
const PURE_INTRINSICS: &[&str] = &[
    "llvm.fmuladd.",
    "llvm.fma.",
    "llvm.fabs.",
    "llvm.sqrt.",
    "llvm.copysign.",
    "llvm.minnum.",
    "llvm.maxnum.",
    "llvm.exp.",
    "llvm.log.",
    "llvm.sin.",
    "llvm.cos.",
    "llvm.pow.",
    "llvm.floor.",
    "llvm.ceil.",
    "llvm.trunc.",
];

/// Instructions the reverse sweep may repeat: no memory effects but reads
/// (checked separately), no control flow.
fn recomputable_kind(v: Value) -> bool {
    use LLVMOpcode::*;
    if ir::opcode(v) == LLVMCall {
        return ir::called_function(v).is_some_and(|c| {
            let name = ir::name(c);
            PURE_INTRINSICS.iter().any(|p| name.starts_with(p))
        });
    }
    crate::generate::reverse::tape::recomputable(v)
        || matches!(
            ir::opcode(v),
            LLVMFAdd
                | LLVMFSub
                | LLVMFMul
                | LLVMFDiv
                | LLVMFNeg
                | LLVMSIToFP
                | LLVMUIToFP
                | LLVMFPExt
                | LLVMFPTrunc
                | LLVMLoad
        )
}

/// The one store to the memory of `base` (an alloca), when every other use
/// only reads it through `getelementptr`s or marks its lifetime.
fn only_store(base: Value) -> Option<Value> {
    let mut store = None;
    let mut work = vec![base];
    while let Some(p) = work.pop() {
        for u in ir::users(p) {
            match ir::opcode(u) {
                LLVMOpcode::LLVMGetElementPtr if ir::operand(u, 0) == p => work.push(u),
                LLVMOpcode::LLVMLoad => {}
                LLVMOpcode::LLVMStore if ir::operand(u, 1) == p && ir::operand(u, 0) != p => {
                    if store.replace(u).is_some() {
                        return None;
                    }
                }
                LLVMOpcode::LLVMCall
                    if ir::called_function(u).is_some_and(|c| ir::name(c).starts_with("llvm.lifetime.")) => {}
                _ => return None,
            }
        }
    }
    store
}

/// An address as `base + offset + stride * counter` bytes, from a chain of
/// `getelementptr`s whose indices are constants but at most one, which is a
/// counter plus a constant (`i`, `i - 1`, `sext(i)`).
struct Linear {
    base: Value,
    offset: i64,
    /// The counter and its stride in bytes.
    counter: Option<(Value, i64)>,
}

fn linear_address(p: Value, dl: llvm_sys::target::LLVMTargetDataRef) -> Option<Linear> {
    use llvm_sys::target::{LLVMABISizeOfType, LLVMOffsetOfElement};
    use llvm_sys::LLVMTypeKind;
    let mut out = Linear { base: p, offset: 0, counter: None };
    while ir::opcode(out.base) == LLVMOpcode::LLVMGetElementPtr {
        let gep = out.base;
        let mut ty = unsafe { LLVMGetGEPSourceElementType(gep) };
        for k in 1..ir::operand_count(gep) {
            let index = ir::operand(gep, k);
            if k > 1 {
                match unsafe { LLVMGetTypeKind(ty) } {
                    LLVMTypeKind::LLVMStructTypeKind => {
                        let field = u32::try_from(ir::const_int_value(index)?).ok()?;
                        out.offset = out.offset.checked_add(unsafe { LLVMOffsetOfElement(dl, ty, field) } as i64)?;
                        ty = unsafe { LLVMStructGetTypeAtIndex(ty, field) };
                        continue;
                    }
                    LLVMTypeKind::LLVMArrayTypeKind => ty = unsafe { LLVMGetElementType(ty) },
                    _ => return None,
                }
            }
            let stride = i64::try_from(unsafe { LLVMABISizeOfType(dl, ty) }).ok()?;
            if let Some(c) = ir::const_int_value(index) {
                out.offset = out.offset.checked_add(c.checked_mul(stride)?)?;
            } else {
                let (counter, c) = counter_plus_constant(index)?;
                if out.counter.replace((counter, stride)).is_some() {
                    return None;
                }
                out.offset = out.offset.checked_add(c.checked_mul(stride)?)?;
            }
        }
        out.base = ir::operand(gep, 0);
    }
    Some(out)
}

/// `(i, c)` for an index `i + c` where `i` is a phi: through additions of
/// constants that do not wrap (`nsw`/`nuw`) and sign or zero extensions.
fn counter_plus_constant(v: Value) -> Option<(Value, i64)> {
    match ir::opcode(v) {
        LLVMOpcode::LLVMPHI => Some((v, 0)),
        LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt => counter_plus_constant(ir::operand(v, 0)),
        LLVMOpcode::LLVMAdd | LLVMOpcode::LLVMSub if unsafe { LLVMGetNSW(v) != 0 || LLVMGetNUW(v) != 0 } => {
            let c = ir::const_int_value(ir::operand(v, 1))?;
            let c = if ir::opcode(v) == LLVMOpcode::LLVMSub { c.checked_neg()? } else { c };
            let (i, d) = counter_plus_constant(ir::operand(v, 0))?;
            Some((i, d.checked_add(c)?))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::with_function;

    fn instructions(f: Value, op: LLVMOpcode) -> Vec<Value> {
        ir::blocks(f).into_iter().flat_map(ir::instructions).filter(|i| ir::opcode(*i) == op).collect()
    }

    /// Two sibling loops over `a`: one writes `a[i]`, one reads `a[j]`.
    const SIBLINGS: &str = r#"
define double @f(ptr %x, i64 %n) {
entry:
  %a = alloca [8 x double]
  br label %w
w:
  %i = phi i64 [ 0, %entry ], [ %i1, %w ]
  %px = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %px
  %sq = fmul double %v, %v
  %pa = getelementptr [8 x double], ptr %a, i64 0, i64 %i
  store double %sq, ptr %pa
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, 8
  br i1 %c, label %w, label %r0
r0:
  br label %r
r:
  %j = phi i64 [ 0, %r0 ], [ %j1, %r ]
  %s = phi double [ 0.0, %r0 ], [ %s1, %r ]
  %pb = getelementptr [8 x double], ptr %a, i64 0, i64 %j
  %u = load double, ptr %pb
  %s1 = fadd double %s, %u
  %j1 = add i64 %j, 1
  %d = icmp ult i64 %j1, 8
  br i1 %d, label %r, label %out
out:
  ret double %s1
}
"#;

    #[test]
    fn finds_the_one_store_and_the_counters() {
        with_function(SIBLINGS, |f| {
            let store = instructions(f, LLVMOpcode::LLVMStore)[0];
            let read = instructions(f, LLVMOpcode::LLVMLoad)[1];
            let dl = unsafe { llvm_sys::target::LLVMGetModuleDataLayout(LLVMGetGlobalParent(f)) };
            let (r, w) =
                (linear_address(ir::operand(read, 0), dl).unwrap(), linear_address(ir::operand(store, 1), dl).unwrap());
            assert_eq!(only_store(r.base), Some(store));
            assert!(r.base == w.base && r.offset == 0 && w.offset == 0);
            let ((from, ws), (to, rs)) = (w.counter.unwrap(), r.counter.unwrap());
            assert_eq!((ir::name(from), ir::name(to), ws, rs), ("i".to_string(), "j".to_string(), 8, 8));
            // The loops count alike.
            let cfg = crate::ir::cfg::Cfg::new(f);
            let counted: Vec<_> = cfg.loops.iter().map(|l| crate::ir::trip::counted(&cfg, l).unwrap()).collect();
            assert!(crate::ir::trip::same_iterations(&counted[0], &counted[1]));
        });
    }

    #[test]
    fn one_based_addresses_are_the_same_element() {
        // Fortran: `a(i)` written as a[i - 1], read as (a + 8 i) - 8 bytes.
        let ir = r#"
define void @f() {
entry:
  %a = alloca [6 x double]
  br label %l
l:
  %i = phi i64 [ 1, %entry ], [ %i1, %l ]
  %m = add nsw i64 %i, -1
  %w = getelementptr double, ptr %a, i64 %m
  store double 1.0, ptr %w
  %r0 = getelementptr double, ptr %a, i64 %i
  %r = getelementptr i8, ptr %r0, i64 -8
  %v = load double, ptr %r
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, 7
  br i1 %c, label %l, label %out
out:
  ret void
}
"#;
        with_function(ir, |f| {
            let dl = unsafe { llvm_sys::target::LLVMGetModuleDataLayout(LLVMGetGlobalParent(f)) };
            let store = instructions(f, LLVMOpcode::LLVMStore)[0];
            let read = instructions(f, LLVMOpcode::LLVMLoad)[0];
            let w = linear_address(ir::operand(store, 1), dl).unwrap();
            let r = linear_address(ir::operand(read, 0), dl).unwrap();
            assert_eq!((w.offset, r.offset), (-8, -8));
            assert_eq!(w.counter.map(|c| c.1), Some(8));
            assert_eq!(r.counter.map(|c| c.1), Some(8));
        });
    }

    #[test]
    fn a_second_writer_or_an_escape_is_no_single_store() {
        let second = SIBLINGS.replace("r0:\n  br label %r", "r0:\n  store double 1.0, ptr %a\n  br label %r");
        with_function(&second, |f| {
            let base = instructions(f, LLVMOpcode::LLVMAlloca)[0];
            assert_eq!(only_store(base), None);
        });
        let escape = SIBLINGS.replace("r0:\n  br label %r", "r0:\n  call void @g(ptr %a)\n  br label %r")
            + "declare void @g(ptr)\n";
        with_function(&escape, |f| {
            let base = instructions(f, LLVMOpcode::LLVMAlloca)[0];
            assert_eq!(only_store(base), None);
        });
    }

    #[test]
    fn loops_counted_differently_are_not_alike() {
        let shorter = SIBLINGS.replace("%d = icmp ult i64 %j1, 8", "%d = icmp ult i64 %j1, 7");
        with_function(&shorter, |f| {
            let cfg = crate::ir::cfg::Cfg::new(f);
            let counted: Vec<_> = cfg.loops.iter().map(|l| crate::ir::trip::counted(&cfg, l).unwrap()).collect();
            assert!(!crate::ir::trip::same_iterations(&counted[0], &counted[1]));
        });
    }
}
