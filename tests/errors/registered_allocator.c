// expect: `__enzyme_allocation_like` registers a custom allocation function for `pool_alloc`, which is not supported yet
// expect: registered_allocator.c:11
/* Enzyme's allocation_like registration: not implemented yet, so a build
 * error rather than a derivative that ignores it. */
#include <stdlib.h>
double __enzyme_autodiff(void *, ...);

static void *pool_alloc(size_t n) { return malloc(n); }
static void pool_free(void *p) { free(p); }

void *__enzyme_allocation_like[4] = {(void *)pool_alloc, (void *)0, (void *)"-1",
                                     (void *)pool_free};

static double f(double x) {
  double *t = pool_alloc(sizeof(double));
  *t = x * x;
  double r = *t;
  pool_free(t);
  return r;
}

int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
