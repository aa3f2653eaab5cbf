/* Built with -mllvm -enzyme-runtime-activity: no marker at the call, the
 * choice between a duplicated and a constant pointer is decided at run time. */
#include <stdio.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double pick(const double *a, const double *b, int which) {
  const double *p = which ? a : b;
  return p[0] * p[1] + a[0];
}

int main(void) {
  double a[2] = {1.5, 2.5}, b[2] = {3, 4};
  double da1[2] = {0}, da0[2] = {0};
  __enzyme_autodiff((void *)pick, enzyme_dup, a, da1, enzyme_const, b, 1);
  __enzyme_autodiff((void *)pick, enzyme_dup, a, da0, enzyme_const, b, 0);
  int ok = da1[0] == 1 + a[1] && da1[1] == a[0] && da0[0] == 1 && da0[1] == 0;
  printf("%s: %g %g / %g %g\n", ok ? "ok" : "FAIL", da1[0], da1[1], da0[0], da0[1]);
  return !ok;
}
