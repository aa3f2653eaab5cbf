/* Enzyme's gradient log: a program that defines
 * `void enzymeLogGrad(const char *id, double grad)` gets a call of it for
 * each differentiated operation in reverse mode, with the adjoint of the
 * operation's result (issue 39, item 1: it was never called, and nothing
 * said so). Checked: the number of calls, the adjoints logged against
 * closed forms, and the gradient itself. */
#include <string.h>
#include "check.h"

static int calls;
static double logged_sin, logged_mul;

void enzymeLogGrad(const char *id, double grad) {
  calls++;
  if (strstr(id, ":sin:"))
    logged_sin += grad;
  if (strstr(id, ":fmul:"))
    logged_mul += grad;
}

/* Three operations: x * y, sin of it, + x. */
static double f(double x, double y) { return sin(x * y) + x; }

int main(void) {
  double x = 0.5, y = 2.0;
  double d = __enzyme_autodiff((void *)f, x, enzyme_const, y);
  CHECK("gradient with the log defined", d, y * cos(x * y) + 1, TOL_EXACT);
  CHECK("one call per differentiated operation", calls, 3, 0);
  /* The seed reaches sin's result unchanged; x * y's adjoint is cos(x y). */
  CHECK("adjoint logged for sin", logged_sin, 1.0, TOL_EXACT);
  CHECK("adjoint logged for the product", logged_mul, cos(x * y), TOL_EXACT);
  /* Forward mode has no gradient to log. */
  calls = 0;
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0, enzyme_const, y);
  CHECK("forward mode vs reverse", t, d, TOL_MODES);
  CHECK("no log calls in forward mode", calls, 0, 0);
  return CHECK_DONE();
}
