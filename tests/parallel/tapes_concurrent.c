/* Gradients taken by many threads at once (an OpenMP loop over problems of
 * different sizes): their tapes start at sizes other threads left in the
 * shared hints, and take and give buffers of the one pool of kept tapes
 * concurrently. Every element against the closed form. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

static double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += sin(x[i]) * exp(0.01 * x[i]);
  return s;
}

int main(void) {
  int bad = 0, checks = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : bad, checks)
  for (int t = 0; t < 64; t++) {
    int n = 1000 + 7000 * (t % 9);
    double *x = malloc(n * sizeof *x), *d = calloc(n, sizeof *d);
    for (int i = 0; i < n; i++) x[i] = 0.001 * i + t;
    __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, n);
    for (int i = 0; i < n; i++) {
      double want = exp(0.01 * x[i]) * (cos(x[i]) + 0.01 * sin(x[i]));
      bad += fabs(d[i] - want) > 1e-12 * (1 + fabs(want));
      checks++;
    }
    free(x), free(d);
  }
  printf("concurrent gradients: %d elements, %d wrong\n", checks, bad);
  return bad != 0;
}
