#include "model.h"
#include <cmath>
#include <cstdio>

static Chain chain{{1.0, 1.5, 0.5, 2.0}, 3.0};
static double energy_of(const double *x) { return energy(chain, x, 5); }

int main() {
  double x[5] = {0.0, 1.2, 2.4, 3.1, 5.3}, dx[5] = {0};
  __enzyme_autodiff((void *)energy_of, enzyme_dup, x, dx);
  int failures = 0;
  for (int i = 0; i < 5; i++) {
    // dE/dx_i = k (tanh(s_{i-1}) - tanh(s_i)), s_j = x_{j+1} - x_j - r_j.
    double want = 0;
    if (i > 0) want += chain.stiffness * std::tanh(x[i] - x[i - 1] - chain.rest[i - 1]);
    if (i < 4) want -= chain.stiffness * std::tanh(x[i + 1] - x[i] - chain.rest[i]);
    double t[5] = {0};
    t[i] = 1;
    double fwd = __enzyme_fwddiff((void *)energy_of, enzyme_dup, x, t);
    if (std::fabs(dx[i] - want) > 1e-12 || std::fabs(fwd - dx[i]) > 1e-12) {
      std::printf("FAIL dE/dx%d: reverse %.15g forward %.15g want %.15g\n", i, dx[i], fwd, want);
      failures++;
    }
  }
  if (law_rev_calls != 4) {
    std::printf("FAIL the custom gradient ran %d times, not 4\n", law_rev_calls);
    failures++;
  }
  std::printf("Enzyme-style make project: %s\n", failures ? "FAILED" : "gradients ok");
  return failures != 0;
}
