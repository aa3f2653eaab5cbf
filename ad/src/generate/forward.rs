//! Forward mode: tangents alongside primal values, shadows alongside
//! pointers (see [`crate::generate::gen`] for the derivative's signature).
//!
//! Vector mode (`enzyme_width, N`) has N lanes: each primal instruction is
//! cloned once and its tangents and shadows are made once per lane, so the
//! lanes share the primal's values and the partial derivatives computed
//! from them (identical expressions, merged by the post-AD optimiser).

use std::collections::HashMap;

use llvm_sys::core::*;

use crate::analysis::memory::{self, Memory};
use crate::build::emit::Emitter;
use crate::calls::classify::{classify, Kind};
use crate::generate::tangent::Tangents;
use crate::ir::cfg::Cfg;
use crate::ir::{self, type_of as t_of, Block, Value};
use crate::surface::request::{Derivatives, Mode, Request};

use crate::generate::body::{clone_primal, map_params, remap_callee, Lanes, Shadows, EMPTY};

/// State of one forward-mode function being built.
pub(crate) struct Forward<'g> {
    pub(super) g: &'g mut dyn Derivatives,
    pub(super) e: Emitter,
    pub(super) cfg: Cfg,
    pub(super) mem: Memory,
    pub(super) map: HashMap<Value, Value>,
    /// Tangents of the current lane.
    pub(super) tan: HashMap<Value, Value>,
    /// Shadows of the current lane.
    pub(super) sh: Shadows,
    /// Every lane's tangents and shadows; the current lane's entry holds
    /// a placeholder while its maps are in `tan` and `sh`.
    lanes: Vec<(HashMap<Value, Value>, Shadows)>,
    lane: usize,
}

impl Lanes for Forward<'_> {
    fn lane_count(&self) -> usize {
        self.lanes.len()
    }

    fn current_lane(&self) -> usize {
        self.lane
    }

    fn exchange(&mut self, lane: usize) {
        let (tan, sh) = &mut self.lanes[lane];
        std::mem::swap(&mut self.tan, tan);
        std::mem::swap(&mut self.sh, sh);
    }

    fn note_current(&mut self, lane: usize) {
        self.lane = lane;
    }
}

impl<'g> Forward<'g> {
    pub(super) fn build(g: &'g mut dyn Derivatives, r: &Request, d: Value) {
        let (f, dup) = (r.function, &r.dup[..]);
        let cfg = Cfg::new(f);
        let mem = memory::analyze(f, &cfg, dup, Mode::Forward, r.runtime_activity, classify);
        let mut e = Emitter::new(g.module());
        e.strong_zero = r.strong_zero;
        e.runtime_activity = r.runtime_activity;
        e.error_estimate = r.error_estimate;
        let params = map_params(f, d, dup, Mode::Forward, r.width);
        // A first block of its own, so the body's entry may be a loop header.
        let prologue_block = e.append_block(d, "prologue");
        let (module, globals) = (g.module(), g.shadow_globals());
        // Large shadows from the pool of kept buffers, and back to it where
        // the primal frees the block (see `tape_buffer`).
        let pool = !g.ablation().no_tape_reuse;
        let pooled = if pool { crate::generate::tape_buffer::unreallocated_mallocs(&cfg) } else { Default::default() };
        let lanes: Vec<(HashMap<Value, Value>, Shadows)> = (params.tan.into_iter().zip(params.sh))
            .enumerate()
            .map(|(k, (tan, sh))| {
                let mut sh = Shadows::new(sh, module, globals.clone(), k as u32);
                sh.own_shadows(&mem, &params.map);
                sh.pooled = pooled.clone();
                sh.pool_frees = pool;
                (tan, sh)
            })
            .collect();
        let placeholder = Shadows::new(HashMap::new(), module, globals, 0);
        let mut s = Forward { g, e, cfg, mem, map: params.map, tan: HashMap::new(), sh: placeholder, lanes, lane: 0 };
        s.exchange(0);
        for b in s.cfg.order.clone() {
            let nb = s.e.append_block(d, "");
            s.map.insert(ir::block_value(b), ir::block_value(nb));
        }
        s.e.at_end(prologue_block);
        s.e.br(s.block(s.cfg.entry()));
        for b in s.cfg.order.clone() {
            s.e.at_end(s.block(b));
            let live = s.cfg.live.contains(&b);
            for i in ir::instructions(b) {
                s.e.located_at(i);
                if live {
                    s.instruction(f, d, i);
                } else {
                    s.map_primal(i);
                }
            }
        }
        s.e.unlocated();
        s.fill_phis();
    }

    /// Phis get their incoming values once every block exists: values fed
    /// back by a loop's latch are emitted after the header.
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
                    let mut nb = self.block(pb);
                    let mut nv = self.val(v);
                    unsafe { LLVMAddIncoming(phi, &mut nv, &mut nb, 1) };
                }
                self.each_lane(|s| {
                    if let Some(tp) = s.tan.get(&i).copied() {
                        for (v, pb) in ir::incoming(i) {
                            if s.cfg.reachable(pb) {
                                let (mut tv, mut nb) = (s.tangent(v), s.block(pb));
                                unsafe { LLVMAddIncoming(tp, &mut tv, &mut nb, 1) };
                            }
                        }
                    }
                    let map = &s.map;
                    s.sh.fill_phi(i, &s.cfg, |b| unsafe { LLVMValueAsBasicBlock(map[&ir::block_value(b)]) });
                });
            }
        }
    }

    /// The tangent of `v` in every lane.
    fn lane_tangents(&mut self, v: Value) -> Vec<Value> {
        let mut out = Vec::new();
        self.each_lane(|s| out.push(s.tangent(v)));
        out
    }

    /// A float result's tangents as the derivative returns them: the value
    /// itself at width 1, an array of one per lane in vector mode.
    fn packed_tangents(&self, tangents: Vec<Value>, t: crate::ir::Type) -> Value {
        if tangents.len() == 1 {
            return tangents[0];
        }
        let mut agg = unsafe { LLVMGetUndef(LLVMArrayType2(t, tangents.len() as u64)) };
        for (k, v) in tangents.into_iter().enumerate() {
            agg = self.e.insert(agg, v, k as u32);
        }
        agg
    }

    /// Lane `lane` of a tangent the derivative of a call returned.
    fn unpacked_tangent(&self, packed: Value, lane: usize) -> Value {
        if self.lane_count() == 1 {
            packed
        } else {
            self.e.extract(packed, lane as u32)
        }
    }

    pub(super) fn block(&self, b: Block) -> Block {
        unsafe { LLVMValueAsBasicBlock(self.map[&ir::block_value(b)]) }
    }

    /// A block that never returns (a `throw` path): the primal only.
    pub(super) fn map_primal(&mut self, i: Value) {
        clone_primal(self.g, &self.e, &mut self.map, i);
    }

    pub(super) fn val(&self, v: Value) -> Value {
        self.map.get(&v).copied().unwrap_or(v)
    }

    /// Which pointer arguments of a call that stays a call have shadows.
    pub(super) fn call_mask(&self, i: Value) -> Vec<bool> {
        crate::prepare::checks::nested_call_pattern(i, &self.mem).expect("validated")
    }

    pub(super) fn instruction(&mut self, f: Value, d: Value, i: Value) {
        let t = ir::type_of(i);
        let kind = classify(i);
        match kind {
            Kind::Phi => unsafe {
                // Incoming values are added by `fill_phis`.
                let phi = LLVMBuildPhi(self.e.b, t, EMPTY);
                ir::set_name(phi, &ir::name(i));
                self.map.insert(i, phi);
                self.each_lane(|s| {
                    if ir::is_real(t) {
                        s.tan.insert(i, LLVMBuildPhi(s.e.b, t, EMPTY));
                    }
                    s.sh.make(&s.e, i, &kind, &s.mem, &s.map, s.e.b);
                });
            },
            Kind::Return => unsafe {
                if ir::is_float(ir::return_type(f)) {
                    let v = ir::operand(i, 0);
                    let tangents = self.lane_tangents(v);
                    let agg = LLVMGetUndef(LLVMGetReturnType(LLVMGlobalGetValueType(d)));
                    let agg = self.e.insert(agg, self.val(v), 0);
                    let agg = self.e.insert(agg, self.packed_tangents(tangents, t_of(v)), 1);
                    LLVMBuildRet(self.e.b, agg);
                } else {
                    self.e.clone_instruction(i, &self.map);
                }
            },
            // Calls that move tangents (a float result, or shadows the callee writes)
            // go through its derivative; the others are cloned below.
            Kind::Call(callee) if ir::is_float(t) || self.call_mask(i).contains(&true) => {
                let mask = self.call_mask(i);
                let request = Request::new(Mode::Forward, callee, &mask)
                    .strong_zero(self.e.strong_zero)
                    .runtime_activity(self.e.runtime_activity)
                    .error_estimate(self.e.error_estimate);
                let g = self.g.request(request.width(self.lane_count() as u32));
                let mut args = Vec::new();
                for k in 0..ir::call_arg_count(i) {
                    let a = ir::operand(i, k);
                    args.push(self.val(a));
                    self.each_lane(|s| {
                        if mask[k as usize] {
                            args.push(s.sh.of(a));
                        } else if ir::is_float(ir::type_of(a)) {
                            args.push(s.tangent(a));
                        }
                    });
                }
                let r = self.e.call(g, &mut args);
                crate::calls::parallel::carry_mark(i, r);
                if ir::is_float(t) {
                    self.map.insert(i, self.e.extract(r, 0));
                    let packed = self.e.extract(r, 1);
                    self.each_lane(|s| {
                        let v = s.unpacked_tangent(packed, s.lane);
                        s.tan.insert(i, v);
                    });
                } else {
                    // The primal result (or nothing): the callee wrote the shadows.
                    self.map.insert(i, r);
                }
            }
            // In vector mode, a rule of floats only (checked before generation)
            // is called once per lane: it has no effect but its results.
            Kind::Custom(callee) => {
                self.each_lane(|s| s.custom_forward_call(i, callee));
            }
            kind => {
                remap_callee(self.g, i, &mut self.map);
                let n = self.e.clone_instruction(i, &self.map);
                self.map.insert(i, n);
                self.each_lane(|s| {
                    s.sh.make(&s.e, i, &kind, &s.mem, &s.map, s.e.b);
                    if let Some(t) = s.memory(i, &kind) {
                        s.tan.insert(i, t);
                    }
                    if ir::is_real(t) {
                        if let Some(dv) = s.float_tangent(i, n, &kind) {
                            s.tan.insert(i, dv);
                        }
                    }
                });
            }
        }
    }
}

impl Tangents for Forward<'_> {
    fn emitter(&self) -> &Emitter {
        &self.e
    }

    fn facts(&self) -> &Memory {
        &self.mem
    }

    fn module(&self) -> llvm_sys::prelude::LLVMModuleRef {
        self.g.module()
    }

    fn primals(&self) -> &HashMap<Value, Value> {
        &self.map
    }

    fn tangents(&self) -> &HashMap<Value, Value> {
        &self.tan
    }

    fn shadows(&self) -> &Shadows {
        &self.sh
    }
}
