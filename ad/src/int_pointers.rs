//! Pointers moved through integers. After SROA, Rust keeps a `Vec`'s buffer
//! pointer as an integer: `phi [ptrtoint (malloc ...), 8]` (8: the dangling
//! pointer of an empty `Vec`), stack slots of `i64` holding it across loops,
//! and `inttoptr` where it is used. As integers the engine could not follow
//! which memory they point to; [`retype`] gives them their pointer type back
//! where every value that flows in is a pointer or a constant.

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode::*;

use crate::ir::{self, Type, Value};

/// Retypes the pointer webs of `f` (see the module doc): each `inttoptr` of
/// such a web becomes the web's pointer version, and stores of one into an
/// integer stack slot that only ever holds pointers store the pointer.
pub(crate) fn retype(f: Value) {
    let instructions: Vec<Value> = ir::blocks(f).into_iter().flat_map(ir::instructions).collect();
    let casts: Vec<Value> = instructions
        .iter()
        .copied()
        .filter(|i| ir::opcode(*i) == LLVMIntToPtr && ir::is_instruction(ir::operand(*i, 0)))
        .collect();
    let Some(ptr_t) = casts.first().map(|c| ir::type_of(*c)) else { return };
    let slots = pointer_slots(&instructions, ptr_t);
    for cast in casts {
        if ir::type_of(cast) != ptr_t {
            continue;
        }
        if let Some(p) = pointer_version(ir::operand(cast, 0), ptr_t, &slots) {
            unsafe {
                LLVMReplaceAllUsesWith(cast, p);
                LLVMInstructionEraseFromParent(cast);
            }
        }
    }
    // Then the slots' stores (after the casts: `forwarded_store` reads them as they were).
    for s in instructions.iter().copied().filter(|i| ir::opcode(*i) == LLVMStore) {
        if !slots.contains(&ir::operand(s, 1)) {
            continue;
        }
        if let Some(p) = pointer_version(ir::operand(s, 0), ptr_t, &slots) {
            unsafe {
                let b = LLVMCreateBuilderInContext(LLVMGetTypeContext(ptr_t));
                LLVMPositionBuilderBefore(b, s);
                let n = LLVMBuildStore(b, p, ir::operand(s, 1));
                LLVMSetAlignment(n, LLVMGetAlignment(s));
                ir::copy_debug_location(s, n);
                LLVMDisposeBuilder(b);
                LLVMInstructionEraseFromParent(s);
            }
        }
    }
}

/// Integer stack slots of a pointer's width that are only loaded and stored
/// (their address goes nowhere else) and into which only pointer webs are
/// stored: they hold pointers.
fn pointer_slots(instructions: &[Value], ptr_t: Type) -> HashSet<Value> {
    let width = unsafe {
        let m = LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInstructionParent(instructions[0])));
        8 * llvm_sys::target::LLVMABISizeOfType(llvm_sys::target::LLVMGetModuleDataLayout(m), ptr_t) as u32
    };
    let mut slots: HashSet<Value> = instructions
        .iter()
        .copied()
        .filter(|a| {
            ir::opcode(*a) == LLVMAlloca && {
                let t = unsafe { LLVMGetAllocatedType(*a) };
                ir::is_int(t) && ir::int_width(t) == width
            }
        })
        .filter(|a| ir::is_private_slot(*a))
        .collect();
    // Drop slots that receive anything but a pointer web, until none does.
    loop {
        let bad: Vec<Value> = slots
            .iter()
            .copied()
            .filter(|s| {
                ir::users(*s).into_iter().any(|u| {
                    ir::opcode(u) == LLVMStore
                        && ir::operand(u, 1) == *s
                        && pointer_web(ir::operand(u, 0), ptr_t, &slots).is_none()
                })
            })
            .collect();
        if bad.is_empty() {
            return slots;
        }
        for s in bad {
            slots.remove(&s);
        }
    }
}

/// The pointer version of integer `root`, built beside its web, if its web
/// is one (see [`pointer_web`]).
fn pointer_version(root: Value, ptr_t: Type, slots: &HashSet<Value>) -> Option<Value> {
    let web = pointer_web(root, ptr_t, slots)?;
    let mut map: HashMap<Value, Value> = HashMap::new();
    unsafe {
        let b = LLVMCreateBuilderInContext(LLVMGetTypeContext(ptr_t));
        for m in &web {
            let nv = match ir::opcode(*m) {
                LLVMPtrToInt => ir::operand(*m, 0),
                LLVMLoad if slots.contains(&ir::operand(*m, 0)) => {
                    LLVMPositionBuilderBefore(b, *m);
                    let l = LLVMBuildLoad2(b, ptr_t, ir::operand(*m, 0), c"".as_ptr());
                    LLVMSetAlignment(l, LLVMGetAlignment(*m));
                    l
                }
                LLVMLoad => continue, // forwarded: resolved below
                _ => ir::empty_mirror(b, *m, ptr_t),
            };
            map.insert(*m, nv);
        }
        LLVMDisposeBuilder(b);
        let leaf = |x: Value, map: &HashMap<Value, Value>| -> Value {
            if let Some(p) = map.get(&x) {
                *p
            } else if !LLVMIsAConstantInt(x).is_null() {
                LLVMConstIntToPtr(x, ptr_t)
            } else if !LLVMIsAConstantExpr(x).is_null() {
                LLVMGetOperand(x, 0) // `ptrtoint (ptr @g to i64)`
            } else {
                LLVMGetUndef(ptr_t)
            }
        };
        // A forwarded load is its stored value (found after it: resolved last first).
        for m in web.iter().rev() {
            if ir::opcode(*m) == LLVMLoad && !map.contains_key(m) {
                let stored = forwarded_store(*m).map(|s| ir::operand(s, 0)).expect("checked in pointer_web");
                let p = leaf(stored, &map);
                map.insert(*m, p);
            }
        }
        ir::fill_mirrors(&web, &map, |x| leaf(x, &map));
        Some(leaf(root, &map))
    }
}

/// The phis, selects, `ptrtoint`s (of pointers of type `ptr_t`) and loads
/// (of pointer slots, or forwarded from a store just before) an integer is
/// made of, if nothing else goes into it but constants.
fn pointer_web(root: Value, ptr_t: Type, slots: &HashSet<Value>) -> Option<Vec<Value>> {
    let mut web = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![root];
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        if !ir::is_instruction(v) {
            let constant_pointer = unsafe {
                !LLVMIsAConstantExpr(v).is_null()
                    && LLVMGetConstOpcode(v) == LLVMPtrToInt
                    && ir::type_of(LLVMGetOperand(v, 0)) == ptr_t
            };
            let plain = unsafe { !LLVMIsAConstantInt(v).is_null() || !LLVMIsAUndefValue(v).is_null() };
            if plain || constant_pointer {
                continue;
            }
            return None;
        }
        match ir::opcode(v) {
            LLVMPtrToInt if ir::type_of(ir::operand(v, 0)) == ptr_t => {}
            LLVMLoad if slots.contains(&ir::operand(v, 0)) => {}
            LLVMLoad => match forwarded_store(v) {
                Some(s) => stack.push(ir::operand(s, 0)),
                None => return None,
            },
            LLVMPHI => stack.extend(ir::incoming(v).into_iter().map(|(x, _)| x)),
            LLVMSelect => stack.extend([ir::operand(v, 1), ir::operand(v, 2)]),
            _ => return None,
        }
        web.push(v);
    }
    Some(web)
}

/// The store a load of a stack slot reads, when it is earlier in the same
/// block with nothing in between that may write the slot (only stores to
/// other stack slots, lifetime markers and instructions that touch no
/// memory): the forwarding the optimiser leaves undone when a slot's address
/// also flows through a phi.
fn forwarded_store(load: Value) -> Option<Value> {
    let is_slot = |p: Value| ir::is_instruction(p) && ir::opcode(p) == LLVMAlloca;
    let slot = ir::operand(load, 0);
    if !is_slot(slot) {
        return None;
    }
    let mut i = unsafe { LLVMGetPreviousInstruction(load) };
    while !i.is_null() {
        match ir::opcode(i) {
            LLVMStore if ir::operand(i, 1) == slot => {
                return (ir::type_of(ir::operand(i, 0)) == ir::type_of(load)).then_some(i);
            }
            LLVMStore if !is_slot(ir::operand(i, 1)) => return None,
            LLVMStore => {}
            LLVMCall if ir::is_lifetime_marker(i) => {}
            LLVMCall | LLVMInvoke | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence | LLVMVAArg => return None,
            _ => {}
        }
        i = unsafe { LLVMGetPreviousInstruction(i) };
    }
    None
}
