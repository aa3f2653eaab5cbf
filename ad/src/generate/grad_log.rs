//! `enzymeLogGrad`: a program that defines Enzyme's gradient log gets a call
//! of it in reverse mode for each differentiated scalar operation, with the
//! operation's identifier and the adjoint of its result, as Enzyme's
//! floating-point logger (`void enzymeLogGrad(const char *id, double grad)`)
//! expects. Its other signatures (older Enzyme versions passed the value,
//! the opcode's name and the operands) are refused at the request, never
//! ignored.

use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;

use crate::build::emit::Emitter;
use crate::ir::diag::Diagnostic;
use crate::ir::{self, Value};
use crate::surface::markers::{self, MarkerCall};

const NAME: &str = "enzymeLogGrad";

/// The program's gradient log, defined with the signature it is called with.
fn logger(module: LLVMModuleRef) -> Option<Value> {
    let f = crate::build::runtime::existing(module, NAME)?;
    fits(f).then_some(f)
}

fn fits(f: Value) -> bool {
    unsafe {
        let t = ir::function_type(f);
        let n = LLVMCountParamTypes(t) as usize;
        let mut params = vec![std::ptr::null_mut(); n];
        LLVMGetParamTypes(t, params.as_mut_ptr());
        n == 2
            && ir::is_pointer(params[0])
            && ir::kind(params[1]) == llvm_sys::LLVMTypeKind::LLVMDoubleTypeKind
            && LLVMIsFunctionVarArg(t) == 0
    }
}

/// A reverse-mode request in a program whose `enzymeLogGrad` has another
/// signature than the one it would be called with: an error at the request.
pub(crate) fn check(module: LLVMModuleRef, plan: &MarkerCall) -> Option<Diagnostic> {
    let f = crate::build::runtime::existing(module, NAME)?;
    if ir::is_declaration(f) || fits(f) {
        return None;
    }
    Some(
        markers::at_call(
            plan.call,
            format!("the program defines `{NAME}` with a signature this engine does not call it with"),
        )
        .with_help(
            "reverse mode calls `void enzymeLogGrad(const char *id, double grad)` once per differentiated operation; \
             declare it so, or rename it",
        ),
    )
}

/// After the adjoint `grad` of scalar operation `i` is known in the reverse
/// sweep: `enzymeLogGrad(id, grad)` when the program defines it.
pub(crate) fn log(e: &Emitter, module: LLVMModuleRef, i: Value, grad: Value) {
    let Some(f) = logger(module) else { return };
    if ir::vector_lanes(ir::type_of(grad)).is_some() || ir::is_declaration(f) {
        return;
    }
    let id = ir::cstring(&crate::generate::error_estimate::identifier(i));
    unsafe {
        let id = LLVMBuildGlobalString(e.b, id.as_ptr(), c"enzyme_rs.log_id".as_ptr());
        let double = LLVMDoubleTypeInContext(e.ctx);
        e.call(f, &mut [id, e.convert_float(grad, double)]);
    }
}
