// C++: member functions through `this`, a class with a pointer member,
// duplicated with a shadow object.
#include <cmath>
#include <cstdio>
#include <enzyme/enzyme.h>

struct Spring {
  double k, rest;
  const double *ends; // two positions
  double length() const { return std::fabs(ends[1] - ends[0]); }
  double energy() const {
    double s = length() - rest;
    return 0.5 * k * s * s;
  }
};

static double spring_energy(const Spring *s) { return s->energy(); }

int main() {
  double ends[2] = {0.5, 2.0}, dends[2] = {0, 0};
  Spring s{40.0, 1.0, ends}, ds{0, 0, dends};
  __enzyme_autodiff<void>((void *)spring_energy, enzyme_dup, &s, &ds);
  double stretch = 1.5 - 1.0;
  int bad = 0;
  bad |= !(std::fabs(ds.k - 0.5 * stretch * stretch) <= 1e-12);
  bad |= !(std::fabs(ds.rest + 40.0 * stretch) <= 1e-12);
  bad |= !(std::fabs(dends[1] - 40.0 * stretch) <= 1e-12) || !(std::fabs(dends[0] + 40.0 * stretch) <= 1e-12);
  double tends[2] = {0, 1};
  Spring ts{0, 0, tends};
  double t = __enzyme_fwddiff<double>((void *)spring_energy, enzyme_dup, &s, &ts);
  bad |= !(std::fabs(t - dends[1]) <= 1e-12);
  if (bad) {
    std::printf("FAIL: dk %g drest %g dends %g %g forward %g\n", ds.k, ds.rest, dends[0], dends[1], t);
    return 1;
  }
  std::printf("cxx_member: 5 checks passed\n");
  return 0;
}
