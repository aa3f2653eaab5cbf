// expect: Enzyme annotation `enzyme_shadow` on `position` is not supported yet
// expect: unsupported_annotation.c:8
/* Enzyme's attributes that the engine does not implement yet stop the
 * build (the plugin lowers them to annotations the engine reads). */
double __enzyme_autodiff(void *, ...);

double dposition;
double position __attribute__((enzyme_shadow(dposition)));
static double f(double x) { return x * position; }
int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
