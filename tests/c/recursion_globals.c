/* Recursion reading and writing mutable globals: the globals' shadows are
 * zeroed once per derivative call, not per recursive call, so adjoints and
 * tangents carried through them survive the recursion. */
#include "check.h"

double gain = 1.5;
double trail[8];

static double rec(double x, int n) { return n == 0 ? x * gain : x * rec(x, n - 1); }

/* gain = x/2, then x^3 · x · gain = x^5 / 2 */
static double through_gain(double x) {
  gain = x * 0.5;
  return rec(x, 3);
}

/* Each level writes its value into a global array and reads the previous
 * level's entry back. */
static double record(double x, int n) {
  if (n == 0) {
    trail[0] = x;
    return x;
  }
  double below = record(x, n - 1);
  trail[n] = sin(trail[n - 1]) + below * x;
  return trail[n];
}

static double through_trail(double x) { return record(x, 5) + trail[2] * trail[3]; }

int main(void) {
  CHECK_UNARY(through_gain, 1.3, 2.5 * pow(1.3, 4));
  CHECK_UNARY(through_gain, -0.7, 2.5 * pow(-0.7, 4));
  /* no closed form worth writing: finite differences and forward against reverse */
  for (double x = -1.0; x <= 1.0; x += 0.4) {
    double h = 1e-6, fd = (through_trail(x + h) - through_trail(x - h)) / (2 * h);
    double r = __enzyme_autodiff((void *)through_trail, x);
    double t = __enzyme_fwddiff((void *)through_trail, x, 1.0);
    CHECK("global trail: reverse vs finite difference", r, fd, TOL_FD);
    CHECK("global trail: forward vs reverse", t, r, TOL_MODES);
  }
  return CHECK_DONE();
}
