#pragma once
// Where CPU time went, by kind of work: the categories and the rules that put a kernel function in one.
// The rules are data, kept in one table (categories.cpp); each is testable on its own (tests/unit).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zc {

// In report order. idle is not work and never reported; inherit means "ask the caller" (a helper whose
// cost belongs to whoever called it, or an IRQ-enable point where a software-clock sample that was held
// back while interrupts were off lands).
enum class Category : uint8_t {
    copy,           // data copy: user <-> kernel, skb <-> skb
    checksum,       // software checksums
    crypto,         // the kernel's crypto (AES-GCM, GHASH, ChaCha20/Poly1305, the crypto API's glue) and kTLS's records
    tcp,            // TCP/IP: tcp_*, ip_*, inet_*, the socket layer's TCP side
    udp,            // UDP/IP
    netdev,         // driver, NAPI, GRO/GSO, qdisc, DMA mapping, loopback's xmit
    skb,            // skb allocation, cloning, freeing
    memory,         // page/slab alloc and free, page pinning, IOMMU, page faults
    zerocopy,       // zero-copy bookkeeping: completion notifications, error queue, io_uring notifications
    lock,           // spin locks, mutexes, RCU
    sched,          // scheduling, wake-ups, waiting
    syscall,        // system call entry and exit, fd lookup
    rdma,           // RDMA provider (rxe, siw, mlx5_ib) and the verbs core
    smc,            // SMC's own work (net/smc): CDC messages, the RMBs' cursors and wake-ups, link groups, CLC
    bpf,            // BPF programs (tracers', cgroup and socket filters) and kprobes run in the path: added work
    user,           // user-space time of the process that samples (zcperf or zcserver), libcrypto's apart
    user_crypto,    // the same processes' user time in libcrypto's text: OpenSSL's AES-GCM, GHASH, ChaCha20
    other_process,  // user-space time of every other process
    other,          // kernel functions no rule names
    unknown,        // addresses with no symbol
    count_,         // number of reported categories
    idle = count_,
    inherit,
};

inline constexpr size_t kCategoryCount = static_cast<size_t>(Category::count_);

struct CategoryName {
    const char* key;    // JSON and CSV: "copy", "tcp" ...
    const char* label;  // human report: "data copy", "TCP/IP" ...
};
const std::array<CategoryName, kCategoryCount>& category_names();
const char* category_key(Category c);
const char* category_label(Category c);

// The category of one function by name (Category::inherit and Category::idle included): the rule table's
// first match, exact names before prefixes and substrings; then, for a name no rule names, the rule of
// the source file it is written in (explain/source_files.hpp: Debian kernels' DWARF); then its module's
// rule; other when nothing matches. `name` may carry its module as folded stacks write it,
// "virtnet_poll [virtio_net]" (the module rules need it: an assembly label in aesni_intel has no name
// of its own that says crypto).
Category category_of_function(std::string_view name);

// The category of a call chain, leaf first (names as category_of_function takes them): the leaf's,
// walking up to the first caller that is not `inherit`. A chain of inherit frames only is `other`.
Category attribute_chain(const std::vector<std::string_view>& leaf_first);

// Frames that say the interrupted code ran in interrupt or softirq context: a sample of the idle task
// (pid 0) with one of these in its chain is real work (/proc/stat counts it as irq or softirq time).
bool is_interrupt_entry(std::string_view name);

// The rules, for tests and --explain's documentation: kind ("exact", "prefix", "contains": on the
// function's name; "module": the module a function no name rule names lives in), pattern, category.
struct CategoryRule {
    enum Kind : uint8_t { exact, prefix, contains, module } kind;
    std::string_view pattern;
    Category category;
};
const std::vector<CategoryRule>& category_rules();
// The hand table's rule for `name` (as category_of_function takes it: names, then modules; source files
// not consulted); nullptr: none.
const CategoryRule* rule_of_function(std::string_view name);

// How category_of_function decides, for --explain-categories: a name or module rule, or a source
// file's rule (source and file set), or none (other).
struct SourceRule;
struct Classification {
    Category category = Category::other;
    const CategoryRule* rule = nullptr;
    const SourceRule* source = nullptr;
    std::string_view file;  // the function's source file when `source` decided
};
Classification classify_function(std::string_view name);

}  // namespace zc
