/* SSE2 intrinsics (x86-64's baseline) in loops: an axpy sweep updating an
 * array in place, a norm with square roots on two lanes, and a 2x2-block
 * matrix-vector product with unpack shuffles. Elsewhere, the same in scalars. */
#include "jacobian.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define N 6

static void axpy_sweeps(const double *x, double *y) {
  double u[N];
  for (int i = 0; i < N; i++) u[i] = x[i];
  for (int s = 0; s < 5; s++) {
#ifdef __SSE2__
    for (int i = 0; i < N; i += 2) {
      __m128d v = _mm_loadu_pd(u + i), w = _mm_loadu_pd(x + (i + 2) % N);
      v = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(0.7), v), _mm_mul_pd(w, _mm_sqrt_pd(_mm_mul_pd(v, v) + 1.0)));
      _mm_storeu_pd(u + i, v);
    }
#else
    for (int i = 0; i < N; i++) u[i] = 0.7 * u[i] + x[(i / 2 * 2 + 2) % N + i % 2] * sqrt(u[i] * u[i] + 1.0);
#endif
  }
  for (int i = 0; i < N; i++) y[i] = u[i];
}

static void block_matvec(const double *x, double *y) {
#ifdef __SSE2__
  /* [a b; c d] (x[0..3]) times v = x[4..5], three times over. */
  __m128d row0 = _mm_loadu_pd(x), row1 = _mm_loadu_pd(x + 2), v = _mm_loadu_pd(x + 4);
  for (int k = 0; k < 3; k++) {
    __m128d p0 = _mm_mul_pd(row0, v), p1 = _mm_mul_pd(row1, v);
    __m128d lo = _mm_unpacklo_pd(p0, p1), hi = _mm_unpackhi_pd(p0, p1);
    v = _mm_add_pd(lo, hi);
    v = _mm_div_pd(v, _mm_sqrt_pd(_mm_add_pd(_mm_mul_pd(v, v), _mm_set1_pd(1.0))));
  }
  _mm_storeu_pd(y, v);
#else
  double v0 = x[4], v1 = x[5];
  for (int k = 0; k < 3; k++) {
    double a = x[0] * v0 + x[1] * v1, b = x[2] * v0 + x[3] * v1;
    v0 = a / sqrt(a * a + 1);
    v1 = b / sqrt(b * b + 1);
  }
  y[0] = v0;
  y[1] = v1;
#endif
}

int main(void) {
  CHECK_JACOBIAN(axpy_sweeps, N, N, 0.3, -0.6, 0.8, 0.1, -0.2, 0.5);
  CHECK_JACOBIAN(block_matvec, N, 2, 0.3, -0.6, 0.8, 0.1, -0.2, 0.5);
  return CHECK_DONE();
}
