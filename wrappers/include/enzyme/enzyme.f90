! The `enzyme` Fortran module of enzyme-rs: Enzyme's activity markers.
!
! Fortran cannot declare C's variadic entry points, so each program declares
! the ones it calls with a `bind(C)` interface whose name starts with the
! entry point's (the engine matches any name containing `__enzyme_autodiff`
! or `__enzyme_fwddiff`), for example:
!
!   interface
!     real(c_double) function dsquare(f, x) bind(C, name="__enzyme_autodiff_square")
!       import :: c_double, c_funptr
!       type(c_funptr), value :: f
!       real(c_double), value :: x
!     end function
!   end interface
!   ... dsquare(c_funloc(square), 3.0d0)
!
! Arguments passed by reference (arrays, scalars without `value`) are
! pointers: each is followed by its shadow, as `enzyme_dup` does in C. For a
! procedure with assumed-shape or allocatable dummies, declare the
! interface's arrays the same way (`real(c_double) :: x(:), dx(:)`): the
! descriptors of the array and of its shadow are passed.
! Pass a marker before an argument to say otherwise, e.g. `enzyme_const`.
! Build with enzyme-fortran, which finds this module without -I.
module enzyme
  use iso_c_binding, only: c_int
  implicit none
  integer(c_int), bind(C, name="enzyme_dup") :: enzyme_dup
  integer(c_int), bind(C, name="enzyme_dupnoneed") :: enzyme_dupnoneed
  integer(c_int), bind(C, name="enzyme_out") :: enzyme_out
  integer(c_int), bind(C, name="enzyme_const") :: enzyme_const
end module enzyme
