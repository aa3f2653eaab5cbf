//! Errors of the driver: each says what went wrong in words a user can act on.

use std::path::PathBuf;

/// Everything that can stop a compile or link.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// A malformed command line.
    #[error("{0}")]
    Usage(String),
    /// clang (or another tool) is not installed where we look.
    #[error("{tool} not found: {hint}")]
    MissingTool {
        /// The tool's name.
        tool: String,
        /// What to install or set.
        hint: String,
    },
    /// An input that cannot be read or is not what its name says.
    #[error("{path}: {message}")]
    BadInput {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A tool we ran failed; it has printed its own messages.
    #[error("{tool} failed with exit code {code}")]
    ToolFailed {
        /// The tool.
        tool: String,
        /// Its exit code (1 when killed by a signal).
        code: i32,
    },
    /// Differentiation was refused; the diagnostics are printed already.
    #[error("differentiation failed with {0} error(s)")]
    Differentiation(usize),
    /// LLVM itself failed (bitcode linking, the pass pipeline, code generation).
    #[error("{0}")]
    Llvm(String),
    /// A bug of ours, caught before it produced a wrong program.
    #[error("internal error: {0}\n  = note: this is a bug in enzyme-rs; please report it with the command line")]
    Internal(String),
    /// I/O on our own temporary files.
    #[error("{context}: {source}")]
    Io {
        /// What we were doing.
        context: String,
        /// The error.
        source: std::io::Error,
    },
}

impl DriverError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            DriverError::ToolFailed { code, .. } => *code,
            DriverError::Internal(_) => 70,
            _ => 1,
        }
    }
}
