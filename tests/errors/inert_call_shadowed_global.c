// A call handing over only integers runs as it is, unless the function it
// calls writes a global that has a shadow: then it is differentiated (its
// store zeroes the global's derivative), and what it cannot differentiate
// (here an atomic counter) is refused, not skipped.
// expect: cannot differentiate atomic memory operation
// expect: inert_call_shadowed_global.c:16
#include <enzyme/enzyme.h>
#include <stdatomic.h>
#include <stdio.h>

double state;
static atomic_long calls;

__attribute__((noinline)) static long reset(long k) {
  state = 0.0;
  return atomic_fetch_add(&calls, 1) + k;
}

static double f(double x) {
  state = x * x;
  long t = reset(1);
  return (state + x) * (double)(t > 0);
}

int main(void) {
  printf("%f\n", __enzyme_autodiff((void *)f, 2.0));
  return 0;
}
