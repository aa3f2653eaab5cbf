// expect: cannot differentiate `realloc` of a block whose contents are not plain floats or integers
// expect: realloc_pointers.c:11
#include <stdlib.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

double sum_rows(const double *x, int n) {
  const double **rows = malloc(sizeof(double *));
  double s = 0;
  for (int i = 0; i < n; i++) {
    rows = realloc(rows, (i + 1) * sizeof(double *)); /* a block of pointers */
    rows[i] = x + i;
    s += *rows[i] * *rows[i];
  }
  free(rows);
  return s;
}

int main(int argc, char **argv) {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  (void)argv;
  __enzyme_autodiff((void *)sum_rows, enzyme_dup, x, dx, argc + 2);
  return 0;
}
