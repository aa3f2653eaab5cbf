// expect: more argument(s) than `sq` takes
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }

int main(void) { return (int)__enzyme_autodiff((void *)sq, 2.0, 1.0, 3.0); }
