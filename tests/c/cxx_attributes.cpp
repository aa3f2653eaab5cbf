// Enzyme's attributes in C++ spellings, read by our clang plugin:
// [[enzyme::inactive]] and __attribute__((enzyme_inactive)) on member
// functions, templates, globals and static locals;
// [[enzyme::function_like("exp")]] on a template instantiated twice.
#include <cmath>
#include <cstdio>
extern "C" {
#include "check.h"
}

static int logged = 0;

struct Model {
  double scale;
  [[enzyme::inactive]] double trace(double v) const {
    logged++;
    return v * 100.0;  // no derivative flows through it
  }
  double energy(double x) const { return scale * x * x + trace(x); }
};

template <typename T>
[[enzyme::function_like("exp")]] T exp_series(T x) {
  T s = 1, term = 1;
  for (int k = 1; k < 8; k++) {
    term = term * x / k;
    s += term;
  }
  return s;
}

template <typename T>
__attribute__((enzyme_inactive)) T clamp_weight(T w) {
  return w < 0 ? T(0) : w * 3;
}

[[enzyme::inactive]] double running_max = 0;

static double f(double x) {
  Model m{2.0};
  [[enzyme::inactive]] static double last = 0;
  last = x * x;        // active value into an inactive static local
  running_max = x * x; // and into an inactive global
  double w = clamp_weight(x);
  return m.energy(x) + exp_series(x) * x + w + exp_series(0.5 * x);
}

// With exp's rule for exp_series (the rule uses the result as exp's derivative).
static double df(double x) {
  return 2.0 * 2.0 * x + exp_series(x) * x + exp_series(x) + 0.5 * exp_series(0.5 * x);
}

int main() {
  for (double x = 0.2; x < 2; x += 0.6) {
    double rev = __enzyme_autodiff((void *)f, x);
    double fwd = __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0);
    CHECK("C++ attributes: reverse vs closed form", rev, df(x), TOL_EXACT);
    CHECK("C++ attributes: forward vs reverse", fwd, rev, TOL_MODES);
    CHECK("inactive global holds the primal value", running_max, x * x, TOL_EXACT);
  }
  CHECK("the inactive member function ran once per derivative call", logged, 6, 0);
  return CHECK_DONE();
}
