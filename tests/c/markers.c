/* Activity markers: enzyme_out, enzyme_const, enzyme_dup, enzyme_dupnoneed,
 * an explicit seed for the result, integer arguments, and the header. */
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>

typedef struct {
  double a, b;
} pair;
pair __enzyme_autodiff_pair(void *, ...);

static double f(double x, int n, double y) { return pow(x, n) * y + y * y; }

static int failures;
static void check(const char *what, double got, double want) {
  if (!(fabs(got - want) <= 1e-12 * (1 + fabs(want)))) {
    printf("FAIL %s: got %.17g want %.17g\n", what, got, want);
    failures++;
  }
}

int main(void) {
  double x = 1.2, y = -0.7;
  int n = 3;
  double dfdx = n * pow(x, n - 1) * y, dfdy = pow(x, n) + 2 * y;
  pair both = __enzyme_autodiff_pair((void *)f, enzyme_out, x, enzyme_const, n, enzyme_out, y);
  check("both active: d/dx", both.a, dfdx);
  check("both active: d/dy", both.b, dfdy);
  check("x const", __enzyme_autodiff((void *)f, enzyme_const, x, n, y), dfdy);
  check("y const", __enzyme_autodiff((void *)f, x, n, enzyme_const, y), dfdx);
  check("explicit seed 2.5", __enzyme_autodiff((void *)f, x, n, enzyme_const, y, 2.5), 2.5 * dfdx);
  check("forward dup x", __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0, n, enzyme_const, y), dfdx);
  check("forward dupnoneed y", __enzyme_fwddiff((void *)f, enzyme_const, x, n, enzyme_dupnoneed, y, 1.0), dfdy);
  check("forward both, direction (1, 2)", __enzyme_fwddiff((void *)f, x, 1.0, n, y, 2.0), dfdx + 2 * dfdy);
  if (failures)
    return 1;
  printf("markers: 8 checks passed\n");
  return 0;
}
