/* __enzyme_allocation_like: a pool allocator (size as its second argument)
 * registered with its deallocator; blocks it returns get shadows like
 * malloc's, allocated by the same allocator and freed by its deallocator.
 * Checked against the closed form and forward against reverse. */
#include <stdlib.h>
#include "check.h"

static int live = 0; /* blocks handed out and not yet freed */
static void *pool_alloc(int tag, size_t n) {
  (void)tag;
  live++;
  return malloc(n);
}
static void pool_free(void *p) {
  live--;
  free(p);
}
void *__enzyme_allocation_like[4] = {(void *)pool_alloc, (void *)1, (void *)"-1", (void *)pool_free};

static double f(double x) {
  double *t = pool_alloc(7, 3 * sizeof(double));
  for (int i = 0; i < 3; i++) t[i] = sin(x * (i + 1));
  double r = t[0] * t[1] + t[2] * x;
  pool_free(t);
  return r;
}

static double df(double x) {
  return cos(x) * sin(2 * x) + sin(x) * 2 * cos(2 * x) + 3 * cos(3 * x) * x + sin(3 * x);
}

int main(void) {
  for (double x = 0.2; x < 2; x += 0.5) {
    live = 0;
    CHECK_UNARY(f, x, df(x));
    CHECK("every block (shadows too) freed", live, 0, 0);
  }
  return CHECK_DONE();
}
