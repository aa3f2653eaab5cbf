!mod$ v1 sum:3f158a8cd2857b93
module host_kernels
contains
subroutine smooth(n,x,s)
integer(4),value::n
real(8),intent(in)::x(1_8:int(n,kind=8))
real(8),intent(out)::s
end
end
