//! Reverse mode: shadows of blocks the primal frees but the function did
//! not allocate for itself alone (a caller's `std::vector` buffer replaced
//! when it grows, or a block the function allocated and handed to the
//! caller's memory before freeing it). The reverse sweep still needs such a
//! shadow after the primal `free` (the adjoints of what was copied out of the
//! block flow back into it), and nothing else frees it: the forward sweep
//! keeps it in a list, and the end of the reverse sweep frees the list.
//! Blocks the function allocates and keeps to itself have their shadows
//! freed by the reverse of their allocation instead.

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::classify::{classify, Kind};
use crate::ir::{self, Value};
use crate::memory::PtrStatus;
use crate::reverse::Reverse;
use crate::runtime::libc_function;

impl Reverse<'_> {
    /// Forward sweep, at primal `free(p)` (`i`): keeps `p`'s shadow for the
    /// end of the reverse sweep, when no other part of the derivative frees it.
    pub(crate) fn keep_freed_shadow(&mut self, i: Value) {
        let p = ir::operand(i, 0);
        if self.split.is_some() || self.mem.status(p) != PtrStatus::Shadowed || !self.frees_foreign_block(p) {
            return;
        }
        // The shadow goes back the way the primal does (one-argument forms).
        let dealloc = match ir::called_function(i).map(ir::name).as_deref() {
            Some("free") => "free",
            Some("_ZdlPv" | "_ZdlPvm") => "_ZdlPv",
            Some("_ZdaPv" | "_ZdaPvm") => "_ZdaPv",
            _ => return,
        };
        let dealloc = crate::runtime::function_named(self.g.module(), dealloc);
        let s = self.sh.of(p);
        unsafe {
            let ptr = LLVMPointerTypeInContext(self.e.ctx, 0);
            let i64t = LLVMInt64TypeInContext(self.e.ctx);
            let head = match self.freed_shadows {
                Some(h) => h,
                None => {
                    let h = LLVMBuildAlloca(self.slots, ptr, c"freed_shadows".as_ptr());
                    LLVMBuildStore(self.slots, LLVMConstNull(ptr), h);
                    self.freed_shadows = Some(h);
                    h
                }
            };
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

    /// End of the reverse sweep: frees the kept shadows and the list.
    pub(crate) fn free_kept_shadows(&mut self, d: Value) {
        let Some(head) = self.freed_shadows else { return };
        unsafe {
            let ctx = self.e.ctx;
            let ptr = LLVMPointerTypeInContext(ctx, 0);
            let i8t = LLVMInt8TypeInContext(ctx);
            let i64t = LLVMInt64TypeInContext(ctx);
            let free = libc_function(self.g.module(), "free");
            let test = LLVMAppendBasicBlockInContext(ctx, d, c"free_shadows".as_ptr());
            let body = LLVMAppendBasicBlockInContext(ctx, d, c"free_shadow".as_ptr());
            let done = LLVMAppendBasicBlockInContext(ctx, d, c"shadows_freed".as_ptr());
            LLVMBuildBr(self.e.b, test);
            LLVMPositionBuilderAtEnd(self.e.b, test);
            let node = LLVMBuildLoad2(self.e.b, ptr, head, c"".as_ptr());
            let end = LLVMBuildIsNull(self.e.b, node, c"".as_ptr());
            LLVMBuildCondBr(self.e.b, end, done, body);
            LLVMPositionBuilderAtEnd(self.e.b, body);
            let field = |offset: u64| {
                let mut off = [LLVMConstInt(i64t, offset, 0)];
                LLVMBuildGEP2(self.e.b, i8t, node, off.as_mut_ptr(), 1, c"".as_ptr())
            };
            let s = LLVMBuildLoad2(self.e.b, ptr, field(8), c"".as_ptr());
            let dealloc = LLVMBuildLoad2(self.e.b, ptr, field(16), c"".as_ptr());
            let mut params = [ptr];
            let fty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params.as_mut_ptr(), 1, 0);
            let mut args = [s];
            LLVMBuildCall2(self.e.b, fty, dealloc, args.as_mut_ptr(), 1, c"".as_ptr());
            let next = LLVMBuildLoad2(self.e.b, ptr, node, c"".as_ptr());
            self.e.call(free, &mut [node]);
            LLVMBuildStore(self.e.b, next, head);
            LLVMBuildBr(self.e.b, test);
            LLVMPositionBuilderAtEnd(self.e.b, done);
        }
    }

    /// Whether every block `p` may point into is one whose shadow nothing
    /// else frees: a block the caller owns (an argument, or a pointer read
    /// from memory the caller can see) or one this function allocated and
    /// handed to such memory. A pointer that may be anything else (read from
    /// the function's own memory, returned by a call) is kept out of the
    /// list: its shadow may leak, but is never freed twice.
    fn frees_foreign_block(&self, p: Value) -> bool {
        ir::pointer_bases(p).into_iter().all(|b| {
            if ir::is_argument(b) || ir::is_unmapped_address(b) || unsafe { !LLVMIsAConstantPointerNull(b).is_null() } {
                return true;
            }
            if !ir::is_instruction(b) {
                return false;
            }
            if ir::opcode(b) == LLVMOpcode::LLVMLoad {
                // Read from the caller's memory (through its pointer arguments).
                return ir::is_argument(crate::layout::root_of(ir::operand(b, 0)));
            }
            matches!(classify(b), Kind::Alloc(_)) && self.mem.escaping.contains(&b)
        })
    }
}
