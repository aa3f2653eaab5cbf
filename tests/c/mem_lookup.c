/* Table lookup: binary search in constant knots, linear interpolation of
 * active values (the derivative flows to the two bracketing entries). */
#include "check.h"

static const double knots[6] = {0.0, 0.5, 1.0, 2.0, 3.5, 5.0};

static double interp(const double *vals, double t) {
  int lo = 0, hi = 5;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (knots[mid] <= t) lo = mid;
    else hi = mid;
  }
  double w = (t - knots[lo]) / (knots[hi] - knots[lo]);
  return vals[lo] * (1 - w) + vals[hi] * w;
}

double __enzyme_autodiff_d(void *, ...);

int main(void) {
  double vals[6] = {1, 3, 2, 5, 4, 0}, dv[6] = {0};
  double t = 2.75;
  double dt = __enzyme_autodiff_d((void *)interp, enzyme_dup, vals, dv, t);
  double w = (t - 2.0) / 1.5;
  CHECK("weight on lower knot", dv[3], 1 - w, TOL_EXACT);
  CHECK("weight on upper knot", dv[4], w, TOL_EXACT);
  CHECK("no weight elsewhere", dv[0] + dv[1] + dv[2] + dv[5], 0.0, 0);
  CHECK("d/dt", dt, (vals[4] - vals[3]) / 1.5, TOL_EXACT);
  double tv[6] = {0};
  CHECK("forward d/dt", __enzyme_fwddiff((void *)interp, enzyme_dup, vals, tv, t, 1.0), dt, TOL_MODES);
  return CHECK_DONE();
}
