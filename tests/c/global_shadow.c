/* enzyme_shadow(dg) on a global g: the user's global dg is g's shadow.
 * Reverse mode adds the derivative with respect to g into dg (the engine
 * neither makes nor zeroes a shadow of its own); forward mode reads g's
 * tangent from dg. Checked against closed forms. */
#include "check.h"

extern double dscale;
double scale __attribute__((enzyme_shadow(dscale))) = 2.0;
double dscale = 0.0;

static double f(double x) {
  double s = 0;
  for (int k = 1; k <= 3; k++) s += scale * sin(k * x);
  return s;
}

int main(void) {
  for (double x = 0.3; x < 2; x += 0.6) {
    double sum_sin = sin(x) + sin(2 * x) + sin(3 * x), sum_cos = cos(x) + 2 * cos(2 * x) + 3 * cos(3 * x);
    dscale = 0.5; /* accumulated into, not cleared */
    double dx = __enzyme_autodiff((void *)f, x);
    CHECK("reverse: d/dx", dx, scale * sum_cos, TOL_EXACT);
    CHECK("reverse: d/dscale added into the user's shadow", dscale, 0.5 + sum_sin, TOL_EXACT);
    dscale = 1.0; /* the tangent of scale */
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, 0.0);
    CHECK("forward: tangent along scale", t, sum_sin, TOL_EXACT);
    dscale = 0.0;
    double tx = __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0);
    CHECK("forward: tangent along x vs reverse", tx, dx, TOL_MODES);
  }
  return CHECK_DONE();
}
