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
            // A list node: { next, shadow }.
            let malloc = libc_function(self.g.module(), "malloc");
            let node = self.e.call(malloc, &mut [LLVMConstInt(i64t, 16, 0)]);
            let i8t = LLVMInt8TypeInContext(self.e.ctx);
            let mut off = [LLVMConstInt(i64t, 8, 0)];
            let field = LLVMBuildGEP2(self.e.b, i8t, node, off.as_mut_ptr(), 1, c"".as_ptr());
            LLVMBuildStore(self.e.b, s, field);
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
            let mut off = [LLVMConstInt(i64t, 8, 0)];
            let field = LLVMBuildGEP2(self.e.b, i8t, node, off.as_mut_ptr(), 1, c"".as_ptr());
            let s = LLVMBuildLoad2(self.e.b, ptr, field, c"".as_ptr());
            self.e.call(free, &mut [s]);
            let next = LLVMBuildLoad2(self.e.b, ptr, node, c"".as_ptr());
            self.e.call(free, &mut [node]);
            LLVMBuildStore(self.e.b, next, head);
            LLVMBuildBr(self.e.b, test);
            LLVMPositionBuilderAtEnd(self.e.b, done);
        }
    }

    /// Whether `p` never points into a block this function allocates and
    /// keeps to itself (whose shadow the reverse of its allocation frees).
    /// A pointer that may be either is kept out of the list (its shadow may
    /// leak, but is never freed twice).
    fn frees_foreign_block(&self, p: Value) -> bool {
        let mut stack = vec![p];
        let mut seen = Vec::new();
        while let Some(v) = stack.pop() {
            if seen.contains(&v) {
                continue;
            }
            seen.push(v);
            if !ir::is_instruction(v) {
                continue;
            }
            match ir::opcode(v) {
                llvm_sys::LLVMOpcode::LLVMGetElementPtr | llvm_sys::LLVMOpcode::LLVMBitCast => {
                    stack.push(ir::operand(v, 0))
                }
                llvm_sys::LLVMOpcode::LLVMPHI => stack.extend(ir::incoming(v).into_iter().map(|(x, _)| x)),
                llvm_sys::LLVMOpcode::LLVMSelect => stack.extend([ir::operand(v, 1), ir::operand(v, 2)]),
                _ => {
                    if matches!(classify(v), Kind::Alloc(_) | Kind::Realloc | Kind::Alloca)
                        && !self.mem.escaping.contains(&v)
                    {
                        return false;
                    }
                }
            }
        }
        true
    }
}
