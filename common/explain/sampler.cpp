#include "explain/sampler.hpp"

#include <linux/perf_event.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "core/stream_counters.hpp"

namespace zc {

namespace {

constexpr size_t kDataPages = 32;   // 128 KiB per CPU: ~0.4 s of 999 Hz samples with 40-frame chains
constexpr int kPollMs = 50;         // the drain thread's longest sleep: a ring fills in far longer
constexpr uint16_t kMaxStack = 64;  // frames per chain: enough for the deepest network stacks

std::string read_paranoid() {
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    std::string v;
    in >> v;
    return v.empty() ? "?" : v;
}

std::string open_problem(int err) {
    if (err == EACCES || err == EPERM) {
        return "--explain: the kernel refused system-wide sampling (perf_event_open: " + std::string(strerror(err)) +
               "; kernel.perf_event_paranoid = " + read_paranoid() +
               "): run as root, give the binary CAP_PERFMON (setcap cap_perfmon+ep), or allow it for everyone with "
               "'sysctl kernel.perf_event_paranoid=-1'; the test ran without explain";
    }
    if (err == ENOENT || err == ENODEV || err == EOPNOTSUPP)
        return "--explain: this kernel has no cpu-clock perf event (perf_event_open: " + std::string(strerror(err)) +
               ", built without CONFIG_PERF_EVENTS?); the test ran without explain";
    if (err == EMFILE || err == ENFILE)
        return "--explain: out of file descriptors for one perf event per CPU (" + std::string(strerror(err)) +
               "): raise 'ulimit -n'; the test ran without explain";
    return "--explain: perf_event_open failed: " + std::string(strerror(err)) + "; the test ran without explain";
}

uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

bool in_text(const std::vector<TextRange>& text, pid_t pid, uint64_t ip) {
    for (const auto& t : text)
        if (t.pid == pid && ip >= t.begin && ip < t.end) return true;
    return false;
}

}  // namespace

std::vector<TextRange> library_text(std::istream& maps, pid_t pid, std::string_view library) {
    // "7f00c4200000-7f00c4500000 r-xp 00000000 08:01 1234   /usr/lib/x86_64-linux-gnu/libcrypto.so.3"
    std::vector<TextRange> out;
    std::string line;
    while (std::getline(maps, line)) {
        std::istringstream l(line);
        std::string span, perms, offset, dev, inode, path;
        if (!(l >> span >> perms >> offset >> dev >> inode >> path) || perms.size() < 3 || perms[2] != 'x') continue;
        const std::string_view file = std::string_view(path).substr(path.rfind('/') + 1);
        const size_t dash = span.find('-');
        if (file.substr(0, library.size()) != library || dash == std::string::npos) continue;
        out.push_back(
            {std::stoull(span.substr(0, dash), nullptr, 16), std::stoull(span.substr(dash + 1), nullptr, 16), pid});
    }
    return out;
}

size_t SampleKeyHash::operator()(const SampleKey& k) const {
    uint64_t h = mix(k.cpu, k.flags);
    for (uint64_t ip : k.ips) h = mix(h, ip);
    return static_cast<size_t>(h);
}

Sampler::Sampler(const std::vector<int>& cpus, int hz, std::vector<pid_t> own)
    : cpus_(cpus), hz_(hz), own_(std::move(own)) {
    period_ns_ = hz > 0 ? 1000000000ull / static_cast<uint64_t>(hz) : 1000000;
    for (pid_t p : own_) {  // a process we cannot read (gone, another user's) has none: its time stays user
        std::ifstream maps("/proc/" + std::to_string(p) + "/maps");
        auto text = library_text(maps, p, "libcrypto.so");
        libcrypto_.insert(libcrypto_.end(), text.begin(), text.end());
    }
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    std::mt19937_64 draw(std::random_device{}());
    std::uniform_real_distribution<double> spread(1.0 - kPeriodSpread, 1.0 + kPeriodSpread);
    int top = 0;
    for (int c : cpus_) top = std::max(top, c);
    cpu_period_ns_.assign(static_cast<size_t>(top) + 1, period_ns_);
    for (int cpu : cpus_) {
        uint64_t& period = cpu_period_ns_[static_cast<size_t>(cpu)];
        period = static_cast<uint64_t>(static_cast<double>(period_ns_) * spread(draw));
        perf_event_attr a{};
        a.size = sizeof(a);
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_CPU_CLOCK;
        a.sample_period = period;  // cpu-clock counts nanoseconds: one sample per period of CPU time
        a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;
        a.use_clockid = 1;  // sample times on the clock enable() reads, so the first sample's weight is known
        a.clockid = CLOCK_MONOTONIC;
        a.disabled = 1;
        a.exclude_callchain_user = 1;  // user frames: only the IP (user time is one category)
        a.sample_max_stack = kMaxStack;
        a.watermark = 1;
        a.wakeup_watermark = static_cast<uint32_t>(kDataPages * page / 4);
        int fd = static_cast<int>(syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
        if (fd < 0) {
            problem_ = open_problem(errno);
            rings_.clear();
            return;
        }
        Ring r;
        r.fd = UniqueFd(fd);
        r.cpu = cpu;
        r.bytes = (kDataPages + 1) * page;
        void* m = mmap(nullptr, r.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            problem_ = "--explain: cannot map the perf ring buffer of CPU " + std::to_string(cpu) + ": " +
                       strerror(errno) +
                       " (kernel.perf_event_mlock_kb too small for a non-root user?); the test ran "
                       "without explain";
            for (auto& x : rings_) munmap(x.base, x.bytes);
            rings_.clear();
            return;
        }
        r.base = m;
        rings_.push_back(std::move(r));
    }
    if (rings_.empty()) problem_ = "--explain: no CPU to sample";
}

Sampler::~Sampler() {
    disable();
    for (auto& r : rings_) munmap(r.base, r.bytes);
}

void Sampler::enable() {
    if (!ok() || enabled_) return;
    enabled_ = true;
    stop_.store(false);
    const auto now = static_cast<uint64_t>(monotonic_ns());  // the clock the samples' times are on (attr.clockid)
    // per CPU, indexed as cpu_period_ns_ (sized to the highest CPU sampled, in the constructor)
    last_idle_.assign(cpu_period_ns_.size(), true);  // the first sample's gap: unknown, nominal
    last_ns_.assign(cpu_period_ns_.size(), now);
    totals_.from_s = static_cast<double>(now / 1000) / 1e6;  // whole µs, as perf script prints and --time reads
    thread_ = std::thread([this] { drain_loop(); });
    for (auto& r : rings_) ioctl(r.fd.get(), PERF_EVENT_IOC_ENABLE, 0);
}

void Sampler::disable() {
    if (!enabled_) return;
    for (auto& r : rings_) ioctl(r.fd.get(), PERF_EVENT_IOC_DISABLE, 0);
    totals_.until_s = static_cast<double>((monotonic_ns() + 999) / 1000) / 1e6;  // whole µs, rounded up
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
    enabled_ = false;
}

void Sampler::drain_loop() {
    sampler_tid_.store(static_cast<pid_t>(syscall(SYS_gettid)));
    rusage r0{}, r1{};
    getrusage(RUSAGE_THREAD, &r0);
    std::vector<pollfd> fds;
    for (auto& r : rings_) fds.push_back({r.fd.get(), POLLIN, 0});
    while (!stop_.load()) {
        poll(fds.data(), fds.size(), kPollMs);  // bounded: the stop flag is seen within kPollMs
        for (auto& r : rings_) drain(r);
    }
    for (auto& r : rings_) drain(r);  // what came in before the events stopped
    getrusage(RUSAGE_THREAD, &r1);
    auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
    totals_.sampler_cpu_s = secs(r1.ru_utime) - secs(r0.ru_utime) + secs(r1.ru_stime) - secs(r0.ru_stime);
}

void Sampler::drain(Ring& r) {
    auto* meta = static_cast<perf_event_mmap_page*>(r.base);
    const size_t page = r.bytes / (kDataPages + 1);
    const char* data = static_cast<const char*>(r.base) + page;
    const size_t size = kDataPages * page;
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = meta->data_tail;
    while (tail < head) {
        size_t off = tail % size;
        perf_event_header h;
        if (off + sizeof(h) <= size) {
            std::memcpy(&h, data + off, sizeof(h));
        } else {  // even the header wraps
            size_t first = size - off;
            std::memcpy(&h, data + off, first);
            std::memcpy(reinterpret_cast<char*>(&h) + first, data, sizeof(h) - first);
        }
        if (h.size < sizeof(h)) break;  // cannot happen; never loop forever on a bad ring
        const char* rec = data + off;
        if (off + h.size > size) {  // the record wraps: make it whole
            wrap_.resize(h.size);
            size_t first = size - off;
            std::memcpy(wrap_.data(), data + off, first);
            std::memcpy(wrap_.data() + first, data, h.size - first);
            rec = wrap_.data();
        }
        on_record(rec, h.size);
        tail += h.size;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void Sampler::on_record(const char* rec, size_t size) {
    perf_event_header h;
    std::memcpy(&h, rec, sizeof(h));
    const char* p = rec + sizeof(h);
    const char* end = rec + size;
    auto u64 = [&](uint64_t& v) {
        if (p + 8 > end) return false;
        std::memcpy(&v, p, 8);
        p += 8;
        return true;
    };
    if (h.type == PERF_RECORD_LOST) {
        uint64_t id = 0, lost = 0;
        if (u64(id) && u64(lost)) totals_.lost += lost;
        return;
    }
    if (h.type == PERF_RECORD_THROTTLE) {
        ++totals_.throttled;
        return;
    }
    if (h.type != PERF_RECORD_SAMPLE) return;
    // IP, TID (pid, tid), TIME, CPU (cpu, reserved), CALLCHAIN (nr, ips): the order of the sample_type bits.
    uint64_t ip = 0, pidtid = 0, time_ns = 0, cpu = 0, nr = 0;
    if (!u64(ip) || !u64(pidtid) || !u64(time_ns) || !u64(cpu) || !u64(nr)) return;
    uint32_t pid = static_cast<uint32_t>(pidtid), tid = static_cast<uint32_t>(pidtid >> 32);
    // A gap between two samples in tasks is time the timer could not fire in (the vCPU descheduled,
    // interrupts off): the later sample stands for all of it. A gap that touches the idle task may hold
    // idle time in which the timer did not fire (seen on the lent machine: idle CPUs gave a few dozen
    // samples a second), so such a sample stands for the nominal period only.
    uint64_t weight_ns = period_ns_;
    const bool idle_now = pid == 0;
    if (static_cast<uint32_t>(cpu) < last_ns_.size()) {
        weight_ns = cpu_period_ns_[static_cast<uint32_t>(cpu)];
        uint64_t& last = last_ns_[static_cast<uint32_t>(cpu)];
        const bool idle_before = last_idle_[static_cast<uint32_t>(cpu)];
        if (!idle_now && !idle_before && time_ns > last) weight_ns = time_ns - last;
        last = std::max(last, time_ns);
        last_idle_[static_cast<uint32_t>(cpu)] = idle_now;
    }
    SampleKey& k = scratch_;
    k.cpu = static_cast<uint32_t>(cpu);
    k.flags = 0;
    k.ips.clear();
    if (pid == 0) k.flags |= SampleKey::idle_task;
    for (pid_t p : own_)
        if (static_cast<pid_t>(pid) == p) k.flags |= SampleKey::own;
    if (static_cast<pid_t>(tid) == sampler_tid_.load(std::memory_order_relaxed)) k.flags |= SampleKey::sampler;
    if (!is_kernel_address(ip)) {
        k.flags |= SampleKey::user;
        if ((k.flags & SampleKey::own) && in_text(libcrypto_, static_cast<pid_t>(pid), ip))
            k.flags |= SampleKey::libcrypto;
    } else {
        for (uint64_t i = 0; i < nr; ++i) {
            uint64_t v = 0;
            if (!u64(v)) break;
            if (v >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) {  // a context marker
                if (v == static_cast<uint64_t>(PERF_CONTEXT_USER)) break;
                continue;
            }
            k.ips.push_back(v);
        }
        if (k.ips.empty()) k.ips.push_back(ip);
    }
    auto it = totals_.counts.find(k);
    if (it == totals_.counts.end()) it = totals_.counts.emplace(k, SampleTally{}).first;
    ++it->second.samples;
    it->second.ns += weight_ns;
}

}  // namespace zc
