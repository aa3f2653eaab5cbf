// expect: through a pointer that is made from an integer
#include <stdint.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

void via_integer(double *x, uintptr_t offset) {
  double *p = (double *)((uintptr_t)x + offset);
  *p = *p * *p;
}

int main(int argc, char **argv) {
  double x[2] = {1, 2}, dx[2] = {0, 1};
  (void)argv;
  __enzyme_autodiff((void *)via_integer, enzyme_dup, x, dx, (uintptr_t)(argc * 8));
  return 0;
}
