// C++ standard library in differentiated code: std::array, range-for,
// std::accumulate and std::transform with lambdas, std::min/max.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <enzyme/enzyme.h>

static double score(const std::array<double, 5> &a) {
  std::array<double, 5> b{};
  std::transform(a.begin(), a.end(), b.begin(), [](double v) { return std::sin(v) * v; });
  double s = std::accumulate(b.begin(), b.end(), 0.0);
  double m = *std::max_element(a.begin(), a.end());
  return s + std::min(m, 2.0) * a[0];
}

int main() {
  std::array<double, 5> a = {0.5, 1.5, -1.0, 2.5, 0.25}, da{};
  __enzyme_autodiff<void>((void *)score, enzyme_dup, &a, &da);
  int bad = 0;
  for (int i = 0; i < 5; i++) {
    double want = std::cos(a[i]) * a[i] + std::sin(a[i]) + (i == 0 ? 2.0 : 0.0);
    if (!(std::fabs(da[i] - want) <= 1e-12)) {
      std::printf("FAIL d/da%d: %.15g want %.15g\n", i, da[i], want);
      bad = 1;
    }
    std::array<double, 5> t{};
    t[i] = 1;
    double f = __enzyme_fwddiff<double>((void *)score, enzyme_dup, &a, &t);
    if (!(std::fabs(f - da[i]) <= 1e-12)) {
      std::printf("FAIL forward d/da%d: %.15g want %.15g\n", i, f, da[i]);
      bad = 1;
    }
  }
  if (bad) return 1;
  std::printf("cxx_stl_algorithms: 10 checks passed\n");
  return 0;
}
