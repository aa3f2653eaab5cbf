/* `#pragma omp atomic write` of a double: refused (the reverse would have to
 * know which of the threads writing one place wrote last). */
#include <math.h>
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

static double last(const double *x, double *out, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    double v = sin(x[i]);
#pragma omp atomic write
    out[i % 2] = v;
  }
  return out[0] + out[1];
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0}, out[2], dout[2] = {0};
  __enzyme_autodiff((void *)last, enzyme_dup, x, dx, enzyme_dup, out, dout, enzyme_const, 4);
  return (int)dx[0];
}
