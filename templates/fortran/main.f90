! enzyme-rs Fortran template: the derivative of a function, in both modes,
! checked against a central finite difference. `make test`.
module model
  use iso_c_binding
  implicit none
contains
  function f(x) bind(C) result(y)
    real(c_double), value :: x
    real(c_double) :: y
    y = sin(x) * exp(-0.1d0 * x) + x**3
  end function
end module model

program demo
  use iso_c_binding
  use enzyme
  use model
  implicit none
  interface
    real(c_double) function df(fp, x) bind(C, name="__enzyme_autodiff_f")
      import :: c_double, c_funptr
      type(c_funptr), value :: fp
      real(c_double), value :: x
    end function
    real(c_double) function tf(fp, x, dx) bind(C, name="__enzyme_fwddiff_f")
      import :: c_double, c_funptr
      type(c_funptr), value :: fp
      real(c_double), value :: x, dx
    end function
  end interface
  real(c_double) :: x, g, t, fd, err
  x = 0.7d0
  g = df(c_funloc(f), x)
  t = tf(c_funloc(f), x, 1.0d0)
  fd = (f(x + 1d-6) - f(x - 1d-6)) / 2d-6
  err = max(abs(g - fd), abs(t - g))
  print '(a, f14.10, a, f14.10, a, f14.10)', "reverse ", g, "  forward ", t, "  finite difference ", fd
  if (err > 1d-6) then
    print '(a)', "MISMATCH"
    stop 1
  end if
  print '(a)', "OK"
end program demo
