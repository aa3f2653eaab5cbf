// not at: -O0 (libstdc++'s std::string members are external there: a clear build error)
// Maps keyed by std::string literals of up to 15 characters (kept in the
// string object itself: `params["alpha"]`) differentiate: the characters
// are copied by memcpy calls with no type metadata, which the engine shows
// to carry integers only (filled from string literals and never read as
// anything but integers). Keys of run-time length, and std::unordered_map's
// string keys (moved into nodes the engine cannot follow), are still refused
// with a build error. Both modes, checked against closed forms and finite
// differences.
#include <cmath>
#include <map>
#include <string>
#include "check.h"

// A value updated twice, keys inserted out of order.
static double tree(const double *x) {
  std::map<std::string, double> m;
  m["alpha"] = x[0] * x[1];
  m["gamma"] = x[2] * x[3];
  m["beta"] = x[1] * x[2];
  m["delta"] = x[3] * x[0];
  m["alpha"] += std::sin(x[2]);
  m["beta"] *= x[3];
  double s = 0;
  for (auto &kv : m) s += kv.second * kv.second * (kv.first.size() % 3 + 1);
  return s;
}

static double tree_closed(const double *x, int i) {
  // Keys in order: alpha(5 chars: weight 3), beta(4: 2), delta(5: 3), gamma(5: 3).
  double a = x[0] * x[1] + std::sin(x[2]), b = x[1] * x[2] * x[3], d = x[3] * x[0], g = x[2] * x[3];
  double da[4] = {x[1], x[0], std::cos(x[2]), 0}, db[4] = {0, x[2] * x[3], x[1] * x[3], x[1] * x[2]};
  double dd[4] = {x[3], 0, 0, x[0]}, dg[4] = {0, 0, x[3], x[2]};
  return 6 * a * da[i] + 4 * b * db[i] + 6 * d * dd[i] + 6 * g * dg[i];
}

// (A macro: each request names its function directly.)
#define CHECK_KEYS(f, closed, what)                                                    \
  do {                                                                                 \
    double x[4] = {0.5, 1.5, -0.7, 0.9}, dx[4] = {0};                                  \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);                                   \
    for (int i = 0; i < 4; i++) {                                                      \
      double t[4] = {0};                                                               \
      t[i] = 1;                                                                        \
      double fwd = __enzyme_fwddiff((void *)f, enzyme_dup, x, t);                      \
      double xp[4], xm[4];                                                             \
      for (int j = 0; j < 4; j++) xp[j] = xm[j] = x[j];                                \
      xp[i] += 1e-6;                                                                   \
      xm[i] -= 1e-6;                                                                   \
      double want = closed(x, i);                                                      \
      CHECK(what ": reverse vs closed form", dx[i], want, TOL_EXACT);                  \
      CHECK(what ": forward vs reverse", fwd, dx[i], TOL_MODES);                       \
      CHECK(what ": finite difference vs closed form", (f(xp) - f(xm)) / 2e-6, want, TOL_FD); \
    }                                                                                  \
  } while (0)

int main() {
  CHECK_KEYS(tree, tree_closed, "std::map<std::string, double>");
  if (check_failures) {
    printf("%d of %d checks failed\n", check_failures, check_count);
    return 1;
  }
  printf("cxx_string_keys: %d checks passed\n", check_count);
  return 0;
}
