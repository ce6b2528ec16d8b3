// stream_floor: the kernel's floor for zcperf's TCP stream paths on loopback, for bench/floor.sh. The
// least a sender and a receiver can do to move SIZE-byte calls for SECONDS: no per-call timing, no stop
// rule, no counters but the ones printed (floor.h). MODE is SENDER,RECEIVER:
//   senders:   send (send()), sendfile (from a memfd filled once, as -T tcp-sendfile), msgzc (send with
//              MSG_ZEROCOPY from a ring of clamp(8 MiB / SIZE, 2, 64) buffers; a buffer is reused only
//              once its completion came, and the error queue is read when over half of them are in flight,
//              as -T tcp-msgzc must)
//   receivers: recv (into one SIZE buffer), trunc (recv(MSG_TRUNC), nothing copied), zerocopy
//              (TCP_ZEROCOPY_RECEIVE into a SIZE mapping, the bytes it cannot map copied with recv)
// As zcperf's defaults: the receiver wakes at 256 KiB queued (SO_RCVLOWAT), socket buffers are left to
// autotuning. Where the floor differs: the zerocopy receiver learns of the end from poll's POLLRDHUP
// rather than zcperf's recv(MSG_PEEK) (one call less per wait; zcperf's way is as cheap where data waits).
// Usage: stream_floor SENDER,RECEIVER SECONDS SIZE TX_CPU RX_CPU   (prints floor.h's line; ops: calls
// that returned data)
#include "floor.h"

#include <linux/errqueue.h>
#include <linux/tcp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/sendfile.h>


static void* send_copy(void* arg) {
    struct floor_side* s = arg;
    char* buf = floor_buffer(floor_size);
    double deadline = floor_begin(s);
    while (floor_now() < deadline) {
        ++s->calls;
        if (send(floor_fds[0], buf, floor_size, MSG_NOSIGNAL) < 0 && errno != EINTR) floor_die("send");
    }
    shutdown(floor_fds[0], SHUT_WR);
    floor_end(s);
    return NULL;
}

static void* send_file(void* arg) {
    struct floor_side* s = arg;
    int file = memfd_create("stream_floor", 0);
    char chunk[65536];
    memset(chunk, 'a', sizeof(chunk));
    for (size_t done = 0; done < floor_size; done += sizeof(chunk))
        if (pwrite(file, chunk, sizeof(chunk), (off_t)done) < 0) floor_die("pwrite");
    double deadline = floor_begin(s);
    while (floor_now() < deadline) {
        off_t offset = 0;
        ++s->calls;
        if (sendfile(floor_fds[0], file, &offset, floor_size) < 0 && errno != EINTR) floor_die("sendfile");
    }
    shutdown(floor_fds[0], SHUT_WR);
    floor_end(s);
    return NULL;
}

// MSG_ZEROCOPY's ring: a slot is busy from its send until a completion covers its id.
enum { max_slots = 64 };
static unsigned char busy[max_slots];
static unsigned slots, in_flight;

// Reads every completion queued now, after waiting up to wait_ms for one (0: do not wait).
static void reap(struct floor_side* s, int wait_ms) {
    if (wait_ms > 0) {
        struct pollfd p = {floor_fds[0], 0, 0};
        ++s->calls;
        if (poll(&p, 1, wait_ms) <= 0) return;
    }
    for (;;) {
        char control[128];
        struct msghdr m = {.msg_control = control, .msg_controllen = sizeof(control)};
        ++s->calls;
        if (recvmsg(floor_fds[0], &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) return;
        for (struct cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
            struct sock_extended_err* e = (struct sock_extended_err*)CMSG_DATA(c);
            if (e->ee_origin != SO_EE_ORIGIN_ZEROCOPY) continue;
            for (unsigned id = e->ee_info; id != e->ee_data + 1; ++id)
                if (busy[id % slots]) busy[id % slots] = 0, --in_flight;
        }
    }
}

static void* send_msgzc(void* arg) {
    struct floor_side* s = arg;
    size_t n = (8u << 20) / floor_size;
    slots = n < 2 ? 2 : n > max_slots ? max_slots : (unsigned)n;
    size_t stride = (floor_size + 4095) / 4096 * 4096;
    char* ring = floor_buffer(stride * slots);
    int one = 1;
    if (setsockopt(floor_fds[0], SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) floor_die("SO_ZEROCOPY");
    double deadline = floor_begin(s);
    for (unsigned id = 0; floor_now() < deadline;) {
        unsigned slot = id % slots;
        while (busy[slot]) reap(s, 1000);
        ++s->calls;
        if (send(floor_fds[0], ring + slot * stride, floor_size, MSG_ZEROCOPY | MSG_NOSIGNAL) < 0) {
            if (errno == ENOBUFS) reap(s, 10);
            else if (errno != EINTR) floor_die("send(MSG_ZEROCOPY)");
            continue;
        }
        busy[slot] = 1, ++in_flight, ++id;
        if (in_flight > slots / 2) reap(s, 0);
    }
    for (int tries = 0; in_flight > 0 && tries < 50; ++tries) reap(s, 100);
    shutdown(floor_fds[0], SHUT_WR);
    floor_end(s);
    return NULL;
}

static void* recv_copy(void* arg) {
    struct floor_side* s = arg;
    int trunc = strcmp(floor_receiver, "trunc") == 0;
    char* buf = trunc ? NULL : floor_buffer(floor_size);
    floor_begin(s);
    for (;;) {
        ++s->calls;
        ssize_t r = recv(floor_fds[1], buf, floor_size, trunc ? MSG_TRUNC : 0);
        if (r == 0) break;
        if (r < 0 && errno != EINTR) floor_die("recv");
        if (r > 0) s->bytes += (unsigned long)r, ++s->ops;
    }
    floor_end(s);
    return NULL;
}

static void* recv_zerocopy(void* arg) {
    struct floor_side* s = arg;
    size_t window = (floor_size + 4095) / 4096 * 4096;
    void* map = mmap(NULL, window, PROT_READ, MAP_SHARED, floor_fds[1], 0);
    if (map == MAP_FAILED) floor_die("mmap of the socket");
    size_t copy_len = window < (1u << 20) ? window : (1u << 20);
    char* copy = floor_buffer(copy_len);
    int ended = 0;
    floor_begin(s);
    for (;;) {
        struct tcp_zerocopy_receive zc = {.address = (uintptr_t)map, .length = (unsigned)window};
        socklen_t len = sizeof(zc);
        ++s->calls;
        if (getsockopt(floor_fds[1], IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &zc, &len) != 0) {
            if (errno != EIO && errno != EINTR) floor_die("TCP_ZEROCOPY_RECEIVE");
            zc.length = 0, zc.recv_skip_hint = 0;  // some kernels answer EIO at the end
        }
        if (zc.length > 0) s->bytes += zc.length, ++s->ops;
        if (zc.recv_skip_hint > 0) {
            ++s->calls;
            size_t want = zc.recv_skip_hint < copy_len ? zc.recv_skip_hint : copy_len;
            ssize_t r = recv(floor_fds[1], copy, want, MSG_DONTWAIT);
            if (r > 0) s->bytes += (unsigned long)r, ++s->ops;
        } else if (zc.length == 0) {
            if (ended) break;
            struct pollfd p = {floor_fds[1], POLLIN | POLLRDHUP, 0};
            ++s->calls;
            if (poll(&p, 1, 10000) <= 0) floor_die("poll (stalled)");
            ended = (p.revents & (POLLRDHUP | POLLHUP)) != 0;  // what is still queued is taken first
        }
    }
    floor_end(s);
    return NULL;
}

int main(int argc, char** argv) {
    struct floor_side tx = {0}, rx = {0};
    floor_args(argc, argv, "SENDER,RECEIVER: send|sendfile|msgzc , recv|trunc|zerocopy", &tx, &rx);
    tx.loop = !strcmp(floor_sender, "send") ? send_copy : !strcmp(floor_sender, "sendfile") ? send_file
              : !strcmp(floor_sender, "msgzc")                                       ? send_msgzc
                                                                               : NULL;
    rx.loop = !strcmp(floor_receiver, "recv") || !strcmp(floor_receiver, "trunc") ? recv_copy
              : !strcmp(floor_receiver, "zerocopy")                         ? recv_zerocopy
                                                                      : NULL;
    if (!tx.loop || !rx.loop) {
        fprintf(stderr, "%s: unknown sender or receiver in %s\n", argv[0], floor_mode);
        return 2;
    }
    floor_pair(SOCK_STREAM, floor_fds);
    int lowat = 256 << 10;  // zcperf's default --rcvlowat
    if (setsockopt(floor_fds[1], SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat))) floor_die("SO_RCVLOWAT");
    floor_run(&tx, &rx, &rx);
    return 0;
}
