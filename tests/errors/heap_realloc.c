// expect: cannot differentiate call to external function `realloc` in `grow_and_sum`
// expect: heap_realloc.c:9
#include <stdlib.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

double grow_and_sum(const double *x, int n) {
  double *tmp = malloc(sizeof(double));
  tmp = realloc(tmp, n * sizeof(double)); /* realloc: not supported yet */
  for (int i = 0; i < n; i++) tmp[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++) s += tmp[i];
  free(tmp);
  return s;
}

int main(int argc, char **argv) {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  (void)argv;
  __enzyme_autodiff((void *)grow_and_sum, enzyme_dup, x, dx, argc + 2);
  return 0;
}
