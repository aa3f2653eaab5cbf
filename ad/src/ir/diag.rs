//! Diagnostics the engine reports instead of producing a wrong derivative.
//!
//! The engine never prints: it returns [`Diagnostic`]s and the driver renders
//! them (with the source line, when debug info points at a readable file).

use std::fmt;
use std::path::PathBuf;

/// A position in the user's source, taken from `!dbg` debug locations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLocation {
    /// The compilation directory recorded in debug info (may be empty).
    pub directory: String,
    /// The file name as the compiler saw it (relative to `directory` or absolute).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, 0 when unknown.
    pub column: u32,
}

impl SourceLocation {
    /// The path to open to read the source line.
    pub fn path(&self) -> PathBuf {
        let f = PathBuf::from(&self.file);
        if f.is_absolute() || self.directory.is_empty() {
            f
        } else {
            PathBuf::from(&self.directory).join(f)
        }
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.column > 0 {
            write!(f, "{}:{}:{}", self.file, self.line, self.column)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

/// One reason the engine refused to differentiate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong, in one line.
    pub message: String,
    /// The function (source name where known) containing the construct.
    pub function: Option<String>,
    /// Where in the source, when the IR carries debug info.
    pub location: Option<SourceLocation>,
    /// The offending IR, for when there is no debug info.
    pub ir: Option<String>,
    /// Notes: how we got here (which `__enzyme_*` call needed this function).
    pub notes: Vec<String>,
    /// What the user can do about it.
    pub help: Option<String>,
    /// The link name of a function the engine needed but found no body for
    /// (the driver says where its body is, when a shared library has it).
    pub missing_body: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with only a message.
    pub fn new(message: impl Into<String>) -> Self {
        Diagnostic {
            message: message.into(),
            function: None,
            location: None,
            ir: None,
            notes: Vec::new(),
            help: None,
            missing_body: None,
        }
    }

    /// Adds a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Names the function whose body was missing.
    pub fn with_missing_body(mut self, name: impl Into<String>) -> Self {
        self.missing_body = Some(name.into());
        self
    }

    /// Adds a note line.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    /// Plain one-block rendering (the driver has a richer one with snippets).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.message)?;
        if let Some(l) = &self.location {
            write!(f, "\n  --> {l}")?;
        }
        if let Some(func) = &self.function {
            write!(f, "\n  = note: in function `{func}`")?;
        }
        if let Some(ir) = &self.ir {
            write!(f, "\n  = note: instruction: {ir}")?;
        }
        for n in &self.notes {
            write!(f, "\n  = note: {n}")?;
        }
        if let Some(h) = &self.help {
            write!(f, "\n  = help: {h}")?;
        }
        Ok(())
    }
}
