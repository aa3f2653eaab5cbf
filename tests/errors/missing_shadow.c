// expect: missing the shadow (tangent) of parameter
// expect: missing_shadow.c:9
extern int enzyme_dup;
double __enzyme_fwddiff(void *, ...);
double sq(double x) { return x * x; }

int main(void) {
  double x = 2.0;
  return (int)__enzyme_fwddiff((void *)sq, enzyme_dup, x);
}
