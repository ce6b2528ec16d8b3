// floor.h: what bench/'s kernel-floor loops share (stream_floor.c, udp_floor.c, rr_floor.c): pinning,
// CPU time, the clock, a loopback pair of sockets and the two-thread run that prints one line. Header-
// only (static functions): each floor is one C file built with cc by the bench script (lib.sh's
// build_floor) or by CMake (bench/CMakeLists.txt) for the call-count test.
// A floor's line: "bytes B seconds S ops N calls_tx T calls_rx R cpu_s C cpu_tx_s X cpu_rx_s Y user_tx_s U user_rx_s V"
//   bytes: what its receiver counted; ops: messages received (stream), datagrams (UDP), transactions (rr);
//   calls_*: each side's system calls in its loop (counted by the loop, every call, failed ones too);
//   cpu_*, user_*: getrusage(RUSAGE_THREAD) of each side's thread across its loop, all and in user mode.
#ifndef ZCPERF_BENCH_FLOOR_H
#define ZCPERF_BENCH_FLOOR_H
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void floor_die(const char* what) {
    fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void floor_pin(int cpu) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) floor_die("sched_setaffinity");  // this thread only
}

// This thread's CPU seconds, and in *user those of them in user mode.
static double floor_thread_cpu_s(double* user) {
    struct rusage u;
    getrusage(RUSAGE_THREAD, &u);
    *user = u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6;
    return *user + u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
}

static double floor_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// A connected pair on 127.0.0.1 of TYPE (SOCK_STREAM or SOCK_DGRAM): fds[0] the client's (CPU tx),
// fds[1] the server's. TCP: through a listener, as zcperf's data connection is; UDP: both connected.
static void floor_pair(int type, int fds[2]) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    int s = socket(AF_INET, type, 0);
    if (s < 0 || bind(s, (struct sockaddr*)&a, sizeof(a)) || getsockname(s, (struct sockaddr*)&a, &len))
        floor_die("bind");
    int c = socket(AF_INET, type, 0);
    if (type == SOCK_STREAM) {
        if (listen(s, 1) || connect(c, (struct sockaddr*)&a, sizeof(a))) floor_die("connect");
        fds[1] = accept(s, NULL, NULL);
        if (fds[1] < 0) floor_die("accept");
        close(s);
    } else {
        struct sockaddr_in b = a;
        if (connect(c, (struct sockaddr*)&a, sizeof(a)) || getsockname(c, (struct sockaddr*)&b, &len) ||
            connect(s, (struct sockaddr*)&b, sizeof(b)))
            floor_die("connect");
        fds[1] = s;
    }
    fds[0] = c;
}

// One side's loop and what it counted; floor_run starts both, each on its CPU.
struct floor_side {
    void* (*loop)(void*);
    int cpu;
    unsigned long calls, ops, bytes;
    double cpu_s, user_s, start, end;  // its thread's CPU (user's part); when its loop started and stopped counting
};

static double floor_seconds;  // the sender's (initiator's) run
// The sender is done: a receiver that cannot see the end otherwise stops (UDP, and rr's responder).
static atomic_int floor_stop __attribute__((unused));
static pthread_barrier_t floor_ready;

// Called first by every loop: pins the thread, starts both sides together; returns the sender's deadline.
static double floor_begin(struct floor_side* s) {
    floor_pin(s->cpu);
    pthread_barrier_wait(&floor_ready);
    s->start = floor_now();
    return s->start + floor_seconds;
}
// Called last: the thread's CPU, and the end of its count unless the loop marked it earlier.
static void floor_end(struct floor_side* s) {
    s->cpu_s = floor_thread_cpu_s(&s->user_s);
    if (s->end == 0) s->end = floor_now();
}

// Runs tx and rx at once and prints the floor's line: the receiver's bytes, and the seconds and ops of
// the side whose count is the result (the receiver's for a stream, the initiator's for rr).
static void floor_run(struct floor_side* tx, struct floor_side* rx, const struct floor_side* counted) {
    pthread_t t[2];
    pthread_barrier_init(&floor_ready, NULL, 2);
    if (pthread_create(&t[0], NULL, tx->loop, tx) || pthread_create(&t[1], NULL, rx->loop, rx))
        floor_die("pthread_create");
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    printf("bytes %lu seconds %.6f ops %lu calls_tx %lu calls_rx %lu cpu_s %.6f cpu_tx_s %.6f cpu_rx_s %.6f "
           "user_tx_s %.6f user_rx_s %.6f\n",
           rx->bytes, counted->end - counted->start, counted->ops, tx->calls, rx->calls, tx->cpu_s + rx->cpu_s,
           tx->cpu_s, rx->cpu_s, tx->user_s, rx->user_s);
}

// The floors' common arguments: MODE SECONDS SIZE TX_CPU RX_CPU (a CPU of -1: not pinned); a MODE of
// SENDER,RECEIVER is split into floor_sender and floor_receiver.
static const char* floor_mode;
static char floor_sender[16], floor_receiver[16];
static size_t floor_size;
static int floor_fds[2];  // floor_pair's: [0] the sender's (initiator's), [1] the receiver's (responder's)
static void floor_args(int argc, char** argv, const char* modes, struct floor_side* tx, struct floor_side* rx) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s MODE SECONDS SIZE TX_CPU RX_CPU\n  MODE: %s\n", argv[0], modes);
        exit(2);
    }
    floor_mode = argv[1];
    floor_seconds = atof(argv[2]);
    floor_size = (size_t)atol(argv[3]);
    tx->cpu = atoi(argv[4]);
    rx->cpu = atoi(argv[5]);
    if (floor_seconds <= 0 || floor_size == 0) {
        fprintf(stderr, "%s: SECONDS and SIZE must be positive\n", argv[0]);
        exit(2);
    }
    if (sscanf(floor_mode, "%15[^,],%15s", floor_sender, floor_receiver) != 2) floor_receiver[0] = 0;
}

// SIZE bytes (rounded up to whole pages, page-aligned) filled with 'a': a send buffer or a landing one.
static char* floor_buffer(size_t size) {
    size_t bytes = (size + 4095) / 4096 * 4096;
    char* b = aligned_alloc(4096, bytes);
    if (!b) floor_die("aligned_alloc");
    memset(b, 'a', bytes);
    return b;
}

#endif
