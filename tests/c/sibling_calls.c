/* A program that computes sin(x) and cos(x) (or sinh and cosh) of the same x
 * gives each partial from the other call instead of calling again: before
 * and after each other in a block, in a loop, in float, and where the sibling
 * is in another block (not reused). Gradients against the closed forms,
 * forward mode against reverse. */
#include "check.h"

static double rotate(const double *x) { /* sin and cos of one angle, then of another */
  double c = cos(x[0]), s = sin(x[0]);
  double s2 = sin(x[1]), c2 = cos(x[1]);
  return c * x[2] + s * x[3] + s2 * c2 * x[2];
}
static double waves(const double *x, int n) { /* per iteration */
  double t = 0;
  for (int i = 0; i < n; i++) t += sin(x[i]) * x[(i + 1) % n] + cos(x[i]) * cos(x[i]);
  return t;
}
static float wavesf(const float *x, int n) {
  float t = 0;
  for (int i = 0; i < n; i++) t += sinf(x[i]) * cosf(x[i]);
  return t;
}
static double hyper(const double *x) { return sinh(x[0]) * cosh(x[0]) + cosh(x[1]); }
static double apart(const double *x) { /* sin in one branch, cos after it: different blocks */
  double s = x[1] > 0 ? sin(x[0]) : 0;
  return s + cos(x[0]) * x[1];
}

int main(void) {
  double x[4] = {0.7, -1.3, 0.4, 2.1}, d[4], t[4] = {0.3, -0.2, 0.9, 0.5};
  for (int k = 0; k < 4; k++) d[k] = 0;
  __enzyme_autodiff((void *)rotate, enzyme_dup, x, d);
  CHECK("rotate d/dx0", d[0], -sin(x[0]) * x[2] + cos(x[0]) * x[3], TOL_EXACT);
  CHECK("rotate d/dx1", d[1], cos(2 * x[1]) * x[2], TOL_EXACT);
  CHECK("rotate d/dx2", d[2], cos(x[0]) + sin(x[1]) * cos(x[1]), TOL_EXACT);
  CHECK("rotate d/dx3", d[3], sin(x[0]), TOL_EXACT);
  double dot = d[0] * t[0] + d[1] * t[1] + d[2] * t[2] + d[3] * t[3];
  CHECK("rotate forward against reverse", __enzyme_fwddiff((void *)rotate, enzyme_dup, x, t), dot, TOL_MODES);

  enum { N = 9 };
  double y[N], dy[N], ty[N];
  for (int i = 0; i < N; i++) y[i] = 0.3 * i - 1, dy[i] = 0, ty[i] = cos(1.1 * i);
  __enzyme_autodiff((void *)waves, enzyme_dup, y, dy, enzyme_const, N);
  dot = 0;
  for (int i = 0; i < N; i++) {
    double want = cos(y[i]) * y[(i + 1) % N] + sin(y[(i + N - 1) % N]) - 2 * cos(y[i]) * sin(y[i]);
    CHECK("waves gradient", dy[i], want, TOL_EXACT);
    dot += dy[i] * ty[i];
  }
  CHECK("waves forward against reverse", __enzyme_fwddiff((void *)waves, enzyme_dup, y, ty, enzyme_const, N), dot,
        TOL_MODES);

  float z[N], dz[N];
  for (int i = 0; i < N; i++) z[i] = 0.2f * i - 0.5f, dz[i] = 0;
  __enzyme_autodiff((void *)wavesf, enzyme_dup, z, dz, enzyme_const, N);
  for (int i = 0; i < N; i++) CHECK("wavesf gradient", dz[i], cos(2.0 * z[i]), TOL_FLOAT);

  for (int k = 0; k < 4; k++) d[k] = 0;
  __enzyme_autodiff((void *)hyper, enzyme_dup, x, d);
  CHECK("hyper d/dx0", d[0], cosh(2 * x[0]), TOL_EXACT);
  CHECK("hyper d/dx1", d[1], sinh(x[1]), TOL_EXACT);
  dot = d[0] * t[0] + d[1] * t[1];
  CHECK("hyper forward against reverse", __enzyme_fwddiff((void *)hyper, enzyme_dup, x, t), dot, TOL_MODES);

  for (int s = -1; s <= 1; s += 2) {
    double w[2] = {0.8, 0.6 * s}, dw[2] = {0, 0}, tw[2] = {0.4, -0.7};
    __enzyme_autodiff((void *)apart, enzyme_dup, w, dw);
    CHECK("apart d/dx0", dw[0], (w[1] > 0 ? cos(w[0]) : 0) - sin(w[0]) * w[1], TOL_EXACT);
    CHECK("apart d/dx1", dw[1], cos(w[0]), TOL_EXACT);
    CHECK("apart forward against reverse", __enzyme_fwddiff((void *)apart, enzyme_dup, w, tw),
          dw[0] * tw[0] + dw[1] * tw[1], TOL_MODES);
  }
  return CHECK_DONE();
}
