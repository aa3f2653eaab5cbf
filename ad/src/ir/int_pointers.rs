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
        if !in_slots(ir::operand(s, 1), &slots) || ir::is_pointer(ir::type_of(ir::operand(s, 0))) {
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
        .filter(|a| slot_addresses(*a).is_some())
        .collect();
    // Drop slots that receive anything but a pointer web or a pointer, until none does.
    loop {
        let bad: Vec<Value> = slots
            .iter()
            .copied()
            .filter(|s| {
                slot_addresses(*s).unwrap_or_default().into_iter().flat_map(ir::users).any(|u| {
                    ir::opcode(u) == LLVMStore
                        && !ir::is_pointer(ir::type_of(ir::operand(u, 0)))
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

/// The addresses of stack slot `a`: itself and the phis and selects that
/// choose it (Rust's iterators pick which of two slots to fill that way), if
/// they are used only to load and store the slot (not stored themselves).
fn slot_addresses(a: Value) -> Option<Vec<Value>> {
    let mut out = vec![a];
    let mut k = 0;
    while k < out.len() {
        let p = out[k];
        k += 1;
        for u in ir::users(p) {
            match ir::opcode(u) {
                LLVMLoad => {}
                LLVMStore if ir::operand(u, 1) == p && ir::operand(u, 0) != p => {}
                LLVMPHI | LLVMSelect if !(ir::opcode(u) == LLVMSelect && ir::operand(u, 0) == p) => {
                    if !out.contains(&u) {
                        out.push(u);
                    }
                }
                _ if ir::is_lifetime_marker(u) => {}
                _ => return None,
            }
        }
    }
    Some(out)
}

/// Whether address `p` is always one of the pointer slots.
fn in_slots(p: Value, slots: &HashSet<Value>) -> bool {
    ir::chosen_values(p).iter().all(|v| slots.contains(v))
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
                LLVMLoad if in_slots(ir::operand(*m, 0), slots) => {
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
            LLVMLoad if in_slots(ir::operand(v, 0), slots) => {}
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

/// The store a load of a stack slot reads, of the loaded type (see
/// [`store_before`]): the forwarding the optimiser leaves undone when a
/// slot's address also flows through a phi.
fn forwarded_store(load: Value) -> Option<Value> {
    store_before(load).filter(|s| ir::type_of(ir::operand(*s, 0)) == ir::type_of(load))
}

/// The store to the stack slot `load` reads, when it is earlier in the same
/// block with nothing in between that may write the slot (only stores to
/// other stack slots, lifetime markers and instructions that touch no
/// memory), whatever type it stores (clang stores a `firstprivate` double
/// and loads the slot as an integer).
pub(crate) fn store_before(load: Value) -> Option<Value> {
    let is_slot = |p: Value| ir::is_instruction(p) && ir::opcode(p) == LLVMAlloca;
    let slot = ir::operand(load, 0);
    if !is_slot(slot) {
        return None;
    }
    let mut i = unsafe { LLVMGetPreviousInstruction(load) };
    while !i.is_null() {
        match ir::opcode(i) {
            LLVMStore if ir::operand(i, 1) == slot => return Some(i),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::{printed, with_function};

    /// `@f` after [`retype`], as text.
    fn retyped(body: &str) -> String {
        let ir = format!("define double @f(ptr %p, ptr %q, i1 %c) {{\n{body}\n}}\n");
        with_function(&ir, |f| {
            retype(f);
            printed(f)
        })
    }

    #[test]
    fn a_slot_chosen_by_a_phi_or_select_still_holds_pointers() {
        // Rust's iterators: a pointer stored as an integer in one slot and as
        // a pointer in the slot a select chooses, both read back as integers.
        let out = retyped(
            "  %a = alloca i64\n  %b = alloca i64\n  %i = ptrtoint ptr %p to i64\n  store i64 %i, ptr %a\n  \
             %s = select i1 %c, ptr %a, ptr %b\n  store ptr %q, ptr %s\n  \
             %la = load i64, ptr %a\n  %lb = load i64, ptr %b\n  \
             %pa = inttoptr i64 %la to ptr\n  %pb = inttoptr i64 %lb to ptr\n  \
             %x = load double, ptr %pa\n  %y = load double, ptr %pb\n  %r = fadd double %x, %y\n  ret double %r",
        );
        assert!(!out.contains("inttoptr"), "{out}");
        assert!(out.contains("store ptr %p, ptr %a"), "{out}");
    }

    #[test]
    fn a_slot_whose_address_escapes_through_a_phi_is_left_alone() {
        // The select's result is stored itself: the slot may be written anywhere.
        let out = retyped(
            "  %a = alloca i64\n  %b = alloca i64\n  %i = ptrtoint ptr %p to i64\n  store i64 %i, ptr %a\n  \
             %s = select i1 %c, ptr %a, ptr %b\n  store ptr %s, ptr %q\n  \
             %la = load i64, ptr %a\n  %pa = inttoptr i64 %la to ptr\n  %x = load double, ptr %pa\n  ret double %x",
        );
        assert!(out.contains("inttoptr"), "{out}");
    }
}
