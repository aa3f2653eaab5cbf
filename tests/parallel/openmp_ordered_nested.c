/* A derivative whose region reverses critical sections in ticket order,
 * called from threads of the caller's own parallel region: its tickets are
 * one counter per derivative, so it stops with a message at run time
 * instead of mixing two calls' tickets. */
#include <stdio.h>
#include <omp.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
static double largest(const double *x, int n) {
  double m = -1e300;
#pragma omp parallel for reduction(max : m)
  for (int i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  return m;
}
int main(void) {
  double x[8] = {1, 5, 3, 2, 8, 4, 7, 6};
#pragma omp parallel num_threads(2)
  {
    double dx[8] = {0};
    __enzyme_autodiff((void *)largest, enzyme_dup, x, dx, enzyme_const, 8);
  }
  double dx[8] = {0};
  __enzyme_autodiff((void *)largest, enzyme_dup, x, dx, enzyme_const, 8);
  printf("%g\n", dx[4]);
  return 0;
}
