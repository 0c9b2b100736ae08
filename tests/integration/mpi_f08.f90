! mpi_f08.f90: the Fortran 2008 bindings (`use mpi_f08`), for
! profiler_patterns.sh.  Per iteration each rank sends N integers to
! rank+1 with MPI_Send and one with MPI_Isend, then MPI_Barrier.
! Arguments: ITERS N.
program mpi_f08_test
  use mpi_f08
  implicit none
  integer :: rank, nranks, i, iters, n
  integer, allocatable :: buf(:), rbuf(:)
  type(MPI_Request) :: rq, sq
  character(len=32) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call get_command_argument(1, arg)
  read (arg, *) iters
  call get_command_argument(2, arg)
  read (arg, *) n
  allocate (buf(n), rbuf(n))
  buf = rank
  do i = 1, iters
    call MPI_Irecv(rbuf, n, MPI_INTEGER, mod(rank + nranks - 1, nranks), 1, &
                   MPI_COMM_WORLD, rq)
    call MPI_Send(buf, n, MPI_INTEGER, mod(rank + 1, nranks), 1, MPI_COMM_WORLD)
    call MPI_Wait(rq, MPI_STATUS_IGNORE)
    call MPI_Irecv(rbuf, n, MPI_INTEGER, mod(rank + nranks - 1, nranks), 2, &
                   MPI_COMM_WORLD, rq)
    call MPI_Isend(buf, n, MPI_INTEGER, mod(rank + 1, nranks), 2, &
                   MPI_COMM_WORLD, sq)
    call MPI_Wait(sq, MPI_STATUS_IGNORE)
    call MPI_Wait(rq, MPI_STATUS_IGNORE)
    call MPI_Barrier(MPI_COMM_WORLD)
  end do
  deallocate (buf, rbuf)
  call MPI_Finalize()
end program mpi_f08_test
