/* enzyme_byref, bytes: a parameter taken by value, given by address (and
 * its tangent or shadow by address too): forward mode reads the tangent
 * there; reverse mode returns an active value's adjoint, or adds a
 * duplicated one's into its shadow. */
#include "check.h"

extern int enzyme_byref;
typedef struct {
  double dx, dn;
} two;
two __enzyme_autodiff_two(void *, ...);

__attribute__((noinline)) double f(double x, double y, int n) {
  double s = 0;
  for (int i = 1; i <= n; i++)
    s += sin(x * i) * y / i;
  return s * y;
}

static double f_x(double x) { return f(x, 0.7, 4); }

int main(void) {
  double x = 0.9, y = 0.7;
  int n = 4;
  double want_x = 0, want_y = 0;
  for (int i = 1; i <= n; i++)
    want_x += cos(x * i) * y * y, want_y += 2 * sin(x * i) * y / i;

  /* Forward: value and tangent by address; the integer by address too. */
  double dx = 1.0, dy = 0.0;
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, enzyme_byref, sizeof(double), &x, &dx, y, 0.0, enzyme_const,
                              enzyme_byref, sizeof(int), &n);
  CHECK("forward, x by address", t, want_x, 1e-12);
  double t2 = __enzyme_fwddiff((void *)f, x, 0.0, enzyme_byref, sizeof(double), enzyme_dup, &y, &dy, enzyme_const,
                               n);
  CHECK("forward, y by address, zero tangent", t2, 0.0, 0);
  dy = 1.0;
  t2 = __enzyme_fwddiff((void *)f, x, 0.0, enzyme_dup, enzyme_byref, sizeof(double), &y, &dy, enzyme_const, n);
  CHECK("forward, y by address", t2, want_y, 1e-12);

  /* Reverse: an active value by address (its adjoint returned) and a
   * duplicated one (its adjoint added into the shadow). */
  double ybar = 1.0;
  double gx = __enzyme_autodiff((void *)f, enzyme_out, enzyme_byref, sizeof(double), &x, enzyme_dup, enzyme_byref,
                                sizeof(double), &y, &ybar, enzyme_const, n);
  CHECK("reverse, x by address: adjoint returned", gx, want_x, 1e-12);
  CHECK("reverse, y by address: adjoint added into its shadow", ybar, 1.0 + want_y, 1e-12);
  CHECK("finite difference", central_diff(f_x, x), want_x, 1e-6);
  return CHECK_DONE();
}
