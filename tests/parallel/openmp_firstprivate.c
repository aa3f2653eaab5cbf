/* A double passed by value into a parallel region (clang passes its bits
 * as an integer): its tangent would be lost, so it is refused. */
extern int enzyme_const;
void __enzyme_fwddiff(void *, ...);

static void shift(const double *x, double *y, int n, double c) {
#pragma omp parallel for firstprivate(c)
  for (int i = 0; i < n; i++) y[i] = c * x[i];
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0}, y[4], dy[4];
  __enzyme_fwddiff((void *)shift, x, dx, y, dy, enzyme_const, 4, 2.0, 1.0);
  return (int)dy[0];
}
