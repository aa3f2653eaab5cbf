// C++: the header's template entry points, a class with static members,
// overloaded std:: math, float and double instantiations of one template.
#include <cmath>
#include <cstdio>
#include <enzyme/enzyme.h>

template <typename T> struct Model {
  static T energy(T x) { return std::sin(x) * x + T(0.5) * x * x; }
};

template <typename T> static T energy(T x) { return Model<T>::energy(x); }

static int failures;
static void check(const char *what, double got, double want, double tol) {
  if (!(std::fabs(got - want) <= tol * (1 + std::fabs(want)))) {
    std::printf("FAIL %s: got %.17g want %.17g\n", what, got, want);
    failures++;
  }
}

int main() {
  double x = 0.9;
  double want = std::cos(x) * x + std::sin(x) + x;
  double r = __enzyme_autodiff<double>((void *)energy<double>, x);
  double t = __enzyme_fwddiff<double>((void *)energy<double>, enzyme_dup, x, 1.0);
  float rf = __enzyme_autodiff<float>((void *)energy<float>, (float)x);
  float tf = __enzyme_fwddiff<float>((void *)energy<float>, enzyme_dup, (float)x, 1.0f);
  double h = 1e-6, fd = (energy(x + h) - energy(x - h)) / (2 * h);
  check("reverse", r, want, 1e-12);
  check("forward vs reverse", t, r, 1e-12);
  check("finite difference", fd, want, 1e-6);
  check("float reverse", rf, want, 2e-5);
  check("float forward vs reverse", tf, rf, 2e-5);
  if (failures)
    return 1;
  std::printf("cxx_templates: 5 checks passed\n");
  return 0;
}
