/* Explicit Euler and RK4 over many steps with the state updated in place:
 * every step overwrites the values the reverse sweep needs. */
#include "jacobian.h"

static const int STEPS = 2000;
static const double H = 0.005;

/* damped pendulum: theta' = omega, omega' = -sin(theta) - 0.1 omega */
static void rhs(const double *s, double *ds) {
  ds[0] = s[1];
  ds[1] = -sin(s[0]) - 0.1 * s[1];
}

static void euler(const double *x, double *y) {
  double s[2] = {x[0], x[1]}, d[2];
  for (int k = 0; k < STEPS; k++) {
    rhs(s, d);
    s[0] += H * d[0];
    s[1] += H * d[1];
  }
  y[0] = s[0];
  y[1] = s[1];
}

static void rk4(const double *x, double *y) {
  double s[2] = {x[0], x[1]};
  double k1[2], k2[2], k3[2], k4[2], t[2];
  for (int k = 0; k < STEPS / 4; k++) {
    rhs(s, k1);
    for (int i = 0; i < 2; i++) t[i] = s[i] + 0.5 * H * k1[i];
    rhs(t, k2);
    for (int i = 0; i < 2; i++) t[i] = s[i] + 0.5 * H * k2[i];
    rhs(t, k3);
    for (int i = 0; i < 2; i++) t[i] = s[i] + H * k3[i];
    rhs(t, k4);
    for (int i = 0; i < 2; i++) s[i] += H / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  y[0] = s[0];
  y[1] = s[1];
}

int main(void) {
  CHECK_JACOBIAN(euler, 2, 2, 1.0, 0.2);
  CHECK_JACOBIAN(rk4, 2, 2, 1.0, 0.2);
  return CHECK_DONE();
}
