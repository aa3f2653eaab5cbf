/* An OpenMP program built and linked through enzyme-cc: a parallel loop
 * outside the differentiated code, and a derivative of a serial function
 * taken inside a parallel region (one per thread). */
#include <math.h>
#include <omp.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

static double f(double x) { return sin(x) * x * x; }

int main(void) {
  enum { N = 64 };
  double grad[N], sum = 0;
  int threads = 0;
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < N; i++) {
    double x = 0.05 * i;
    grad[i] = __enzyme_autodiff((void *)f, x);
    sum += x;
  }
#pragma omp parallel
  {
#pragma omp single
    threads = omp_get_num_threads();
  }
  int failures = 0;
  for (int i = 0; i < N; i++) {
    double x = 0.05 * i, want = cos(x) * x * x + 2 * x * sin(x);
    if (fabs(grad[i] - want) > 1e-12 * (1 + fabs(want))) failures++;
  }
  if (fabs(sum - 0.05 * N * (N - 1) / 2) > 1e-9) failures++;
  printf("openmp: %d threads, %d failures\n", threads, failures);
  return failures != 0;
}
