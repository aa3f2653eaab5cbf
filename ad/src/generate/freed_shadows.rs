//! Reverse mode: shadows of blocks the primal frees but the function did
//! not allocate for itself alone (a caller's `std::vector` buffer replaced
//! when it grows, or a block the function allocated and handed to the
//! caller's memory before freeing it). The reverse sweep still needs such a
//! shadow after the primal `free` (the adjoints of what was copied out of the
//! block flow back into it), and nothing else frees it: the forward sweep
//! keeps it in a list, and the end of the reverse sweep frees the list.
//! Blocks the function allocates and keeps to itself (not escaping, never
//! put in memory) have their shadows freed by the reverse of their
//! allocation instead.

use std::collections::HashSet;

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::analysis::memory::PtrStatus;
use crate::build::runtime::libc_function;
use crate::calls::classify::{classify, Kind};
use crate::generate::reverse::Reverse;
use crate::ir::{self, Value};

impl Reverse<'_> {
    /// Forward sweep, at primal `free(p)` (`i`): keeps `p`'s shadow for the
    /// end of the reverse sweep, when no other part of the derivative frees it.
    pub(crate) fn keep_freed_shadow(&mut self, i: Value) {
        let p = ir::operand(i, 0);
        if self.mem.status(p) != PtrStatus::Shadowed || !self.frees_foreign_block(p) {
            return;
        }
        // The shadow goes back the way the primal does (one-argument forms).
        let dealloc = match ir::called_function(i).map(ir::name).as_deref() {
            Some("free") => "free",
            Some("_ZdlPv" | "_ZdlPvm") => "_ZdlPv",
            Some("_ZdaPv" | "_ZdaPvm") => "_ZdaPv",
            _ => return,
        };
        let dealloc = crate::build::runtime::function_named(self.g.module(), dealloc);
        let s = self.sh.of(p);
        self.keep_shadow(s, dealloc);
    }

    /// Forward sweep, at primal `realloc` `i` of a block linked into a
    /// structure: the old block's shadow, which the reverse of `i` still
    /// needs and the reverse of no allocation frees, is kept for the end of
    /// the reverse sweep. (The shadow of the block `i` makes is kept the
    /// same way by the next `realloc`, or where the primal frees it.)
    pub(crate) fn keep_grown_shadow(&mut self, i: Value) {
        if !self.sh.sh.contains_key(&i) || self.shadow_freed_with_allocation(i) {
            return;
        }
        let old = self.sh.of(ir::operand(i, 0));
        let free = crate::build::runtime::function_named(self.g.module(), "free");
        self.keep_shadow(old, free);
    }

    /// Puts shadow `s` on the list freed at the end of the reverse sweep,
    /// with its deallocation function.
    fn keep_shadow(&mut self, s: Value, dealloc: Value) {
        unsafe {
            let ptr = LLVMPointerTypeInContext(self.e.ctx, 0);
            let i64t = LLVMInt64TypeInContext(self.e.ctx);
            let head = self.freed_list();
            // A list node: { next, shadow, deallocation function }.
            let malloc = libc_function(self.g.module(), "malloc");
            let node = self.e.call(malloc, &mut [LLVMConstInt(i64t, 24, 0)]);
            let i8t = LLVMInt8TypeInContext(self.e.ctx);
            for (offset, value) in [(8, s), (16, dealloc)] {
                let mut off = [LLVMConstInt(i64t, offset, 0)];
                let field = LLVMBuildGEP2(self.e.b, i8t, node, off.as_mut_ptr(), 1, c"".as_ptr());
                LLVMBuildStore(self.e.b, value, field);
            }
            let old = LLVMBuildLoad2(self.e.b, ptr, head, c"".as_ptr());
            LLVMBuildStore(self.e.b, old, node);
            LLVMBuildStore(self.e.b, node, head);
        }
    }

    /// The slot holding the head of the list of kept shadows: this
    /// derivative's own (made on first use), or, in a split derivative, the
    /// one of the derivative that called it.
    pub(crate) fn freed_list(&mut self) -> Value {
        if let Some(h) = self.freed_shadows {
            return h;
        }
        unsafe {
            let ptr = LLVMPointerTypeInContext(self.e.ctx, 0);
            let h = LLVMBuildAlloca(self.slots, ptr, c"freed_shadows".as_ptr());
            LLVMBuildStore(self.slots, LLVMConstNull(ptr), h);
            self.freed_shadows = Some(h);
            h
        }
    }

    /// End of the reverse sweep: frees the kept shadows and the list (in the
    /// outermost derivative only: a split one's callers may still need them).
    pub(crate) fn free_kept_shadows(&mut self) {
        if self.split.is_some() {
            return;
        }
        let Some(head) = self.freed_shadows else { return };
        let free_list = crate::build::runtime::free_shadow_list_function(self.g.module());
        self.e.call(free_list, &mut [head]);
    }

    /// Whether the shadow of every block `p` may point into is freed by no
    /// other part of the derivative. The reverse of an allocation frees the
    /// shadows of the function's own blocks that neither escape nor are put
    /// in memory ([`Reverse::shadow_freed_with_allocation`]); none of those
    /// can be read back from memory or come out of a call, so a pointer
    /// read from memory (the nodes of a tree or list, the caller's or the
    /// function's own) or returned by a call is listed. A pointer that may
    /// be anything else is kept out of the list: its shadow may leak, but is
    /// never freed twice.
    fn frees_foreign_block(&mut self, p: Value) -> bool {
        ir::pointer_bases(p).into_iter().all(|b| {
            // Null, constant data (an empty hash table's control bytes, chosen
            // where the table has no block yet) and undefined pointers (chosen
            // on a path that frees nothing) are never what is freed.
            if ir::is_argument(b) || crate::ir::layout::read_only_constant(b) {
                return true;
            }
            if !ir::is_instruction(b) {
                return false;
            }
            match classify(b) {
                Kind::Alloc(_) | Kind::Realloc => !self.shadow_freed_with_allocation(b),
                // Never what is freed: an iterator's choice between the nodes
                // and a tree's header, which lives on the stack.
                Kind::Alloca => true,
                _ => matches!(ir::opcode(b), LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke),
            }
        })
    }

    /// Whether the reverse of allocation `a` frees its shadow: the block
    /// stays the function's own (does not escape) and its address is never
    /// put in memory, converted to an integer or handed to a call, so every
    /// use of the shadow is in this function and behind the reverse sweep
    /// when it gets there. A block linked into a structure (a hash table's
    /// bucket array) has its shadow freed where the primal frees the block.
    pub(crate) fn shadow_freed_with_allocation(&mut self, a: Value) -> bool {
        if self.mem.escaping.contains(&a) {
            return false;
        }
        if self.linked_blocks.is_none() {
            self.linked_blocks = Some(self.blocks_put_in_memory());
        }
        !self.linked_blocks.as_ref().is_some_and(|l| l.contains(&a))
    }

    /// The `malloc` blocks whose shadows the pool of kept buffers may give
    /// (see `tape_buffer`): those whose reverse frees the shadow, and which
    /// are never given to `realloc` (whose reverse sizes the old shadow by
    /// what it can hold, and a pooled buffer may hold more).
    pub(crate) fn pooled_shadows(&mut self) -> HashSet<Value> {
        let candidates = crate::generate::tape_buffer::unreallocated_mallocs(&self.cfg);
        candidates.into_iter().filter(|i| self.shadow_freed_with_allocation(*i)).collect()
    }

    /// The function's allocations (and reallocations) whose addresses are
    /// stored, converted to an integer or handed to a call (other than to
    /// free, fill or grow them). A block grown by `realloc` is one block
    /// throughout: if any of its allocations is put in memory, all are.
    fn blocks_put_in_memory(&self) -> HashSet<Value> {
        let mut out = HashSet::new();
        let mut add = |v: Value| {
            for p in pointers_in(v) {
                for b in ir::pointer_bases(p) {
                    if ir::is_instruction(b) && matches!(classify(b), Kind::Alloc(_) | Kind::Realloc) {
                        out.insert(b);
                    }
                }
            }
        };
        for i in self.cfg.order.iter().flat_map(|b| ir::instructions(*b)) {
            match ir::opcode(i) {
                LLVMOpcode::LLVMStore | LLVMOpcode::LLVMPtrToInt => add(ir::operand(i, 0)),
                LLVMOpcode::LLVMAtomicRMW => add(ir::operand(i, 1)),
                LLVMOpcode::LLVMAtomicCmpXchg => add(ir::operand(i, 2)),
                LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke
                    if !matches!(classify(i), Kind::Free | Kind::MemSet | Kind::MemCpy | Kind::Realloc) =>
                {
                    (0..ir::call_arg_count(i)).for_each(|k| add(ir::operand(i, k)));
                }
                _ => {}
            }
        }
        // Each `realloc` with the blocks it grows: all put in memory, or none.
        let reallocs: Vec<Value> = self
            .cfg
            .order
            .iter()
            .flat_map(|b| ir::instructions(*b))
            .filter(|i| ir::is_call_or_invoke(*i) && matches!(classify(*i), Kind::Realloc))
            .collect();
        loop {
            let before = out.len();
            for r in &reallocs {
                let olds: Vec<Value> = ir::pointer_bases(ir::operand(*r, 0))
                    .into_iter()
                    .filter(|b| ir::is_instruction(*b) && matches!(classify(*b), Kind::Alloc(_) | Kind::Realloc))
                    .collect();
                if out.contains(r) || olds.iter().any(|b| out.contains(b)) {
                    out.insert(*r);
                    out.extend(olds);
                }
            }
            if out.len() == before {
                return out;
            }
        }
    }
}

/// The pointers a value is made of: itself, or the elements inserted into an
/// aggregate or vector.
fn pointers_in(v: Value) -> Vec<Value> {
    let t = ir::type_of(v);
    if ir::is_pointer(t) {
        return vec![v];
    }
    if ir::is_instruction(v) && matches!(ir::opcode(v), LLVMOpcode::LLVMInsertValue | LLVMOpcode::LLVMInsertElement) {
        let mut out = pointers_in(ir::operand(v, 0));
        out.extend(pointers_in(ir::operand(v, 1)));
        return out;
    }
    Vec::new()
}
