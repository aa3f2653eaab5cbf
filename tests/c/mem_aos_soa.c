/* Particles as an array of structs and as a struct of arrays: the same
 * energy, the same gradient. */
#include "check.h"

typedef struct {
  double x, y, m;
  int kind;
} particle;

typedef struct {
  double *x, *y, *m;
  int n;
} particles;

void __enzyme_autodiff_v(void *, ...);

static double energy_aos(const particle *p, int n) {
  double e = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double dx = p[i].x - p[j].x, dy = p[i].y - p[j].y;
      e += p[i].m * p[j].m / sqrt(dx * dx + dy * dy + 0.1) * (p[i].kind == p[j].kind ? 1.0 : -1.0);
    }
  return e;
}

static double energy_soa(const particles *s) {
  double e = 0;
  for (int i = 0; i < s->n; i++)
    for (int j = i + 1; j < s->n; j++) {
      double dx = s->x[i] - s->x[j], dy = s->y[i] - s->y[j];
      e += s->m[i] * s->m[j] / sqrt(dx * dx + dy * dy + 0.1) * ((i % 2) == (j % 2) ? 1.0 : -1.0);
    }
  return e;
}

int main(void) {
  enum { N = 4 };
  particle p[N] = {{0, 0, 1, 0}, {1, 0.5, 2, 1}, {-0.5, 1, 0.5, 0}, {0.3, -1, 1.5, 1}}, dp[N] = {{0}};
  __enzyme_autodiff_v((void *)energy_aos, enzyme_dup, p, dp, N);
  double x[N], y[N], m[N], dx[N] = {0}, dy[N] = {0}, dm[N] = {0};
  for (int i = 0; i < N; i++) x[i] = p[i].x, y[i] = p[i].y, m[i] = p[i].m;
  particles s = {x, y, m, N}, ds = {dx, dy, dm, N};
  __enzyme_autodiff_v((void *)energy_soa, enzyme_dup, &s, &ds);
  for (int i = 0; i < N; i++) {
    CHECK("aos vs soa d/dx", dp[i].x, dx[i], TOL_EXACT);
    CHECK("aos vs soa d/dy", dp[i].y, dy[i], TOL_EXACT);
    CHECK("aos vs soa d/dm", dp[i].m, dm[i], TOL_EXACT);
  }
  double h = 1e-6, e0 = energy_aos(p, N);
  p[1].x += h;
  double e1 = energy_aos(p, N);
  p[1].x -= 2 * h;
  double e2 = energy_aos(p, N);
  p[1].x += h;
  (void)e0;
  CHECK("aos finite difference d/dx1", (e1 - e2) / (2 * h), dp[1].x, TOL_FD);
  return CHECK_DONE();
}
