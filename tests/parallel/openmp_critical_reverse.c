/* A `critical` section in reverse mode: refused (the sections' reverses
 * would have to run in the reverse of the order the threads entered them;
 * a sum is better written as a reduction, which is differentiated). */
void __enzyme_autodiff(void *, ...);

static void accumulate(const double *x, double *total, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    double v = x[i] * x[i];
#pragma omp critical
    *total = *total * 0.5 + v;
  }
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0}, t = 0, dt = 1;
  __enzyme_autodiff((void *)accumulate, x, dx, &t, &dt, 4);
  return (int)dx[0];
}
