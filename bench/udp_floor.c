// udp_floor: the kernel's floor for zcperf's UDP stream paths on loopback, for bench/floor.sh. A sender
// sends SIZE-byte calls for SECONDS as fast as it can, a receiver counts the bytes that arrive in that time
// (UDP drops what the receiver cannot take: the rate is the receiver's, as zcperf's is). MODE is
// SENDER,RECEIVER:
//   senders:   send (a datagram per send(), -T udp), gso (UDP_SEGMENT at the path MTU's payload, read on
//              the connected socket as zcperf reads it: IP_MTU less 28, so on loopback's 64 KiB MTU a
//              default 44 x 1472-byte call is one datagram, as it is for -T udp-gso)
//   receivers: recv (a datagram per recvmsg, --rx copy), mmsg (recvmmsg of 64, MSG_WAITFORONE, --rx mmsg),
//              gro (UDP_GRO, 64 KiB buffers, --rx gro)
// As zcperf: socket buffers at the kernel's defaults, a receive timeout of 100 ms (to see the end).
// Where the floor differs: no sequence header written or read (zcperf's measurement: loss, reordering,
// jitter), no drop count (zcperf's one getsockopt(SO_MEMINFO) after its loop), no end marker exchange
// (the threads share a flag).
// Usage: udp_floor SENDER,RECEIVER SECONDS SIZE TX_CPU RX_CPU   (floor.h's line; ops: receive calls
// that returned data)
#include "floor.h"

#include <netinet/udp.h>
#include <sys/time.h>

enum { batch = 64 };  // zcperf's recvmmsg batch (UdpReceiver::kBatch)

static void* send_loop(void* arg) {
    struct floor_side* s = arg;
    char* buf = floor_buffer(floor_size);
    if (!strcmp(floor_sender, "gso")) {
        int mtu = 0;
        socklen_t len = sizeof(mtu);
        if (getsockopt(floor_fds[0], IPPROTO_IP, IP_MTU, &mtu, &len)) floor_die("IP_MTU");
        int gso = mtu - 28;
        if (setsockopt(floor_fds[0], IPPROTO_UDP, UDP_SEGMENT, &gso, sizeof(gso))) floor_die("UDP_SEGMENT");
    }
    double deadline = floor_begin(s);
    while (floor_now() < deadline) {
        ++s->calls;
        // ECONNREFUSED: an ICMP of an earlier datagram; ENOBUFS: the device queue; both as zcperf goes on
        if (send(floor_fds[0], buf, floor_size, MSG_NOSIGNAL) < 0 && errno != ECONNREFUSED && errno != ENOBUFS &&
            errno != EINTR)
            floor_die("send");
    }
    atomic_store(&floor_stop, 1);
    floor_end(s);
    return NULL;
}

static void* recv_loop(void* arg) {
    struct floor_side* s = arg;
    int mmsg = !strcmp(floor_receiver, "mmsg"), gro = !strcmp(floor_receiver, "gro");
    size_t slot = gro ? 65536 : floor_size, n = mmsg ? batch : 1;
    char* buf = floor_buffer(slot * n);
    struct iovec iov[batch];
    struct mmsghdr msgs[batch];
    memset(msgs, 0, sizeof(msgs));
    for (size_t i = 0; i < n; ++i) {
        iov[i] = (struct iovec){buf + i * slot, slot};
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    int one = 1;
    if (gro && setsockopt(floor_fds[1], IPPROTO_UDP, UDP_GRO, &one, sizeof(one))) floor_die("UDP_GRO");
    struct timeval tick = {0, 100000};
    setsockopt(floor_fds[1], SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof(tick));
    floor_begin(s);
    for (;;) {
        int got = 1;
        ++s->calls;
        if (mmsg) {
            got = recvmmsg(floor_fds[1], msgs, batch, MSG_WAITFORONE, NULL);
        } else {
            ssize_t r = recvmsg(floor_fds[1], &msgs[0].msg_hdr, 0);
            msgs[0].msg_len = r < 0 ? 0 : (unsigned)r;
            got = r < 0 ? -1 : 1;
        }
        int stop = atomic_load_explicit(&floor_stop, memory_order_relaxed);
        if (stop && s->end == 0) s->end = floor_now();  // counts end with the sender's run
        if (got < 0) {
            if (errno != EAGAIN && errno != EINTR) floor_die("recvmsg");
            if (stop) break;
            continue;
        }
        if (stop) continue;  // drain what is queued, uncounted
        for (int i = 0; i < got; ++i) s->bytes += msgs[i].msg_len;
        ++s->ops;
    }
    floor_end(s);
    return NULL;
}

int main(int argc, char** argv) {
    struct floor_side tx = {.loop = send_loop}, rx = {.loop = recv_loop};
    floor_args(argc, argv, "SENDER,RECEIVER: send|gso , recv|mmsg|gro", &tx, &rx);
    if ((strcmp(floor_sender, "send") && strcmp(floor_sender, "gso")) ||
        (strcmp(floor_receiver, "recv") && strcmp(floor_receiver, "mmsg") && strcmp(floor_receiver, "gro"))) {
        fprintf(stderr, "%s: MODE is SENDER,RECEIVER: send|gso , recv|mmsg|gro (e.g. send,recv)\n", argv[0]);
        return 2;
    }
    if (floor_size > 65507 || (!strcmp(floor_receiver, "recv") && floor_size > 65536)) {
        fprintf(stderr, "%s: a UDP call carries 65507 bytes at most\n", argv[0]);
        return 2;
    }
    floor_pair(SOCK_DGRAM, floor_fds);
    floor_run(&tx, &rx, &rx);
    return 0;
}
