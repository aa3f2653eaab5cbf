//! What the reverse sweep needs from the forward sweep: values saved in
//! slots or on per-loop tapes indexed by the loop instance, loop instance
//! counters, and which predecessor each block was entered from.

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use crate::analysis::memory::{self};
use crate::ir::{self, Block, Type, Value};

use crate::generate::body::EMPTY;
use crate::generate::reverse::state::{LoopTape, Reverse};

impl<'g> Reverse<'g> {
    /// In each loop's preheader, the instance number the entry starts at.
    pub(in crate::generate) fn record_loop_entries(&mut self) {
        for l in 0..self.cfg.loops.len() {
            let header = self.cfg.loops[l].header;
            let outside: Vec<Block> =
                self.cfg.preds[&header].iter().copied().filter(|p| !self.cfg.loops[l].blocks.contains(p)).collect();
            let [pre] = outside.as_slice() else { continue };
            if !self.cfg.live.contains(pre) {
                continue;
            }
            unsafe {
                let tmp = LLVMCreateBuilderInContext(self.e.ctx);
                LLVMPositionBuilderBefore(tmp, ir::terminator(self.fwd[pre]));
                let i64t = LLVMInt64TypeInContext(self.e.ctx);
                let v = LLVMBuildLoad2(tmp, i64t, self.count[l], c"entry".as_ptr());
                LLVMDisposeBuilder(tmp);
                self.entry_instance.insert(l, v);
            }
        }
    }

    /// For a counted loop `l`, the tape length that its current entry needs
    /// (first instance + an upper bound of its trip count), computed in its
    /// preheader; `None` when the count is not known on entry.
    pub(in crate::generate) fn reservation(&mut self, l: usize) -> Option<Value> {
        if let Some(r) = self.reserved.get(&l) {
            return *r;
        }
        let r = self.compute_reservation(l);
        self.reserved.insert(l, r);
        r
    }

    pub(in crate::generate) fn compute_reservation(&mut self, l: usize) -> Option<Value> {
        let entry = *self.entry_instance.get(&l)?;
        let c = crate::ir::trip::counted(&self.cfg, &self.cfg.loops[l])?;
        let width = ir::int_width(ir::type_of(c.start));
        if width > 64 {
            return None;
        }
        let pre = ir::parent_block(entry);
        unsafe {
            let b = LLVMCreateBuilderInContext(self.e.ctx);
            LLVMPositionBuilderBefore(b, ir::terminator(pre));
            let i64t = LLVMInt64TypeInContext(self.e.ctx);
            let widen = |v: Value| {
                if c.unsigned {
                    LLVMBuildZExtOrBitCast(b, v, i64t, EMPTY)
                } else {
                    LLVMBuildSExtOrBitCast(b, v, i64t, EMPTY)
                }
            };
            let s = widen(self.map.get(&c.start).copied().unwrap_or(c.start));
            let e = widen(self.map.get(&c.bound).copied().unwrap_or(c.bound));
            let diff = if c.step > 0 { LLVMBuildSub(b, e, s, EMPTY) } else { LLVMBuildSub(b, s, e, EMPTY) };
            let per = LLVMBuildSDiv(b, diff, LLVMConstInt(i64t, c.step.unsigned_abs(), 0), EMPTY);
            // One more for a test on the next value, one for the last header visit.
            let trip = LLVMBuildAdd(b, per, LLVMConstInt(i64t, 2, 0), EMPTY);
            // Nothing reserved for an empty range or a count too large to
            // trust: the bound of one exit of a loop with others (`zip(1..)`
            // stops at the shorter side, not at `i32::MAX`). The tape still
            // grows as needed.
            let neg = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntSLT, diff, LLVMConstInt(i64t, 0, 0), EMPTY);
            let huge =
                LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntUGT, trip, LLVMConstInt(i64t, 1 << 24, 0), EMPTY);
            let skip = LLVMBuildOr(b, neg, huge, EMPTY);
            let trip = LLVMBuildSelect(b, skip, LLVMConstInt(i64t, 0, 0), trip, EMPTY);
            let need = LLVMBuildAdd(b, entry, trip, c"reserve".as_ptr());
            LLVMDisposeBuilder(b);
            Some(need)
        }
    }

    /// The loop whose header is the forward block holding `n`, if `n` is a
    /// phi there.
    pub(in crate::generate) fn header_loop_of(&self, n: Value) -> Option<usize> {
        if ir::opcode(n) != llvm_sys::LLVMOpcode::LLVMPHI {
            return None;
        }
        let b = *self.prep_block.get(&ir::parent_block(n))?;
        self.cfg.loops.iter().position(|l| l.header == b)
    }

    /// Which iteration of its current entry the reverse sweep is in, counted
    /// from 0, for loop `l`: `instance - first instance of the entry`.
    pub(in crate::generate) fn iteration(&mut self, l: usize) -> Option<Value> {
        let start = match self.rev_entry.get(&l) {
            Some((slot, _)) => self.e.load(unsafe { LLVMInt64TypeInContext(self.e.ctx) }, *slot),
            None => {
                let entry = *self.entry_instance.get(&l)?;
                self.fetch(entry)
            }
        };
        let now = self.rev_instance_here(l);
        Some(unsafe { LLVMBuildSub(self.e.b, now, start, c"iteration".as_ptr()) })
    }

    /// The header visits of the loop entry being reversed, of shape `v` (see
    /// `trip::exact_visits`), as an `i64`, from its start and bound fetched
    /// where the reverse sweep enters it.
    pub(in crate::generate) fn exact_visits(&mut self, v: crate::ir::trip::ExactVisits) -> Value {
        // (The loop's values are the function's; the sweeps use their images.)
        let image = |x: Value| self.map.get(&x).copied().unwrap_or(x);
        let (start, bound) = (image(v.start), image(v.bound));
        let (start, bound) = (self.fetch(start), self.fetch(bound));
        unsafe {
            let t = ir::type_of(start);
            let i64t = LLVMInt64TypeInContext(self.e.ctx);
            // (bound - start) * step, less one when the next value is tested,
            // in the counter's width; then one more for the last visit.
            let mut m = if v.step > 0 {
                LLVMBuildSub(self.e.b, bound, start, EMPTY)
            } else {
                LLVMBuildSub(self.e.b, start, bound, EMPTY)
            };
            if v.tests_next {
                m = LLVMBuildSub(self.e.b, m, LLVMConstInt(t, 1, 0), EMPTY);
            }
            let m = LLVMBuildZExtOrBitCast(self.e.b, m, i64t, EMPTY);
            LLVMBuildAdd(self.e.b, m, LLVMConstInt(i64t, 1, 0), c"visits".as_ptr())
        }
    }

    /// An induction variable `i = start + step * k` (a header phi fed back
    /// `i + step` by the latch) in iteration `k`, computed instead of taped.
    pub(in crate::generate) fn induction_value(&mut self, n: Value) -> Option<Value> {
        let l = self.header_loop_of(n)?;
        let t = ir::type_of(n);
        if !ir::is_int(t) {
            return None;
        }
        let lp = &self.cfg.loops[l];
        let crate::ir::trip::Stepped { start, step, .. } =
            crate::ir::trip::stepped(n, |b| Some(lp.blocks.contains(self.prep_block.get(&b)?)))?;
        let k = self.iteration(l)?;
        let s = self.fetch(start);
        unsafe {
            let k = LLVMBuildTruncOrBitCast(self.e.b, k, t, EMPTY);
            let off = LLVMBuildMul(self.e.b, k, step, EMPTY);
            Some(LLVMBuildAdd(self.e.b, s, off, c"induction".as_ptr()))
        }
    }

    /// In a loop header: number this execution (the instance), for the tape.
    pub(in crate::generate) fn count_instance(&mut self, b: Block) {
        let Some(l) = self.cfg.loops.iter().position(|l| l.header == b) else { return };
        unsafe {
            let i64t = LLVMInt64TypeInContext(self.e.ctx);
            let id = LLVMBuildLoad2(self.e.b, i64t, self.count[l], c"instance".as_ptr());
            let next = LLVMBuildAdd(self.e.b, id, LLVMConstInt(i64t, 1, 0), EMPTY);
            LLVMBuildStore(self.e.b, next, self.count[l]);
            self.instance.insert(l, id);
        }
    }

    /// In a block with several predecessors, records which one we came from.
    pub(in crate::generate) fn record_selector(&mut self, b: Block) {
        if self.cfg.preds[&b].len() <= 1 {
            return;
        }
        let preds = self.cfg.preds[&b].clone();
        unsafe {
            // A byte on the tape unless there are more predecessors than that counts.
            let index_t =
                if preds.len() <= 256 { LLVMInt8TypeInContext(self.e.ctx) } else { LLVMInt32TypeInContext(self.e.ctx) };
            let phi = LLVMBuildPhi(self.e.b, index_t, c"from".as_ptr());
            for (k, p) in preds.iter().enumerate() {
                // One phi entry per edge, so duplicate edges (switch cases) are counted.
                let edges = ir::successors(ir::terminator(*p)).into_iter().filter(|s| *s == b).count();
                for _ in 0..edges {
                    let mut v = LLVMConstInt(index_t, k as u64, 0);
                    let mut nb = self.fwd[p];
                    LLVMAddIncoming(phi, &mut v, &mut nb, 1);
                }
            }
            self.selector.insert(b, phi);
        }
    }

    /// In a loop header, which predecessor we came from follows from the
    /// iteration: the first came from outside the loop, the others from the latch.
    pub(in crate::generate) fn header_selector(&mut self, b: Block) -> Option<Value> {
        let l = self.cfg.loops.iter().position(|l| l.header == b)?;
        let preds = self.cfg.preds[&b].clone();
        if preds.len() != 2 {
            return None;
        }
        let inside = |p: &Block| self.cfg.loops[l].blocks.contains(p);
        let outside_index = preds.iter().position(|p| !inside(p))? as u64;
        let latch_index = preds.iter().position(inside)? as u64;
        let k = self.iteration(l)?;
        unsafe {
            let i32t = LLVMInt32TypeInContext(self.e.ctx);
            let first = LLVMBuildICmp(
                self.e.b,
                llvm_sys::LLVMIntPredicate::LLVMIntEQ,
                k,
                LLVMConstInt(LLVMTypeOf(k), 0, 0),
                EMPTY,
            );
            Some(LLVMBuildSelect(
                self.e.b,
                first,
                LLVMConstInt(i32t, outside_index, 0),
                LLVMConstInt(i32t, latch_index, 0),
                EMPTY,
            ))
        }
    }

    /// A forward-sweep value at the current point of the reverse sweep.
    ///
    /// Values from the slot block and the forward entry block are used as
    /// they are (those blocks dominate the reverse sweep). Others are saved
    /// at the end of their block: in a stack slot outside loops, on a tape
    /// indexed by the loop instance inside a loop.
    pub(in crate::generate) fn fetch(&mut self, n: Value) -> Value {
        self.fetch_at_depth(n, 0)
    }

    /// Constants, arguments and values of the slot block or the forward
    /// entry block: they dominate the reverse sweep, so it uses them as they are.
    pub(in crate::generate) fn available_as_is(&self, v: Value) -> bool {
        !ir::is_instruction(v) || [self.slot_block, self.fwd[&self.cfg.entry()]].contains(&ir::parent_block(v))
    }

    pub(in crate::generate) fn fetch_at_depth(&mut self, n: Value, depth: u32) -> Value {
        if let Some((f, to)) = self.forwarding {
            // Computing a stored value again (see `stored_values`): the
            // writing loop's counter is the reading loop's, and what the
            // writing loop computed is computed again, never looked up.
            if n == f.from {
                return to;
            }
            if self.foreign_to(&f, n) {
                return self.clone_with_fetched_operands(n, depth);
            }
        }
        if self.available_as_is(n) {
            return n;
        }
        let here = self.e.current_block();
        if let Some(x) = self.loaded.get(&(here, n)) {
            return *x;
        }
        if let Some(x) = self.induction_value(n) {
            self.loaded.insert((here, n), x);
            return x;
        }
        if depth < 6 && (recomputable(n) || self.rereadable(n) || self.float_recomputable(n)) {
            // Cheaper to compute again from its operands than to keep on a tape.
            let x = self.clone_with_fetched_operands(n, depth);
            self.loaded.insert((here, n), x);
            return x;
        }
        if self.forwarding.is_none() {
            if let Some(f) = self.stored_value(n) {
                let mut to = self.fetch_at_depth(f.to, depth + 1);
                if f.delta != 0 {
                    to = unsafe { LLVMBuildAdd(self.e.b, to, LLVMConstInt(ir::type_of(to), f.delta as u64, 1), EMPTY) };
                }
                self.forwarding = Some((f, to));
                let x = self.fetch_at_depth(f.value, depth + 1);
                self.forwarding = None;
                self.loaded.insert((here, n), x);
                return x;
            }
        }
        let t = ir::type_of(n);
        let block = self.prep_block[&ir::parent_block(n)];
        let x = match self.cfg.innermost.get(&block).copied() {
            None => {
                let slot = match self.cache.get(&n) {
                    Some(s) => *s,
                    None => unsafe {
                        let s = LLVMBuildAlloca(self.slots, t, c"cache".as_ptr());
                        let tmp = LLVMCreateBuilderInContext(self.e.ctx);
                        LLVMPositionBuilderBefore(tmp, ir::terminator(ir::parent_block(n)));
                        LLVMBuildStore(tmp, n, s);
                        LLVMDisposeBuilder(tmp);
                        self.cache.insert(n, s);
                        s
                    },
                };
                self.e.load(t, slot)
            }
            Some(l) if self.in_entry_table(n, l) => self.fetch_from_entry_table(n, l),
            Some(l) => {
                let offset = match self.tape_fields.get(&n) {
                    Some((_, o)) => *o,
                    None => self.tape_value(n, l),
                };
                let record = self.record_in(self.e.current_block(), l, |r| {
                    let id = r.rev_instance_here(l);
                    r.loop_tapes[&l].record(r.e.ctx, r.e.b, id)
                });
                let p = field(self.e.ctx, self.e.b, record, offset);
                let x = self.e.load(t, p);
                self.tape_accesses.push(x);
                unsafe { LLVMSetAlignment(x, tape_alignment(self.g.module(), t)) };
                x
            }
        };
        self.loaded.insert((here, n), x);
        x
    }

    /// `n` again at the reverse sweep's current point, its operands fetched.
    fn clone_with_fetched_operands(&mut self, n: Value, depth: u32) -> Value {
        let ops: Vec<Value> =
            (0..ir::operand_count(n)).map(|k| self.fetch_at_depth(ir::operand(n, k), depth + 1)).collect();
        unsafe {
            let x = LLVMInstructionClone(n);
            LLVMInsertIntoBuilder(self.e.b, x);
            for (k, o) in ops.into_iter().enumerate() {
                LLVMSetOperand(x, k as u32, o);
            }
            x
        }
    }

    /// A cheap float operation (`fadd`, `fsub`, `fmul`, `fneg`) worth
    /// computing again in the reverse sweep rather than taping: at most one of
    /// its distinct operands costs anything to fetch, so recomputing never
    /// keeps more values than taping `n` would (`u * u` keeps `u`, which the
    /// partials of `u`'s other uses usually need anyway). The result is the
    /// same bits: the instruction is cloned with its flags.
    pub(in crate::generate) fn float_recomputable(&self, n: Value) -> bool {
        use llvm_sys::LLVMOpcode::*;
        if !matches!(ir::opcode(n), LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFNeg) || self.is_kept(n) {
            return false;
        }
        let mut costly: Vec<Value> = Vec::new();
        for k in 0..ir::operand_count(n) {
            let o = ir::operand(n, k);
            let free = self.available_as_is(o) || self.is_kept(o) || recomputable(o);
            if !free && !costly.contains(&o) {
                costly.push(o);
            }
        }
        costly.len() <= 1
    }

    /// A load of memory nothing writes while the derivative runs (see
    /// `reread`): from a `noalias` argument the function only reads, or from
    /// the caller's memory (an argument's or a global's) when the function
    /// writes none. The value is still there in the reverse sweep.
    pub(in crate::generate) fn rereadable(&self, n: Value) -> bool {
        if ir::opcode(n) != llvm_sys::LLVMOpcode::LLVMLoad || ir::is_atomic(n) || unsafe { LLVMGetVolatile(n) != 0 } {
            return false;
        }
        let root = memory::root_of(ir::operand(n, 0));
        // The set holds the function's own arguments; the sweeps use the
        // derivative's (the map's images).
        if self.unwritten_arguments.iter().any(|a| self.map.get(a).copied().unwrap_or(*a) == root) {
            return true;
        }
        if let Some(block) = self.prep_block.get(&ir::parent_block(n)) {
            let settled = self.settled_slots.iter().find(|(a, _)| self.map.get(*a).copied() == Some(root));
            if let Some((_, tainted)) = settled {
                return !tainted.contains(block);
            }
        }
        self.inputs_unchanged && unsafe { ir::is_argument(root) || !LLVMIsAGlobalVariable(root).is_null() }
    }

    /// The instance of loop `l` being reversed, loaded once per reverse block.
    pub(in crate::generate) fn rev_instance_here(&mut self, l: usize) -> Value {
        let here = self.e.current_block();
        if let Some(v) = self.loaded_instance.get(&(here, l)) {
            return *v;
        }
        let v = unsafe {
            LLVMBuildLoad2(self.e.b, LLVMInt64TypeInContext(self.e.ctx), self.rev_instance[l], c"instance".as_ptr())
        };
        self.loaded_instance.insert((here, l), v);
        v
    }

    /// Whether `n` is already kept for the reverse sweep (in a slot or on a tape).
    pub(in crate::generate) fn is_kept(&self, n: Value) -> bool {
        self.cache.contains_key(&n) || self.tape_fields.contains_key(&n)
    }

    /// Puts forward value `n` of loop `l` on the loop's tape: a field of the
    /// record each instance of the loop writes; returns the field's offset.
    pub(in crate::generate) fn tape_value(&mut self, n: Value, l: usize) -> u64 {
        let t = ir::type_of(n);
        let mut tape = match self.loop_tapes.get(&l) {
            Some(tape) => *tape,
            None => self.new_loop_tape(l),
        };
        let (size, align) = unsafe {
            let layout = llvm_sys::target::LLVMGetModuleDataLayout(self.g.module());
            (llvm_sys::target::LLVMABISizeOfType(layout, t), u64::from(tape_alignment(self.g.module(), t)))
        };
        let offset = tape.place(size, align);
        self.loop_tapes.insert(l, tape);
        unsafe {
            // Written into the record of this instance at the end of its
            // block, or in a large block right where it is computed (a phi:
            // at the end still), so it need not stay in a register until the
            // block ends: thousands of statements would keep thousands of
            // values alive at once. (Not everywhere: the SLP vectoriser takes
            // several times longer over writes spread through a block.)
            let block = ir::parent_block(n);
            let large = *self.large_blocks.entry(block).or_insert_with(|| ir::instructions(block).len() > LARGE_BLOCK);
            let record = self.record_in(block, l, |r| r.record_address(block, l, &tape));
            let tmp = LLVMCreateBuilderInContext(self.e.ctx);
            if !large || ir::opcode(n) == llvm_sys::LLVMOpcode::LLVMPHI || LLVMIsATerminatorInst(n) == n {
                LLVMPositionBuilderBefore(tmp, ir::terminator(block));
            } else {
                LLVMPositionBuilderBefore(tmp, LLVMGetNextInstruction(n));
            }
            let p = field(self.e.ctx, tmp, record, offset);
            let s = LLVMBuildStore(tmp, n, p);
            LLVMSetAlignment(s, tape_alignment(self.g.module(), t));
            self.tape_accesses.push(s);
            LLVMDisposeBuilder(tmp);
        }
        self.tape_fields.insert(n, (l, offset));
        offset
    }

    /// The address of loop `l`'s record that block `block` reads or writes,
    /// made by `make` the first time (see [`Reverse::records`]).
    fn record_in(&mut self, block: Block, l: usize, make: impl FnOnce(&mut Self) -> Value) -> Value {
        if let Some(r) = self.records.get(&(block, l)) {
            return *r;
        }
        let r = make(self);
        self.records.insert((block, l), r);
        r
    }

    /// The address of this instance's record of loop `l`'s tape, for the
    /// writes of forward block `block`: computed before any value the block
    /// tapes that is not a phi (at the top of the block; in the loop's header,
    /// after the instance is numbered and the tape grown for it).
    fn record_address(&self, block: Block, l: usize, tape: &LoopTape) -> Value {
        let id = self.instance[&l];
        unsafe {
            let at = if ir::parent_block(id) == block {
                LLVMGetNextInstruction(tape.grown_at.unwrap_or(id))
            } else {
                let mut i = LLVMGetFirstInstruction(block);
                while matches!(ir::opcode(i), llvm_sys::LLVMOpcode::LLVMPHI | llvm_sys::LLVMOpcode::LLVMLandingPad) {
                    i = LLVMGetNextInstruction(i);
                }
                i
            };
            let tmp = LLVMCreateBuilderInContext(self.e.ctx);
            LLVMPositionBuilderBefore(tmp, at);
            let r = tape.record(self.e.ctx, tmp, id);
            LLVMDisposeBuilder(tmp);
            r
        }
    }

    /// The tape of loop `l`: one buffer of records, one per instance of the
    /// loop, grown once per instance in the header (and sized on entry when
    /// the trip count is known there). The record's size (the stride) is
    /// known once the reverse sweep is built: [`Reverse::finish_tapes`].
    fn new_loop_tape(&mut self, l: usize) -> LoopTape {
        unsafe {
            let ctx = self.e.ctx;
            let ptr_t = LLVMPointerTypeInContext(ctx, 0);
            let i64t = LLVMInt64TypeInContext(ctx);
            let buf = LLVMBuildAlloca(self.slots, ptr_t, c"tape".as_ptr());
            LLVMBuildStore(self.slots, LLVMConstNull(ptr_t), buf);
            let cap = LLVMBuildAlloca(self.slots, i64t, c"tape.cap".as_ptr());
            LLVMBuildStore(self.slots, LLVMConstInt(i64t, 0, 0), cap);
            let stride = LLVMBuildAlloca(self.slots, i64t, c"tape.stride".as_ptr());
            // No reuse in a split derivative: a recursive function's frames
            // are alive at once, and each would start at the largest's size.
            let hint = if self.g.ablation().no_tape_reuse || self.split.is_some() {
                LLVMConstNull(ptr_t)
            } else {
                crate::generate::tape_buffer::new_hint(self.g.module())
            };
            // A loop with a proven bound on its instances per call gets its
            // whole tape at the start (see `finish_tapes`) and never grows it.
            // Not in a split derivative, whose tapes outlive the frame.
            let fixed = if self.split.is_none() && !self.g.ablation().no_bounded_tapes {
                crate::ir::trip::visits_per_call(&self.cfg, l)
            } else {
                None
            };
            let mut tape = LoopTape { buf, cap, stride, hint, fixed, size: 0, align: 1, hole: (0, 0), grown_at: None };
            self.loop_tapes.insert(l, tape);
            if fixed.is_some() {
                return tape;
            }
            let grow = crate::generate::tape_buffer::grow_function(self.g.module());
            if let Some(need) = self.reservation(l) {
                // Sized once on entry to the loop, so its iterations need not grow it.
                let pre = LLVMCreateBuilderInContext(ctx);
                LLVMPositionBuilderBefore(pre, ir::terminator(ir::parent_block(need)));
                let stride = LLVMBuildLoad2(pre, i64t, tape.stride, EMPTY);
                let mut args = [buf, cap, need, stride, hint];
                LLVMBuildCall2(pre, ir::function_type(grow), grow, args.as_mut_ptr(), 5, EMPTY);
                LLVMDisposeBuilder(pre);
            }
            // In the header, right after the instance is numbered.
            let id = self.instance[&l];
            let tmp = LLVMCreateBuilderInContext(ctx);
            LLVMPositionBuilderBefore(tmp, LLVMGetNextInstruction(id));
            let need = LLVMBuildAdd(tmp, id, LLVMConstInt(i64t, 1, 0), EMPTY);
            let stride = LLVMBuildLoad2(tmp, i64t, tape.stride, EMPTY);
            let mut args = [buf, cap, need, stride, hint];
            tape.grown_at = Some(LLVMBuildCall2(tmp, ir::function_type(grow), grow, args.as_mut_ptr(), 5, EMPTY));
            LLVMDisposeBuilder(tmp);
            self.loop_tapes.insert(l, tape);
            tape
        }
    }

    /// The loops' tapes, in the order of their loops (so generated code is
    /// the same from one build to the next).
    pub(in crate::generate) fn tapes_in_order(&self) -> Vec<LoopTape> {
        let mut tapes: Vec<(usize, LoopTape)> = self.loop_tapes.iter().map(|(l, t)| (*l, *t)).collect();
        tapes.sort_by_key(|(l, _)| *l);
        let mut tables: Vec<(usize, LoopTape)> = self.entry_tables.iter().map(|(l, t)| (*l, *t)).collect();
        tables.sort_by_key(|(l, _)| *l);
        tapes.into_iter().chain(tables).map(|(_, t)| t).collect()
    }

    /// Gives every loop tape its record size, now that its fields are known,
    /// and its whole buffer to a tape of a bounded loop: on the stack when
    /// small, else from the heap once (nothing is freed for a stack tape: its
    /// capacity slot stays 0).
    pub(in crate::generate) fn finish_tapes(&mut self) {
        let i64t = unsafe { LLVMInt64TypeInContext(self.e.ctx) };
        for tape in self.tapes_in_order() {
            let stride = tape.size.div_ceil(tape.align).max(1) * tape.align;
            unsafe {
                LLVMBuildStore(self.slots, LLVMConstInt(i64t, stride, 0), tape.stride);
                let Some(records) = tape.fixed else { continue };
                let bytes = records * stride;
                if bytes <= STACK_TAPE_BYTES {
                    let t = LLVMArrayType2(LLVMInt8TypeInContext(self.e.ctx), bytes);
                    let a = LLVMBuildAlloca(self.slots, t, c"tape.stack".as_ptr());
                    LLVMSetAlignment(a, 16);
                    LLVMBuildStore(self.slots, a, tape.buf);
                } else {
                    let grow = crate::generate::tape_buffer::grow_function(self.g.module());
                    let mut args =
                        [tape.buf, tape.cap, LLVMConstInt(i64t, records, 0), LLVMConstInt(i64t, stride, 0), tape.hint];
                    LLVMBuildCall2(self.slots, ir::function_type(grow), grow, args.as_mut_ptr(), 5, EMPTY);
                }
            }
        }
    }

    /// Tells the optimiser that the tapes' records are memory of their own:
    /// their loads and stores get the alias scope `enzyme_rs.tape`, and every
    /// other load and store of derivative `d` is marked `noalias` with it. No
    /// pointer of the program points into a tape, so the reverse sweep's
    /// reads of a record then move out of inner loops past the adjoints
    /// stored there (they were read again on every iteration).
    pub(in crate::generate) fn mark_tape_scope(&self, d: Value) {
        if self.tape_accesses.is_empty() {
            return;
        }
        unsafe {
            let ctx = self.e.ctx;
            let md = |s: &str| LLVMMDStringInContext2(ctx, s.as_ptr().cast(), s.len());
            let domain = LLVMMDNodeInContext2(ctx, [md("enzyme_rs.tape.domain")].as_mut_ptr(), 1);
            let scope = LLVMMDNodeInContext2(ctx, [md("enzyme_rs.tape"), domain].as_mut_ptr(), 2);
            let kind = |name: &str| LLVMGetMDKindIDInContext(ctx, name.as_ptr().cast(), name.len() as u32);
            let (scope_kind, noalias_kind) = (kind("alias.scope"), kind("noalias"));
            let tape: std::collections::HashSet<Value> = self.tape_accesses.iter().copied().collect();
            let list = LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, [scope].as_mut_ptr(), 1));
            for b in ir::blocks(d) {
                for i in ir::instructions(b) {
                    use llvm_sys::LLVMOpcode::*;
                    if !matches!(ir::opcode(i), LLVMLoad | LLVMStore) {
                        continue;
                    }
                    if tape.contains(&i) {
                        LLVMSetMetadata(i, scope_kind, list);
                        continue;
                    }
                    // Added to the scopes it is already known not to alias.
                    let old = LLVMGetMetadata(i, noalias_kind);
                    let mut scopes: Vec<llvm_sys::prelude::LLVMMetadataRef> = Vec::new();
                    if !old.is_null() {
                        let n = LLVMGetMDNodeNumOperands(old) as usize;
                        let mut ops: Vec<Value> = vec![std::ptr::null_mut(); n];
                        LLVMGetMDNodeOperands(old, ops.as_mut_ptr());
                        scopes.extend(ops.into_iter().map(|o| LLVMValueAsMetadata(o)));
                    }
                    scopes.push(scope);
                    let node = LLVMMDNodeInContext2(ctx, scopes.as_mut_ptr(), scopes.len());
                    LLVMSetMetadata(i, noalias_kind, LLVMMetadataAsValue(ctx, node));
                }
            }
        }
    }
}

/// A forward block of more instructions than this writes each taped value
/// where it is computed (see `tape_value`). Its derivative is past the size
/// at which the driver holds the SLP vectoriser back (about six times the
/// block), so the vectoriser never meets the spread writes.
const LARGE_BLOCK: usize = 700;

/// A tape of a bounded loop whose whole buffer takes at most this many
/// bytes lives on the stack.
const STACK_TAPE_BYTES: u64 = 4096;

impl LoopTape {
    /// The offset of a new field: in the padding an earlier field left if it
    /// fits there (an `i32` before a `double` leaves 4 bytes), else at the end.
    pub(in crate::generate) fn place(&mut self, size: u64, align: u64) -> u64 {
        self.align = self.align.max(align);
        let (at, room) = self.hole;
        let start = at.div_ceil(align) * align;
        if start + size <= at + room {
            self.hole = (start + size, at + room - (start + size));
            return start;
        }
        let offset = self.size.div_ceil(align) * align;
        if offset - self.size > room {
            self.hole = (self.size, offset - self.size);
        }
        self.size = offset + size;
        offset
    }

    /// A table of `rows` records made whole at the start of the call (see
    /// `entry_tables`): slots in the slot block, no reuse between calls.
    pub(in crate::generate) fn table(ctx: LLVMContextRef, slots: LLVMBuilderRef, rows: u64) -> LoopTape {
        unsafe {
            let ptr_t = LLVMPointerTypeInContext(ctx, 0);
            let i64t = LLVMInt64TypeInContext(ctx);
            let buf = LLVMBuildAlloca(slots, ptr_t, c"table".as_ptr());
            LLVMBuildStore(slots, LLVMConstNull(ptr_t), buf);
            let cap = LLVMBuildAlloca(slots, i64t, c"table.cap".as_ptr());
            LLVMBuildStore(slots, LLVMConstInt(i64t, 0, 0), cap);
            let stride = LLVMBuildAlloca(slots, i64t, c"table.stride".as_ptr());
            let hint = LLVMConstNull(ptr_t);
            LoopTape { buf, cap, stride, hint, fixed: Some(rows), size: 0, align: 1, hole: (0, 0), grown_at: None }
        }
    }

    /// The arguments of `enzyme_rs.tape.release` for this tape, loaded at
    /// the emitter's position.
    pub(in crate::generate) fn release_args(&self, e: &crate::build::emit::Emitter) -> [Value; 4] {
        unsafe {
            let i64t = LLVMInt64TypeInContext(e.ctx);
            let buf = e.load(LLVMPointerTypeInContext(e.ctx, 0), self.buf);
            [buf, e.load(i64t, self.cap), e.load(i64t, self.stride), self.hint]
        }
    }

    /// The address of record `id`.
    pub(in crate::generate) fn record(&self, ctx: LLVMContextRef, b: LLVMBuilderRef, id: Value) -> Value {
        unsafe {
            let buf = LLVMBuildLoad2(b, LLVMPointerTypeInContext(ctx, 0), self.buf, EMPTY);
            let stride = LLVMBuildLoad2(b, LLVMInt64TypeInContext(ctx), self.stride, EMPTY);
            let mut idx = [LLVMBuildMul(b, id, stride, EMPTY)];
            LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), buf, idx.as_mut_ptr(), 1, EMPTY)
        }
    }
}

/// The address of the field at `offset` of a record.
pub(in crate::generate) fn field(ctx: LLVMContextRef, b: LLVMBuilderRef, record: Value, offset: u64) -> Value {
    if offset == 0 {
        return record;
    }
    unsafe {
        let mut idx = [LLVMConstInt(LLVMInt64TypeInContext(ctx), offset, 0)];
        LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), record, idx.as_mut_ptr(), 1, EMPTY)
    }
}

/// Pure integer and address arithmetic: recomputed in the reverse sweep from
/// its (fetched) operands instead of being saved.
pub(crate) fn recomputable(n: Value) -> bool {
    use llvm_sys::LLVMOpcode::*;
    let t = ir::type_of(n);
    let scalar = ir::is_int(t) || ir::is_pointer(t);
    scalar
        && matches!(
            ir::opcode(n),
            LLVMGetElementPtr
                | LLVMBitCast
                | LLVMAddrSpaceCast
                | LLVMAdd
                | LLVMSub
                | LLVMMul
                | LLVMShl
                | LLVMAnd
                | LLVMOr
                | LLVMXor
                | LLVMZExt
                | LLVMSExt
                | LLVMTrunc
                | LLVMICmp
        )
}

/// The alignment of tape entries of type `t`: their own, but no more than
/// what `malloc`/`realloc` guarantee for the buffer (a `<4 x double>` wants 32).
fn tape_alignment(module: LLVMModuleRef, t: Type) -> u32 {
    unsafe { llvm_sys::target::LLVMABIAlignmentOfType(llvm_sys::target::LLVMGetModuleDataLayout(module), t).min(16) }
}
