//! For unit tests: analyses run on functions parsed from IR text.

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::values::AsValueRef;
use llvm_sys::LLVMOpcode;

use crate::ir::{self, Value};

/// Parses the module `ir` and runs `check` on its functions, looked up by
/// name (`@f` is `function("f")`); the module lives for the call.
pub(crate) fn with_module<R>(ir: &str, check: impl FnOnce(&dyn Fn(&str) -> Value) -> R) -> R {
    let ctx = Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "t.ll");
    let m = ctx.create_module_from_ir(buf).expect("the test's IR parses");
    let function =
        |name: &str| m.get_function(name).unwrap_or_else(|| panic!("no @{name} in the test's IR")).as_value_ref();
    check(&function)
}

/// Runs `check` on `@f` of the module `ir`.
pub(crate) fn with_function<R>(ir: &str, check: impl FnOnce(Value) -> R) -> R {
    with_module(ir, |function| check(function("f")))
}

/// The calls of function `f`, in order.
pub(crate) fn calls(f: Value) -> Vec<Value> {
    ir::blocks(f).into_iter().flat_map(ir::instructions).filter(|i| ir::opcode(*i) == LLVMOpcode::LLVMCall).collect()
}

/// Function `f` printed as IR text.
pub(crate) fn printed(f: Value) -> String {
    unsafe {
        let s = llvm_sys::core::LLVMPrintValueToString(f);
        let out = std::ffi::CStr::from_ptr(s).to_string_lossy().into_owned();
        llvm_sys::core::LLVMDisposeMessage(s);
        out
    }
}
