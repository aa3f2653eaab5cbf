//! Loops that only add to a sum which reaches the result unscaled (GMM's
//! loop over points: `slse += logsumexp(...)`, returned as `... + slse +
//! ...`), reversed an iteration at a time.
//!
//! The adjoint of each iteration's term is then known before the loop
//! runs: the seed of the result (negated when the sum is subtracted). So
//! the forward sweep can run each iteration's derivative right after the
//! iteration (forward and reverse of one iteration, as a hand-written
//! adjoint of such code does), and nothing of it is kept for the reverse
//! sweep: memory is that of one iteration, not of all of them.
//!
//! Here, before generation, the loop's body is moved into a function of its
//! own (the step: the loop's counters and the values it uses in, the term
//! out), called once per iteration and flagged; reverse mode calls the
//! step's combined derivative there (see `Reverse::call_sum_step`), its
//! adjoints of the values passed in kept until the reverse sweep passes the
//! call. Other modes call the step as any function.
//!
//! What makes that sound, checked on the loop (else it stays as it is):
//! - a loop of the function's own (not inside another), with one latch,
//!   which is also its only exit; its header's phis are the sum (a float,
//!   used only to add the term) and integers computed by integer arithmetic
//!   from each other and from values outside the loop, as the exit test is;
//! - the sum's value after the loop reaches the return through adds,
//!   subtractions and negations (and the addend of `fma`), each its only use,
//!   and the return post-dominates the loop's exit; or it is stored, so, through
//!   a parameter that nothing else reads or writes (how the derivatives of
//!   Rust's `#[autodiff_reverse]` return): that parameter's shadow holds the
//!   seed from the start;
//! - the loop writes only local arrays that nothing outside it uses (they
//!   move into the step), and calls nothing but elementary functions;
//!   nothing after the loop writes memory (its reads' adjoints, added early,
//!   would otherwise be taken by the reverse of a later write);
//! - every branch in the body, and every address into those local arrays,
//!   is the same on every iteration (integer arithmetic on constants, values
//!   outside the loop and inner loops' counters): so each iteration accesses
//!   the arrays alike, and one that read an element before writing it would
//!   read it uninitialised on the first iteration. The iterations share
//!   nothing but the sum.

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;
use llvm_sys::LLVMOpcode::*;

use crate::calls::classify::{classify, Kind};
use crate::generate::body::Lanes;
use crate::generate::reverse::state::Reverse;
use crate::ir::cfg::Cfg;
use crate::ir::{self, Block, Value};
use crate::surface::request::{Mode, Request};

/// Flag of a step's call: its term adds to the result.
pub(crate) const STEP: &str = "enzyme_rs.sum_step";
/// Flag of a step's call whose term is subtracted from the result.
pub(crate) const NEGATED: &str = "enzyme_rs.sum_step_negated";
/// Metadata of a step function (what [`outline_sum_loops`] makes).
pub(crate) const STEP_FUNCTION: &str = "enzyme_rs.sum_step_function";
/// Metadata of a step's call whose seed is in a parameter's shadow.
const SEED_ARGUMENT: &str = "enzyme_rs.sum_step_seed";

/// Bodies of more instructions stay loops: a step's derivative keeps an
/// iteration's values in registers (not on a tape) from its forward part to
/// its reverse, and the code generator's register allocation grows faster
/// than that: 8,000 straight-line statements compiled in 8.4 s instead of
/// 5.5 s (`bench/scaling.sh`).
const MOST_INSTRUCTIONS: usize = 6000;

/// Outlines the bodies of `f`'s eligible loops; returns the step functions made.
pub(crate) fn outline_sum_loops(module: LLVMModuleRef, f: Value) -> Vec<Value> {
    let mut steps = Vec::new();
    // One at a time: each changes the control flow graph. A loop whose body
    // is a step's call is not eligible again (it calls a function).
    loop {
        let cfg = Cfg::new(f);
        if !cfg.irreducible.is_empty() {
            return steps;
        }
        let Some(plan) = (0..cfg.loops.len()).find_map(|l| eligible(f, &cfg, l)) else { return steps };
        steps.push(outline(module, f, &cfg, &plan));
    }
}

/// An eligible loop, as found.
struct Plan {
    l: usize,
    /// The sum: the header's float phi, and after this iteration (`acc +
    /// term`, or `fmuladd(a, b, acc)` whose term is `a * b`).
    acc: Value,
    next: Value,
    /// The term, or the two factors of its product.
    term: Vec<Value>,
    latch: Block,
    exit: Block,
    /// Integer instructions of the loop computing the counters' next values
    /// and the exit test, in program order: they stay in the loop.
    skeleton: Vec<Value>,
    negated: bool,
    /// Where the result is stored through a parameter, its number: the seed
    /// is in its shadow.
    seed_argument: Option<u32>,
    /// Local arrays used only in the loop: they move into the step.
    scratch: Vec<Value>,
}

fn eligible(f: Value, cfg: &Cfg, l: usize) -> Option<Plan> {
    let lp = &cfg.loops[l];
    if lp.parent.is_some() || lp.latches.len() != 1 {
        return None;
    }
    let latch = lp.latches[0];
    let [(from, exit)] = lp.exits.as_slice() else { return None };
    if *from != latch || cfg.preds[&lp.header].len() != 2 {
        return None;
    }
    let inside = |v: Value| ir::is_instruction(v) && lp.blocks.contains(&ir::parent_block(v));
    let body: Vec<Value> =
        cfg.order.iter().filter(|b| lp.blocks.contains(b)).flat_map(|b| ir::instructions(*b)).collect();
    if body.len() > MOST_INSTRUCTIONS {
        return None;
    }
    // The header's phis: one float sum, integer counters.
    let phis: Vec<Value> = ir::instructions(lp.header).into_iter().take_while(|i| ir::opcode(*i) == LLVMPHI).collect();
    let floats: Vec<Value> = phis.iter().copied().filter(|p| ir::is_float(ir::type_of(*p))).collect();
    let [acc] = floats.as_slice() else { return None };
    if phis.iter().any(|p| p != acc && !ir::is_int(ir::type_of(*p))) {
        return None;
    }
    let from_latch = |p: Value| ir::incoming(p).into_iter().find(|(_, b)| *b == latch).map(|(v, _)| v);
    let next = from_latch(*acc)?;
    if !inside(next) || ir::users(*acc) != vec![next] {
        return None;
    }
    // `acc + term`, or `fmuladd(a, b, acc)` (contracted `acc += a * b`; it
    // may be computed unfused, so the step returns `a * b`).
    let fmuladd = ir::called_function(next).is_some_and(|c| ir::name(c).starts_with("llvm.fmuladd."));
    let term = match ir::opcode(next) {
        LLVMFAdd if ir::operand(next, 0) == *acc => vec![ir::operand(next, 1)],
        LLVMFAdd => vec![ir::operand(next, 0)],
        LLVMCall if fmuladd && ir::operand(next, 2) == *acc => vec![ir::operand(next, 0), ir::operand(next, 1)],
        _ => return None,
    };
    if term.contains(acc) || !term.iter().any(|t| inside(*t)) {
        return None;
    }
    // After the loop: the sum's way to the return, and no writes.
    let after = reachable_from(cfg, *exit);
    let way = sign_to_return(cfg, &after, *exit, next, &inside)?;
    for i in after.iter().flat_map(|b| ir::instructions(*b)) {
        if writes_memory(i) && way.store.map(|(s, _)| s) != Some(i) {
            return None;
        }
    }
    // The counters' next values and the exit test: integer arithmetic on
    // the header's phis and values from outside.
    let t = ir::terminator(latch);
    if ir::opcode(t) != LLVMBr || ir::operand_count(t) != 3 {
        return None;
    }
    let mut roots: Vec<Value> = vec![ir::operand(t, 0)];
    roots.extend(phis.iter().filter(|p| *p != acc).filter_map(|p| from_latch(*p)));
    let mut skeleton_set: HashSet<Value> = HashSet::new();
    while let Some(v) = roots.pop() {
        if !inside(v) || phis.contains(&v) || !skeleton_set.insert(v) {
            continue;
        }
        if !ir::is_integer_arithmetic(v) {
            return None;
        }
        roots.extend((0..ir::operand_count(v)).map(|k| ir::operand(v, k)));
    }
    let skeleton: Vec<Value> = body.iter().copied().filter(|i| skeleton_set.contains(i)).collect();
    // Only the sum, the counters and the skeleton are used after the loop.
    for i in &body {
        if *i == next || phis.contains(i) || skeleton_set.contains(i) {
            continue;
        }
        if ir::users(*i).iter().any(|u| !inside(*u)) {
            return None;
        }
    }
    // Local arrays used only here move into the step; other writes stop it.
    let scratch = scratch_arrays(f, &inside);
    // The body's integers the same on every iteration: made from constants,
    // values from outside the loop and inner loops' phis (not the header's).
    let invariant = ir::integers_made_of(body.iter().copied().filter(|i| !phis.contains(i)), |o| !inside(o));
    let same = |v: Value| !inside(v) || invariant.contains(&v);
    for i in &body {
        if !body_instruction_allowed(*i, &scratch, &same) {
            return None;
        }
    }
    for b in lp.blocks.iter() {
        let t = ir::terminator(*b);
        if *b == latch {
            continue;
        }
        match ir::opcode(t) {
            LLVMBr if ir::operand_count(t) == 1 => {}
            LLVMBr | LLVMSwitch if same(ir::operand(t, 0)) => {}
            _ => return None,
        }
    }
    Some(Plan {
        l,
        acc: *acc,
        next,
        term,
        latch,
        exit: *exit,
        skeleton,
        negated: way.negated,
        seed_argument: way.store.map(|(_, k)| k),
        scratch,
    })
}

/// The blocks reachable from `b` (itself included).
fn reachable_from(cfg: &Cfg, b: Block) -> HashSet<Block> {
    let mut seen = HashSet::from([b]);
    let mut work = vec![b];
    while let Some(x) = work.pop() {
        for s in ir::successors(ir::terminator(x)) {
            if cfg.live.contains(&s) && seen.insert(s) {
                work.push(s);
            }
        }
    }
    seen
}

/// How the sum after the loop reaches the result.
struct Way {
    negated: bool,
    /// The store of the result through a parameter, and its number.
    store: Option<(Value, u32)>,
}

/// Follows the sum after the loop (`next`'s use outside it) to the return
/// or to the store of the result: whether it arrives negated; `None` if it
/// is scaled, used twice, or the return or store may be avoided.
fn sign_to_return(
    cfg: &Cfg,
    after: &HashSet<Block>,
    exit: Block,
    next: Value,
    inside: &dyn Fn(Value) -> bool,
) -> Option<Way> {
    let outside: Vec<Value> = ir::users(next).into_iter().filter(|u| !inside(*u)).collect();
    let [mut u] = outside.as_slice() else { return None };
    let mut v = next;
    let mut negated = false;
    // Every way on from the loop's exit passes `u`.
    let passed = |u: Value| {
        let (mut at, target) = (exit, ir::parent_block(u));
        while at != target {
            at = *cfg.ipdom.get(&at)?;
        }
        Some(())
    };
    loop {
        let count = (0..ir::operand_count(u)).filter(|k| ir::operand(u, *k) == v).count();
        match ir::opcode(u) {
            LLVMRet => {
                passed(u)?;
                return Some(Way { negated, store: None });
            }
            // Stored through a parameter written and read nowhere else (the
            // result of Rust's derivatives): its shadow holds the seed from
            // the start.
            LLVMStore if ir::operand(u, 0) == v && ir::operand(u, 1) != v => {
                let p = ir::operand(u, 1);
                let k = ir::params(ir::parent_function(u)).iter().position(|a| *a == p)?;
                if ir::users(p) != vec![u] || ir::is_atomic(u) || unsafe { LLVMGetVolatile(u) != 0 } {
                    return None;
                }
                passed(u)?;
                return Some(Way { negated, store: Some((u, k as u32)) });
            }
            LLVMPHI => {
                // Only reached with the sum after the loop ran.
                for (x, b) in ir::incoming(u) {
                    if x != v && after.contains(&b) {
                        return None;
                    }
                }
            }
            LLVMFAdd if count == 1 => {}
            LLVMFSub if count == 1 => negated ^= ir::operand(u, 1) == v,
            LLVMFNeg => negated = !negated,
            LLVMCall if count == 1 && ir::operand(u, 2) == v => {
                let name = ir::called_function(u).map(ir::name).unwrap_or_default();
                if !name.starts_with("llvm.fmuladd.") && !name.starts_with("llvm.fma.") {
                    return None;
                }
            }
            _ => return None,
        }
        let users = ir::users(u);
        let [w] = users.as_slice() else { return None };
        v = u;
        u = *w;
    }
}

/// Whether `i` may write memory (or do anything but compute).
fn writes_memory(i: Value) -> bool {
    match ir::opcode(i) {
        LLVMStore | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence | LLVMInvoke | LLVMCallBr => true,
        LLVMCall => !harmless_call(i),
        _ => false,
    }
}

/// Elementary functions and intrinsics that touch no memory.
fn harmless_call(i: Value) -> bool {
    // (`frexp` writes through its pointer.)
    let given_memory = (0..ir::call_arg_count(i)).any(|k| ir::is_pointer(ir::type_of(ir::operand(i, k))));
    if matches!(classify(i), Kind::Rule(_)) && !given_memory {
        return true;
    }
    let name = ir::called_function(i).map(ir::name).unwrap_or_default();
    name == "llvm.assume" || name == "llvm.experimental.noalias.scope.decl" || ir::is_lifetime_marker(i)
}

/// The function's stack arrays (fixed size, in its entry block) used only
/// in the loop, through address arithmetic.
fn scratch_arrays(f: Value, inside: &dyn Fn(Value) -> bool) -> Vec<Value> {
    let entry = ir::blocks(f)[0];
    let mut out = Vec::new();
    'slots: for a in ir::instructions(entry) {
        if ir::opcode(a) != LLVMAlloca || !crate::generate::body::is_fixed_size(a) {
            continue;
        }
        let mut work = vec![a];
        while let Some(p) = work.pop() {
            for u in ir::users(p) {
                if ir::is_lifetime_marker(u) {
                    continue;
                }
                if !inside(u) {
                    continue 'slots;
                }
                if ir::opcode(u) == LLVMGetElementPtr && ir::operand(u, 0) == p {
                    work.push(u);
                }
            }
        }
        out.push(a);
    }
    out
}

/// What the loop's body may hold (see the module's comment).
fn body_instruction_allowed(i: Value, scratch: &[Value], same: &dyn Fn(Value) -> bool) -> bool {
    let scratch_address = |p: Value| address_of_scratch(p, scratch, same);
    match ir::opcode(i) {
        LLVMLoad => {
            !ir::is_atomic(i) && unsafe { LLVMGetVolatile(i) == 0 } && scratch_address(ir::operand(i, 0)) != Some(false)
        }
        LLVMStore => {
            !ir::is_atomic(i) && unsafe { LLVMGetVolatile(i) == 0 } && scratch_address(ir::operand(i, 1)) == Some(true)
        }
        LLVMCall => match classify(i) {
            Kind::MemSet => scratch_address(ir::operand(i, 0)) == Some(true),
            Kind::MemCpy => {
                scratch_address(ir::operand(i, 0)) == Some(true) && scratch_address(ir::operand(i, 1)) != Some(false)
            }
            _ => harmless_call(i),
        },
        LLVMAlloca | LLVMInvoke | LLVMCallBr | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence | LLVMVAArg
        | LLVMLandingPad | LLVMCatchPad | LLVMCleanupPad | LLVMCatchSwitch | LLVMCatchRet | LLVMCleanupRet
        | LLVMResume | LLVMIndirectBr | LLVMRet => false,
        _ => true,
    }
}

/// For an address: `Some(true)` if it is into a scratch array at an offset
/// the same on every iteration, `Some(false)` if into one otherwise, `None`
/// if not into a scratch array.
fn address_of_scratch(p: Value, scratch: &[Value], same: &dyn Fn(Value) -> bool) -> Option<bool> {
    let mut at = p;
    let mut fixed = true;
    while ir::is_instruction(at) && ir::opcode(at) == LLVMGetElementPtr {
        fixed &= (1..ir::operand_count(at)).all(|k| same(ir::operand(at, k)));
        at = ir::operand(at, 0);
    }
    if scratch.contains(&at) {
        return Some(fixed);
    }
    // Into one some other way (a choice of addresses): not the same each time.
    ir::pointer_bases(p).iter().any(|b| scratch.contains(b)).then_some(false)
}

/// Moves the loop's body into a step function and calls it; returns the step.
fn outline(module: LLVMModuleRef, f: Value, cfg: &Cfg, plan: &Plan) -> Value {
    let lp = &cfg.loops[plan.l];
    let header = lp.header;
    let blocks: Vec<Block> = cfg.order.iter().copied().filter(|b| lp.blocks.contains(b)).collect();
    let phis: Vec<Value> = ir::instructions(header).into_iter().take_while(|i| ir::opcode(*i) == LLVMPHI).collect();
    let in_loop = |v: Value| ir::is_instruction(v) && lp.blocks.contains(&ir::parent_block(v));
    // What the body uses from outside: values of the function and the counters.
    // (The skeleton is cloned too: the body may use the counters' next values.)
    let moved = |i: Value| !phis.contains(&i) && i != plan.next;
    let mut live_ins: Vec<Value> = Vec::new();
    for i in blocks.iter().flat_map(|b| ir::instructions(*b)).filter(|i| moved(*i)) {
        if i == ir::terminator(plan.latch) {
            continue;
        }
        for k in 0..ir::operand_count(i) {
            let o = ir::operand(i, k);
            let from_outside = (ir::is_instruction(o) && !in_loop(o)) || ir::is_argument(o) || phis.contains(&o);
            if from_outside && !plan.scratch.contains(&o) && !live_ins.contains(&o) {
                live_ins.push(o);
            }
        }
    }
    for t in &plan.term {
        let from_outside = (ir::is_instruction(*t) && !in_loop(*t)) || ir::is_argument(*t) || phis.contains(t);
        if from_outside && !plan.scratch.contains(t) && !live_ins.contains(t) {
            live_ins.push(*t);
        }
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let result_t = ir::type_of(plan.next);
        let mut param_ts: Vec<ir::Type> = live_ins.iter().map(|v| ir::type_of(*v)).collect();
        let fty = LLVMFunctionType(result_t, param_ts.as_mut_ptr(), param_ts.len() as u32, 0);
        let name = ir::cstring(&format!("{}.sum_step", ir::name(f)));
        let step = LLVMAddFunction(module, name.as_ptr(), fty);
        LLVMSetLinkage(step, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        copy_function_attributes(f, step);
        ir::set_global_metadata(step, STEP_FUNCTION, None);
        let mut map: HashMap<Value, Value> = HashMap::new();
        for (v, p) in live_ins.iter().zip(ir::params(step)) {
            map.insert(*v, p);
        }
        let b = LLVMCreateBuilderInContext(ctx);
        let entry = LLVMAppendBasicBlockInContext(ctx, step, c"entry".as_ptr());
        for blk in &blocks {
            let nb = LLVMAppendBasicBlockInContext(ctx, step, c"".as_ptr());
            map.insert(ir::block_value(*blk), LLVMBasicBlockAsValue(nb));
        }
        LLVMPositionBuilderAtEnd(b, entry);
        for a in &plan.scratch {
            let c = LLVMInstructionClone(*a);
            LLVMInsertIntoBuilder(b, c);
            map.insert(*a, c);
        }
        LLVMBuildBr(b, LLVMValueAsBasicBlock(map[&ir::block_value(header)]));
        let mut cloned = Vec::new();
        let mut new_phis = Vec::new();
        for blk in &blocks {
            LLVMPositionBuilderAtEnd(b, LLVMValueAsBasicBlock(map[&ir::block_value(*blk)]));
            for i in ir::instructions(*blk) {
                if phis.contains(&i) || i == plan.next {
                    continue;
                }
                let n = if i == ir::terminator(plan.latch) {
                    let term = match plan.term.as_slice() {
                        [t] => *t,
                        [x, y] => {
                            let m = LLVMBuildFMul(b, *x, *y, c"".as_ptr());
                            cloned.push(m);
                            m
                        }
                        _ => unreachable!("a term or a product"),
                    };
                    LLVMBuildRet(b, term)
                } else if ir::opcode(i) == LLVMPHI {
                    let n = LLVMBuildPhi(b, ir::type_of(i), c"".as_ptr());
                    new_phis.push((i, n));
                    n
                } else {
                    let n = LLVMInstructionClone(i);
                    LLVMInsertIntoBuilder(b, n);
                    n
                };
                llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(n, std::ptr::null_mut());
                cloned.push(n);
                map.insert(i, n);
            }
        }
        for n in &cloned {
            if ir::opcode(*n) != LLVMPHI {
                crate::ir::edits::remap_operands(*n, &map);
            }
        }
        for (old, new) in new_phis {
            for (v, pb) in ir::incoming(old) {
                let mut v2 = map.get(&v).copied().unwrap_or(v);
                let mut b2 = LLVMValueAsBasicBlock(map[&ir::block_value(pb)]);
                LLVMAddIncoming(new, &mut v2, &mut b2, 1);
            }
        }

        // The loop in `f`: its header's phis, the call, the sum, the skeleton.
        let s = LLVMAppendBasicBlockInContext(ctx, f, c"sum.step".as_ptr());
        LLVMPositionBuilderAtEnd(b, s);
        let mut args = live_ins.clone();
        let call = LLVMBuildCall2(b, fty, step, args.as_mut_ptr(), args.len() as u32, c"".as_ptr());
        ir::copy_debug_location(plan.next, call);
        ir::set_flag(call, STEP);
        if plan.negated {
            ir::set_flag(call, NEGATED);
        }
        if let Some(k) = plan.seed_argument {
            set_seed_argument(call, k);
        }
        let next2 = if let [t] = plan.term.as_slice() {
            let n = LLVMInstructionClone(plan.next);
            LLVMInsertIntoBuilder(b, n);
            LLVMSetOperand(n, if ir::operand(plan.next, 0) == *t { 0 } else { 1 }, call);
            n
        } else {
            LLVMBuildFAdd(b, plan.acc, call, c"".as_ptr())
        };
        let mut f_map: HashMap<Value, Value> = HashMap::from([(plan.next, next2)]);
        for i in &plan.skeleton {
            let n = LLVMInstructionClone(*i);
            LLVMInsertIntoBuilder(b, n);
            crate::ir::edits::remap_operands(n, &f_map);
            f_map.insert(*i, n);
        }
        let t = LLVMInstructionClone(ir::terminator(plan.latch));
        LLVMInsertIntoBuilder(b, t);
        crate::ir::edits::remap_operands(t, &f_map);
        for (old, new) in &f_map {
            LLVMReplaceAllUsesWith(*old, *new);
        }
        // The header's and the exit's phis take their latch values from `s`.
        let rewire = |phi: Value, at: Value| {
            let n = {
                LLVMPositionBuilderBefore(b, at);
                LLVMBuildPhi(b, ir::type_of(phi), c"".as_ptr())
            };
            for (v, pb) in ir::incoming(phi) {
                let mut v2 = v;
                let mut b2 = if pb == plan.latch { s } else { pb };
                LLVMAddIncoming(n, &mut v2, &mut b2, 1);
            }
            LLVMReplaceAllUsesWith(phi, n);
            LLVMInstructionEraseFromParent(phi);
        };
        for p in &phis {
            rewire(*p, LLVMGetFirstInstruction(header));
        }
        let exit_phis: Vec<Value> =
            ir::instructions(plan.exit).into_iter().take_while(|i| ir::opcode(*i) == LLVMPHI).collect();
        for p in exit_phis {
            rewire(p, LLVMGetFirstInstruction(plan.exit));
        }
        // The old body goes: terminators first (blocks are their operands),
        // then its values (used only by each other now), then its blocks.
        let header_phis: Vec<Value> =
            ir::instructions(header).into_iter().take_while(|i| ir::opcode(*i) == LLVMPHI).collect();
        for blk in &blocks {
            LLVMInstructionEraseFromParent(ir::terminator(*blk));
        }
        for blk in &blocks {
            for i in ir::instructions(*blk) {
                if header_phis.contains(&i) || ir::is_void(ir::type_of(i)) {
                    continue;
                }
                LLVMReplaceAllUsesWith(i, LLVMGetPoison(ir::type_of(i)));
            }
        }
        for i in ir::instructions(header) {
            if !header_phis.contains(&i) {
                LLVMInstructionEraseFromParent(i);
            }
        }
        LLVMPositionBuilderAtEnd(b, header);
        LLVMBuildBr(b, s);
        for blk in blocks.iter().filter(|x| **x != header) {
            LLVMDeleteBasicBlock(*blk);
        }
        for a in &plan.scratch {
            for u in ir::users(*a) {
                if ir::is_lifetime_marker(u) {
                    LLVMInstructionEraseFromParent(u);
                }
            }
            LLVMInstructionEraseFromParent(*a);
        }
        LLVMDisposeBuilder(b);
        step
    }
}

/// Marks a step's call: the seed is in the shadow of parameter `k` of the
/// function calling it.
fn set_seed_argument(call: Value, k: u32) {
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(call));
        let kind = LLVMGetMDKindIDInContext(ctx, SEED_ARGUMENT.as_ptr().cast(), SEED_ARGUMENT.len() as u32);
        let mut op = LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), u64::from(k), 0));
        LLVMSetMetadata(call, kind, LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, &mut op, 1)));
    }
}

/// The parameter whose shadow holds a step call's seed (see
/// [`set_seed_argument`]); `None` when the seed is the result's.
fn seed_argument(call: Value) -> Option<u32> {
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(call));
        let kind = LLVMGetMDKindIDInContext(ctx, SEED_ARGUMENT.as_ptr().cast(), SEED_ARGUMENT.len() as u32);
        let md = LLVMGetMetadata(call, kind);
        if md.is_null() || LLVMGetMDNodeNumOperands(md) != 1 {
            return None;
        }
        let mut op = [std::ptr::null_mut()];
        LLVMGetMDNodeOperands(md, op.as_mut_ptr());
        ir::const_int_value(op[0]).map(|k| k as u32)
    }
}

/// The function attributes of `f` (target, floating-point mode) on `step`.
fn copy_function_attributes(f: Value, step: Value) {
    unsafe {
        let idx = llvm_sys::LLVMAttributeFunctionIndex;
        let n = LLVMGetAttributeCountAtIndex(f, idx);
        let mut attrs = vec![std::ptr::null_mut(); n as usize];
        LLVMGetAttributesAtIndex(f, idx, attrs.as_mut_ptr());
        for a in attrs {
            if LLVMIsStringAttribute(a) != 0 {
                LLVMAddAttributeAtIndex(step, idx, a);
            }
        }
    }
}

impl Reverse<'_> {
    /// Forward sweep, at a step's call (see the module's comment): the
    /// step's combined derivative runs now, seeded with the result's seed
    /// (negated where the sum is subtracted); the adjoints of the values
    /// passed in are added up for the reverse sweep. `false` where this
    /// derivative cannot (no seed known before its reverse sweep: a split
    /// derivative, vector mode, a parallel region's), and the call is
    /// differentiated as any other.
    pub(in crate::generate) fn call_sum_step(&mut self, i: Value, callee: Value) -> bool {
        if self.split.is_some() || self.atomic || self.lane_count() != 1 {
            return false;
        }
        let seed = match seed_argument(i) {
            // The result's shadow, as the caller filled it.
            Some(k) => {
                let p = ir::params(ir::parent_function(i))[k as usize];
                if self.mem.status(p) != crate::analysis::memory::PtrStatus::Shadowed {
                    return false;
                }
                self.e.load(ir::type_of(i), self.sh.of(p))
            }
            None => match self.sum_seed {
                Some(seed) => seed,
                None => return false,
            },
        };
        let mask = crate::prepare::checks::nested_call_pattern(i, &self.mem).expect("validated");
        let mut request = Request::new(Mode::Reverse, callee, &mask)
            .strong_zero(self.e.strong_zero)
            .runtime_activity(self.e.runtime_activity);
        request.primal_return = true;
        let d = self.g.request(request);
        let mut args = self.arguments_with_shadows(i, &mask, 0);
        let seed = if ir::has_flag(i, NEGATED) { self.e.fneg(seed) } else { seed };
        args.push(seed);
        let r = self.e.call(d, &mut args);
        let mut sums = Vec::new();
        let mut j = 0;
        for k in 0..ir::call_arg_count(i) {
            let t = ir::type_of(ir::operand(i, k));
            if !ir::is_float(t) {
                continue;
            }
            let slot = unsafe { LLVMBuildAlloca(self.slots, t, c"step.adjoint".as_ptr()) };
            unsafe { LLVMBuildStore(self.slots, self.e.adjoint_zero(t), slot) };
            let sum = self.e.fadd(self.e.load(t, slot), self.e.extract(r, j));
            self.e.store(sum, slot);
            sums.push((k, slot));
            j += 1;
        }
        self.map.insert(i, self.e.extract(r, j));
        self.sum_step_calls.insert(i, sums);
        true
    }

    /// Reverse sweep, at a step's call: the step was reversed in the forward
    /// sweep; the adjoints of the values passed in, summed over its calls,
    /// go to those values (once: the sums are emptied).
    pub(in crate::generate) fn reverse_sum_step(&mut self, i: Value) {
        if unsafe { !LLVMGetFirstUse(i).is_null() } {
            // Its seed was known; what the reverse sweep brings is the same.
            let _ = self.take_adjoint(i);
        }
        for (k, slot) in self.sum_step_calls[&i].clone() {
            let t = ir::type_of(ir::operand(i, k));
            let v = self.e.load(t, slot);
            self.e.store(self.e.adjoint_zero(t), slot);
            self.accumulate(ir::operand(i, k), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::{printed, with_function};

    /// `@f(ptr %x, i64 %n)`: a rotated loop adding `term` (made from `x[i]`,
    /// with a local array `t` of two doubles) to `%s`, then `tail` after it.
    fn sum_loop(term: &str, tail: &str) -> String {
        format!(
            "declare double @llvm.sin.f64(double)\n\
             define double @f(ptr %x, i64 %n) {{\n\
             entry:\n  %t = alloca [2 x double]\n  br label %loop\n\
             loop:\n  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]\n  \
             %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]\n  \
             %p = getelementptr double, ptr %x, i64 %i\n  %v = load double, ptr %p\n  \
             {term}\n  %s.next = fadd double %s, %term\n  %i.next = add i64 %i, 1\n  \
             %c = icmp eq i64 %i.next, %n\n  br i1 %c, label %done, label %loop\n\
             done:\n  {tail}\n}}\n"
        )
    }

    const LOCAL: &str = "%a = getelementptr [2 x double], ptr %t, i64 0, i64 1\n  \
                         store double %v, ptr %a\n  %w = load double, ptr %a\n  %term = call double @llvm.sin.f64(double %w)";

    /// How many steps outlining makes in `@f`, and whether the result verifies.
    fn steps(ir: &str) -> (usize, bool, String) {
        with_function(ir, |f| {
            let module = unsafe { LLVMGetGlobalParent(f) };
            let n = outline_sum_loops(module, f).len();
            let ok = unsafe {
                llvm_sys::analysis::LLVMVerifyModule(
                    module,
                    llvm_sys::analysis::LLVMVerifierFailureAction::LLVMReturnStatusAction,
                    std::ptr::null_mut(),
                ) == 0
            };
            (n, ok, printed(f))
        })
    }

    #[test]
    fn a_sum_returned_as_it_is_or_subtracted_is_outlined() {
        for tail in ["ret double %s.next", "%r = fsub double 1.0, %s.next\n  ret double %r"] {
            let (n, ok, text) = steps(&sum_loop(LOCAL, tail));
            assert_eq!(n, 1, "{text}");
            assert!(ok, "{text}");
            // The local array moved into the step.
            assert!(!text.contains("alloca"), "{text}");
            assert_eq!(text.contains("enzyme_rs.sum_step_negated"), tail.contains("fsub"), "{text}");
        }
    }

    #[test]
    fn a_sum_scaled_or_followed_by_a_write_is_left_alone() {
        for tail in [
            "%r = fmul double %s.next, 2.0\n  ret double %r",
            "store double 0.0, ptr %x\n  ret double %s.next",
            "%r = fadd double %s.next, %s.next\n  ret double %r",
        ] {
            let (n, ok, text) = steps(&sum_loop(LOCAL, tail));
            assert_eq!(n, 0, "{text}");
            assert!(ok);
        }
    }

    #[test]
    fn a_body_writing_other_memory_or_reading_a_local_array_at_the_counter_is_left_alone() {
        let global = "store double %v, ptr %x\n  %term = call double @llvm.sin.f64(double %v)";
        let moving = "%j = and i64 %i, 1\n  %a = getelementptr [2 x double], ptr %t, i64 0, i64 %j\n  \
                      %w = load double, ptr %a\n  store double %v, ptr %a\n  %term = fmul double %w, %v";
        for body in [global, moving] {
            let (n, _, text) = steps(&sum_loop(body, "ret double %s.next"));
            assert_eq!(n, 0, "{text}");
        }
    }
}
