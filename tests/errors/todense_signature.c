// expect: the load function `load` given to `__enzyme_todense` does not take the arguments the call gives
// expect: todense_signature.c:17
// expect: T load(int64_t offset, args...)
/* The functions given to __enzyme_todense take the offset and then the
 * call's extra arguments: a load function missing one is refused where
 * the call is, not called with arguments it does not take. */
#include <stdint.h>
extern double *__enzyme_todense(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

static double load(int64_t offset) { return offset == 0; }
static void store(double v, int64_t offset, int64_t i) { (void)v, (void)offset, (void)i; }
static double f(double *x) { return x[0] * x[1]; }

int main(void) {
  double x[2] = {1, 2}, *d = __enzyme_todense((void *)load, (void *)store, (int64_t)1);
  return (int)__enzyme_fwddiff((void *)f, enzyme_dup, x, d);
}
