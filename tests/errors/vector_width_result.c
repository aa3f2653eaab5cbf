// expect: `__enzyme_fwddiff` call is declared to return `double`, which cannot hold 2 tangents of the result
// expect: vector_width_result.c:9
/* Two lanes' tangents do not fit a double. */
extern int enzyme_width;
double __enzyme_fwddiff(void *, ...);
static double sq(double x) { return x * x; }

int main(void) {
  double d = __enzyme_fwddiff((void *)sq, enzyme_width, 2, 3.0, 1.0, 2.0);
  return d > 0;
}
