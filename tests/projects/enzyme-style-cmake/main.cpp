#include "objective.h"
#include <cmath>
#include <cstdio>

static double logistic(double t) { return 1 / (1 + std::exp(-t)); }

int main() {
  const int n = 4;
  double x[n] = {0.3, -0.8, 1.1, 0.5};
  int failures = 0;
  for (int j = 0; j < n; j++) {
    double v[n] = {0}, g[n], hv[n] = {0};
    v[j] = 1;
    // Forward over reverse: column j of the Hessian.
    __enzyme_fwddiff_normal((void *)gradient, enzyme_dup, x, v, enzyme_dup, g, hv, enzyme_const, n);
    for (int i = 0; i < n; i++) {
      // H = d²/dx² of Σ softplus(x_k x_{k+1}) + x_k³/2.
      double want = 0;
      for (int k = 0; k < n; k++) {
        int a = k, b = (k + 1) % n;
        double t = x[a] * x[b], s = logistic(t), s2 = s * (1 - s);
        double da_i = (i == a) * x[b] + (i == b) * x[a], da_j = (j == a) * x[b] + (j == b) * x[a];
        double cross = ((i == a && j == b) || (i == b && j == a)) ? 1.0 : 0.0;
        if (a == b) cross = (i == a && j == a) ? 2.0 : 0.0;
        want += s2 * da_i * da_j + s * cross;
      }
      if (i == j) want += 3 * x[i];
      if (std::fabs(hv[i] - want) > 1e-10 * (1 + std::fabs(want))) {
        std::printf("FAIL H[%d][%d] = %.15g, want %.15g\n", i, j, hv[i], want);
        failures++;
      }
    }
  }
  // A typed template entry point: the directional derivative of the objective.
  double t[n] = {1, 0, 0, 0};
  double d = __enzyme_fwddiff<double>((void *)objective, enzyme_dup, (const double *)x, (const double *)t, enzyme_const, n);
  double g[n];
  gradient(x, g, n);
  if (std::fabs(d - g[0]) > 1e-12) {
    std::printf("FAIL forward %.15g vs reverse %.15g\n", d, g[0]);
    failures++;
  }
  std::printf("Enzyme-style CMake project: %s\n", failures ? "FAILED" : "Hessian-vector products ok");
  return failures != 0;
}
