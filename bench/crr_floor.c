// crr_floor: the kernel's floor for a connection per transaction on this machine, for bench/crr.sh.
// The least a TCP_CRR client and server can do: the client connects, sends SIZE bytes, reads SIZE back
// and closes with SO_LINGER {1,0} (as zcperf's default, so neither side keeps TIME_WAIT); the server
// accepts, reads, answers, waits for the close and closes. No timing per transaction, no histogram, no
// timeouts: what zcperf -t crr adds to this is its own cost. cpu_s: both processes' CPU (getrusage:
// the client's own, the server's once reaped), to set against zcperf's data threads' (process SD).
// Usage: crr_floor SECONDS SIZE CLIENT_CPU SERVER_CPU   (prints "transactions N seconds S cpu_s C")
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) perror("sched_setaffinity");
}

static double cpu_s(int who) {
    struct rusage u;
    getrusage(who, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s SECONDS SIZE CLIENT_CPU SERVER_CPU\n", argv[0]);
        return 2;
    }
    double seconds = atof(argv[1]);
    size_t size = (size_t)atol(argv[2]);
    char* buf = calloc(1, size + 1);
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    if (bind(l, (struct sockaddr*)&a, sizeof(a)) || listen(l, SOMAXCONN) || getsockname(l, (struct sockaddr*)&a, &len)) {
        perror("listen");
        return 1;
    }
    pid_t server = fork();
    if (server == 0) {
        pin(atoi(argv[4]));
        for (;;) {
            int c = accept(l, NULL, NULL);
            if (c < 0) continue;
            if (recv(c, buf, size, MSG_WAITALL) == (ssize_t)size) {
                send(c, buf, size, MSG_NOSIGNAL);
                while (recv(c, buf, 1, 0) > 0) {
                }
            }
            close(c);
        }
    }
    pin(atoi(argv[3]));
    struct linger lg = {1, 0};
    unsigned long n = 0;
    double start = now(), end = start + seconds, t = start;
    while (t < end) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
        if (connect(s, (struct sockaddr*)&a, sizeof(a)) != 0 || send(s, buf, size, MSG_NOSIGNAL) != (ssize_t)size ||
            recv(s, buf, size, MSG_WAITALL) != (ssize_t)size) {
            perror("transaction");
            kill(server, SIGKILL);
            return 1;
        }
        close(s);
        ++n;
        t = now();
    }
    kill(server, SIGKILL);
    waitpid(server, NULL, 0);
    printf("transactions %lu seconds %.6f cpu_s %.6f\n", n, t - start, cpu_s(RUSAGE_SELF) + cpu_s(RUSAGE_CHILDREN));
    return 0;
}
