/* A `lastprivate` double in a `parallel for` (with a `firstprivate` factor),
 * both modes: the thread that ran the last iteration copies its value out,
 * so only the last x carries a derivative. Closed forms, at any number of
 * threads, -O0 and -O2. */
#include <math.h>
#include <stdio.h>
#include <omp.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
enum { N = 37 };
static double last_value(const double *x, double a, int n) {
  double t = 0;
#pragma omp parallel for lastprivate(t) firstprivate(a)
  for (int i = 0; i < n; i++) t = sin(x[i]) * x[i] * a;
  return t * 2 + t * t;
}
int main(void) {
  double x[N], dx[N] = {0}, tx[N];
  for (int i = 0; i < N; i++) x[i] = 0.1 * i + 0.05, tx[i] = cos(i);
  double da = __enzyme_autodiff((void *)last_value, enzyme_dup, x, dx, 1.3, enzyme_const, N);
  double t = sin(x[N - 1]) * x[N - 1] * 1.3, g = 2 + 2 * t;
  int bad = 0;
  for (int i = 0; i < N; i++) {
    double want = i == N - 1 ? g * 1.3 * (cos(x[i]) * x[i] + sin(x[i])) : 0;
    if (fabs(dx[i] - want) > 1e-12 * (1 + fabs(want))) { bad++; printf("FAIL dx[%d] %g want %g\n", i, dx[i], want); }
  }
  double wa = g * sin(x[N - 1]) * x[N - 1];
  if (fabs(da - wa) > 1e-12 * (1 + fabs(wa))) { bad++; printf("FAIL da %g want %g\n", da, wa); }
  double ty = __enzyme_fwddiff((void *)last_value, enzyme_dup, x, tx, enzyme_dup, 1.3, 0.5, enzyme_const, N);
  double wt = g * (1.3 * (cos(x[N - 1]) * x[N - 1] + sin(x[N - 1])) * tx[N - 1] + sin(x[N - 1]) * x[N - 1] * 0.5);
  if (fabs(ty - wt) > 1e-12 * (1 + fabs(wt))) { bad++; printf("FAIL forward %g want %g\n", ty, wt); }
  printf("lastprivate: %d failures (%d threads)\n", bad, omp_get_max_threads());
  return bad != 0;
}
