// expect: `sign` returns `i32`, which has no derivative
double __enzyme_fwddiff(void *, ...);
int sign(double x) { return x > 0 ? 1 : -1; }

int main(void) { return (int)__enzyme_fwddiff((void *)sign, 2.0, 1.0); }
