// The C++ part: differentiates a lambda-free objective that calls C, which
// calls Fortran, and one that calls Fortran directly; checks against
// finite differences and forward mode against reverse.
#include <cmath>
#include <cstdio>
#include <enzyme/enzyme.h>

extern "C" {
double damped(const double *x, int n);
void relax(int n, double *u);
double wave(double x);
}

static double objective(const double *x) {
  double u[4];
  for (int i = 0; i < 4; i++) u[i] = x[i];
  relax(4, u);
  return damped(u, 4) + wave(x[0]) * x[3];
}

int main() {
  const double x0[4] = {0.4, -0.9, 1.3, 0.2};
  double x[4], dx[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; i++) x[i] = x0[i];
  __enzyme_autodiff<void>(reinterpret_cast<void *>(objective), enzyme_dup, x, dx);
  int failures = 0;
  for (int i = 0; i < 4; i++) {
    double xp[4], xm[4], h = 1e-6;
    for (int k = 0; k < 4; k++) xp[k] = xm[k] = x0[k];
    xp[i] += h;
    xm[i] -= h;
    double fd = (objective(xp) - objective(xm)) / (2 * h);
    double tx[4] = {0, 0, 0, 0};
    tx[i] = 1;
    double t = __enzyme_fwddiff<double>(reinterpret_cast<void *>(objective), enzyme_dup, x, tx);
    if (std::fabs(dx[i] - fd) > 1e-6 * (1 + std::fabs(fd)) || std::fabs(t - dx[i]) > 1e-12 * (1 + std::fabs(t))) {
      std::printf("FAIL d/dx%d: reverse %.15g, forward %.15g, finite difference %.15g\n", i, dx[i], t, fd);
      failures++;
    }
  }
  std::printf("C++ -> C -> Fortran gradient: %d failures\n", failures);
  return failures != 0;
}
