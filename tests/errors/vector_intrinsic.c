// expect: cannot differentiate call to intrinsic `llvm.x86.sse2.max.pd`
// expect: vector_intrinsic.c:11
// expect: this intrinsic has no derivative rule yet
#include <emmintrin.h>
double __enzyme_autodiff(void *, ...);

/* Vector arithmetic differentiates; a target-specific intrinsic without a
 * rule is refused at its line. */
double biggest(const double *x) {
  __m128d v = _mm_loadu_pd(x);
  __m128d m = _mm_max_pd(v, _mm_mul_pd(v, v));
  return m[0] + m[1];
}

int main(void) {
  double x[2] = {0.5, 2.0}, dx[2] = {0, 0};
  __enzyme_autodiff((void *)biggest, x, dx);
  return (int)dx[0];
}
