/* Library code, compiled separately and archived. */
#include <math.h>
#include "physics.h"

double spring_energy(double k, double x) { return 0.5 * k * x * x; }

double pendulum_height(double length, double theta) { return length * (1.0 - cos(theta)); }

double total_energy(double x, double theta) {
  return spring_energy(40.0, x) + 9.81 * 2.0 * pendulum_height(0.8, theta);
}
