// Differentiates a least-squares loss over the C model with respect to its
// parameters, checked against finite differences.
#include <cmath>
#include <cstdio>
#include <enzyme/enzyme.h>

extern "C" double model(const double *p, double t);

static double loss(const double *p) {
  double s = 0;
  for (int i = 0; i < 20; i++) {
    double t = 0.1 * i, r = model(p, t) - std::sin(t);
    s += r * r;
  }
  return s;
}

int main() {
  double p[3] = {1.0, 0.3, 2.0}, dp[3] = {0, 0, 0};
  __enzyme_autodiff<void>(reinterpret_cast<void *>(loss), enzyme_dup, p, dp);
  double worst = 0;
  for (int i = 0; i < 3; i++) {
    double pp[3] = {p[0], p[1], p[2]}, pm[3] = {p[0], p[1], p[2]};
    pp[i] += 1e-6;
    pm[i] -= 1e-6;
    double fd = (loss(pp) - loss(pm)) / 2e-6;
    std::printf("d loss / d p%d: %.10f (finite difference %.10f)\n", i, dp[i], fd);
    worst = std::fmax(worst, std::fabs(dp[i] - fd));
  }
  std::printf("largest difference: %.1e -> %s\n", worst, worst < 1e-6 ? "OK" : "MISMATCH");
  return worst < 1e-6 ? 0 : 1;
}
