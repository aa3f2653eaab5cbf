// expect: attribute 'enzyme::checkpoint' is not implemented by enzyme-rs
// expect: unknown_attribute.c:6
/* An attribute spelled like Enzyme's that nothing implements: clang alone
 * would warn and ignore it. */
double __enzyme_autodiff(void *, ...);
[[enzyme::checkpoint]] static double f(double x) { return x * x; }
int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
