//! Rendering the engine's diagnostics like rustc's: what, where (with the
//! source line when it can be read), and what to do.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// Renders diagnostics for a terminal (colours when stderr is one); `rust`:
/// the program is Rust's (built by cargo, which sets the debug information).
pub fn render(diags: &[ad::Diagnostic], program: &str, rust: bool) -> String {
    let mut out = String::new();
    let groups = grouped(diags);
    // Distinct problems: the same construct met by two requests counts once.
    let count: usize = groups.iter().map(|(_, others)| 1 + others.len()).sum();
    for (d, others) in groups {
        if others.is_empty() {
            out.push_str(&render_one(d, rust));
        } else {
            // The other places by their lines (the first few).
            let shown: Vec<&str> = others.iter().filter(|p| !p.is_empty()).take(6).map(String::as_str).collect();
            let more = others.len();
            let mut d = d.clone();
            d.notes.push(format!(
                "and {more} more place{} like this in the same function{}{}",
                if more == 1 { "" } else { "s" },
                if shown.is_empty() { String::new() } else { format!(": {}", shown.join(", ")) },
                if shown.len() < more && !shown.is_empty() { ", ..." } else { "" }
            ));
            out.push_str(&render_one(&d, rust));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "{program}: error: differentiation failed with {count} error{}; no output was written\n",
        if count == 1 { "" } else { "s" }
    ));
    out
}

/// Each distinct problem once: diagnostics with the same message in the
/// same function (one construct inlined in many places, or met again by
/// another mode's request) are shown by their first, with the other places
/// (source locations, where known). Order of first appearance.
fn grouped(diags: &[ad::Diagnostic]) -> Vec<(&ad::Diagnostic, Vec<String>)> {
    let mut out: Vec<(&ad::Diagnostic, Vec<String>)> = Vec::new();
    let mut seen: Vec<Vec<String>> = Vec::new();
    let mut first_place: Vec<String> = Vec::new();
    for d in diags {
        let located = d.location.as_ref().map(|l| l.to_string());
        let place = located.clone().or_else(|| d.ir.clone()).unwrap_or_default();
        match out.iter().position(|(g, _)| g.message == d.message && g.function == d.function && g.help == d.help) {
            Some(k) => {
                if place != first_place[k] && !seen[k].contains(&place) {
                    seen[k].push(place);
                    out[k].1.push(located.unwrap_or_default());
                }
            }
            None => {
                out.push((d, Vec::new()));
                seen.push(Vec::new());
                first_place.push(place);
            }
        }
    }
    out
}

fn render_one(d: &ad::Diagnostic, rust: bool) -> String {
    let source = d.location.as_ref().and_then(|l| {
        let text = std::fs::read_to_string(l.path()).ok()?;
        let line = text.lines().nth(l.line.checked_sub(1)? as usize)?.to_string();
        Some((l, line))
    });
    let mut notes: Vec<String> = Vec::new();
    if let Some(f) = &d.function {
        notes.push(format!("in function `{f}`"));
    }
    if let (Some(ir), None) = (&d.ir, &source) {
        notes.push(format!("instruction: {ir}"));
    }
    notes.extend(d.notes.iter().cloned());
    let mut group = Group::with_title(Level::ERROR.primary_title(d.message.as_str()));
    let location_text;
    match (&source, &d.location) {
        (Some((loc, line)), _) => {
            let col = (loc.column.max(1) as usize - 1).min(line.len());
            let end = line[col..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map(|n| col + n.max(1))
                .unwrap_or(line.len())
                .max(col + 1)
                .min(line.len().max(col + 1));
            let span = if line.is_empty() { 0..0 } else { col..end.min(line.len()) };
            group = group.element(
                Snippet::source(line.as_str())
                    .line_start(loc.line as usize)
                    .path(loc.file.as_str())
                    .annotation(AnnotationKind::Primary.span(span)),
            );
        }
        (None, Some(loc)) => {
            location_text = format!("at {loc}");
            notes.insert(0, location_text);
        }
        (None, None) if rust => notes.push(
            "build with debug information to see the source line (`debug = true` in the Cargo profile, e.g. \
             `CARGO_PROFILE_RELEASE_DEBUG=true cargo enzyme build --release`)"
                .into(),
        ),
        (None, None) => notes.push("compile with -g to see the source line".into()),
    }
    for n in &notes {
        group = group.element(Level::NOTE.message(n.as_str()));
    }
    if let Some(h) = &d.help {
        group = group.element(Level::HELP.message(h.as_str()));
    }
    let renderer = if anstream::AutoStream::choice(&std::io::stderr()) == anstream::ColorChoice::Never {
        Renderer::plain()
    } else {
        Renderer::styled()
    };
    renderer.render(&[group]).to_string()
}
