/* long double (x86_fp80) arithmetic and libm calls. */
#include "check.h"

static long double f(long double x) { return sinl(x) * x + expl(x / 2); }
long double __enzyme_autodiff_ld(void *, ...);
long double __enzyme_fwddiff_ld(void *, ...);

int main(void) {
  long double x = 0.75L;
  long double want = cosl(x) * x + sinl(x) + expl(x / 2) / 2;
  long double r = __enzyme_autodiff_ld((void *)f, x);
  long double t = __enzyme_fwddiff_ld((void *)f, x, 1.0L);
  CHECK("long double reverse", (double)r, (double)want, TOL_EXACT);
  CHECK("long double forward vs reverse", (double)t, (double)r, TOL_EXACT);
  return CHECK_DONE();
}
