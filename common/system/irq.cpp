#include "system/irq.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "system/cpu_list.hpp"

namespace zc {

namespace fs = std::filesystem;

uint64_t InterruptLine::total() const {
    uint64_t t = 0;
    for (uint64_t c : per_cpu) t += c;
    return t;
}

std::map<int, InterruptLine> parse_proc_interrupts(std::string_view text) {
    std::map<int, InterruptLine> out;
    size_t ncpus = 0;
    size_t pos = 0;
    bool header = true;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        pos = nl == std::string_view::npos ? text.size() : nl + 1;
        std::istringstream in{std::string(line)};
        if (header) {  // "           CPU0       CPU1"
            std::string w;
            while (in >> w) ncpus += w.rfind("CPU", 0) == 0;
            header = false;
            continue;
        }
        std::string first;
        if (!(in >> first) || first.empty() || first.back() != ':') continue;
        int irq = 0;
        auto [p, ec] = std::from_chars(first.data(), first.data() + first.size() - 1, irq);
        if (ec != std::errc() || p != first.data() + first.size() - 1) continue;  // NMI:, LOC:, ...
        InterruptLine l;
        l.irq = irq;
        for (size_t c = 0; c < ncpus; ++c) {
            uint64_t v = 0;
            if (!(in >> v)) break;
            l.per_cpu.push_back(v);
        }
        std::string word, last;
        while (in >> word) last = word;  // chip, hwirq, type, then the action name(s)
        l.name = last;
        out[irq] = std::move(l);
    }
    return out;
}

std::map<int, InterruptLine> read_proc_interrupts(const std::string& proc) {
    std::ifstream in(proc + "/interrupts");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_proc_interrupts(ss.str());
}

namespace {

bool carries_no_data(const std::string& name) {
    for (const char* s : {"-config", "async", "_cmd", "-event", "ctrl", "misc"})
        if (name.find(s) != std::string::npos) return true;
    return false;
}

}  // namespace

std::vector<int> device_irqs(const std::string& device_class, const std::string& name,
                             const std::map<int, InterruptLine>& interrupts, const std::string& sysfs) {
    std::vector<int> out;
    std::error_code ec;
    fs::path dev = fs::path(sysfs) / "class" / device_class / name / "device";
    if (!fs::exists(dev, ec)) return out;  // a virtual device has no interrupts of its own
    fs::path real = fs::canonical(dev, ec);
    // The MSI vectors live on the PCI function, which is the device itself or an ancestor (virtio).
    for (fs::path p = real; !ec && !p.empty() && p != p.root_path(); p = p.parent_path()) {
        if (!fs::exists(p / "msi_irqs", ec)) continue;
        for (const auto& e : fs::directory_iterator(p / "msi_irqs", ec)) {
            int irq = 0;
            std::string n = e.path().filename().string();
            if (std::from_chars(n.data(), n.data() + n.size(), irq).ec != std::errc()) continue;
            auto it = interrupts.find(irq);
            if (it != interrupts.end() && carries_no_data(it->second.name)) continue;
            out.push_back(irq);
        }
        break;
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<int> rdma_device_irqs(const std::string& name, const std::map<int, InterruptLine>& interrupts,
                                  const std::string& sysfs) {
    std::vector<int> own = device_irqs("infiniband", name, interrupts, sysfs);
    if (!own.empty()) return own;
    std::ifstream in(fs::path(sysfs) / "class/infiniband" / name / "parent");
    std::string parent;
    if (!std::getline(in, parent) || parent.empty()) return {};
    return device_irqs("net", parent, interrupts, sysfs);
}

std::string read_irq_affinity(int irq, const std::string& proc) {
    std::ifstream in(proc + "/irq/" + std::to_string(irq) + "/smp_affinity_list");
    std::string s;
    std::getline(in, s);
    return s;
}

namespace {

// Writes a CPU list; returns 0 or the errno.
int write_affinity(const std::string& path, const std::string& list) {
    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);  // TRUNC: for fixture files; procfs ignores it
    if (fd < 0) return errno;
    int err = ::write(fd, list.data(), list.size()) == static_cast<ssize_t>(list.size()) ? 0 : errno;
    ::close(fd);
    return err;
}

}  // namespace

std::string describe_irq_holder(const KeyValues& holder, double now_s) {
    auto get = [&](const char* k) {
        auto it = holder.find(k);
        return it == holder.end() ? std::string() : it->second;
    };
    std::string out = get("program").empty() ? std::string("a test") : get("program");
    if (!get("pid").empty()) out += " pid " + get("pid");
    if (!get("peer").empty()) out += " (peer " + get("peer") + ")";
    if (!get("cpus").empty()) out += ", on CPUs " + get("cpus");
    double since = 0;
    if (auto s = get("since"); !s.empty() && std::from_chars(s.data(), s.data() + s.size(), since).ec == std::errc()) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f", std::max(0.0, now_s - since));
        out += std::string(", for ") + buf + " s";
    }
    return out;
}

namespace {

std::string lock_path(const std::string& dir, int irq) { return dir + "/" + std::to_string(irq) + ".lock"; }
std::string original_path(const std::string& dir, int irq) { return dir + "/" + std::to_string(irq) + ".original"; }
std::string affinity_path(const std::string& proc, int irq) {
    return proc + "/irq/" + std::to_string(irq) + "/smp_affinity_list";
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

}  // namespace

std::vector<int> restore_abandoned_irqs(const std::string& proc, const std::string& run_dir) {
    std::string dir = run_dir.empty() ? host_run_dir("irq") : run_dir;
    std::vector<int> restored;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::string name = e.path().filename().string();
        int irq = 0;
        auto [p, err] = std::from_chars(name.data(), name.data() + name.size(), irq);
        if (err != std::errc() || std::string_view(p) != ".original") continue;
        auto lock = LockedFile::try_lock(lock_path(dir, irq));
        if (!lock) continue;  // its holder (or that holder's guardian) lives: it puts it back
        std::string original = trimmed(read_small_file(original_path(dir, irq)));
        if (original.empty() || write_affinity(affinity_path(proc, irq), original) == 0 ||
            !fs::exists(proc + "/irq/" + std::to_string(irq))) {  // an IRQ that is gone has nothing to put back
            ::unlink(original_path(dir, irq).c_str());
            restored.push_back(irq);
        }
    }
    return restored;
}

IrqAffinityGuard::IrqAffinityGuard(const std::vector<int>& irqs, const std::vector<int>& cpus, const IrqClaim& claim,
                                   const std::string& proc)
    : proc_(proc), dir_(claim.run_dir.empty() ? host_run_dir("irq") : claim.run_dir) {
    std::string list = format_cpu_list(cpus);
    for (int irq : irqs)
        if (read_irq_affinity(irq, proc_).empty())
            throw std::runtime_error("cannot read the affinity of IRQ " + std::to_string(irq));
    restore_abandoned_irqs(proc_, dir_);
    // One IRQ after the other in ascending order: two tests waiting for each other's IRQs cannot both
    // hold one and wait for the other.
    std::vector<int> order = irqs;
    std::sort(order.begin(), order.end());
    order.erase(std::unique(order.begin(), order.end()), order.end());
    double deadline = wall_clock_s() + claim.wait_s;
    try {
        for (int irq : order) acquire(irq, claim, list, deadline);
    } catch (...) {
        restore();  // nothing moved yet: only the originals this guard wrote are taken back
        release_locks();
        throw;
    }
    start_guardian();
    for (int irq : order) {
        if (int err = write_affinity(affinity_path(proc_, irq), list)) {
            restore();
            stop_guardian();
            release_locks();
            std::string why = std::strerror(err);
            // The file is root's (0644) and the kernel checks only that: root, or CAP_DAC_OVERRIDE.
            if (err == EACCES || err == EPERM) why += ": run as root or with CAP_DAC_OVERRIDE (zcserver.service)";
            if (err == EIO) why += ": the kernel manages this IRQ's affinity itself (managed IRQ)";
            throw std::runtime_error("cannot move IRQ " + std::to_string(irq) + " to CPUs " + list + " (" + why + ")");
        }
        changed_.push_back(irq);
    }
}

void IrqAffinityGuard::acquire(int irq, const IrqClaim& claim, const std::string& cpus, double deadline) {
    const double began = wall_clock_s();
    std::optional<LockedFile> lock;
    double unnamed_since = -1;  // when the lock was first seen held with no name in it
    while (!(lock = LockedFile::try_lock(lock_path(dir_, irq)))) {
        double now = wall_clock_s();
        // A holder names itself just after taking the lock and clears its name just before letting go
        // (a lock file's text is never a past holder's): no name is a moment of change, so look again
        // shortly rather than refuse without naming the test that holds it.
        // One reading serves the check and the message: the name refused is the one that was checked.
        const std::string text = read_small_file(lock_path(dir_, irq));
        if (!text.empty()) {
            unnamed_since = -1;
        } else if (unnamed_since < 0 || now - unnamed_since < kUnnamedHolderGrace_s) {
            if (unnamed_since < 0) unnamed_since = now;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            continue;
        }
        const std::string held = "IRQ " + std::to_string(irq) + " is held by another test on this host: " +
                                 describe_irq_holder(parse_key_values(text), now);
        if (now >= deadline) {
            std::string original = trimmed(read_small_file(original_path(dir_, irq)));
            char waited[64] = "";
            if (claim.wait_s > 0) std::snprintf(waited, sizeof waited, "; waited %.1f s (--irq-wait)", now - began);
            throw std::runtime_error(
                held + (original.empty() ? "" : "; it was on CPUs " + original + " before that test") + waited +
                ". Wait for it with --irq-wait SECS, or run without --irq-cpus to leave the IRQs where they are");
        }
        if (claim.on_wait && !said_wait_) {
            said_wait_ = true;
            char until[64];
            std::snprintf(until, sizeof until, "; waiting up to %g s for it (--irq-wait)", claim.wait_s);
            claim.on_wait(held + until);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    waited_s_ += wall_clock_s() - began;
    lock->write(format_key_values({{"pid", std::to_string(::getpid())},
                                   {"program", claim.program},
                                   {"peer", claim.peer},
                                   {"cpus", cpus},
                                   {"since", std::to_string(wall_clock_s())}}));
    // The true original: the first mover's reading. A holder killed with its guardian left its
    // N.original behind (restore_abandoned_irqs put it back, or we hold the lock now and it is the
    // value to keep): the IRQ's current list is then a moved one and must not replace it.
    std::string kept = trimmed(read_small_file(original_path(dir_, irq)));
    if (kept.empty()) {
        kept = read_irq_affinity(irq, proc_);
        write_file_atomically(original_path(dir_, irq), kept + "\n");
    }
    originals_[irq] = kept;
    locks_.push_back(std::move(*lock));
}

IrqAffinityGuard::~IrqAffinityGuard() {
    restore();
    stop_guardian();
    release_locks();  // only now may another test take the IRQs: they are back
}

void IrqAffinityGuard::release_locks() noexcept {
    // Our name goes before the lock does: a test refused later must never be told of a past holder.
    for (const auto& l : locks_) (void)!::ftruncate(l.fd(), 0);
    locks_.clear();
}

void IrqAffinityGuard::restore() noexcept {
    for (int irq : changed_) write_affinity(affinity_path(proc_, irq), originals_[irq]);
    for (const auto& [irq, list] : originals_) ::unlink(original_path(dir_, irq).c_str());
    changed_.clear();
}

void IrqAffinityGuard::start_guardian() {
    // Everything the child needs is prepared before fork: after fork in a threaded process it may
    // only make async-signal-safe calls (open, write, read, close, unlink, _exit).
    std::vector<std::pair<std::string, std::string>> jobs;
    std::vector<std::string> originals;
    for (const auto& [irq, list] : originals_) {
        jobs.emplace_back(affinity_path(proc_, irq), list);
        originals.push_back(original_path(dir_, irq));
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    // The descriptors the child keeps: its pipe and the IRQ locks (the locks stay held until it is done).
    std::vector<unsigned> keep{static_cast<unsigned>(p[0])};
    for (const auto& l : locks_) keep.push_back(static_cast<unsigned>(l.fd()));
    std::sort(keep.begin(), keep.end());
    pid_t pid = fork();
    if (pid < 0) {
        ::close(p[0]);
        ::close(p[1]);
        throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
        ::setsid();  // its own session: signals for zcperf's process group do not reach it
        // Drop every other descriptor (data sockets must not outlive their owner here).
        unsigned from = 3;
        for (unsigned fd : keep) {
            if (fd > from) ::syscall(SYS_close_range, from, fd - 1, 0u);
            from = fd + 1;
        }
        ::syscall(SYS_close_range, from, ~0u, 0u);
        ::signal(SIGINT, SIG_IGN);  // a Ctrl-C meant for zcperf must not kill its guardian
        ::signal(SIGTERM, SIG_IGN);
        char c = 0;
        ssize_t n;
        do {
            n = ::read(p[0], &c, 1);
        } while (n < 0 && errno == EINTR);
        if (n == 1 && c == 'd') _exit(0);  // the owner restored everything itself
        for (const auto& [path, list] : jobs) {
            int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
            if (fd >= 0) {
                (void)!::write(fd, list.data(), list.size());
                ::close(fd);
            }
        }
        for (const auto& path : originals) ::unlink(path.c_str());
        for (unsigned fd : keep)
            if (static_cast<int>(fd) != p[0]) (void)!::ftruncate(static_cast<int>(fd), 0);  // the holder's name
        _exit(0);  // the locks go with this process
    }
    ::close(p[0]);
    guardian_ = pid;
    guardian_pipe_ = p[1];
}

void IrqAffinityGuard::stop_guardian() noexcept {
    if (guardian_ <= 0) return;
    char done = 'd';
    (void)!::write(guardian_pipe_, &done, 1);
    ::close(guardian_pipe_);
    ::waitpid(guardian_, nullptr, 0);
    guardian_ = -1;
}

}  // namespace zc
