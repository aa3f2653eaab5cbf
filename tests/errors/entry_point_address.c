// expect: the address of `__enzyme_autodiff` is stored in the global `gradient`
// expect: call `__enzyme_autodiff(...)` directly
double __enzyme_autodiff(void *, ...);
double square(double x) { return x * x; }

/* a call through a pointer cannot be recognised as a request for a derivative */
double (*gradient)(void *, ...) = __enzyme_autodiff;

int main(void) { return gradient((void *)square, 3.0) == 6.0 ? 0 : 1; }
