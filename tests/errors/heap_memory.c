// expect: cannot differentiate call to external function `malloc` in `scaled_copy`
// expect: heap_memory.c:8
#include <stdlib.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

void scaled_copy(const double *x, double *y, int n) {
  double *tmp = malloc(n * sizeof(double)); /* heap memory: not supported yet */
  for (int i = 0; i < n; i++) tmp[i] = x[i] * 2.0;
  for (int i = 0; i < n; i++) y[i] = tmp[n - 1 - i] * x[i];
  free(tmp);
}

int main(int argc, char **argv) {
  double x[2] = {1, 2}, dx[2] = {0}, y[2], dy[2] = {1, 1};
  (void)argv;
  __enzyme_autodiff((void *)scaled_copy, enzyme_dup, x, dx, enzyme_dup, y, dy, argc + 1);
  return 0;
}
