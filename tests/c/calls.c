/* Calls to other functions of the program, differentiated in turn. */
#include "check.h"

static double sq(double x) { return x * x; }
static double cube(double x) { return sq(x) * x; }
__attribute__((noinline)) static double poly(double x, double a) { return cube(x) - a * sq(x) + a; }
static double outer(double x) { return poly(sin(x), 2.0) + poly(x, x); }

int main(void) {
  double x = 0.7;
  /* d/dx [s^3 - 2 s^2 + 2] with s = sin x, plus d/dx [x^3 - x^3 + x] = 1 */
  double s = sin(x);
  CHECK_UNARY(outer, x, (3 * s * s - 4 * s) * cos(x) + 1.0);
  CHECK_UNARY(cube, x, 3 * x * x);
  CHECK_BINARY(poly, x, 1.5, 3 * x * x - 3 * x, 1 - x * x);
  return CHECK_DONE();
}
