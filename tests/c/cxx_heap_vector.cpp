// C++: new[] / delete[] temporaries and std::vector<double> inputs (read
// through const references, with a shadow vector of the same size).
#include <cmath>
#include <cstdio>
#include <vector>
#include <enzyme/enzyme.h>

static double weighted_norm(const std::vector<double> &v, const std::vector<double> &w) {
  double s = 0;
  for (std::size_t i = 0; i < v.size(); i++) s += w[i] * v[i] * v[i];
  return std::sqrt(s);
}

static double smooth_energy(const double *x, int n) {
  double *d = new double[n - 1];
  for (int i = 0; i + 1 < n; i++) d[i] = x[i + 1] - x[i];
  double e = 0;
  for (int i = 0; i + 1 < n; i++) e += d[i] * d[i];
  delete[] d;
  return e;
}

static int failures, checks;
static void check(const char *what, double got, double want) {
  checks++;
  if (!(std::fabs(got - want) <= 1e-12 * (1 + std::fabs(want)))) {
    std::printf("FAIL %s: got %.17g want %.17g\n", what, got, want);
    failures++;
  }
}

int main() {
  std::vector<double> v = {1.0, -2.0, 3.0}, w = {0.5, 1.0, 2.0};
  std::vector<double> dv(3, 0.0), dw(3, 0.0);
  __enzyme_autodiff<void>((void *)weighted_norm, enzyme_dup, &v, &dv, enzyme_const, &w);
  double nrm = weighted_norm(v, w);
  for (int i = 0; i < 3; i++) check("d norm / d v", dv[i], w[i] * v[i] / nrm);
  std::vector<double> tv = {0.0, 1.0, 0.0};
  double t = __enzyme_fwddiff<double>((void *)weighted_norm, enzyme_dup, &v, &tv, enzyme_const, &w);
  check("forward d norm / d v1", t, dv[1]);

  double x[4] = {0.0, 1.0, 3.0, 2.0}, dx[4] = {0, 0, 0, 0};
  __enzyme_autodiff<void>((void *)smooth_energy, enzyme_dup, x, dx, 4);
  double want[4] = {-2 * 1.0, 2 * 1.0 - 2 * 2.0, 2 * 2.0 - 2 * -1.0, 2 * -1.0};
  for (int i = 0; i < 4; i++) check("d energy / d x", dx[i], want[i]);
  if (failures) return 1;
  std::printf("cxx_heap_vector: %d checks passed\n", checks);
  return 0;
}
