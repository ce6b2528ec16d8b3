// flows_floor: the kernel's floor for many TCP flows per thread on loopback, for bench/flows.sh. THREADS
// sender threads and THREADS receiver threads, each with FLOWS connections of its own; FLOWS = 1 is a
// blocking send()/recv() loop whose receivers wake at 256 KiB queued (SO_RCVLOWAT: what -P THREADS
// does by default), FLOWS > 1 one level-triggered epoll per thread with one send() or recv() of SIZE
// bytes per ready flow per wake-up (a flow's turn) and the kernel's wake-ups (as --flows). No per-flow
// counts, no timeouts, no pinning (as flows.sh runs zcperf): what zcperf --flows adds is its own cost.
// cpu_s: the loops' CPU (getrusage of the process across the run: all its threads).
// Usage: flows_floor SECONDS SIZE FLOWS THREADS   (prints "bytes N seconds S gbps G cpu_s C")
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static size_t size;
static int flows;
static atomic_int stop;
static atomic_ulong received;

struct side {
    int* fds;
    int send;
};

static double cpu_s(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void* loop(void* arg) {
    struct side* s = arg;
    char* buf = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
    unsigned long got = 0;
    if (flows == 1) {
        while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
            ssize_t r = s->send ? send(s->fds[0], buf, size, MSG_NOSIGNAL) : recv(s->fds[0], buf, size, 0);
            if (r <= 0) break;
            if (!s->send && !atomic_load_explicit(&stop, memory_order_relaxed)) got += (unsigned long)r;
        }
    } else {
        int ep = epoll_create1(0);
        for (int i = 0; i < flows; ++i) {
            struct epoll_event e = {.events = s->send ? EPOLLOUT : EPOLLIN, .data.u32 = (unsigned)i};
            epoll_ctl(ep, EPOLL_CTL_ADD, s->fds[i], &e);
        }
        struct epoll_event ev[1024];
        while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
            int n = epoll_wait(ep, ev, 1024, 100);
            for (int k = 0; k < n; ++k) {
                int fd = s->fds[ev[k].data.u32];
                ssize_t r = s->send ? send(fd, buf, size, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, buf, size, MSG_DONTWAIT);
                if (r > 0 && !s->send) got += (unsigned long)r;  // a wake-up's worth past the end at most
            }
        }
    }
    atomic_fetch_add(&received, got);
    return NULL;
}

int main(int argc, char** argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s SECONDS SIZE FLOWS THREADS\n", argv[0]);
        return 2;
    }
    double seconds = atof(argv[1]);
    size = (size_t)atol(argv[2]);
    flows = atoi(argv[3]);
    int threads = atoi(argv[4]);
    if (seconds <= 0 || size == 0 || flows < 1 || threads < 1) return 2;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    if (bind(l, (struct sockaddr*)&a, sizeof(a)) || listen(l, SOMAXCONN) || getsockname(l, (struct sockaddr*)&a, &len)) {
        perror("listen");
        return 1;
    }
    struct side* sides = calloc(2 * (size_t)threads, sizeof(*sides));
    for (int t = 0; t < threads; ++t) {
        sides[2 * t] = (struct side){calloc((size_t)flows, sizeof(int)), 1};
        sides[2 * t + 1] = (struct side){calloc((size_t)flows, sizeof(int)), 0};
        for (int i = 0; i < flows; ++i) {
            int c = socket(AF_INET, SOCK_STREAM, 0);
            if (connect(c, (struct sockaddr*)&a, sizeof(a)) != 0) {
                perror("connect");
                return 1;
            }
            sides[2 * t].fds[i] = c;
            sides[2 * t + 1].fds[i] = accept(l, NULL, NULL);
            int lowat = 256 << 10;
            if (flows == 1) setsockopt(sides[2 * t + 1].fds[i], SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat));
        }
    }
    pthread_t* th = calloc(2 * (size_t)threads, sizeof(*th));
    double cpu0 = cpu_s(), start = now();
    for (int i = 0; i < 2 * threads; ++i) pthread_create(&th[i], NULL, loop, &sides[i]);
    struct timespec d = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    nanosleep(&d, NULL);
    atomic_store(&stop, 1);
    double end = now();
    // Blocking senders and receivers wake at the flows' end.
    for (int t = 0; t < threads; ++t)
        for (int i = 0; i < flows; ++i) shutdown(sides[2 * t].fds[i], SHUT_RDWR);
    for (int i = 0; i < 2 * threads; ++i) pthread_join(th[i], NULL);
    unsigned long b = atomic_load(&received);
    printf("bytes %lu seconds %.6f gbps %.3f cpu_s %.6f\n", b, end - start, b * 8 / (end - start) / 1e9, cpu_s() - cpu0);
    return 0;
}
