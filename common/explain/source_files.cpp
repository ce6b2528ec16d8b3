#include "explain/source_files.hpp"

#include <zlib.h>

#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace zc {

namespace {

using C = Category;

// Path prefix -> category, for a function no name rule names. Most specific first. A file whose
// functions do kinds of work of several categories is left out (fs/, kernel/ as a whole): there the
// function falls on to the module rules, then to "other kernel", as before.
const std::vector<SourceRule>& table() {
    static const std::vector<SourceRule> rules = {
        // data copy: the iov_iter walks, x86's copy routines, hardened usercopy's checks
        {"lib/iov_iter.c", C::copy},
        {"include/linux/uio.h", C::copy},
        {"arch/x86/lib/copy_", C::copy},
        {"arch/x86/lib/memcpy", C::copy},
        {"arch/x86/lib/memmove", C::copy},
        {"arch/x86/lib/usercopy", C::copy},
        {"arch/x86/include/asm/uaccess", C::copy},
        {"mm/usercopy.c", C::copy},
        {"mm/maccess.c", C::copy},
        // checksum
        {"lib/checksum.c", C::checksum},
        {"arch/x86/lib/csum", C::checksum},
        {"include/net/checksum.h", C::checksum},
        {"lib/crc", C::checksum},
        {"arch/x86/crypto/crc", C::checksum},
        {"crypto/crc", C::checksum},
        // crypto and kTLS
        {"arch/x86/crypto/", C::crypto},
        {"crypto/", C::crypto},
        {"lib/crypto/", C::crypto},
        {"net/tls/", C::crypto},
        // zero-copy bookkeeping: io_uring's send notifications
        {"io_uring/notif.c", C::zerocopy},
        // UDP/IP before TCP/IP's net/ipv4/ and net/ipv6/
        {"net/ipv4/udp", C::udp},
        {"net/ipv6/udp", C::udp},
        {"include/net/udp", C::udp},
        {"include/linux/udp.h", C::udp},
        // netdev: GRO/GSO of the protocols, the device layer, qdiscs, drivers, DMA mapping, page_pool's
        // DMA-mapped pages (page_pool under memory: its cost is the page's)
        {"net/ipv4/tcp_offload.c", C::netdev},
        {"net/ipv6/tcpv6_offload.c", C::netdev},
        {"net/ipv6/ip6_offload.c", C::netdev},
        {"net/core/page_pool.c", C::memory},
        {"include/net/page_pool", C::memory},
        {"net/core/dev", C::netdev},  // dev.c, dev_addr_lists.c, dev_ioctl.c
        {"net/core/gro", C::netdev},
        {"net/core/netdev", C::netdev},
        {"net/core/flow_dissector.c", C::netdev},  // the flow hash RPS and XPS steer by
        {"net/core/neighbour.c", C::netdev},
        {"net/core/link_watch.c", C::netdev},
        {"net/core/xdp.c", C::netdev},
        {"net/core/net-sysfs.c", C::netdev},
        {"include/linux/netdevice.h", C::netdev},
        {"include/net/gro.h", C::netdev},
        {"net/sched/", C::netdev},
        {"net/ethernet/", C::netdev},
        {"net/bridge/", C::netdev},
        {"net/8021q/", C::netdev},
        {"drivers/net/", C::netdev},
        {"drivers/virtio/", C::netdev},
        {"kernel/dma/", C::netdev},
        // skb: the buffers themselves
        {"net/core/skbuff.c", C::skb},
        {"include/linux/skbuff.h", C::skb},
        {"net/core/skmsg.c", C::skb},
        // TCP/IP: the protocols, netfilter and conntrack on their path, the socket's protocol side
        {"net/ipv4/", C::tcp},
        {"net/ipv6/", C::tcp},
        {"net/mptcp/", C::tcp},
        {"net/smc/", C::tcp},
        {"net/netfilter/", C::tcp},
        {"net/core/sock.c", C::tcp},
        {"net/core/stream.c", C::tcp},
        {"net/core/request_sock.c", C::tcp},
        {"net/core/secure_seq.c", C::tcp},
        {"net/core/filter.c", C::tcp},  // socket filters (sk_filter_trim_cap), BPF's socket hooks
        {"net/core/dst.c", C::tcp},
        {"include/net/tcp.h", C::tcp},
        {"include/net/sock.h", C::tcp},
        {"include/net/ip.h", C::tcp},
        {"include/net/inet", C::tcp},
        {"include/linux/tcp.h", C::tcp},
        // RDMA: the providers and the verbs core
        {"drivers/infiniband/", C::rdma},
        // memory: the page and slab allocators, memory cgroups, page tables and faults, the IOMMU
        {"mm/", C::memory},
        {"drivers/iommu/", C::memory},
        {"arch/x86/mm/", C::memory},
        {"arch/x86/lib/clear_page", C::memory},
        {"include/linux/mm", C::memory},
        {"include/linux/gfp.h", C::memory},
        {"include/linux/slab.h", C::memory},
        {"include/linux/page", C::memory},
        {"include/linux/memcontrol.h", C::memory},
        // locks and RCU
        {"kernel/locking/", C::lock},
        {"kernel/rcu/", C::lock},
        {"include/linux/spinlock", C::lock},
        {"include/linux/rcu", C::lock},
        {"arch/x86/include/asm/qspinlock", C::lock},
        // scheduling, wake-ups, timers
        {"kernel/sched/", C::sched},
        {"kernel/time/", C::sched},
        {"kernel/smp.c", C::sched},
        {"kernel/workqueue.c", C::sched},
        {"kernel/kthread.c", C::sched},
        {"include/linux/sched", C::sched},
        {"include/linux/wait", C::sched},
        {"arch/x86/kernel/process", C::sched},  // __switch_to
        {"arch/x86/entry/thunk", C::sched},
        // syscall/IRQ entry: system call entry and exit, the socket layer's generic part, fd lookup,
        // interrupts and softirqs
        {"arch/x86/entry/", C::syscall},
        {"kernel/entry/", C::syscall},
        {"kernel/softirq.c", C::syscall},
        {"kernel/irq/", C::syscall},
        {"arch/x86/kernel/irq", C::syscall},
        {"arch/x86/kernel/apic/", C::syscall},
        {"net/socket.c", C::syscall},
        {"fs/file.c", C::syscall},
        {"fs/file_table.c", C::syscall},
        {"fs/read_write.c", C::syscall},
        {"fs/select.c", C::syscall},
        {"fs/eventpoll.c", C::syscall},
        {"fs/splice.c", C::syscall},
        {"io_uring/", C::syscall},
    };
    return rules;
}

struct Data {
    std::vector<std::string> text;  // the inflated files (the index's views point into them)
    std::vector<std::string> kernels;
    std::unordered_map<std::string_view, std::vector<std::string_view>> files_of;
};

std::string inflate_gzip(const EmbeddedKernelFile& f) {
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) throw std::runtime_error("zlib: inflateInit2 failed");
    z.next_in = const_cast<unsigned char*>(f.begin);
    z.avail_in = static_cast<uInt>(f.end - f.begin);
    std::string out;
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<unsigned char*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END) throw std::runtime_error(std::string("zlib: cannot inflate the embedded ") + f.name);
    return out;
}

const Data& data() {
    static const Data d = [] {
        Data d;
        for (const auto& f : embedded_kernel_files()) d.text.push_back(inflate_gzip(f));
        for (const std::string& t : d.text) {
            std::string_view rest(t);
            bool first = true;
            while (!rest.empty()) {
                size_t nl = rest.find('\n');
                std::string_view line = rest.substr(0, nl);
                rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
                if (line.empty()) continue;
                if (line[0] == '#') {
                    if (first) d.kernels.emplace_back(line.substr(line.find_first_not_of("# ")));
                    first = false;
                    continue;
                }
                size_t tab = line.find('\t');
                if (tab == std::string_view::npos) continue;
                auto& files = d.files_of[line.substr(0, tab)];
                std::string_view file = line.substr(tab + 1);
                bool known = false;
                for (std::string_view x : files) known = known || x == file;
                if (!known) files.push_back(file);
            }
        }
        return d;
    }();
    return d;
}

}  // namespace

const std::vector<SourceRule>& source_rules() { return table(); }

const SourceRule* source_rule_of_path(std::string_view path) {
    for (const SourceRule& r : table())
        if (path.substr(0, r.path_prefix.size()) == r.path_prefix) return &r;
    return nullptr;
}

std::vector<std::string> source_file_kernels() { return data().kernels; }

const std::vector<std::string_view>& source_files_of(std::string_view name) {
    static const std::vector<std::string_view> none;
    const Data& d = data();
    auto it = d.files_of.find(name);
    return it == d.files_of.end() ? none : it->second;
}

bool source_decision(std::string_view name, SourceDecision& out) {
    const auto& files = source_files_of(name);
    if (files.empty()) return false;
    const SourceRule* first = source_rule_of_path(files.front());
    if (first == nullptr) return false;
    for (std::string_view f : files) {
        const SourceRule* r = source_rule_of_path(f);
        if (r == nullptr || r->category != first->category) return false;  // files of several kinds: no answer
    }
    out = {first->category, files.front(), first};
    return true;
}

}  // namespace zc
