// expect: `__enzyme_fwddiff` call is missing the shadow (tangent) of lane 2 of parameter #2 of `mul`
// expect: vector_missing_lane.c:11
/* Width 3 needs three tangents per duplicated argument. */
extern int enzyme_width, enzyme_dup;
typedef struct { double a, b, c; } three;
three __enzyme_fwddiff(void *, ...);
static double mul(double x, double y) { return x * y; }

int main(void) {
  three t =
      __enzyme_fwddiff((void *)mul, enzyme_width, 3, enzyme_dup, 3.0, 1.0, 0.0, 0.0, enzyme_dup, 2.0, 0.0, 1.0);
  return t.a > 0;
}
