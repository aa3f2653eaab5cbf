/* Loops in single precision: a float time stepper, a float reduction and a
 * float stencil, checked against double-precision finite differences of the
 * same code with the float tolerance. */
#include "check.h"

/* entry points declared with the result type they return here */
float __enzyme_autodiff_f(void *, ...);
float __enzyme_fwddiff_f(void *, ...);

#define N 12

static float decay(float k) {
  float u = 1.0f;
  for (int i = 0; i < 100; i++) u -= 0.01f * k * u;
  return u;
}

static float softplus_sum(const float *x, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) s += logf(1.0f + expf(x[i]));
  return s;
}

static void smooth3(float *u, int sweeps) {
  float t[N];
  for (int s = 0; s < sweeps; s++) {
    for (int i = 0; i < N; i++) t[i] = u[i];
    for (int i = 1; i < N - 1; i++) u[i] = 0.25f * t[i - 1] + 0.5f * t[i] + 0.25f * t[i + 1] * t[i + 1];
  }
}

int main(void) {
  /* d/dk of (1 - 0.01 k)^100 */
  float k = 1.5f;
  double want = -100 * 0.01 * pow(1 - 0.01 * k, 99);
  CHECK("decay reverse (float)", __enzyme_autodiff_f((void *)decay, k), want, TOL_FLOAT);
  float fwd = __enzyme_fwddiff_f((void *)decay, enzyme_dup, k, 1.0f);
  CHECK("decay forward (float)", fwd, want, TOL_FLOAT);

  float x[N], dx[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.3f * i - 1.5f;
    dx[i] = 0;
  }
  __enzyme_autodiff((void *)softplus_sum, enzyme_dup, x, dx, N);
  for (int i = 0; i < N; i++) CHECK("softplus_sum gradient (float)", dx[i], 1 / (1 + exp(-(double)x[i])), TOL_FLOAT);

  /* smooth3: reverse with seed on u[5] against forward along each input */
  float u[N], du[N], tu[N];
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++) {
      u[i] = 0.1f * i;
      du[i] = i == 5;
    }
    __enzyme_autodiff((void *)smooth3, enzyme_dup, u, du, 4);
    float rev = du[j];
    for (int i = 0; i < N; i++) {
      u[i] = 0.1f * i;
      tu[i] = i == j;
    }
    /* declared to return double, result unused: called for the shadows */
    __enzyme_fwddiff((void *)smooth3, enzyme_dup, u, tu, 4);
    CHECK("smooth3 forward vs reverse (float)", tu[5], rev, TOL_FLOAT);
    /* finite difference in double of the float program */
    float up[N], um[N];
    for (int i = 0; i < N; i++) up[i] = um[i] = 0.1f * i;
    up[j] += 1e-2f;
    um[j] -= 1e-2f;
    smooth3(up, 4);
    smooth3(um, 4);
    CHECK("smooth3 reverse vs finite difference (float)", rev, (up[5] - um[5]) / 2e-2, 2e-3);
  }
  return CHECK_DONE();
}
