//! Classes of objects in one function, by how their addresses flow (in the
//! manner of Steensgaard's points-to analysis): a pointer loaded from a
//! field of an object of class C belongs to the class C keeps at that field;
//! phis and selects, and stores of a pointer into a field, join classes. A
//! `BTreeMap`'s nodes are one class (descending to a child is a phi of a
//! node and a pointer loaded from its child array). Each class has a layout
//! gathered from every access to objects of it: its arrays (where the
//! function steps through them, with their element type) and its fields at
//! constant offsets. [`Classes::array_type_at`] tells what array a constant
//! address falls in, which types copies that the function makes at constant
//! offsets (a node's keys shifted by one) though it steps through that
//! array only in other nodes.

use std::collections::HashMap;

use llvm_sys::core::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMOffsetOfElement, LLVMTargetDataRef};
use llvm_sys::LLVMOpcode;

use crate::ir::{self, Type, Value};

/// Where an address points in its object.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Position {
    /// A constant byte offset.
    Field(u64),
    /// Some element of the array starting at this byte offset.
    Array(u64),
}

/// `p` as an object (a value that is not address arithmetic) and a position
/// in it: constant offsets, and at most one variable step over a scalar type
/// last (then some element of an array, whose start is the offsets before).
/// `interior`: phis and selects that choose among addresses at one offset
/// into objects of one class (a node's keys, whichever node), as that offset
/// into the first of them.
fn decompose(
    mut p: Value,
    dl: LLVMTargetDataRef,
    interior: &HashMap<Value, (Value, u64)>,
) -> Option<(Value, Position)> {
    let mut offset: u64 = 0;
    let mut array = false;
    let mut first = true;
    let mut hops = 0;
    loop {
        if let Some((o, c)) = interior.get(&p) {
            // Choices of choices, never a cycle (see `Classes::of`); bounded all the same.
            hops += 1;
            if hops > 64 {
                return None;
            }
            offset = offset.checked_add(*c)?;
            p = *o;
            continue;
        }
        if !(ir::is_instruction(p) && ir::opcode(p) == LLVMOpcode::LLVMGetElementPtr) {
            break;
        }
        let source = unsafe { LLVMGetGEPSourceElementType(p) };
        let n = ir::operand_count(p);
        let constant = (1..n).all(|k| unsafe { !LLVMIsAConstantInt(ir::operand(p, k)).is_null() });
        if constant {
            offset = offset.checked_add(constant_offset(p, source, dl)?)?;
        } else if first && n == 2 && typed_element(source) {
            // `base + i` over typed scalars: the array starts at `base`.
            array = true;
        } else {
            return None;
        }
        first = false;
        p = ir::operand(p, 0);
    }
    Some((p, if array { Position::Array(offset) } else { Position::Field(offset) }))
}

/// A load whose value is only stored somewhere else: bits moved, in
/// whatever type the optimiser chose (a Rust `usize` key moved as a
/// `double`), which says nothing of what the memory holds.
pub(crate) fn only_moved(load: Value) -> bool {
    let users = ir::users(load);
    !users.is_empty() && users.iter().all(|u| ir::opcode(*u) == LLVMOpcode::LLVMStore && ir::operand(*u, 0) == load)
}

/// A scalar an array steps over element by element: a float, a pointer or
/// an integer of 16 bits or more (a step over bytes is an offset, not an
/// element: `base + n` into an array of structs).
fn typed_element(t: Type) -> bool {
    ir::scalar_of(t) == t && (!ir::is_int(t) || unsafe { LLVMGetIntTypeWidth(t) } >= 16)
}

/// Whether an access of type `t` at `p` says what its position holds: at
/// an array's element, only in the type the address steps over.
fn steps_as(p: Value, at: Position, t: Type) -> bool {
    match at {
        Position::Field(_) => true,
        Position::Array(_) => step_type(p) == Some(t),
    }
}

/// The element type an address steps over, if its last step is variable.
fn step_type(p: Value) -> Option<Type> {
    (ir::is_instruction(p) && ir::opcode(p) == LLVMOpcode::LLVMGetElementPtr && ir::operand_count(p) == 2)
        .then(|| unsafe { LLVMGetGEPSourceElementType(p) })
}

/// What a phi or select chooses from.
fn chosen(i: Value) -> Vec<Value> {
    if ir::opcode(i) == LLVMOpcode::LLVMPHI {
        ir::incoming(i).into_iter().map(|(v, _)| v).collect()
    } else {
        vec![ir::operand(i, 1), ir::operand(i, 2)]
    }
}

/// The byte offset of a `getelementptr` whose indices are all constants.
fn constant_offset(gep: Value, source: Type, dl: LLVMTargetDataRef) -> Option<u64> {
    let mut total: u64 = 0;
    let mut ty = source;
    for k in 1..ir::operand_count(gep) {
        let idx = unsafe { LLVMConstIntGetSExtValue(ir::operand(gep, k)) };
        let idx = u64::try_from(idx).ok()?;
        let add = unsafe {
            if k == 1 {
                idx.checked_mul(LLVMABISizeOfType(dl, ty))?
            } else {
                match LLVMGetTypeKind(ty) {
                    llvm_sys::LLVMTypeKind::LLVMStructTypeKind => {
                        let off = LLVMOffsetOfElement(dl, ty, idx as u32);
                        ty = LLVMStructGetTypeAtIndex(ty, idx as u32);
                        off
                    }
                    llvm_sys::LLVMTypeKind::LLVMArrayTypeKind => {
                        ty = LLVMGetElementType(ty);
                        idx.checked_mul(LLVMABISizeOfType(dl, ty))?
                    }
                    _ => return None,
                }
            }
        };
        total = total.checked_add(add)?;
    }
    Some(total)
}

/// The classes of a function's objects and their layouts.
pub(crate) struct Classes {
    dl: LLVMTargetDataRef,
    /// Union-find parents.
    parent: Vec<usize>,
    /// Each object value's class.
    class_of: HashMap<Value, usize>,
    /// Per class (at its representative): the class of the pointers it keeps at a position.
    pointee: Vec<HashMap<Position, usize>>,
    /// Every access: its object, position and the type accessed.
    accesses: Vec<(Value, Position, Type)>,
    /// Phis and selects of addresses at one offset into objects of one class.
    interior: HashMap<Value, (Value, u64)>,
}

impl Classes {
    /// The classes of `f`'s objects.
    pub(crate) fn of(f: Value) -> Classes {
        let dl = unsafe { llvm_sys::target::LLVMGetModuleDataLayout(LLVMGetGlobalParent(f)) };
        let mut c = Classes {
            dl,
            parent: Vec::new(),
            class_of: HashMap::new(),
            pointee: Vec::new(),
            accesses: Vec::new(),
            interior: HashMap::new(),
        };
        let instructions: Vec<Value> = ir::blocks(f).into_iter().flat_map(ir::instructions).collect();
        // Phis and selects of addresses inside objects, to a fixed point
        // (a loop's phi may come before what flows into it).
        let choices: Vec<Value> = instructions
            .iter()
            .copied()
            .filter(|i| {
                matches!(ir::opcode(*i), LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect)
                    && ir::is_pointer(ir::type_of(*i))
            })
            .collect();
        let mut alike: Vec<(Value, Value)> = Vec::new();
        for _ in 0..4 {
            let mut changed = false;
            for i in &choices {
                if c.interior.contains_key(i) {
                    continue;
                }
                let inside: Option<Vec<(Value, u64)>> = chosen(*i)
                    .into_iter()
                    .map(|v| match decompose(v, dl, &c.interior) {
                        Some((o, Position::Field(k))) if k > 0 => Some((o, k)),
                        _ => None,
                    })
                    .collect();
                let Some(inside) = inside else { continue };
                let Some(&(first, k)) = inside.first() else { continue };
                // A pointer stepping through memory (`p = phi [a + 8], [p + 8]`)
                // is not one offset into objects.
                let walks = inside.iter().any(|(o, _)| *o == *i || c.interior.get(o).is_some_and(|(b, _)| b == i));
                if !walks && inside.iter().all(|(_, k2)| *k2 == k) {
                    c.interior.insert(*i, (first, k));
                    alike.extend(inside.iter().map(|(o, _)| (first, *o)));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for (a, b) in alike {
            let (a, b) = (c.class(a), c.class(b));
            c.union(a, b);
        }
        for i in instructions {
            match ir::opcode(i) {
                LLVMOpcode::LLVMLoad => {
                    let Some((object, at)) = decompose(ir::operand(i, 0), dl, &c.interior) else { continue };
                    if !only_moved(i) && steps_as(ir::operand(i, 0), at, ir::type_of(i)) {
                        c.accesses.push((object, at, ir::type_of(i)));
                    }
                    if ir::is_pointer(ir::type_of(i)) {
                        let holder = c.class(object);
                        let kept = c.pointee_class(holder, at);
                        let loaded = c.class(i);
                        c.union(kept, loaded);
                    }
                }
                LLVMOpcode::LLVMStore => {
                    let Some((object, at)) = decompose(ir::operand(i, 1), dl, &c.interior) else { continue };
                    let v = ir::operand(i, 0);
                    let moved = ir::is_instruction(v) && ir::opcode(v) == LLVMOpcode::LLVMLoad && only_moved(v);
                    if !moved && steps_as(ir::operand(i, 1), at, ir::type_of(v)) {
                        c.accesses.push((object, at, ir::type_of(v)));
                    }
                    if ir::is_pointer(ir::type_of(v)) {
                        if let Some((stored, Position::Field(0))) = decompose(v, dl, &c.interior) {
                            // No object (Rust's dangling pointer of every empty
                            // `Vec`): it joins no classes.
                            if ir::is_no_address(stored) {
                                continue;
                            }
                            let holder = c.class(object);
                            let kept = c.pointee_class(holder, at);
                            let s = c.class(stored);
                            c.union(kept, s);
                        }
                    }
                }
                LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect
                    if ir::is_pointer(ir::type_of(i)) && !c.interior.contains_key(&i) =>
                {
                    let me = c.class(i);
                    for v in chosen(i) {
                        // Only the objects themselves (an address inside one is another position).
                        if let Some((o, Position::Field(0))) = decompose(v, dl, &c.interior) {
                            if ir::is_no_address(o) {
                                continue;
                            }
                            let other = c.class(o);
                            c.union(me, other);
                        }
                    }
                }
                _ => {}
            }
        }
        c
    }

    fn fresh(&mut self) -> usize {
        self.parent.push(self.parent.len());
        self.pointee.push(HashMap::new());
        self.parent.len() - 1
    }

    fn find(&mut self, mut k: usize) -> usize {
        while self.parent[k] != k {
            self.parent[k] = self.parent[self.parent[k]];
            k = self.parent[k];
        }
        k
    }

    fn class(&mut self, v: Value) -> usize {
        if let Some(k) = self.class_of.get(&v) {
            let k = *k;
            return self.find(k);
        }
        let k = self.fresh();
        self.class_of.insert(v, k);
        k
    }

    fn pointee_class(&mut self, holder: usize, at: Position) -> usize {
        let holder = self.find(holder);
        if let Some(k) = self.pointee[holder].get(&at) {
            let k = *k;
            return self.find(k);
        }
        let k = self.fresh();
        self.pointee[holder].insert(at, k);
        k
    }

    /// Joins two classes, and then what they keep at the same positions.
    fn union(&mut self, a: usize, b: usize) {
        let mut work = vec![(a, b)];
        while let Some((a, b)) = work.pop() {
            let (a, b) = (self.find(a), self.find(b));
            if a == b {
                continue;
            }
            self.parent[b] = a;
            let moved = std::mem::take(&mut self.pointee[b]);
            for (at, k) in moved {
                match self.pointee[a].get(&at) {
                    Some(existing) => work.push((*existing, k)),
                    None => {
                        self.pointee[a].insert(at, k);
                    }
                }
            }
        }
    }

    /// The element type of the array of its object that address `p`, a
    /// constant offset into an object, falls in: the nearest array start at
    /// or before it among the object's class's arrays, all accessed as one
    /// type there, `p` a whole number of elements into it, and no field of
    /// the class accessed as another type from that start to `p` (a copy of
    /// a constant length: of one element, with no other array start or field
    /// of another type in it).
    /// A constant length `len` must end inside the array too.
    pub(crate) fn array_type_at(&mut self, p: Value, len: Option<u64>) -> Option<Type> {
        // An element of an array is in the array at its start.
        let (object, offset, len) = match decompose(p, self.dl, &self.interior)? {
            (o, Position::Field(offset)) => (o, offset, len),
            (o, Position::Array(start)) => (o, start, None),
        };
        let class = self.class(object);
        let accesses = std::mem::take(&mut self.accesses);
        let mut of_class: Vec<(Position, Type)> = Vec::new();
        for (o, at, t) in &accesses {
            if self.class(*o) == class {
                of_class.push((*at, *t));
            }
        }
        self.accesses = accesses;
        let start = of_class
            .iter()
            .filter_map(|(at, _)| match at {
                Position::Array(s) if *s <= offset => Some(*s),
                _ => None,
            })
            .max()?;
        let mut elem: Option<Type> = None;
        for (at, t) in &of_class {
            if *at == Position::Array(start) {
                if elem.is_some_and(|e| e != *t) {
                    return None;
                }
                elem = Some(*t);
            }
        }
        let elem = elem?;
        let size = unsafe { LLVMABISizeOfType(self.dl, elem) };
        if size == 0 || !(offset - start).is_multiple_of(size) {
            return None;
        }
        // Of a known length, one element: how far the array goes is not known
        // (a longer copy from an array at an object's start may be the whole object's).
        if len.is_some_and(|l| l != size) {
            return None;
        }
        // Up to the end of a copy of a known length; else to the offset.
        let end = match len {
            Some(l) => offset.checked_add(l)?,
            None => offset + 1,
        };
        let clash = of_class.iter().any(|(at, t)| match at {
            Position::Field(o) => (start..end).contains(o) && *t != elem,
            Position::Array(s) => *s > start && *s < end,
        });
        (!clash).then_some(elem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::with_function;

    /// The array type `array_type_at` finds for each of `@f`'s `memmove`
    /// destinations (constant offsets into objects), with their lengths.
    fn typed(body: &str) -> Vec<Option<String>> {
        let ir = format!(
            "declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\n\
             define void @f(ptr %root, ptr %other, i64 %i, i64 %n, double %x) {{\nentry:\n{body}\n  ret void\n}}\n"
        );
        with_function(&ir, |f| {
            let mut classes = Classes::of(f);
            crate::ir::test_ir::calls(f)
                .into_iter()
                .map(|c| {
                    let len = unsafe {
                        let l = ir::operand(c, 2);
                        (!LLVMIsAConstantInt(l).is_null()).then(|| LLVMConstIntGetZExtValue(l))
                    };
                    classes.array_type_at(ir::operand(c, 0), len).map(ir::print_type)
                })
                .collect()
        })
    }

    // A node: keys (i64) from 8, values (double) from 96, a length (i16) at
    // 184, children (ptr) from 192. The function steps through the root's
    // keys and values, and descends to a child (a phi of the node and a
    // pointer loaded from its children), whose arrays it only copies.
    const NODE: &str = "  %k = getelementptr i8, ptr %root, i64 8\n  %ki = getelementptr i64, ptr %k, i64 %i\n  \
         %kv = load i64, ptr %ki\n  %v = getelementptr i8, ptr %root, i64 96\n  %vi = getelementptr double, ptr %v, i64 %i\n  \
         store double %x, ptr %vi\n  %len = getelementptr i8, ptr %root, i64 184\n  store i16 3, ptr %len\n  \
         br label %down\ndown:\n  %node = phi ptr [ %root, %entry ], [ %child, %down ]\n  \
         %e = getelementptr i8, ptr %node, i64 192\n  %ei = getelementptr ptr, ptr %e, i64 %i\n  \
         %child = load ptr, ptr %ei\n  %c = icmp eq ptr %child, null\n  br i1 %c, label %leaf, label %down\nleaf:\n";

    #[test]
    fn a_child_reached_by_descending_has_its_parents_arrays() {
        let body = format!(
            "{NODE}  %a = getelementptr i8, ptr %child, i64 16\n  %b = getelementptr i8, ptr %child, i64 104\n  \
             %c1 = getelementptr i8, ptr %child, i64 200\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %a, ptr %a, i64 %n, i1 false)\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %b, ptr %b, i64 %n, i1 false)\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %c1, ptr %c1, i64 %n, i1 false)\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %b, ptr %b, i64 8, i1 false)"
        );
        let want = [Some("i64"), Some("double"), Some("ptr"), Some("double")];
        assert_eq!(typed(&body), want.map(|t| t.map(String::from)));
    }

    #[test]
    fn past_a_field_of_another_type_or_across_arrays_is_not_typed() {
        let body = format!(
            "{NODE}  %a = getelementptr i8, ptr %child, i64 184\n  %b = getelementptr i8, ptr %child, i64 88\n  \
             %c1 = getelementptr i8, ptr %child, i64 100\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %a, ptr %a, i64 %n, i1 false)\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %b, ptr %b, i64 16, i1 false)\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %c1, ptr %c1, i64 %n, i1 false)"
        );
        // The length's field; keys running into the values; mid-element.
        assert_eq!(typed(&body), vec![None, None, None]);
    }

    #[test]
    fn an_object_never_joined_to_the_nodes_is_not_typed() {
        let body = format!(
            "{NODE}  %a = getelementptr i8, ptr %other, i64 16\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %a, ptr %a, i64 %n, i1 false)"
        );
        assert_eq!(typed(&body), vec![None]);
    }

    #[test]
    fn a_step_over_bytes_is_not_an_array_of_its_stores() {
        // A grown vector of {double, long}: the new block's element stored
        // at a byte offset, the old elements copied in front of it.
        let body = "  %e = getelementptr i8, ptr %root, i64 %n\n  store double %x, ptr %e\n  \
             %t = getelementptr i8, ptr %e, i64 8\n  store i64 7, ptr %t\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %root, ptr %other, i64 %n, i1 false)";
        assert_eq!(typed(body), vec![None]);
    }

    #[test]
    fn bits_moved_in_another_type_do_not_count() {
        // A key moved through a double load and store, as the optimiser may.
        let body = format!(
            "{NODE}  %kj = getelementptr i64, ptr %k, i64 %n\n  %moved = load double, ptr %kj\n  store double %moved, ptr %ki\n  \
             %a = getelementptr i8, ptr %child, i64 16\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %a, ptr %a, i64 %n, i1 false)"
        );
        assert_eq!(typed(&body), vec![Some("i64".to_string())]);
    }

    #[test]
    fn empty_containers_are_not_one_object() {
        // Two vectors starting at Rust's dangling pointer, one of doubles and
        // one of integers: the constant they share joins no classes.
        let body = "  br label %grow\ngrow:\n  \
             %a = phi ptr [ inttoptr (i64 8 to ptr), %entry ], [ %root, %grow ]\n  \
             %b = phi ptr [ inttoptr (i64 8 to ptr), %entry ], [ %other, %grow ]\n  \
             %ai = getelementptr double, ptr %a, i64 %i\n  store double %x, ptr %ai\n  \
             %bi = getelementptr i64, ptr %b, i64 %i\n  store i64 7, ptr %bi\n  \
             %c = icmp eq i64 %i, %n\n  br i1 %c, label %done, label %grow\ndone:\n  \
             %a8 = getelementptr i8, ptr %a, i64 8\n  %b8 = getelementptr i8, ptr %b, i64 8\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %a8, ptr %a8, i64 8, i1 false)\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %b8, ptr %b8, i64 8, i1 false)";
        assert_eq!(typed(body), vec![Some("double".to_string()), Some("i64".to_string())]);
    }

    #[test]
    fn a_pointer_stepping_through_memory_is_not_an_offset_into_objects() {
        // `p = phi [p + 8], [root + 8]`, the step first: once taken for one
        // offset into objects, its own object, and the analysis never ended.
        let body = "  %start = getelementptr i8, ptr %root, i64 8
  br label %walk
walk:
  \
             %p = phi ptr [ %next, %walk ], [ %start, %entry ]
  store double %x, ptr %p
  \
             %next = getelementptr i8, ptr %p, i64 8
  %c = icmp eq ptr %next, %other
  \
             br i1 %c, label %done, label %walk
done:
  \
             call void @llvm.memmove.p0.p0.i64(ptr %p, ptr %p, i64 8, i1 false)";
        assert_eq!(typed(body), vec![None]);
    }
}
