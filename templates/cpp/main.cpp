// enzyme-rs C++ template: the gradient of a function over a std::vector,
// in both modes, checked against central finite differences. `make test`.
#include <cmath>
#include <cstdio>
#include <enzyme/enzyme.h>
#include <vector>

// Ordinary C++: a smooth maximum of the weighted inputs.
static double soft_max(const std::vector<double> &x) {
  double s = 0;
  for (std::size_t i = 0; i < x.size(); i++) s += std::exp(x[i] * (1.0 + 0.5 * i));
  return std::log(s);
}

int main() {
  std::vector<double> x = {0.3, -1.2, 0.8, 0.1}, dx(x.size(), 0.0);
  __enzyme_autodiff<void>(reinterpret_cast<void *>(soft_max), enzyme_dup, &x, &dx);
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); i++) {
    std::vector<double> xp = x, xm = x, tx(x.size(), 0.0);
    xp[i] += 1e-6;
    xm[i] -= 1e-6;
    double fd = (soft_max(xp) - soft_max(xm)) / 2e-6;
    tx[i] = 1;
    double t = __enzyme_fwddiff<double>(reinterpret_cast<void *>(soft_max), enzyme_dup, &x, &tx);
    std::printf("d/dx[%zu]: reverse %.10f  forward %.10f  finite difference %.10f\n", i, dx[i], t, fd);
    worst = std::fmax(worst, std::fmax(std::fabs(dx[i] - fd), std::fabs(t - dx[i])));
  }
  std::printf("largest difference: %.1e -> %s\n", worst, worst < 1e-6 ? "OK" : "MISMATCH");
  return worst < 1e-6 ? 0 : 1;
}
