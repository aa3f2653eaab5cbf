//! Line information for derivative functions.
//!
//! A derivative built from a primal compiled with `-g` gets a subprogram of
//! its own (in one compile unit for the code the engine generates), and each
//! of its instructions keeps the line of the primal instruction it comes
//! from: gdb steps through `diffe_f` in `f`'s source, and sanitizers name the
//! line. Where the primal has no debug info, the derivative carries none
//! (locations pointing into another function's subprogram are invalid IR).

use std::collections::HashMap;

use llvm_sys::core::*;
use llvm_sys::debuginfo::*;
use llvm_sys::prelude::*;

use crate::ir::{self, Value};

/// The debug-info builder of one round of generation; created when the first
/// derivative of a primal with debug info needs it.
#[derive(Default)]
pub(crate) struct DebugInfo {
    builder: Option<(LLVMDIBuilderRef, LLVMMetadataRef)>,
}

impl DebugInfo {
    /// Gives derivative `d` of `primal` its subprogram and remaps the debug
    /// locations of its instructions into it (or drops them all when
    /// `primal` has no debug info).
    pub(crate) fn attach(&mut self, module: LLVMModuleRef, primal: Value, d: Value) {
        let primal_sp = unsafe { LLVMGetSubprogram(primal) };
        if primal_sp.is_null() {
            for_each_instruction(d, |i| unsafe { LLVMInstructionSetDebugLoc(i, std::ptr::null_mut()) });
            return;
        }
        let sp = self.subprogram(module, primal_sp, d);
        let ctx = unsafe { LLVMGetModuleContext(module) };
        let mut remapped = HashMap::new();
        let unknown_line = unsafe { LLVMDIBuilderCreateDebugLocation(ctx, 0, 0, sp, std::ptr::null_mut()) };
        let loop_kind = unsafe { LLVMGetMDKindIDInContext(ctx, c"llvm.loop".as_ptr(), 9) };
        let mut loops = HashMap::new();
        for_each_instruction(d, |i| unsafe {
            // Loop metadata holds the loop's source range as locations too.
            let id = LLVMGetMetadata(i, loop_kind);
            if !id.is_null() {
                let new = *loops.entry(id).or_insert_with(|| remap_loop_id(ctx, id, sp, &mut remapped));
                LLVMSetMetadata(i, loop_kind, new);
            }
            let loc = LLVMInstructionGetDebugLoc(i);
            let new = if !loc.is_null() {
                remap(ctx, loc, sp, &mut remapped)
            } else if ir::is_call_or_invoke(i) {
                // The verifier wants every call in a function with debug info located.
                unknown_line
            } else {
                return;
            };
            LLVMInstructionSetDebugLoc(i, new);
        });
    }

    /// A subprogram for `d` in the primal's file, at the primal's line.
    fn subprogram(&mut self, module: LLVMModuleRef, primal_sp: LLVMMetadataRef, d: Value) -> LLVMMetadataRef {
        unsafe {
            let file = LLVMDIScopeGetFile(primal_sp);
            let (builder, _unit) = *self.builder.get_or_insert_with(|| {
                let b = LLVMCreateDIBuilder(module);
                let producer = "enzyme-rs";
                let unit = LLVMDIBuilderCreateCompileUnit(
                    b,
                    LLVMDWARFSourceLanguage::LLVMDWARFSourceLanguageC,
                    file,
                    producer.as_ptr() as *const _,
                    producer.len(),
                    1,
                    std::ptr::null(),
                    0,
                    0,
                    std::ptr::null(),
                    0,
                    LLVMDWARFEmissionKind::LLVMDWARFEmissionKindLineTablesOnly,
                    0,
                    0,
                    0,
                    std::ptr::null(),
                    0,
                    std::ptr::null(),
                    0,
                );
                (b, unit)
            });
            let line = LLVMDISubprogramGetLine(primal_sp);
            let ty = LLVMDIBuilderCreateSubroutineType(builder, file, std::ptr::null_mut(), 0, 0);
            let name = ir::name(d);
            let sp = LLVMDIBuilderCreateFunction(
                builder,
                file,
                name.as_ptr() as *const _,
                name.len(),
                name.as_ptr() as *const _,
                name.len(),
                file,
                line,
                ty,
                1,
                1,
                line,
                0,
                1,
            );
            LLVMSetSubprogram(d, sp);
            sp
        }
    }

    /// Completes the subprograms made in this round.
    pub(crate) fn finish(&mut self) {
        if let Some((b, _)) = self.builder.take() {
            unsafe {
                LLVMDIBuilderFinalize(b);
                LLVMDisposeDIBuilder(b);
            }
        }
    }
}

/// `loc` with the outermost scope of its inlining chain replaced by `sp`:
/// code inlined into the primal stays inlined (with its own lines) in the
/// derivative.
fn remap(
    ctx: LLVMContextRef,
    loc: LLVMMetadataRef,
    sp: LLVMMetadataRef,
    done: &mut HashMap<LLVMMetadataRef, LLVMMetadataRef>,
) -> LLVMMetadataRef {
    if let Some(n) = done.get(&loc) {
        return *n;
    }
    let n = unsafe {
        let (line, column) = (LLVMDILocationGetLine(loc), LLVMDILocationGetColumn(loc));
        let inlined_at = LLVMDILocationGetInlinedAt(loc);
        if inlined_at.is_null() {
            LLVMDIBuilderCreateDebugLocation(ctx, line, column, sp, std::ptr::null_mut())
        } else {
            let outer = remap(ctx, inlined_at, sp, done);
            LLVMDIBuilderCreateDebugLocation(ctx, line, column, LLVMDILocationGetScope(loc), outer)
        }
    };
    done.insert(loc, n);
    n
}

/// A copy of loop metadata `!{!self, ...}` with its locations remapped.
fn remap_loop_id(
    ctx: LLVMContextRef,
    id: LLVMValueRef,
    sp: LLVMMetadataRef,
    done: &mut HashMap<LLVMMetadataRef, LLVMMetadataRef>,
) -> LLVMValueRef {
    unsafe {
        let n = LLVMGetMDNodeNumOperands(id) as usize;
        let mut old = vec![std::ptr::null_mut(); n];
        LLVMGetMDNodeOperands(id, old.as_mut_ptr());
        let placeholder = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
        let mut ops: Vec<LLVMMetadataRef> = vec![placeholder];
        for v in old.into_iter().skip(1) {
            let md = LLVMValueAsMetadata(v);
            ops.push(if matches!(LLVMGetMetadataKind(md), LLVMMetadataKind::LLVMDILocationMetadataKind) {
                remap(ctx, md, sp, done)
            } else {
                md
            });
        }
        let node = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len());
        // The first operand of a loop id is the id itself.
        LLVMMetadataReplaceAllUsesWith(placeholder, node);
        LLVMMetadataAsValue(ctx, node)
    }
}

fn for_each_instruction(f: Value, mut each: impl FnMut(Value)) {
    for b in ir::blocks(f) {
        for i in ir::instructions(b) {
            each(i);
        }
    }
}
