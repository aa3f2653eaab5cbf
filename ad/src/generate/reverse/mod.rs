//! Combined reverse mode: a forward sweep that runs the primal and keeps
//! what the reverse sweep needs, then the reverse sweep over the reversed
//! CFG (see [`crate::generate::gen`]). Tapes and loop instances are in [`crate::generate::reverse::tape`],
//! split derivatives (coroutines) in [`crate::generate::split`].
//!
//! Vector mode (width N) has N lanes, each with its own seed, shadows and
//! adjoints: the primal runs once, the values the reverse sweep needs are
//! kept once, and every instruction's reverse is made once per lane.

use std::collections::HashMap;

use llvm_sys::core::*;

use crate::analysis::memory::{self, CopyLayout, Elem, PtrStatus};
use crate::build::emit::Emitter;
use crate::build::runtime::adjoint_move_function;
use crate::calls::classify::{classify, Kind};
use crate::ir::cfg::Cfg;
use crate::ir::{self, Block, Value};
use crate::surface::request::{Derivatives, Mode, Request};

use crate::generate::body::{clone_primal, map_params, remap_callee, Lanes, Shadows, EMPTY};

pub(crate) mod checkpoint;
pub(crate) mod parallel;
pub(crate) mod replay;
pub(crate) mod state;
pub(crate) mod stored_values;
pub(crate) mod sum_loops;
pub(crate) mod tape;

use state::Lane;
pub(crate) use state::Reverse;
pub(in crate::generate) use state::Split;

impl Lanes for Reverse<'_> {
    fn lane_count(&self) -> usize {
        self.lanes.len()
    }

    fn current_lane(&self) -> usize {
        self.lane
    }

    fn exchange(&mut self, lane: usize) {
        let l = &mut self.lanes[lane];
        std::mem::swap(&mut self.sh, &mut l.sh);
        std::mem::swap(&mut self.adj, &mut l.adj);
        std::mem::swap(&mut self.local_adj, &mut l.local_adj);
    }

    fn note_current(&mut self, lane: usize) {
        self.lane = lane;
    }
}

impl<'g> Reverse<'g> {
    pub(super) fn build(g: &'g mut dyn Derivatives, request: &Request, d: Value) {
        let (f, dup, split) = (request.function, &request.dup[..], request.split);
        let cfg = Cfg::new(f);
        let mem = memory::analyze(f, &cfg, dup, Mode::Reverse, request.runtime_activity, classify);
        let mut e = Emitter::new(g.module());
        e.strong_zero = request.strong_zero;
        e.runtime_activity = request.runtime_activity;
        let slot_block = e.append_block(d, "slots");
        let slots = unsafe { LLVMCreateBuilderInContext(e.ctx) };
        let params = map_params(f, d, dup, Mode::Reverse, request.width);
        // In the order of the derivative's parameters: per parameter, its lanes.
        let shadow_params: Vec<Value> =
            ir::params(f).iter().flat_map(|p| params.sh.iter().filter_map(move |lane| lane.get(p).copied())).collect();
        let g_module = g.module();
        let globals = g.shadow_globals();
        let lanes: Vec<Lane> = params
            .sh
            .into_iter()
            .enumerate()
            .map(|(k, sh)| {
                let mut sh = Shadows::new(sh, g_module, globals.clone(), k as u32);
                sh.own_shadows(&mem, &params.map);
                Lane { sh, adj: HashMap::new(), local_adj: HashMap::new() }
            })
            .collect();
        let map = params.map;
        let mut r = Reverse {
            g,
            e,
            cfg,
            mem,
            slots,
            slot_block,
            map,
            sh: Shadows::new(HashMap::new(), g_module, globals, 0),
            fwd: HashMap::new(),
            rev: HashMap::new(),
            adj: HashMap::new(),
            local_adj: HashMap::new(),
            cache: HashMap::new(),
            loaded: HashMap::new(),
            selector: HashMap::new(),
            prep_block: HashMap::new(),
            count: Vec::new(),
            rev_instance: Vec::new(),
            instance: HashMap::new(),
            tape_accesses: Vec::new(),
            freed_shadows: None,
            linked_blocks: None,
            loop_tapes: HashMap::new(),
            entry_invariants: HashMap::new(),
            sum_seed: None,
            in_sum_step: ir::global_metadata(f, crate::generate::reverse::sum_loops::STEP_FUNCTION).is_some(),
            sum_step_calls: HashMap::new(),
            entry_tables: HashMap::new(),
            entry_table_fields: HashMap::new(),
            tape_fields: HashMap::new(),
            loaded_instance: HashMap::new(),
            records: HashMap::new(),
            large_blocks: HashMap::new(),
            forwarding: None,
            inputs_unchanged: false,
            unwritten_arguments: Default::default(),
            settled_slots: HashMap::new(),
            rev_entry: HashMap::new(),
            entry_instance: HashMap::new(),
            reserved: HashMap::new(),
            split: None,
            primal_result: None,
            split_calls: HashMap::new(),
            custom_calls: HashMap::new(),
            replay: None,
            atomic: request.atomic_adjoints,
            region_calls: HashMap::new(),
            checkpoint_calls: HashMap::new(),
            shadow_slots: Vec::new(),
            resumptions: Vec::new(),
            shadow_checks: Vec::new(),
            tickets: HashMap::new(),
            private_sums: Vec::new(),
            written_parameters: None,
            atomic_adds: 0,
            lanes,
            lane: 0,
        };
        // As tapes: not in a split derivative, whose shadows outlive the frame.
        if !r.g.ablation().no_tape_reuse && !split {
            let pooled = r.pooled_shadows();
            r.lanes.iter_mut().for_each(|l| l.sh.pooled = pooled.clone());
        }
        r.exchange(0);
        // A split derivative's caller may change memory between its two parts:
        // nothing can be re-read then.
        r.inputs_unchanged = !split && crate::analysis::reread::writes_only_local_memory(f, &r.cfg, classify);
        if !split {
            r.unwritten_arguments = crate::analysis::reread::unwritten_noalias_arguments(f);
            if !r.g.ablation().no_settled_slots {
                r.settled_slots = crate::analysis::reread::settled_slots(f, &r.cfg);
            }
        }
        for b in r.cfg.order.clone() {
            let fb = r.e.append_block(d, "fwd");
            r.fwd.insert(b, fb);
            r.prep_block.insert(fb, b);
            r.map.insert(ir::block_value(b), ir::block_value(fb));
        }
        for b in r.cfg.order.clone() {
            let rb = r.e.append_block(d, "rev");
            r.rev.insert(b, rb);
        }
        // The seeds, one per lane, are the last parameters.
        let dparams = ir::params(d);
        let seeds: Vec<Value> = if !split && ir::is_float(ir::return_type(f)) {
            dparams[dparams.len() - request.width as usize..].to_vec()
        } else {
            Vec::new()
        };
        if let [seed] = seeds.as_slice() {
            r.sum_seed = Some(*seed);
        }
        r.e.at_end(slot_block);
        if split {
            let s = r.begin_coroutine(f, d);
            r.split = Some(s);
            r.e.at_end(slot_block);
            // Freed shadows go to the list of the outermost derivative.
            let list = s.layout.field(&r.e, s.io, s.layout.freed);
            r.freed_shadows = Some(r.e.load(unsafe { LLVMPointerTypeInContext(r.e.ctx, 0) }, list));
            if request.tangent_replay {
                r.replay = Some(state::ReplayBlocks::new(&r.e, &r.cfg, d));
            }
        }
        r.e.br(r.fwd[&r.cfg.entry()]);
        unsafe {
            LLVMPositionBuilderBefore(r.slots, ir::terminator(slot_block));
            let i64t = LLVMInt64TypeInContext(r.e.ctx);
            for l in 0..r.cfg.loops.len() {
                let c = LLVMBuildAlloca(r.slots, i64t, c"iterations".as_ptr());
                LLVMBuildStore(r.slots, LLVMConstInt(i64t, 0, 0), c);
                r.count.push(c);
                let v = LLVMBuildAlloca(r.slots, i64t, c"instance".as_ptr());
                r.rev_instance.push(v);
                // (Combined mode only: a split derivative's tangent sweep
                // numbers instances of its own, and would not set the slot.)
                if !split && !r.g.ablation().no_exact_visits {
                    if let Some(visits) = crate::ir::trip::exact_visits(&r.cfg, &r.cfg.loops[l]) {
                        let slot = LLVMBuildAlloca(r.slots, i64t, c"first.instance".as_ptr());
                        r.rev_entry.insert(l, (slot, visits));
                    }
                }
            }
            let ret = ir::return_type(f);
            if request.primal_return && !split && ir::is_float(ret) {
                r.primal_result = Some(LLVMBuildAlloca(r.slots, ret, c"primal.result".as_ptr()));
            }
        }
        if split {
            r.keep_shadow_slots(&shadow_params);
        }

        r.forward_sweep(&seeds);
        r.fill_phis();
        r.record_loop_entries();
        r.reverse_sweep(f, d);
        r.tangent_sweep(f, dup);
        if r.atomic {
            let name = crate::ir::names::display_name(&ir::name(r.g.original(f)));
            let line = format!(
                "OpenMP region `{name}`, reverse mode: the adjoints of {} load(s) of shared memory added atomically, \
                 of {} shared scalar(s) summed per thread and added once",
                r.atomic_adds,
                r.private_sums.len()
            );
            r.g.note(line);
        }
        r.finish_tapes();
        if !r.g.ablation().no_tape_scope {
            r.mark_tape_scope(d);
        }
        if let Some(s) = r.split {
            r.e.at_end(s.release);
            r.free_tapes();
            r.e.br(s.cleanup);
            r.rebase_shadows();
        }
        unsafe { LLVMDisposeBuilder(r.slots) };
    }

    pub(super) fn forward_sweep(&mut self, seeds: &[Value]) {
        for b in self.cfg.order.clone() {
            self.e.at_end(self.fwd[&b]);
            if !self.cfg.live.contains(&b) {
                // Never returns (a `throw` path): the primal only, no reverse.
                for i in ir::instructions(b) {
                    clone_primal(self.g, &self.e, &mut self.map, i);
                }
                continue;
            }
            let mut selector_done = false;
            for i in ir::instructions(b) {
                self.e.located_at(i);
                let is_phi = ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMPHI;
                if !is_phi && !selector_done {
                    // After the phis: which predecessor, and which loop instance.
                    self.record_selector(b);
                    self.count_instance(b);
                    selector_done = true;
                }
                let kind = classify(i);
                match kind {
                    Kind::Phi => unsafe {
                        // Incoming values are added once the sweep is complete.
                        let phi = LLVMBuildPhi(self.e.b, ir::type_of(i), EMPTY);
                        ir::set_name(phi, &ir::name(i));
                        self.map.insert(i, phi);
                        self.each_lane(|s| s.sh.make(&s.e, i, &kind, &s.mem, &s.map, s.e.b));
                    },
                    Kind::Return => {
                        if let Some(s) = self.split {
                            self.suspend_at_return(s, i, b);
                            continue;
                        }
                        if !seeds.is_empty() && ir::operand_count(i) > 0 {
                            self.each_lane(|s| s.accumulate(ir::operand(i, 0), seeds[s.lane]));
                        }
                        if let Some(slot) = self.primal_result {
                            let v = ir::operand(i, 0);
                            self.e.store(self.map.get(&v).copied().unwrap_or(v), slot);
                        }
                        self.e.br(self.rev[&b]);
                    }
                    Kind::Call(callee) if self.carries_derivatives(i) && crate::calls::parallel::is_region(i) => {
                        self.call_region(i, callee)
                    }
                    Kind::Call(callee)
                        if self.carries_derivatives(i) && crate::surface::checkpoint::is_loop(callee) =>
                    {
                        self.call_checkpoint(i, callee)
                    }
                    Kind::Call(callee)
                        if self.carries_derivatives(i)
                            && ir::has_flag(i, crate::generate::reverse::sum_loops::STEP)
                            && self.call_sum_step(i, callee) => {}
                    Kind::Call(callee) if self.carries_derivatives(i) => self.call_split(i, callee),
                    Kind::Custom(callee) => self.custom_augmented_call(i, callee),
                    _ => {
                        if self.atomic && crate::calls::parallel::ordered_critical(i) {
                            self.take_ticket(i);
                        }
                        remap_callee(self.g, i, &mut self.map);
                        let n = self.e.clone_instruction(i, &self.map);
                        self.map.insert(i, n);
                        self.each_lane(|s| s.shadow_effects(i, &kind));
                    }
                }
            }
        }
        self.e.unlocated();
    }

    /// Forward sweep, after primal `i`: the current lane's shadow of it and
    /// its effects on shadow memory.
    fn shadow_effects(&mut self, i: Value, kind: &Kind) {
        self.sh.make(&self.e, i, kind, &self.mem, &self.map, self.slots);
        // Copies: the pointers among the bytes copy their shadows along
        // (float bytes' shadows hold adjoints, handled in reverse).
        if let Kind::MemCpy = kind {
            self.copy_shadow_pointers(i);
        }
        if let Kind::Free = kind {
            self.keep_freed_shadow(i);
        }
        if let Kind::Realloc = kind {
            self.copy_grown_shadow(i);
            self.keep_grown_shadow(i);
        }
        // Pointers stored into shadowed memory: their shadows go into
        // the shadow; integers in integer fields go as they are.
        if let Kind::Store = kind {
            let (v, p) = (ir::operand(i, 0), ir::operand(i, 1));
            let primal = self.map.get(&v).copied().unwrap_or(v);
            if self.mem.int_stores_mirrored.contains(&i) {
                self.e.store_like(primal, self.sh.of(p), i);
            } else if ir::is_pointer(ir::type_of(v))
                && self.mem.status(p) == PtrStatus::Shadowed
                // (An integer stored as a pointer: cleared in the reverse sweep, as integers are.)
                && !self.mem.int_stores_clearing.contains(&i)
            {
                let mut value = self.sh.of(v);
                if self.mem.mixed.contains(&p) {
                    // Into the primal's memory (run-time activity): the primal's value again.
                    let pp = self.map.get(&p).copied().unwrap_or(p);
                    let inactive = crate::generate::body::shadow_is_primal(&self.e, self.sh.of(p), pp);
                    value = self.e.select(inactive, primal, value);
                }
                self.e.store_like(value, self.sh.of(p), i);
            }
        }
    }

    /// Phi incoming values, once every forward block exists.
    pub(super) fn fill_phis(&mut self) {
        for b in self.cfg.order.clone() {
            for i in ir::instructions(b) {
                if ir::opcode(i) != llvm_sys::LLVMOpcode::LLVMPHI {
                    break;
                }
                let phi = self.map[&i];
                for (v, pb) in ir::incoming(i) {
                    if !self.cfg.reachable(pb) {
                        continue;
                    }
                    let mut nv = self.map.get(&v).copied().unwrap_or(v);
                    let mut nb = self.fwd[&pb];
                    unsafe { LLVMAddIncoming(phi, &mut nv, &mut nb, 1) };
                }
                self.each_lane(|s| {
                    let fwd = &s.fwd;
                    s.sh.fill_phi(i, &s.cfg, |b| fwd[&b]);
                });
            }
        }
    }

    pub(super) fn reverse_sweep(&mut self, f: Value, d: Value) {
        for b in self.cfg.order.clone().into_iter().rev() {
            self.e.at_end(self.rev[&b]);
            if !self.cfg.live.contains(&b) {
                unsafe { LLVMBuildUnreachable(self.e.b) };
                continue;
            }
            self.each_lane(|s| s.local_adj.clear());
            for i in ir::instructions(b).into_iter().rev() {
                let op = ir::opcode(i);
                if op == llvm_sys::LLVMOpcode::LLVMPHI || i == ir::terminator(b) {
                    continue;
                }
                self.e.located_at(i);
                self.each_lane(|s| s.reverse_instruction(i));
            }
            self.e.unlocated();
            if b == self.cfg.entry() {
                self.return_adjoints(f, d);
                continue;
            }
            let preds = self.cfg.preds[&b].clone();
            if preds.len() == 1 {
                self.reverse_edge(b, preds[0]);
                continue;
            }
            unsafe {
                let from = self.header_selector(b).unwrap_or_else(|| self.fetch(self.selector[&b]));
                let index_t = LLVMTypeOf(from);
                let edges: Vec<Block> = preds.iter().map(|_| self.e.append_block(d, "edge")).collect();
                let sw = LLVMBuildSwitch(self.e.b, from, edges[0], (edges.len() - 1) as u32);
                for (k, eb) in edges.iter().enumerate().skip(1) {
                    LLVMAddCase(sw, LLVMConstInt(index_t, k as u64, 0), *eb);
                }
                for (k, p) in preds.iter().enumerate() {
                    self.e.at_end(edges[k]);
                    self.reverse_edge(b, *p);
                }
            }
        }
    }

    /// Forward sweep of a copy between shadowed memory: shadow pointers
    /// among the copied bytes are copied too. An inert constant copied in
    /// (see [`memory::copies_inert_constant`]) is copied into the shadow.
    pub(super) fn copy_shadow_pointers(&mut self, i: Value) {
        let (dst, src) = (ir::operand(i, 0), ir::operand(i, 1));
        if self.mem.status(dst) == PtrStatus::Shadowed && memory::copies_inert_constant(i) {
            // Constant integers and inert pointers: their own shadow.
            let mut m = self.map.clone();
            m.insert(dst, self.sh.of(dst));
            self.e.clone_instruction(i, &m);
            return;
        }
        if self.mem.status(dst) != PtrStatus::Shadowed || self.mem.status(src) != PtrStatus::Shadowed {
            return;
        }
        let layout = memory::copy_layout(i, memory::data_layout(ir::parent_function(i))).expect("validated");
        let (sd, ss) = (self.sh.of(dst), self.sh.of(src));
        match layout {
            CopyLayout::Uniform(Elem::Ptr) => {
                let mut m = self.map.clone();
                m.insert(dst, sd);
                m.insert(src, ss);
                self.e.clone_instruction(i, &m);
            }
            CopyLayout::Uniform(_) => {}
            CopyLayout::Fields(fields) => {
                for (off, size, elem) in fields {
                    if elem == Elem::Ptr {
                        let (d, s) = (self.e.byte_offset(sd, off), self.e.byte_offset(ss, off));
                        self.e.memcpy(d, s, size);
                    }
                }
            }
        }
    }

    /// Forward sweep of a `realloc` of a block with pointers (a
    /// `Vec<Vec<f64>>` growing): the old shadow's contents, shadow pointers
    /// among them, go into the new shadow as the primal's go into the new
    /// block (its floats' adjoints are zero until the reverse sweep). (A
    /// float block's new shadow starts at zero: its adjoints come in the
    /// reverse sweep, and move back to the old shadow there.)
    fn copy_grown_shadow(&mut self, i: Value) {
        if !self.sh.sh.contains_key(&i)
            || !matches!(memory::grown_contents(i), Some(memory::Grown::NoFloats | memory::Grown::Fields { .. }))
        {
            return;
        }
        let (ns, os) = (self.sh.of(i), self.sh.of(ir::operand(i, 0)));
        let n = self.map.get(&ir::operand(i, 1)).copied().unwrap_or(ir::operand(i, 1));
        let m = crate::generate::body::old_block_bytes(&self.e, self.g.module(), os, n);
        unsafe { LLVMBuildMemCpy(self.e.b, ns, 1, os, 1, m) };
    }

    /// Reverse of a copy between shadowed memory: the adjoints of the copied
    /// floats move from the destination's shadow to the source's.
    pub(super) fn move_copied_adjoints(&mut self, i: Value) {
        let layout = memory::copy_layout(i, memory::data_layout(ir::parent_function(i))).expect("validated");
        let (sd, ss) = (self.shadow(ir::operand(i, 0)), self.shadow(ir::operand(i, 1)));
        let i64t = unsafe { LLVMInt64TypeInContext(self.e.ctx) };
        match layout {
            CopyLayout::Uniform(elem @ (Elem::F32 | Elem::F64)) => {
                let len = self.primal(ir::operand(i, 2));
                let n = unsafe { LLVMBuildUDiv(self.e.b, len, LLVMConstInt(i64t, elem.size(), 0), EMPTY) };
                let helper = adjoint_move_function(self.g.module(), elem);
                self.e.call(helper, &mut [sd, ss, n]);
            }
            CopyLayout::Uniform(_) => {}
            CopyLayout::Fields(fields) => {
                for (off, size, elem) in fields {
                    if matches!(elem, Elem::F32 | Elem::F64) {
                        let (d, s) = (self.e.byte_offset(sd, off), self.e.byte_offset(ss, off));
                        let n = unsafe { LLVMConstInt(i64t, size / elem.size(), 0) };
                        let helper = adjoint_move_function(self.g.module(), elem);
                        self.e.call(helper, &mut [d, s, n]);
                    }
                }
            }
        }
    }

    /// Leaves the reverse of `b` for the reverse of its predecessor `pred`:
    /// phi adjoints flow along the edge, and crossing a loop's back edge or
    /// exit edge backwards starts the reverse of the previous instance.
    pub(super) fn reverse_edge(&mut self, b: Block, pred: Block) {
        self.each_lane(|s| s.phi_adjoints(b, pred));
        for l in 0..self.cfg.loops.len() {
            let lp = &self.cfg.loops[l];
            let back = lp.header == b && lp.blocks.contains(&pred);
            let exit = lp.blocks.contains(&pred) && !lp.blocks.contains(&b);
            if back || exit {
                unsafe {
                    let i64t = LLVMInt64TypeInContext(self.e.ctx);
                    let c = LLVMBuildLoad2(self.e.b, i64t, self.count[l], EMPTY);
                    let prev = LLVMBuildSub(self.e.b, c, LLVMConstInt(i64t, 1, 0), EMPTY);
                    LLVMBuildStore(self.e.b, prev, self.count[l]);
                    LLVMBuildStore(self.e.b, prev, self.rev_instance[l]);
                    if exit {
                        if let Some((slot, shape)) = self.rev_entry.get(&l).copied() {
                            let visits = self.exact_visits(shape);
                            let first = LLVMBuildSub(self.e.b, prev, visits, EMPTY);
                            let first = LLVMBuildAdd(self.e.b, first, LLVMConstInt(i64t, 1, 0), EMPTY);
                            LLVMBuildStore(self.e.b, first, slot);
                        }
                    }
                }
            }
        }
        self.e.br(self.rev[&pred]);
    }

    pub(super) fn return_adjoints(&mut self, f: Value, d: Value) {
        self.flush_private_accumulators();
        self.free_kept_shadows();
        if self.split.is_none() {
            // A split derivative frees them in its `release` block, which
            // its tangent sweep ends in too.
            self.free_tapes();
        }
        unsafe {
            let rt = LLVMGetReturnType(LLVMGlobalGetValueType(d));
            let mut agg = LLVMGetUndef(rt);
            // Lane `l` of float parameter `p`'s adjoint is field `p * width + l`.
            let mut k = 0;
            for p in ir::params(f) {
                let t = ir::type_of(p);
                if !ir::is_float(t) {
                    continue;
                }
                self.each_lane(|r| {
                    let v = match r.adj.get(&p) {
                        // `+ 0.0` turns the accumulator's starting -0.0 (see
                        // `Emitter::adjoint_zero`) into the +0.0 users expect, and
                        // leaves every other value as it is.
                        Some(s) => {
                            let v = r.e.load(t, *s);
                            r.e.add(v, r.e.zero(t))
                        }
                        None => r.e.zero(t),
                    };
                    match r.split {
                        // A split derivative hands them over in the buffer.
                        Some(s) => r.e.store(v, s.layout.field(&r.e, s.io, s.layout.adjoints + k)),
                        None => agg = r.e.insert(agg, v, k),
                    }
                    k += 1;
                });
            }
            if let Some(slot) = self.primal_result {
                agg = self.e.insert(agg, self.e.load(ir::return_type(f), slot), k);
            }
            match self.split {
                Some(s) => self.e.br(s.release),
                None => {
                    LLVMBuildRet(self.e.b, agg);
                }
            }
        }
    }

    /// Ends the loops' tapes (at the end of the derivative): their buffers go
    /// to the pool or are freed ([`crate::generate::tape_buffer`]).
    pub(super) fn free_tapes(&mut self) {
        let release = crate::generate::tape_buffer::release_function(self.g.module());
        for t in self.tapes_in_order() {
            self.e.call(release, &mut t.release_args(&self.e));
        }
    }

    /// The primal value of `v` at the current point of the reverse sweep.
    pub(super) fn primal(&mut self, v: Value) -> Value {
        let n = self.map.get(&v).copied().unwrap_or(v);
        self.fetch(n)
    }

    /// The shadow of pointer `v` at the current point of the reverse sweep.
    pub(super) fn shadow(&mut self, v: Value) -> Value {
        let s = self.sh.of(v);
        self.fetch(s)
    }

    /// The adjoint slot of `v`, made (zeroed) on first use.
    pub(super) fn adj_slot(&mut self, v: Value) -> Value {
        if let Some(s) = self.adj.get(&v) {
            return *s;
        }
        let t = ir::type_of(v);
        unsafe {
            let s = LLVMBuildAlloca(self.slots, t, c"adj".as_ptr());
            LLVMBuildStore(self.slots, crate::build::emit::adjoint_zero(t), s);
            self.adj.insert(v, s);
            s
        }
    }

    /// `v̄` at the current point, cleared, so an earlier loop instance of `v`
    /// starts from zero.
    pub(super) fn take_adjoint(&mut self, v: Value) -> Value {
        let t = ir::type_of(v);
        if self.is_block_local(v) {
            return self.local_adj.remove(&v).unwrap_or_else(|| self.e.adjoint_zero(t));
        }
        let slot = self.adj_slot(v);
        let d = self.e.load(t, slot);
        self.e.store(self.e.adjoint_zero(t), slot);
        d
    }

    /// Whether every contribution to `v̄` is made while reversing `v`'s own
    /// block, after which `v`'s reverse reads it: all its users are in that
    /// block, none a phi or a terminator (a returned value's seed comes
    /// from the forward sweep). Its adjoint is then an SSA value, not a
    /// stack slot: thousands of slots make the post-AD pipeline's promotion
    /// of them quadratic in the size of a long block.
    fn is_block_local(&self, v: Value) -> bool {
        use llvm_sys::LLVMOpcode::LLVMPHI;
        if !ir::is_instruction(v) || ir::opcode(v) == LLVMPHI {
            return false;
        }
        let b = ir::parent_block(v);
        ir::users(v).into_iter().all(|u| {
            ir::is_instruction(u)
                && ir::parent_block(u) == b
                && ir::opcode(u) != LLVMPHI
                && unsafe { llvm_sys::core::LLVMIsATerminatorInst(u).is_null() }
        })
    }

    /// `v̄ += delta` at the current point.
    pub(super) fn accumulate(&mut self, v: Value, delta: Value) {
        if !carries_adjoint(v) {
            return;
        }
        if self.is_block_local(v) {
            // The first contribution is the sum: -0.0 + delta is delta, bit for bit.
            let sum = match self.local_adj.get(&v) {
                Some(old) => self.e.add(*old, delta),
                None => delta,
            };
            self.local_adj.insert(v, sum);
            return;
        }
        let t = ir::type_of(v);
        let slot = self.adj_slot(v);
        let old = self.e.load(t, slot);
        let new = self.e.add(old, delta);
        self.e.store(new, slot);
    }
}

/// Only float instructions and arguments have adjoints; constants do not.
pub(crate) fn carries_adjoint(v: Value) -> bool {
    (ir::is_instruction(v) || ir::is_argument(v)) && ir::is_real(ir::type_of(v))
}
