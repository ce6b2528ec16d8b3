// rr_floor: the kernel's floor for zcperf -t rr on loopback, for bench/floor.sh: one SIZE-byte message
// each way per transaction, for SECONDS, initiator on TX_CPU and responder on RX_CPU. MODE tcp: send()
// and recv(MSG_WAITALL) with TCP_NODELAY on both sides (as zcperf); udp: send() and recv() on connected
// sockets. No timing per transaction, no histogram: the clock is read once per transaction for the end
// (zcperf reads it twice, for the round trip). Where it differs: UDP's end is a zero-length datagram and
// a flag the threads share, not zcperf's end marker exchange; no sequence header (1-byte messages carry
// none in zcperf either).
// Usage: rr_floor tcp|udp SECONDS SIZE TX_CPU RX_CPU   (floor.h's line; ops: transactions)
#include "floor.h"

#include <netinet/tcp.h>
#include <sys/time.h>

static int udp;

static void* initiator(void* arg) {
    struct floor_side* s = arg;
    char* buf = floor_buffer(floor_size);
    double deadline = floor_begin(s);
    while (floor_now() < deadline) {
        s->calls += 2;
        if (send(floor_fds[0], buf, floor_size, MSG_NOSIGNAL) != (ssize_t)floor_size) floor_die("send");
        ssize_t r = recv(floor_fds[0], buf, floor_size, udp ? 0 : MSG_WAITALL);
        if (r < 0 && errno == EAGAIN) continue;  // UDP: a lost request or answer (the 500 ms wait ran out)
        if (r != (ssize_t)floor_size) floor_die("recv");
        ++s->ops;
    }
    atomic_store(&floor_stop, 1);
    ++s->calls;
    if (udp) send(floor_fds[0], buf, 0, MSG_NOSIGNAL);  // a zero-length datagram: the end
    else shutdown(floor_fds[0], SHUT_WR);
    floor_end(s);
    return NULL;
}

static void* responder(void* arg) {
    struct floor_side* s = arg;
    char* buf = floor_buffer(floor_size);
    floor_begin(s);
    for (;;) {
        ++s->calls;
        ssize_t r = recv(floor_fds[1], buf, floor_size, udp ? 0 : MSG_WAITALL);
        if (r == 0) break;
        if (r < 0) {
            if (errno != EAGAIN && errno != EINTR) floor_die("recv");
            if (atomic_load(&floor_stop)) break;  // UDP: the end datagram was lost
            continue;
        }
        s->bytes += (unsigned long)r;
        ++s->calls;
        if (send(floor_fds[1], buf, (size_t)r, MSG_NOSIGNAL) < 0) floor_die("send");
    }
    floor_end(s);
    return NULL;
}

int main(int argc, char** argv) {
    struct floor_side tx = {.loop = initiator}, rx = {.loop = responder};
    floor_args(argc, argv, "tcp|udp", &tx, &rx);
    udp = !strcmp(floor_mode, "udp");
    if (!udp && strcmp(floor_mode, "tcp")) {
        fprintf(stderr, "%s: MODE is tcp or udp\n", argv[0]);
        return 2;
    }
    floor_pair(udp ? SOCK_DGRAM : SOCK_STREAM, floor_fds);
    int one = 1;
    struct timeval wait = {0, 500000}, tick = {0, 100000};  // zcperf's: the initiator's 500 ms, the responder's tick
    if (!udp && (setsockopt(floor_fds[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
                 setsockopt(floor_fds[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))))
        floor_die("TCP_NODELAY");
    if (udp && (setsockopt(floor_fds[0], SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait)) ||
                setsockopt(floor_fds[1], SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof(tick))))
        floor_die("SO_RCVTIMEO");
    floor_run(&tx, &rx, &tx);
    return 0;
}
