/* A few steps of a 2-D three-body integrator (pairwise forces with
 * pow(r2, -1.5)), positions and velocities updated in place. */
#include "jacobian.h"

#define B 3
static void nbody(const double *in, double *out) {
  double p[B][2], v[B][2];
  for (int i = 0; i < B; i++)
    for (int d = 0; d < 2; d++) {
      p[i][d] = in[i * 2 + d];
      v[i][d] = in[B * 2 + i * 2 + d];
    }
  const double dt = 0.01, m[B] = {1.0, 0.5, 0.25};
  for (int step = 0; step < 25; step++) {
    for (int i = 0; i < B; i++) {
      double a[2] = {0, 0};
      for (int j = 0; j < B; j++) {
        if (j == i) continue;
        double dx = p[j][0] - p[i][0], dy = p[j][1] - p[i][1];
        double r2 = dx * dx + dy * dy + 0.01;
        double f = m[j] * pow(r2, -1.5);
        a[0] += f * dx;
        a[1] += f * dy;
      }
      v[i][0] += dt * a[0];
      v[i][1] += dt * a[1];
    }
    for (int i = 0; i < B; i++)
      for (int d = 0; d < 2; d++) p[i][d] += dt * v[i][d];
  }
  out[0] = p[0][0];
  out[1] = p[1][1];
  out[2] = v[2][0];
}

int main(void) {
  CHECK_JACOBIAN(nbody, 12, 3, 0, 0, 1, 0, 0, 1, 0, 0.1, -0.1, 0, 0.2, 0.1);
  return CHECK_DONE();
}
