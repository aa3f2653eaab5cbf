//! Human-readable function names for diagnostics.

/// Suffix of the names of the engine's preprocessed clones.
pub const CLONE_SUFFIX: &str = ".enzyme.prep";

/// Demangles C++ (`_Z…`) and Rust (legacy and v0) symbol names; other names
/// are returned as they are. Internal suffixes of the engine are dropped.
pub fn display_name(raw: &str) -> String {
    let raw = raw.strip_suffix(CLONE_SUFFIX).unwrap_or(raw);
    if let Ok(d) = rustc_demangle::try_demangle(raw) {
        return format!("{d:#}");
    }
    if raw.starts_with("_Z") {
        if let Ok(sym) = cpp_demangle::Symbol::new(raw) {
            if let Ok(s) = sym.demangle(&cpp_demangle::DemangleOptions::default()) {
                return s;
            }
        }
    }
    raw.to_string()
}

#[cfg(test)]
mod tests {
    use super::display_name;

    #[test]
    fn demangles() {
        assert_eq!(display_name("square"), "square");
        assert_eq!(display_name("_Z6squared"), "square(double)");
        assert_eq!(display_name("f.enzyme.prep"), "f");
    }
}
