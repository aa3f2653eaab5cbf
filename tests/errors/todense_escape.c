// expect: the pointer from `__enzyme_todense` is stored to memory
// expect: todense_escape.c:26
// expect: `__enzyme_todense` was called at todense_escape.c:25
/* A pointer from __enzyme_todense that escapes into memory: its loads and
 * stores could no longer all be found and routed to the functions, so the
 * build stops instead of leaving accesses of a pointer that is not one. */
#include <stdint.h>
extern double *__enzyme_todense(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

static double load(int64_t offset, int64_t i) { return offset / 8 == i; }
static void store(double v, int64_t offset, int64_t i) { (void)v, (void)offset, (void)i; }

double *volatile kept;

static double f(double *x) {
  double s = 0;
  for (int i = 0; i < 4; i++) s += x[i] * x[i];
  return s;
}

int main(void) {
  double x[4] = {1, 2, 3, 4};
  double *d = __enzyme_todense((void *)load, (void *)store, (int64_t)1);
  kept = d;
  return (int)__enzyme_fwddiff((void *)f, enzyme_dup, x, d);
}
