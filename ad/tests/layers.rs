//! The engine's layering, checked on its source (issue 40): each folder of
//! `ad/src` is a layer, and a file imports (by `crate::` paths) only from
//! its own layer and the layers below; the library recognisers are reached
//! only through their layer's `mod.rs`; and no files import each other in a
//! circle. `driver/src` has no cycle either.
//!
//! Only `crate::` paths are read, comments left out; `super::` is allowed in
//! test modules only (where it means the file itself).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers of `ad/src`, lowest first: a folder each, but `rules` (one
/// file) and `lib` (`lib.rs`, on top).
const LAYERS: &[&str] =
    &["rules", "ir", "build", "surface", "calls", "libraries", "analysis", "prepare", "generate", "rewrite", "lib"];

/// Layers whose files others reach only through the layer's `mod.rs`.
const FACADES: &[&str] = &["libraries"];

/// A source file, named by its path under `src` without `.rs` (`ir/cfg`, `lib`).
type Module = String;

fn sources(src: &Path) -> Vec<(Module, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("source folder") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(src).expect("under src").with_extension("");
                let name = rel.to_string_lossy().replace('\\', "/");
                out.push((name, std::fs::read_to_string(&p).expect("readable")));
            }
        }
    }
    out.sort();
    out
}

/// The text without `//` comments (doc comments included).
fn code_of(text: &str) -> String {
    text.lines().map(|l| l.find("//").map_or(l, |k| &l[..k])).collect::<Vec<_>>().join("\n")
}

/// Every path a `crate::` prefix starts, with braces expanded
/// (`crate::a::{b, c::d}` gives `a::b` and `a::c::d`), as segments.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut k = 0;
    while k + 7 <= bytes.len() {
        let at_word_start = k == 0 || !(bytes[k - 1].is_alphanumeric() || bytes[k - 1] == '_' || bytes[k - 1] == ':');
        // `pub(in crate::a)` says who may see an item; it imports nothing.
        let in_visibility = k >= 4 && bytes[k - 4..k].iter().collect::<String>() == "(in ";
        if at_word_start && !in_visibility && bytes[k..k + 7].iter().collect::<String>() == "crate::" {
            let mut pos = k + 7;
            parse_tree(&bytes, &mut pos, Vec::new(), &mut out);
            k = pos.max(k + 1);
        } else {
            k += 1;
        }
    }
    out
}

fn skip_space(s: &[char], pos: &mut usize) {
    while *pos < s.len() && s[*pos].is_whitespace() {
        *pos += 1;
    }
}

fn ident(s: &[char], pos: &mut usize) -> Option<String> {
    let start = *pos;
    while *pos < s.len() && (s[*pos].is_alphanumeric() || s[*pos] == '_') {
        *pos += 1;
    }
    (*pos > start).then(|| s[start..*pos].iter().collect())
}

/// One use-tree after a `::`: `a::b`, `a::{...}`, `*`.
fn parse_tree(s: &[char], pos: &mut usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    skip_space(s, pos);
    if *pos < s.len() && s[*pos] == '{' {
        *pos += 1;
        loop {
            skip_space(s, pos);
            if *pos >= s.len() || s[*pos] == '}' {
                *pos += 1;
                break;
            }
            parse_tree(s, pos, prefix.clone(), out);
            skip_space(s, pos);
            if *pos < s.len() && s[*pos] == ',' {
                *pos += 1;
            }
        }
        return;
    }
    match ident(s, pos) {
        Some(name) => {
            prefix.push(name);
            if s.get(*pos) == Some(&':') && s.get(*pos + 1) == Some(&':') {
                *pos += 2;
                parse_tree(s, pos, prefix, out);
                return;
            }
            out.push(prefix);
            // `as alias`: the alias is no path.
            let mut after = *pos;
            skip_space(s, &mut after);
            if s[after..].starts_with(&['a', 's', ' ']) {
                *pos = after + 3;
                skip_space(s, pos);
                ident(s, pos);
            }
        }
        None => {
            // `*` or the end: the path so far.
            if *pos < s.len() && s[*pos] == '*' {
                *pos += 1;
            }
            if !prefix.is_empty() {
                out.push(prefix);
            }
        }
    }
}

/// The layer of a module: its folder, or the file itself at the top.
fn layer_of(m: &str) -> &str {
    m.split('/').next().expect("non-empty")
}

/// The file a `crate::` path names: the longest run of its segments that is
/// a file (`a/b`) or a folder (`a/b/mod`); an item of `ir`'s own is
/// `ir/llvm`'s (re-exported by `ir/mod`); anything else is `lib.rs`'s.
fn target(path: &[String], modules: &BTreeSet<Module>) -> Option<Module> {
    let mut found: Option<(Module, usize)> = None;
    let mut prefix = String::new();
    for (k, seg) in path.iter().enumerate() {
        if seg == "self" {
            break;
        }
        prefix = if prefix.is_empty() { seg.clone() } else { format!("{prefix}/{seg}") };
        if modules.contains(&prefix) {
            found = Some((prefix.clone(), k + 1));
        } else if modules.contains(&format!("{prefix}/mod")) {
            found = Some((format!("{prefix}/mod"), k + 1));
        } else {
            break;
        }
    }
    match found {
        // `ir::self` too: what a file uses through it is `ir/llvm`'s.
        Some((m, used)) if m == "ir/mod" && used < path.len() => Some("ir/llvm".into()),
        Some((m, _)) => Some(m),
        None => Some("lib".into()),
    }
}

/// Import edges between files, and the layering rules' violations.
fn graph(src: &Path, layered: bool) -> (BTreeMap<Module, BTreeSet<Module>>, Vec<String>) {
    let files = sources(src);
    let modules: BTreeSet<Module> = files.iter().map(|(m, _)| m.clone()).collect();
    let rank = |m: &str| LAYERS.iter().position(|l| *l == layer_of(m));
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (m, text) in &files {
        let code = code_of(text);
        let tests_from = code.lines().position(|l| l.contains("#[cfg(test)]")).unwrap_or(usize::MAX);
        for (line, _) in code.lines().enumerate().filter(|(_, l)| l.contains("super::")) {
            if line < tests_from {
                wrong.push(format!("{m}.rs:{}: `super::` outside a test module", line + 1));
            }
        }
        let entry = edges.entry(m.clone()).or_default();
        // A folder's `mod.rs` stands on the files it declares.
        if let Some(folder) = m.strip_suffix("/mod") {
            for other in &modules {
                let Some(rest) = other.strip_prefix(&format!("{folder}/")) else { continue };
                let direct = !rest.contains('/') || rest.matches('/').count() == 1 && rest.ends_with("/mod");
                if direct && other != m {
                    entry.insert(other.clone());
                }
            }
        }
        for path in crate_paths(&code) {
            let Some(t) = target(&path, &modules) else { continue };
            if &t == m {
                continue;
            }
            entry.insert(t.clone());
            if !layered {
                continue;
            }
            let (from, to) = (layer_of(m), layer_of(&t));
            match (rank(m), rank(&t)) {
                (Some(a), Some(b)) if b > a => {
                    wrong.push(format!("{m}.rs imports from a layer above it: `crate::{}` ({to})", path.join("::")))
                }
                (None, _) => wrong.push(format!("{m}.rs is in no layer of the table ({from})")),
                _ => {}
            }
            if FACADES.contains(&to) && from != to && !t.ends_with("/mod") {
                wrong.push(format!(
                    "{m}.rs reaches into `{t}` past its layer's interface (`crate::{to}::...` only): `crate::{}`",
                    path.join("::")
                ));
            }
        }
    }
    (edges, wrong)
}

/// The import cycles: strongly connected groups of more than one file (Tarjan).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let k = s.index.len();
        s.index.insert(v, k);
        s.low.insert(v, k);
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(ws) = s.edges.get(v) {
            for w in ws {
                let w = w.as_str();
                if !s.edges.contains_key(w) {
                    continue;
                }
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(lw));
                } else if s.on_stack.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(iw));
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                group.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.out.push(group);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v.as_str());
        }
    }
    s.out.sort();
    s.out
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name).join("src")
}

#[test]
fn every_file_is_in_a_layer_and_imports_only_downwards() {
    let (_, wrong) = graph(&crate_src("ad"), true);
    assert!(wrong.is_empty(), "layering broken:\n  {}", wrong.join("\n  "));
}

#[test]
fn no_import_cycle() {
    let (edges, _) = graph(&crate_src("ad"), true);
    let found: Vec<String> = cycles(&edges).iter().map(|c| c.join(", ")).collect();
    assert!(found.is_empty(), "import cycles between files of ad/src:\n  {}", found.join("\n  "));
}

#[test]
fn the_driver_has_no_import_cycle() {
    let (edges, _) = graph(&crate_src("driver"), false);
    let found = cycles(&edges);
    assert!(found.is_empty(), "import cycles between files of driver/src: {found:?}");
}

#[test]
fn the_reader_sees_paths_as_rustc_does() {
    let paths = crate_paths("use crate::ir::{self, Type, Value};\nlet x = crate::analysis::memory::analyze(f);\n");
    let shown: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(shown, ["ir::self", "ir::Type", "ir::Value", "analysis::memory::analyze"]);
    let nested = crate_paths("use crate::a::{b::{c, d}, e as f};");
    let shown: Vec<String> = nested.iter().map(|p| p.join("::")).collect();
    assert_eq!(shown, ["a::b::c", "a::b::d", "a::e"]);
    assert!(crate_paths("// crate::x::y").len() == 1, "comments are removed by code_of, not here");
    assert!(crate_paths(&code_of("// crate::x::y")).is_empty());
    assert!(crate_paths("pub(in crate::generate) fn f() {}").is_empty());
    // A path from a layer above is what the rules catch.
    let modules: BTreeSet<Module> = [
        "ir/mod",
        "ir/cfg",
        "ir/llvm",
        "generate/mod",
        "generate/reverse/mod",
        "generate/reverse/tape",
        "lib",
        "rules",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let t = |p: &str| target(&p.split("::").map(String::from).collect::<Vec<_>>(), &modules);
    assert_eq!(t("ir::cfg::Cfg").as_deref(), Some("ir/cfg"));
    assert_eq!(t("ir::Value").as_deref(), Some("ir/llvm"));
    assert_eq!(t("Options").as_deref(), Some("lib"));
    assert_eq!(t("rules::RULES").as_deref(), Some("rules"));
    assert_eq!(t("ir::self").as_deref(), Some("ir/llvm"));
    assert_eq!(t("generate::reverse::tape::LoopTape").as_deref(), Some("generate/reverse/tape"));
    assert_eq!(t("generate::reverse::Reverse").as_deref(), Some("generate/reverse/mod"));
}
