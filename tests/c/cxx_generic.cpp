// A generic C++ algorithm instantiated for float and double, taking
// iterators over arrays of each type.
#include <cmath>
#include <cstdio>
#include <enzyme/enzyme.h>

template <typename T, typename It> static T soft_norm(It first, It last, T eps) {
  T s = eps;
  for (It p = first; p != last; ++p) s += (*p) * (*p);
  return std::sqrt(s);
}

static double norm_d(const double *x, int n) { return soft_norm<double>(x, x + n, 1e-3); }
static float norm_f(const float *x, int n) { return soft_norm<float>(x, x + n, 1e-3f); }

int main() {
  double xd[4] = {1, -2, 0.5, 3}, dd[4] = {0, 0, 0, 0};
  float xf[4] = {1, -2, 0.5f, 3}, df[4] = {0, 0, 0, 0};
  __enzyme_autodiff<void>((void *)norm_d, enzyme_dup, xd, dd, 4);
  __enzyme_autodiff<void>((void *)norm_f, enzyme_dup, xf, df, 4);
  double n = norm_d(xd, 4);
  int bad = 0;
  for (int i = 0; i < 4; i++) {
    if (!(std::fabs(dd[i] - xd[i] / n) <= 1e-12)) bad = 1;
    if (!(std::fabs(df[i] - xd[i] / n) <= 1e-5)) bad = 1;
  }
  if (bad) {
    std::printf("FAIL: %g %g %g %g / %g %g %g %g\n", dd[0], dd[1], dd[2], dd[3], df[0], df[1], df[2], df[3]);
    return 1;
  }
  std::printf("cxx_generic: 8 checks passed\n");
  return 0;
}
