/* fpext, fptrunc, sitofp, fptosi: derivatives flow through float width
 * changes and stop at integer conversions. */
#include "check.h"

static double widen(double x) {
  float f = (float)x;       /* fptrunc */
  float g = f * f;          /* float arithmetic */
  return (double)g * x;     /* fpext */
}

static double through_int(double x) {
  int k = (int)(x * 4.0);   /* fptosi: piecewise constant, derivative 0 */
  return x * (double)k;     /* sitofp */
}

static double unsigned_round_trip(double x) {
  unsigned u = (unsigned)(x * 10.0);
  return (double)u + x * x;
}

int main(void) {
  double x = 1.33; /* away from the jumps of the integer conversions */
  double r = __enzyme_autodiff((void *)widen, x);
  double t = __enzyme_fwddiff((void *)widen, x, 1.0);
  CHECK("widen reverse", r, 3 * x * x, TOL_FLOAT);
  CHECK("widen forward vs reverse", t, r, TOL_FLOAT);
  CHECK_UNARY(through_int, x, 5.0);
  CHECK_UNARY(unsigned_round_trip, x, 2 * x);
  return CHECK_DONE();
}
