/* A particle system stepped in place: an array of structs updated every
 * step (positions, velocities, a per-particle drag read from an int-indexed
 * table), walls bouncing velocities by sign flips. */
#include "check.h"

typedef struct {
  double x, v;
  int kind;
} particle;

static const double drag[2] = {0.1, 0.3};

void __enzyme_autodiff_v(void *, ...);

static double simulate(particle *p, int n) {
  for (int step = 0; step < 40; step++)
    for (int i = 0; i < n; i++) {
      p[i].v -= drag[p[i].kind] * p[i].v * 0.05 + 0.05 * p[i].x;
      p[i].x += 0.05 * p[i].v;
      if (p[i].x > 1.0 || p[i].x < -1.0) p[i].v = -p[i].v;
    }
  double e = 0;
  for (int i = 0; i < n; i++) e += p[i].x * p[i].x + 0.5 * p[i].v * p[i].v;
  return e;
}

int main(void) {
  enum { N = 3 };
  particle init[N] = {{0.2, 0.5, 0}, {-0.4, 1.2, 1}, {0.7, -0.3, 0}};
  particle p[N], dp[N];
  for (int i = 0; i < N; i++) p[i] = init[i], dp[i] = (particle){0, 0, 0};
  __enzyme_autodiff_v((void *)simulate, enzyme_dup, p, dp, N);
  for (int i = 0; i < N; i++) {
    double h = 1e-6;
    particle q[N];
    for (int k = 0; k < N; k++) q[k] = init[k];
    q[i].x += h;
    double ep = simulate(q, N);
    for (int k = 0; k < N; k++) q[k] = init[k];
    q[i].x -= h;
    double em = simulate(q, N);
    CHECK("d energy / d x0", dp[i].x, (ep - em) / (2 * h), TOL_FD);
  }
  return CHECK_DONE();
}
