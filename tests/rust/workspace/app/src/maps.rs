//! `HashMap` and `HashSet` inside differentiated functions, in release and
//! debug builds: float values accumulated under keys (the table growing
//! from empty through several resizes), keys removed and others inserted
//! (deleted slots, so the table rehashes in place), values changed through
//! `get_mut`, values held in pairs, slots with padding (`f32` values, `u8`
//! keys), `String` and `&str` keys, and a set of indices deduplicating which inputs count. Gradients against finite differences, forward mode
//! against reverse.
use enzyme::{autodiff_forward, autodiff_reverse};
use std::collections::{HashMap, HashSet};

// Sums under scrambled keys, then removals and inserts, then a weighted
// read in key order (the table's own order is the hasher's).
#[autodiff_reverse(d_histogram, Duplicated, Const, ActiveOnly)]
#[autodiff_forward(t_histogram, Dual, Const, DualOnly)]
fn histogram(x: &[f64], keys: u64) -> f64 {
    let mut m: HashMap<u64, f64> = HashMap::new();
    for (i, v) in x.iter().enumerate() {
        let k = (i as u64 * 7 + 3) % keys;
        *m.entry(k).or_insert(0.5) += v * v;
        m.insert(keys + i as u64, v.sin());
    }
    for k in (0..keys).step_by(3) {
        if let Some(v) = m.remove(&k) {
            m.insert(3 * keys + k, v * 1.5);
        }
    }
    for k in (1..keys).step_by(4) {
        if let Some(v) = m.get_mut(&k) {
            *v = v.cos();
        }
    }
    let mut total = 0.0;
    for k in 0..4 * keys {
        if let Some(v) = m.get(&k) {
            total += v * ((k % 5) as f64 + 0.5);
        }
    }
    total
}

// A table that keeps few live entries while many come and go: removed
// entries leave deleted slots, and inserting again rehashes in place
// (slots swapped within the same allocation).
#[autodiff_reverse(d_churn, Duplicated, Const, ActiveOnly)]
#[autodiff_forward(t_churn, Dual, Const, DualOnly)]
fn churn(x: &[f64], live: usize) -> f64 {
    let mut m: HashMap<usize, f64> = HashMap::with_capacity(live);
    let mut total = 0.0;
    for round in 0..6 {
        for (i, v) in x.iter().enumerate() {
            let k = round * 1000 + i;
            m.insert(k, v * (round as f64 + 1.0));
            if i >= live {
                let old = m.remove(&(k - live)).unwrap();
                total += old * v;
            }
        }
        for i in x.len().saturating_sub(live)..x.len() {
            total += m.remove(&(round * 1000 + i)).unwrap().sin();
        }
    }
    total
}

// Values in pairs, keyed by a pair of integers.
#[autodiff_reverse(d_pairs, Duplicated, ActiveOnly)]
#[autodiff_forward(t_pairs, Dual, DualOnly)]
fn pairs(x: &[f64]) -> f64 {
    let mut m: HashMap<(u32, u32), (f64, f64)> = HashMap::new();
    for (i, v) in x.iter().enumerate() {
        let e = m.entry(((i % 4) as u32, (i % 3) as u32)).or_insert((1.0, 0.0));
        e.0 *= 1.0 + 0.2 * v;
        e.1 += v.exp();
    }
    let mut total = 0.0;
    for a in 0..4u32 {
        for b in 0..3u32 {
            if let Some((p, q)) = m.get(&(a, b)) {
                total += p * q * (a + 2 * b + 1) as f64;
            }
        }
    }
    total
}

// Slots with padding: an `f32` value after a `u64` key, a `u8` key beside
// an `f64` value. The padding is never typed by an access; the tables are
// the function's own, so moving it carries no derivative.
#[autodiff_reverse(d_padded, Duplicated, ActiveOnly)]
#[autodiff_forward(t_padded, Dual, DualOnly)]
fn padded(x: &[f64]) -> f64 {
    let mut singles: HashMap<u64, f32> = HashMap::new();
    let mut bytes: HashMap<u8, f64> = HashMap::new();
    for (i, v) in x.iter().enumerate() {
        *singles.entry((i * 7 % 11) as u64).or_insert(0.5) += (v * v) as f32;
        *bytes.entry((i % 13) as u8).or_insert(1.0) *= 1.0 + 0.1 * v;
    }
    let mut total = 0.0;
    for k in 0..11u64 {
        total += singles.get(&k).copied().unwrap_or(0.0).sin() as f64;
    }
    for k in 0..13u8 {
        total += bytes.get(&k).copied().unwrap_or(1.0).ln() * (k as f64 + 1.0);
    }
    total
}

// Only the first occurrence of each index counts.
#[autodiff_reverse(d_first, Duplicated, Const, ActiveOnly)]
#[autodiff_forward(t_first, Dual, Const, DualOnly)]
fn first(x: &[f64], idx: &[usize]) -> f64 {
    let mut seen = HashSet::new();
    let mut total = 0.0;
    for (n, &i) in idx.iter().enumerate() {
        if seen.insert(i) {
            total += x[i] * x[i] * (n as f64 + 1.0);
        }
    }
    total + seen.len() as f64
}

// `String` keys: keys copied from constant text (`to_string` of a
// `&str`, `String::from`, a slice of a `&str`), totals accumulated through
// `entry`, values replaced by `insert` with the old value used (its `None`
// payload is undefined and the product speculated), removed and inserted
// under another key, changed through `get_mut`, read through `get` by `&str`.
#[autodiff_reverse(d_words, Duplicated, Const, ActiveOnly)]
#[autodiff_forward(t_words, Dual, Const, DualOnly)]
fn words(x: &[f64], names: &[&str]) -> f64 {
    let mut m: HashMap<String, f64> = HashMap::new();
    let mut total = 0.0;
    for (i, v) in x.iter().enumerate() {
        let k = names[(i * 7 + 2) % names.len()].to_string();
        *m.entry(k).or_insert(0.25) += v * v;
        if let Some(old) = m.insert(String::from(names[i % names.len()]), v.sin()) {
            total += old * v;
        }
    }
    for (j, n) in names.iter().enumerate().step_by(3) {
        if let Some(v) = m.remove(*n) {
            m.insert(String::from(names[(j + 1) % names.len()]), v * 2.0);
        }
    }
    if let Some(v) = m.get_mut(names[1]) {
        *v = v.cos();
    }
    for (j, a) in names.iter().enumerate() {
        if let Some(v) = m.get(*a) {
            total += v * (j as f64 + 1.0);
        }
    }
    total
}

// Few live `String` keys (four-byte slices of a text) while many come and
// go: deleted slots, so inserting rehashes in place, swapping slots and the
// `String`s' pointers in them.
#[autodiff_reverse(d_word_churn, Duplicated, Const, ActiveOnly)]
#[autodiff_forward(t_word_churn, Dual, Const, DualOnly)]
fn word_churn(x: &[f64], text: &str) -> f64 {
    let n = text.len() - 4;
    let mut m: HashMap<String, f64> = HashMap::with_capacity(10);
    let mut total = 0.0;
    for round in 0..4 {
        for (i, v) in x.iter().enumerate() {
            let s = (i * 7 + round * 3) % n;
            if let Some(old) = m.insert(text[s..s + 4].to_string(), v * (round as f64 + 1.0)) {
                total += old * v;
            }
            if m.len() > 6 {
                for back in 1..4 {
                    let s = ((i + back) * 7 + round * 3) % n;
                    if let Some(old) = m.remove(&text[s..s + 4]) {
                        total += old.sin();
                    }
                }
            }
        }
    }
    total + m.values().map(|v| v * v).sum::<f64>()
}

// `String`s beside the floats: names copied into an array of `String`s, cloned,
// grown with `push_str`, compared and kept in another `Vec`; their lengths
// weight the sum.
#[autodiff_reverse(d_labelled, Duplicated, Const, ActiveOnly)]
#[autodiff_forward(t_labelled, Dual, Const, DualOnly)]
fn labelled(x: &[f64], names: &[&str]) -> f64 {
    let owned = [names[0].to_string(), names[3].to_string(), names[5].to_string()];
    let mut labels: Vec<String> = Vec::new();
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate() {
        let mut l = owned[(i * 5 + 1) % owned.len()].clone();
        if i % 3 == 0 {
            l.push_str("_tail");
        }
        let w = if labels.iter().any(|m| *m == l) { 2.0 } else { 1.0 };
        s += w * v * v * l.len() as f64;
        labels.push(l);
    }
    s + labels.iter().map(|l| l.len() as f64).sum::<f64>() * x[0]
}

// `&str` keys: the words of a `&str` parameter (`split_whitespace`).
#[autodiff_reverse(d_word_weights, Duplicated, Const, ActiveOnly)]
#[autodiff_forward(t_word_weights, Dual, Const, DualOnly)]
fn word_weights(x: &[f64], text: &str) -> f64 {
    let mut m: HashMap<&str, f64> = HashMap::new();
    for (i, w) in text.split_whitespace().enumerate() {
        *m.entry(w).or_insert(0.5) += x[i % x.len()] * x[(i + 1) % x.len()];
    }
    let mut total = 0.0;
    for (j, w) in text.split_whitespace().enumerate() {
        if let Some(v) = m.get(w) {
            total += v.sin() * (j as f64 + 1.0);
        }
    }
    total
}

// `&str` keys read from a `&[&str]`, a replaced value moved to another key
// (optimised builds: unoptimised code loads the names without the mark that
// says they point to bytes, and is refused).
#[cfg(not(debug_assertions))]
#[autodiff_reverse(d_name_moves, Duplicated, Const, ActiveOnly)]
#[autodiff_forward(t_name_moves, Dual, Const, DualOnly)]
fn name_moves(x: &[f64], names: &[&str]) -> f64 {
    let mut m: HashMap<&str, f64> = HashMap::new();
    for (i, v) in x.iter().enumerate() {
        if let Some(old) = m.insert(names[(i * 3) % names.len()], v * v) {
            m.insert(names[(i * 3 + 1) % names.len()], old * v);
        }
    }
    names.iter().map(|n| m.get(n).copied().unwrap_or(0.0)).sum::<f64>()
}

/// Checks the gradient `grad` gives at `x` against central differences of
/// `f` (1e-6), and the tangents `tangent` gives along each axis against it
/// (1e-12).
pub(crate) fn check_both(
    check: &mut dyn FnMut(&str, f64, f64, f64),
    what: &str,
    x: &[f64],
    f: &dyn Fn(&[f64]) -> f64,
    grad: &dyn Fn(&[f64], &mut [f64]),
    tangent: &dyn Fn(&[f64], &[f64]) -> f64,
) {
    let mut dx = vec![0.0; x.len()];
    grad(x, &mut dx);
    for i in 0..x.len() {
        check(&format!("{what}: reverse vs finite differences"), dx[i], central(f, x, i), 1e-6);
        let mut tx = vec![0.0; x.len()];
        tx[i] = 1.0;
        check(&format!("{what}: forward vs reverse"), tangent(x, &tx), dx[i], 1e-12);
    }
}

/// A function, its gradient and its tangent, under a name.
pub(crate) type Case = (&'static str, fn(&[f64]) -> f64, fn(&[f64], &mut [f64]), fn(&[f64], &[f64]) -> f64);

const NAMES: [&str; 13] =
    ["alpha", "beta", "gamma", "delta", "epsilon", "z", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu"];
const TEXT: &str = "the quick brown fox jumps over the lazy dog while seven wizards quietly hex jumbo crates";

fn check_string_keys(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    #[cfg_attr(debug_assertions, allow(unused_mut))]
    let mut cases: Vec<Case> = vec![
        ("HashMap<String, f64>", |x| words(x, &NAMES), |x, dx| d_words(x, dx, &NAMES, 1.0), |x, tx| t_words(x, tx, &NAMES)),
        (
            "HashMap<String, f64> churn",
            |x| word_churn(x, TEXT),
            |x, dx| d_word_churn(x, dx, TEXT, 1.0),
            |x, tx| t_word_churn(x, tx, TEXT),
        ),
        (
            "Strings cloned, pushed and compared",
            |x| labelled(x, &NAMES),
            |x, dx| d_labelled(x, dx, &NAMES, 1.0),
            |x, tx| t_labelled(x, tx, &NAMES),
        ),
        (
            "HashMap<&str, f64>",
            |x| word_weights(x, TEXT),
            |x, dx| d_word_weights(x, dx, TEXT, 1.0),
            |x, tx| t_word_weights(x, tx, TEXT),
        ),
    ];
    #[cfg(not(debug_assertions))]
    cases.push((
        "HashMap<&str, f64> from &[&str]",
        |x| name_moves(x, &NAMES),
        |x, dx| d_name_moves(x, dx, &NAMES, 1.0),
        |x, tx| t_name_moves(x, tx, &NAMES),
    ));
    for n in [3, 12, 40] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() + 0.2).collect();
        for &(what, f, grad, tangent) in &cases {
            check_both(check, what, &x, &f, &grad, &tangent);
        }
    }
}

pub(crate) fn central(f: &dyn Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6;
    let (mut xp, mut xm) = (x.to_vec(), x.to_vec());
    xp[i] += h;
    xm[i] -= h;
    (f(&xp) - f(&xm)) / (2.0 * h)
}

/// Checks them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    check_string_keys(check);
    for (n, keys) in [(3, 2), (20, 7), (90, 40)] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.61).cos() * 0.8).collect();
        let mut dx = vec![0.0; n];
        d_histogram(&x, &mut dx, keys, 1.0);
        for i in 0..n {
            check("HashMap histogram: reverse vs finite differences", dx[i], central(&|x| histogram(x, keys), &x, i), 1e-6);
            let mut tx = vec![0.0; n];
            tx[i] = 1.0;
            check("HashMap histogram: forward vs reverse", t_histogram(&x, &tx, keys), dx[i], 1e-12);
        }
    }
    for (n, live) in [(10, 2), (60, 5), (200, 3)] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.23).sin() + 0.1).collect();
        let mut dx = vec![0.0; n];
        d_churn(&x, &mut dx, live, 1.0);
        for i in 0..n {
            check("HashMap churn: reverse vs finite differences", dx[i], central(&|x| churn(x, live), &x, i), 1e-6);
            let mut tx = vec![0.0; n];
            tx[i] = 1.0;
            check("HashMap churn: forward vs reverse", t_churn(&x, &tx, live), dx[i], 1e-12);
        }
    }
    let x: Vec<f64> = (0..30).map(|i| (i as f64 * 0.4).cos() * 0.5).collect();
    let mut dx = vec![0.0; x.len()];
    d_pairs(&x, &mut dx, 1.0);
    for i in 0..x.len() {
        check("HashMap of pairs: reverse vs finite differences", dx[i], central(&pairs, &x, i), 1e-6);
        let mut tx = vec![0.0; x.len()];
        tx[i] = 1.0;
        check("HashMap of pairs: forward vs reverse", t_pairs(&x, &tx), dx[i], 1e-12);
    }
    let x: Vec<f64> = (0..45).map(|i| 0.1 + 0.02 * i as f64).collect();
    let mut dx = vec![0.0; x.len()];
    d_padded(&x, &mut dx, 1.0);
    for i in 0..x.len() {
        // The f32 sums: finite differences of a step that f32 resolves.
        let h = 1e-3;
        let (mut xp, mut xm) = (x.clone(), x.clone());
        xp[i] += h;
        xm[i] -= h;
        let fd = (padded(&xp) - padded(&xm)) / (2.0 * h);
        check("HashMap with padded slots: reverse vs finite differences", dx[i], fd, 1e-3);
        let mut tx = vec![0.0; x.len()];
        tx[i] = 1.0;
        check("HashMap with padded slots: forward vs reverse", t_padded(&x, &tx), dx[i], 1e-6);
    }
    let x: Vec<f64> = (0..40).map(|i| i as f64 * 0.05 - 0.7).collect();
    let idx: Vec<usize> = (0..300).map(|n| (n * n * 7 + 3) % 37).collect();
    let mut dx = vec![0.0; x.len()];
    d_first(&x, &mut dx, &idx, 1.0);
    for i in 0..x.len() {
        check("HashSet first: reverse vs finite differences", dx[i], central(&|x| first(x, &idx), &x, i), 1e-6);
        let mut tx = vec![0.0; x.len()];
        tx[i] = 1.0;
        check("HashSet first: forward vs reverse", t_first(&x, &tx, &idx), dx[i], 1e-12);
    }
}
