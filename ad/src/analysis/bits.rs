//! Float bits moved as integers. The optimiser turns small `memcpy`s into
//! integer loads and stores, and forwards such an integer to a later float
//! load as a `bitcast`; as integers the bytes would carry no derivative.
//! [`canonicalise`] gives them their float type back where the IR says what
//! it is, and otherwise makes them a `memcpy` again, which the memory
//! analysis types from its usual evidence or refuses.

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode::*;

use std::collections::{HashMap, HashSet};

use crate::ir::{self, Value};

/// Retypes float bits moved through integers in `f` (see the module doc).
pub(crate) fn canonicalise(f: Value) {
    crate::ir::int_pointers::retype(f);
    retype_float_images(f);
    integer_copies_to_memcpy(f);
}

/// Integers that only carry the bits of one float type: loads, phis and
/// selects of them, fed by `bitcast float to iN` or loads, used only by
/// stores, other members and `bitcast iN to float`. Such a web (what the
/// optimiser makes of a small `memcpy` or `memmove` of floats, forwarded
/// through loops) is retyped as floats: same bits, now differentiated.
fn retype_float_images(f: Value) {
    // Retyping erases instructions: find one web at a time, then look again.
    while let Some((web, float)) = next_web(f) {
        retype(&web, float);
    }
}

/// The first web of float bits in `f` (seeded by a bitcast between an
/// integer and a float, or by a stored integer).
fn next_web(f: Value) -> Option<(Web, ir::Type)> {
    let mut tried: HashSet<Value> = HashSet::new();
    for b in ir::blocks(f) {
        for i in ir::instructions(b) {
            let (seed, float) = match ir::opcode(i) {
                LLVMBitCast => {
                    let (from, to) = (ir::type_of(ir::operand(i, 0)), ir::type_of(i));
                    if ir::is_int(from) && ir::is_float(to) {
                        (ir::operand(i, 0), to)
                    } else if ir::is_float(from) && ir::is_int(to) {
                        (i, from)
                    } else {
                        continue;
                    }
                }
                // Integer bits stored: a copy, typed by the memory it moves.
                // Integer vectors too: lanes of float bits (a vectorised copy).
                LLVMStore if ir::is_instruction(ir::operand(i, 0)) => {
                    let v = ir::operand(i, 0);
                    let t = ir::type_of(v);
                    let Some((lane, lanes)) = ir::int_lanes(t) else { continue };
                    let ctx = unsafe { LLVMGetTypeContext(t) };
                    let float = match ir::int_width(lane) {
                        64 => unsafe { LLVMDoubleTypeInContext(ctx) },
                        32 => unsafe { LLVMFloatTypeInContext(ctx) },
                        _ => continue,
                    };
                    if lanes == 1 {
                        (v, float)
                    } else if ir::kind(t) == llvm_sys::LLVMTypeKind::LLVMVectorTypeKind {
                        (v, unsafe { LLVMVectorType(float, lanes) })
                    } else {
                        continue;
                    }
                }
                _ => continue,
            };
            if !tried.insert(seed) {
                continue;
            }
            if let Some(web) = float_web(seed, float) {
                return Some((web, float));
            }
        }
    }
    None
}

/// A web of integers carrying the bits of floats (see [`retype_float_images`]).
struct Web {
    /// Loads, phis, selects and `bitcast float to iN`, in discovery order.
    members: Vec<Value>,
    /// `bitcast iN to float` users, replaced by the member's float.
    casts_out: Vec<Value>,
    /// Stores of members.
    stores: Vec<Value>,
    /// Users that only inspect a member's bits (see
    /// `compared_reads::only_inspected`), with the member: they get the
    /// retyped float's bits back.
    inspections: Vec<(Value, Value)>,
}

fn float_web(seed: Value, float: ir::Type) -> Option<Web> {
    let web = web_shape(seed, float)?;
    // A float's bits only inspected, moved nowhere: nothing to retype (and
    // retyping would make the same bits again).
    if web.stores.is_empty() && web.casts_out.is_empty() && web.members.iter().all(|m| ir::opcode(*m) == LLVMBitCast) {
        return None;
    }
    // Bits used as a float or made from one say so; otherwise the memory
    // they are loaded from or stored to must.
    let typed = !web.casts_out.is_empty()
        || web.members.iter().any(|m| ir::opcode(*m) == LLVMBitCast)
        || web.inspections.iter().any(|(m, _)| ordered_as_float(*m))
        || web
            .members
            .iter()
            .filter(|m| ir::opcode(**m) == LLVMLoad)
            .map(|m| ir::operand(*m, 0))
            .chain(web.stores.iter().map(|s| ir::operand(*s, 1)))
            .any(|p| memory_holds(p, float, &web) || read_or_written_as(p, float, &web));
    typed.then_some(web)
}

/// The web of integers carrying float bits that `seed` belongs to, by its
/// shape alone: what it is made of and used by (see [`Web`]).
fn web_shape(seed: Value, float: ir::Type) -> Option<Web> {
    let bits = unsafe { llvm_sys::target::LLVMSizeOfTypeInBits(data_layout(seed)?, float) };
    let mut web = Web { members: Vec::new(), casts_out: Vec::new(), stores: Vec::new(), inspections: Vec::new() };
    let mut seen = HashSet::new();
    let mut work = vec![seed];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        let t = ir::type_of(v);
        if !carries(t, float, bits) || !ir::is_instruction(v) {
            return None;
        }
        match ir::opcode(v) {
            LLVMLoad if unsafe { LLVMGetVolatile(v) } == 0 && !ir::is_atomic(v) => {}
            LLVMBitCast if ir::type_of(ir::operand(v, 0)) == float => {}
            // Lanes rearranged among vectors of the web's type.
            LLVMShuffleVector if ir::type_of(ir::operand(v, 0)) == t => {
                for k in 0..2 {
                    let x = ir::operand(v, k);
                    if !is_plain_constant(x) {
                        work.push(x);
                    }
                }
            }
            LLVMPHI => {
                for (x, _) in ir::incoming(v) {
                    if !is_plain_constant(x) {
                        work.push(x);
                    }
                }
            }
            LLVMSelect => {
                for k in 1..3 {
                    let x = ir::operand(v, k);
                    if !is_plain_constant(x) {
                        work.push(x);
                    }
                }
            }
            _ => return None,
        }
        web.members.push(v);
        for u in ir::users(v) {
            match ir::opcode(u) {
                LLVMStore if ir::operand(u, 0) == v && unsafe { LLVMGetVolatile(u) } == 0 && !ir::is_atomic(u) => {
                    if !web.stores.contains(&u) {
                        web.stores.push(u);
                    }
                }
                LLVMBitCast if ir::type_of(u) == float => {
                    if !web.casts_out.contains(&u) {
                        web.casts_out.push(u);
                    }
                }
                LLVMPHI | LLVMShuffleVector => work.push(u),
                LLVMSelect if ir::operand(u, 0) != v => work.push(u),
                // Bits only inspected (`total_cmp` orders floats by them).
                _ if ir::is_int(t) && is_inspection(u) => {
                    if !web.inspections.contains(&(v, u)) {
                        web.inspections.push((v, u));
                    }
                }
                _ => return None,
            }
        }
    }
    Some(web)
}

/// Whether the function loads or stores `float` itself (outside the web) at
/// the very address `p`: the place holds a `float` there, whatever else the
/// memory `p` points into may hold. (A vectorised `reverse` swaps the two
/// ends of a slice as `<2 x double>` one way and `<2 x i64>` the other.)
fn read_or_written_as(p: Value, float: ir::Type, web: &Web) -> bool {
    ir::users(p).into_iter().any(|u| {
        let t = match ir::opcode(u) {
            LLVMLoad => ir::type_of(u),
            LLVMStore if ir::operand(u, 1) == p => ir::type_of(ir::operand(u, 0)),
            _ => return false,
        };
        t == float && !web.members.contains(&u) && !web.stores.contains(&u)
    })
}

/// Whether integer (vector) type `t` has the size of `float` (`bits`), lane
/// for lane.
fn carries(t: ir::Type, float: ir::Type, bits: u64) -> bool {
    let Some((lane, lanes)) = ir::int_lanes(t) else { return false };
    let is_vector = |t| ir::kind(t) == llvm_sys::LLVMTypeKind::LLVMVectorTypeKind;
    let float_lanes = if is_vector(float) { unsafe { LLVMGetVectorSize(float) } } else { 1 };
    is_vector(t) == is_vector(float) && lanes == float_lanes && ir::int_width(lane) as u64 * lanes as u64 == bits
}

/// Whether the memory `p` points into evidently holds `float`s: a stack slot
/// of floats (arrays and structs of them), or memory the function otherwise
/// only loads and stores as `float` (outside the web itself).
fn memory_holds(p: Value, float: ir::Type, web: &Web) -> bool {
    // A hash table's slots, typed by the code that fills and reads them.
    if let Some(f) = ir::is_instruction(p).then(|| ir::parent_function(p)) {
        if let Some(e) = crate::libraries::table_elem_at(p, ir::store_size(f, float)) {
            return crate::ir::kind::Elem::float_of(float) == Some(e) && ir::vector_lanes(float).is_none();
        }
    }
    // Vectors of floats: memory of their lanes' type.
    let lane = ir::scalar_of(float);
    let root = root_of(p);
    unsafe {
        if !LLVMIsAAllocaInst(root).is_null() {
            return only_of(LLVMGetAllocatedType(root), lane);
        }
    }
    if !ir::is_instruction(root) && !ir::is_argument(root) {
        return false;
    }
    let f = if ir::is_argument(root) { unsafe { LLVMGetParamParent(root) } } else { ir::parent_function(root) };
    let mut any = false;
    for i in ir::blocks(f).into_iter().flat_map(ir::instructions) {
        let (ptr, t) = match ir::opcode(i) {
            LLVMLoad => (ir::operand(i, 0), ir::type_of(i)),
            LLVMStore => (ir::operand(i, 1), ir::type_of(ir::operand(i, 0))),
            LLVMCall | LLVMInvoke => {
                // A call may store anything through the pointer (but `free` and intrinsics do not).
                let callee = ir::called_function(i);
                let harmless = callee.is_some_and(|c| {
                    matches!(ir::name(c).as_str(), "free" | "_ZdlPv" | "_ZdaPv" | "_ZdlPvm" | "_ZdaPvm")
                        || ir::name(c).starts_with("llvm.")
                });
                if !harmless
                    && (0..ir::call_arg_count(i))
                        .any(|k| root_of(ir::operand(i, k)) == root && !neutral_argument(i, k, callee, f, root))
                {
                    return false;
                }
                continue;
            }
            _ => continue,
        };
        if root_of(ptr) != root || web.members.contains(&i) || web.stores.contains(&i) {
            continue;
        }
        // Integer constants (a small `memset`, a float constant's bits): no evidence.
        if ir::opcode(i) == LLVMStore && crate::ir::layout::is_int_constant(ir::operand(i, 0)) {
            continue;
        }
        // Other copies of the same memory through integers (a vectorised
        // loop's vector and scalar parts, the other moves of a sort's
        // partition): moved bits, no evidence either way.
        if moves_float_sized_bits(i, float) || other_web(i, float) {
            continue;
        }
        // The float itself, its lanes' type, or a vector of those (read a few at a time).
        if t != float && ir::scalar_of(t) != lane {
            return false;
        }
        any = true;
    }
    any
}

/// Whether load or store `i` only moves integers whose lanes are as wide as
/// `float`'s lanes (a scalar or a vector): a load used only by shuffles and
/// stores, or a store of a load or shuffle. Beside a web, such moves are
/// other copies of the same memory (a vectorised loop's vector and scalar
/// parts); they say nothing of what it holds.
fn moves_float_sized_bits(i: Value, float: ir::Type) -> bool {
    let v = if ir::opcode(i) == LLVMLoad { i } else { ir::operand(i, 0) };
    let Some((lane, _)) = ir::int_lanes(ir::type_of(v)) else { return false };
    let float_lane = ir::scalar_of(float);
    let Some(dl) = data_layout(i) else { return false };
    if u64::from(ir::int_width(lane)) != unsafe { llvm_sys::target::LLVMSizeOfTypeInBits(dl, float_lane) } {
        return false;
    }
    if ir::opcode(i) == LLVMLoad {
        let users = ir::users(i);
        !users.is_empty()
            && users.iter().all(|u| match ir::opcode(*u) {
                LLVMShuffleVector => true,
                LLVMStore => ir::operand(*u, 0) == i,
                // Made a float again, or only inspected (`total_cmp`).
                LLVMBitCast => ir::type_of(*u) == float,
                _ => is_inspection(*u),
            })
    } else {
        ir::is_instruction(v) && matches!(ir::opcode(v), LLVMLoad | LLVMShuffleVector)
    }
}

/// Whether load or store `i` is part of another web of float-sized bits by
/// its shape (loaded, joined, stored, only inspected otherwise).
fn other_web(i: Value, float: ir::Type) -> bool {
    let v = if ir::opcode(i) == LLVMLoad { i } else { ir::operand(i, 0) };
    ir::is_instruction(v) && web_shape(v, float).is_some()
}

/// Whether a type is `float`, or arrays/structs of nothing else.
fn only_of(t: ir::Type, float: ir::Type) -> bool {
    use llvm_sys::LLVMTypeKind::*;
    unsafe {
        match ir::kind(t) {
            _ if t == float => true,
            LLVMArrayTypeKind => only_of(LLVMGetElementType(t), float),
            LLVMStructTypeKind => {
                let n = LLVMCountStructElementTypes(t);
                n > 0 && (0..n).all(|k| only_of(LLVMStructGetTypeAtIndex(t, k), float))
            }
            _ => false,
        }
    }
}

/// Whether argument `k` of call `i` (based at `root`) says nothing against
/// what [`memory_holds`] concludes of `root`'s memory: the callee only reads
/// through it (`readonly`), or the callee is `f` itself and `root` is `f`'s
/// parameter `k` (a recursion into a part of the same memory, which makes
/// the same accesses as the ones being judged: a sort's quicksort).
fn neutral_argument(i: Value, k: u32, callee: Option<Value>, f: Value, root: Value) -> bool {
    if reads_only(i, k, callee) {
        return true;
    }
    callee == Some(f) && ir::is_argument(root) && unsafe { LLVMGetParam(f, k) } == root
}

/// Whether call `i` only reads through its argument `k` (`readonly` on the
/// call or on the callee's parameter).
fn reads_only(i: Value, k: u32, callee: Option<Value>) -> bool {
    let kind = unsafe { LLVMGetEnumAttributeKindForName(c"readonly".as_ptr(), 8) };
    unsafe {
        !LLVMGetCallSiteEnumAttribute(i, k + 1, kind).is_null()
            || callee.is_some_and(|c| {
                k < LLVMCountParams(c)
                    && (!LLVMGetEnumAttributeAtIndex(c, k + 1, kind).is_null() || param_only_read(c, k))
            })
    }
}

/// Whether function `f`'s body only reads through its parameter `k`, as
/// the optimiser would have marked it `readonly` (an unoptimised build does
/// not): the pointer and what is computed from it are loaded from, compared,
/// turned into integers, returned, or passed on where the callee only reads
/// too.
fn param_only_read(f: Value, k: u32) -> bool {
    let reads = crate::ir::compared_reads::Reads { load: &|_| true, leaves: true, other_callees: true };
    crate::ir::compared_reads::param_read_only(f, k, &reads, &mut HashSet::new())
}

/// The base a pointer is computed from, through address arithmetic, and
/// through the phis of loops that start at one base and step from
/// themselves (a sub-slice taken in each iteration of nested loops): the one
/// value, neither a phi nor address arithmetic, that the web of phis and
/// address arithmetic behind `p` starts from; `p` itself when there are
/// several.
fn root_of(p: Value) -> Value {
    let strip = |mut p: Value| unsafe {
        while !LLVMIsAGetElementPtrInst(p).is_null() {
            p = LLVMGetOperand(p, 0);
        }
        p
    };
    let p = strip(p);
    let is_phi = |v: Value| ir::is_instruction(v) && ir::opcode(v) == LLVMPHI;
    if !is_phi(p) {
        return p;
    }
    let mut seen: HashSet<Value> = HashSet::new();
    let mut work = vec![p];
    let mut start = None;
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        if seen.len() > 64 {
            return p;
        }
        for (x, _) in ir::incoming(v) {
            let x = strip(x);
            if is_phi(x) {
                work.push(x);
            } else if start.is_some_and(|s| s != x) {
                return p;
            } else {
                start = Some(x);
            }
        }
    }
    start.unwrap_or(p)
}

fn retype(web: &Web, float: ir::Type) {
    let mut map: HashMap<Value, Value> = HashMap::new();
    unsafe {
        let ctx = LLVMGetTypeContext(float);
        let b = LLVMCreateBuilderInContext(ctx);
        // New values first (phis empty), then operands, then users.
        for m in &web.members {
            let nv = match ir::opcode(*m) {
                LLVMLoad => {
                    LLVMPositionBuilderBefore(b, *m);
                    let l = LLVMBuildLoad2(b, float, ir::operand(*m, 0), c"".as_ptr());
                    LLVMSetAlignment(l, LLVMGetAlignment(*m));
                    ir::copy_debug_location(*m, l);
                    l
                }
                LLVMBitCast => ir::operand(*m, 0),
                // Made below, once their operands are.
                LLVMShuffleVector => continue,
                _ => ir::empty_mirror(b, *m, float),
            };
            map.insert(*m, nv);
        }
        // Shuffles of shuffles: each once both operands are retyped.
        let shuffles: Vec<Value> =
            web.members.iter().copied().filter(|m| ir::opcode(*m) == LLVMShuffleVector).collect();
        // (Each shuffle's operands are members or constants: every round makes one.)
        for _ in 0..=shuffles.len() {
            for m in &shuffles {
                if map.contains_key(m) {
                    continue;
                }
                let retyped = |x: Value| {
                    if is_plain_constant(x) {
                        Some(LLVMGetPoison(float))
                    } else {
                        map.get(&x).copied()
                    }
                };
                let (Some(a), Some(c)) = (retyped(ir::operand(*m, 0)), retyped(ir::operand(*m, 1))) else { continue };
                let i32t = LLVMInt32TypeInContext(ctx);
                let mut mask: Vec<Value> = (0..LLVMGetNumMaskElements(*m))
                    .map(|k| match LLVMGetMaskValue(*m, k) {
                        x if x < 0 => LLVMGetPoison(i32t),
                        x => LLVMConstInt(i32t, x as u64, 0),
                    })
                    .collect();
                LLVMPositionBuilderBefore(b, *m);
                let mask = LLVMConstVector(mask.as_mut_ptr(), mask.len() as u32);
                let nv = LLVMBuildShuffleVector(b, a, c, mask, c"".as_ptr());
                ir::copy_debug_location(*m, nv);
                map.insert(*m, nv);
            }
        }
        ir::fill_mirrors(&web.members, &map, |x| map.get(&x).copied().unwrap_or_else(|| LLVMConstBitCast(x, float)));
        for s in &web.stores {
            let v = map[&ir::operand(*s, 0)];
            store_instead(b, *s, v);
        }
        for c in &web.casts_out {
            LLVMReplaceAllUsesWith(*c, map[&ir::operand(*c, 0)]);
            LLVMInstructionEraseFromParent(*c);
        }
        for (m, u) in &web.inspections {
            if !(0..ir::operand_count(*u)).any(|k| ir::operand(*u, k) == *m) {
                continue;
            }
            LLVMPositionBuilderBefore(b, *u);
            let bits = LLVMBuildBitCast(b, map[m], ir::type_of(*m), c"bits".as_ptr());
            for k in 0..ir::operand_count(*u) {
                if ir::operand(*u, k) == *m {
                    LLVMSetOperand(*u, k, bits);
                }
            }
        }
        // The old members are dead now (their users were all retyped);
        // a `bitcast` of a float stays where it has users outside the web,
        // so it is judged once the other members are gone.
        // (Which members are casts is read before any is erased.)
        let (casts, others): (Vec<Value>, Vec<Value>) =
            web.members.iter().partition(|m| ir::opcode(**m) == LLVMBitCast);
        for m in others.iter().rev() {
            LLVMReplaceAllUsesWith(*m, LLVMGetPoison(ir::type_of(*m)));
            LLVMInstructionEraseFromParent(*m);
        }
        for m in casts {
            if LLVMGetFirstUse(m).is_null() {
                LLVMInstructionEraseFromParent(m);
            }
        }
        LLVMDisposeBuilder(b);
    }
}

/// Whether `u`, a user of a web member, only inspects its bits: an integer
/// comparison, or integer arithmetic whose result is only inspected.
fn is_inspection(u: Value) -> bool {
    ir::opcode(u) == LLVMICmp
        || (matches!(ir::opcode(u), LLVMLShr | LLVMAShr | LLVMShl | LLVMXor | LLVMAnd | LLVMOr | LLVMAdd | LLVMSub)
            && crate::ir::compared_reads::only_inspected(u))
}

/// Whether integer `m` is ordered as a float's bits are: `total_cmp`'s key
/// `m ^ ((m >>s (w - 1)) >>u 1)` (the sign-magnitude order of IEEE floats
/// made two's complement). Integers are not ordered so.
fn ordered_as_float(m: Value) -> bool {
    let width = ir::int_width(ir::type_of(m)) as i64;
    let const_is = |v: Value, n: i64| ir::const_int_value(v) == Some(n);
    ir::users(m).into_iter().any(|a| {
        ir::opcode(a) == LLVMAShr
            && ir::operand(a, 0) == m
            && const_is(ir::operand(a, 1), width - 1)
            && ir::users(a).into_iter().any(|l| {
                ir::opcode(l) == LLVMLShr
                    && const_is(ir::operand(l, 1), 1)
                    && ir::users(l)
                        .into_iter()
                        .any(|x| ir::opcode(x) == LLVMXor && (0..2).any(|k| ir::operand(x, k) == m))
            })
    })
}

/// Constants an integer web may take in (`0`, `undef`, `poison`, literals).
fn is_plain_constant(v: Value) -> bool {
    unsafe { !LLVMIsAConstantInt(v).is_null() || !LLVMIsAUndefValue(v).is_null() || !LLVMIsAPoisonValue(v).is_null() }
}

fn data_layout(v: Value) -> Option<llvm_sys::target::LLVMTargetDataRef> {
    if !ir::is_instruction(v) {
        // An argument's bits (a float passed as an integer): not a web.
        return None;
    }
    unsafe {
        let b = LLVMGetInstructionParent(v);
        if b.is_null() {
            return None;
        }
        let f = LLVMGetBasicBlockParent(b);
        Some(llvm_sys::target::LLVMGetModuleDataLayout(LLVMGetGlobalParent(f)))
    }
}

/// Replaces `store _, q` by `store v, q` (same alignment and place).
unsafe fn store_instead(b: llvm_sys::prelude::LLVMBuilderRef, old: Value, v: Value) {
    LLVMPositionBuilderBefore(b, old);
    let s = LLVMBuildStore(b, v, ir::operand(old, 1));
    LLVMSetAlignment(s, LLVMGetAlignment(old));
    ir::copy_debug_location(old, s);
    LLVMInstructionEraseFromParent(old);
}

/// Rewrites each integer copy (`%v = load iN, ptr %p` whose only use is
/// `store iN %v, ptr %q` later in the same block, with no memory write in
/// between) as `memcpy(q, p, N/8)`. The optimiser makes such pairs out of
/// small `memcpy`s; as integers they would carry no derivative even when the
/// bytes are floats, while a `memcpy` is typed from the same evidence as any
/// copy (TBAA, stack slots, the function's own accesses, hints) and refused
/// when that evidence is missing. The post-AD optimiser turns it back.
fn integer_copies_to_memcpy(f: Value) {
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
        let builder = LLVMCreateBuilderInContext(ctx);
        let tbaa = LLVMGetMDKindIDInContext(ctx, c"tbaa".as_ptr(), 4);
        // Found first, rewritten after: rewriting erases instructions the walk would visit.
        let mut pairs = Vec::new();
        for b in ir::blocks(f) {
            for load in ir::instructions(b) {
                if let Some(store) = integer_copy_store(load) {
                    pairs.push((load, store, false));
                } else if let Some(store) = slot_move_store(load) {
                    pairs.push((load, store, true));
                }
            }
        }
        let entry = ir::blocks(f)[0];
        for (load, store, through_slot) in pairs {
            let bytes = ir::store_size(f, ir::type_of(load));
            let size = LLVMConstInt(LLVMInt64TypeInContext(ctx), bytes, 0);
            let mut from = (ir::operand(load, 0), LLVMGetAlignment(load));
            if through_slot {
                // Written over before the store (a swap): the bytes wait in a slot.
                LLVMPositionBuilder(builder, entry, LLVMGetFirstInstruction(entry));
                let slot_type = LLVMArrayType2(LLVMInt8TypeInContext(ctx), bytes);
                let slot = LLVMBuildAlloca(builder, slot_type, c"moved.slot".as_ptr());
                LLVMSetAlignment(slot, LLVMGetAlignment(load).max(1));
                LLVMPositionBuilderBefore(builder, load);
                let first = LLVMBuildMemCpy(builder, slot, LLVMGetAlignment(slot), from.0, from.1, size);
                ir::copy_debug_location(load, first);
                from = (slot, LLVMGetAlignment(slot));
            }
            LLVMPositionBuilderBefore(builder, store);
            let copy = LLVMBuildMemCpy(builder, ir::operand(store, 1), LLVMGetAlignment(store), from.0, from.1, size);
            let tag = LLVMGetMetadata(load, tbaa);
            let tag = if tag.is_null() { LLVMGetMetadata(store, tbaa) } else { tag };
            if !tag.is_null() {
                LLVMSetMetadata(copy, tbaa, tag);
            }
            ir::copy_debug_location(store, copy);
            LLVMInstructionEraseFromParent(store);
            LLVMInstructionEraseFromParent(load);
        }
        LLVMDisposeBuilder(builder);
    }
}

/// The store of a load that moves a hash table's slot holding fields other
/// than integers (a key and a float value, a pointer) as integers or integer lanes,
/// in the same block, possibly with writes between (a swap): as a copy, the
/// table's fields type it (see [`crate::libraries::swiss_tables`]).
fn slot_move_store(load: Value) -> Option<Value> {
    if ir::opcode(load) != LLVMLoad || ir::int_lanes(ir::type_of(load)).is_none() {
        return None;
    }
    let store = only_store_of(load)?;
    let bytes = ir::store_size(ir::parent_function(load), ir::type_of(load));
    let mixed = |p: Value| crate::libraries::holds_non_integer_fields(p, bytes);
    (mixed(ir::operand(load, 0)) || mixed(ir::operand(store, 1))).then_some(store)
}

/// The one use of plain (not volatile, not atomic) `load`, if it is a plain
/// store of it in the same block.
fn only_store_of(load: Value) -> Option<Value> {
    unsafe {
        if LLVMGetVolatile(load) != 0 || ir::is_atomic(load) {
            return None;
        }
        let users = ir::users(load);
        let [store] = users[..] else { return None };
        let plain = ir::opcode(store) == LLVMStore
            && ir::operand(store, 0) == load
            && ir::parent_block(store) == ir::parent_block(load)
            && LLVMGetVolatile(store) == 0
            && !ir::is_atomic(store);
        plain.then_some(store)
    }
}

/// The store that makes `load` one half of an integer copy (see
/// [`integer_copies_to_memcpy`]).
fn integer_copy_store(load: Value) -> Option<Value> {
    unsafe {
        if ir::opcode(load) != LLVMLoad || !ir::is_int(ir::type_of(load)) {
            return None;
        }
        let bits = ir::int_width(ir::type_of(load));
        if bits < 32 || bits % 8 != 0 {
            return None;
        }
        let store = only_store_of(load)?;
        // Nothing between them may write memory: the copy reads at the store.
        let mut between = LLVMGetNextInstruction(load);
        while between != store {
            if between.is_null()
                || !LLVMIsAStoreInst(between).is_null()
                || ir::is_call_or_invoke(between)
                || matches!(ir::opcode(between), LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence)
            {
                return None;
            }
            between = LLVMGetNextInstruction(between);
        }
        Some(store)
    }
}
