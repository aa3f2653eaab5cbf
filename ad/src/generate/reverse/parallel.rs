//! Reverse mode of OpenMP parallel regions (see `parallel`): the forward
//! sweep runs the region on a team, each thread running the forward part of
//! the microtask's split derivative (a coroutine) and leaving its handle;
//! the reverse sweep runs a team of the same size in which each thread
//! resumes one handle: the reverse of that thread's share of the work, its
//! barriers and critical sections reversed. The coroutines' reverse sweeps
//! add adjoints into shadow memory atomically (`Request::atomic_adjoints`).

use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;

use crate::build::emit::Emitter;
use crate::build::runtime::{add_function, existing, free_shadow_list_function, libc_function};
use crate::calls::parallel::omp_function;
use crate::generate::body::SplitIo;
use crate::generate::reverse::state::{RegionCall, Reverse};
use crate::ir::{self, Value};
use crate::surface::request::Request;

impl Reverse<'_> {
    /// Forward sweep: the region's call forks the augmenting wrapper instead.
    pub(in crate::generate) fn call_region(&mut self, i: Value, callee: Value) {
        let mask = crate::prepare::checks::nested_call_pattern(i, &self.mem).expect("validated");
        let request = Request::split(callee, &mask)
            .strong_zero(self.e.strong_zero)
            .runtime_activity(self.e.runtime_activity)
            .atomic_adjoints(true);
        let split = self.g.request(request);
        let module = self.g.module();
        let layout = SplitIo::of(self.e.ctx, callee);
        // The split derivative's arguments after the two thread ids.
        let rest = self.arguments_with_shadows(i, &mask, 2);
        let e = &self.e;
        unsafe {
            let (i64t, ptr) = (LLVMInt64TypeInContext(e.ctx), LLVMPointerTypeInContext(e.ctx, 0));
            let max = e.call(omp_function(module, "omp_get_max_threads"), &mut []);
            let cap = LLVMBuildSExt(e.b, max, i64t, c"threads.cap".as_ptr());
            let bytes = |t| LLVMBuildMul(e.b, cap, LLVMSizeOf(t), c"".as_ptr());
            let malloc = libc_function(module, "malloc");
            let handles = e.call(malloc, &mut [bytes(ptr)]);
            let buffers = e.call(malloc, &mut [bytes(layout.ty)]);
            let list_bytes = bytes(ptr);
            let lists = e.call(malloc, &mut [list_bytes]);
            LLVMBuildMemSet(e.b, lists, LLVMConstInt(LLVMInt8TypeInContext(e.ctx), 0, 0), list_bytes, 8);
            let count = LLVMBuildAlloca(self.slots, LLVMInt32TypeInContext(e.ctx), c"threads".as_ptr());
            if crate::calls::parallel::has_ordered_critical(callee) {
                // The tickets are one counter per region derivative: two of its
                // calls at once (from threads of a parallel region of the
                // caller's) would mix them.
                let inside = e.call(omp_function(module, "omp_in_parallel"), &mut []);
                let zero = LLVMConstInt(LLVMInt32TypeInContext(e.ctx), 0, 0);
                let inside = LLVMBuildICmp(e.b, llvm_sys::LLVMIntPredicate::LLVMIntNE, inside, zero, c"".as_ptr());
                e.abort_if(
                    inside,
                    "enzyme-rs: a derivative whose OpenMP region has critical sections or non-sum reductions was called \
                     inside a parallel region; call it from serial code",
                );
            }
            let wrapper = augment_wrapper(module, split, &layout);
            let mut args = vec![ir::operand(i, 0), ir::operand(i, 1)];
            args.extend(rest);
            args.extend([handles, buffers, lists, cap, count]);
            let call = e.call(wrapper, &mut args);
            crate::calls::parallel::carry_mark(i, call);
            let threads = e.load(LLVMInt32TypeInContext(e.ctx), count);
            let tickets = crate::calls::parallel::has_ordered_critical(callee).then(|| {
                let (counter, _) = crate::calls::parallel::ticket_counters(module, split);
                let v = e.load(i64t, counter);
                LLVMSetOrdering(v, llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent);
                LLVMSetAlignment(v, 8);
                v
            });
            self.region_calls.insert(i, RegionCall { handles, buffers, lists, threads, tickets });
        }
    }

    /// Reverse sweep: a team of the forward team's size resumes the handles.
    pub(in crate::generate) fn reverse_region_call(&mut self, i: Value) {
        let r = self.region_calls[&i];
        let (handles, buffers, lists, threads) =
            (self.fetch(r.handles), self.fetch(r.buffers), self.fetch(r.lists), self.fetch(r.threads));
        let module = self.g.module();
        if let Some(t) = r.tickets {
            // The sections' reverses start from the last ticket taken.
            let t = self.fetch(t);
            let callee = ir::called_function(i).expect("a region's call");
            let mask = crate::prepare::checks::nested_call_pattern(i, &self.mem).expect("validated");
            let split = self.g.request(
                Request::split(callee, &mask)
                    .strong_zero(self.e.strong_zero)
                    .runtime_activity(self.e.runtime_activity)
                    .atomic_adjoints(true),
            );
            let (_, turn) = crate::calls::parallel::ticket_counters(module, split);
            unsafe {
                let s = LLVMBuildStore(self.e.b, t, turn);
                LLVMSetOrdering(s, llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent);
                LLVMSetAlignment(s, 8);
            }
        }
        let loc = crate::calls::parallel::marked_location(i).expect("a region's call");
        let e = &self.e;
        let gtid = e.call(omp_function(module, "__kmpc_global_thread_num"), &mut [loc]);
        e.call(omp_function(module, "__kmpc_push_num_threads"), &mut [loc, gtid, threads]);
        let wrapper = resume_wrapper(module);
        // Pointer-sized, as the runtime passes a microtask's arguments.
        let count = unsafe { LLVMBuildSExt(e.b, threads, LLVMInt64TypeInContext(e.ctx), c"".as_ptr()) };
        let call = e.call(wrapper, &mut [ir::operand(i, 0), ir::operand(i, 1), handles, lists, count]);
        crate::calls::parallel::carry_mark(i, call);
        let free = libc_function(module, "free");
        for p in [handles, buffers, lists] {
            e.call(free, &mut [p]);
        }
    }

    /// A private sum for the adjoints of loads through `p`, when `p` is a
    /// microtask parameter pointing to a shared scalar of the forking
    /// function that nothing in the region writes: no one reads its shadow
    /// during the region's reverse, so each thread adds its sum once, at the
    /// end, instead of one atomic add per load (all threads contending for one
    /// cache line).
    pub(in crate::generate) fn private_accumulator(&mut self, p: Value, t: ir::Type) -> Option<Value> {
        if !ir::is_argument(p) || !crate::calls::parallel::is_private_parameter(p) || self.written_parameter(p) {
            return None;
        }
        if let Some((_, _, slot)) = self.private_sums.iter().find(|(q, u, _)| *q == p && *u == t) {
            return Some(*slot);
        }
        let slot = unsafe {
            let s = LLVMBuildAlloca(self.slots, t, c"private.sum".as_ptr());
            LLVMBuildStore(self.slots, self.e.zero(t), s);
            s
        };
        self.private_sums.push((p, t, slot));
        Some(slot)
    }

    fn written_parameter(&mut self, p: Value) -> bool {
        use crate::calls::classify::{classify, Kind};
        if self.written_parameters.is_none() {
            let mut written = std::collections::HashSet::new();
            for i in self.cfg.order.iter().flat_map(|b| ir::instructions(*b)) {
                let targets: Vec<Value> = match classify(i) {
                    Kind::Store => vec![ir::operand(i, 1)],
                    Kind::MemSet | Kind::MemCpy | Kind::Free | Kind::Realloc => vec![ir::operand(i, 0)],
                    _ if ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMCall => (0..ir::call_arg_count(i))
                        .map(|k| ir::operand(i, k))
                        .filter(|a| ir::is_pointer(ir::type_of(*a)))
                        .collect(),
                    _ => Vec::new(),
                };
                for t in targets {
                    written.extend(ir::pointer_bases(t).into_iter().filter(|b| ir::is_argument(*b)));
                }
            }
            self.written_parameters = Some(written);
        }
        self.written_parameters.as_ref().is_some_and(|w| w.contains(&p))
    }

    /// At the end of the reverse sweep: each private sum goes into its
    /// shadow, atomically.
    pub(in crate::generate) fn flush_private_accumulators(&mut self) {
        for (p, t, slot) in self.private_sums.clone() {
            let v = self.e.load(t, slot);
            let sp = self.shadow(p);
            crate::calls::parallel::atomic_add(&self.e, sp, v);
        }
    }

    /// The ticket and turn counters of the derivative being built (see
    /// `parallel::ORDERED`).
    fn own_counters(&self) -> (Value, Value) {
        let d = unsafe { LLVMGetBasicBlockParent(self.e.current_block()) };
        crate::calls::parallel::ticket_counters(self.g.module(), d)
    }

    /// `counter += 1` or `counter -= 1` (sequentially consistent); its old value.
    fn step(&self, counter: Value, op: llvm_sys::LLVMAtomicRMWBinOp) -> Value {
        unsafe {
            let one = LLVMConstInt(LLVMInt64TypeInContext(self.e.ctx), 1, 0);
            let order = llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent;
            LLVMBuildAtomicRMW(self.e.b, op, counter, one, order, 0)
        }
    }

    /// Forward sweep, at the exit of an ordered critical section (still
    /// inside it): this thread's ticket.
    pub(in crate::generate) fn take_ticket(&mut self, i: Value) {
        if ir::name(ir::called_function(i).expect("a call")) != "__kmpc_end_critical" {
            return;
        }
        let t = self.step(self.own_counters().0, llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpAdd);
        self.tickets.insert(i, t);
    }

    /// Reverse sweep of a barrier or a critical section's entry or exit.
    pub(in crate::generate) fn reverse_synchronisation(&mut self, i: Value) {
        if let Some(t) = self.tickets.get(&i).copied() {
            // The exit of an ordered section: its turn comes after every later ticket's.
            let t = self.fetch(t);
            let want = unsafe { LLVMBuildAdd(self.e.b, t, LLVMConstInt(ir::type_of(t), 1, 0), c"".as_ptr()) };
            let turn = self.own_counters().1;
            self.e.call(crate::build::runtime::wait_turn_function(self.g.module()), &mut [turn, want]);
            return;
        }
        if self.atomic && crate::calls::parallel::ordered_critical(i) {
            // Its entry: the turn passes to the ticket before.
            self.step(self.own_counters().1, llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpSub);
            return;
        }
        let ops: Vec<Value> = (0..ir::call_arg_count(i)).map(|k| self.primal(ir::operand(i, k))).collect();
        crate::calls::parallel::reverse_synchronisation(&self.e, i, &ops);
    }
}

/// `(gtid, btid, args and shadows..., handles, buffers, lists, cap, count)`,
/// forked by the forward sweep: thread t runs the forward part of `split`
/// with buffer t (its kept shadows in list t) and keeps the handle in
/// `handles[t]`; thread 0 writes the team's size.
fn augment_wrapper(module: LLVMModuleRef, split: Value, layout: &SplitIo) -> Value {
    let name = format!("{}.team", ir::name(split));
    if let Some(f) = existing(module, &name) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let (i64t, i32t, ptr) =
            (LLVMInt64TypeInContext(ctx), LLVMInt32TypeInContext(ctx), LLVMPointerTypeInContext(ctx, 0));
        let sparams = ir::params(split);
        // The split derivative's parameters but its buffer, then ours.
        let mut tys: Vec<_> = sparams[..sparams.len() - 1].iter().map(|p| ir::type_of(*p)).collect();
        tys.extend([ptr, ptr, ptr, i64t, ptr]);
        let f = add_function(module, &name, LLVMVoidTypeInContext(ctx), &mut tys);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let p = ir::params(f);
        let n = p.len();
        let (handles, buffers, lists, cap, count) = (p[n - 5], p[n - 4], p[n - 3], p[n - 2], p[n - 1]);
        let e = Emitter::new(module);
        let entry = e.append_block(f, "entry");
        let first = e.append_block(f, "first");
        let run = e.append_block(f, "run");
        e.at_end(entry);
        let t = e.call(omp_function(module, "omp_get_thread_num"), &mut []);
        let t64 = LLVMBuildSExt(e.b, t, i64t, c"".as_ptr());
        let over = LLVMBuildICmp(e.b, llvm_sys::LLVMIntPredicate::LLVMIntUGE, t64, cap, c"".as_ptr());
        e.abort_if(
            over,
            "enzyme-rs: a differentiated OpenMP region ran on more threads than omp_get_max_threads() said",
        );
        let is_first =
            LLVMBuildICmp(e.b, llvm_sys::LLVMIntPredicate::LLVMIntEQ, t, LLVMConstInt(i32t, 0, 0), c"".as_ptr());
        LLVMBuildCondBr(e.b, is_first, first, run);
        e.at_end(first);
        let nt = e.call(omp_function(module, "omp_get_num_threads"), &mut []);
        e.store(nt, count);
        e.br(run);
        e.at_end(run);
        let mut idx = [t64];
        let io = LLVMBuildGEP2(e.b, layout.ty, buffers, idx.as_mut_ptr(), 1, c"".as_ptr());
        let list = LLVMBuildGEP2(e.b, ptr, lists, idx.as_mut_ptr(), 1, c"".as_ptr());
        e.store(list, layout.field(&e, io, layout.freed));
        e.store(LLVMConstNull(ptr), layout.field(&e, io, layout.replay));
        e.store(LLVMConstNull(ptr), layout.field(&e, io, layout.shadows));
        let mut args: Vec<Value> = p[..n - 5].to_vec();
        args.push(io);
        let h = e.call(split, &mut args);
        let slot = LLVMBuildGEP2(e.b, ptr, handles, idx.as_mut_ptr(), 1, c"".as_ptr());
        e.store(h, slot);
        LLVMBuildRetVoid(e.b);
        f
    }
}

/// `(gtid, btid, handles, lists, i64 count)`, forked by the reverse sweep: the
/// threads resume handles `t, t + team, ...` below `count` (with a team of
/// the forward team's size, one each), then free their kept shadows.
fn resume_wrapper(module: LLVMModuleRef) -> Value {
    const NAME: &str = "enzyme_rs.omp.resume_team";
    if let Some(f) = existing(module, NAME) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let (i64t, ptr) = (LLVMInt64TypeInContext(ctx), LLVMPointerTypeInContext(ctx, 0));
        let f = add_function(module, NAME, LLVMVoidTypeInContext(ctx), &mut [ptr, ptr, ptr, ptr, i64t]);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let p = ir::params(f);
        let (handles, lists, count) = (p[2], p[3], p[4]);
        let e = Emitter::new(module);
        let entry = e.append_block(f, "entry");
        let test = e.append_block(f, "test");
        let body = e.append_block(f, "resume");
        let done = e.append_block(f, "done");
        e.at_end(entry);
        let t = e.call(omp_function(module, "omp_get_thread_num"), &mut []);
        let t = LLVMBuildSExt(e.b, t, i64t, c"".as_ptr());
        let nt = e.call(omp_function(module, "omp_get_num_threads"), &mut []);
        let nt = LLVMBuildSExt(e.b, nt, i64t, c"".as_ptr());
        e.br(test);
        e.at_end(test);
        let k = LLVMBuildPhi(e.b, i64t, c"k".as_ptr());
        let more = LLVMBuildICmp(e.b, llvm_sys::LLVMIntPredicate::LLVMIntSLT, k, count, c"".as_ptr());
        LLVMBuildCondBr(e.b, more, body, done);
        e.at_end(body);
        let mut idx = [k];
        let h = e.load(ptr, LLVMBuildGEP2(e.b, ptr, handles, idx.as_mut_ptr(), 1, c"".as_ptr()));
        e.intrinsic("llvm.coro.resume", &[], &mut [h]);
        let list = LLVMBuildGEP2(e.b, ptr, lists, idx.as_mut_ptr(), 1, c"".as_ptr());
        e.call(free_shadow_list_function(module), &mut [list]);
        let next = LLVMBuildAdd(e.b, k, nt, c"".as_ptr());
        e.br(test);
        let (mut vals, mut blocks) = ([t, next], [entry, body]);
        LLVMAddIncoming(k, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
        e.at_end(done);
        LLVMBuildRetVoid(e.b);
        f
    }
}
