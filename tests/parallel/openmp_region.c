/* A `max` reduction in reverse mode: refused (the threads' combinations
 * would have to be reversed in the reverse of their order). Sums are
 * differentiated, see openmp_reverse.c. */
double __enzyme_autodiff(void *, ...);

static double largest(const double *x, int n) {
  double m = -1e300;
#pragma omp parallel for reduction(max : m)
  for (int i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  return m;
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0};
  __enzyme_autodiff((void *)largest, x, dx, 4);
  return (int)dx[0];
}
