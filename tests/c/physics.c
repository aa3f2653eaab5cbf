/* A small realistic function: projectile range with drag correction,
 * differentiated with respect to launch speed and angle. */
#include "check.h"

static double range(double v, double theta) {
  const double g = 9.81, k = 0.02;
  double vx = v * cos(theta), vy = v * sin(theta);
  double t = 2.0 * vy / g;
  double drag = exp(-k * v * t);
  return vx * t * drag;
}

int main(void) {
  double v = 12.0, th = 0.6;
  /* range = (2 v^2 / g) cos sin exp(-2 k v^2 sin / g) */
  double g = 9.81, k = 0.02, s = sin(th), c = cos(th);
  double e = exp(-2 * k * v * v * s / g);
  double dv = (4 * v / g) * c * s * e + (2 * v * v / g) * c * s * e * (-4 * k * v * s / g);
  double dth = (2 * v * v / g) * (c * c - s * s) * e + (2 * v * v / g) * c * s * e * (-2 * k * v * v * c / g);
  CHECK_BINARY(range, v, th, dv, dth);
  return CHECK_DONE();
}
