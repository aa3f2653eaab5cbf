//! Rendering the engine's diagnostics like rustc's: what, where (with the
//! source line when it can be read), and what to do.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// Renders diagnostics for a terminal (colours when stderr is one).
pub fn render(diags: &[ad::Diagnostic], program: &str) -> String {
    let mut out = String::new();
    for d in diags {
        out.push_str(&render_one(d));
        out.push('\n');
    }
    out.push_str(&format!(
        "{program}: error: differentiation failed with {} error{}; no output was written\n",
        diags.len(),
        if diags.len() == 1 { "" } else { "s" }
    ));
    out
}

fn render_one(d: &ad::Diagnostic) -> String {
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
