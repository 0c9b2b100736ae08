#include <mpi.h>
#include <stdio.h>
int main(int c, char **v){ MPI_Init(&c,&v); int r,n; MPI_Comm_rank(MPI_COMM_WORLD,&r); MPI_Comm_size(MPI_COMM_WORLD,&n);
char buf[1000]={0}; for(int i=0;i<3;i++){ MPI_Sendrecv(buf,100*(r+1),MPI_CHAR,(r+1)%n,0,buf,1000,MPI_CHAR,(r+n-1)%n,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE);} 
MPI_Barrier(MPI_COMM_WORLD); MPI_Allreduce(MPI_IN_PLACE,buf,10,MPI_INT,MPI_SUM,MPI_COMM_WORLD); MPI_Finalize(); return 0;}
