/* A shadow that is NULL at run time for a pointer that is not (issue 39,
 * item 7): the derivative would write through it and crash with nothing
 * said. Each derivative call checks its duplicated pointers first and stops
 * with the entry point's place and the argument's number. The first calls
 * (shadows given, and a NULL argument with a NULL shadow, which the
 * function never touches) run; the last must stop. */
#include <stdio.h>
#include <stdlib.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

static void f(const double *x, double *y, double *extra) {
  y[0] = x[0] * x[0];
  if (extra)
    extra[0] = x[0];
}

int main(int argc, char **argv) {
  (void)argv;
  double x = 3, dx = 0, y, dy = 1, e, de = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, &x, &dx, enzyme_dup, &y, &dy, enzyme_dup, &e, &de);
  if (dx != 6) {
    printf("wrong derivative %g\n", dx);
    return 0; /* exit 0: the test then fails */
  }
  double *none = argc > 5 ? &de : NULL;
  dy = 1;
  __enzyme_autodiff((void *)f, enzyme_dup, &x, &dx, enzyme_dup, &y, &dy, enzyme_dup, (double *)none, none);
  fflush(stdout);
  double *shadow = argc > 5 ? &dy : NULL;
  __enzyme_autodiff((void *)f, enzyme_dup, &x, &dx, enzyme_dup, &y, shadow, enzyme_dup, &e, &de);
  return 0;
}
