// expect: Enzyme annotation `enzyme_shouldrecompute` on `accumulate` is not supported yet
// expect: unsupported_annotation.c:7
/* Enzyme's annotations that the engine does not implement yet stop the
 * build. */
double __enzyme_autodiff(void *, ...);

__attribute__((annotate("enzyme_shouldrecompute"))) static void accumulate(double *p, double v) { *p += v; }
static double f(double x) {
  double s = 0;
  accumulate(&s, x * x);
  return s;
}
int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
