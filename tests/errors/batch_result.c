// expect: `__enzyme_batch` is declared to return `double`, which cannot hold 2 results of type `double`
// expect: batch_result.c:10
/* Two lanes' results do not fit one double. */
extern int enzyme_width;
double __enzyme_batch(void *, ...);
static double sq(double x) { return x * x; }

int main(void) {
  // the call below
  double r = __enzyme_batch((void *)sq, enzyme_width, 2, 3.0, 4.0);
  return r > 0;
}
