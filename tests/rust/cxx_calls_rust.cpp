// C++ calling a Rust static library: the gradient goes through the Rust
// code (differentiated at enzyme-c++'s link), checked against finite
// differences, forward mode against reverse.
#include <cmath>
#include <cstdio>
#include <enzyme/enzyme.h>

extern "C" double rust_chain_energy(const double *x, std::size_t n);

static double objective(const double *x) { return rust_chain_energy(x, 5) * (1 + x[0] * x[0]); }

int main() {
  double x[5] = {0.3, 1.2, -0.4, 0.8, 2.0}, dx[5] = {0, 0, 0, 0, 0};
  __enzyme_autodiff<void>(reinterpret_cast<void *>(objective), enzyme_dup, x, dx);
  int failures = 0;
  for (int i = 0; i < 5; i++) {
    double xp[5], xm[5], tx[5] = {0, 0, 0, 0, 0};
    for (int k = 0; k < 5; k++) xp[k] = xm[k] = x[k];
    xp[i] += 1e-6;
    xm[i] -= 1e-6;
    double fd = (objective(xp) - objective(xm)) / 2e-6;
    tx[i] = 1;
    double t = __enzyme_fwddiff<double>(reinterpret_cast<void *>(objective), enzyme_dup, x, tx);
    if (std::fabs(fd - dx[i]) > 1e-6 * (1 + std::fabs(fd)) || std::fabs(t - dx[i]) > 1e-12 * (1 + std::fabs(t))) {
      std::printf("FAIL d/dx%d: reverse %.15g forward %.15g finite difference %.15g\n", i, dx[i], t, fd);
      failures++;
    }
  }
  std::printf("C++ -> Rust gradient: %d failures\n", failures);
  return failures != 0;
}
