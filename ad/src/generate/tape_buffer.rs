//! The buffers of loop tapes: growing them, and keeping them between calls.
//!
//! A gradient called in a loop (an optimiser's iterations) allocates the same
//! large tapes each time. Freed, a buffer of more than a few hundred KiB goes
//! back to the operating system (`munmap`, or a trimmed heap), and the next
//! call pays a page fault and the kernel's zeroing for every 4 KiB of it, and
//! a tape grown by doubling copies itself on the way: on ADBench's GMM that
//! was 45% of the gradient's time. So each tape remembers (in a global of its
//! own, one per tape in the code) the capacity it reached last time and
//! starts there; a derivative hands its large buffers to a small pool at its
//! end, and a tape starting at a large capacity takes the pool's best-fitting
//! buffer (already mapped) instead of a fresh one. The pool holds at most
//! [`SLOTS`] buffers, each one that some call had at once, so it never holds
//! more than the largest calls' tapes; buffers under [`MIN_BYTES`] are left
//! to `malloc`, which keeps them anyway. A spin lock guards the pool: the
//! threads of an OpenMP region start and end tapes of their own.
//!
//! The shadows of large `malloc` blocks come from the pool too, and go back
//! to it where reverse mode frees them itself, or, in forward mode, where the
//! primal frees the block: a function that mallocs a large work buffer per
//! call otherwise had it and its shadow faulted in again each time (glibc's
//! mmap threshold rises only when a mapped block is freed, and kept tape
//! buffers never are; the block and its shadow together then passed the
//! heap's trim threshold, and the heap was trimmed at each call's end).

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate};

use crate::build::runtime::{add_function, existing, libc_function};
use crate::ir::{self, Value};

const EMPTY: *const std::ffi::c_char = c"".as_ptr();

/// Buffers of fewer bytes are freed, not kept.
pub(crate) const MIN_BYTES: u64 = 1 << 16;
/// How many buffers the pool keeps.
const SLOTS: u64 = 8;

/// The pool's globals: a lock word and, per slot, a buffer and its size in
/// bytes (0 for an empty slot).
struct Pool {
    lock: Value,
    blocks: Value,
    sizes: Value,
}

fn pool(module: LLVMModuleRef) -> Pool {
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let (i32t, i64t, ptr_t) =
            (LLVMInt32TypeInContext(ctx), LLVMInt64TypeInContext(ctx), LLVMPointerTypeInContext(ctx, 0));
        let global = |name: &str, t: ir::Type| {
            let cname = ir::cstring(name);
            let g = LLVMGetNamedGlobal(module, cname.as_ptr());
            if !g.is_null() {
                return g;
            }
            let g = LLVMAddGlobal(module, t, cname.as_ptr());
            LLVMSetInitializer(g, LLVMConstNull(t));
            LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            g
        };
        Pool {
            lock: global("enzyme_rs.tape_pool.lock", i32t),
            blocks: global("enzyme_rs.tape_pool.blocks", LLVMArrayType2(ptr_t, SLOTS)),
            sizes: global("enzyme_rs.tape_pool.sizes", LLVMArrayType2(i64t, SLOTS)),
        }
    }
}

/// A function being built: its builder and context.
struct Body {
    ctx: LLVMContextRef,
    b: LLVMBuilderRef,
    f: Value,
}

impl Body {
    fn block(&self, name: &std::ffi::CStr) -> LLVMBasicBlockRef {
        unsafe { LLVMAppendBasicBlockInContext(self.ctx, self.f, name.as_ptr()) }
    }

    fn at(&self, bb: LLVMBasicBlockRef) {
        unsafe { LLVMPositionBuilderAtEnd(self.b, bb) }
    }

    fn i64(&self, v: u64) -> Value {
        unsafe { LLVMConstInt(LLVMInt64TypeInContext(self.ctx), v, 0) }
    }

    /// Spins until the lock word goes from 0 to 1; continues in a new block.
    fn lock(&self, lock: Value) {
        unsafe {
            let spin = self.block(c"lock");
            let held = self.block(c"locked");
            LLVMBuildBr(self.b, spin);
            self.at(spin);
            let i32t = LLVMInt32TypeInContext(self.ctx);
            let old = LLVMBuildAtomicRMW(
                self.b,
                LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpXchg,
                lock,
                LLVMConstInt(i32t, 1, 0),
                LLVMAtomicOrdering::LLVMAtomicOrderingAcquire,
                0,
            );
            let free = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntEQ, old, LLVMConstInt(i32t, 0, 0), EMPTY);
            LLVMBuildCondBr(self.b, free, held, spin);
            self.at(held);
        }
    }

    fn unlock(&self, lock: Value) {
        unsafe {
            let s = LLVMBuildStore(self.b, LLVMConstInt(LLVMInt32TypeInContext(self.ctx), 0, 0), lock);
            LLVMSetOrdering(s, LLVMAtomicOrdering::LLVMAtomicOrderingRelease);
            LLVMSetAlignment(s, 4);
        }
    }

    /// The address of slot `i` of global array `array` of `elem`s.
    fn slot(&self, array: Value, elem: ir::Type, i: Value) -> Value {
        unsafe {
            let t = LLVMArrayType2(elem, SLOTS);
            let mut idx = [self.i64(0), i];
            LLVMBuildInBoundsGEP2(self.b, t, array, idx.as_mut_ptr(), 2, EMPTY)
        }
    }

    /// Scans the slots for the one with the least `key(size)` (unsigned);
    /// returns the slot's index and its key, in a new block after the scan.
    fn scan(&self, sizes: Value, key: impl Fn(&Body, Value) -> Value) -> (Value, Value) {
        unsafe {
            let i64t = LLVMInt64TypeInContext(self.ctx);
            let before = LLVMGetInsertBlock(self.b);
            let head = self.block(c"scan");
            let done = self.block(c"scanned");
            LLVMBuildBr(self.b, head);
            self.at(head);
            let i = LLVMBuildPhi(self.b, i64t, EMPTY);
            let best = LLVMBuildPhi(self.b, i64t, EMPTY);
            let best_key = LLVMBuildPhi(self.b, i64t, EMPTY);
            let size = LLVMBuildLoad2(self.b, i64t, self.slot(sizes, i64t, i), EMPTY);
            let k = key(self, size);
            let better = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntULT, k, best_key, EMPTY);
            let best2 = LLVMBuildSelect(self.b, better, i, best, EMPTY);
            let key2 = LLVMBuildSelect(self.b, better, k, best_key, EMPTY);
            let next = LLVMBuildAdd(self.b, i, self.i64(1), EMPTY);
            let end = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntEQ, next, self.i64(SLOTS), EMPTY);
            LLVMBuildCondBr(self.b, end, done, head);
            let mut from = [before, head];
            LLVMAddIncoming(i, [self.i64(0), next].as_mut_ptr(), from.as_mut_ptr(), 2);
            LLVMAddIncoming(best, [self.i64(0), best2].as_mut_ptr(), from.as_mut_ptr(), 2);
            LLVMAddIncoming(best_key, [self.i64(u64::MAX), key2].as_mut_ptr(), from.as_mut_ptr(), 2);
            self.at(done);
            (best2, key2)
        }
    }
}

/// The types of a helper's signature.
#[derive(Clone, Copy)]
enum Ty {
    Void,
    I64,
    Ptr,
}

/// Starts helper function `name` (internal, builder at its entry), or
/// returns the module's own when it was made already.
fn begin(module: LLVMModuleRef, name: &str, result: Ty, params: &[Ty]) -> Result<Body, Value> {
    if let Some(f) = existing(module, name) {
        return Err(f);
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let ty = |t: Ty| match t {
            Ty::Void => LLVMVoidTypeInContext(ctx),
            Ty::I64 => LLVMInt64TypeInContext(ctx),
            Ty::Ptr => LLVMPointerTypeInContext(ctx, 0),
        };
        let mut params: Vec<ir::Type> = params.iter().map(|t| ty(*t)).collect();
        let f = add_function(module, name, ty(result), &mut params);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        // Once per derivative call at most: not worth the optimiser's time
        // in every caller (the growth test is, see `grow_function`).
        if name != "enzyme_rs.tape.grow" {
            ir::add_function_attr(f, "noinline");
        }
        let b = LLVMCreateBuilderInContext(ctx);
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr()));
        Ok(Body { ctx, b, f })
    }
}

/// Ends a helper's building; the function.
fn finish(body: Body) -> Value {
    unsafe { LLVMDisposeBuilder(body.b) };
    body.f
}

/// `enzyme_rs.tape.take(i64 bytes, i64 elem, ptr buf_slot, ptr cap_slot)`,
/// made once per module: moves the pool's smallest buffer of at least
/// `bytes` into the tape's slots (its capacity in `elem`-byte records).
/// Leaves the slots as they are when there is none.
fn take_function(module: LLVMModuleRef) -> Value {
    let body = match begin(module, "enzyme_rs.tape.take", Ty::Void, &[Ty::I64, Ty::I64, Ty::Ptr, Ty::Ptr]) {
        Ok(body) => body,
        Err(f) => return f,
    };
    let p = pool(module);
    unsafe {
        let (i64t, ptr_t) = (LLVMInt64TypeInContext(body.ctx), LLVMPointerTypeInContext(body.ctx, 0));
        let (b, args) = (body.b, ir::params(body.f));
        let (bytes, elem, buf_slot, cap_slot) = (args[0], args[1], args[2], args[3]);
        body.lock(p.lock);
        // Key: a large enough buffer by its excess, an empty slot or a
        // smaller buffer never.
        let (best, key) = body.scan(p.sizes, |body, size| {
            let b = body.b;
            let fits = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntUGE, size, bytes, EMPTY);
            let excess = LLVMBuildSub(b, size, bytes, EMPTY);
            LLVMBuildSelect(b, fits, excess, body.i64(u64::MAX), EMPTY)
        });
        let found = body.block(c"found");
        let none = body.block(c"none");
        let any = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntNE, key, body.i64(u64::MAX), EMPTY);
        LLVMBuildCondBr(b, any, found, none);
        body.at(found);
        let block_at = body.slot(p.blocks, ptr_t, best);
        let size_at = body.slot(p.sizes, i64t, best);
        let buf = LLVMBuildLoad2(b, ptr_t, block_at, EMPTY);
        let size = LLVMBuildLoad2(b, i64t, size_at, EMPTY);
        LLVMBuildStore(b, LLVMConstNull(ptr_t), block_at);
        LLVMBuildStore(b, body.i64(0), size_at);
        body.unlock(p.lock);
        LLVMBuildStore(b, buf, buf_slot);
        LLVMBuildStore(b, LLVMBuildUDiv(b, size, elem, EMPTY), cap_slot);
        LLVMBuildRetVoid(b);
        body.at(none);
        body.unlock(p.lock);
        LLVMBuildRetVoid(b);
        finish(body)
    }
}

/// `enzyme_rs.tape.release(ptr buf, i64 cap, i64 elem, ptr hint)`, made
/// once per module: the end of a tape of `cap` records of `elem` bytes, which
/// the tape's next start will reserve at once (`hint`); nothing for a tape
/// of no capacity (never grown, or on the stack). The buffer goes to the
/// pool (see [`keep_function`]), or is freed when reuse is off.
pub(crate) fn release_function(module: LLVMModuleRef) -> Value {
    let body = match begin(module, "enzyme_rs.tape.release", Ty::Void, &[Ty::Ptr, Ty::I64, Ty::I64, Ty::Ptr]) {
        Ok(body) => body,
        Err(f) => return f,
    };
    let keep = keep_function(module);
    unsafe {
        let (b, args) = (body.b, ir::params(body.f));
        let (buf, cap, elem, hint) = (args[0], args[1], args[2], args[3]);
        // A tape with no capacity has no heap buffer: never grown, or on the stack.
        let ended = body.block(c"ended");
        let unused = body.block(c"unused");
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntEQ, cap, body.i64(0), EMPTY), unused, ended);
        body.at(unused);
        LLVMBuildRetVoid(b);
        body.at(ended);
        let drop = body.block(c"drop");
        let hinted = body.block(c"hinted");
        // No hint: reuse is switched off (`Ablation::no_tape_reuse`).
        LLVMBuildCondBr(b, LLVMBuildIsNull(b, hint, EMPTY), drop, hinted);
        body.at(hinted);
        atomic_store(b, cap, hint);
        let mut keep_args = [buf, LLVMBuildMul(b, cap, elem, EMPTY)];
        LLVMBuildCall2(b, ir::function_type(keep), keep, keep_args.as_mut_ptr(), 2, EMPTY);
        LLVMBuildRetVoid(b);
        body.at(drop);
        let free = libc_function(module, "free");
        LLVMBuildCall2(b, ir::function_type(free), free, [buf].as_mut_ptr(), 1, EMPTY);
        LLVMBuildRetVoid(b);
        finish(body)
    }
}

/// `enzyme_rs.pool.keep(ptr buf, i64 bytes)`, made once per module: a
/// buffer of at least [`MIN_BYTES`] goes to the pool in place of an empty
/// slot or of a smaller buffer (which is freed); anything else is freed.
fn keep_function(module: LLVMModuleRef) -> Value {
    let body = match begin(module, "enzyme_rs.pool.keep", Ty::Void, &[Ty::Ptr, Ty::I64]) {
        Ok(body) => body,
        Err(f) => return f,
    };
    let p = pool(module);
    unsafe {
        let ptr_t = LLVMPointerTypeInContext(body.ctx, 0);
        let i64t = LLVMInt64TypeInContext(body.ctx);
        let (b, args) = (body.b, ir::params(body.f));
        let (buf, bytes) = (args[0], args[1]);
        let free = libc_function(module, "free");
        let call_free = |v: Value| LLVMBuildCall2(b, ir::function_type(free), free, [v].as_mut_ptr(), 1, EMPTY);
        let keep = body.block(c"keep");
        let drop = body.block(c"drop");
        let small = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntULT, bytes, body.i64(MIN_BYTES), EMPTY);
        LLVMBuildCondBr(b, small, drop, keep);
        body.at(drop);
        call_free(buf);
        LLVMBuildRetVoid(b);
        body.at(keep);
        body.lock(p.lock);
        let (smallest, size) = body.scan(p.sizes, |_, size| size);
        let replace = body.block(c"replace");
        let full = body.block(c"full");
        let room = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntULT, size, bytes, EMPTY);
        LLVMBuildCondBr(b, room, replace, full);
        body.at(replace);
        let block_at = body.slot(p.blocks, ptr_t, smallest);
        let old = LLVMBuildLoad2(b, ptr_t, block_at, EMPTY);
        LLVMBuildStore(b, buf, block_at);
        LLVMBuildStore(b, bytes, body.slot(p.sizes, i64t, smallest));
        body.unlock(p.lock);
        call_free(old);
        LLVMBuildRetVoid(b);
        body.at(full);
        body.unlock(p.lock);
        call_free(buf);
        LLVMBuildRetVoid(b);
        finish(body)
    }
}

/// `enzyme_rs.pool.malloc(i64 bytes) -> ptr`, made once per module: the
/// shadow of a large `malloc` block, from the pool when a buffer there is
/// large enough (already mapped: a gradient called in a loop would otherwise
/// map and fault in a fresh one each time, and the primal's own block with
/// it once the heap is trimmed), else from `malloc`. Its contents are
/// undefined, as `malloc`'s are.
pub(crate) fn pooled_malloc_function(module: LLVMModuleRef) -> Value {
    let body = match begin(module, "enzyme_rs.pool.malloc", Ty::Ptr, &[Ty::I64]) {
        Ok(body) => body,
        Err(f) => return f,
    };
    let take = take_function(module);
    unsafe {
        let (i64t, ptr_t) = (LLVMInt64TypeInContext(body.ctx), LLVMPointerTypeInContext(body.ctx, 0));
        let (b, args) = (body.b, ir::params(body.f));
        let bytes = args[0];
        let buf_slot = LLVMBuildAlloca(b, ptr_t, EMPTY);
        let cap_slot = LLVMBuildAlloca(b, i64t, EMPTY);
        LLVMBuildStore(b, LLVMConstNull(ptr_t), buf_slot);
        let big = body.block(c"big");
        let fresh = body.block(c"fresh");
        let found = body.block(c"found");
        let at_least = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntUGE, bytes, body.i64(MIN_BYTES), EMPTY);
        LLVMBuildCondBr(b, at_least, big, fresh);
        body.at(big);
        let mut take_args = [bytes, body.i64(1), buf_slot, cap_slot];
        LLVMBuildCall2(b, ir::function_type(take), take, take_args.as_mut_ptr(), 4, EMPTY);
        let buf = LLVMBuildLoad2(b, ptr_t, buf_slot, EMPTY);
        LLVMBuildCondBr(b, LLVMBuildIsNull(b, buf, EMPTY), fresh, found);
        body.at(found);
        LLVMBuildRet(b, buf);
        body.at(fresh);
        let malloc = libc_function(module, "malloc");
        LLVMBuildRet(b, LLVMBuildCall2(b, ir::function_type(malloc), malloc, [bytes].as_mut_ptr(), 1, EMPTY));
        finish(body)
    }
}

/// `enzyme_rs.pool.free(ptr p)`, made once per module: the end of a shadow
/// from [`pooled_malloc_function`] (or from `malloc`): kept in the pool when
/// large, else freed.
pub(crate) fn pooled_free_function(module: LLVMModuleRef) -> Value {
    let body = match begin(module, "enzyme_rs.pool.free", Ty::Void, &[Ty::Ptr]) {
        Ok(body) => body,
        Err(f) => return f,
    };
    let keep = keep_function(module);
    unsafe {
        let (b, args) = (body.b, ir::params(body.f));
        let p = args[0];
        let some = body.block(c"some");
        let none = body.block(c"none");
        LLVMBuildCondBr(b, LLVMBuildIsNull(b, p, EMPTY), none, some);
        body.at(none);
        LLVMBuildRetVoid(b);
        body.at(some);
        let usable = libc_function(module, "malloc_usable_size");
        let bytes = LLVMBuildCall2(b, ir::function_type(usable), usable, [p].as_mut_ptr(), 1, EMPTY);
        let mut keep_args = [p, bytes];
        LLVMBuildCall2(b, ir::function_type(keep), keep, keep_args.as_mut_ptr(), 2, EMPTY);
        LLVMBuildRetVoid(b);
        finish(body)
    }
}

/// A relaxed atomic store of an `i64` (a tape's hint: threads may race on it,
/// and any value they leave is a valid hint).
unsafe fn atomic_store(b: LLVMBuilderRef, v: Value, at: Value) {
    unsafe {
        let s = LLVMBuildStore(b, v, at);
        LLVMSetOrdering(s, LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic);
        LLVMSetAlignment(s, 8);
    }
}

/// A new tape's hint: the global in which its capacity is kept from one
/// call to the next.
pub(crate) fn new_hint(module: LLVMModuleRef) -> Value {
    unsafe {
        let i64t = LLVMInt64TypeInContext(LLVMGetModuleContext(module));
        let g = LLVMAddGlobal(module, i64t, c"enzyme_rs.tape.hint".as_ptr());
        LLVMSetInitializer(g, LLVMConstInt(i64t, 0, 0));
        LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        g
    }
}

/// The tape's growth function, made once per module:
/// `grow(ptr buf_slot, ptr cap_slot, i64 need, i64 elem, ptr hint) -> ptr buf`
/// makes room for `need` records of `elem` bytes. A tape's first buffer has
/// room for at least as many records as the tape had at its last release
/// (`hint`), from the pool when it is large; after that the buffer doubles
/// (at least 16 records). Aborts if memory runs out.
pub(crate) fn grow_function(module: LLVMModuleRef) -> Value {
    const GROW: [Ty; 5] = [Ty::Ptr, Ty::Ptr, Ty::I64, Ty::I64, Ty::Ptr];
    let body = match begin(module, "enzyme_rs.tape.grow", Ty::Ptr, &GROW) {
        Ok(body) => body,
        Err(f) => return f,
    };
    // The test small enough for the optimiser to inline where the tape grows
    // (once per loop iteration), the growth itself out of line. (Not
    // `alwaysinline`: the always-inliner deletes such a function once it has
    // no calls left, under a later round of higher-order differentiation.)
    let slow = grow_slow_function(module, &GROW);
    unsafe {
        let (i64t, ptr_t) = (LLVMInt64TypeInContext(body.ctx), LLVMPointerTypeInContext(body.ctx, 0));
        let (b, mut args) = (body.b, ir::params(body.f));
        let room = body.block(c"room");
        let grow = body.block(c"grow");
        let cap = LLVMBuildLoad2(b, i64t, args[1], EMPTY);
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntULE, args[2], cap, EMPTY), room, grow);
        body.at(room);
        LLVMBuildRet(b, LLVMBuildLoad2(b, ptr_t, args[0], EMPTY));
        body.at(grow);
        let nb = LLVMBuildCall2(b, ir::function_type(slow), slow, args.as_mut_ptr(), 5, EMPTY);
        LLVMBuildRet(b, nb);
        finish(body)
    }
}

/// The out-of-line part of [`grow_function`]: the tape has no room.
fn grow_slow_function(module: LLVMModuleRef, params: &[Ty]) -> Value {
    let body = match begin(module, "enzyme_rs.tape.grow.slow", Ty::Ptr, params) {
        Ok(body) => body,
        Err(f) => return f,
    };
    unsafe {
        let (i64t, ptr_t) = (LLVMInt64TypeInContext(body.ctx), LLVMPointerTypeInContext(body.ctx, 0));
        ir::add_function_attr(body.f, "noinline");
        ir::add_function_attr(body.f, "cold");
        let (b, args) = (body.b, ir::params(body.f));
        let (buf_slot, cap_slot, need, elem, hint) = (args[0], args[1], args[2], args[3], args[4]);
        let start = LLVMGetInsertBlock(b);
        let first = body.block(c"first");
        let pooled = body.block(c"pooled");
        let grow = body.block(c"grow");
        let fail = body.block(c"fail");
        let ok = body.block(c"ok");
        let done = body.block(c"done");
        let ule = LLVMIntPredicate::LLVMIntULE;
        let buf = LLVMBuildLoad2(b, ptr_t, buf_slot, EMPTY);
        LLVMBuildCondBr(b, LLVMBuildIsNull(b, buf, EMPTY), first, grow);
        body.at(first);
        // No hint: reuse is switched off (`Ablation::no_tape_reuse`).
        let hinted = body.block(c"hinted");
        LLVMBuildCondBr(b, LLVMBuildIsNull(b, hint, EMPTY), grow, hinted);
        body.at(hinted);
        let last = LLVMBuildLoad2(b, i64t, hint, EMPTY);
        LLVMSetOrdering(last, LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic);
        LLVMSetAlignment(last, 8);
        let more = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntUGT, last, need, EMPTY);
        let want = LLVMBuildSelect(b, more, last, need, EMPTY);
        let bytes = LLVMBuildMul(b, want, elem, EMPTY);
        let big = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntUGE, bytes, body.i64(MIN_BYTES), EMPTY);
        LLVMBuildCondBr(b, big, pooled, grow);
        body.at(pooled);
        let take = take_function(module);
        let mut take_args = [bytes, elem, buf_slot, cap_slot];
        LLVMBuildCall2(b, ir::function_type(take), take, take_args.as_mut_ptr(), 4, EMPTY);
        let taken = LLVMBuildLoad2(b, i64t, cap_slot, EMPTY);
        LLVMBuildCondBr(b, LLVMBuildICmp(b, ule, need, taken, EMPTY), done, grow);
        body.at(grow);
        let target = LLVMBuildPhi(b, i64t, EMPTY);
        let mut incoming = [need, need, want, want];
        let mut from = [start, first, hinted, pooled];
        LLVMAddIncoming(target, incoming.as_mut_ptr(), from.as_mut_ptr(), 4);
        let old = LLVMBuildLoad2(b, ptr_t, buf_slot, EMPTY);
        let old_cap = LLVMBuildLoad2(b, i64t, cap_slot, EMPTY);
        let umax = |x: Value, y: Value| {
            LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntUGT, x, y, EMPTY), x, y, EMPTY)
        };
        let doubled = LLVMBuildShl(b, old_cap, body.i64(1), EMPTY);
        let new_cap = umax(umax(doubled, target), body.i64(16));
        let realloc = libc_function(module, "realloc");
        let mut realloc_args = [old, LLVMBuildMul(b, new_cap, elem, EMPTY)];
        let nb = LLVMBuildCall2(b, ir::function_type(realloc), realloc, realloc_args.as_mut_ptr(), 2, EMPTY);
        LLVMBuildCondBr(b, LLVMBuildIsNull(b, nb, EMPTY), fail, ok);
        body.at(fail);
        let abort = libc_function(module, "abort");
        LLVMBuildCall2(b, ir::function_type(abort), abort, std::ptr::null_mut(), 0, EMPTY);
        LLVMBuildUnreachable(b);
        body.at(ok);
        LLVMBuildStore(b, nb, buf_slot);
        LLVMBuildStore(b, new_cap, cap_slot);
        LLVMBuildRet(b, nb);
        body.at(done);
        LLVMBuildRet(b, LLVMBuildLoad2(b, ptr_t, buf_slot, EMPTY));
        finish(body)
    }
}

/// The function's `malloc` calls whose blocks never reach `realloc` (whose
/// derivatives size the old shadow by what it can hold, and a pooled buffer
/// may hold more): their shadows may come from the pool.
pub(crate) fn unreallocated_mallocs(cfg: &crate::ir::cfg::Cfg) -> std::collections::HashSet<Value> {
    use crate::calls::classify::{classify, Kind};
    let instructions: Vec<Value> = cfg.order.iter().flat_map(|b| ir::instructions(*b)).collect();
    let reallocated: std::collections::HashSet<Value> = instructions
        .iter()
        .filter(|i| matches!(classify(**i), Kind::Realloc))
        .flat_map(|i| ir::pointer_bases(ir::operand(*i, 0)))
        .collect();
    instructions
        .into_iter()
        .filter(|i| matches!(classify(*i), Kind::Alloc(a) if a.name == "malloc") && !reallocated.contains(i))
        .collect()
}
