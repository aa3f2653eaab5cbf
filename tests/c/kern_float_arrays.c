/* Single precision arrays and loops (float shadows, float tapes). */
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static float energy(const float *x, int n) {
  float e = 0;
  for (int i = 0; i < n; i++) e += sinf(x[i]) * x[i] + 0.5f * x[i] * x[i];
  return e;
}

int main(void) {
  enum { N = 6 };
  float x[N] = {0.1f, -0.5f, 1.0f, 1.5f, -2.0f, 0.75f}, dx[N] = {0};
  __enzyme_autodiff_v((void *)energy, enzyme_dup, x, dx, N);
  for (int i = 0; i < N; i++) CHECK("float gradient", dx[i], cos(x[i]) * x[i] + sin(x[i]) + x[i], TOL_FLOAT);
  return CHECK_DONE();
}
