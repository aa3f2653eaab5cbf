// C++: a checkpointed loop whose step is a lambda (its function pointer: a
// conversion the optimiser may or may not inline), over a std::vector's
// data, called where cleanups are pending (an `invoke`). The gradient is
// checked against the same loop without checkpointing and against central
// differences.
#include <cmath>
#include <cstdio>
#include <enzyme/checkpoint.h>
#include <enzyme/enzyme.h>
#include <vector>

static EnzymeCkptConfig config = {3, 0, nullptr, 0, nullptr};

static void advance(int64_t i, double *x, int n) {
  for (int j = 0; j < n; j++) x[j] = x[j] + 0.01 * std::cos(x[(j + 1) % n] + 0.1 * (double)i);
}

static double checkpointed(double *x, int n) {
  auto step = +[](int64_t i, double *x, int n) { advance(i, x, n); };
  __enzyme_checkpoint_for((void *)step, 0, 40, enzyme_scheme, &EnzymeCkptPeriodic, &config,
                          enzyme_checkpoint_region, x, sizeof(double) * n, x, n);
  double r = 0;
  for (int j = 0; j < n; j++) r += x[j] * x[j];
  return r;
}

static double plain(double *x, int n) {
  for (int64_t i = 0; i < 40; i++) advance(i, x, n);
  double r = 0;
  for (int j = 0; j < n; j++) r += x[j] * x[j];
  return r;
}

int main() {
  int bad = 0;
  std::vector<double> x = {0.1, 0.2, 0.3}, dx(3, 0.0), y = x, dy(3, 0.0);
  __enzyme_autodiff<void>((void *)checkpointed, enzyme_dup, x.data(), dx.data(), enzyme_const, 3);
  __enzyme_autodiff<void>((void *)plain, enzyme_dup, y.data(), dy.data(), enzyme_const, 3);
  for (int j = 0; j < 3; j++) {
    std::vector<double> a = {0.1, 0.2, 0.3}, b = a;
    a[j] += 1e-6, b[j] -= 1e-6;
    double fd = (plain(a.data(), 3) - plain(b.data(), 3)) / 2e-6;
    if (!(std::fabs(dx[j] - dy[j]) <= 1e-12 * (1 + std::fabs(dy[j])))) {
      std::printf("FAIL d/dx%d: %.17g, without checkpointing %.17g\n", j, dx[j], dy[j]);
      bad++;
    }
    if (!(std::fabs(dx[j] - fd) <= 1e-6 * (1 + std::fabs(fd)))) {
      std::printf("FAIL d/dx%d: %.17g, central difference %.17g\n", j, dx[j], fd);
      bad++;
    }
  }
  if (bad)
    return 1;
  std::printf("checkpointed lambda step: 6 checks passed\n");
  return 0;
}
