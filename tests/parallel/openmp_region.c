/* Differentiating a function that contains a parallel region: refused. */
double __enzyme_autodiff(void *, ...);

static double total(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0};
  __enzyme_autodiff((void *)total, x, dx, 4);
  return (int)dx[0];
}
