/* if/else, ternaries and piecewise definitions. */
#include "check.h"

static double piecewise(double x) {
  if (x < -1.0)
    return -x * x;
  else if (x < 1.0)
    return x * 3.0;
  else
    return sin(x) + 2.0 * x;
}

static double ternary(double x) { return x > 0 ? x * x : -x * 0.5; }

static double nested(double x, double y) {
  double r;
  if (x > y) {
    if (x > 2 * y)
      r = x * y;
    else
      r = x - y;
  } else {
    r = y * y;
  }
  return r * x;
}

int main(void) {
  CHECK_UNARY(piecewise, -2.0, 4.0);
  CHECK_UNARY(piecewise, 0.5, 3.0);
  CHECK_UNARY(piecewise, 1.5, cos(1.5) + 2.0);
  CHECK_UNARY(ternary, 1.5, 3.0);
  CHECK_UNARY(ternary, -1.5, -0.5);
  /* x > 2y: r = xy, f = x^2 y */
  CHECK_BINARY(nested, 3.0, 1.0, 2 * 3.0 * 1.0, 9.0);
  /* y < x <= 2y: f = x^2 - xy */
  CHECK_BINARY(nested, 1.5, 1.0, 2 * 1.5 - 1.0, -1.5);
  /* x <= y: f = x y^2 */
  CHECK_BINARY(nested, 0.5, 1.0, 1.0, 2 * 0.5 * 1.0);
  return CHECK_DONE();
}
