/* smc_preload.c: run an unchanged TCP program over SMC, as smc-tools' smc_run does (LD_PRELOAD).
 *
 * Every socket(AF_INET or AF_INET6, SOCK_STREAM, 0 or IPPROTO_TCP) the program opens becomes
 * socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC or SMCPROTO_SMC6); everything else is left alone. The
 * kernel then tries SMC on connect and accept and falls back to TCP by itself when the peer, the device
 * or the configuration does not allow it (scripts/lab/smc.py diag and stats say which happened).
 * Where AF_SMC is missing (no smc module) the socket stays TCP, as smc_run's does.
 *
 *   cc -O2 -shared -fPIC -o smc_preload.so bench/smc_preload.c -ldl
 *   LD_PRELOAD=$PWD/smc_preload.so iperf3 -c HOST
 *
 * bench/smc_peers.sh builds and uses it; SMC_RUN=/path/to/smc_run there uses smc-tools' instead.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#define SMCPROTO_SMC 0  /* SMC over IPv4 (include/uapi/linux/smc.h is not in every libc) */
#define SMCPROTO_SMC6 1 /* SMC over IPv6 */

int socket(int domain, int type, int protocol)
{
    static int (*real_socket)(int, int, int);
    if (!real_socket)
        real_socket = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
    /* The type may carry SOCK_NONBLOCK and SOCK_CLOEXEC: compare the base type only. */
    int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
    if ((domain == AF_INET || domain == AF_INET6) && base == SOCK_STREAM &&
        (protocol == 0 || protocol == IPPROTO_TCP)) {
        int saved = errno;
        int fd = real_socket(AF_SMC, type, domain == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
        if (fd >= 0)
            return fd;
        errno = saved; /* no AF_SMC here: a TCP socket, as asked */
    }
    return real_socket(domain, type, protocol);
}
