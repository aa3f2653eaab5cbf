/* Long time integrations of mechanical systems: velocity Verlet for a
 * pendulum (10^4 steps), symplectic Euler for Lotka-Volterra, and a damped
 * spring chain updated in place. Derivatives with respect to initial
 * conditions and parameters. */
#include "jacobian.h"

static void pendulum(const double *x, double *y) {
  double th = x[0], w = x[1];
  const double g = x[2], dt = 1e-3;
  double a = -g * sin(th);
  for (int i = 0; i < 10000; i++) {
    th += dt * w + 0.5 * dt * dt * a;
    double an = -g * sin(th);
    w += 0.5 * dt * (a + an);
    a = an;
  }
  y[0] = th;
  y[1] = w;
}

static void lotka_volterra(const double *x, double *y) {
  double u = x[0], v = x[1];
  const double alpha = x[2], dt = 0.002;
  for (int i = 0; i < 5000; i++) {
    u += dt * u * (alpha - v);
    v += dt * v * (u - 1.0);
  }
  y[0] = u;
  y[1] = v;
}

#define K 6
static void spring_chain(const double *x, double *y) {
  double p[K], v[K] = {0};
  for (int i = 0; i < K; i++) p[i] = i + (i == 0 ? x[0] : 0);
  const double k = x[1], c = 0.05, dt = 0.01;
  for (int t = 0; t < 2000; t++) {
    for (int i = 0; i < K; i++) {
      double f = -c * v[i];
      if (i > 0) f -= k * (p[i] - p[i - 1] - 1);
      if (i < K - 1) f += k * (p[i + 1] - p[i] - 1);
      v[i] += dt * f;
    }
    for (int i = 0; i < K; i++) p[i] += dt * v[i];
  }
  y[0] = p[K - 1];
  y[1] = v[2];
}

int main(void) {
  CHECK_JACOBIAN(pendulum, 3, 2, 0.4, 0.1, 9.81);
  CHECK_JACOBIAN(lotka_volterra, 3, 2, 1.2, 0.8, 1.1);
  CHECK_JACOBIAN(spring_chain, 2, 2, 0.3, 2.0);
  return CHECK_DONE();
}
