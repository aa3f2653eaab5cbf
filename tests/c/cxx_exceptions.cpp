// C++ with exceptions enabled: std::vector temporaries inside the
// differentiated function (their calls are invokes with cleanups), and an
// entry point declared by the user without noexcept, called while a vector
// is alive (so the call itself is an invoke).
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

extern "C" int enzyme_dup, enzyme_const;
extern "C" double __enzyme_autodiff(void *, ...);   // may throw, as far as C++ knows
extern "C" double __enzyme_fwddiff(void *, ...);

static double smoothness(const double *x, int n) {
  std::vector<double> d(n - 1);
  for (int i = 0; i + 1 < n; i++) d[i] = x[i + 1] - x[i];
  std::vector<double> dd;
  for (int i = 0; i + 1 < n - 1; i++) dd.push_back(d[i + 1] - d[i]);
  double e = 0;
  for (double v : d) e += v * v;
  for (double v : dd) e += 0.5 * v * v;
  if (!std::isfinite(e)) throw std::runtime_error("not finite");
  return e;
}

int main() {
  std::vector<double> alive(8, 1.0); // destroyed at the end of main: calls below are invokes
  double x[5] = {0.0, 1.0, 3.0, 2.0, 2.5}, dx[5] = {0, 0, 0, 0, 0};
  __enzyme_autodiff((void *)smoothness, enzyme_dup, x, dx, 5);
  int bad = 0;
  for (int i = 0; i < 5; i++) {
    double h = 1e-6, xp[5], xm[5];
    for (int k = 0; k < 5; k++) xp[k] = xm[k] = x[k];
    xp[i] += h;
    xm[i] -= h;
    double fd = (smoothness(xp, 5) - smoothness(xm, 5)) / (2 * h);
    double t[5] = {0, 0, 0, 0, 0};
    t[i] = 1;
    double fwd = __enzyme_fwddiff((void *)smoothness, enzyme_dup, x, t, 5);
    if (!(std::fabs(dx[i] - fd) <= 1e-6 * (1 + std::fabs(fd))) || !(std::fabs(fwd - dx[i]) <= 1e-12 * (1 + std::fabs(fwd)))) {
      std::printf("FAIL d/dx%d: reverse %.15g forward %.15g finite difference %.15g\n", i, dx[i], fwd, fd);
      bad = 1;
    }
  }
  if (bad) return 1;
  std::printf("cxx_exceptions: 10 checks passed (%zu)\n", alive.size());
  return 0;
}
