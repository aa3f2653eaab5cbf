//! Split forward mode (`__enzyme_fwdsplit`): the tangent sweep of a split
//! derivative. The coroutine's forward part (`__enzyme_augmentfwd`) ran the
//! function and kept values; resumed with a [`ReplayIo`] buffer instead of a
//! seed, it walks the function's blocks again in forward order, with the
//! branches taken then, and computes tangents from the primal values read
//! back (as the reverse sweep reads them: [`Reverse::fetch`], the loop
//! instance numbered as the forward part numbered it). Nothing of the primal
//! runs again: its memory may have changed since, and the caller may pass
//! null for the primal pointers. Shadows are the ones given to
//! `__enzyme_fwdsplit`, not to `__enzyme_augmentfwd`.

use std::collections::HashMap;

use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;
use llvm_sys::LLVMOpcode;

use crate::analysis::memory::{Memory, PtrStatus};
use crate::build::emit::Emitter;
use crate::calls::classify::{classify, Kind};
use crate::generate::body::{ReplayIo, Shadows, EMPTY};
use crate::generate::reverse::state::{ReplayBlocks, Reverse};
use crate::generate::tangent::Tangents;
use crate::ir::cfg::Cfg;
use crate::ir::{self, Block, Value};

impl ReplayBlocks {
    pub(crate) fn new(e: &Emitter, cfg: &Cfg, d: Value) -> ReplayBlocks {
        let start = e.append_block(d, "tangent.start");
        let blocks = cfg.order.iter().map(|b| (*b, e.append_block(d, "tangent"))).collect();
        ReplayBlocks { start, blocks }
    }
}

/// The tangent sweep being built: tangents, shadows and the primal values
/// read back for the instruction at hand.
struct Replay<'a, 'g> {
    r: &'a mut Reverse<'g>,
    blocks: &'a ReplayBlocks,
    tan: HashMap<Value, Value>,
    sh: Shadows,
    primals: HashMap<Value, Value>,
    /// The caller's buffer, and its layout.
    io: Value,
    layout: ReplayIo,
    /// Per loop: a slot numbering its header's executions, as the forward
    /// part numbered them.
    counters: Vec<Value>,
}

impl Tangents for Replay<'_, '_> {
    fn emitter(&self) -> &Emitter {
        &self.r.e
    }

    fn facts(&self) -> &Memory {
        &self.r.mem
    }

    fn module(&self) -> LLVMModuleRef {
        self.r.g.module()
    }

    fn primals(&self) -> &HashMap<Value, Value> {
        &self.primals
    }

    fn tangents(&self) -> &HashMap<Value, Value> {
        &self.tan
    }

    fn shadows(&self) -> &Shadows {
        &self.sh
    }
}

impl Reverse<'_> {
    /// Builds the tangent sweep, when the derivative has one (`dup`: which
    /// pointer parameters have shadows).
    pub(in crate::generate) fn tangent_sweep(&mut self, f: Value, dup: &[bool]) {
        let Some(blocks) = self.replay.take() else { return };
        let s = self.split.expect("only split derivatives have a tangent sweep");
        let (ctx, module) = (self.e.ctx, self.g.module());
        let layout = ReplayIo::of(ctx, f, dup);
        let counters: Vec<Value> = unsafe {
            let i64t = LLVMInt64TypeInContext(ctx);
            (0..self.cfg.loops.len())
                .map(|_| {
                    let c = LLVMBuildAlloca(self.slots, i64t, c"tangent.instance".as_ptr());
                    LLVMBuildStore(self.slots, LLVMConstInt(i64t, 0, 0), c);
                    c
                })
                .collect()
        };
        self.e.at_end(blocks.start);
        let io =
            self.e.load(unsafe { LLVMPointerTypeInContext(ctx, 0) }, s.layout.field(&self.e, s.io, s.layout.replay));
        let (mut tan, mut shadows) = (HashMap::new(), HashMap::new());
        for (p, field) in ir::params(f).into_iter().zip(&layout.params) {
            let Some(k) = field else { continue };
            let v = self.e.load(ir::type_of(p), layout.field(&self.e, io, *k));
            if ir::is_float(ir::type_of(p)) {
                tan.insert(p, v);
            } else {
                shadows.insert(p, v);
            }
        }
        self.e.br(blocks.blocks[&self.cfg.entry()]);
        let sh = Shadows::new(shadows, module, self.g.shadow_globals(), 0);
        let mut t = Replay { r: self, blocks: &blocks, tan, sh, primals: HashMap::new(), io, layout, counters };
        for b in t.r.cfg.order.clone() {
            t.block(b, s.release);
        }
        t.r.e.unlocated();
        t.fill_phis();
    }
}

impl Replay<'_, '_> {
    fn block(&mut self, b: Block, release: Block) {
        self.r.e.at_end(self.blocks.blocks[&b]);
        if !self.r.cfg.live.contains(&b) {
            // Never returns: the forward part did not come through here.
            unsafe { LLVMBuildUnreachable(self.r.e.b) };
            return;
        }
        let mut numbered = false;
        for i in ir::instructions(b) {
            let kind = classify(i);
            if let Kind::Phi = kind {
                self.phi(i, &kind);
                continue;
            }
            if !numbered {
                self.number_instance(b);
                numbered = true;
            }
            self.r.e.located_at(i);
            if i == ir::terminator(b) {
                self.terminator(i, release);
            } else {
                self.instruction(i, kind);
            }
        }
    }

    /// Phis: a tangent phi (floats) and a shadow phi (shadowed pointers),
    /// filled by `fill_phis`.
    fn phi(&mut self, i: Value, kind: &Kind) {
        let t = ir::type_of(i);
        if ir::is_real(t) {
            self.tan.insert(i, unsafe { LLVMBuildPhi(self.r.e.b, t, EMPTY) });
        }
        self.sh.make(&self.r.e, i, kind, &self.r.mem, &self.primals, self.r.e.b);
    }

    /// In a loop header: the instance the forward part was in here, which
    /// [`Reverse::fetch`] reads values of.
    fn number_instance(&mut self, b: Block) {
        let Some(l) = self.r.cfg.loops.iter().position(|l| l.header == b) else { return };
        let e = &self.r.e;
        unsafe {
            let i64t = LLVMInt64TypeInContext(e.ctx);
            let id = e.load(i64t, self.counters[l]);
            e.store(LLVMBuildAdd(e.b, id, LLVMConstInt(i64t, 1, 0), EMPTY), self.counters[l]);
            e.store(id, self.r.rev_instance[l]);
        }
    }

    /// The primal value of `v` here, read back from what the forward part kept.
    fn read_back(&mut self, v: Value) {
        if ir::is_instruction(v) || ir::is_argument(v) {
            let x = self.r.primal(v);
            self.primals.insert(v, x);
        }
    }

    fn instruction(&mut self, i: Value, kind: Kind) {
        if let Kind::Custom(callee) = kind {
            self.custom_split_forward_call(i, callee);
            return;
        }
        if let Kind::Call(callee) = kind {
            if self.r.split_calls.contains_key(&i) {
                self.resume_for_tangents(i, callee);
                return;
            }
        }
        let t = ir::type_of(i);
        let n = ir::operand_count(i);
        let shadowed = |v: Value| self.r.mem.status(v) == PtrStatus::Shadowed;
        let tangent_in = ir::is_real(t) && (0..n).any(|k| self.tan.contains_key(&ir::operand(i, k)));
        // Only the primal values the tangent or shadow needs are read back:
        // each one read may have to be kept by the forward part.
        let needed: Vec<u32> = match kind {
            Kind::Rule(_) | Kind::Select | Kind::Lanes | Kind::Reduce(_) if tangent_in => (0..n).collect(),
            Kind::Select if ir::is_pointer(t) && shadowed(i) => vec![0],
            Kind::Gep | Kind::PtrCast | Kind::Alloca | Kind::Alloc(_) | Kind::Realloc if shadowed(i) => {
                (0..n).collect()
            }
            Kind::Store if self.r.mem.int_stores_mirrored.contains(&i) => vec![0],
            Kind::MemSet | Kind::MemCpy if shadowed(ir::operand(i, 0)) => vec![2],
            _ => Vec::new(),
        };
        for k in needed {
            self.read_back(ir::operand(i, k));
        }
        self.free_forward_shadow(i, &kind);
        if ir::is_pointer(t) {
            self.sh.make(&self.r.e, i, &kind, &self.r.mem, &self.primals, self.r.e.b);
        }
        if let Some(dv) = self.memory(i, &kind) {
            self.tan.insert(i, dv);
        }
        if ir::is_real(t) {
            // The result itself, for partials written with it: computed again
            // from the operands (pure: rules, lane moves, reductions).
            let result = match kind {
                Kind::Rule(_) | Kind::Lanes | Kind::Reduce(_) if tangent_in => {
                    self.r.e.clone_instruction(i, &self.primals)
                }
                _ => i,
            };
            if let Some(dv) = self.float_tangent(i, result, &kind) {
                self.tan.insert(i, dv);
            }
        }
    }

    /// A call with a custom split forward rule: `split(arg, tangent, ...,
    /// tape)`, with the primal arguments and the tape the augmented
    /// function returned in the forward part read back.
    fn custom_split_forward_call(&mut self, i: Value, callee: Value) {
        let (_, shape) =
            crate::surface::custom::split_forward_shape(callee, &crate::analysis::reread::writes_no_caller_memory)
                .expect("checked when validating");
        for k in 0..ir::call_arg_count(i) {
            self.read_back(ir::operand(i, k));
        }
        let mut args = self.forward_rule_arguments(i);
        if let Some(tape) = self.r.custom_calls[&i] {
            args.push(self.r.fetch(tape));
        }
        let r = self.r.e.call_user(shape.forward, &mut args);
        if ir::is_float(ir::type_of(i)) {
            let dv = if shape.pair { self.r.e.extract(r, 1) } else { r };
            self.tan.insert(i, dv);
        }
    }

    /// A call that stays a call (recursion): its split derivative ran its
    /// forward part with ours; resumed now with a tangent buffer of its own
    /// (the arguments' tangents and our shadows), it runs its tangent sweep
    /// and leaves the result's tangent there.
    fn resume_for_tangents(&mut self, i: Value, callee: Value) {
        let (h, io, layout) = self.r.split_calls[&i];
        let mask = crate::prepare::checks::nested_call_pattern(i, &self.r.mem).expect("validated");
        let ctx = self.r.e.ctx;
        let tangents = ReplayIo::of(ctx, callee, &mask);
        let buffer = unsafe { LLVMBuildAlloca(self.r.slots, tangents.ty, c"call.tangents".as_ptr()) };
        for (k, field) in tangents.params.iter().enumerate() {
            let Some(field) = field else { continue };
            let a = ir::operand(i, k as u32);
            let v = if ir::is_float(ir::type_of(a)) { self.tangent(a) } else { self.sh.of(a) };
            self.r.e.store(v, tangents.field(&self.r.e, buffer, *field));
        }
        let h = self.r.fetch(h);
        self.r.e.store(buffer, layout.field(&self.r.e, io, layout.replay));
        self.r.e.intrinsic("llvm.coro.resume", &[], &mut [h]);
        if let Some(k) = tangents.result {
            let dv = self.r.e.load(ir::type_of(i), tangents.field(&self.r.e, buffer, k));
            self.tan.insert(i, dv);
        }
    }

    /// The forward part made shadows of its heap blocks for a reverse
    /// sweep; this sweep has its own, so those are freed where the reverse
    /// sweep would free them (the others go with the list of kept shadows).
    fn free_forward_shadow(&mut self, i: Value, kind: &Kind) {
        let r = &mut *self.r;
        if !r.sh.sh.contains_key(&i) {
            return;
        }
        match kind {
            Kind::Alloca if !crate::generate::body::is_fixed_size(i) => {
                let free = crate::build::runtime::libc_function(r.g.module(), "free");
                let s = r.shadow(i);
                r.e.call_user(free, &mut [s]);
            }
            Kind::Alloc(a) if r.shadow_freed_with_allocation(i) => {
                let s = r.shadow(i);
                r.free_allocation_shadow(i, a, s);
            }
            _ => {}
        }
    }

    /// Branches go where they went in the forward part; the return hands
    /// the result's tangent over and ends the sweep.
    fn terminator(&mut self, i: Value, release: Block) {
        let block = |b: Block| self.blocks.blocks[&b];
        unsafe {
            match ir::opcode(i) {
                LLVMOpcode::LLVMBr if LLVMIsConditional(i) != 0 => {
                    let c = self.r.primal(LLVMGetCondition(i));
                    let (yes, no) = (block(LLVMGetSuccessor(i, 0)), block(LLVMGetSuccessor(i, 1)));
                    LLVMBuildCondBr(self.r.e.b, c, yes, no);
                }
                LLVMOpcode::LLVMBr => {
                    self.r.e.br(block(LLVMGetSuccessor(i, 0)));
                }
                LLVMOpcode::LLVMSwitch => {
                    let c = self.r.primal(ir::operand(i, 0));
                    // Successor 0 is the default; the others each have a case value.
                    let n = LLVMGetNumSuccessors(i);
                    let sw = LLVMBuildSwitch(self.r.e.b, c, block(LLVMGetSwitchDefaultDest(i)), n - 1);
                    for k in 1..n {
                        LLVMAddCase(sw, LLVMGetSwitchCaseValue(i, k), block(LLVMGetSuccessor(i, k)));
                    }
                }
                LLVMOpcode::LLVMRet => {
                    if let Some(k) = self.layout.result {
                        let dv = self.tangent(ir::operand(i, 0));
                        self.r.e.store(dv, self.layout.field(&self.r.e, self.io, k));
                    }
                    self.r.e.br(release);
                }
                LLVMOpcode::LLVMUnreachable => {
                    LLVMBuildUnreachable(self.r.e.b);
                }
                op => unreachable!("split forward mode refuses `{op:?}` before generation"),
            }
        }
    }

    /// Phi incoming values, once every block of the sweep exists.
    fn fill_phis(&mut self) {
        let blocks = &self.blocks.blocks;
        for b in self.r.cfg.order.clone() {
            if !self.r.cfg.live.contains(&b) {
                continue;
            }
            for i in ir::instructions(b) {
                if ir::opcode(i) != LLVMOpcode::LLVMPHI {
                    break;
                }
                if let Some(tp) = self.tan.get(&i).copied() {
                    for (v, pb) in ir::incoming(i) {
                        if self.r.cfg.reachable(pb) {
                            let (mut tv, mut nb) = (self.tangent(v), blocks[&pb]);
                            unsafe { LLVMAddIncoming(tp, &mut tv, &mut nb, 1) };
                        }
                    }
                }
                self.sh.fill_phi(i, &self.r.cfg, |b| blocks[&b]);
            }
        }
    }
}
